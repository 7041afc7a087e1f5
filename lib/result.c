// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Results: one row per cgroup, nr_cols values each, in one array. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "memcgstat.h"
#include "result.h"

/*
 * The rows' paths, packed into chunks the result owns: no allocation per
 * row (a first snapshot of 10,001 cgroups made one malloc() and one free()
 * per path). A path a row no longer holds is dead space until dead space
 * outgrows the live paths; the end of a read then packs the live ones into
 * one new chunk.
 */
struct chunk {
	struct chunk *next;
	size_t used, cap;
	char data[];
};

#define CHUNK_MIN	1024
#define CHUNK_MAX	(1 << 20)

struct memcgstat_result {
	size_t count, cap, nr_cols;
	/*
	 * Rows 0 .. kept - 1 hold paths (or NULL) stored by an earlier read
	 * into this result; kept == count between reads. A read into the
	 * result starts from count 0 and reuses them (mcs_result_reuse).
	 */
	size_t kept;
	uint64_t *ids;
	const char **paths;		/* into chunks, or NULL */
	uint64_t *values;		/* count * nr_cols */
	int *status;
	struct chunk *chunks;		/* the newest first */
	size_t live, dead;		/* bytes of paths held and let go */
};

static void free_chunks(struct chunk *c)
{
	struct chunk *next;

	for (; c; c = next) {
		next = c->next;
		free(c);
	}
}

/* A copy of @path in the chunks; NULL without memory. */
static const char *store(struct memcgstat_result *res, const char *path)
{
	size_t len = strlen(path) + 1, cap;
	struct chunk *c = res->chunks;
	char *p;

	if (!c || c->cap - c->used < len) {
		cap = c ? 2 * c->cap : CHUNK_MIN;
		if (cap > CHUNK_MAX)
			cap = CHUNK_MAX;
		if (cap < len)
			cap = len;
		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		c->next = res->chunks;
		res->chunks = c;
	}
	p = memcpy(c->data + c->used, path, len);
	c->used += len;
	res->live += len;
	return p;
}

static void let_go(struct memcgstat_result *res, const char *path)
{
	size_t len = path ? strlen(path) + 1 : 0;

	res->live -= len;
	res->dead += len;
}

/* The live paths (rows 0 .. count - 1) into one chunk, if there is memory. */
static void pack(struct memcgstat_result *res)
{
	struct chunk *old = res->chunks, *c;
	size_t i, len;

	c = malloc(sizeof(*c) + (res->live ? res->live : 1));
	if (!c)
		return;		/* still correct, only larger */
	c->next = NULL;
	c->used = 0;
	c->cap = res->live ? res->live : 1;
	for (i = 0; i < res->count; i++) {
		if (!res->paths[i])
			continue;
		len = strlen(res->paths[i]) + 1;
		res->paths[i] = memcpy(c->data + c->used, res->paths[i], len);
		c->used += len;
	}
	free_chunks(old);
	res->chunks = c;
	res->dead = 0;
}

struct memcgstat_result *mcs_result_new(size_t nr_cols)
{
	struct memcgstat_result *res = calloc(1, sizeof(*res));

	if (res)
		res->nr_cols = nr_cols;
	return res;
}

/* @p (an array of @size-byte elements) with room for @cap of them. */
static int resize(void *p, size_t cap, size_t size)
{
	void *n = realloc(*(void **)p, cap * size);

	if (!n)
		return -ENOMEM;
	*(void **)p = n;
	return 0;
}

static int grow_to(struct memcgstat_result *res, size_t cap)
{
	if (resize(&res->ids, cap, sizeof(*res->ids)) ||
	    resize(&res->paths, cap, sizeof(*res->paths)) ||
	    resize(&res->values, cap, res->nr_cols * sizeof(*res->values)) ||
	    resize(&res->status, cap, sizeof(*res->status)))
		return -ENOMEM;
	res->cap = cap;
	return 0;
}

static int grow(struct memcgstat_result *res)
{
	return grow_to(res, res->cap ? res->cap * 2 : 16);
}

int mcs_result_reserve(struct memcgstat_result *res, size_t n)
{
	return res->count + n > res->cap ? grow_to(res, res->count + n) : 0;
}

size_t mcs_result_nr_cols(const struct memcgstat_result *res)
{
	return res->nr_cols;
}

void mcs_result_reset(struct memcgstat_result *res)
{
	if (res->count > res->kept)
		res->kept = res->count;
	res->count = 0;
}

void mcs_result_trim(struct memcgstat_result *res)
{
	size_t i;

	for (i = res->count; i < res->kept; i++) {
		let_go(res, res->paths[i]);
		res->paths[i] = NULL;
	}
	res->kept = res->count;
	if (res->dead > res->live && res->dead >= CHUNK_MIN)
		pack(res);
}

uint64_t *mcs_result_reuse(struct memcgstat_result *res, uint64_t id, const char *path)
{
	size_t i = res->count;

	if (i >= res->kept || res->ids[i] != id || !res->paths[i] ||
	    (path && strcmp(path, res->paths[i])))
		return NULL;
	res->status[i] = 0;
	res->count++;
	return &res->values[i * res->nr_cols];
}

uint64_t *mcs_result_add_raw(struct memcgstat_result *res, uint64_t id, const char *path)
{
	size_t i = res->count;
	const char *copy = NULL;

	if (i == res->cap && grow(res))
		return NULL;
	if (path) {
		copy = store(res, path);
		if (!copy)
			return NULL;
	}
	if (i < res->kept)
		let_go(res, res->paths[i]);
	else
		res->kept = i + 1;
	res->paths[i] = copy;
	res->ids[i] = id;
	res->status[i] = 0;
	res->count++;
	return &res->values[i * res->nr_cols];
}

uint64_t *mcs_result_add(struct memcgstat_result *res, uint64_t id, const char *path)
{
	uint64_t *vals = mcs_result_add_raw(res, id, path);
	size_t i;

	for (i = 0; vals && i < res->nr_cols; i++)
		vals[i] = MEMCGSTAT_NA;
	return vals;
}

void mcs_result_drop_last(struct memcgstat_result *res)
{
	if (!res->count)
		return;
	res->count--;
	let_go(res, res->paths[res->count]);
	res->paths[res->count] = NULL;
}

uint64_t *mcs_result_row(struct memcgstat_result *res, size_t i)
{
	return &res->values[i * res->nr_cols];
}

void mcs_result_set_status(struct memcgstat_result *res, size_t i, int status)
{
	size_t c;

	res->status[i] = status;
	for (c = 0; c < res->nr_cols; c++)
		res->values[i * res->nr_cols + c] = MEMCGSTAT_NA;
}

size_t memcgstat_result_count(const struct memcgstat_result *res)
{
	return res ? res->count : 0;
}

/* Every accessor takes a NULL result, as a result of no rows. */
const char *memcgstat_result_path(const struct memcgstat_result *res, size_t i)
{
	return res && i < res->count ? res->paths[i] : NULL;
}

uint64_t memcgstat_result_id(const struct memcgstat_result *res, size_t i)
{
	return res && i < res->count ? res->ids[i] : 0;
}

const uint64_t *memcgstat_result_values(const struct memcgstat_result *res, size_t i)
{
	return res && i < res->count ? &res->values[i * res->nr_cols] : NULL;
}

int memcgstat_result_status(const struct memcgstat_result *res, size_t i)
{
	return res && i < res->count ? res->status[i] : -EINVAL;
}

void memcgstat_result_free(struct memcgstat_result *res)
{
	if (!res)
		return;
	mcs_result_reset(res);
	free_chunks(res->chunks);
	free(res->paths);
	free(res->status);
	free(res->ids);
	free(res->values);
	free(res);
}
