/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one table of memcg counters memcgstat knows: the name memory.stat (or
 * memory.events) prints, where the kernel keeps it, how it is derived, and
 * what its values are (a size in bytes, or a count of events).
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
};

#define MCS_MAX_PARTS	3

/* A size in bytes (a gauge), or a count of events (a counter, only grows). */
enum mcs_unit {
	MCS_BYTES,
	MCS_EVENTS,
};

struct mcs_stat_def {
	const char *name;	/* cgroup v2 key; also the CLI name */
	const char *v1_name;	/* cgroup v1 memory.stat key, or NULL */
	enum mcs_source src;
	/* kernel enumerators whose values are summed (derived stats) */
	const char *parts[MCS_MAX_PARTS];
	bool node;		/* a node stat item: in memory.numa_stat */
	enum mcs_unit unit;
};

extern const struct mcs_stat_def mcs_stat_defs[];
extern const size_t mcs_nr_stat_defs;

/* The definition for a v2 or v1 key, or NULL. */
const struct mcs_stat_def *mcs_stat_def_find(const char *name);
const struct mcs_stat_def *mcs_stat_def_find_v1(const char *v1_name);

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
	int val;		/* the enumerator's value */
};

/*
 * Find every name of @names in one pass over @btf's types (a lookup by name
 * is a pass of its own: vmlinux BTF has over 100,000 types). Returns 0, or
 * -ENOMEM.
 */
int mcs_btf_lookup(const struct btf *btf, struct mcs_btf_name *names, size_t n);

#endif /* __MEMCGSTAT_STAT_TABLE_H */
