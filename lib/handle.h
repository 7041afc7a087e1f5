/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* libmemcgstat internals shared by the front end and the two backends. */
#ifndef __MEMCGSTAT_INTERNAL_H
#define __MEMCGSTAT_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include "memcgstat.h"
#include "stats.h"

struct memcg_iter;
struct btf;
struct mcs_item;

struct mcs_path {
	uint64_t id;
	char *path;
};

struct mcs_column {
	const struct mcs_stat_def *def;
	int nid;		/* -1 unless MEMCGSTAT_NUMA */
	int first_item;		/* bpf: items[first_item ..] summed */
	int nr_items;
};

struct memcgstat {
	char err[1024];
	char reason[1024];
	char query_reason[1024];
	enum memcgstat_backend backend;
	enum memcgstat_query want_query;	/* as opened */
	enum memcgstat_query query;		/* bpf: SYSCALL or ITER */
	enum memcgstat_query last_query;
	unsigned int flags;
	int version;			/* 2 or 1 */
	char root[PATH_MAX];		/* memory hierarchy mount */
	int nodes[64];			/* NUMA node ids (MEMCGSTAT_NUMA) */
	int nr_nodes;

	struct mcs_column *cols;
	size_t nr_cols;

	/* bpf backend */
	struct btf *btf;		/* vmlinux BTF */
	struct memcg_iter *skel;
	bool upstream_only;		/* kernel has Linux 7.0's kfuncs only */
	struct mcs_item *items;
	int nr_items;
	uint32_t cap;			/* records the map holds */
	void *records;			/* mmapped records map */
	size_t records_len;
	uint64_t *filtered;		/* ids in the keep_ids map */
	size_t nr_filtered;

	struct mcs_path *paths;		/* id -> path, sorted by id */
	size_t nr_paths;
};

struct memcgstat_result {
	size_t count, cap, nr_cols;
	uint64_t *ids;
	char **paths;
	uint64_t *values;		/* count * nr_cols */
	int *status;
};

int mcs_set_err(struct memcgstat *h, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Result building */
struct memcgstat_result *mcs_result_new(size_t nr_cols);
/* Append a row; returns its values (NA-filled) or NULL without memory. */
uint64_t *mcs_result_add(struct memcgstat_result *res, uint64_t id,
			 const char *path);

/*
 * Path (relative to the root) of the cgroup with this id, from a cache
 * that is refilled from the subtree at absolute path @top when it misses
 * (once per call, through *rescanned). NULL if no cgroup there has the id;
 * *err set if the scan ran out of memory.
 */
const char *mcs_path_of(struct memcgstat *h, const char *top, uint64_t id,
			bool *rescanned, int *err);
void mcs_free_paths(struct memcgstat *h);

/* Resolve @cgroup (relative or absolute) to an absolute path in the tree. */
int mcs_cgroup_path(struct memcgstat *h, const char *cgroup, char *buf,
		    size_t size);
/* Path relative to the root ("/" for the root itself) of absolute @abs. */
const char *mcs_rel_path(const struct memcgstat *h, const char *abs);

/* text backend */
int mcs_text_read_one(struct memcgstat *h, const char *abs, uint64_t *vals);
int mcs_text_snapshot(struct memcgstat *h, const char *abs,
		      const uint64_t *ids, size_t nr_ids,
		      struct memcgstat_result *res);
/* Which stats this hierarchy's files show: fills *out with defs. */
int mcs_text_default_stats(struct memcgstat *h,
			   const struct mcs_stat_def ***out, size_t *nr);

/* bpf backend */
int mcs_bpf_probe(struct memcgstat *h);	/* 0 if usable, else reason set */
int mcs_bpf_open(struct memcgstat *h);
void mcs_bpf_close(struct memcgstat *h);
int mcs_bpf_read_one(struct memcgstat *h, const char *abs, uint64_t *vals);
/*
 * One run of the batch program: nr_cols values per id into @vals, and per
 * id a status: 0, -ENOENT (no such cgroup) or -ENODATA (no memcg).
 */
int mcs_bpf_batch(struct memcgstat *h, const uint64_t *ids, size_t nr,
		  uint64_t *vals, int *status);
/* The iterator on the cgroup v2 cgroup with this id; -ENOENT if none. */
int mcs_bpf_read_id(struct memcgstat *h, uint64_t id, uint64_t *vals);
int mcs_bpf_snapshot(struct memcgstat *h, const char *abs,
		     const uint64_t *ids, size_t nr_ids,
		     struct memcgstat_result *res);

#endif /* __MEMCGSTAT_INTERNAL_H */
