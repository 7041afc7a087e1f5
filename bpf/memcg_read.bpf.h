/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Read one struct mcs_item with the memcg kfuncs. Shared by libmemcgstat's
 * programs and the selftests. Include after vmlinux.h and memcg_kfuncs.h.
 * With MCS_UPSTREAM_ONLY, the kinds that need memcgstat's additions read
 * MCS_INVALID (the library never asks for them then).
 */
#ifndef __MEMCG_READ_BPF_H
#define __MEMCG_READ_BPF_H

#include "memcg_items.h"

static __always_inline __u64 mcs_read_item(struct mem_cgroup *memcg,
					   __u32 kind, int idx, int nid)
{
	switch (kind) {
	case MCS_PAGE_STATE:
		return bpf_mem_cgroup_page_state(memcg, idx);
	case MCS_VM_EVENTS:
		return bpf_mem_cgroup_vm_events(memcg, idx);
#ifndef MCS_UPSTREAM_ONLY
	case MCS_PAGE_STATE_LOCAL:
		return bpf_memcgstat_page_state_local(memcg, idx);
	case MCS_NODE_PAGE_STATE:
		return bpf_memcgstat_node_page_state(memcg, nid, idx);
	case MCS_VM_EVENTS_LOCAL:
		return bpf_memcgstat_vm_events_local(memcg, idx);
#endif
	case MCS_MEMORY_EVENTS:
		return bpf_mem_cgroup_memory_events(memcg, idx);
	case MCS_USAGE:
		return bpf_mem_cgroup_usage(memcg);
	}
	return MCS_INVALID;
}

#endif /* __MEMCG_READ_BPF_H */
