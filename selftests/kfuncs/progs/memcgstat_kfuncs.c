// SPDX-License-Identifier: GPL-2.0
/*
 * Programs for prog_tests/memcgstat_kfuncs.c: memcgstat's memcg kfuncs
 * (mm/bpf_memcgstat.c) read from a cgroup iterator, each counter by its own
 * kfunc and all of them again by bpf_memcgstat_read() in the same flushed
 * state; and bad input, from a syscall program on the root memcg. The
 * items of bpf_memcgstat_read() come from the test, which encodes them
 * from the kernel's BTF. The misuse the verifier must refuse is in
 * progs/memcgstat_kfuncs_fail.c.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

char _license[] SEC("license") = "GPL";

/* Kept in step with prog_tests/memcgstat_kfuncs.c. */
#define NR_STATS	3	/* NR_ANON_MAPPED, NR_SHMEM, NR_FILE_PAGES */
#define NR_EVENTS	2	/* PGFAULT, PGMAJFAULT */
#define NR_NODES	4	/* node ids read, present or not */
#define NR_ITEMS	64
#define NR_BAD		12
#define NR_MAX		4096	/* items bpf_memcgstat_read() takes at most */

#define NODE_STAT(x)	bpf_core_enum_value(enum node_stat_item, x)
#define MEMCG_STAT(x)	bpf_core_enum_value(enum memcg_stat_item, x)
#define VM_EVENT(x)	bpf_core_enum_value(enum vm_event_item, x)

/* Read by read_cgroup(), each by the kfunc of its own. */
__u64 cgroup_id;
__u64 total[NR_STATS], local[NR_STATS], node[NR_STATS][NR_NODES];
__u64 events[NR_EVENTS], events_local[NR_EVENTS];
__u64 usage;

/* bpf_memcgstat_read(): the items, set by the test, and what it read. */
__u32 items[NR_ITEMS];
__u32 nr_items;
__u64 vals[NR_ITEMS];
int ret;

/*
 * read_bad(): what the per-item kfuncs read for bad input, and the sizes;
 * err_vals[] and big_vals[4096] must keep what the test put there.
 */
__u64 bad[NR_BAD];
int ret_half_item, ret_half_val, ret_short, ret_big, ret_max;
__u64 err_vals[4];
__u32 big_items[NR_MAX + 1];
__u64 big_vals[NR_MAX + 1];

static void read_items(struct cgroup_subsys_state *css)
{
	__u32 n = nr_items;

	if (n > NR_ITEMS)
		n = NR_ITEMS;
	ret = bpf_memcgstat_read(css, items, n * sizeof(items[0]), vals, sizeof(vals));
}

SEC("iter.s/cgroup")
int read_cgroup(struct bpf_iter__cgroup *ctx)
{
	int stat[NR_STATS] = {
		NODE_STAT(NR_ANON_MAPPED), NODE_STAT(NR_SHMEM), NODE_STAT(NR_FILE_PAGES),
	};
	int event[NR_EVENTS] = { VM_EVENT(PGFAULT), VM_EVENT(PGMAJFAULT) };
	struct cgroup *cgrp = ctx->cgroup;
	struct mem_cgroup *memcg;
	int i, n;

	if (!cgrp)
		return 0;
	cgroup_id = cgrp->kn->id;
	memcg = bpf_get_mem_cgroup(&cgrp->self);
	if (!memcg)
		return 0;
	bpf_mem_cgroup_flush_stats(memcg);
	for (i = 0; i < NR_STATS; i++) {
		total[i] = bpf_mem_cgroup_page_state(memcg, stat[i]);
		local[i] = bpf_memcgstat_page_state_local(memcg, stat[i]);
		for (n = 0; n < NR_NODES; n++)
			node[i][n] = bpf_memcgstat_node_page_state(memcg, n, stat[i]);
	}
	for (i = 0; i < NR_EVENTS; i++) {
		events[i] = bpf_mem_cgroup_vm_events(memcg, event[i]);
		events_local[i] = bpf_memcgstat_vm_events_local(memcg, event[i]);
	}
	usage = bpf_mem_cgroup_usage(memcg);
	/* the same counters again, in one call and without a reference */
	read_items(&cgrp->self);
	bpf_put_mem_cgroup(memcg);
	return 0;
}

/* bpf_memcgstat_read() alone, for a cgroup that may have no memcg. */
SEC("iter.s/cgroup")
int read_only(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;

	if (cgrp)
		read_items(&cgrp->self);
	return 0;
}

/*
 * On the root memcg: indices and node ids each kfunc must refuse with
 * (unsigned long)-1, the test's items (bad ones among good), and sizes
 * bpf_memcgstat_read() must refuse before it writes anything.
 */
SEC("syscall")
int read_bad(void *ctx)
{
	struct mem_cgroup *memcg = bpf_get_root_mem_cgroup();
	struct cgroup_subsys_state *css;
	int anon = NODE_STAT(NR_ANON_MAPPED);

	if (!memcg)
		return 1;
	bad[0] = bpf_memcgstat_node_page_state(memcg, -1, anon);
	bad[1] = bpf_memcgstat_node_page_state(memcg, 1 << 12, anon);
	bad[2] = bpf_memcgstat_node_page_state(memcg, 0x7fffffff, anon);
	bad[3] = bpf_memcgstat_node_page_state(memcg, 0, -1);
	/* a memcg stat item, which has no per-node value */
	bad[4] = bpf_memcgstat_node_page_state(memcg, 0, MEMCG_STAT(MEMCG_KMEM));
	/* a node stat item memcgs keep no counter for */
	bad[5] = bpf_memcgstat_node_page_state(memcg, 0, NODE_STAT(NR_ISOLATED_ANON));
	bad[6] = bpf_memcgstat_page_state_local(memcg, -1);
	bad[7] = bpf_memcgstat_page_state_local(memcg, MEMCG_STAT(MEMCG_NR_STAT));
	bad[8] = bpf_memcgstat_page_state_local(memcg, NODE_STAT(NR_ISOLATED_ANON));
	bad[9] = bpf_memcgstat_vm_events_local(memcg, -1);
	bad[10] = bpf_memcgstat_vm_events_local(memcg, VM_EVENT(NR_VM_EVENT_ITEMS));
	/* a vm event memcgs do not count */
	bad[11] = bpf_memcgstat_vm_events_local(memcg, VM_EVENT(PGALLOC_NORMAL));

	css = &memcg->css;
	read_items(css);
	ret_half_item = bpf_memcgstat_read(css, items, 6, err_vals, sizeof(err_vals));
	ret_half_val = bpf_memcgstat_read(css, items, 8, err_vals, 12);
	ret_short = bpf_memcgstat_read(css, items, 8, err_vals, 8);
	ret_big = bpf_memcgstat_read(css, big_items, sizeof(big_items), big_vals,
				     sizeof(big_vals));
	ret_max = bpf_memcgstat_read(css, big_items, NR_MAX * sizeof(big_items[0]),
				     big_vals, NR_MAX * sizeof(big_vals[0]));
	bpf_put_mem_cgroup(memcg);
	return 0;
}
