/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Building results: what backends fill, what memcgstat_result_*() read. */
#ifndef __MEMCGSTAT_RESULT_H
#define __MEMCGSTAT_RESULT_H

#include <stddef.h>
#include <stdint.h>

struct memcgstat_result;

/* @sig: which columns (mcs_cols_sig()), for a read into it to check */
struct memcgstat_result *mcs_result_new(size_t nr_cols, uint64_t sig);
size_t mcs_result_nr_cols(const struct memcgstat_result *res);
uint64_t mcs_result_sig(const struct memcgstat_result *res);
/*
 * A read into an existing result: reset it to no rows, keeping its memory
 * and the paths of its rows for mcs_result_reuse(); trim it when done,
 * which frees the paths no row took again.
 */
void mcs_result_reset(struct memcgstat_result *res);
void mcs_result_trim(struct memcgstat_result *res);
/*
 * Append the row the last read had at this position, path and all, if it
 * was of the cgroup @id (at @path, unless NULL): no allocation, no path
 * lookup. Its values, for the caller to fill all of; NULL if the row was
 * another cgroup's.
 */
uint64_t *mcs_result_reuse(struct memcgstat_result *res, uint64_t id, const char *path);
/* Room for @n more rows: 0 or -ENOMEM. */
int mcs_result_reserve(struct memcgstat_result *res, size_t n);
/* Append a row, status 0; its values (NA-filled), or NULL without memory. */
uint64_t *mcs_result_add(struct memcgstat_result *res, uint64_t id,
			 const char *path);
/* The same, values not filled: for callers that write every one. */
uint64_t *mcs_result_add_raw(struct memcgstat_result *res, uint64_t id,
			     const char *path);
/* The same with strlen(@path) known. */
uint64_t *mcs_result_add_len(struct memcgstat_result *res, uint64_t id,
			     const char *path, size_t len);
/*
 * The same with @path lent by the shared @pool it is in (strpool.h), not
 * copied: the result holds a reference to @pool while it has such rows.
 */
struct mcs_strpool;
uint64_t *mcs_result_add_lent(struct memcgstat_result *res, uint64_t id,
			      const char *path, struct mcs_strpool *pool);
/*
 * @n rows at once, each as mcs_result_add_lent() makes one: cgroup i's id
 * the u64 at @ids + i * @stride, its path @paths[i] (none NULL). Their
 * values, row after row (mcs_result_nr_cols() a row), for the caller to
 * fill all of; NULL without memory.
 */
uint64_t *mcs_result_add_lent_rows(struct memcgstat_result *res, size_t n, const void *ids,
				   size_t stride, const char *const *paths,
				   struct mcs_strpool *pool);
/* Take the last row back (its cgroup went away while it was read). */
void mcs_result_drop_last(struct memcgstat_result *res);
/* Row @i's values, to fill. */
uint64_t *mcs_result_row(struct memcgstat_result *res, size_t i);
/* Mark row @i -ENOENT (no such cgroup) or -ENODATA (no memcg): values NA. */
void mcs_result_set_status(struct memcgstat_result *res, size_t i, int status);

#endif /* __MEMCGSTAT_RESULT_H */
