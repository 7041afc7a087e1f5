/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The memory cgroup hierarchy: where it is mounted, its NUMA nodes, cgroup
 * paths and ids, and which stats its files show.
 */
#ifndef __MEMCGSTAT_HIERARCHY_H
#define __MEMCGSTAT_HIERARCHY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct memcgstat;
struct mcs_stat_def;

/* The memory controller's mount (@want, or found): h->root, h->version. */
int mcs_find_root(struct memcgstat *h, const char *want);
/* NUMA nodes with memory: h->nodes. */
int mcs_find_nodes(struct memcgstat *h);

/* @cgroup (relative or absolute) as an absolute path; no file system access. */
int mcs_cgroup_abs(struct memcgstat *h, const char *cgroup, char *buf, size_t size);
/*
 * The same, checked: a cgroup directory that has the memory controller;
 * *id gets its cgroup id (inode number).
 */
int mcs_cgroup_check(struct memcgstat *h, const char *cgroup, char *buf,
		     size_t size, uint64_t *id);
/* Path relative to the root ("/" for the root itself) of absolute @abs. */
const char *mcs_rel_path(const struct memcgstat *h, const char *abs);

/*
 * Path (relative to the root) of the cgroup with this id, from a cache
 * that is refilled from the subtree at absolute path @top when it misses
 * (once per call, through *rescanned). NULL if no cgroup there has the id;
 * *err set if the scan ran out of memory.
 */
const char *mcs_path_of(struct memcgstat *h, const char *top, uint64_t id,
			bool *rescanned, int *err);
void mcs_free_paths(struct memcgstat *h);
/*
 * Between reads, when no path of the cache is in use: its live paths packed
 * into one chunk, if the dead space of dropped ones outgrew them.
 */
void mcs_paths_pack(struct memcgstat *h);
/* Room in the cache for @n more entries: 0 or -ENOMEM. */
int mcs_path_reserve(struct memcgstat *h, size_t n);
/* The cached path of @id, or NULL: no rescan. */
const char *mcs_path_find(struct memcgstat *h, uint64_t id);
/*
 * Cache @id as @name below the cached path @parent (a path of the cache
 * itself is fine: it is copied first); the new path, or NULL and *err.
 */
const char *mcs_path_add(struct memcgstat *h, uint64_t id, const char *parent,
			 const char *name, int *err);
/* Cache the cgroup directory at absolute @abs, if it is not: 0 or -errno. */
int mcs_path_add_dir(struct memcgstat *h, const char *abs);

/* The stats this hierarchy's files show (a malloc'd array in *out). */
int mcs_hierarchy_stats(struct memcgstat *h, const struct mcs_stat_def ***out,
			size_t *nr);

#endif /* __MEMCGSTAT_HIERARCHY_H */
