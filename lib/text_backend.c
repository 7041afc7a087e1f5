// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The text backend: memory.stat, memory.current, memory.numa_stat and the
 * files of the stats of their own (memory.events, memory.max, cgroup.stat,
 * ...: the stat table's file) on cgroup v2; memory.stat,
 * memory.usage_in_bytes and the v1 files (memory.limit_in_bytes, ...) on
 * cgroup v1. Slow, but it works on every kernel.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/types.h>
#include "memcg_items.h"
#include "handle.h"
#include "hierarchy.h"
#include "path_cache.h"
#include "result.h"
#include "text_parse.h"
#include "cgroup_files.h"

struct fill {
	struct memcgstat *h;
	uint64_t *vals;
	int file;		/* which file: enum below */
	bool v1_keyed;		/* v1 memory.stat has columns of its own keys */
};

enum { F_STAT, F_NUMA };

/* Whether v1 memory.stat's keys of columns read from it (the limits) are. */
static bool v1_stat_keyed(const struct memcgstat *h)
{
	size_t i;

	for (i = 0; h->version == 1 && i < h->nr_cols; i++)
		if (h->cols[i].def->v1_file && !strcmp(h->cols[i].def->v1_file, "memory.stat"))
			return true;
	return false;
}

/*
 * A key of v1 memory.stat that is a column's of its own (the hierarchical
 * limits): read in the same pass as the counters, not the file again.
 */
static void v1_stat_key(struct memcgstat *h, const char *key, size_t keylen,
			unsigned long long val, uint64_t *vals)
{
	size_t i;

	for (i = 0; i < h->nr_cols; i++) {
		const struct mcs_stat_def *def = h->cols[i].def;

		if (!def->v1_file || strcmp(def->v1_file, "memory.stat") ||
		    !mcs_key_is(key, keylen, def->key))
			continue;
		vals[i] = def->conv == MCS_CONV_LIMIT && val == mcs_limit_max_bytes() ? MEMCGSTAT_MAX : val;
	}
}

static int fill_cb(const char *key, size_t keylen, int nid,
		   unsigned long long val, void *arg)
{
	struct fill *f = arg;
	struct memcgstat *h = f->h;
	bool local = h->flags & MEMCGSTAT_LOCAL;
	size_t i;

	if (h->version == 1) {
		bool total = keylen > 6 && !memcmp(key, "total_", 6);

		if (!total && f->v1_keyed)
			v1_stat_key(h, key, keylen, val, f->vals);

		if (total == local)
			return 0;
		if (total) {
			key += 6;
			keylen -= 6;
		}
	}
	for (i = 0; i < h->nr_cols; i++) {
		const struct mcs_stat_def *def = h->cols[i].def;
		const char *name = h->version == 1 ? def->v1_name : def->name;

		if (h->cols[i].nid != nid || def->src == MCS_SRC_WORKING_SET ||
		    mcs_def_has_file(def))
			continue;
		if (mcs_key_is(key, keylen, name))
			f->vals[i] = val;
	}
	return 0;
}

static int parse_into(struct memcgstat *h, int fd, const char *dir, const char *file,
		      int which, uint64_t *vals)
{
	struct fill f = { h, vals, which, which == F_STAT && v1_stat_keyed(h) };
	int err, line = 0;
	size_t len;
	char *buf;

	err = mcs_read_fileat(fd, file, &buf, &len);
	if (err)
		return err;
	if (which == F_NUMA)
		err = mcs_parse_numa(buf, len, fill_cb, &f, &line);
	else
		err = mcs_parse_flat(buf, len, fill_cb, &f, &line);
	free(buf);
	if (err == -EINVAL)
		return mcs_set_err(h, -EINVAL, "%s/%s: malformed line %d", dir, file, line);
	return err;
}

/* memory.current (v1: memory.usage_in_bytes); 1 if the file has none (v2 root). */
static int read_usage(struct memcgstat *h, int fd, const char *abs, uint64_t *usage)
{
	const char *file = h->version == 2 ? "memory.current" : "memory.usage_in_bytes";
	unsigned long long v;
	size_t len;
	char *buf;
	int err;

	/* v2's root has no memory.current */
	if (h->version == 2 && !strcmp(abs, h->root))
		return 1;
	err = mcs_read_fileat(fd, file, &buf, &len);
	if (err)
		return err;
	if (mcs_parse_value(buf, len, &v))
		err = mcs_set_err(h, -EINVAL, "%s/%s: not a number", abs, file);
	else
		*usage = v;
	free(buf);
	return err;
}

struct key_value {
	const char *key;
	uint64_t val;
};

static int key_value_cb(const char *key, size_t keylen, int nid,
			unsigned long long val, void *arg)
{
	struct key_value *kv = arg;

	(void)nid;
	if (mcs_key_is(key, keylen, kv->key))
		kv->val = val;
	return 0;
}

/*
 * working_set, as cAdvisor and the kubelet compute it: usage minus
 * inactive_file (v1: total_inactive_file), 0 if that is negative. Takes
 * inactive_file from its column when it has one, else memory.stat again.
 */
static int working_set(struct memcgstat *h, int fd, const char *abs, uint64_t *vals,
		       uint64_t usage)
{
	struct key_value kv = { h->version == 2 ? "inactive_file" : "total_inactive_file",
				MEMCGSTAT_NA };
	int col = memcgstat_column_index(h, "inactive_file", -1), err, line = 0;
	size_t len, i;
	char *buf;

	if (col >= 0 && !(h->flags & MEMCGSTAT_LOCAL)) {
		kv.val = vals[col];
	} else {
		err = mcs_read_fileat(fd, "memory.stat", &buf, &len);
		if (err)
			return err;
		err = mcs_parse_flat(buf, len, key_value_cb, &kv, &line);
		free(buf);
		if (err == -EINVAL)
			return mcs_set_err(h, -EINVAL, "%s/memory.stat: malformed line %d", abs, line);
	}
	for (i = 0; i < h->nr_cols; i++)
		if (h->cols[i].def->src == MCS_SRC_WORKING_SET && kv.val != MEMCGSTAT_NA)
			vals[i] = usage > kv.val ? usage - kv.val : 0;
	return 0;
}

static int text_read_path(struct memcgstat *h, int fd, const char *abs, uint64_t *vals)
{
	bool ws = mcs_cols_need(h, MCS_SRC_WORKING_SET);
	uint64_t usage = 0;
	size_t i;
	int err = 0;

	h->read_had_file = false;
	if (mcs_cols_need(h, MCS_SRC_PAGE_STATE) || mcs_cols_need(h, MCS_SRC_VM_EVENT)) {
		if (h->flags & MEMCGSTAT_NUMA)
			err = parse_into(h, fd, abs, "memory.numa_stat", F_NUMA, vals);
		else
			err = parse_into(h, fd, abs, "memory.stat", F_STAT, vals);
		h->read_had_file = !err;
	}
	if (!err)
		err = mcs_read_own_files(h, fd, abs, vals, false);
	if (!err && (mcs_cols_need(h, MCS_SRC_USAGE) || ws) && !(h->flags & MEMCGSTAT_LOCAL)) {
		err = read_usage(h, fd, abs, &usage);
		for (i = 0; !err && i < h->nr_cols; i++)
			if (h->cols[i].def->src == MCS_SRC_USAGE)
				vals[i] = usage;
		if (!err && ws)
			err = working_set(h, fd, abs, vals, usage);
		if (err > 0)	/* no usage here: NA */
			err = 0;
	}
	if (err && !h->err[0])
		mcs_set_err(h, err, "cannot read cgroup %s: %s", abs, strerror(-err));
	return err;
}

static bool id_wanted(uint64_t id, const uint64_t *ids, size_t nr_ids)
{
	size_t i;

	if (!ids)
		return true;
	for (i = 0; i < nr_ids; i++)
		if (ids[i] == id)
			return true;
	return false;
}

struct walk {
	struct memcgstat *h;
	const uint64_t *ids;
	size_t nr_ids;
	struct memcgstat_result *res;
	struct mcs_pathbuf path;	/* of the cgroup walked */
};

/* A row for cgroup @id at @dir, its values NA; NULL without memory. */
static uint64_t *walk_row(struct walk *w, uint64_t id, const char *dir)
{
	struct memcgstat *h = w->h;
	uint64_t *vals = mcs_result_reuse(w->res, id, mcs_rel_path(h, dir));
	size_t i;

	for (i = 0; vals && i < h->nr_cols; i++)
		vals[i] = MEMCGSTAT_NA;
	if (!vals)
		vals = mcs_result_add(w->res, id, mcs_rel_path(h, dir));
	if (!vals)
		mcs_set_err(h, -ENOMEM, "out of memory");
	return vals;
}

/*
 * A directory below the top that this process may not open (@err): its
 * row says why, as one whose files it may not read; what is below it is
 * not seen. 0 or -ENOMEM.
 */
static int closed_row(struct walk *w, const struct dirent *de, int err)
{
	size_t len = w->path.len;
	int ret = 0;

	if (!id_wanted(de->d_ino, w->ids, w->nr_ids))
		return 0;
	if (mcs_pathbuf_push(&w->path, de->d_name))
		return mcs_set_err(w->h, -ENOMEM, "out of memory");
	if (walk_row(w, de->d_ino, w->path.s))
		mcs_result_set_status(w->res, memcgstat_result_count(w->res) - 1, err);
	else
		ret = -ENOMEM;
	mcs_pathbuf_pop(&w->path, len);
	return ret;
}

/*
 * Pre-order walk from the cgroup directory open at @fd (taken, closed),
 * each child opened relative to its parent: no path length limits it. A
 * cgroup removed while we walk is left out.
 */
static int walk(struct walk *w, int fd, int depth)
{
	struct memcgstat *h = w->h;
	const char *dir = w->path.s;
	size_t len = w->path.len;
	struct dirent *de;
	struct stat st;
	uint64_t *vals;
	int err, sub;
	DIR *d;

	if (depth > 1024) {
		close(fd);
		return mcs_set_err(h, -ELOOP, "cgroup tree deeper than 1024 at %s", dir);
	}
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return mcs_set_err(h, err, "%s: %s", dir, strerror(-err));
	}
	if (id_wanted(st.st_ino, w->ids, w->nr_ids)) {
		vals = walk_row(w, st.st_ino, dir);
		if (!vals) {
			close(fd);
			return -ENOMEM;
		}
		err = text_read_path(h, fd, dir, vals);
		if (err == -ENOENT) {	/* removed meanwhile */
			h->err[0] = '\0';
			mcs_result_drop_last(w->res);
			close(fd);
			return 0;
		}
		/*
		 * Below the top, a cgroup whose files cannot be read costs its
		 * own row, not the snapshot: the row says why, values NA.
		 */
		if (err && err != -ENOMEM && depth > 0) {
			h->err[0] = '\0';
			mcs_result_set_status(w->res, memcgstat_result_count(w->res) - 1, err);
		} else if (err) {
			close(fd);
			return err;
		}
	}
	d = fdopendir(fd);
	if (!d) {
		err = -errno;
		close(fd);
		return mcs_set_err(h, err, "%s: %s", dir, strerror(-err));
	}
	err = 0;
	while (!err && (de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (sub < 0) {
			if (errno == ENOENT)
				continue;	/* removed meanwhile */
			if (errno == EACCES || errno == EPERM) {
				err = closed_row(w, de, -EACCES);
				continue;
			}
			err = -errno;
			mcs_set_err(h, err, "%s/%s: %s", dir, de->d_name, strerror(-err));
			break;
		}
		if (mcs_pathbuf_push(&w->path, de->d_name)) {
			close(sub);
			err = mcs_set_err(h, -ENOMEM, "out of memory");
			break;
		}
		err = walk(w, sub, depth + 1);
		mcs_pathbuf_pop(&w->path, len);
		dir = w->path.s;	/* it may have moved */
	}
	closedir(d);
	return err;
}

static int text_snapshot(struct memcgstat *h, int fd, const char *abs,
			 const uint64_t *ids, size_t nr_ids,
			 struct memcgstat_result *res)
{
	struct walk w = { h, ids, nr_ids, res, { NULL, 0, 0 } };
	int err, top;

	if (mcs_pathbuf_init(&w.path, abs))
		return mcs_set_err(h, -ENOMEM, "out of memory");
	top = dup(fd);	/* the walk takes it; @fd is the caller's */
	if (top < 0)
		err = mcs_set_err(h, -errno, "%s: %s", abs, strerror(errno));
	else
		err = walk(&w, top, 0);
	free(w.path.s);
	return err;
}

/* Single cgroups and lists of ids: by path, as the front end does it. */
const struct mcs_backend mcs_text_backend = {
	.id = MEMCGSTAT_BACKEND_TEXT,
	.read_path = text_read_path,
	.snapshot = text_snapshot,
	.has_stat = mcs_files_have,
};
