/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The bpf backend's own parts, one job a file, each calling only the ones
 * listed after it:
 *
 *   bpf_open.c    opening a handle: the probe, the query path, the backend's
 *                 table of operations
 *   bpf_read.c    reads: one cgroup, a list of ids, a subtree
 *   bpf_pin.c     memcgstat_pin() and the handles that read with the pins
 *   bpf_load.c    loading the programs (in the kernel, else by libbpf), the
 *                 maps mapped, closing
 *   bpf_plan.c    what the programs read for the columns (items), and the
 *                 columns made from the items again
 *   bpf_kernel.c  what the kernel has: its kfuncs and enumerators (vmlinux
 *                 BTF), the process's capabilities
 *
 * Below all of them: loader.c (the in-kernel loader), vmlinux.c (BTF), and
 * the library's shared parts (handle.h, hierarchy.h, path_cache.h,
 * cgroup_files.h, result.h).
 */
#ifndef __MEMCGSTAT_BPF_BACKEND_H
#define __MEMCGSTAT_BPF_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/types.h>
#include "handle.h"
#include "memcg_iter.h"

struct memcg_iter;
struct memcg_iter__bss;
struct mcs_vmlinux;

/* The kfuncs the backend looks for, in one pass over vmlinux BTF. */
enum {
	F_GET, F_PUT, F_FLUSH, F_PAGE_STATE, F_VM_EVENTS, F_MEMORY_EVENTS, F_USAGE,
	NR_NEEDED,			/* the Linux 7.0 set, all needed */
	F_LOCAL_STATE = NR_NEEDED, F_LOCAL_EVENTS, F_NODE_STATE, F_READ,	/* memcgstat's */
	F_CGROUP_FROM_ID, F_CGROUP_ANCESTOR,				/* the syscall path's */
	/* found for their type ids only (mcs_loader_answer()) */
	F_CGROUP_RELEASE, F_RDONLY_CAST, F_ITER_CGROUP,
	NR_FUNCS
};

/* The backend's state, behind h->priv. */
struct mcs_bpf {
	struct mcs_vmlinux *vmlinux;	/* what the backend needs of vmlinux BTF */
	bool upstream_only;		/* kernel has Linux 7.0's kfuncs only */
	int func_ids[NR_FUNCS];		/* their vmlinux BTF type ids, 0 if none */
	size_t nr_answered;		/* the last load's lookups answered (testing) */
	size_t nr_folded;		/* and the loader's instructions folded away */
	bool has_ids;			/* bpf_cgroup_from_id() and _ancestor() */
	bool has_read;			/* bpf_memcgstat_read() */
	struct memcg_iter *skel;
	struct mcs_item *items;		/* what the programs read, in order */
	int nr_items;
	int nr_fast;			/* items[0 .. nr_fast - 1]: bpf_memcgstat_read() */
	int *first_item, *nr_col_items;	/* per column: items summed */
	bool *copy_col;			/* per column: its one item is its value */
	bool plain;			/* one item per column: items are the values */
	uint64_t na_id;			/* v2: root_id if a column has no value there, else 0 */
	uint32_t cap;			/* records the map holds */
	uint32_t filter_cap;		/* ids the keep_ids map holds */
	void *records;			/* mmapped records map */
	size_t records_len;
	uint64_t *filtered;		/* ids in the keep_ids map */
	size_t nr_filtered;
	uint64_t root_id;		/* the hierarchy root's cgroup id */
	uint64_t page_size;		/* page counters count pages */
	uint64_t page_counter_max;	/* PAGE_COUNTER_MAX: no limit */
	bool has_file_cols;		/* columns read from files: memory.pressure, cgroup.procs, ... */
	bool in_kernel;			/* the programs loaded by the in-kernel loader */

	/* what the reads use: the loader's programs and maps, or the pins' */
	int fd_snapshot, fd_batch, fd_records, fd_keep_ids, fd_names, fd_bss;
	struct memcg_iter__bss *bss;
	struct mcs_name *names;		/* the names map, mapped at first use */
	size_t names_len;
	size_t bss_len;			/* mmapped by us (pins), else 0 */
	/* MEMCGSTAT_PINNED: the directory of the pins, flock()ed per read */
	int pin_fd;
	struct mcs_pin_meta *meta;	/* the pins' description */
};

/*
 * What memcgstat_pin() leaves beside the programs and maps, in an array
 * map of one frozen element: enough to open a handle on them without
 * vmlinux BTF or a load.
 */
#define MCS_PIN_MAGIC	"mcspin1"

struct mcs_pin_meta {
	char magic[8];
	char id[24];			/* MCS_PIN_ID of the library that pinned */
	__u32 nr_items, cap, filter_cap;
	__u32 query;			/* enum memcgstat_query the pins have */
	__u32 upstream_only, has_ids;
	struct mcs_item items[MCS_MAX_ITEMS];
	/* per mcs_stat_defs[] entry: its items, first -1 if not pinned */
	__s16 first[256], count[256];
	char query_reason[512];
};

static inline struct mcs_bpf *bpf_of(const struct memcgstat *h)
{
	return h->priv;
}

/* bpf_kernel.c */

extern const char *const mcs_bpf_func_names[NR_FUNCS];
/* What the kernel must have; fills b->vmlinux, ->func_ids, ->upstream_only, ->has_ids, ->has_read. */
int mcs_bpf_probe_kernel(struct memcgstat *h, struct mcs_bpf *b);
/* Whether this process may load programs: 0, or -EPERM said. */
int mcs_bpf_permitted(struct memcgstat *h);
/* Whether the kernel has every enumerator @def is read with: 1, 0 or -errno. */
int mcs_bpf_has_stat(struct memcgstat *h, const struct mcs_stat_def *def);

/* bpf_plan.c */

/* The items for h's columns, in the order the programs read them, and how the columns come from them. */
int mcs_bpf_plan(struct memcgstat *h, struct mcs_bpf *b);
/* How each column comes from the items (b->items set: the plan's, or the pins'). */
int mcs_bpf_plan_columns(struct memcgstat *h, struct mcs_bpf *b);
/* The items of cgroup @id into its columns, converted. */
/* The v2 root's columns it has no value of (mcs_def_none_on_v2_root()) NA. */
void mcs_bpf_root_na(const struct memcgstat *h, uint64_t *vals);
void mcs_bpf_convert_columns(const struct memcgstat *h, uint64_t id, const __u64 *items,
			     uint64_t *vals);

/* bpf_load.c */

/*
 * Load the programs for b's items with a records map of @cap: 0, or -errno
 * with the reason set.
 */
int mcs_bpf_load(struct memcgstat *h, struct mcs_bpf *b, uint32_t cap);
/* Drop the programs and maps: the skeleton's, or the pins'. */
void mcs_bpf_unload(struct mcs_bpf *b);
/* The records map, and the names map, mapped at their first use: 0 or -errno, said. */
int mcs_bpf_map_records(struct memcgstat *h, struct mcs_bpf *b);
int mcs_bpf_map_names(struct memcgstat *h, struct mcs_bpf *b);
/* The backend's close: everything of h->priv freed. */
void mcs_bpf_close(struct memcgstat *h);

/* bpf_pin.c */

/* The pins of this build, if usable: fills @b as a load does; -errno, said, if not. */
int mcs_bpf_open_pins(struct memcgstat *h, struct mcs_bpf *b);
/* The pins' maps, shared by every handle on them: held from the first write to the last read. */
int mcs_bpf_lock_pins(struct memcgstat *h);
/* @err, after the lock is let go. */
int mcs_bpf_unlock_pins(struct memcgstat *h, int err);

/* bpf_read.c: the backend's operations of reading */

int mcs_bpf_read_path(struct memcgstat *h, int fd, const char *abs, uint64_t *vals);
int mcs_bpf_read(struct memcgstat *h, const char *cgroup, const char *abs,
		 struct memcgstat_result *res);
int mcs_bpf_read_ids(struct memcgstat *h, const uint64_t *ids, size_t nr,
		     struct memcgstat_result *res);
int mcs_bpf_snapshot(struct memcgstat *h, int fd, const char *abs,
		     const uint64_t *ids, size_t nr_ids, struct memcgstat_result *res);

#endif /* __MEMCGSTAT_BPF_BACKEND_H */
