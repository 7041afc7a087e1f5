/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Strings packed into chunks their owner frees at once: the paths of a
 * result's rows and of the id -> path cache, without a malloc() and a
 * free() each (a first snapshot of 10,001 cgroups made two of each per
 * cgroup). A string let go is dead space until the owner packs the live
 * ones into a new pool, when dead space outgrows them.
 *
 * A pool made by mcs_strpool_new() is shared: the handle's path cache
 * lends its strings to the rows of results (result.h), each of which
 * holds a reference, so that a snapshot copies no path; its strings stay
 * until the last holder lets it go.
 */
#ifndef __MEMCGSTAT_STRPOOL_H
#define __MEMCGSTAT_STRPOOL_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A chunk holds MCS_STRPOOL_SLACK bytes past its cap, which no string
 * takes: a string's last word may be read, and a new one's bytes written,
 * 8 bytes at a time (mcs_path_add_walk()), without a bounds check per byte.
 */
#define MCS_STRPOOL_SLACK	8

struct mcs_chunk {
	struct mcs_chunk *next;
	size_t used, cap;
	char data[];
};

struct mcs_strpool {
	struct mcs_chunk *chunks;	/* the newest first */
	size_t live, dead;		/* bytes held and let go */
	unsigned long refs;		/* a shared pool's holders */
};

/* A shared pool, empty, with one reference; NULL without memory. */
struct mcs_strpool *mcs_strpool_new(void);
void mcs_strpool_get(struct mcs_strpool *pool);
/* Let a reference go (NULL: none); the last frees the pool. */
void mcs_strpool_put(struct mcs_strpool *pool);

char *mcs_strpool_alloc_chunk(struct mcs_strpool *pool, size_t len);

/*
 * Room for a string of @len bytes and its NUL, for the caller to fill.
 * Inline where the newest chunk has room: a first snapshot of 10,001
 * cgroups takes two strings a cgroup.
 */
static inline char *mcs_strpool_alloc(struct mcs_strpool *pool, size_t len)
{
	struct mcs_chunk *c = pool->chunks;
	char *p;

	if (!c || c->cap - c->used <= len)
		return mcs_strpool_alloc_chunk(pool, len);
	p = c->data + c->used;
	p[len] = '\0';
	c->used += len + 1;
	pool->live += len + 1;
	return p;
}
/* A copy of @s, @len bytes and a NUL, in @pool; NULL without memory. */
char *mcs_strpool_add(struct mcs_strpool *pool, const char *s, size_t len);
/* @s (from @pool, or NULL) is no longer used. */
void mcs_strpool_drop(struct mcs_strpool *pool, const char *s);
/* Whether packing would pay: more dead space than live, and a chunk of it. */
bool mcs_strpool_wants_pack(const struct mcs_strpool *pool);
/*
 * Packing: mcs_strpool_pack_start() makes @fresh, one chunk of @bytes
 * (-ENOMEM: leave the pool as it is); mcs_strpool_move() copies each live
 * string into it and returns the copy; mcs_strpool_pack_end() frees what
 * @pool had and makes @fresh its contents.
 */
int mcs_strpool_pack_start(struct mcs_strpool *fresh, size_t bytes);
const char *mcs_strpool_move(struct mcs_strpool *fresh, const char *s);
void mcs_strpool_pack_end(struct mcs_strpool *pool, struct mcs_strpool *fresh);
void mcs_strpool_free(struct mcs_strpool *pool);

#endif /* __MEMCGSTAT_STRPOOL_H */
