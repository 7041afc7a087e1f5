// SPDX-License-Identifier: GPL-2.0
/*
 * Read any memcg counters through the kfuncs, for the selftests; read_one
 * reads them a second time with bpf_memcgstat_read() where the kernel has it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "memcg_kfuncs.h"
#include "memcg_items.h"
#include "memcg_read.bpf.h"
#include "memcg_with.bpf.h"

char _license[] SEC("license") = "GPL";

/* Set by the test before each run. */
struct mcs_item items[MCS_MAX_ITEMS];
__u32 nr_items;

/* read_one's items again, encoded for bpf_memcgstat_read(); 0: none */
__u32 kf_items[MCS_MAX_ITEMS];
__u32 nr_kf_items;

/* Written by the programs. */
__u64 values[MCS_MAX_ITEMS];
__u64 kf_values[MCS_MAX_ITEMS];	/* bpf_memcgstat_read()'s */
int kf_ret;			/* its return value */
bool kf_exists;			/* mcs_kfunc_exists(bpf_memcgstat_read) */
__u64 cgroup_id;	/* cgroup read_one read last */
__u32 visited;		/* cgroups the walk program saw */
__u32 no_memcg;		/* cgroups without a memcg */
__u64 walk_sum;		/* keeps the walk's reads alive */

static __u64 read_item(struct mem_cgroup *memcg, const struct mcs_item *it)
{
	__u64 v = mcs_read_item(memcg, it->kind, it->idx, it->nid);

	/* An unknown kind must not pass for a kfunc's -1: the test flags it. */
	return v == MCS_INVALID && (!it->kind || it->kind > MCS_USAGE) ? MCS_INVALID - 1 : v;
}

static void read_items(struct mem_cgroup *memcg)
{
	__u32 i;

	for (i = 0; i < MCS_MAX_ITEMS; i++) {
		if (i >= nr_items)
			break;
		values[i] = read_item(memcg, &items[i]);
	}
}

/* The same items in one call, from the same flushed state. */
static void read_items_kf(struct cgroup *cgrp)
{
	__u32 n = nr_kf_items;

	kf_exists = mcs_kfunc_exists(bpf_memcgstat_read);
	if (!kf_exists || !n)
		return;
	if (n > MCS_MAX_ITEMS)
		n = MCS_MAX_ITEMS;
	kf_ret = bpf_memcgstat_read(&cgrp->self, kf_items, n * sizeof(__u32),
				    kf_values, n * sizeof(__u64));
}

/* One cgroup (SELF_ONLY): flush, then read every item. */
SEC("iter.s/cgroup")
int read_one(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;

	if (!cgrp)
		return 0;
	cgroup_id = cgrp->kn->id;
	if (mcs_with_memcg(cgrp, read_items))
		no_memcg++;
	else
		read_items_kf(cgrp);
	return 0;
}

/* The root memcg: KF_ACQUIRE, as in Linux 7.0, so get, read, put. */
SEC("syscall")
int read_root(void *ctx)
{
	return mcs_with_root(read_items, true);
}

static void walk_items(struct mem_cgroup *memcg)
{
	__u32 i;

	for (i = 0; i < MCS_MAX_ITEMS; i++) {
		if (i >= nr_items)
			break;
		walk_sum += read_item(memcg, &items[i]);
	}
}

/* Any walk order: read every item of every cgroup, flushing each. */
SEC("iter.s/cgroup")
int walk(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;

	if (!cgrp)
		return 0;
	visited++;
	if (mcs_with_memcg(cgrp, walk_items))
		no_memcg++;
	return 0;
}
