// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The memory cgroup hierarchy: its mount, its NUMA nodes, cgroup paths and
 * ids (with a cache from ids to paths), and the stats its files show.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
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
	uint32_t len;		/* strlen(path) */
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

/*
 * Paths of any length. The kernel takes at most PATH_MAX bytes in one
 * path argument, and a cgroup tree can be deeper than that (40 levels of
 * 250-byte names are 10,000 bytes): such a path is opened a run of whole
 * components at a time, each run (under PATH_MAX) relative to the
 * directory the one before opened. A shorter path takes one openat(), as
 * before.
 */
int mcs_openat_long(int dirfd, const char *path, int flags)
{
	char run[PATH_MAX];
	const char *p = path;
	int fd = dirfd, nfd;
	size_t n;

	if (strlen(p) < PATH_MAX) {
		nfd = openat(dirfd, p, flags);
		return nfd < 0 ? -errno : nfd;
	}
	if (*p == '/') {
		fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		while (*p == '/')
			p++;
	}
	for (;;) {
		bool last;

		n = strlen(p);
		if (n >= PATH_MAX) {
			/* the longest run of whole components that fits */
			for (n = PATH_MAX - 1; n && p[n] != '/'; n--)
				;
			if (!n) {
				nfd = -ENAMETOOLONG;
				break;
			}
		}
		memcpy(run, p, n);
		run[n] = '\0';
		for (p += n; *p == '/'; p++)
			;
		last = !*p;
		nfd = openat(fd, run, last ? flags : O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (nfd < 0)
			nfd = -errno;
		if (fd != dirfd)
			close(fd);
		if (nfd < 0 || last)
			return nfd;
		fd = nfd;
	}
	if (fd != dirfd)
		close(fd);
	return nfd;
}

int mcs_stat_long(const char *abs, struct stat *st)
{
	int fd, err = 0;

	if (strlen(abs) < PATH_MAX)
		return stat(abs, st) ? -errno : 0;
	fd = mcs_openat_long(AT_FDCWD, abs, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return fd;
	if (fstat(fd, st))
		err = -errno;
	close(fd);
	return err;
}

/*
 * The absolute path @a, then the components of @b below it (NULL: none),
 * without ".", ".." and empty components, into @buf (room for both and 2).
 */
static void normalize(const char *a, const char *b, char *buf)
{
	const char *parts[2] = { a, b }, *p, *end;
	size_t n = 0, len;
	int i;

	for (i = 0; i < 2 && parts[i]; i++) {
		for (p = parts[i]; *p; p = end) {
			while (*p == '/')
				p++;
			end = strchrnul(p, '/');
			len = end - p;
			if (len == 2 && !memcmp(p, "..", 2)) {
				while (n > 0 && buf[--n] != '/')
					;	/* back to the parent ("/" stays) */
			} else if (len && !(len == 1 && *p == '.')) {
				buf[n++] = '/';
				memcpy(buf + n, p, len);
				n += len;
			}
		}
	}
	if (!n)
		buf[n++] = '/';
	buf[n] = '\0';
}

/* Whether @path lies at or below the mount (as a string). */
static bool in_root(const struct memcgstat *h, const char *path)
{
	size_t rl = strlen(h->root);

	return !strncmp(path, h->root, rl) && (path[rl] == '/' || path[rl] == '\0');
}

static int not_in_hierarchy(struct memcgstat *h, const char *cgroup)
{
	return mcs_set_err(h, -EINVAL, "%s: not in the memory hierarchy (mounted at %s)",
			   cgroup, h->root);
}

/* Prepend "/@name" to the path growing leftwards in *@buf from *@start. */
static int prepend(char **buf, size_t *cap, size_t *start, const char *name)
{
	size_t nl = strlen(name) + 1, used = *cap - *start;
	char *nb;

	if (nl >= *start) {	/* a byte left for the NUL */
		size_t ncap = 2 * (*cap + nl);

		nb = malloc(ncap);
		if (!nb)
			return -ENOMEM;
		memcpy(nb + ncap - used, *buf + *start, used);
		free(*buf);
		*buf = nb;
		*start = ncap - used;
		*cap = ncap;
	}
	*start -= nl;
	(*buf)[*start] = '/';
	memcpy(*buf + *start + 1, name, nl - 1);
	return 0;
}

/*
 * The name in the directory @parent (taken, closed) of its subdirectory
 * with inode @ino, prepended to the path in *@buf; 1 if it has none.
 */
static int name_in(int parent, ino_t ino, char **buf, size_t *cap, size_t *start)
{
	DIR *d = fdopendir(parent);
	struct dirent *de;
	int err = 1;

	if (!d) {
		err = -errno;
		close(parent);
		return err;
	}
	while (err == 1 && (de = readdir(d)))
		if (de->d_ino == ino && strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			err = prepend(buf, cap, start, de->d_name);
	closedir(d);
	return err;
}

/*
 * The directory open at @fd (taken, closed) as a path below the mount, in
 * a malloc'd *@rel ("" for the mount itself): up through "..", each
 * directory's name found in its parent by inode number, until the mount's
 * root. 1 if the way up leaves the mount's file system or reaches "/"
 * first: not in the hierarchy. No PATH_MAX limit, unlike getcwd() and
 * realpath(), and no more than one directory listing per level.
 */
static int rel_of_fd(const struct memcgstat *h, int fd, char **rel)
{
	size_t cap = 256, start = cap;
	struct stat root, st, pst;
	char *buf = malloc(cap);
	int parent, err = 0;

	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	if (stat(h->root, &root) || fstat(fd, &st))
		err = -errno;
	while (!err) {
		if (st.st_dev != root.st_dev) {
			err = 1;
			break;
		}
		if (st.st_ino == root.st_ino)
			break;
		parent = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (parent < 0 || fstat(parent, &pst)) {
			err = -errno;
			if (parent >= 0)
				close(parent);
			break;
		}
		if (pst.st_dev == st.st_dev && pst.st_ino == st.st_ino) {
			close(parent);
			err = 1;	/* "/" */
			break;
		}
		close(fd);
		fd = dup(parent);
		if (fd < 0) {
			err = -errno;
			close(parent);
			break;
		}
		err = name_in(parent, st.st_ino, &buf, &cap, &start);
		if (err == 1)
			err = -ENOENT;	/* moved or removed meanwhile */
		st = pst;
	}
	close(fd);
	if (!err) {
		memmove(buf, buf + start, cap - start);
		buf[cap - start] = '\0';
		*rel = buf;
		return 0;
	}
	free(buf);
	return err;
}

/*
 * @cgroup, which the file system must resolve ("./x", "../x", or an
 * absolute path outside the mount that may lead into it by a symlink), as
 * an absolute path in the mount.
 */
static int resolve(struct memcgstat *h, const char *cgroup, char **out)
{	/* *out: malloc'd */
	int fd = mcs_openat_long(AT_FDCWD, cgroup, O_PATH | O_DIRECTORY | O_CLOEXEC), err;
	size_t rl = strlen(h->root);
	char *rel;

	if (fd == -ENOTDIR)
		return mcs_set_err(h, -ENOTDIR, "%s is not a cgroup", cgroup);
	if (fd < 0)
		return mcs_set_err(h, fd, "cgroup %s: %s", cgroup, strerror(-fd));
	err = rel_of_fd(h, fd, &rel);
	if (err == 1)
		return not_in_hierarchy(h, cgroup);
	if (err == -ENOMEM)
		return mcs_set_err(h, err, "out of memory");
	if (err)
		return mcs_set_err(h, err, "cgroup %s: %s", cgroup, strerror(-err));
	*out = malloc(rl + strlen(rel) + 1);
	if (*out) {
		memcpy(*out, h->root, rl);
		strcpy(*out + rl, rel);
	}
	free(rel);
	return *out ? 0 : mcs_set_err(h, -ENOMEM, "out of memory");
}

/*
 * An absolute @cgroup outside the mount, *@out the path below the mount it
 * names as a cgroup path ("/ua/a", as results print it): that, if it is
 * there; else, if @cgroup itself leads into the mount (a symlink), where it
 * leads; a directory elsewhere is not in the hierarchy; neither there:
 * *@out as it was, for the read to say so.
 */
static int outside_abs(struct memcgstat *h, const char *cgroup, char *buf, char **out)
{
	struct stat st;
	char *res = NULL;
	int err = mcs_stat_long(*out, &st);

	if (err != -ENOENT)
		return 0;	/* there (or the read says what else) */
	err = resolve(h, cgroup, &res);
	if (err == -ENOENT) {
		h->err[0] = '\0';
		return 0;
	}
	mcs_abs_free(*out, buf);
	*out = err ? NULL : res;
	return err;
}

/* ".", "..", or a path that starts with "./" or "../" */
static bool from_cwd(const char *cgroup)
{
	return !strcmp(cgroup, ".") || !strcmp(cgroup, "..") ||
		!strncmp(cgroup, "./", 2) || !strncmp(cgroup, "../", 3);
}

void mcs_abs_free(char *abs, const char *buf)
{
	if (abs != buf)
		free(abs);
}

int mcs_cgroup_abs(struct memcgstat *h, const char *cgroup, char *buf, size_t size,
		   char **out)
{
	size_t need;
	bool as_is;

	*out = NULL;
	if (!cgroup || !*cgroup)
		return mcs_set_err(h, -EINVAL, "empty cgroup path");
	if (from_cwd(cgroup))
		return resolve(h, cgroup, out);
	/* an absolute path inside the mount as it is, any other below it */
	as_is = in_root(h, cgroup);
	need = strlen(cgroup) + (as_is ? 0 : strlen(h->root)) + 2;
	*out = need <= size ? buf : malloc(need);	/* a read allocates nothing */
	if (!*out)
		return mcs_set_err(h, -ENOMEM, "out of memory");
	normalize(as_is ? cgroup : h->root, as_is ? NULL : cgroup, *out);
	/* "a/../..", "$M/../cpu" and the like leave the hierarchy */
	if (!in_root(h, *out)) {
		mcs_abs_free(*out, buf);
		*out = NULL;
		return not_in_hierarchy(h, cgroup);
	}
	return cgroup[0] == '/' && !as_is ? outside_abs(h, cgroup, buf, out) : 0;
}

char *mcs_join(const char *root, const char *rel, char *buf, size_t size)
{
	size_t rl = strlen(root), n = strcmp(rel, "/") ? strlen(rel) : 0;
	char *p = rl + n < size ? buf : malloc(rl + n + 1);

	if (p) {
		memcpy(p, root, rl);
		memcpy(p + rl, rel, n);
		p[rl + n] = '\0';
	}
	return p;
}

int mcs_cgroup_check(struct memcgstat *h, const char *cgroup, const char *abs,
		     uint64_t *id)
{
	int fd = mcs_openat_long(AT_FDCWD, abs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct statfs sfs;
	struct stat st;
	int err = 0;

	if (fd == -ENOTDIR)
		return mcs_set_err(h, -ENOTDIR, "%s is not a cgroup", abs);
	if (fd < 0)
		return mcs_set_err(h, fd, "cgroup %s: %s (%s)", cgroup, strerror(-fd), abs);
	if (fstat(fd, &st)) {
		err = mcs_set_err(h, -errno, "cgroup %s: %s (%s)", cgroup, strerror(errno), abs);
		goto out;
	}
	*id = st.st_ino;
	if (h->version != 2 || !strcmp(abs, h->root) || !faccessat(fd, "memory.current", F_OK, 0))
		return fd;
	/* only a missing file says what the cgroup is; ENOMEM and the like do not */
	if (errno != ENOENT) {
		err = mcs_set_err(h, -errno, "cgroup %s: %s (%s/memory.current)", cgroup,
				  strerror(errno), abs);
	} else if (faccessat(fd, "cgroup.procs", F_OK, 0)) {
		/* removed since the open(): gone, as it would be before */
		if (errno == ENOENT)
			err = mcs_set_err(h, -ENOENT, "cgroup %s: removed while read (%s)",
					  cgroup, abs);
		else
			err = mcs_set_err(h, -errno, "cgroup %s: %s (%s)", cgroup,
					  strerror(errno), abs);
	} else if (fstatfs(fd, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC) {
		err = mcs_set_err(h, -ENOTDIR, "%s is not a cgroup", abs);
	} else {
		err = mcs_set_err(h, -ENODATA,
				  "cgroup %s has no memory controller (enable it in the parent's cgroup.subtree_control)",
				  cgroup);
	}
out:
	close(fd);
	return err;
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
 * the entries in h->paths, in the order they came (at most half of
 * h->paths_cap), and an open-addressing hash of h->paths_cap slots (a power
 * of two) holding an entry's index + 1, 0 in an empty slot. Four bytes a
 * slot: a first snapshot of 10,001 cgroups cleared 786 KB with the entries
 * in the slots themselves (memset, 0.8 M guest instructions of its 14.1 M;
 * bench/insn profile of make bench's 4.first.10001).
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
	free(h->path_slots);
	h->paths = NULL;
	h->path_slots = NULL;
	h->nr_paths = h->paths_cap = 0;
}

static size_t slot_of(uint64_t id, size_t cap)
{
	return (id * 0x9e3779b97f4a7c15ULL >> 17) & (cap - 1);
}

static struct mcs_path *find(struct memcgstat *h, uint64_t id)
{
	size_t i, mask = h->paths_cap - 1;
	struct mcs_path *p;

	if (!h->paths_cap)
		return NULL;
	for (i = slot_of(id, h->paths_cap); h->path_slots[i]; i = (i + 1) & mask) {
		p = &h->paths[h->path_slots[i] - 1];
		if (p->id == id) {
			p->seen = h->path_gen;
			return p;
		}
	}
	return NULL;
}

static bool stale(const struct memcgstat *h, const struct mcs_path *p)
{
	return (uint32_t)(h->path_gen - p->seen) > MCS_PATH_KEEP;
}

/* Entry @e (an index of h->paths) into the hash, for an id not in it. */
static void link_path(struct memcgstat *h, uint32_t e)
{
	size_t i, mask = h->paths_cap - 1;

	for (i = slot_of(h->paths[e].id, h->paths_cap); h->path_slots[i]; i = (i + 1) & mask)
		;
	h->path_slots[i] = e + 1;
}

/*
 * Room for @more entries: the table again without its stale entries, in
 * as many slots as keep it at most half full (at least 512).
 */
static int grow_paths(struct memcgstat *h, size_t more)
{
	size_t cap = 512, live = 0, i;
	struct mcs_path *np;
	uint32_t *ns;

	for (i = 0; i < h->nr_paths; i++)
		live += !stale(h, &h->paths[i]);
	while (2 * (live + more) > cap)
		cap *= 2;
	if (cap / 2 > UINT32_MAX - 1)
		return -ENOMEM;
	ns = calloc(cap, sizeof(*ns));
	np = malloc(cap / 2 * sizeof(*np));
	if (!ns || !np) {
		free(ns);
		free(np);
		return -ENOMEM;
	}
	live = 0;
	for (i = 0; i < h->nr_paths; i++) {
		if (stale(h, &h->paths[i]))
			mcs_strpool_drop(&h->path_pool, h->paths[i].path);
		else
			np[live++] = h->paths[i];
	}
	free(h->paths);
	free(h->path_slots);
	h->paths = np;
	h->path_slots = ns;
	h->paths_cap = cap;
	h->nr_paths = live;
	for (i = 0; i < live; i++)
		link_path(h, i);
	return 0;
}

/* Cache @path (taken: in h->path_pool) of @len for @id, not in the cache. */
static int put_new_path(struct memcgstat *h, uint64_t id, const char *path, size_t len)
{
	struct mcs_path *p;

	if (!path)
		return -ENOMEM;
	if (2 * (h->nr_paths + 1) > h->paths_cap && grow_paths(h, 1)) {
		mcs_strpool_drop(&h->path_pool, path);
		return -ENOMEM;
	}
	p = &h->paths[h->nr_paths];
	p->id = id;
	p->path = path;
	p->len = len;
	p->seen = h->path_gen;
	link_path(h, h->nr_paths++);
	return 0;
}

/* Cache @path (taken: in h->path_pool) for @id, replacing what it had. */
static int put_path(struct memcgstat *h, uint64_t id, const char *path)
{
	struct mcs_path *p = find(h, id);

	if (!path)
		return -ENOMEM;
	if (!p)
		return put_new_path(h, id, path, strlen(path));
	mcs_strpool_drop(&h->path_pool, p->path);
	p->path = path;
	p->len = strlen(path);
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
	for (i = 0; i < h->nr_paths; i++)
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

const char *mcs_path_get(struct memcgstat *h, uint64_t id, size_t *len)
{
	const struct mcs_path *p = find(h, id);

	if (!p)
		return NULL;
	*len = p->len;
	return p->path;
}

const char *mcs_path_add(struct memcgstat *h, uint64_t id, const char *parent, size_t pl,
			 const char *name, size_t *len, int *err)
{
	size_t nl = strlen(name);
	char *path;

	if (pl == 1 && parent[0] == '/')
		pl = 0;
	*len = pl + nl + 1;
	path = mcs_strpool_alloc(&h->path_pool, *len);
	*err = -ENOMEM;
	if (!path)
		return NULL;
	memcpy(path, parent, pl);
	path[pl] = '/';
	memcpy(path + pl + 1, name, nl + 1);
	*err = put_new_path(h, id, path, *len);
	return *err ? NULL : path;	/* pooled: it stays where it is */
}

int mcs_path_add_dir(struct memcgstat *h, const char *abs)
{
	struct stat st;
	int err = mcs_stat_long(abs, &st);

	if (err)
		return err == -ENOENT ? 0 : err;
	return find(h, st.st_ino) ? 0 : add_path(h, st.st_ino, abs);
}

int mcs_pathbuf_init(struct mcs_pathbuf *b, const char *abs)
{
	b->len = strlen(abs);
	b->cap = b->len + 512;
	b->s = malloc(b->cap);
	if (!b->s)
		return -ENOMEM;
	memcpy(b->s, abs, b->len + 1);
	return 0;
}

int mcs_pathbuf_push(struct mcs_pathbuf *b, const char *name)
{
	size_t nl = strlen(name);
	char *ns;

	if (b->len + nl + 2 > b->cap) {
		ns = realloc(b->s, 2 * (b->len + nl + 2));
		if (!ns)
			return -ENOMEM;
		b->s = ns;
		b->cap = 2 * (b->len + nl + 2);
	}
	b->s[b->len++] = '/';
	memcpy(b->s + b->len, name, nl + 1);
	b->len += nl;
	return 0;
}

void mcs_pathbuf_pop(struct mcs_pathbuf *b, size_t len)
{
	b->len = len;
	b->s[len] = '\0';
}

/*
 * The cgroups below the directory open at @fd (taken, closed), whose path
 * is in @p, by id. A cgroup's id is its directory's inode number, which
 * readdir() gives in d_ino: no stat() per cgroup (that took 3.5 of the
 * CLI's 4.4 s for a 10,000-cgroup snapshot under TCG). Each directory is
 * opened relative to its parent: no path length limits the scan.
 */
static int scan_paths(struct memcgstat *h, int fd, struct mcs_pathbuf *p, int depth)
{
	size_t len = p->len;
	struct dirent *de;
	int err = 0, sub;
	DIR *d;

	if (depth > 1024) {
		close(fd);
		return 0;	/* absurdly deep: skip */
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;	/* gone meanwhile */
	}
	while (!err && (de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		err = mcs_pathbuf_push(p, de->d_name);
		if (!err)
			err = add_path(h, de->d_ino, p->s);
		if (!err) {
			sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (sub >= 0)	/* else gone meanwhile */
				err = scan_paths(h, sub, p, depth + 1);
		}
		mcs_pathbuf_pop(p, len);
	}
	closedir(d);
	return err;
}

const char *mcs_path_of(struct memcgstat *h, const char *top, uint64_t id,
			bool *rescanned, int *err)
{
	const char *p = mcs_path_find(h, id);
	struct mcs_pathbuf pb;
	struct stat st;
	int fd;

	*err = 0;
	if (p || *rescanned)
		return p;
	*rescanned = true;
	mcs_free_paths(h);
	fd = mcs_openat_long(AT_FDCWD, top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return NULL;	/* gone */
	if (fstat(fd, &st)) {
		close(fd);
		return NULL;
	}
	*err = add_path(h, st.st_ino, top);
	if (!*err)
		*err = mcs_pathbuf_init(&pb, top);
	if (*err) {
		close(fd);
		return NULL;
	}
	*err = scan_paths(h, fd, &pb, 0);
	free(pb.s);
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
