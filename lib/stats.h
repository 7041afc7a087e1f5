/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one table of memcg counters memcgstat knows: the name memory.stat (or
 * another memory controller file) prints, where the kernel keeps it, how it
 * is derived, and what its values are (a size in bytes, a count of events,
 * or a number that goes up and down).
 */
#ifndef __MEMCGSTAT_STAT_TABLE_H
#define __MEMCGSTAT_STAT_TABLE_H

#include <stdbool.h>
#include <stddef.h>

struct btf;

/* Where a counter lives in the kernel. */
enum mcs_source {
	MCS_SRC_PAGE_STATE,	/* enum node_stat_item / memcg_stat_item */
	MCS_SRC_VM_EVENT,	/* enum vm_event_item */
	MCS_SRC_MEMORY_EVENT,	/* enum memcg_memory_event (memory.events) */
	MCS_SRC_USAGE,		/* the memory page counter (memory.current) */
	/*
	 * Read from a file of their own on the text backend (file, v1_file,
	 * key below), with the item kind @kind and index @idx on bpf:
	 */
	MCS_SRC_PAGE_COUNTER,	/* a field of a page counter: memory.max, ... */
	MCS_SRC_MEMORY_EVENT_LOCAL, /* memcg->memory_events_local[] */
	MCS_SRC_MEMCG_FIELD,	/* another field of struct mem_cgroup: oom_group */
	MCS_SRC_CGROUP_FIELD,	/* a field of struct cgroup: cgroup.stat */
	/* derived: memory.current minus inactive_file, at least 0 */
	MCS_SRC_WORKING_SET,
	/*
	 * memory.pressure (PSI), read from the file on both backends: the
	 * kernel aggregates per-CPU stall times and averages when the file is
	 * read, so no field holds what it prints.
	 */
	MCS_SRC_PSI,
	/*
	 * cgroup.procs' entries counted: the cgroup's own processes, not its
	 * descendants'. Read from the file on both backends (v1 and v2): no
	 * field of the kernel's counts them.
	 */
	MCS_SRC_PROCS,
};

#define MCS_MAX_PARTS	3

/* The system's memory pressure: cgroup v1's root cgroup's (no memory.pressure) */
#define MCS_PSI_V1_FILE	"/proc/pressure/memory"
/* Its num_cgroups: cgroup v1's root's live and dying cgroups, and itself */
#define MCS_CGROUPS_V1_FILE	"/proc/cgroups"

/* A size in bytes (a gauge), or a count of events (a counter, only grows). */
enum mcs_unit {
	MCS_BYTES,
	MCS_EVENTS,
	MCS_NUMBER,	/* a gauge without a unit: cgroups, a flag, a PSI average */
	MCS_MICROSECONDS, /* a counter of time: PSI's stall totals */
};

/* How a bpf item's value becomes the file's. */
enum mcs_conv {
	MCS_CONV_NONE,
	MCS_CONV_PAGES,		/* pages -> bytes */
	MCS_CONV_LIMIT,		/* pages -> bytes; PAGE_COUNTER_MAX -> MEMCGSTAT_MAX */
};

struct mcs_stat_def {
	const char *name;	/* cgroup v2 key; also the CLI name */
	const char *v1_name;	/* cgroup v1 memory.stat key, or NULL */
	enum mcs_source src;
	/* kernel enumerators whose values are summed (derived stats) */
	const char *parts[MCS_MAX_PARTS];
	bool node;		/* a node stat item: in memory.numa_stat */
	enum mcs_unit unit;
	/*
	 * The file a stat of its own file is read from on cgroup v2 and v1
	 * (NULL: not on that version), and its key there (NULL: the file
	 * holds one value).
	 */
	const char *file, *v1_file, *key;
	int kind, idx;		/* bpf: enum mcs_item_kind and its index */
	enum mcs_conv conv;
	bool on_v2_root;	/* the v2 file exists in the root cgroup too */
	/*
	 * cgroup v1 only: the number counted from the directories below the
	 * cgroup (v1 has no cgroup.stat), on bpf the field as on v2.
	 */
	bool v1_counted;
	/*
	 * The cgroup v1 row of a stat v1 reads another way than v2 (kernel:
	 * memory.stat's kmem on v2, the kmem page counter on v1); it follows
	 * the v2 row, has its name, and is no stat of its own.
	 */
	bool v1_twin;
	/*
	 * Read from its file on the bpf backend too: the field a kernel keeps
	 * is not what every kernel prints (Linux 6.12.y's memory.soft_limit_in_bytes
	 * prints "max" and ignores writes, while memcg->soft_limit stays 0).
	 */
	bool file_only;
};

/*
 * Whether the cgroup v2 root has no value of @def: no such file there, or
 * usage (no memory.current; its page counter sums only the children's
 * charges) and working_set, made of it. NA there on both backends.
 */
static inline bool mcs_def_none_on_v2_root(const struct mcs_stat_def *def)
{
	return (def->file && !def->on_v2_root) || def->src == MCS_SRC_USAGE ||
	       def->src == MCS_SRC_WORKING_SET;
}

/* Whether @def is read from a file of its own (not memory.stat). */
static inline bool mcs_def_has_file(const struct mcs_stat_def *def)
{
	return def->file || def->v1_file;
}

/*
 * Whether @def is a field the bpf backend reads with CO-RE (a page counter's,
 * struct mem_cgroup's, struct cgroup's) or a file both backends read
 * (memory.pressure, cgroup.procs): each backend has it where its file is,
 * on that hierarchy only.
 */
static inline bool mcs_def_is_field(const struct mcs_stat_def *def)
{
	return def->src == MCS_SRC_PAGE_COUNTER || def->src == MCS_SRC_MEMORY_EVENT_LOCAL ||
	       def->src == MCS_SRC_MEMCG_FIELD || def->src == MCS_SRC_CGROUP_FIELD ||
	       def->src == MCS_SRC_PSI || def->src == MCS_SRC_PROCS;
}

/*
 * Whether both backends read @def from its file: memory.pressure,
 * cgroup.procs, and the stats whose field is not what the file prints.
 */
static inline bool mcs_def_file_only(const struct mcs_stat_def *def)
{
	return def->src == MCS_SRC_PSI || def->src == MCS_SRC_PROCS || def->file_only;
}

/* @def's file on cgroup v@version, or NULL. */
static inline const char *mcs_def_file(const struct mcs_stat_def *def, int version)
{
	return version == 2 ? def->file : def->v1_file;
}

/*
 * Whether @def is the limit that applies, the lowest of the cgroup's and
 * its ancestors' (v1: hierarchical_memory_limit in memory.stat; v2 the
 * lowest memory.max up to the root, read from each).
 */
bool mcs_def_is_effective(const struct mcs_stat_def *def);

/*
 * Whether @def is read from a file of the system's on cgroup v@version (v1's
 * pressure, dying cgroups): a value of its root alone, NA below it.
 */
static inline bool mcs_def_root_only(const struct mcs_stat_def *def, int version)
{
	return version == 1 && def->v1_file && def->v1_file[0] == '/';
}

/* Whether cgroup v@version has @def, a field: a file, or counted (v1). */
static inline bool mcs_def_on(const struct mcs_stat_def *def, int version)
{
	return mcs_def_file(def, version) || (version == 1 && def->v1_counted);
}

extern const struct mcs_stat_def mcs_stat_defs[];
extern const size_t mcs_nr_stat_defs;

/* The definition for a v2 or v1 key, or NULL. */
const struct mcs_stat_def *mcs_stat_def_find(const char *name);
/* The row of stat @name cgroup v@version reads (its v1 twin on v1), or NULL. */
const struct mcs_stat_def *mcs_stat_def_for(const char *name, int version);
/* The stats by name: every row but the v1 twins. */
size_t mcs_nr_named_stats(void);
const struct mcs_stat_def *mcs_named_stat(size_t i);
const struct mcs_stat_def *mcs_stat_def_find_v1(const char *v1_name);
/* The definition read from key @key of the v2 file @file, or NULL. */
const struct mcs_stat_def *mcs_stat_def_find_key(const char *file, const char *key);

/*
 * Value of the kernel enumerator @name in @btf (vmlinux BTF): 0 and *val set,
 * or -ENOENT if the running kernel has no such enumerator.
 */
int mcs_btf_enum_value(const struct btf *btf, const char *name, int *val);

/* A name to find in vmlinux BTF: a function, or an enumerator and its value. */
struct mcs_btf_name {
	const char *name;
	bool func;		/* a BTF_KIND_FUNC, else an enumerator */
	bool found;
	int val;		/* the enumerator's value; a function's BTF type id */
};

/* Whether the enum named @name holds enumerators of the stat table. */
bool mcs_wanted_enum(const char *name);

/*
 * Which of the functions @funcs (each named bpf_*) the running kernel's
 * vmlinux BTF has, and the wanted enums' enumerators, read in one pass
 * (lib/vmlinux.c): 0, or a negative errno (-ENOENT: no
 * /sys/kernel/btf/vmlinux). mcs_vmlinux_lookup() then sets each entry of
 * @names found (and an enumerator's value), for those functions and any
 * enumerator.
 */
struct mcs_vmlinux;
int mcs_vmlinux_load(const char *const *funcs, size_t nr_funcs, struct mcs_vmlinux **out);
/*
 * The same from a file of raw BTF (the tests'): -EPROTO if it is not that;
 * mapped where @may_map and the file can be, else read in chunks.
 */
int mcs_vmlinux_load_file(const char *path, const char *const *funcs, size_t nr_funcs,
			  bool may_map, struct mcs_vmlinux **out);
/* Whether @v's pass read a mapping of the file. */
bool mcs_vmlinux_mapped(const struct mcs_vmlinux *v);
void mcs_vmlinux_free(struct mcs_vmlinux *v);
void mcs_vmlinux_lookup(const struct mcs_vmlinux *v, struct mcs_btf_name *names, size_t n);
/*
 * Whether bpf_memcgstat_read() of this kernel takes items as MCS_KF_ITEM()
 * (bpf/memcg_items.h) encodes them: the values of its enums
 * bpf_memcgstat_kind and bpf_memcgstat_item_field that @v has must be the
 * library's. A kernel without the second (patch 6 before it) has the
 * layout memcg_items.h was written for.
 */
bool mcs_vmlinux_kf_layout_ok(const struct mcs_vmlinux *v);

#endif /* __MEMCGSTAT_STAT_TABLE_H */
