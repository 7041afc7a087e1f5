// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Reads: one cgroup by path, a subtree, a list of ids. The front end checks
 * the arguments and hands each read to the backend; where a backend has no
 * way of its own, it reads by path (by_path.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "handle.h"
#include "hierarchy.h"
#include "path_cache.h"
#include "result.h"
#include "by_path.h"

int memcgstat_cgroup_open(struct memcgstat *h, const char *cgroup)
{
	char buf[PATH_MAX], *abs = NULL;
	int fd;

	h->err[0] = '\0';
	fd = mcs_cgroup_abs(h, cgroup, buf, sizeof(buf), &abs);
	if (!fd) {
		fd = mcs_openat_long(AT_FDCWD, abs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			mcs_set_err(h, fd, "cgroup %s: %s (%s)", cgroup, strerror(-fd), abs);
	}
	mcs_abs_free(abs, buf);
	return fd;
}

struct memcgstat_result *memcgstat_result_new(const struct memcgstat *h)
{
	return h ? mcs_result_new(h->nr_cols, h->cols_sig) : NULL;
}

/* Whether @res can take a read of @h; if not, why in h's error. */
static int start_into(struct memcgstat *h, struct memcgstat_result *res)
{
	h->err[0] = '\0';
	h->path_gen++;
	mcs_paths_pack(h);
	if (!res)
		return mcs_set_err(h, -EINVAL, "no result to read into");
	if (mcs_result_nr_cols(res) != h->nr_cols)
		return mcs_set_err(h, -EINVAL,
				   "result has %zu columns, the handle %zu: made for another handle",
				   mcs_result_nr_cols(res), h->nr_cols);
	if (mcs_result_sig(res) != h->cols_sig)
		return mcs_set_err(h, -EINVAL,
				   "result has other columns than the handle: made for another handle");
	mcs_result_reset(res);
	return 0;
}

/* A read into @res is over: on failure it has no rows. */
static int end_into(struct memcgstat_result *res, int err)
{
	if (err)
		mcs_result_reset(res);
	mcs_result_trim(res);
	return err;
}

int memcgstat_read_into(struct memcgstat *h, const char *cgroup,
			struct memcgstat_result *res)
{
	char buf[PATH_MAX], *abs = NULL;
	int err = start_into(h, res);

	if (!err)
		err = mcs_cgroup_abs(h, cgroup, buf, sizeof(buf), &abs);
	if (!err)
		err = mcs_auto_decide(h, -1, 1);
	if (!err)
		err = (h->ops->read ? h->ops->read : mcs_read_checked)(h, cgroup, abs, res);
	mcs_abs_free(abs, buf);
	return res ? end_into(res, err) : err;
}

/*
 * A snapshot's top, where it is wanted, is its first row (pre-order). A
 * top removed while the backend read it (its files gone, or cgroup_iter
 * passing it over dead) leaves no row: that is a cgroup gone, as it would
 * be had it gone before the read, not an empty tree. Where @ids leave the
 * top out, an empty result asks its directory @fd: cgroup.procs is gone
 * with the cgroup.
 */
static int top_read(struct memcgstat *h, const char *cgroup, const char *abs, int fd,
		    uint64_t id, const uint64_t *ids, size_t nr_ids,
		    const struct memcgstat_result *res)
{
	size_t i;

	if (memcgstat_result_count(res) && memcgstat_result_id(res, 0) == id)
		return 0;
	for (i = 0; ids && i < nr_ids && ids[i] != id; i++)
		;
	if (ids && i == nr_ids &&	/* not wanted */
	    (memcgstat_result_count(res) || !faccessat(fd, "cgroup.procs", F_OK, 0) ||
	     errno != ENOENT))
		return 0;
	return mcs_set_err(h, -ENOENT, "cgroup %s: removed while read (%s)", cgroup, abs);
}

int memcgstat_snapshot_into(struct memcgstat *h, const char *cgroup,
			    const uint64_t *ids, size_t nr_ids,
			    struct memcgstat_result *res)
{
	char buf[PATH_MAX], *abs = NULL;
	uint64_t id = 0;
	int err = start_into(h, res), fd;

	if (!err && nr_ids && !ids)
		err = mcs_set_err(h, -EINVAL, "nr_ids without ids");
	if (!err)
		err = mcs_cgroup_abs(h, cgroup, buf, sizeof(buf), &abs);
	if (!err) {
		fd = mcs_cgroup_check(h, cgroup, abs, &id);
		err = fd < 0 ? fd : mcs_auto_decide(h, fd, 0);
		if (!err)
			err = h->ops->snapshot(h, fd, abs, ids, nr_ids, res);
		if (!err)
			err = top_read(h, cgroup, abs, fd, id, ids, nr_ids, res);
		if (fd >= 0)
			close(fd);
	}
	mcs_abs_free(abs, buf);
	return res ? end_into(res, err) : err;
}

int memcgstat_read_ids_into(struct memcgstat *h, const uint64_t *ids, size_t nr_ids,
			    struct memcgstat_result *res)
{
	int err = start_into(h, res);

	if (!err && nr_ids && !ids)
		err = mcs_set_err(h, -EINVAL, "nr_ids without ids");
	if (!err && nr_ids > MEMCGSTAT_MAX_BATCH)
		err = mcs_set_err(h, -E2BIG, "%zu cgroup ids: at most %d per read (split the list)",
				  nr_ids, MEMCGSTAT_MAX_BATCH);
	if (!err)
		err = mcs_auto_decide(h, -1, nr_ids);
	if (!err)
		err = (h->ops->read_ids ? h->ops->read_ids : mcs_read_ids_by_path)(h, ids, nr_ids, res);
	return res ? end_into(res, err) : err;
}

/* Hand the new result @res to the caller, or free it on failure. */
static int into_new(struct memcgstat_result **out, int err, struct memcgstat_result *res)
{
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
	struct memcgstat_result *res = memcgstat_result_new(h);

	*out = NULL;
	if (!res)
		return mcs_set_err(h, -ENOMEM, "out of memory");
	return into_new(out, memcgstat_read_into(h, cgroup, res), res);
}

int memcgstat_snapshot(struct memcgstat *h, const char *cgroup,
		       const uint64_t *ids, size_t nr_ids,
		       struct memcgstat_result **out)
{
	struct memcgstat_result *res = memcgstat_result_new(h);

	*out = NULL;
	if (!res)
		return mcs_set_err(h, -ENOMEM, "out of memory");
	return into_new(out, memcgstat_snapshot_into(h, cgroup, ids, nr_ids, res), res);
}

int memcgstat_read_ids(struct memcgstat *h, const uint64_t *ids, size_t nr_ids,
		       struct memcgstat_result **out)
{
	struct memcgstat_result *res = memcgstat_result_new(h);

	*out = NULL;
	if (!res)
		return mcs_set_err(h, -ENOMEM, "out of memory");
	return into_new(out, memcgstat_read_ids_into(h, ids, nr_ids, res), res);
}
