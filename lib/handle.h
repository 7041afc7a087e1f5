/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The handle, and the table of operations a backend fills in.
 *
 * The front end (open.c, read.c) owns the handle: the hierarchy, the columns,
 * the messages. A backend reads those, keeps its own state behind h->priv,
 * and reports through the fields marked "backend" below; it builds results
 * with result.h, finds cgroups with hierarchy.h and path_cache.h, reads the
 * stats of files of their own with cgroup_files.h and by path with
 * by_path.h, and sees nothing of the other backend or of the front end.
 */
#ifndef __MEMCGSTAT_HANDLE_H
#define __MEMCGSTAT_HANDLE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include "memcgstat.h"
#include "stats.h"
#include "strpool.h"

struct mcs_path;

/* One value per cgroup: a stat, and with MEMCGSTAT_NUMA its node. */
struct mcs_column {
	const struct mcs_stat_def *def;
	int nid;		/* -1 unless MEMCGSTAT_NUMA */
};

/*
 * What a backend does. read_path is the primitive: the values of the cgroup
 * directory open at @fd into @vals (nr_cols, NA-filled); @abs is its path,
 * of any length, for messages. A snapshot walks from the directory open at
 * @fd (the caller's, still open after), at @abs. read and read_ids may be
 * NULL: the front end then reads by path (read.c).
 */
struct mcs_backend {
	enum memcgstat_backend id;
	int (*open)(struct memcgstat *h);
	void (*close)(struct memcgstat *h);
	int (*read_path)(struct memcgstat *h, int fd, const char *abs, uint64_t *vals);
	int (*read)(struct memcgstat *h, const char *cgroup, const char *abs,
		    struct memcgstat_result *res);
	int (*read_ids)(struct memcgstat *h, const uint64_t *ids, size_t nr,
			struct memcgstat_result *res);
	int (*snapshot)(struct memcgstat *h, int fd, const char *abs, const uint64_t *ids,
			size_t nr_ids, struct memcgstat_result *res);
	/* Whether the backend can read @def here: 1, 0, or -errno. */
	int (*has_stat)(struct memcgstat *h, const struct mcs_stat_def *def);
};

extern const struct mcs_backend mcs_text_backend;
extern const struct mcs_backend mcs_bpf_backend;
/*
 * Whether the bpf backend can run here; 0, or an error with the reason set.
 * On success h->priv holds what the probe found (vmlinux BTF), for open.
 */
int mcs_bpf_probe(struct memcgstat *h);
/*
 * Whether the bpf backend could run here with @h's flags, leaving @h as it
 * is: the kernel's BTF and the process's capabilities, nothing loaded. 0,
 * or an error with why in @why.
 */
int mcs_bpf_check(struct memcgstat *h, char *why, size_t size);
/*
 * Whether the bpf backend may load here at all, from what costs nothing to
 * find out: the kernel's BTF is there and the process may load programs.
 * 0, or an error with the reason set.
 */
int mcs_bpf_may_load(struct memcgstat *h);

/*
 * Auto with memcgstat_opts.expected_reads (choose.c): memcgstat_pin()'s
 * programs if they are there and may be taken, else text, chosen now where
 * bpf cannot run, or until the first read (h->undecided). 0, or -ENOMEM,
 * or with MEMCGSTAT_PIN_REQUIRED why the pins cannot be taken.
 */
int mcs_auto_open(struct memcgstat *h);
/*
 * Before a read of the undecided @h: the choice, by the cgroups the read
 * covers, the tree at the directory @fd, or else @nr. 0, or -ENOMEM; a
 * bpf backend that fails to load leaves text, and why in h->reason.
 */
int mcs_auto_decide(struct memcgstat *h, int fd, size_t nr);

/* Ids of removed cgroups a handle remembers. */
#define MCS_GONE	32

struct memcgstat {
	/*
	 * The last message; one longer than err (a path of any length, maybe
	 * twice) whole in err_long, and its first bytes in err. err[0] '\0'
	 * clears either.
	 */
	char err[1024];
	char *err_long;
	char reason[1024];		/* why auto took the backend it did */
	char bpf_why[1024];		/* memcgstat_bpf_unavailable(), once asked */
	bool bpf_checked;
	const struct mcs_backend *ops;
	bool undecided;			/* auto: text until the first read chooses */
	void *priv;			/* the backend's own state */

	unsigned int flags;		/* enum memcgstat_flags */
	int version;			/* 2 or 1 */
	char root[PATH_MAX];		/* memory hierarchy mount */
	int nodes[64];			/* NUMA node ids (MEMCGSTAT_NUMA) */
	int nr_nodes;
	struct mcs_column *cols;
	size_t nr_cols;
	uint64_t cols_sig;		/* mcs_cols_sig() of the columns, set at open */
	bool read_had_file;		/* text: the read in progress read a file of its cgroup */
	bool all_stats;			/* the columns: every stat shown here */
	char pin_dir[PATH_MAX];		/* MEMCGSTAT_PINNED, memcgstat_pin() */
	struct mcs_path *paths;		/* id -> path cache (path_cache.c) */
	uint32_t *path_slots;		/* its hash, made at the first lookup */
	size_t nr_paths, paths_cap;
	size_t nr_linked;		/* the first nr_linked entries are in the hash */
	struct mcs_strpool *path_pool;	/* the cache's paths, lent to results */
	uint32_t path_gen;		/* reads so far, for the cache */
	int fh_type;			/* kernfs file handles' type; 0 not probed, -1 none */
	unsigned long nr_scans;		/* rescans of the hierarchy, for the tests */
	bool scan_whole;		/* the last scan read the root's every directory */
	int scan_skip;			/* ... else the errno of the first it skipped, or 0 */
	uint64_t gone[MCS_GONE];	/* ids of removed cgroups (cgroup_id.c) */
	unsigned int nr_gone;		/* entries put in gone[] so far */

	/* backend: the query path asked for, chosen, why, and last taken */
	enum memcgstat_query want_query;
	long expected_reads;		/* memcgstat_opts.expected_reads, 0: no end */
	enum memcgstat_query query;
	char query_reason[1024];
	enum memcgstat_query last_query;
	const char *kfuncs;		/* backend: the kfunc set read with */
};

int mcs_set_err(struct memcgstat *h, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Which columns @h has (each stat and node, in order) as a number, kept
 * in h->cols_sig at open: a result made for other columns is refused.
 */
uint64_t mcs_cols_sig(const struct memcgstat *h);
/* Whether any column is read from @src. */
bool mcs_cols_need(const struct memcgstat *h, enum mcs_source src);

#endif /* __MEMCGSTAT_HANDLE_H */
