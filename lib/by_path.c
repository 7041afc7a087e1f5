// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Reads by path, one cgroup at a time, with the backend's read_path: what a
 * backend without a read or read_ids of its own gets, and what the bpf
 * backend takes on cgroup v1 and for one cgroup on the iterator path.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "by_path.h"
#include "handle.h"
#include "hierarchy.h"
#include "path_cache.h"
#include "result.h"

int mcs_read_checked(struct memcgstat *h, const char *cgroup, const char *abs,
		     struct memcgstat_result *res)
{
	uint64_t *vals, id;
	size_t i;
	int fd, err;

	fd = mcs_cgroup_check(h, cgroup, abs, &id);
	if (fd < 0)
		return fd;
	vals = mcs_result_reuse(res, id, mcs_rel_path(h, abs));
	for (i = 0; vals && i < h->nr_cols; i++)
		vals[i] = MEMCGSTAT_NA;
	if (!vals)
		vals = mcs_result_add(res, id, mcs_rel_path(h, abs));
	err = vals ? h->ops->read_path(h, fd, abs, vals) : mcs_set_err(h, -ENOMEM, "out of memory");
	close(fd);
	return err;
}

/* The cgroup at the cached path @rel (below the root), read by path. */
static int read_rel(struct memcgstat *h, const char *rel, uint64_t *vals)
{
	char buf[PATH_MAX], *abs = mcs_join(h->root, rel, buf, sizeof(buf));
	int fd, err;

	if (!abs)
		return mcs_set_err(h, -ENOMEM, "out of memory");
	fd = mcs_openat_long(AT_FDCWD, abs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		err = fd == -ENOENT ? fd : mcs_set_err(h, fd, "cannot open cgroup %s: %s",
							abs, strerror(-fd));
	else
		err = h->ops->read_path(h, fd, abs, vals);
	if (fd >= 0)
		close(fd);
	mcs_abs_free(abs, buf);
	return err;
}

int mcs_read_ids_by_path(struct memcgstat *h, const uint64_t *ids, size_t nr,
			 struct memcgstat_result *res)
{
	bool rescanned = false;
	const char *rel;
	uint64_t *vals;
	size_t i;
	int err = 0;

	for (i = 0; !err && i < nr; i++) {
		vals = mcs_result_add(res, ids[i], NULL);
		if (!vals)
			return mcs_set_err(h, -ENOMEM, "out of memory");
		rel = mcs_path_of(h, h->root, ids[i], &rescanned, &err);
		if (err)
			return mcs_set_err(h, err, "out of memory");
		err = rel ? read_rel(h, rel, vals) : -ENOENT;
		if (err == -ENOENT && rel && !rescanned && h->version == 1) {
			/*
			 * renamed, or removed: a scan tells. Not on v2, which
			 * refuses rename(2): a removed id read again and again
			 * would cost a scan each time, not an open
			 */
			rel = mcs_path_again(h, h->root, ids[i], &rescanned, &err);
			if (err)
				return mcs_set_err(h, err, "out of memory");
			err = rel ? read_rel(h, rel, vals) : -ENOENT;
		}
		if (err == -ENOENT || err == -ENODATA) {
			/* gone, or no memory controller: a row status, not an error */
			h->err[0] = '\0';
			mcs_result_set_status(res, memcgstat_result_count(res) - 1, err);
			err = 0;
		}
	}
	return err;
}
