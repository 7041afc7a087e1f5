// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* String pools: see strpool.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "strpool.h"

/* Chunks double from 1 KiB to 1 MiB; a longer string gets one of its own. */
#define CHUNK_MIN	1024
#define CHUNK_MAX	(1 << 20)

static struct mcs_chunk *new_chunk(size_t cap)
{
	struct mcs_chunk *c = malloc(sizeof(*c) + cap + MCS_STRPOOL_SLACK);

	if (c) {
		c->next = NULL;
		c->used = 0;
		c->cap = cap;
	}
	return c;
}

/* mcs_strpool_alloc() in a new chunk: the newest has no room. */
char *mcs_strpool_alloc_chunk(struct mcs_strpool *pool, size_t len)
{
	struct mcs_chunk *c = pool->chunks;
	size_t cap = c ? 2 * c->cap : CHUNK_MIN;

	if (cap > CHUNK_MAX)
		cap = CHUNK_MAX;
	if (cap < len + 1)
		cap = len + 1;
	c = new_chunk(cap);
	if (!c)
		return NULL;
	c->next = pool->chunks;
	pool->chunks = c;
	return mcs_strpool_alloc(pool, len);
}

char *mcs_strpool_add(struct mcs_strpool *pool, const char *s, size_t len)
{
	char *p = mcs_strpool_alloc(pool, len);

	return p ? memcpy(p, s, len) : NULL;
}

void mcs_strpool_drop(struct mcs_strpool *pool, const char *s)
{
	size_t len = s ? strlen(s) + 1 : 0;

	pool->live -= len;
	pool->dead += len;
}

bool mcs_strpool_wants_pack(const struct mcs_strpool *pool)
{
	return pool->dead > pool->live && pool->dead >= CHUNK_MIN;
}

int mcs_strpool_pack_start(struct mcs_strpool *fresh, size_t bytes)
{
	fresh->live = fresh->dead = 0;
	fresh->refs = 1;
	fresh->chunks = new_chunk(bytes ? bytes : 1);
	return fresh->chunks ? 0 : -ENOMEM;
}

const char *mcs_strpool_move(struct mcs_strpool *fresh, const char *s)
{
	struct mcs_chunk *c = fresh->chunks;
	size_t len = strlen(s) + 1;
	char *p = c->data + c->used;

	memcpy(p, s, len);
	c->used += len;
	fresh->live += len;
	return p;
}

void mcs_strpool_pack_end(struct mcs_strpool *pool, struct mcs_strpool *fresh)
{
	mcs_strpool_free(pool);
	*pool = *fresh;
}

struct mcs_strpool *mcs_strpool_new(void)
{
	struct mcs_strpool *pool = calloc(1, sizeof(*pool));

	if (pool)
		pool->refs = 1;
	return pool;
}

void mcs_strpool_get(struct mcs_strpool *pool)
{
	__atomic_add_fetch(&pool->refs, 1, __ATOMIC_RELAXED);
}

/* Atomic: a result may be freed on another thread than its handle's. */
void mcs_strpool_put(struct mcs_strpool *pool)
{
	if (pool && !__atomic_sub_fetch(&pool->refs, 1, __ATOMIC_ACQ_REL)) {
		mcs_strpool_free(pool);
		free(pool);
	}
}

void mcs_strpool_free(struct mcs_strpool *pool)
{
	struct mcs_chunk *c, *next;

	for (c = pool->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	pool->chunks = NULL;
	pool->live = pool->dead = 0;
}
