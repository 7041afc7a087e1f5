/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Read one struct mcs_item with the memcg kfuncs, after flushing the
 * statistics (mcs_flush_cgroup()). Shared by libmemcgstat's programs, the
 * selftests and bench/flush.bpf.c. Include after vmlinux.h (the selftests) or
 * kernel_types.h (the library), and memcg_kfuncs.h.
 * With MCS_UPSTREAM_ONLY, the kinds that need memcgstat's additions read
 * MCS_INVALID (the library never asks for them then).
 */
#ifndef __MEMCG_READ_BPF_H
#define __MEMCG_READ_BPF_H

#include <bpf/bpf_core_read.h>
#include "memcg_items.h"

/*
 * Flush @cgrp's memcg subtree. Returns 0, or -1 if @cgrp has no memcg.
 * Never with a read: each inlined read of the items is a walk of them the
 * verifier makes again.
 */
static __always_inline int mcs_flush_cgroup(struct cgroup *cgrp)
{
	struct mem_cgroup *memcg = bpf_get_mem_cgroup(&cgrp->self);

	if (!memcg)
		return -1;
	bpf_mem_cgroup_flush_stats(memcg);
	bpf_put_mem_cgroup(memcg);
	return 0;
}

/*
 * The page counter @idx of @memcg, or NULL. swap (v2) and memsw (v1) share
 * a union in struct mem_cgroup (Linux 6.12 and 7.0); each is guarded on its
 * own, for a kernel that drops one.
 */
static __always_inline struct page_counter *
mcs_page_counter(struct mem_cgroup *memcg, int idx)
{
	switch (idx) {
	case MCS_PCTR_MEMORY:
		return &memcg->memory;
	case MCS_PCTR_SWAP:
		if (bpf_core_field_exists(memcg->swap))
			return &memcg->swap;
		break;
	case MCS_PCTR_MEMSW:
		if (bpf_core_field_exists(memcg->memsw))
			return &memcg->memsw;
		break;
	case MCS_PCTR_KMEM:
		/* cgroup v1's, under CONFIG_MEMCG_V1 since Linux 6.11 */
		if (bpf_core_field_exists(memcg->kmem))
			return &memcg->kmem;
		break;
	}
	return NULL;
}

/* A walk up a page counter's parents, for the limit that applies. */
struct mcs_max_walk {
	struct page_counter *pc;	/* the next counter up, NULL past the root */
	unsigned long max;		/* the lowest ->max so far */
};

static long mcs_max_step(__u64 i, void *ctx)
{
	struct mcs_max_walk *w = ctx;
	/* a local: &w->pc->max would relocate struct mcs_max_walk too */
	struct page_counter *pc = w->pc;
	unsigned long max = 0;

	if (!pc)
		return 1;
	bpf_core_read(&max, sizeof(max), &pc->max);
	if (max < w->max)
		w->max = max;
	bpf_core_read(&w->pc, sizeof(w->pc), &pc->parent);
	return 0;
}

/*
 * The lowest ->max of @pc and its parents, as memory.stat's
 * hierarchical_memory_limit (mm/memcontrol-v1.c, memcg1_stat_format())
 * takes it over the memcg's ancestors: the parent counters are theirs.
 * bpf_loop(), so that the verifier checks one step, not a walk per item.
 */
static __always_inline __u64 mcs_max_effective(struct page_counter *pc)
{
	struct mcs_max_walk w = {};

	bpf_core_read(&w.max, sizeof(w.max), &pc->max);
	bpf_core_read(&w.pc, sizeof(w.pc), &pc->parent);
	bpf_loop(1 << 16, mcs_max_step, &w, 0);
	return w.max;
}

/*
 * A field of a page counter, struct mem_cgroup or the memcg's cgroup, read
 * with bpf_core_read() (bpf_probe_read_kernel()): the field's offset is
 * relocated at load time, and no pointer this takes goes through the
 * verifier's trusted-pointer checks (a pointer field read straight off a
 * trusted struct costs a scan of vmlinux BTF at load, see cgroup_id_of()).
 * The values are the fields as the files print them before their unit:
 * pages for the page counters (user space multiplies).
 */
/* The unsigned long @field of page counter @pc, where it has one (CO-RE). */
#define MCS_PC_FIELD(pc, field, ul) ({					\
	__u64 __v = MCS_INVALID;					\
	if ((pc) && bpf_core_field_exists((pc)->field)) {		\
		bpf_core_read(&(ul), sizeof(ul), &(pc)->field);	\
		__v = (ul);						\
	}								\
	__v;								\
})

static __always_inline __u64 mcs_read_field(struct mem_cgroup *memcg,
					    __u32 kind, int idx)
{
	struct page_counter *pc = mcs_page_counter(memcg, idx);
	unsigned long ul = 0;
	struct cgroup *cgrp;
	long l = 0;
	bool b = 0;
	int n = 0;

	switch (kind) {
	case MCS_PC_USAGE:
		if (!pc || !bpf_core_field_exists(pc->usage))
			return MCS_INVALID;
		bpf_core_read(&l, sizeof(l), &pc->usage.counter);
		return (unsigned long)l;	/* page_counter_read() */
	case MCS_PC_MIN:
		return MCS_PC_FIELD(pc, min, ul);
	case MCS_PC_LOW:
		return MCS_PC_FIELD(pc, low, ul);
	case MCS_PC_HIGH:
		/* in struct page_counter since Linux 5.8 */
		return MCS_PC_FIELD(pc, high, ul);
	case MCS_PC_MAX:
		return MCS_PC_FIELD(pc, max, ul);
	case MCS_PC_WATERMARK:
		return MCS_PC_FIELD(pc, watermark, ul);
	case MCS_PC_FAILCNT:
		return MCS_PC_FIELD(pc, failcnt, ul);
	case MCS_PC_MAX_EFFECTIVE:
		if (!pc || !bpf_core_field_exists(pc->max) || !bpf_core_field_exists(pc->parent))
			return MCS_INVALID;
		return mcs_max_effective(pc);
	case MCS_UNDER_OOM:
		/* cgroup v1's, under CONFIG_MEMCG_V1 since Linux 6.11 */
		if (!bpf_core_field_exists(memcg->under_oom))
			return MCS_INVALID;
		bpf_core_read(&n, sizeof(n), &memcg->under_oom);
		return n != 0;	/* memory.oom_control prints it as a bool */
	case MCS_OOM_GROUP:
		if (!bpf_core_field_exists(memcg->oom_group))
			return MCS_INVALID;
		bpf_core_read(&b, sizeof(b), &memcg->oom_group);
		return b;
	case MCS_MEMORY_EVENTS_LOCAL:
		/* idx: enum memcg_memory_event, checked against the array */
		if (!bpf_core_field_exists(memcg->memory_events_local) || idx < 0 ||
		    idx >= bpf_core_field_size(memcg->memory_events_local) / sizeof(long))
			return MCS_INVALID;
		bpf_core_read(&l, sizeof(l), &memcg->memory_events_local[idx]);
		return l;
	case MCS_NR_DESCENDANTS:
		if (!bpf_core_field_exists(struct cgroup, nr_descendants))
			return MCS_INVALID;
		cgrp = BPF_CORE_READ(memcg, css.cgroup);
		bpf_core_read(&n, sizeof(n), &cgrp->nr_descendants);
		return n;
	case MCS_NR_DYING_DESCENDANTS:
		if (!bpf_core_field_exists(struct cgroup, nr_dying_descendants))
			return MCS_INVALID;
		cgrp = BPF_CORE_READ(memcg, css.cgroup);
		bpf_core_read(&n, sizeof(n), &cgrp->nr_dying_descendants);
		return n;
	}
	return MCS_INVALID;
}

/* An item one of the memcg kfuncs reads; MCS_INVALID for another kind. */
static __always_inline __u64 mcs_read_kfunc(struct mem_cgroup *memcg,
					    __u32 kind, int idx, int nid)
{
	switch (kind) {
	case MCS_PAGE_STATE:
		return bpf_mem_cgroup_page_state(memcg, idx);
	case MCS_VM_EVENTS:
		return bpf_mem_cgroup_vm_events(memcg, idx);
#ifndef MCS_UPSTREAM_ONLY
	case MCS_PAGE_STATE_LOCAL:
		return bpf_memcgstat_page_state_local(memcg, idx);
	case MCS_NODE_PAGE_STATE:
		return bpf_memcgstat_node_page_state(memcg, nid, idx);
	case MCS_VM_EVENTS_LOCAL:
		return bpf_memcgstat_vm_events_local(memcg, idx);
#endif
	case MCS_MEMORY_EVENTS:
		return bpf_mem_cgroup_memory_events(memcg, idx);
	case MCS_USAGE:
		return bpf_mem_cgroup_usage(memcg);
	}
	return MCS_INVALID;
}

static __always_inline __u64 mcs_read_item(struct mem_cgroup *memcg,
					   __u32 kind, int idx, int nid)
{
	if (kind >= MCS_PC_USAGE && kind <= MCS_UNDER_OOM)
		return mcs_read_field(memcg, kind, idx);
	return mcs_read_kfunc(memcg, kind, idx, nid);
}

#endif /* __MEMCG_READ_BPF_H */
