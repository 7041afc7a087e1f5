// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "stats.h"

/* a size, a page state item counting events, a vm event, a memory.events entry */
#define PS(n, v1, e, node)	{ n, v1, MCS_SRC_PAGE_STATE, { e }, node, MCS_BYTES }
#define PC(n, v1, e)		{ n, v1, MCS_SRC_PAGE_STATE, { e }, true, MCS_EVENTS }
#define EV(n, v1, e)		{ n, v1, MCS_SRC_VM_EVENT, { e }, false, MCS_EVENTS }
#define ME(n, e)		{ n, NULL, MCS_SRC_MEMORY_EVENT, { e }, false, MCS_EVENTS }

/*
 * In the order memory.stat prints them (Linux 6.12), then the v1-only
 * counters, memory.events and usage. Whether a kernel has a counter is
 * decided at run time from its BTF, not here.
 */
const struct mcs_stat_def mcs_stat_defs[] = {
	PS("anon", "rss", "NR_ANON_MAPPED", true),
	PS("file", "cache", "NR_FILE_PAGES", true),
	PS("kernel", NULL, "MEMCG_KMEM", false),
	PS("kernel_stack", NULL, "NR_KERNEL_STACK_KB", true),
	PS("pagetables", NULL, "NR_PAGETABLE", true),
	PS("sec_pagetables", NULL, "NR_SECONDARY_PAGETABLE", true),
	PS("percpu", NULL, "MEMCG_PERCPU_B", false),
	PS("sock", NULL, "MEMCG_SOCK", false),
	PS("vmalloc", NULL, "MEMCG_VMALLOC", false),
	PS("shmem", "shmem", "NR_SHMEM", true),
	PS("zswap", NULL, "MEMCG_ZSWAP_B", false),
	PS("zswapped", NULL, "MEMCG_ZSWAPPED", false),
	PS("file_mapped", "mapped_file", "NR_FILE_MAPPED", true),
	PS("file_dirty", "dirty", "NR_FILE_DIRTY", true),
	PS("file_writeback", "writeback", "NR_WRITEBACK", true),
	PS("swapcached", "swapcached", "NR_SWAPCACHE", true),
	PS("anon_thp", "rss_huge", "NR_ANON_THPS", true),
	PS("file_thp", NULL, "NR_FILE_THPS", true),
	PS("shmem_thp", NULL, "NR_SHMEM_THPS", true),
	PS("inactive_anon", "inactive_anon", "NR_INACTIVE_ANON", true),
	PS("active_anon", "active_anon", "NR_ACTIVE_ANON", true),
	PS("inactive_file", "inactive_file", "NR_INACTIVE_FILE", true),
	PS("active_file", "active_file", "NR_ACTIVE_FILE", true),
	PS("unevictable", "unevictable", "NR_UNEVICTABLE", true),
	PS("slab_reclaimable", NULL, "NR_SLAB_RECLAIMABLE_B", true),
	PS("slab_unreclaimable", NULL, "NR_SLAB_UNRECLAIMABLE_B", true),
	/* derived; memory.numa_stat has only its parts */
	{ "slab", NULL, MCS_SRC_PAGE_STATE,
	  { "NR_SLAB_RECLAIMABLE_B", "NR_SLAB_UNRECLAIMABLE_B" }, false, MCS_BYTES },
	PC("workingset_refault_anon", "workingset_refault_anon",
	   "WORKINGSET_REFAULT_ANON"),
	PC("workingset_refault_file", "workingset_refault_file",
	   "WORKINGSET_REFAULT_FILE"),
	PC("workingset_activate_anon", NULL, "WORKINGSET_ACTIVATE_ANON"),
	PC("workingset_activate_file", NULL, "WORKINGSET_ACTIVATE_FILE"),
	PC("workingset_restore_anon", NULL, "WORKINGSET_RESTORE_ANON"),
	PC("workingset_restore_file", NULL, "WORKINGSET_RESTORE_FILE"),
	PC("workingset_nodereclaim", NULL, "WORKINGSET_NODERECLAIM"),
	PC("pgdemote_kswapd", NULL, "PGDEMOTE_KSWAPD"),
	PC("pgdemote_direct", NULL, "PGDEMOTE_DIRECT"),
	PC("pgdemote_khugepaged", NULL, "PGDEMOTE_KHUGEPAGED"),
	PC("pgpromote_success", NULL, "PGPROMOTE_SUCCESS"),
	{ "pgscan", NULL, MCS_SRC_VM_EVENT,
	  { "PGSCAN_KSWAPD", "PGSCAN_DIRECT", "PGSCAN_KHUGEPAGED" }, false, MCS_EVENTS },
	{ "pgsteal", NULL, MCS_SRC_VM_EVENT,
	  { "PGSTEAL_KSWAPD", "PGSTEAL_DIRECT", "PGSTEAL_KHUGEPAGED" }, false, MCS_EVENTS },
	EV("pgscan_kswapd", NULL, "PGSCAN_KSWAPD"),
	EV("pgscan_direct", NULL, "PGSCAN_DIRECT"),
	EV("pgscan_khugepaged", NULL, "PGSCAN_KHUGEPAGED"),
	EV("pgsteal_kswapd", NULL, "PGSTEAL_KSWAPD"),
	EV("pgsteal_direct", NULL, "PGSTEAL_DIRECT"),
	EV("pgsteal_khugepaged", NULL, "PGSTEAL_KHUGEPAGED"),
	EV("pgfault", "pgfault", "PGFAULT"),
	EV("pgmajfault", "pgmajfault", "PGMAJFAULT"),
	EV("pgrefill", NULL, "PGREFILL"),
	EV("pgactivate", NULL, "PGACTIVATE"),
	EV("pgdeactivate", NULL, "PGDEACTIVATE"),
	EV("pglazyfree", NULL, "PGLAZYFREE"),
	EV("pglazyfreed", NULL, "PGLAZYFREED"),
	EV("swpin_zero", NULL, "SWPIN_ZERO"),
	EV("swpout_zero", NULL, "SWPOUT_ZERO"),
	EV("zswpin", NULL, "ZSWPIN"),
	EV("zswpout", NULL, "ZSWPOUT"),
	EV("zswpwb", NULL, "ZSWPWB"),
	EV("thp_fault_alloc", NULL, "THP_FAULT_ALLOC"),
	EV("thp_collapse_alloc", NULL, "THP_COLLAPSE_ALLOC"),
	EV("thp_swpout", NULL, "THP_SWPOUT"),
	EV("thp_swpout_fallback", NULL, "THP_SWPOUT_FALLBACK"),
	EV("numa_pages_migrated", NULL, "NUMA_PAGE_MIGRATE"),
	EV("numa_pte_updates", NULL, "NUMA_PTE_UPDATES"),
	EV("numa_hint_faults", NULL, "NUMA_HINT_FAULTS"),
	/* cgroup v1 memory.stat only */
	PS("swap", "swap", "MEMCG_SWAP", false),
	EV("pgpgin", "pgpgin", "PGPGIN"),
	EV("pgpgout", "pgpgout", "PGPGOUT"),
	/* memory.events */
	ME("low", "MEMCG_LOW"),
	ME("high", "MEMCG_HIGH"),
	ME("max", "MEMCG_MAX"),
	ME("oom", "MEMCG_OOM"),
	ME("oom_kill", "MEMCG_OOM_KILL"),
	ME("oom_group_kill", "MEMCG_OOM_GROUP_KILL"),
	/* memory.current (v1: memory.usage_in_bytes) */
	{ "usage", NULL, MCS_SRC_USAGE, { NULL }, false, MCS_BYTES },
};

const size_t mcs_nr_stat_defs = sizeof(mcs_stat_defs) / sizeof(mcs_stat_defs[0]);

const struct mcs_stat_def *mcs_stat_def_find(const char *name)
{
	size_t i;

	for (i = 0; i < mcs_nr_stat_defs; i++)
		if (!strcmp(mcs_stat_defs[i].name, name))
			return &mcs_stat_defs[i];
	return NULL;
}

const struct mcs_stat_def *mcs_stat_def_find_v1(const char *v1_name)
{
	size_t i;

	for (i = 0; i < mcs_nr_stat_defs; i++)
		if (mcs_stat_defs[i].v1_name &&
		    !strcmp(mcs_stat_defs[i].v1_name, v1_name))
			return &mcs_stat_defs[i];
	return NULL;
}

int mcs_btf_enum_value(const struct btf *btf, const char *name, int *val)
{
	__u32 id, n = btf__type_cnt(btf);

	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_enum *e;
		__u16 i, vlen;

		if (!btf_is_enum(t))
			continue;
		e = btf_enum(t);
		vlen = btf_vlen(t);
		for (i = 0; i < vlen; i++, e++) {
			if (!strcmp(btf__name_by_offset(btf, e->name_off), name)) {
				*val = e->val;
				return 0;
			}
		}
	}
	return -ENOENT;
}

static int cmp_name(const void *a, const void *b)
{
	const struct mcs_btf_name *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

/* Mark every entry named @name of kind @func found, with @val. */
static void found(struct mcs_btf_name **sorted, size_t n, const char *name,
		  bool func, int val)
{
	struct mcs_btf_name key = { .name = name }, *k = &key, **p;
	size_t i;

	p = bsearch(&k, sorted, n, sizeof(*sorted), cmp_name);
	if (!p)
		return;
	while (p > sorted && !strcmp(p[-1]->name, name))
		p--;
	for (i = p - sorted; i < n && !strcmp(sorted[i]->name, name); i++) {
		if (sorted[i]->func != func || sorted[i]->found)
			continue;
		sorted[i]->found = true;
		sorted[i]->val = val;
	}
}

/*
 * The enums the stat table's enumerators belong to: only theirs are looked
 * at, and only functions named bpf_*: a name compared against every one of
 * vmlinux BTF's 100,000 types and enumerators cost 25 M instructions per
 * memcgstat_open() (bench/insn profile).
 */
static bool wanted_enum(const char *name)
{
	static const char *const enums[] = {
		"node_stat_item", "memcg_stat_item", "vm_event_item", "memcg_memory_event",
	};
	size_t i;

	for (i = 0; i < sizeof(enums) / sizeof(enums[0]); i++)
		if (!strcmp(name, enums[i]))
			return true;
	return false;
}

int mcs_btf_lookup(const struct btf *btf, struct mcs_btf_name *names, size_t n)
{
	__u32 id, nr_types = btf__type_cnt(btf);
	struct mcs_btf_name **sorted;
	size_t i;

	sorted = calloc(n ? n : 1, sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		names[i].found = false;
		sorted[i] = &names[i];
	}
	qsort(sorted, n, sizeof(*sorted), cmp_name);
	for (id = 1; id < nr_types; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name = btf__name_by_offset(btf, t->name_off);
		const struct btf_enum *e;
		__u16 j, vlen;

		if (btf_is_func(t)) {
			if (!strncmp(name, "bpf_", 4))
				found(sorted, n, name, true, 0);
			continue;
		}
		if (!btf_is_enum(t) || !wanted_enum(name))
			continue;
		e = btf_enum(t);
		vlen = btf_vlen(t);
		for (j = 0; j < vlen; j++, e++)
			found(sorted, n, btf__name_by_offset(btf, e->name_off), false, e->val);
	}
	free(sorted);
	return 0;
}
