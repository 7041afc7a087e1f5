/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A read on a memcg the selftests' programs get and put: the root memcg
 * (bpf_get_root_mem_cgroup() is KF_ACQUIRE, as in Linux 7.0) or a
 * cgroup's. Include after vmlinux.h and memcg_kfuncs.h.
 *
 * Always inlined with @read a constant: the call through it becomes a
 * direct one (BPF has no indirect calls), and the verifier sees the
 * reference got and put in the program that runs it.
 */
#ifndef __MEMCG_WITH_BPF_H
#define __MEMCG_WITH_BPF_H

/* @read on the root memcg, flushed first if @flush: 0, or 1 if there is none. */
static __always_inline int mcs_with_root(void (*read)(struct mem_cgroup *memcg), bool flush)
{
	struct mem_cgroup *memcg = bpf_get_root_mem_cgroup();

	if (!memcg)
		return 1;
	if (flush)
		bpf_mem_cgroup_flush_stats(memcg);
	read(memcg);
	bpf_put_mem_cgroup(memcg);
	return 0;
}

/* @read on @cgrp's memcg, flushed first: 0, or -1 if @cgrp has none. */
static __always_inline int mcs_with_memcg(struct cgroup *cgrp,
					  void (*read)(struct mem_cgroup *memcg))
{
	struct mem_cgroup *memcg = bpf_get_mem_cgroup(&cgrp->self);

	if (!memcg)
		return -1;
	bpf_mem_cgroup_flush_stats(memcg);
	read(memcg);
	bpf_put_mem_cgroup(memcg);
	return 0;
}

#endif /* __MEMCG_WITH_BPF_H */
