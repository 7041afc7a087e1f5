// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * memcgstat-exporter's textfile for node_exporter's textfile collector:
 * written beside its final name and renamed over it, so that a reader
 * sees the old file or the new one, never a part. Only a regular file is
 * ever replaced: a rename over a device node, a FIFO or a socket would
 * put a regular file in its place (/dev/full was, once), so a target that
 * exists and is none is refused, and so is a symbolic link unless
 * --textfile-follow-symlinks says to write where it points.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include "common.h"
#include "exporter_snapshot.h"
#include "exporter_textfile.h"

static int write_all(int fd, const char *buf, size_t len)
{
	size_t off = 0;
	ssize_t n;

	while (off < len) {
		n = write(fd, buf + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		off += n;
	}
	return 0;
}

static const char *file_kind(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFDIR: return "a directory";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	case S_IFIFO: return "a FIFO";
	case S_IFSOCK: return "a socket";
	case S_IFLNK: return "a symbolic link";
	default: return "not a regular file";
	}
}

/*
 * The target of the link @base in @dirfd (@path's last component, @base
 * points into @path) that is not there yet (a link into /run, say, after
 * a boot), absolute or joined to @path's directory as given, into a
 * malloc'd *out: the rename makes it. Its directory must be there;
 * target() checks that.
 */
static int link_target(int dirfd, const char *path, const char *base, char **out)
{
	char t[PATH_MAX];
	ssize_t n = readlinkat(dirfd, base, t, sizeof(t));
	int dl = base - path;

	if (n < 0)
		return -errno;
	if ((size_t)n >= sizeof(t))
		return -ENAMETOOLONG;
	t[n] = '\0';
	if (asprintf(out, "%.*s%s", t[0] == '/' ? 0 : dl, path, t) < 0) {
		*out = NULL;
		return -ENOMEM;
	}
	return 0;
}

/*
 * The file the textfile is written to: @path itself, or with @follow
 * (--textfile-follow-symlinks) where its links lead (malloc'd in *out).
 * Splits it into its directory (opened: *dirfd) and its name (*base,
 * pointing into *out). 0, or -errno said with p_err().
 */
static int target(const char *path, bool follow, char **out, int *dirfd, const char **base)
{
	char *p, *q, *slash;
	struct stat st;
	int fd, err, links = 0;

	*out = NULL;
	*dirfd = -1;
	p = strdup(path);
	if (!p) {
		p_err("%s: out of memory", path);
		return -ENOMEM;
	}
	for (;;) {
		slash = strrchr(p, '/');
		*base = slash ? slash + 1 : p;
		if (!**base || !strcmp(*base, ".") || !strcmp(*base, "..")) {
			p_err("--textfile %s: not a file name", path);
			free(p);
			return -EINVAL;
		}
		if (slash && slash != p)
			*slash = '\0';
		fd = open(slash == p ? "/" : slash ? p : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		err = -errno;
		if (slash && slash != p)
			*slash = '/';
		if (fd < 0) {
			p_err("--textfile %s: its directory: %s", path, strerror(-err));
			free(p);
			return err;
		}
		if (fstatat(fd, *base, &st, AT_SYMLINK_NOFOLLOW)) {
			err = -errno;
			if (err == -ENOENT)
				break;	/* made by the rename */
			p_err("--textfile %s: %s", path, strerror(-err));
			goto fail;
		}
		if (S_ISREG(st.st_mode))
			break;
		if (!S_ISLNK(st.st_mode) || !follow || links++) {
			p_err("--textfile %s: %s, not replaced: give the path of a regular file%s",
			      path, file_kind(st.st_mode),
			      S_ISLNK(st.st_mode) && !follow ?
			      " (--textfile-follow-symlinks to write where it points)" : "");
			err = -EEXIST;
			goto fail;
		}
		/* where the link leads, checked as @path was */
		err = 0;
		q = realpath(path, NULL);
		if (!q && errno == ENOENT)
			err = link_target(fd, p, *base, &q);
		else if (!q)
			err = -errno;
		close(fd);
		free(p);
		p = q;
		if (err) {
			p_err("--textfile %s: the symbolic link's target: %s", path, strerror(-err));
			return err;
		}
	}
	*out = p;
	*dirfd = fd;
	return 0;
fail:
	close(fd);
	free(p);
	return err;
}

/*
 * A name beside @base that node_exporter ignores (not *.prom) until the
 * rename, made O_EXCL in @dirfd: *fd and @tmp, or -errno.
 */
static int make_temp(int dirfd, const char *base, char *tmp, size_t size, int *fd)
{
	unsigned long long r;
	int i;

	for (i = 0; i < 100; i++) {
		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			r = ((unsigned long long)getpid() << 32) ^ (unsigned long long)i;
		if (snprintf(tmp, size, ".%.200s.%016llx.tmp", base, r) >= (int)size)
			return -ENAMETOOLONG;
		*fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (*fd >= 0)
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* @buf to @path: a temporary file beside it, fsync, rename, fsync the directory. */
static int replace_file(const char *path, bool follow, const char *buf, size_t len)
{
	const char *base;
	char tmp[256], *real;
	int dirfd, fd = -1, err;

	err = target(path, follow, &real, &dirfd, &base);
	if (err)
		return err;
	err = make_temp(dirfd, base, tmp, sizeof(tmp), &fd);
	if (err) {
		p_err("cannot create a temporary file beside %s: %s", path, strerror(-err));
		goto out;
	}
	err = write_all(fd, buf, len);
	if (!err && (fchmod(fd, 0644) || fsync(fd)))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && renameat(dirfd, tmp, dirfd, base))
		err = -errno;
	if (err) {
		p_err("cannot write %s: %s", path, strerror(-err));
		unlinkat(dirfd, tmp, 0);
		goto out;
	}
	fsync(dirfd);	/* the rename itself durable */
out:
	close(dirfd);
	free(real);
	return err;
}

int check_textfile(const struct exporter *ex, const char *path)
{
	const char *base;
	char *real;
	int dirfd, err;

	err = target(path, ex->o.textfile_follow, &real, &dirfd, &base);
	if (err)
		return err;
	close(dirfd);
	free(real);
	return 0;
}

int write_textfile(struct exporter *ex, const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	struct snap s;
	int err = 0;

	read_snap(ex, &s);
	if (!s.ok)
		err = -EIO;	/* said by read_snap(); the last file stays */
	else if (snap_exposition(ex, &s, FMT_TEXT, false, &buf, &len))
		err = -ENOMEM;
	/* the snapshot serves scrapes within --min-interval too */
	install_snap(ex, &s);
	if (err == -ENOMEM)
		p_err("%s: out of memory", path);
	if (!err)
		err = replace_file(path, ex->o.textfile_follow, buf, len);
	free(buf);
	return err;
}
