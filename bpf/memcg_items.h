/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What crosses the kernel/user boundary for the counters to read: which
 * kfunc to call with which index, and where the values land. Included by
 * the BPF programs and by user space.
 */
#ifndef __MEMCG_ITEMS_H
#define __MEMCG_ITEMS_H

/* Counters one read takes at most. */
#define MCS_MAX_ITEMS	128

/* The kfunc an item is read with. */
enum mcs_item_kind {
	MCS_PAGE_STATE = 1,	/* bpf_mem_cgroup_page_state(idx) */
	MCS_PAGE_STATE_LOCAL,	/* bpf_memcgstat_page_state_local(idx) */
	MCS_NODE_PAGE_STATE,	/* bpf_memcgstat_node_page_state(nid, idx) */
	MCS_VM_EVENTS,		/* bpf_mem_cgroup_vm_events(idx) */
	MCS_VM_EVENTS_LOCAL,	/* bpf_memcgstat_vm_events_local(idx) */
	MCS_MEMORY_EVENTS,	/* bpf_mem_cgroup_memory_events(idx) */
	MCS_USAGE,		/* bpf_mem_cgroup_usage() */
	/*
	 * CO-RE reads of struct mem_cgroup and struct cgroup, no kfunc; an
	 * item whose field this kernel lacks reads MCS_INVALID. A page
	 * counter's field, idx an enum mcs_page_counter, in pages (failcnt:
	 * a count):
	 */
	MCS_PC_USAGE,		/* ->usage: memory.swap.current, v1 memsw.usage */
	MCS_PC_MIN,		/* ->min: memory.min */
	MCS_PC_LOW,		/* ->low: memory.low */
	MCS_PC_HIGH,		/* ->high: memory.high */
	MCS_PC_MAX,		/* ->max: memory.max, v1 limit_in_bytes */
	MCS_PC_WATERMARK,	/* ->watermark: memory.peak, v1 max_usage_in_bytes */
	MCS_PC_FAILCNT,		/* ->failcnt: v1 memory.failcnt */
	MCS_OOM_GROUP,		/* memcg->oom_group: memory.oom.group */
	MCS_MEMORY_EVENTS_LOCAL, /* memcg->memory_events_local[idx] */
	MCS_NR_DESCENDANTS,	/* the cgroup's nr_descendants: cgroup.stat */
	MCS_NR_DYING_DESCENDANTS, /* the cgroup's nr_dying_descendants */
	/*
	 * The lowest ->max of a page counter and its parents: the limit that
	 * applies (v1 memory.stat hierarchical_memory_limit, _memsw_limit)
	 */
	MCS_PC_MAX_EFFECTIVE,
	MCS_UNDER_OOM,		/* memcg->under_oom: v1 memory.oom_control */
};

/* The page counters of struct mem_cgroup, for the MCS_PC_* kinds. */
enum mcs_page_counter {
	MCS_PCTR_MEMORY = 0,	/* memcg->memory */
	MCS_PCTR_SWAP,		/* memcg->swap (cgroup v2) */
	MCS_PCTR_MEMSW,		/* memcg->memsw (cgroup v1: memory + swap) */
	MCS_PCTR_KMEM,		/* memcg->kmem (cgroup v1: memory.kmem.*) */
};

struct mcs_item {
	__u32 kind;	/* enum mcs_item_kind */
	__s32 idx;	/* enum value in the running kernel */
	__s32 nid;	/* MCS_NODE_PAGE_STATE only */
	__u32 slot;	/* libmemcgstat's programs: the value's index in a record */
};

/* A kfunc's answer for an index it does not accept. */
#define MCS_INVALID	((__u64)-1)

/*
 * An item as bpf_memcgstat_read() (kernel/patches 0006, mm/bpf_memcgstat.c)
 * takes it: one __u32, the kernel's enum bpf_memcgstat_kind in bits 31-28,
 * the node in bits 27-16, the index in bits 15-0. That enum numbers its
 * kinds as MCS_PAGE_STATE .. MCS_USAGE above; the library encodes only
 * those, and only an index and a node that fit their bits. A field the
 * kind does not use (the node but for MCS_NODE_PAGE_STATE, the index of
 * MCS_USAGE) is 0: the kernel reads -1 for an item with one set, where the
 * per-item kfuncs, which take no such argument, ignore it.
 */
#define MCS_KF_KIND_SHIFT	28
#define MCS_KF_NID_SHIFT	16
#define MCS_KF_NID_MAX		0xfff
#define MCS_KF_IDX_MAX		0xffff
#define MCS_KF_ITEM(kind, nid, idx)							\
	((__u32)(kind) << MCS_KF_KIND_SHIFT |						\
	 (__u32)((kind) == MCS_NODE_PAGE_STATE ? (nid) : 0) << MCS_KF_NID_SHIFT |	\
	 (__u32)((kind) == MCS_USAGE ? 0 : (idx)))

#endif /* __MEMCG_ITEMS_H */
