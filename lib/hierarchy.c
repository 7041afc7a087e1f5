// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The memory cgroup hierarchy: its mount, its NUMA nodes, cgroup paths and
 * ids; the cache from ids to paths is path_cache.c.
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
		/*
		 * As the kernel names it (no symlink, no "/." or trailing
		 * slash): the paths of /proc/self/fd and /proc/self/mounts
		 * are compared with it.
		 */
		if (!realpath(want, h->root) || statfs(h->root, &sfs))
			return mcs_set_err(h, -errno, "cannot use %s as the memory cgroup root: %s",
					   want, strerror(errno));
		if (sfs.f_type == CGROUP2_SUPER_MAGIC && v2_has_memory(h->root))
			h->version = 2;
		else if (sfs.f_type == CGROUP_SUPER_MAGIC)
			h->version = 1;
		else
			return mcs_set_err(h, -ENOTDIR,
					   "%s is not a cgroup mount with the memory controller", want);
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
 * @cgroup, which is no directory: a file of the hierarchy (memory.stat,
 * "is not a cgroup") or outside it as its directory is (bad usage).
 */
static int not_a_dir(struct memcgstat *h, const char *cgroup)
{
	const char *slash = strrchr(cgroup, '/');
	char *dir = !slash ? strdup(".") : strndup(cgroup, slash == cgroup ? 1 : slash - cgroup);
	int fd = dir ? mcs_openat_long(AT_FDCWD, dir, O_PATH | O_DIRECTORY | O_CLOEXEC) : -ENOMEM;
	char *rel = NULL;
	int in = fd >= 0 ? rel_of_fd(h, fd, &rel) : fd;

	free(dir);
	free(rel);
	if (in == 1)
		return not_in_hierarchy(h, cgroup);
	return mcs_set_err(h, -ENOTDIR, "%s is not a cgroup", cgroup);
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
		return not_a_dir(h, cgroup);
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

int mcs_memcg_check(struct memcgstat *h, int fd, const char *cgroup, const char *abs)
{
	struct statfs sfs;

	if (h->version != 2 || !strcmp(abs, h->root) || !faccessat(fd, "memory.current", F_OK, 0))
		return 0;
	/* only a missing file says what the cgroup is; ENOMEM and the like do not */
	if (errno != ENOENT)
		return mcs_set_err(h, -errno, "cgroup %s: %s (%s/memory.current)", cgroup,
				   strerror(errno), abs);
	if (faccessat(fd, "cgroup.procs", F_OK, 0)) {
		/* removed since the open(): gone, as it would be before */
		if (errno == ENOENT)
			return mcs_set_err(h, -ENOENT, "cgroup %s: removed while read (%s)",
					   cgroup, abs);
		return mcs_set_err(h, -errno, "cgroup %s: %s (%s)", cgroup, strerror(errno), abs);
	}
	if (fstatfs(fd, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC)
		return mcs_set_err(h, -ENOTDIR, "%s is not a cgroup", abs);
	return mcs_set_err(h, -ENODATA,
			   "cgroup %s has no memory controller (enable it in the parent's cgroup.subtree_control)",
			   cgroup);
}

int mcs_cgroup_check(struct memcgstat *h, const char *cgroup, const char *abs,
		     uint64_t *id)
{
	int fd = mcs_openat_long(AT_FDCWD, abs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;
	int err;

	if (fd == -ENOTDIR)
		return mcs_set_err(h, -ENOTDIR, "%s is not a cgroup", abs);
	if (fd < 0)
		return mcs_set_err(h, fd, "cgroup %s: %s (%s)", cgroup, strerror(-fd), abs);
	if (fstat(fd, &st)) {
		err = mcs_set_err(h, -errno, "cgroup %s: %s (%s)", cgroup, strerror(errno), abs);
	} else {
		*id = st.st_ino;
		err = mcs_memcg_check(h, fd, cgroup, abs);
	}
	if (!err)
		return fd;
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
