// SPDX-License-Identifier: GPL-2.0
/*
 * One memcg kfunc call on the root memcg per run, with the kind, index,
 * node or items the test draws from a seeded generator (prog_tests/
 * memcg_bad_input.c, random_indices): the value into .bss.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "memcg_kfuncs.h"
#include "memcg_items.h"

char _license[] SEC("license") = "GPL";

#define KF_ITEMS	8

/* set by the test before each run */
__u32 kind;		/* enum mcs_item_kind; MCS_USAGE + 1: bpf_memcgstat_read() */
int idx, nid;
__u32 kf_items[KF_ITEMS];
/* written by the run */
__u64 value;
__u64 kf_vals[KF_ITEMS];
int kf_ret;
bool absent;		/* the kernel lacks this kfunc */

SEC("syscall")
int random_read(void *ctx)
{
	struct mem_cgroup *memcg = bpf_get_root_mem_cgroup();

	if (!memcg)
		return 1;
	absent = false;
	switch (kind) {
	case MCS_PAGE_STATE:
		value = bpf_mem_cgroup_page_state(memcg, idx);
		break;
	case MCS_VM_EVENTS:
		value = bpf_mem_cgroup_vm_events(memcg, idx);
		break;
	case MCS_MEMORY_EVENTS:
		value = bpf_mem_cgroup_memory_events(memcg, idx);
		break;
	case MCS_PAGE_STATE_LOCAL:
		if (mcs_kfunc_exists(bpf_memcgstat_page_state_local))
			value = bpf_memcgstat_page_state_local(memcg, idx);
		else
			absent = true;
		break;
	case MCS_VM_EVENTS_LOCAL:
		if (mcs_kfunc_exists(bpf_memcgstat_vm_events_local))
			value = bpf_memcgstat_vm_events_local(memcg, idx);
		else
			absent = true;
		break;
	case MCS_NODE_PAGE_STATE:
		if (mcs_kfunc_exists(bpf_memcgstat_node_page_state))
			value = bpf_memcgstat_node_page_state(memcg, nid, idx);
		else
			absent = true;
		break;
	default:
		if (mcs_kfunc_exists(bpf_memcgstat_read))
			kf_ret = bpf_memcgstat_read(&memcg->css, kf_items, sizeof(kf_items),
						    kf_vals, sizeof(kf_vals));
		else
			absent = true;
		break;
	}
	bpf_put_mem_cgroup(memcg);
	return 0;
}
