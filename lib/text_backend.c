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
#include "text_parse.h"

/* Read a whole cgroup file into a malloc'd buffer. */
static int read_file(const char *dir, const char *name, char **buf, size_t *len)
{
	char path[PATH_MAX];
	size_t size = 8192, n = 0;
	ssize_t r;
	char *b;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	b = malloc(size);
	while (b) {
		r = read(fd, b + n, size - n);
		if (r < 0) {
			r = -errno;
			free(b);
			close(fd);
			return r;
		}
		if (!r)
			break;
		n += r;
		if (n == size) {
			char *nb = realloc(b, size * 2);

			if (!nb) {
				free(b);
				b = NULL;
				break;
			}
			b = nb;
			size *= 2;
		}
	}
	close(fd);
	if (!b)
		return -ENOMEM;
	*buf = b;
	*len = n;
	return 0;
}

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

	err = read_file(dir, file, &buf, &len);
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

int mcs_text_read_one(struct memcgstat *h, const char *abs, uint64_t *vals)
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

		err = read_file(abs, file, &buf, &len);
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
	DIR *d;
	int err;

	if (depth > 1024)
		return mcs_set_err(h, -ELOOP, "cgroup tree deeper than 1024 at %s", dir);
	if (stat(dir, &st))
		return errno == ENOENT ? 0 : mcs_set_err(h, -errno, "%s: %s", dir, strerror(errno));
	if (id_wanted(st.st_ino, ids, nr_ids)) {
		vals = mcs_result_add(res, st.st_ino, mcs_rel_path(h, dir));
		if (!vals)
			return mcs_set_err(h, -ENOMEM, "out of memory");
		err = mcs_text_read_one(h, dir, vals);
		if (err == -ENOENT || err == -ENODEV) {	/* removed meanwhile */
			h->err[0] = '\0';
			free(res->paths[--res->count]);
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

int mcs_text_snapshot(struct memcgstat *h, const char *abs,
		      const uint64_t *ids, size_t nr_ids,
		      struct memcgstat_result *res)
{
	return walk(h, abs, ids, nr_ids, res, 0);
}

/* Keys of the root's memory.stat (v1: without "total_"), for availability. */
struct keyset {
	char names[256][48];
	int n;
};

static int key_cb(const char *key, size_t keylen, int nid,
		  unsigned long long val, void *arg)
{
	struct keyset *ks = arg;

	(void)nid;
	(void)val;
	if (keylen > 6 && !memcmp(key, "total_", 6)) {
		key += 6;
		keylen -= 6;
	}
	if (ks->n < 256 && keylen < sizeof(ks->names[0])) {
		memcpy(ks->names[ks->n], key, keylen);
		ks->names[ks->n++][keylen] = '\0';
	}
	return 0;
}

static bool in_keyset(const struct keyset *ks, const char *name)
{
	int i;

	for (i = 0; name && i < ks->n; i++)
		if (!strcmp(ks->names[i], name))
			return true;
	return false;
}

static int root_keys(const struct memcgstat *h, struct keyset *ks)
{
	size_t len;
	char *buf;
	int err;

	ks->n = 0;
	err = read_file(h->root, "memory.stat", &buf, &len);
	if (err)
		return err;
	err = mcs_parse_flat(buf, len, key_cb, ks, NULL);
	free(buf);
	return err;
}

static bool supports(const struct memcgstat *h, const struct keyset *ks,
		     const struct mcs_stat_def *def)
{
	switch (def->src) {
	case MCS_SRC_USAGE:
		return true;
	case MCS_SRC_MEMORY_EVENT:
		return h->version == 2;
	default:
		return in_keyset(ks, h->version == 2 ? def->name : def->v1_name);
	}
}

int mcs_text_default_stats(struct memcgstat *h, const struct mcs_stat_def ***out,
			   size_t *nr)
{
	const struct mcs_stat_def **defs;
	struct keyset *ks = malloc(sizeof(*ks));
	size_t i;
	int err;

	defs = calloc(mcs_nr_stat_defs, sizeof(*defs));
	if (!ks || !defs) {
		free(ks);
		free(defs);
		return mcs_set_err(h, -ENOMEM, "out of memory");
	}
	err = root_keys(h, ks);
	if (err) {
		free(ks);
		free(defs);
		return mcs_set_err(h, err, "cannot read %s/memory.stat: %s", h->root, strerror(-err));
	}
	*nr = 0;
	for (i = 0; i < mcs_nr_stat_defs; i++)
		if (supports(h, ks, &mcs_stat_defs[i]))
			defs[(*nr)++] = &mcs_stat_defs[i];
	free(ks);
	*out = defs;
	return 0;
}
