// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Results: one row per cgroup, nr_cols values each, in one array. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "memcgstat.h"
#include "result.h"
#include "strpool.h"

struct memcgstat_result {
	size_t count, cap, nr_cols;
	/*
	 * Rows 0 .. kept - 1 hold paths (or NULL) stored by an earlier read
	 * into this result; kept == count between reads. A read into the
	 * result starts from count 0 and reuses them (mcs_result_reuse).
	 */
	size_t kept;
	uint64_t *ids;
	const char **paths;		/* in @pool, or NULL */
	uint64_t *values;		/* count * nr_cols */
	int *status;
	struct mcs_strpool pool;	/* packed at the end of a read */
};

/* The live paths (rows 0 .. count - 1) into one chunk, if there is memory. */
static void pack(struct memcgstat_result *res)
{
	struct mcs_strpool fresh;
	size_t i;

	if (mcs_strpool_pack_start(&res->pool, &fresh))
		return;		/* still correct, only larger */
	for (i = 0; i < res->count; i++)
		if (res->paths[i])
			res->paths[i] = mcs_strpool_move(&fresh, res->paths[i]);
	mcs_strpool_pack_end(&res->pool, &fresh);
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
		mcs_strpool_drop(&res->pool, res->paths[i]);
		res->paths[i] = NULL;
	}
	res->kept = res->count;
	if (mcs_strpool_wants_pack(&res->pool))
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
	return mcs_result_add_len(res, id, path, path ? strlen(path) : 0);
}

uint64_t *mcs_result_add_len(struct memcgstat_result *res, uint64_t id, const char *path,
			     size_t len)
{
	size_t i = res->count;
	const char *copy = NULL;

	if (i == res->cap && grow(res))
		return NULL;
	if (path) {
		copy = mcs_strpool_add(&res->pool, path, len);
		if (!copy)
			return NULL;
	}
	if (i < res->kept)
		mcs_strpool_drop(&res->pool, res->paths[i]);
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
	mcs_strpool_drop(&res->pool, res->paths[res->count]);
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
	mcs_strpool_free(&res->pool);
	free(res->paths);
	free(res->status);
	free(res->ids);
	free(res->values);
	free(res);
}
