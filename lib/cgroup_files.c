// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The stats read from files of their own, for both backends: the limits
 * (memory.max, memory.limit_in_bytes, ...), memory.events, memory.pressure,
 * cgroup.stat, cgroup.procs' entries counted and v1's counted ones; and the
 * limit that applies on v2, over the ancestors. The bpf backend reads
 * memory.pressure so (the kernel aggregates it from per-CPU state when the
 * file is read) and cgroup.procs (no field counts a cgroup's processes),
 * the text backend every one of them. And which stats this hierarchy's files show,
 * for both backends' has_stat.
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
#include "memcg_items.h"
#include "cgroup_files.h"
#include "hierarchy.h"
#include "handle.h"
#include "text_parse.h"

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

		if (!file || strcmp(file, f->file) || !mcs_key_is(key, keylen, def->key))
			continue;
		/* v1 memory.stat's hierarchical_memory_limit: no limit is PAGE_COUNTER_MAX */
		if (def->conv == MCS_CONV_LIMIT && val == mcs_limit_max_bytes())
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

/* The entries of a file of one a line (cgroup.procs: a pid each). */
static uint64_t count_lines(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	uint64_t n = 0;

	while (p < end && (p = memchr(p, '\n', end - p))) {
		n++;
		p++;
	}
	return n;
}

/*
 * File @file of @abs into the columns read from it (the whole file, however
 * large: cgroup.procs of a cgroup of many processes). A file that is not
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
		if (def->src == MCS_SRC_PROCS) {
			vals[i] = count_lines(buf, len);
			continue;
		}
		if (def->key) {
			keyed = true;
			continue;
		}
		if (mcs_parse_limit(buf, len, &v)) {
			err = mcs_set_err(h, -EINVAL, "%s/%s: not a number or \"max\"", abs, file);
			break;
		}
		/* cgroup v1 prints no limit as PAGE_COUNTER_MAX pages */
		if (def->conv == MCS_CONV_LIMIT && v == mcs_limit_max_bytes())
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
		return mcs_file_errno();
	n = read(fd, buf, sizeof(buf));
	if (n < 0)
		n = mcs_file_errno();
	close(fd);
	if (n < 0)
		return n;
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
	    (mcs_cols_need(h, MCS_SRC_PAGE_STATE) || mcs_cols_need(h, MCS_SRC_VM_EVENT)))
		return NULL;
	if (!file || (psi_only && !mcs_def_file_only(def)) ||
	    (h->version == 2 && mcs_def_is_effective(def)) ||
	    (h->version == 1 && def->src == MCS_SRC_CGROUP_FIELD) ||
	    (file[0] == '/' && strcmp(abs, h->root)))
		return NULL;
	return file;
}

int mcs_read_own_files(struct memcgstat *h, int fd, const char *abs, uint64_t *vals,
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
		/* the bpf backend's: a file it may not read leaves its columns NA */
		if (psi_only && (err == -EACCES || err == -EPERM))
			err = 0;
	}
	if (!err && !psi_only)
		err = read_derived(h, fd, abs, vals);
	if (psi_only && err && !h->err[0])
		err = err == -ENOENT ?
		      mcs_set_err(h, err, "cgroup %s: removed while it was read", abs) :
		      mcs_set_err(h, err, "cannot read the files of cgroup %s: %s", abs,
				  strerror(-err));
	return err;
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
	err = mcs_read_file(h->root, "memory.stat", &buf, &len);
	if (err)
		return err;
	err = mcs_parse_flat(buf, len, key_cb, ks, NULL);
	free(buf);
	return err;
}

/*
 * A cgroup to look for files in that the root lacks (cgroup v2's
 * memory.max and the like): the first child with a memory controller, or
 * "" if there is none.
 */
static void sample_child(const struct memcgstat *h, char *buf, size_t size)
{
	char f[PATH_MAX + 300];
	struct dirent *de;
	DIR *d = opendir(h->root);

	buf[0] = '\0';
	while (d && (de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(f, sizeof(f), "%s/%s/memory.current", h->root, de->d_name);
		if (!access(f, F_OK) &&
		    snprintf(buf, size, "%s/%s", h->root, de->d_name) < (int)size)
			break;
		buf[0] = '\0';
	}
	if (d)
		closedir(d);
}

/*
 * Whether the files show @file: in the root, or, on v2 where the root has
 * no such file, in a child (@child); with no child to look in, the memory
 * controller's files are taken to be there.
 */
static bool file_shown(const struct memcgstat *h, const struct mcs_stat_def *def,
		       const char *child)
{
	const char *file = mcs_def_file(def, h->version);
	char f[PATH_MAX + 64];

	if (!file)
		return h->version == 1 && def->v1_counted;
	if (file[0] == '/')	/* the system's (v1's root pressure) */
		return !access(file, F_OK);
	/* v2: the limit that applies is read from memory.max, "max" at the root */
	if (h->version == 1 || (def->on_v2_root && !mcs_def_is_effective(def))) {
		snprintf(f, sizeof(f), "%s/%s", h->root, file);
		return !access(f, F_OK);
	}
	if (!child[0])
		return true;
	snprintf(f, sizeof(f), "%s/%s", child, file);
	return !access(f, F_OK);
}

static bool supports(const struct memcgstat *h, const struct keyset *ks,
		     const struct mcs_stat_def *def, const char *child)
{
	switch (def->src) {
	case MCS_SRC_USAGE:
		return true;
	case MCS_SRC_MEMORY_EVENT:	/* v1: oom_kill, in memory.oom_control */
		return h->version == 2 || file_shown(h, def, child);
	case MCS_SRC_WORKING_SET:
		return in_keyset(ks, "inactive_file");
	case MCS_SRC_PAGE_COUNTER:
		/* v1 memory.stat's hierarchical limits: memsw's with swap accounting */
		if (h->version == 1 && def->v1_file && !strcmp(def->v1_file, "memory.stat"))
			return in_keyset(ks, def->key);
		/* fall through */
	case MCS_SRC_MEMORY_EVENT_LOCAL:
	case MCS_SRC_MEMCG_FIELD:
	case MCS_SRC_CGROUP_FIELD:
	case MCS_SRC_PSI:
	case MCS_SRC_PROCS:
		return file_shown(h, def, child);
	default:
		return in_keyset(ks, h->version == 2 ? def->name : def->v1_name);
	}
}

int mcs_hierarchy_stats(struct memcgstat *h, const struct mcs_stat_def ***out,
			size_t *nr)
{
	const struct mcs_stat_def **defs;
	struct keyset *ks = malloc(sizeof(*ks));
	char child[PATH_MAX];
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
	sample_child(h, child, sizeof(child));
	*nr = 0;
	for (i = 0; i < mcs_nr_stat_defs; i++)
		if (supports(h, ks, &mcs_stat_defs[i], child))
			defs[(*nr)++] = &mcs_stat_defs[i];
	free(ks);
	*out = defs;
	return 0;
}

int mcs_files_have(struct memcgstat *h, const struct mcs_stat_def *def)
{
	const struct mcs_stat_def **defs;
	size_t i, nr;
	int err = mcs_hierarchy_stats(h, &defs, &nr);

	if (err)
		return err;
	for (i = 0; i < nr && defs[i] != def; i++)
		;
	free(defs);
	return i < nr;
}
