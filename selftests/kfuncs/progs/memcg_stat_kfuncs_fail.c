// SPDX-License-Identifier: GPL-2.0
/*
 * Misuse of the memcg kfuncs that the verifier must refuse, each program
 * with the message it must refuse it with (RUN_TESTS() in
 * prog_tests/memcg_stat_kfuncs.c loads them one at a time): a memcg that
 * is not put, used without a NULL check or after the put, one the verifier
 * cannot trust, and a flush from a program that may not sleep.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "bpf_misc.h"

char _license[] SEC("license") = "GPL";

__u64 sink;

/* The root memcg is acquired (KF_ACQUIRE) and must be put. */
SEC("syscall")
__failure __msg("Unreleased reference")
int root_not_put(void *ctx)
{
	struct mem_cgroup *memcg = bpf_get_root_mem_cgroup();

	if (memcg)
		sink = bpf_mem_cgroup_usage(memcg);
	return 0;
}

SEC("iter.s/cgroup")
__failure __msg("Possibly NULL pointer passed to trusted arg0")
int memcg_not_null_checked(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;
	struct mem_cgroup *memcg;

	if (!cgrp)
		return 0;
	memcg = bpf_get_mem_cgroup(&cgrp->self);
	sink = bpf_mem_cgroup_usage(memcg);
	if (memcg)
		bpf_put_mem_cgroup(memcg);
	return 0;
}

/* After the put the register holds a scalar, no longer a memcg. */
SEC("iter.s/cgroup")
__failure __msg("arg#0 pointer type STRUCT mem_cgroup must point to scalar")
int use_after_put(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;
	struct mem_cgroup *memcg;

	if (!cgrp)
		return 0;
	memcg = bpf_get_mem_cgroup(&cgrp->self);
	if (!memcg)
		return 0;
	bpf_put_mem_cgroup(memcg);
	sink = bpf_mem_cgroup_usage(memcg);
	return 0;
}

/* A memcg pointer the verifier cannot vouch for. */
SEC("iter.s/cgroup")
__failure __msg("must be referenced or trusted")
int untrusted_memcg(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;
	struct mem_cgroup *memcg;

	if (!cgrp)
		return 0;
	memcg = bpf_rdonly_cast(cgrp, bpf_core_type_id_kernel(struct mem_cgroup));
	sink = bpf_mem_cgroup_usage(memcg);
	return 0;
}

SEC("syscall")
__failure __msg("Possibly NULL pointer passed to trusted arg0")
int root_not_null_checked(void *ctx)
{
	struct mem_cgroup *memcg = bpf_get_root_mem_cgroup();

	sink = bpf_mem_cgroup_usage(memcg);
	if (memcg)
		bpf_put_mem_cgroup(memcg);
	return 0;
}

SEC("iter.s/cgroup")
__failure __msg("Unreleased reference")
int memcg_not_put(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;
	struct mem_cgroup *memcg;

	if (!cgrp)
		return 0;
	memcg = bpf_get_mem_cgroup(&cgrp->self);
	if (memcg)
		sink = bpf_mem_cgroup_usage(memcg);
	return 0;
}

/* bpf_mem_cgroup_flush_stats() may sleep: not from iter/cgroup. */
SEC("iter/cgroup")
__failure __msg("program must be sleepable to call sleepable kfunc bpf_mem_cgroup_flush_stats")
int flush_not_sleepable(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;
	struct mem_cgroup *memcg;

	if (!cgrp)
		return 0;
	memcg = bpf_get_mem_cgroup(&cgrp->self);
	if (!memcg)
		return 0;
	bpf_mem_cgroup_flush_stats(memcg);
	bpf_put_mem_cgroup(memcg);
	return 0;
}
