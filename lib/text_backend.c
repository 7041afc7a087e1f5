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
#include "result.h"
#include "text_parse.h"

struct fill {
	struct memcgstat *h;
	uint64_t *vals;
	int file;		/* which file: enum below */
	bool v1_keyed;		/* v1 memory.stat has columns of its own keys */
};

enum { F_STAT, F_NUMA };

static bool key_is(const char *key, size_t keylen, const char *name)
{
	return name && strlen(name) == keylen && !memcmp(key, name, keylen);
}

/* The largest limit the kernel takes, in bytes: PAGE_COUNTER_MAX pages. */
static uint64_t limit_max_bytes(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	return (uint64_t)(LONG_MAX / ps) * ps;
}

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
		    !key_is(key, keylen, def->key))
			continue;
		vals[i] = def->conv == MCS_CONV_LIMIT && val == limit_max_bytes() ? MEMCGSTAT_MAX : val;
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
		if (key_is(key, keylen, name))
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

static bool needs(const struct memcgstat *h, enum mcs_source src)
{
	size_t i;

	for (i = 0; i < h->nr_cols; i++)
		if (h->cols[i].def->src == src)
			return true;
	return false;
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

/*
 * The file @def's value is read from as it is, or NULL: v2's limit that
 * applies names memory.max, but is the lowest of the ancestors' too
 * (read_derived()).
 */
static const char *col_file(const struct memcgstat *h, const struct mcs_stat_def *def)
{
	if (h->version == 2 && mcs_def_is_effective(def))
		return NULL;
	return mcs_def_file(def, h->version);
}

struct file_fill {
	struct memcgstat *h;
	uint64_t *vals;
	const char *file;
};

/* A key of a flat file of its own: the columns read from it with that key. */
static int file_cb(const char *key, size_t keylen, int nid,
		   unsigned long long val, void *arg)
{
	struct file_fill *f = arg;
	size_t i;

	(void)nid;
	for (i = 0; i < f->h->nr_cols; i++) {
		const struct mcs_stat_def *def = f->h->cols[i].def;
		const char *file = col_file(f->h, def);

		if (!file || strcmp(file, f->file) || !key_is(key, keylen, def->key))
			continue;
		/* v1 memory.stat's hierarchical_memory_limit: no limit is PAGE_COUNTER_MAX */
		if (def->conv == MCS_CONV_LIMIT && val == limit_max_bytes())
			val = MEMCGSTAT_MAX;
		f->vals[i] = val;
	}
	return 0;
}

/*
 * A file of @abs is missing, the directory is there: a file this cgroup
 * does not have (the cgroup v2 root has no memory.max, a cgroup without
 * the controller no memory.*), whose columns stay NA; or the cgroup is
 * being removed: rmdir takes the controllers' files away, then the
 * cgroup's own, then the directory, and a read in between must not pass
 * for a whole one with some values NA. A cgroup that had a file of its
 * memcg earlier in the same read has every one: it is being removed.
 */
static int file_missing(struct memcgstat *h, const char *abs)
{
	if (!strcmp(abs, h->root) || !h->read_had_file)
		return 0;
	return mcs_set_err(h, -ENOENT, "cgroup %s: removed while read", abs);
}

/*
 * File @file of @abs into the columns read from it. A file that is not
 * there leaves them NA: v2's root has no memory.max and the like, a kernel
 * without swap accounting no memory.swap.* or memory.memsw.*; unless the
 * cgroup is being removed (file_missing()).
 */
static int read_own_file(struct memcgstat *h, int fd, const char *abs, const char *file,
			 uint64_t *vals)
{
	struct file_fill f = { h, vals, file };
	unsigned long long v;
	bool keyed = false, psi = false;
	int err, line = 0;
	size_t len, i;
	char *buf;

	/* a file of the system's (v1's root pressure): its path */
	if (file[0] == '/')
		err = mcs_read_file("", file, &buf, &len);
	else
		err = mcs_read_fileat(fd, file, &buf, &len);
	if (err == -ENOENT && file[0] == '/')
		return 0;
	/* the cgroup's own files go with its directory, after the controllers' */
	if (err == -ENOENT && !faccessat(fd, "cgroup.procs", F_OK, 0))
		return file_missing(h, abs);
	if (err == -EOPNOTSUPP)		/* memory.pressure, booted with psi=0 */
		return 0;
	if (err)
		return err;
	h->read_had_file = true;
	for (i = 0; i < h->nr_cols; i++) {
		const struct mcs_stat_def *def = h->cols[i].def;
		const char *cf = col_file(h, def);

		if (!cf || strcmp(cf, file))
			continue;
		if (def->src == MCS_SRC_PSI)
			psi = true;
		if (def->key) {
			keyed = true;
			continue;
		}
		if (mcs_parse_limit(buf, len, &v)) {
			err = mcs_set_err(h, -EINVAL, "%s/%s: not a number or \"max\"", abs, file);
			break;
		}
		/* cgroup v1 prints no limit as PAGE_COUNTER_MAX pages */
		if (def->conv == MCS_CONV_LIMIT && v == limit_max_bytes())
			v = MEMCGSTAT_MAX;
		vals[i] = v;
	}
	if (!err && keyed) {
		if (psi)
			err = mcs_parse_psi(buf, len, file_cb, &f, &line);
		else
			err = mcs_parse_flat(buf, len, file_cb, &f, &line);
		if (err == -EINVAL)
			err = mcs_set_err(h, -EINVAL, "%s/%s: malformed line %d", abs, file, line);
	}
	free(buf);
	return err;
}

/* A limit file of the directory @dirfd: "max" or a number of bytes. */
static int read_limit_at(int dirfd, const char *file, uint64_t *v)
{
	unsigned long long l;
	char buf[64];
	ssize_t n;
	int fd = openat(dirfd, file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return -errno;
	if (mcs_parse_limit(buf, n, &l))
		return -EINVAL;
	*v = l;
	return 0;
}

/*
 * The limit that applies to @abs on cgroup v2: the lowest memory.max of
 * the cgroup and its ancestors below the root (which has none: "max"),
 * the same the kernel's v1 memory.stat prints as hierarchical_memory_limit.
 * Up by "..", so that no path grows with the depth.
 */
static int read_max_effective(struct memcgstat *h, int dirfd, const char *abs, uint64_t *out)
{
	uint64_t lowest = MEMCGSTAT_MAX, v = MEMCGSTAT_MAX;
	struct stat root, st;
	int fd, up, err = 0;
	bool self = true;

	if (stat(h->root, &root))
		return -errno;
	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		if (fstat(fd, &st)) {
			err = -errno;
			break;
		}
		if (st.st_dev != root.st_dev)	/* above the mount: not below the root */
			err = mcs_set_err(h, -EINVAL, "%s: not below %s", abs, h->root);
		if (err || st.st_ino == root.st_ino)
			break;
		err = read_limit_at(fd, "memory.max", &v);
		if (err == -ENOENT && self && !faccessat(dirfd, "cgroup.procs", F_OK, 0))
			err = file_missing(h, abs);
		else if (err == -EINVAL)
			err = mcs_set_err(h, -EINVAL, "%s: memory.max of it or an ancestor: not a number or \"max\"", abs);
		if (err)
			break;
		if (v < lowest)
			lowest = v;
		self = false;
		up = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		close(fd);
		fd = up;
		if (fd < 0) {
			err = -errno;
			break;
		}
	}
	if (fd >= 0)
		close(fd);
	if (!err)
		*out = lowest;
	return err;
}

/*
 * The directories below @dfd (closed here), counted into *@n: cgroup
 * v1's nr_descendants, which the kernel keeps (struct cgroup) but v1 prints
 * in no file. A directory removed meanwhile is not counted below.
 */
static int count_descendants(int dfd, uint64_t *n, int depth)
{
	struct dirent *de;
	DIR *d;
	int sub, err = 0;

	if (depth > 1024) {
		close(dfd);
		return -ELOOP;
	}
	d = fdopendir(dfd);
	if (!d) {
		err = -errno;
		close(dfd);
		return err;
	}
	while (!err && (de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		(*n)++;
		sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (sub < 0)
			err = errno == ENOENT ? 0 : -errno;
		else
			err = count_descendants(sub, n, depth + 1);
	}
	closedir(d);
	return err;
}

/* /proc/cgroups' num_cgroups of the memory controller, or -errno. */
static long long v1_num_cgroups(void)
{
	unsigned long long hier, num, en;
	char name[64];
	long long n = -ENOENT;
	FILE *f = fopen(MCS_CGROUPS_V1_FILE, "re");

	if (!f)
		return -errno;
	while (fscanf(f, "%63s", name) == 1) {
		if (name[0] != '#' && !strcmp(name, "memory") &&
		    fscanf(f, "%llu %llu %llu", &hier, &num, &en) == 3) {
			n = num;
			break;
		}
		if (fscanf(f, "%*[^\n]") == EOF)
			break;
	}
	fclose(f);
	return n;
}

/* The directories below @abs, counted. */
static int count_below(struct memcgstat *h, int dirfd, const char *abs, uint64_t *n)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), err;

	*n = 0;
	err = fd < 0 ? -errno : count_descendants(fd, n, 0);
	if (err == -ELOOP)
		err = mcs_set_err(h, -ELOOP, "cgroup tree deeper than 1024 below %s", abs);
	return err;
}

/* /proc/cgroups' count, as an error on the handle where it has none. */
static int num_cgroups(struct memcgstat *h, long long *n)
{
	*n = v1_num_cgroups();
	if (*n < 0)
		return mcs_set_err(h, *n, "%s: no memory line: %s", MCS_CGROUPS_V1_FILE,
				   strerror(-*n));
	return 0;
}

/*
 * The directories below @abs (cgroup v1), and at the root whether
 * /proc/cgroups held still around the count (*@num then its count: the
 * memory hierarchy's cgroups, a removed one until it is freed). Counted
 * again, up to 3 times, while cgroups come and go.
 */
static int v1_counts(struct memcgstat *h, int fd, const char *abs, uint64_t *live, long long *num,
		     bool *still)
{
	bool root = !strcmp(abs, h->root);
	long long after;
	int try, err = 0;

	*still = false;
	for (try = 0; try < 3 && !*still; try++) {
		if (root && (err = num_cgroups(h, num)))
			break;
		err = count_below(h, fd, abs, live);
		if (err || !root)
			break;
		err = num_cgroups(h, &after);
		*still = !err && after == *num;
	}
	return err;
}

/*
 * The stats no file of their own holds: v2's limit that applies, over the
 * ancestors; v1's nr_descendants, counted, and its root's dying cgroups:
 * /proc/cgroups' count less the root and the live ones (NA if cgroups came
 * and went through every count).
 */
static int read_derived(struct memcgstat *h, int fd, const char *abs, uint64_t *vals)
{
	bool root = !strcmp(abs, h->root), counted = false, still = false;
	uint64_t live = 0;
	long long num = 0;
	size_t i;
	int err = 0;

	for (i = 0; !err && i < h->nr_cols; i++) {
		const struct mcs_stat_def *def = h->cols[i].def;
		bool dying = def->src == MCS_SRC_CGROUP_FIELD && def->kind == MCS_NR_DYING_DESCENDANTS;

		if (h->version == 2 && mcs_def_is_effective(def)) {
			err = read_max_effective(h, fd, abs, &vals[i]);
			continue;
		}
		if (h->version != 1 || !(def->v1_counted || (dying && root)))
			continue;
		if (!counted)
			err = v1_counts(h, fd, abs, &live, &num, &still);
		counted = true;
		if (!err && !dying)
			vals[i] = live;
		else if (!err && still)
			vals[i] = (uint64_t)num > live + 1 ? (uint64_t)num - live - 1 : 0;
	}
	return err;
}

/*
 * The file of its own column @i is read from at @abs, or NULL: none, not
 * that of memory.pressure for @psi_only, v1 memory.stat (read with the
 * counters), v2's limit that applies (read_derived()), the system's file
 * below the root.
 */
static const char *own_file(const struct memcgstat *h, size_t i, const char *abs,
			    bool psi_only)
{
	const struct mcs_stat_def *def = h->cols[i].def;
	const char *file = mcs_def_file(def, h->version);

	/* v1 memory.stat's limits: in the counters' pass, where there is one */
	if (file && h->version == 1 && !strcmp(file, "memory.stat") &&
	    (needs(h, MCS_SRC_PAGE_STATE) || needs(h, MCS_SRC_VM_EVENT)))
		return NULL;
	if (!file || (psi_only && !mcs_def_file_only(def)) ||
	    (h->version == 2 && mcs_def_is_effective(def)) ||
	    (h->version == 1 && def->src == MCS_SRC_CGROUP_FIELD) ||
	    (file[0] == '/' && strcmp(abs, h->root)))
		return NULL;
	return file;
}

int mcs_text_read_files(struct memcgstat *h, int fd, const char *abs, uint64_t *vals,
			bool psi_only)
{
	size_t i, j;
	int err = 0;

	if (psi_only)	/* the bpf backend's, of memory.pressure alone */
		h->read_had_file = false;
	for (i = 0; !err && i < h->nr_cols; i++) {
		const char *file = own_file(h, i, abs, psi_only);

		if (!file)
			continue;
		for (j = 0; j < i; j++) {
			const char *prev = own_file(h, j, abs, psi_only);

			if (prev && !strcmp(prev, file))
				break;
		}
		if (j == i)
			err = read_own_file(h, fd, abs, file, vals);
	}
	if (!err && !psi_only)
		err = read_derived(h, fd, abs, vals);
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
	if (key_is(key, keylen, kv->key))
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
	bool ws = needs(h, MCS_SRC_WORKING_SET);
	uint64_t usage = 0;
	size_t i;
	int err = 0;

	h->read_had_file = false;
	if (needs(h, MCS_SRC_PAGE_STATE) || needs(h, MCS_SRC_VM_EVENT)) {
		if (h->flags & MEMCGSTAT_NUMA)
			err = parse_into(h, fd, abs, "memory.numa_stat", F_NUMA, vals);
		else
			err = parse_into(h, fd, abs, "memory.stat", F_STAT, vals);
		h->read_had_file = !err;
	}
	if (!err)
		err = mcs_text_read_files(h, fd, abs, vals, false);
	if (!err && (needs(h, MCS_SRC_USAGE) || ws) && !(h->flags & MEMCGSTAT_LOCAL)) {
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

/*
 * Pre-order walk from the cgroup directory open at @fd (taken, closed),
 * each child opened relative to its parent: no path length limits it. A
 * cgroup removed while we walk is left out.
 */
static int walk(struct walk *w, int fd, int depth)
{
	struct memcgstat *h = w->h;
	const char *dir = w->path.s;
	size_t len = w->path.len, i;
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
		vals = mcs_result_reuse(w->res, st.st_ino, mcs_rel_path(h, dir));
		for (i = 0; vals && i < h->nr_cols; i++)
			vals[i] = MEMCGSTAT_NA;
		if (!vals)
			vals = mcs_result_add(w->res, st.st_ino, mcs_rel_path(h, dir));
		if (!vals) {
			close(fd);
			return mcs_set_err(h, -ENOMEM, "out of memory");
		}
		err = text_read_path(h, fd, dir, vals);
		if (err == -ENOENT || err == -ENODEV) {	/* removed meanwhile */
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
