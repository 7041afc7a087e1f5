/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The memcg statistics kfuncs (kernel/patches, and Linux 7.0 for all but the
 * last three), for BPF programs. bpftool before 7.4 does not put kfunc
 * prototypes into vmlinux.h, so they are declared here. Include after
 * vmlinux.h.
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

/* memcgstat additions: no upstream kernel has these; declare them weak. */
extern unsigned long
bpf_mem_cgroup_page_state_local(struct mem_cgroup *memcg, int idx) __ksym __weak;
extern unsigned long
bpf_mem_cgroup_vm_events_local(struct mem_cgroup *memcg,
			       enum vm_event_item event) __ksym __weak;
extern unsigned long
bpf_mem_cgroup_node_page_state(struct mem_cgroup *memcg, int nid,
			       int idx) __ksym __weak;

#endif /* __MEMCG_KFUNCS_H */
