// SPDX-License-Identifier: GPL-2.0
/*
 * One object for 6.12 and 7.0 (doc/kernel.md): enumerators that only
 * 7.0 has, read under bpf_core_enum_value_exists(), next to two that both
 * kernels have, through the same guard. The enums are flavours of the
 * kernel's (the ___v70 suffix), so the object compiles against any
 * vmlinux.h, and the values written here are not the kernel's: CO-RE
 * takes each one from the running kernel by name. read_unguarded names a
 * 7.0-only enumerator without the guard; the test loads it on its own.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "memcg_kfuncs.h"
#include "memcg_with.bpf.h"

char _license[] SEC("license") = "GPL";

enum node_stat_item___v70 {
	NR_FILE_MAPPED___v70,
	PGDEMOTE_PROACTIVE___v70,
	NR_HUGETLB___v70,
};

enum vm_event_item___v70 {
	PGFAULT___v70,
	PGSTEAL_PROACTIVE___v70,
	PGSCAN_PROACTIVE___v70,
};

/* In the order of the test's probes[]. */
#define NR_PROBES 6
bool exists[NR_PROBES];
__u64 idx[NR_PROBES];	/* the running kernel's value, where it exists */
__u64 val[NR_PROBES];	/* the kfunc's read of it; -1 where it does not */
__u64 unguarded;

#define NODE_PROBE(i, e) do {							\
	exists[i] = bpf_core_enum_value_exists(enum node_stat_item___v70, e);	\
	if (exists[i]) {							\
		idx[i] = bpf_core_enum_value(enum node_stat_item___v70, e);	\
		val[i] = bpf_mem_cgroup_page_state(memcg, idx[i]);		\
	} else {								\
		val[i] = (__u64)-1;						\
	}									\
} while (0)

#define EVENT_PROBE(i, e) do {							\
	exists[i] = bpf_core_enum_value_exists(enum vm_event_item___v70, e);	\
	if (exists[i]) {							\
		idx[i] = bpf_core_enum_value(enum vm_event_item___v70, e);	\
		val[i] = bpf_mem_cgroup_vm_events(memcg,			\
						  (enum vm_event_item)idx[i]);	\
	} else {								\
		val[i] = (__u64)-1;						\
	}									\
} while (0)

static void read_probes(struct mem_cgroup *memcg)
{
	NODE_PROBE(0, NR_FILE_MAPPED___v70);
	NODE_PROBE(1, PGDEMOTE_PROACTIVE___v70);
	NODE_PROBE(2, NR_HUGETLB___v70);
	EVENT_PROBE(3, PGFAULT___v70);
	EVENT_PROBE(4, PGSTEAL_PROACTIVE___v70);
	EVENT_PROBE(5, PGSCAN_PROACTIVE___v70);
}

SEC("syscall")
int read_guarded(void *ctx)
{
	return mcs_with_root(read_probes, true);
}

static void read_hugetlb(struct mem_cgroup *memcg)
{
	unguarded = bpf_mem_cgroup_page_state(memcg,
					      bpf_core_enum_value(enum node_stat_item___v70,
								  NR_HUGETLB___v70));
}

/* Not loaded with the object ("?"): the test loads it alone. */
SEC("?syscall")
int read_unguarded(void *ctx)
{
	return mcs_with_root(read_hugetlb, false);
}
