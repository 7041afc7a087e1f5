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

/*
 * @cgroup as the absolute path of a cgroup in the mount, in *out: @buf
 * (@size bytes) where it fits and nothing needed the file system, else
 * malloc'd; free it with mcs_abs_free(). A path below the mount ("ua/a"),
 * an absolute path inside it as it is, both without touching the file
 * system; ".", "..", "./x", "../x" against the working directory, and an
 * absolute path that is no cgroup below the mount ("/ua/a" is one) through
 * the file system (a symlink into the mount). No length limit.
 */
int mcs_cgroup_abs(struct memcgstat *h, const char *cgroup, char *buf, size_t size,
		   char **out);
void mcs_abs_free(char *abs, const char *buf);
/* @root and the path @rel below it ("/": none) in @buf, else malloc'd; NULL. */
char *mcs_join(const char *root, const char *rel, char *buf, size_t size);
/*
 * The cgroup directory at @abs (from mcs_cgroup_abs(), for @cgroup)
 * opened, checked to have the memory controller: an O_RDONLY | O_DIRECTORY
 * fd, *id its cgroup id (inode number); or -errno with a message.
 */
int mcs_cgroup_check(struct memcgstat *h, const char *cgroup, const char *abs,
		     uint64_t *id);
/*
 * openat() for a path of any length: longer than PATH_MAX, a run of its
 * components at a time. An fd, or -errno.
 */
int mcs_openat_long(int dirfd, const char *path, int flags);
/* stat() of an absolute path of any length: 0 or -errno. */
struct stat;
int mcs_stat_long(const char *abs, struct stat *st);
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
/* The same, with its length in *len. */
const char *mcs_path_get(struct memcgstat *h, uint64_t id, size_t *len);
/*
 * Cache @id, which the cache does not have, as @name below @parent of
 * length @parent_len (a path of the cache itself is fine: it stays where
 * it is); the new path and its length in *len, or NULL and *err.
 */
const char *mcs_path_add(struct memcgstat *h, uint64_t id, const char *parent,
			 size_t parent_len, const char *name, size_t *len, int *err);
/* Cache the cgroup directory at absolute @abs, if it is not: 0 or -errno. */
int mcs_path_add_dir(struct memcgstat *h, const char *abs);

/* A path that grows and shrinks by components, as a walk goes. */
struct mcs_pathbuf {
	char *s;
	size_t len, cap;
};
/* @abs into a new buffer: 0 or -ENOMEM. */
int mcs_pathbuf_init(struct mcs_pathbuf *b, const char *abs);
/* "/@name" appended: 0 or -ENOMEM (the path as it was). */
int mcs_pathbuf_push(struct mcs_pathbuf *b, const char *name);
/* Back to its first @len bytes. */
void mcs_pathbuf_pop(struct mcs_pathbuf *b, size_t len);

/* The stats this hierarchy's files show (a malloc'd array in *out). */
int mcs_hierarchy_stats(struct memcgstat *h, const struct mcs_stat_def ***out,
			size_t *nr);

#endif /* __MEMCGSTAT_HIERARCHY_H */
