// SPDX-License-Identifier: GPL-2.0
/*
 * Programs for prog_tests/memcgstat_read.c: bpf_memcgstat_read() with the
 * sizes the test chooses, from sleepable and non-sleepable cgroup iterators,
 * on a cgroup's own css, its memcg's css and the root memcg's.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "memcg_kfuncs.h"
#include "memcg_items.h"

char _license[] SEC("license") = "GPL";

#define NR_MAX	64

/* Set by the test before each run. */
__u32 items[NR_MAX];
__u32 items_sz;		/* bytes of items[] passed */
__u32 vals_sz;		/* bytes of vals[] passed */

/* Written by the programs. */
__u64 vals[NR_MAX];
__u64 vals2[NR_MAX];	/* read_both: through the memcg's own css */
int ret, ret2;
__u64 usage;		/* bpf_mem_cgroup_usage() beside it */
bool exists;		/* mcs_kfunc_exists(bpf_memcgstat_read) */

/* The kfunc is not called where the kernel lacks it (Linux 7.0's set). */
SEC("syscall")
int probe(void *ctx)
{
	exists = mcs_kfunc_exists(bpf_memcgstat_read);
	return 0;
}

static int read_sized(struct cgroup_subsys_state *css)
{
	__u32 isz = items_sz, vsz = vals_sz;

	if (!mcs_kfunc_exists(bpf_memcgstat_read))
		return -95;	/* EOPNOTSUPP: the test checks exists first */
	if (isz > sizeof(items) || vsz > sizeof(vals))
		return -7;	/* E2BIG: the test never asks for more */
	return bpf_memcgstat_read(css, items, isz, vals, vsz);
}

/* The kfunc does not sleep: a non-sleepable iterator may call it. */
SEC("iter/cgroup")
int read_nonsleepable(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;

	if (!cgrp)
		return 0;
	ret = read_sized(&cgrp->self);
	return 0;
}

/*
 * Flush, then the same items through the cgroup's own css and through its
 * memcg's css, and the usage kfunc beside them, all from one flushed state.
 */
SEC("iter.s/cgroup")
int read_both(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;
	struct mem_cgroup *memcg;
	__u32 isz = items_sz, vsz = vals_sz;

	if (!cgrp || !mcs_kfunc_exists(bpf_memcgstat_read))
		return 0;
	if (isz > sizeof(items) || vsz > sizeof(vals))
		return 0;
	memcg = bpf_get_mem_cgroup(&cgrp->self);
	if (!memcg)
		return 0;
	bpf_mem_cgroup_flush_stats(memcg);
	ret = bpf_memcgstat_read(&cgrp->self, items, isz, vals, vsz);
	ret2 = bpf_memcgstat_read(&memcg->css, items, isz, vals2, vsz);
	usage = bpf_mem_cgroup_usage(memcg);
	bpf_put_mem_cgroup(memcg);
	return 0;
}

/* The root memcg, from a syscall program: its css, got and put. */
SEC("syscall")
int read_root(void *ctx)
{
	struct mem_cgroup *memcg;

	if (!mcs_kfunc_exists(bpf_memcgstat_read))
		return 1;
	memcg = bpf_get_root_mem_cgroup();
	if (!memcg)
		return 1;
	ret = read_sized(&memcg->css);
	usage = bpf_mem_cgroup_usage(memcg);
	bpf_put_mem_cgroup(memcg);
	return 0;
}
