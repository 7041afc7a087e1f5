// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include <bpf/btf.h>
#include "memcg_items.h"
#include "stats.h"

/*
 * A size of a node stat item (in memory.numa_stat too), of a memcg stat
 * item (MEMCG_*: the memcg's alone, no node has it); a node stat item
 * counting events; a vm event. PSA(): named alike in cgroup v1's
 * memory.stat.
 */
#define PS(n, v1, e)		{ .name = n, .v1_name = v1, .src = MCS_SRC_PAGE_STATE, \
				  .parts = { e }, .node = true, .unit = MCS_BYTES }
#define PSA(n, e)		PS(n, n, e)
#define MS(n, e)		{ .name = n, .src = MCS_SRC_PAGE_STATE, .parts = { e }, \
				  .unit = MCS_BYTES }
#define PC(n, v1, e)		{ .name = n, .v1_name = v1, .src = MCS_SRC_PAGE_STATE, \
				  .parts = { e }, .node = true, .unit = MCS_EVENTS }
#define EV(n, v1, e)		{ .name = n, .v1_name = v1, .src = MCS_SRC_VM_EVENT, \
				  .parts = { e }, .unit = MCS_EVENTS }
/*
 * The entries of memory.events, which memory.events.local repeats: X(key,
 * enumerator, v1 file) each, the v1 file NULL but for oom_kill, which v1
 * prints in memory.oom_control, counted in the cgroup alone.
 */
#define MEMCG_EVENTS(X)						\
	X(low, MEMCG_LOW, NULL)					\
	X(high, MEMCG_HIGH, NULL)				\
	X(max, MEMCG_MAX, NULL)					\
	X(oom, MEMCG_OOM, NULL)					\
	X(oom_kill, MEMCG_OOM_KILL, "memory.oom_control")	\
	X(oom_group_kill, MEMCG_OOM_GROUP_KILL, NULL)
/* its memory.events and its memory.events.local row (cgroup v2) */
#define ME(k, e, v1f)	{ .name = "events_" #k, .src = MCS_SRC_MEMORY_EVENT, .parts = { #e }, \
			  .unit = MCS_EVENTS, .file = "memory.events", .v1_file = v1f, .key = #k },
#define MEL(k, e, v1f)	{ .name = "events_local_" #k, .src = MCS_SRC_MEMORY_EVENT_LOCAL, \
			  .parts = { #e }, .unit = MCS_EVENTS, .file = "memory.events.local", \
			  .key = #k, .kind = MCS_MEMORY_EVENTS_LOCAL },
/*
 * a value of memory.pressure: @k is its line and field, "some_avg10"; on
 * cgroup v1, which has no memory.pressure, the root's is the system's
 */
#define PSI(n, k, u)	{ .name = n, .src = MCS_SRC_PSI, .unit = u, .file = "memory.pressure", \
			  .v1_file = MCS_PSI_V1_FILE, .key = k, .on_v2_root = true }
/*
 * A field @k of page counter @c, in the v2 and v1 files @f2, @f1 (NULL: no
 * such file there), a size @cv converts to bytes, or a count.
 */
#define PCF(n, f2, f1, k, c, cv, u) \
	{ .name = n, .src = MCS_SRC_PAGE_COUNTER, .unit = u, .file = f2, .v1_file = f1, \
	  .kind = k, .idx = c, .conv = cv }

/*
 * In the order memory.stat prints them (Linux 6.12), then the v1-only
 * counters, memory.events and usage. Whether a kernel has a counter is
 * decided at run time from its BTF, not here.
 */
const struct mcs_stat_def mcs_stat_defs[] = {
	PS("anon", "rss", "NR_ANON_MAPPED"),
	PS("file", "cache", "NR_FILE_PAGES"),
	MS("kernel", "MEMCG_KMEM"),
	/*
	 * v1's memory.stat has no kernel memory: its kmem page counter
	 * (memory.kmem.usage_in_bytes) counts the same charges
	 */
	{ .name = "kernel", .src = MCS_SRC_PAGE_COUNTER, .unit = MCS_BYTES,
	  .v1_file = "memory.kmem.usage_in_bytes", .kind = MCS_PC_USAGE, .idx = MCS_PCTR_KMEM,
	  .conv = MCS_CONV_PAGES, .v1_twin = true },
	PS("kernel_stack", NULL, "NR_KERNEL_STACK_KB"),
	PS("pagetables", NULL, "NR_PAGETABLE"),
	PS("sec_pagetables", NULL, "NR_SECONDARY_PAGETABLE"),
	MS("percpu", "MEMCG_PERCPU_B"),
	MS("sock", "MEMCG_SOCK"),
	MS("vmalloc", "MEMCG_VMALLOC"),
	PSA("shmem", "NR_SHMEM"),
	MS("zswap", "MEMCG_ZSWAP_B"),
	MS("zswapped", "MEMCG_ZSWAPPED"),
	PS("file_mapped", "mapped_file", "NR_FILE_MAPPED"),
	PS("file_dirty", "dirty", "NR_FILE_DIRTY"),
	PS("file_writeback", "writeback", "NR_WRITEBACK"),
	PSA("swapcached", "NR_SWAPCACHE"),
	PS("anon_thp", "rss_huge", "NR_ANON_THPS"),
	PS("file_thp", NULL, "NR_FILE_THPS"),
	PS("shmem_thp", NULL, "NR_SHMEM_THPS"),
	PSA("inactive_anon", "NR_INACTIVE_ANON"),
	PSA("active_anon", "NR_ACTIVE_ANON"),
	PSA("inactive_file", "NR_INACTIVE_FILE"),
	PSA("active_file", "NR_ACTIVE_FILE"),
	PSA("unevictable", "NR_UNEVICTABLE"),
	PS("slab_reclaimable", NULL, "NR_SLAB_RECLAIMABLE_B"),
	PS("slab_unreclaimable", NULL, "NR_SLAB_UNRECLAIMABLE_B"),
	/* derived; memory.numa_stat has only its parts */
	{ .name = "slab", .src = MCS_SRC_PAGE_STATE,
	  .parts = { "NR_SLAB_RECLAIMABLE_B", "NR_SLAB_UNRECLAIMABLE_B" }, .unit = MCS_BYTES },
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
	{ .name = "pgscan", .src = MCS_SRC_VM_EVENT,
	  .parts = { "PGSCAN_KSWAPD", "PGSCAN_DIRECT", "PGSCAN_KHUGEPAGED" }, .unit = MCS_EVENTS },
	{ .name = "pgsteal", .src = MCS_SRC_VM_EVENT,
	  .parts = { "PGSTEAL_KSWAPD", "PGSTEAL_DIRECT", "PGSTEAL_KHUGEPAGED" }, .unit = MCS_EVENTS },
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
	{ .name = "swap", .v1_name = "swap", .src = MCS_SRC_PAGE_STATE, .parts = { "MEMCG_SWAP" },
	  .unit = MCS_BYTES },
	EV("pgpgin", "pgpgin", "PGPGIN"),
	EV("pgpgout", "pgpgout", "PGPGOUT"),
	/*
	 * memory.events: how often the cgroup hit its low, high and max
	 * limits and met the OOM killer; events_ so that none reads like the
	 * limit itself. memory.events.local: the same without descendants.
	 */
	MEMCG_EVENTS(ME)
	MEMCG_EVENTS(MEL)
	/* memory.current (v1: memory.usage_in_bytes) */
	{ .name = "usage", .src = MCS_SRC_USAGE, .unit = MCS_BYTES },
	/* derived as cAdvisor and the kubelet do: usage - inactive_file, >= 0 */
	{ .name = "working_set", .src = MCS_SRC_WORKING_SET, .parts = { "NR_INACTIVE_FILE" },
	  .unit = MCS_BYTES },
	/* limits and protections ("max": MEMCGSTAT_MAX), peaks, failures */
	PCF("memory_min", "memory.min", NULL, MCS_PC_MIN, MCS_PCTR_MEMORY, MCS_CONV_LIMIT, MCS_BYTES),
	PCF("memory_low", "memory.low", NULL, MCS_PC_LOW, MCS_PCTR_MEMORY, MCS_CONV_LIMIT, MCS_BYTES),
	PCF("memory_high", "memory.high", NULL, MCS_PC_HIGH, MCS_PCTR_MEMORY, MCS_CONV_LIMIT, MCS_BYTES),
	PCF("memory_max", "memory.max", "memory.limit_in_bytes", MCS_PC_MAX, MCS_PCTR_MEMORY,
	    MCS_CONV_LIMIT, MCS_BYTES),
	/*
	 * the limit that applies: the lowest memory.max of the cgroup and its
	 * ancestors (v1: memory.stat's hierarchical_memory_limit), "max" in
	 * the root; memsw's on v1
	 */
	{ .name = "memory_max_effective", .src = MCS_SRC_PAGE_COUNTER, .unit = MCS_BYTES,
	  .file = "memory.max", .v1_file = "memory.stat", .key = "hierarchical_memory_limit",
	  .kind = MCS_PC_MAX_EFFECTIVE, .idx = MCS_PCTR_MEMORY, .conv = MCS_CONV_LIMIT,
	  .on_v2_root = true },
	/* cgroup v1's soft limit, the reclaim target under global pressure */
	{ .name = "memory_soft_limit", .src = MCS_SRC_MEMCG_FIELD, .unit = MCS_BYTES,
	  .v1_file = "memory.soft_limit_in_bytes", .conv = MCS_CONV_LIMIT, .file_only = true },
	PCF("memory_peak", "memory.peak", "memory.max_usage_in_bytes", MCS_PC_WATERMARK,
	    MCS_PCTR_MEMORY, MCS_CONV_PAGES, MCS_BYTES),
	PCF("memory_failcnt", NULL, "memory.failcnt", MCS_PC_FAILCNT, MCS_PCTR_MEMORY,
	    MCS_CONV_NONE, MCS_EVENTS),
	PCF("swap_current", "memory.swap.current", NULL, MCS_PC_USAGE, MCS_PCTR_SWAP,
	    MCS_CONV_PAGES, MCS_BYTES),
	PCF("swap_high", "memory.swap.high", NULL, MCS_PC_HIGH, MCS_PCTR_SWAP, MCS_CONV_LIMIT, MCS_BYTES),
	PCF("swap_max", "memory.swap.max", NULL, MCS_PC_MAX, MCS_PCTR_SWAP, MCS_CONV_LIMIT, MCS_BYTES),
	PCF("swap_peak", "memory.swap.peak", NULL, MCS_PC_WATERMARK, MCS_PCTR_SWAP,
	    MCS_CONV_PAGES, MCS_BYTES),
	PCF("memsw_usage", NULL, "memory.memsw.usage_in_bytes", MCS_PC_USAGE, MCS_PCTR_MEMSW,
	    MCS_CONV_PAGES, MCS_BYTES),
	PCF("memsw_max", NULL, "memory.memsw.limit_in_bytes", MCS_PC_MAX, MCS_PCTR_MEMSW,
	    MCS_CONV_LIMIT, MCS_BYTES),
	{ .name = "memsw_max_effective", .src = MCS_SRC_PAGE_COUNTER, .unit = MCS_BYTES,
	  .v1_file = "memory.stat", .key = "hierarchical_memsw_limit",
	  .kind = MCS_PC_MAX_EFFECTIVE, .idx = MCS_PCTR_MEMSW, .conv = MCS_CONV_LIMIT },
	PCF("memsw_peak", NULL, "memory.memsw.max_usage_in_bytes", MCS_PC_WATERMARK,
	    MCS_PCTR_MEMSW, MCS_CONV_PAGES, MCS_BYTES),
	PCF("memsw_failcnt", NULL, "memory.memsw.failcnt", MCS_PC_FAILCNT, MCS_PCTR_MEMSW,
	    MCS_CONV_NONE, MCS_EVENTS),
	{ .name = "oom_group", .src = MCS_SRC_MEMCG_FIELD, .unit = MCS_NUMBER,
	  .file = "memory.oom.group", .kind = MCS_OOM_GROUP },
	/* cgroup v1 memory.oom_control: 1 while the cgroup's OOM is handled */
	{ .name = "under_oom", .src = MCS_SRC_MEMCG_FIELD, .unit = MCS_NUMBER,
	  .v1_file = "memory.oom_control", .key = "under_oom", .kind = MCS_UNDER_OOM },
	/*
	 * cgroup.stat (cgroup v2), in the root too; v1 has no such file: the
	 * live descendants are its directories, counted
	 */
	{ .name = "nr_descendants", .src = MCS_SRC_CGROUP_FIELD, .unit = MCS_NUMBER,
	  .file = "cgroup.stat", .key = "nr_descendants", .kind = MCS_NR_DESCENDANTS,
	  .on_v2_root = true, .v1_counted = true },
	/*
	 * v1: the root's only, /proc/cgroups' num_cgroups of the memory
	 * hierarchy less the root and its live descendants
	 */
	{ .name = "nr_dying_descendants", .src = MCS_SRC_CGROUP_FIELD, .unit = MCS_NUMBER,
	  .file = "cgroup.stat", .v1_file = MCS_CGROUPS_V1_FILE, .key = "nr_dying_descendants",
	  .kind = MCS_NR_DYING_DESCENDANTS, .on_v2_root = true },
	/*
	 * the cgroup's own processes (not its descendants'), as systemd-cgtop's
	 * Tasks: cgroup.procs' entries counted, on v1 and v2, both backends
	 */
	{ .name = "nr_procs", .src = MCS_SRC_PROCS, .unit = MCS_NUMBER, .file = "cgroup.procs",
	  .v1_file = "cgroup.procs", .on_v2_root = true },
	/*
	 * memory.pressure (cgroup v2, in the root too): the stall totals in
	 * microseconds, the averages in hundredths of a percent (the file's
	 * 1.23 is 123), both read from the file on both backends.
	 */
	PSI("pressure_some", "some_total", MCS_MICROSECONDS),
	PSI("pressure_some_avg10", "some_avg10", MCS_NUMBER),
	PSI("pressure_some_avg60", "some_avg60", MCS_NUMBER),
	PSI("pressure_some_avg300", "some_avg300", MCS_NUMBER),
	PSI("pressure_full", "full_total", MCS_MICROSECONDS),
	PSI("pressure_full_avg10", "full_avg10", MCS_NUMBER),
	PSI("pressure_full_avg60", "full_avg60", MCS_NUMBER),
	PSI("pressure_full_avg300", "full_avg300", MCS_NUMBER),
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

const struct mcs_stat_def *mcs_stat_def_for(const char *name, int version)
{
	const struct mcs_stat_def *def = mcs_stat_def_find(name);

	if (def && version == 1 && def + 1 < mcs_stat_defs + mcs_nr_stat_defs && def[1].v1_twin)
		return def + 1;
	return def;
}

size_t mcs_nr_named_stats(void)
{
	size_t i, n = 0;

	for (i = 0; i < mcs_nr_stat_defs; i++)
		n += !mcs_stat_defs[i].v1_twin;
	return n;
}

const struct mcs_stat_def *mcs_named_stat(size_t i)
{
	size_t j;

	for (j = 0; j < mcs_nr_stat_defs; j++)
		if (!mcs_stat_defs[j].v1_twin && !i--)
			return &mcs_stat_defs[j];
	return NULL;
}

bool mcs_def_is_effective(const struct mcs_stat_def *def)
{
	return def->src == MCS_SRC_PAGE_COUNTER && def->kind == MCS_PC_MAX_EFFECTIVE;
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

const struct mcs_stat_def *mcs_stat_def_find_key(const char *file, const char *key)
{
	size_t i;

	for (i = 0; i < mcs_nr_stat_defs; i++)
		if (mcs_stat_defs[i].file && mcs_stat_defs[i].key &&
		    !strcmp(mcs_stat_defs[i].file, file) && !strcmp(mcs_stat_defs[i].key, key))
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

/*
 * The enums the stat table's enumerators belong to: only theirs are looked
 * at (lib/vmlinux.c): a name compared against every one of vmlinux BTF's
 * 100,000 types and enumerators cost 25 M instructions per
 * memcgstat_open() (bench/insn profile). Every enum of vmlinux is asked
 * about, most of them anonymous: a name whose first byte starts none of
 * ours is no further compared (six strcmp() calls an enum took 0.3 M of
 * a 7.0-API memcgstat_open(); doc/bench.md, issue 22's ninth step).
 */
bool mcs_wanted_enum(const char *name)
{
	static const char *const enums[] = {
		"node_stat_item", "memcg_stat_item", "vm_event_item", "memcg_memory_event",
		/* bpf_memcgstat_read()'s items (mcs_vmlinux_kf_layout_ok()) */
		"bpf_memcgstat_kind", "bpf_memcgstat_item_field",
	};
	size_t i;

	switch (name[0]) {	/* the first bytes of enums[] */
	case 'n': case 'm': case 'v': case 'b':
		break;
	default:
		return false;
	}
	for (i = 0; i < sizeof(enums) / sizeof(enums[0]); i++)
		if (name[0] == enums[i][0] && !strcmp(name, enums[i]))
			return true;
	return false;
}
