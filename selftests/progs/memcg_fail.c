// SPDX-License-Identifier: GPL-2.0
/*
 * Programs the verifier must refuse. None is loaded by default ("?" in the
 * section name); the test loads them one at a time and checks the message.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "memcg_kfuncs.h"

char _license[] SEC("license") = "GPL";

extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;

__u64 out;

SEC("?iter.s/cgroup")
int null_memcg_passed(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;
	struct mem_cgroup *memcg;

	if (!cgrp)
		return 0;
	memcg = bpf_get_mem_cgroup(&cgrp->self);
	out = bpf_mem_cgroup_usage(memcg);	/* no NULL check */
	if (memcg)
		bpf_put_mem_cgroup(memcg);
	return 0;
}

SEC("?iter.s/cgroup")
int memcg_not_released(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;
	struct mem_cgroup *memcg;

	if (!cgrp)
		return 0;
	memcg = bpf_get_mem_cgroup(&cgrp->self);
	if (memcg)
		out = bpf_mem_cgroup_usage(memcg);	/* no put */
	return 0;
}

SEC("?iter.s/cgroup")
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
	out = bpf_mem_cgroup_usage(memcg);
	return 0;
}

SEC("?iter/cgroup")
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

SEC("?iter.s/cgroup")
int untrusted_memcg(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;
	struct mem_cgroup *memcg;

	if (!cgrp)
		return 0;
	/* A pointer the verifier cannot vouch for. */
	memcg = bpf_rdonly_cast(cgrp, bpf_core_type_id_kernel(struct mem_cgroup));
	out = bpf_mem_cgroup_usage(memcg);
	return 0;
}

SEC("?syscall")
int root_memcg_not_released(void *ctx)
{
	struct mem_cgroup *memcg = bpf_get_root_mem_cgroup();

	if (memcg)
		out = bpf_mem_cgroup_usage(memcg);	/* no put */
	return 0;
}
