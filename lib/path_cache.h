/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The id -> path cache of a handle (path_cache.c). */
#ifndef __MEMCGSTAT_PATH_CACHE_H
#define __MEMCGSTAT_PATH_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct memcgstat;

/*
 * Path (relative to the root) of the cgroup with this id, from a cache
 * that is refilled from the subtree at absolute path @top when it misses
 * (once per call, through *rescanned). NULL if no cgroup there has the id;
 * *err set if the scan ran out of memory.
 */
const char *mcs_path_of(struct memcgstat *h, const char *top, uint64_t id,
			bool *rescanned, int *err);
/*
 * The cache filled again from the subtree at absolute path @top (*rescanned
 * set, h->scan_whole whether it read the whole hierarchy, h->scan_skip why
 * it skipped the first directory it could not read): @id's path there, or
 * NULL; *err set if it ran out of memory.
 */
const char *mcs_path_rescan(struct memcgstat *h, const char *top, uint64_t id,
			    bool *rescanned, int *err);
/* Cache @id at absolute path @dir, replacing what it had: 0 or -ENOMEM. */
int mcs_path_put(struct memcgstat *h, uint64_t id, const char *dir);
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
/*
 * Where a walk's records keep what mcs_path_add_walk() reads: cgroup i's
 * id is the u64 at @ids + i * @ids_stride, its level the u32 at @names +
 * i * @names_stride + @level_off, and its name (empty: not recorded) the
 * NUL-terminated bytes at @name_off, in a field of @name_size bytes, a
 * multiple of 8: the name is read a word at a time.
 */
struct mcs_walk_layout {
	const void *ids, *names;
	size_t ids_stride, names_stride, level_off, name_off, name_size;
};
/*
 * The @n cgroups of a whole walk in pre-order (@l), for a cache that knows
 * none of them but the walk's top, record 0. A cgroup's parent is the last
 * one before it one level up. Each whose parent's path is known is cached
 * below it, its path in @paths[i]; the others' NULL, for the caller to
 * find another way (a name not recorded, a cgroup more than 31 levels
 * below the top). One pass with no lookup but the top's. 0 or -ENOMEM.
 */
int mcs_path_add_walk(struct memcgstat *h, size_t n, const struct mcs_walk_layout *l,
		      const char **paths);
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

#endif /* __MEMCGSTAT_PATH_CACHE_H */
