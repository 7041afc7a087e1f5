// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The memory cgroup hierarchy: its mount, its NUMA nodes, cgroup paths and
 * ids (with a cache from ids to paths), and the stats its files show.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include "handle.h"
#include "hierarchy.h"
#include "testing.h"
#include "text_parse.h"

struct mcs_path {
	uint64_t id;
	const char *path;		/* in h->path_pool */
	uint32_t seen;		/* h->path_gen when last found or added */
};

/* Does the cgroup2 mount at @dir have the memory controller? */
static bool v2_has_memory(const char *dir)
{
	char path[PATH_MAX], buf[512], *tok, *save = NULL;
	FILE *f;
	bool found = false;

	snprintf(path, sizeof(path), "%s/cgroup.controllers", dir);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (fgets(buf, sizeof(buf), f))
		for (tok = strtok_r(buf, " \n", &save); tok && !found;
		     tok = strtok_r(NULL, " \n", &save))
			found = !strcmp(tok, "memory");
	fclose(f);
	return found;
}

/* The memory controller's mount: cgroup v2 if it has memory, else v1. */
int mcs_find_root(struct memcgstat *h, const char *want)
{
	struct mntent *m, ent;
	char buf[4096], v1[PATH_MAX] = "", v2[PATH_MAX] = "";
	struct statfs sfs;
	FILE *f;

	if (want) {
		if (statfs(want, &sfs))
			return mcs_set_err(h, -errno, "cannot use %s as the memory cgroup root: %s",
					   want, strerror(errno));
		if (sfs.f_type == CGROUP2_SUPER_MAGIC && v2_has_memory(want))
			h->version = 2;
		else if (sfs.f_type == CGROUP_SUPER_MAGIC)
			h->version = 1;
		else
			return mcs_set_err(h, -ENOTDIR,
					   "%s is not a cgroup mount with the memory controller", want);
		snprintf(h->root, sizeof(h->root), "%s", want);
		return 0;
	}
	f = setmntent("/proc/self/mounts", "re");
	if (!f)
		return mcs_set_err(h, -errno, "cannot read /proc/self/mounts: %s", strerror(errno));
	while ((m = getmntent_r(f, &ent, buf, sizeof(buf)))) {
		if (!strcmp(m->mnt_type, "cgroup2") && !v2[0] && v2_has_memory(m->mnt_dir))
			snprintf(v2, sizeof(v2), "%s", m->mnt_dir);
		else if (!strcmp(m->mnt_type, "cgroup") && !v1[0] && hasmntopt(m, "memory"))
			snprintf(v1, sizeof(v1), "%s", m->mnt_dir);
	}
	endmntent(f);
	if (v2[0]) {
		h->version = 2;
		snprintf(h->root, sizeof(h->root), "%s", v2);
	} else if (v1[0]) {
		h->version = 1;
		snprintf(h->root, sizeof(h->root), "%s", v1);
	} else {
		return mcs_set_err(h, -ENOENT,
				   "no memory cgroup hierarchy is mounted (no cgroup2 mount with the memory controller, no cgroup v1 memory mount)");
	}
	return 0;
}

/* NUMA nodes with memory, from /sys/devices/system/node/has_memory. */
int mcs_find_nodes(struct memcgstat *h)
{
	char buf[256], *s, *end;
	FILE *f = fopen("/sys/devices/system/node/has_memory", "re");

	h->nr_nodes = 0;
	if (!f) {	/* no NUMA support: one node */
		h->nodes[h->nr_nodes++] = 0;
		return 0;
	}
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	for (s = buf; *s && *s != '\n'; ) {
		long a = strtol(s, &end, 10), b = a;

		if (end == s)
			break;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (; a <= b && h->nr_nodes < (int)(sizeof(h->nodes) / sizeof(h->nodes[0])); a++)
			h->nodes[h->nr_nodes++] = a;
		s = *end == ',' ? end + 1 : end;
	}
	if (!h->nr_nodes)
		return mcs_set_err(h, -ENOENT, "no NUMA node with memory in /sys/devices/system/node/has_memory");
	return 0;
}

/* @cgroup as an absolute path, without touching the file system. */
/* @path (absolute) without ".", ".." and empty components, into @buf. */
static int normalize(const char *path, char *buf, size_t size)
{
	size_t n = 0, len;
	const char *p = path, *end;

	while (*p) {
		while (*p == '/')
			p++;
		end = strchrnul(p, '/');
		len = end - p;
		if (len == 2 && !memcmp(p, "..", 2)) {
			while (n > 0 && buf[--n] != '/')
				;	/* back to the parent ("/" stays) */
		} else if (len && !(len == 1 && *p == '.')) {
			if (n + 1 + len >= size)
				return -ENAMETOOLONG;
			buf[n++] = '/';
			memcpy(buf + n, p, len);
			n += len;
		}
		p = end;
	}
	if (!n)
		buf[n++] = '/';
	buf[n] = '\0';
	return 0;
}

int mcs_cgroup_abs(struct memcgstat *h, const char *cgroup, char *buf, size_t size)
{
	char path[2 * PATH_MAX];
	size_t rl = strlen(h->root);

	if (!cgroup || !*cgroup)
		return mcs_set_err(h, -EINVAL, "empty cgroup path");
	/* an absolute path inside the mount as it is, any other below it */
	if (cgroup[0] == '/' && !strncmp(cgroup, h->root, rl) &&
	    (cgroup[rl] == '/' || cgroup[rl] == '\0'))
		snprintf(path, sizeof(path), "%s", cgroup);
	else
		snprintf(path, sizeof(path), "%s/%s", h->root, cgroup);
	if (strlen(path) >= PATH_MAX || normalize(path, buf, size))
		return mcs_set_err(h, -ENAMETOOLONG, "cgroup path too long: %s", cgroup);
	/* "..", "/../../tmp" and the like leave the hierarchy */
	if (strncmp(buf, h->root, rl) || (buf[rl] != '/' && buf[rl] != '\0'))
		return mcs_set_err(h, -EINVAL, "cgroup %s is outside the memory cgroup hierarchy at %s (%s)",
				   cgroup, h->root, buf);
	return 0;
}

int mcs_cgroup_check(struct memcgstat *h, const char *cgroup, char *buf, size_t size,
		     uint64_t *id)
{
	struct stat st;
	int err = mcs_cgroup_abs(h, cgroup, buf, size);

	if (err)
		return err;
	if (stat(buf, &st))
		return mcs_set_err(h, -errno, "cgroup %s: %s (%s)", cgroup,
				   strerror(errno), buf);
	if (!S_ISDIR(st.st_mode))
		return mcs_set_err(h, -ENOTDIR, "%s is not a cgroup", buf);
	*id = st.st_ino;
	if (h->version == 2 && strcmp(buf, h->root)) {
		char f[PATH_MAX + 16];

		snprintf(f, sizeof(f), "%s/memory.current", buf);
		if (access(f, F_OK)) {
			struct statfs sfs;

			/* only a missing file says what the cgroup is; ENOMEM and the like do not */
			if (errno != ENOENT)
				return mcs_set_err(h, -errno, "cgroup %s: %s (%s)", cgroup,
						   strerror(errno), f);
			if (statfs(buf, &sfs)) {
				/* removed since the stat(): gone, as it would be before */
				if (errno == ENOENT)
					return mcs_set_err(h, -ENOENT, "cgroup %s: removed while read (%s)",
							   cgroup, buf);
				return mcs_set_err(h, -errno, "cgroup %s: %s (%s)", cgroup,
						   strerror(errno), buf);
			}
			if (sfs.f_type != CGROUP2_SUPER_MAGIC)
				return mcs_set_err(h, -ENOTDIR, "%s is not a cgroup", buf);
			return mcs_set_err(h, -ENODATA,
					   "cgroup %s has no memory controller (enable it in the parent's cgroup.subtree_control)",
					   cgroup);
		}
	}
	return 0;
}

const char *mcs_rel_path(const struct memcgstat *h, const char *abs)
{
	size_t rl = strlen(h->root);

	if (!strncmp(abs, h->root, rl) && abs[rl] == '/')
		return abs + rl;
	return "/";
}

/*
 * id -> path cache, for snapshots and reads by id without the syscall path:
 * an open-addressing hash of h->paths_cap slots (a power of two, at most
 * half full); id 0 is no cgroup's, an empty slot.
 *
 * Cgroup ids are not reused, so the entries of removed cgroups would pile
 * up in a monitor of a churning tree. Each read counts a generation
 * (h->path_gen, in start_into()); an entry records the last one that found
 * or added it, and the table drops those of more than MCS_PATH_KEEP reads
 * ago when it would grow: it holds the cgroups of the last reads, and
 * whatever the subtree a monitor alternates between, a cgroup it still
 * reads stays.
 */
#define MCS_PATH_KEEP	16

void mcs_free_paths(struct memcgstat *h)
{
	mcs_strpool_free(&h->path_pool);
	free(h->paths);
	h->paths = NULL;
	h->nr_paths = h->paths_cap = 0;
}

static size_t slot_of(uint64_t id, size_t cap)
{
	return (id * 0x9e3779b97f4a7c15ULL >> 17) & (cap - 1);
}

static struct mcs_path *find(struct memcgstat *h, uint64_t id)
{
	size_t i;

	if (!h->paths_cap)
		return NULL;
	for (i = slot_of(id, h->paths_cap); h->paths[i].id; i = (i + 1) & (h->paths_cap - 1))
		if (h->paths[i].id == id) {
			h->paths[i].seen = h->path_gen;
			return &h->paths[i];
		}
	return NULL;
}

static bool stale(const struct memcgstat *h, const struct mcs_path *p)
{
	return (uint32_t)(h->path_gen - p->seen) > MCS_PATH_KEEP;
}

/*
 * Room for @more entries: the table again without its stale entries, in
 * as many slots as keep it at most half full (at least 512).
 */
static int grow_paths(struct memcgstat *h, size_t more)
{
	size_t cap = 512, live = 0, i, j;
	struct mcs_path *np;

	for (i = 0; i < h->paths_cap; i++)
		live += h->paths[i].id && !stale(h, &h->paths[i]);
	while (2 * (live + more) > cap)
		cap *= 2;
	np = calloc(cap, sizeof(*np));
	if (!np)
		return -ENOMEM;
	for (i = 0; i < h->paths_cap; i++) {
		if (!h->paths[i].id)
			continue;
		if (stale(h, &h->paths[i])) {
			mcs_strpool_drop(&h->path_pool, h->paths[i].path);
			continue;
		}
		for (j = slot_of(h->paths[i].id, cap); np[j].id; j = (j + 1) & (cap - 1))
			;
		np[j] = h->paths[i];
	}
	free(h->paths);
	h->paths = np;
	h->paths_cap = cap;
	h->nr_paths = live;
	return 0;
}

/* Cache @path (taken: in h->path_pool) for @id, replacing what it had. */
static int put_path(struct memcgstat *h, uint64_t id, const char *path)
{
	struct mcs_path *p = find(h, id);
	size_t i;

	if (!path)
		return -ENOMEM;
	if (p) {
		mcs_strpool_drop(&h->path_pool, p->path);
		p->path = path;
		return 0;
	}
	if (2 * (h->nr_paths + 1) > h->paths_cap && grow_paths(h, 1)) {
		mcs_strpool_drop(&h->path_pool, path);
		return -ENOMEM;
	}
	for (i = slot_of(id, h->paths_cap); h->paths[i].id; i = (i + 1) & (h->paths_cap - 1))
		;
	h->paths[i].id = id;
	h->paths[i].path = path;
	h->paths[i].seen = h->path_gen;
	h->nr_paths++;
	return 0;
}

static int add_path(struct memcgstat *h, uint64_t id, const char *dir)
{
	const char *rel = mcs_rel_path(h, dir);

	return put_path(h, id, mcs_strpool_add(&h->path_pool, rel, strlen(rel)));
}

void mcs_paths_pack(struct memcgstat *h)
{
	struct mcs_strpool fresh;
	size_t i;

	if (!mcs_strpool_wants_pack(&h->path_pool) ||
	    mcs_strpool_pack_start(&h->path_pool, &fresh))
		return;
	for (i = 0; i < h->paths_cap; i++)
		if (h->paths[i].id)
			h->paths[i].path = mcs_strpool_move(&fresh, h->paths[i].path);
	mcs_strpool_pack_end(&h->path_pool, &fresh);
}

int mcs_path_reserve(struct memcgstat *h, size_t n)
{
	return 2 * (h->nr_paths + n) > h->paths_cap ? grow_paths(h, n) : 0;
}

size_t memcgstat__testing_nr_paths(const struct memcgstat *h)
{
	return h->nr_paths;
}

const char *mcs_path_find(struct memcgstat *h, uint64_t id)
{
	const struct mcs_path *p = find(h, id);

	return p ? p->path : NULL;
}

const char *mcs_path_add(struct memcgstat *h, uint64_t id, const char *parent,
			 const char *name, int *err)
{
	size_t pl = strcmp(parent, "/") ? strlen(parent) : 0, nl = strlen(name);
	char *path = mcs_strpool_alloc(&h->path_pool, pl + nl + 1);

	*err = -ENOMEM;
	if (!path)
		return NULL;
	memcpy(path, parent, pl);
	path[pl] = '/';
	memcpy(path + pl + 1, name, nl + 1);
	*err = put_path(h, id, path);
	return *err ? NULL : path;	/* pooled: it stays where it is */
}

int mcs_path_add_dir(struct memcgstat *h, const char *abs)
{
	struct stat st;

	if (stat(abs, &st))
		return errno == ENOENT ? 0 : -errno;
	return find(h, st.st_ino) ? 0 : add_path(h, st.st_ino, abs);
}

/*
 * The cgroups below @dir, by id. A cgroup's id is its directory's inode
 * number, which readdir() gives in d_ino: no stat() per cgroup (that took
 * 3.5 of the CLI's 4.4 s for a 10,000-cgroup snapshot under TCG).
 */
static int scan_paths(struct memcgstat *h, const char *dir, int depth)
{
	struct dirent *de;
	char sub[PATH_MAX];
	DIR *d;
	int err = 0;

	if (depth > 1024)
		return 0;	/* absurdly deep: skip */
	d = opendir(dir);
	if (!d)
		return 0;	/* gone meanwhile */
	while (!err && (de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name) >= (int)sizeof(sub))
			continue;
		err = add_path(h, de->d_ino, sub);
		if (!err)
			err = scan_paths(h, sub, depth + 1);
	}
	closedir(d);
	return err;
}

const char *mcs_path_of(struct memcgstat *h, const char *top, uint64_t id,
			bool *rescanned, int *err)
{
	const char *p = mcs_path_find(h, id);
	struct stat st;

	*err = 0;
	if (p || *rescanned)
		return p;
	*rescanned = true;
	mcs_free_paths(h);
	*err = stat(top, &st) ? 0 : add_path(h, st.st_ino, top);
	if (!*err)
		*err = scan_paths(h, top, 0);
	return *err ? NULL : mcs_path_find(h, id);
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
