// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Reads: one cgroup by path, a subtree, a list of ids. The front end checks
 * the arguments and hands each read to the backend; where a backend has no
 * way of its own, it reads by path, one cgroup at a time, with the
 * backend's read_path.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "handle.h"
#include "hierarchy.h"
#include "result.h"

int mcs_read_checked(struct memcgstat *h, const char *cgroup, const char *abs,
		     struct memcgstat_result *res)
{
	char buf[PATH_MAX];
	uint64_t *vals, id;
	int err;

	(void)abs;	/* checked again, with the file system */
	err = mcs_cgroup_check(h, cgroup, buf, sizeof(buf), &id);
	if (err)
		return err;
	vals = mcs_result_add(res, id, mcs_rel_path(h, buf));
	if (!vals)
		return mcs_set_err(h, -ENOMEM, "out of memory");
	return h->ops->read_path(h, buf, vals);
}

int mcs_read_ids_by_path(struct memcgstat *h, const uint64_t *ids, size_t nr,
			 struct memcgstat_result *res)
{
	char abs[PATH_MAX];
	bool rescanned = false;
	const char *rel;
	uint64_t *vals;
	size_t i;
	int err;

	for (i = 0; i < nr; i++) {
		vals = mcs_result_add(res, ids[i], NULL);
		if (!vals)
			return mcs_set_err(h, -ENOMEM, "out of memory");
		rel = mcs_path_of(h, h->root, ids[i], &rescanned, &err);
		if (err)
			return mcs_set_err(h, err, "out of memory");
		if (!rel) {
			err = -ENOENT;
		} else {
			snprintf(abs, sizeof(abs), "%s%s", h->root, strcmp(rel, "/") ? rel : "");
			err = h->ops->read_path(h, abs, vals);
		}
		if (err == -ENOENT || err == -ENODATA) {
			/* gone, or no memory controller: a row status, not an error */
			h->err[0] = '\0';
			mcs_result_set_status(res, memcgstat_result_count(res) - 1, err);
		} else if (err) {
			return err;
		}
	}
	return 0;
}

/* Hand @res to the caller, or free it and return the error. */
static int finish(struct memcgstat *h, struct memcgstat_result *res, int err,
		  struct memcgstat_result **out)
{
	if (!err && !res)
		err = mcs_set_err(h, -ENOMEM, "out of memory");
	if (err) {
		memcgstat_result_free(res);
		return err;
	}
	*out = res;
	return 0;
}

int memcgstat_read(struct memcgstat *h, const char *cgroup,
		   struct memcgstat_result **out)
{
	struct memcgstat_result *res;
	char abs[PATH_MAX];
	int err;

	*out = NULL;
	h->err[0] = '\0';
	err = mcs_cgroup_abs(h, cgroup, abs, sizeof(abs));
	if (err)
		return err;
	res = mcs_result_new(h->nr_cols);
	if (res)
		err = (h->ops->read ? h->ops->read : mcs_read_checked)(h, cgroup, abs, res);
	return finish(h, res, err, out);
}

int memcgstat_snapshot(struct memcgstat *h, const char *cgroup,
		       const uint64_t *ids, size_t nr_ids,
		       struct memcgstat_result **out)
{
	struct memcgstat_result *res;
	char abs[PATH_MAX];
	uint64_t id;
	int err;

	*out = NULL;
	h->err[0] = '\0';
	if (nr_ids && !ids)
		return mcs_set_err(h, -EINVAL, "nr_ids without ids");
	err = mcs_cgroup_check(h, cgroup, abs, sizeof(abs), &id);
	if (err)
		return err;
	res = mcs_result_new(h->nr_cols);
	if (res)
		err = h->ops->snapshot(h, abs, ids, nr_ids, res);
	return finish(h, res, err, out);
}

int memcgstat_read_ids(struct memcgstat *h, const uint64_t *ids, size_t nr_ids,
		       struct memcgstat_result **out)
{
	struct memcgstat_result *res;
	int err = 0;

	*out = NULL;
	h->err[0] = '\0';
	if (nr_ids && !ids)
		return mcs_set_err(h, -EINVAL, "nr_ids without ids");
	if (nr_ids > MEMCGSTAT_MAX_BATCH)
		return mcs_set_err(h, -E2BIG, "%zu cgroup ids: at most %d per read (split the list)",
				   nr_ids, MEMCGSTAT_MAX_BATCH);
	res = mcs_result_new(h->nr_cols);
	if (res)
		err = (h->ops->read_ids ? h->ops->read_ids : mcs_read_ids_by_path)(h, ids, nr_ids, res);
	return finish(h, res, err, out);
}
