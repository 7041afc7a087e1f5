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
#include "memcg_with.bpf.h"

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

/* @dst = @fn(...), where the kernel has the kfunc @fn; else absent */
#define CALL_IF_EXISTS(dst, fn, ...) do {	\
	if (mcs_kfunc_exists(fn))		\
		dst = fn(__VA_ARGS__);		\
	else					\
		absent = true;			\
} while (0)

static void read_drawn(struct mem_cgroup *memcg)
{
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
		CALL_IF_EXISTS(value, bpf_memcgstat_page_state_local, memcg, idx);
		break;
	case MCS_VM_EVENTS_LOCAL:
		CALL_IF_EXISTS(value, bpf_memcgstat_vm_events_local, memcg, idx);
		break;
	case MCS_NODE_PAGE_STATE:
		CALL_IF_EXISTS(value, bpf_memcgstat_node_page_state, memcg, nid, idx);
		break;
	default:
		CALL_IF_EXISTS(kf_ret, bpf_memcgstat_read, &memcg->css, kf_items, sizeof(kf_items),
			       kf_vals, sizeof(kf_vals));
		break;
	}
}

SEC("syscall")
int random_read(void *ctx)
{
	return mcs_with_root(read_drawn, false);
}
