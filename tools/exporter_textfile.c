// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * memcgstat-exporter's textfile for node_exporter's textfile collector:
 * written beside its final name and renamed over it, so that a reader
 * sees the old file or the new one, never a part.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "common.h"
#include "exporter.h"

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

/* @buf to @path: a temporary file beside it, fsync, rename. */
static int replace_file(const char *path, const char *buf, size_t len)
{
	char tmp[4096], dir[4096];
	int fd, err;

	/* a name node_exporter ignores (not *.prom) until the rename */
	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp)) {
		p_err("%s: path too long", path);
		return -ENAMETOOLONG;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = -errno;
		p_err("cannot create a temporary file beside %s: %s", path, strerror(errno));
		return err;
	}
	err = write_all(fd, buf, len);
	if (!err && (fchmod(fd, 0644) || fsync(fd)))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err) {
		p_err("cannot write %s: %s", path, strerror(-err));
		unlink(tmp);
		return err;
	}
	/* the rename itself durable */
	snprintf(dir, sizeof(dir), "%s", path);
	fd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	return 0;
}

int write_textfile(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	struct snap s;
	int err = 0;

	read_snap(&s);
	if (!s.ok)
		err = -EIO;	/* said by read_snap(); the last file stays */
	else if (snap_exposition(&s, FMT_TEXT, &buf, &len))
		err = -ENOMEM;
	/* the snapshot serves scrapes within --min-interval too */
	install_snap(&s);
	if (err == -ENOMEM)
		p_err("%s: out of memory", path);
	if (!err)
		err = replace_file(path, buf, len);
	free(buf);
	return err;
}
