/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The memcg statistics kfuncs, for BPF programs: the Linux 7.0 set (also in
 * kernel/patches for 6.12), then memcgstat's own additions (kernel/patches
 * only). bpftool before 7.4 does not put kfunc prototypes into vmlinux.h, so
 * they are declared here. Include after vmlinux.h or kernel_types.h.
 */
#ifndef __MEMCG_KFUNCS_H
#define __MEMCG_KFUNCS_H

extern struct mem_cgroup *bpf_get_root_mem_cgroup(void) __ksym;
extern struct mem_cgroup *
bpf_get_mem_cgroup(struct cgroup_subsys_state *css) __ksym;
extern void bpf_put_mem_cgroup(struct mem_cgroup *memcg) __ksym;
extern void bpf_mem_cgroup_flush_stats(struct mem_cgroup *memcg) __ksym;
extern unsigned long
bpf_mem_cgroup_page_state(struct mem_cgroup *memcg, int idx) __ksym;
extern unsigned long
bpf_mem_cgroup_vm_events(struct mem_cgroup *memcg,
			 enum vm_event_item event) __ksym;
extern unsigned long
bpf_mem_cgroup_memory_events(struct mem_cgroup *memcg,
			     enum memcg_memory_event event) __ksym;
extern unsigned long bpf_mem_cgroup_usage(struct mem_cgroup *memcg) __ksym;

/* Generic kfuncs the programs use, since 6.2 (and in 7.0). */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;
/* Weak, so that programs which do not call them load without them. */
extern struct cgroup *bpf_cgroup_from_id(__u64 cgid) __ksym __weak;
extern struct cgroup *bpf_cgroup_ancestor(struct cgroup *cgrp, int level) __ksym __weak;
extern void bpf_cgroup_release(struct cgroup *cgrp) __ksym __weak;

/*
 * Whether the kernel has the weak kfunc @fn: its address, 0 where the
 * kernel lacks it (libbpf 1.2 calls this bpf_ksym_exists(); Debian 12's
 * libbpf 1.1 has none). A kfunc not declared weak fails to build. Not for
 * objects loaded by libbpf 1.1's in-kernel loader (light skeletons, the
 * library's bpf backend), which never resolves the address: it reads 0.
 */
#define mcs_kfunc_exists(fn) ({							\
	_Static_assert(!__builtin_constant_p((fn) != NULL),			\
		       "mcs_kfunc_exists(" #fn "): declare it __weak");	\
	(fn) != NULL;								\
})

/*
 * memcgstat's additions, in a namespace of their own: no upstream kernel has
 * them. Weak, so that an object that does not call them loads without them;
 * a build with MCS_UPSTREAM_ONLY defined does not reference them at all.
 */
#ifndef MCS_UPSTREAM_ONLY
extern unsigned long
bpf_memcgstat_page_state_local(struct mem_cgroup *memcg, int idx) __ksym __weak;
extern unsigned long
bpf_memcgstat_vm_events_local(struct mem_cgroup *memcg,
			      enum vm_event_item event) __ksym __weak;
extern unsigned long
bpf_memcgstat_node_page_state(struct mem_cgroup *memcg, int nid,
			      int idx) __ksym __weak;
/* Many counters in one call: items encoded with MCS_KF_ITEM() (memcg_items.h). */
extern int
bpf_memcgstat_read(struct cgroup_subsys_state *css, const __u32 *items,
		   __u32 items__sz, __u64 *vals, __u32 vals__sz) __ksym __weak;
#endif

#endif /* __MEMCG_KFUNCS_H */
