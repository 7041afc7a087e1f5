// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The text backend: memory.stat, memory.events, memory.current,
 * memory.numa_stat (cgroup v2); memory.stat and memory.usage_in_bytes
 * (cgroup v1). Slow, but it works on every kernel.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "handle.h"
#include "hierarchy.h"
#include "result.h"
#include "text_parse.h"

struct fill {
	struct memcgstat *h;
	uint64_t *vals;
	int file;		/* which file: enum below */
};

enum { F_STAT, F_EVENTS, F_NUMA };

static bool key_is(const char *key, size_t keylen, const char *name)
{
	return name && strlen(name) == keylen && !memcmp(key, name, keylen);
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

		if (h->cols[i].nid != nid)
			continue;
		if ((f->file == F_EVENTS) != (def->src == MCS_SRC_MEMORY_EVENT))
			continue;
		if (key_is(key, keylen, name))
			f->vals[i] = val;
	}
	return 0;
}

static int parse_into(struct memcgstat *h, const char *dir, const char *file,
		      int which, uint64_t *vals)
{
	struct fill f = { h, vals, which };
	int err, line = 0;
	size_t len;
	char *buf;

	err = mcs_read_file(dir, file, &buf, &len);
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

static bool needs(const struct memcgstat *h, enum mcs_source src)
{
	size_t i;

	for (i = 0; i < h->nr_cols; i++)
		if (h->cols[i].def->src == src)
			return true;
	return false;
}

static int text_read_path(struct memcgstat *h, const char *abs, uint64_t *vals)
{
	bool root = !strcmp(abs, h->root);
	int err = 0;

	if (needs(h, MCS_SRC_PAGE_STATE) || needs(h, MCS_SRC_VM_EVENT)) {
		if (h->flags & MEMCGSTAT_NUMA)
			err = parse_into(h, abs, "memory.numa_stat", F_NUMA, vals);
		else
			err = parse_into(h, abs, "memory.stat", F_STAT, vals);
	}
	/* v2's root has no memory.events and no memory.current */
	if (!err && needs(h, MCS_SRC_MEMORY_EVENT) && h->version == 2 && !root)
		err = parse_into(h, abs, "memory.events", F_EVENTS, vals);
	if (!err && needs(h, MCS_SRC_USAGE) && !(h->version == 2 && root) &&
	    !(h->flags & MEMCGSTAT_LOCAL)) {
		const char *file = h->version == 2 ? "memory.current" : "memory.usage_in_bytes";
		unsigned long long usage;
		size_t len, i;
		char *buf;

		err = mcs_read_file(abs, file, &buf, &len);
		if (!err) {
			if (mcs_parse_value(buf, len, &usage))
				err = mcs_set_err(h, -EINVAL, "%s/%s: not a number", abs, file);
			free(buf);
		}
		for (i = 0; !err && i < h->nr_cols; i++)
			if (h->cols[i].def->src == MCS_SRC_USAGE)
				vals[i] = usage;
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

/* Pre-order walk; a cgroup removed while we walk is left out. */
static int walk(struct memcgstat *h, const char *dir, const uint64_t *ids,
		size_t nr_ids, struct memcgstat_result *res, int depth)
{
	struct dirent *de;
	struct stat st;
	char sub[PATH_MAX];
	uint64_t *vals;
	size_t i;
	DIR *d;
	int err;

	if (depth > 1024)
		return mcs_set_err(h, -ELOOP, "cgroup tree deeper than 1024 at %s", dir);
	if (stat(dir, &st))
		return errno == ENOENT ? 0 : mcs_set_err(h, -errno, "%s: %s", dir, strerror(errno));
	if (id_wanted(st.st_ino, ids, nr_ids)) {
		vals = mcs_result_reuse(res, st.st_ino, mcs_rel_path(h, dir));
		for (i = 0; vals && i < h->nr_cols; i++)
			vals[i] = MEMCGSTAT_NA;
		if (!vals)
			vals = mcs_result_add(res, st.st_ino, mcs_rel_path(h, dir));
		if (!vals)
			return mcs_set_err(h, -ENOMEM, "out of memory");
		err = text_read_path(h, dir, vals);
		if (err == -ENOENT || err == -ENODEV) {	/* removed meanwhile */
			h->err[0] = '\0';
			mcs_result_drop_last(res);
			return 0;
		}
		if (err)
			return err;
	}
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : mcs_set_err(h, -errno, "%s: %s", dir, strerror(errno));
	err = 0;
	while (!err && (de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name) >= (int)sizeof(sub)) {
			err = mcs_set_err(h, -ENAMETOOLONG, "path too long below %s", dir);
			break;
		}
		err = walk(h, sub, ids, nr_ids, res, depth + 1);
	}
	closedir(d);
	return err;
}

static int text_snapshot(struct memcgstat *h, const char *abs,
			 const uint64_t *ids, size_t nr_ids,
			 struct memcgstat_result *res)
{
	return walk(h, abs, ids, nr_ids, res, 0);
}

/* Single cgroups and lists of ids: by path, as the front end does it. */
const struct mcs_backend mcs_text_backend = {
	.id = MEMCGSTAT_BACKEND_TEXT,
	.read_path = text_read_path,
	.snapshot = text_snapshot,
	.has_stat = mcs_files_have,
};
