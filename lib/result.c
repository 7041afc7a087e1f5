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
	uint64_t sig;			/* its handle's columns: mcs_cols_sig() */
	/*
	 * Rows 0 .. kept - 1 hold paths (or NULL) stored by an earlier read
	 * into this result; kept == count between reads. A read into the
	 * result starts from count 0 and reuses them (mcs_result_reuse).
	 */
	size_t kept;
	uint64_t *ids;
	const char **paths;		/* in @pool or a held pool, or NULL */
	bool *lent;			/* the path is in a held pool */
	uint64_t *values;		/* count * nr_cols */
	int *status;
	struct mcs_strpool pool;	/* packed at the end of a read */
	/*
	 * The shared pools that lent rows their paths (the handle's path
	 * cache: no copy a row), a reference each. More than one at the end
	 * of a read (the handle packed or dropped its cache meanwhile): the
	 * lent paths are copied into @pool and the pools let go, so that a
	 * result read into again holds no more than one of them.
	 */
	struct mcs_strpool **held;
	size_t nr_held, held_cap;
};

/* Row @i's path let go (its own, or lent). */
static void drop_path(struct memcgstat_result *res, size_t i)
{
	if (!res->lent[i])
		mcs_strpool_drop(&res->pool, res->paths[i]);
	res->paths[i] = NULL;
	res->lent[i] = false;
}

static void let_go_held(struct memcgstat_result *res)
{
	while (res->nr_held)
		mcs_strpool_put(res->held[--res->nr_held]);
	free(res->held);
	res->held = NULL;
	res->held_cap = 0;
}

/*
 * The live paths (rows 0 .. count - 1) into one chunk of @pool, if there
 * is memory: its own, and with @lent those lent too (the held pools then
 * let go).
 */
static void pack(struct memcgstat_result *res, bool lent)
{
	struct mcs_strpool fresh;
	size_t i, bytes = res->pool.live;

	for (i = 0; lent && i < res->count; i++)
		if (res->lent[i])
			bytes += strlen(res->paths[i]) + 1;
	if (mcs_strpool_pack_start(&fresh, bytes))
		return;		/* still correct, only larger */
	for (i = 0; i < res->count; i++) {
		if (!res->paths[i] || (res->lent[i] && !lent))
			continue;
		res->paths[i] = mcs_strpool_move(&fresh, res->paths[i]);
		res->lent[i] = false;
	}
	mcs_strpool_pack_end(&res->pool, &fresh);
	if (lent)
		let_go_held(res);
}

struct memcgstat_result *mcs_result_new(size_t nr_cols, uint64_t sig)
{
	struct memcgstat_result *res = calloc(1, sizeof(*res));

	if (res) {
		res->nr_cols = nr_cols;
		res->sig = sig;
	}
	return res;
}

uint64_t mcs_result_sig(const struct memcgstat_result *res)
{
	return res->sig;
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

/* The arrays of the rows, which grow_to() sizes together. */
static void free_rows(struct memcgstat_result *res)
{
	free(res->ids);
	free(res->paths);
	free(res->lent);
	free(res->values);
	free(res->status);
}

static int grow_to(struct memcgstat_result *res, size_t cap)
{
	if (resize(&res->ids, cap, sizeof(*res->ids)) ||
	    resize(&res->paths, cap, sizeof(*res->paths)) ||
	    resize(&res->lent, cap, sizeof(*res->lent)) ||
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

	for (i = res->count; i < res->kept; i++)
		drop_path(res, i);
	res->kept = res->count;
	if (res->nr_held > 1 || mcs_strpool_wants_pack(&res->pool))
		pack(res, res->nr_held > 1);
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

/* The next row, of cgroup @id at @path (in the result's pool, or @lent). */
static uint64_t *put_row(struct memcgstat_result *res, uint64_t id, const char *path, bool lent)
{
	size_t i = res->count;

	if (i < res->kept)
		drop_path(res, i);
	else
		res->kept = i + 1;
	res->paths[i] = path;
	res->lent[i] = lent;
	res->ids[i] = id;
	res->status[i] = 0;
	res->count++;
	return &res->values[i * res->nr_cols];
}

uint64_t *mcs_result_add_len(struct memcgstat_result *res, uint64_t id, const char *path,
			     size_t len)
{
	const char *copy = NULL;

	if (res->count == res->cap && grow(res))
		return NULL;
	if (path) {
		copy = mcs_strpool_add(&res->pool, path, len);
		if (!copy)
			return NULL;
	}
	return put_row(res, id, copy, false);
}

/* A reference to @pool, unless the result has one. */
static int hold(struct memcgstat_result *res, struct mcs_strpool *pool)
{
	struct mcs_strpool **n;
	size_t i;

	for (i = res->nr_held; i--;)
		if (res->held[i] == pool)
			return 0;
	if (res->nr_held == res->held_cap) {
		n = realloc(res->held, (res->held_cap + 2) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		res->held = n;
		res->held_cap += 2;
	}
	mcs_strpool_get(pool);
	res->held[res->nr_held++] = pool;
	return 0;
}

uint64_t *mcs_result_add_lent(struct memcgstat_result *res, uint64_t id, const char *path,
			      struct mcs_strpool *pool)
{
	if ((res->count == res->cap && grow(res)) || hold(res, pool))
		return NULL;
	return put_row(res, id, path, true);
}

uint64_t *mcs_result_add(struct memcgstat_result *res, uint64_t id, const char *path)
{
	uint64_t *vals = mcs_result_add_raw(res, id, path);
	size_t i;

	for (i = 0; vals && i < res->nr_cols; i++)
		vals[i] = MEMCGSTAT_NA;
	return vals;
}

uint64_t *mcs_result_add_lent_rows(struct memcgstat_result *res, size_t n, const void *ids,
				   size_t stride, const char *const *paths,
				   struct mcs_strpool *pool)
{
	size_t i, first = res->count;

	if (mcs_result_reserve(res, n) || hold(res, pool))
		return NULL;
	for (i = first; i < res->kept && i < first + n; i++)
		drop_path(res, i);
	for (i = 0; i < n; i++)
		memcpy(&res->ids[first + i], (const char *)ids + i * stride, sizeof(*res->ids));
	memcpy(&res->paths[first], paths, n * sizeof(*paths));
	memset(&res->lent[first], 1, n * sizeof(*res->lent));
	memset(&res->status[first], 0, n * sizeof(*res->status));
	res->count += n;
	if (res->kept < res->count)
		res->kept = res->count;
	return &res->values[first * res->nr_cols];
}

void mcs_result_drop_last(struct memcgstat_result *res)
{
	if (!res->count)
		return;
	res->count--;
	drop_path(res, res->count);
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
	let_go_held(res);
	free_rows(res);
	free(res);
}
