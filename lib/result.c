// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Results: one row per cgroup, nr_cols values each, in one array. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "memcgstat.h"
#include "result.h"

struct memcgstat_result {
	size_t count, cap, nr_cols;
	uint64_t *ids;
	char **paths;
	uint64_t *values;		/* count * nr_cols */
	int *status;
};

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

static int grow(struct memcgstat_result *res)
{
	size_t cap = res->cap ? res->cap * 2 : 16;

	if (resize(&res->ids, cap, sizeof(*res->ids)) ||
	    resize(&res->paths, cap, sizeof(*res->paths)) ||
	    resize(&res->values, cap, res->nr_cols * sizeof(*res->values)) ||
	    resize(&res->status, cap, sizeof(*res->status)))
		return -ENOMEM;
	res->cap = cap;
	return 0;
}

uint64_t *mcs_result_add(struct memcgstat_result *res, uint64_t id, const char *path)
{
	uint64_t *vals;
	size_t i;

	if (res->count == res->cap && grow(res))
		return NULL;
	res->paths[res->count] = path ? strdup(path) : NULL;
	if (path && !res->paths[res->count])
		return NULL;
	res->ids[res->count] = id;
	res->status[res->count] = 0;
	vals = &res->values[res->count * res->nr_cols];
	for (i = 0; i < res->nr_cols; i++)
		vals[i] = MEMCGSTAT_NA;
	res->count++;
	return vals;
}

void mcs_result_drop_last(struct memcgstat_result *res)
{
	if (res->count)
		free(res->paths[--res->count]);
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
	size_t i;

	if (!res)
		return;
	for (i = 0; i < res->count; i++)
		free(res->paths[i]);
	free(res->paths);
	free(res->status);
	free(res->ids);
	free(res->values);
	free(res);
}
