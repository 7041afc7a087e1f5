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
#include "cgroup_id.h"
#include "handle.h"
#include "hierarchy.h"
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

int mcs_read_ids_by_path(struct memcgstat *h, const uint64_t *ids, size_t nr,
			 struct memcgstat_result *res)
{
	char buf[PATH_MAX], *abs;
	bool rescanned = false;
	uint64_t *vals;
	size_t i;
	int err = 0, fd, why;

	for (i = 0; !err && i < nr; i++) {
		vals = mcs_result_add(res, ids[i], NULL);
		if (!vals)
			return mcs_set_err(h, -ENOMEM, "out of memory");
		fd = mcs_open_id(h, ids[i], NULL, O_RDONLY, buf, sizeof(buf), &abs, &rescanned);
		err = fd < 0 ? fd : h->ops->read_path(h, fd, abs, vals);
		/* no memory.stat: removed, or a v2 cgroup without memcg (-ENODATA) */
		why = err == -ENOENT && fd >= 0 ? mcs_memcg_check(h, fd, abs, abs) : 0;
		if (why)
			err = why;
		if (fd >= 0) {
			close(fd);
			mcs_abs_free(abs, buf);
		}
		if (err == -ENOENT || err == -ENODATA || err == -EACCES) {
			/*
			 * gone, no memory controller, or not to be read (its
			 * files, or a directory on the way or that a scan for
			 * it skipped): a row status, not an error, as a
			 * snapshot's rows below its top
			 */
			h->err[0] = '\0';
			mcs_result_set_status(res, memcgstat_result_count(res) - 1, err);
			err = 0;
		}
	}
	return err;
}
