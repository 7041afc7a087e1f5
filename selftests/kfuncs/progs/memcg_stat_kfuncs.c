// SPDX-License-Identifier: GPL-2.0
/*
 * Programs for prog_tests/memcg_stat_kfuncs.c: read memcg counters with the
 * memcg kfuncs, from a cgroup iterator and from a syscall program on the
 * root memcg; and read invalid indices. The misuse the verifier must
 * refuse is in progs/memcg_stat_kfuncs_fail.c.
 * The kfunc prototypes come from vmlinux.h (bpftool 7.4 and later).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

char _license[] SEC("license") = "GPL";

/* What the readers return, in the order of enum memcg_val in the test. */
#define NR_VALS 11
__u64 vals[NR_VALS];
__u64 cgroup_id;
/* Invalid indices, each of which must read (unsigned long)-1. */
#define NR_BAD 8
__u64 bad[NR_BAD];

#define NODE_STAT(x)	bpf_core_enum_value(enum node_stat_item, x)
#define MEMCG_STAT(x)	bpf_core_enum_value(enum memcg_stat_item, x)
#define VM_EVENT(x)	bpf_core_enum_value(enum vm_event_item, x)
#define MEMORY_EVENT(x)	bpf_core_enum_value(enum memcg_memory_event, x)

static void read_vals(struct mem_cgroup *memcg)
{
	vals[0] = bpf_mem_cgroup_page_state(memcg, NODE_STAT(NR_ANON_MAPPED));
	vals[1] = bpf_mem_cgroup_page_state(memcg, NODE_STAT(NR_FILE_PAGES));
	vals[2] = bpf_mem_cgroup_page_state(memcg, NODE_STAT(NR_SHMEM));
	vals[3] = bpf_mem_cgroup_page_state(memcg, NODE_STAT(NR_FILE_MAPPED));
	vals[4] = bpf_mem_cgroup_page_state(memcg, MEMCG_STAT(MEMCG_KMEM));
	vals[5] = bpf_mem_cgroup_vm_events(memcg, VM_EVENT(PGFAULT));
	vals[6] = bpf_mem_cgroup_vm_events(memcg, VM_EVENT(PGMAJFAULT));
	vals[7] = bpf_mem_cgroup_memory_events(memcg, MEMORY_EVENT(MEMCG_MAX));
	vals[8] = bpf_mem_cgroup_memory_events(memcg, MEMORY_EVENT(MEMCG_OOM));
	vals[9] = bpf_mem_cgroup_memory_events(memcg, MEMORY_EVENT(MEMCG_OOM_KILL));
	vals[10] = bpf_mem_cgroup_usage(memcg);
}

SEC("iter.s/cgroup")
int read_cgroup(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;
	struct mem_cgroup *memcg;

	if (!cgrp)
		return 0;
	cgroup_id = cgrp->kn->id;
	memcg = bpf_get_mem_cgroup(&cgrp->self);
	if (!memcg)
		return 0;
	bpf_mem_cgroup_flush_stats(memcg);
	read_vals(memcg);
	bpf_put_mem_cgroup(memcg);
	return 0;
}

/* The root memcg is KF_ACQUIRE: get, read with every reader, put. */
SEC("syscall")
int read_root(void *ctx)
{
	struct mem_cgroup *memcg = bpf_get_root_mem_cgroup();

	if (!memcg)
		return 1;
	bpf_mem_cgroup_flush_stats(memcg);
	read_vals(memcg);
	bpf_put_mem_cgroup(memcg);
	return 0;
}

SEC("syscall")
int read_bad(void *ctx)
{
	struct mem_cgroup *memcg = bpf_get_root_mem_cgroup();

	if (!memcg)
		return 1;
	bad[0] = bpf_mem_cgroup_page_state(memcg, -1);
	bad[1] = bpf_mem_cgroup_page_state(memcg, MEMCG_STAT(MEMCG_NR_STAT));
	/* a node stat item memcgs keep no counter for */
	bad[2] = bpf_mem_cgroup_page_state(memcg, NODE_STAT(NR_ISOLATED_ANON));
	bad[3] = bpf_mem_cgroup_vm_events(memcg, -1);
	bad[4] = bpf_mem_cgroup_vm_events(memcg, VM_EVENT(NR_VM_EVENT_ITEMS));
	/* a vm event memcgs do not count */
	bad[5] = bpf_mem_cgroup_vm_events(memcg, VM_EVENT(PGALLOC_NORMAL));
	bad[6] = bpf_mem_cgroup_memory_events(memcg, -1);
	bad[7] = bpf_mem_cgroup_memory_events(memcg, MEMORY_EVENT(MEMCG_NR_MEMORY_EVENTS));
	bpf_put_mem_cgroup(memcg);
	return 0;
}
