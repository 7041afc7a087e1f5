// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A cgroup opened by its id, for reads by id that go by path: at its
 * cached path if that is still the id's, else looked up in the kernel
 * through a file handle, else found by a scan of the hierarchy; and the
 * ids of removed cgroups a handle remembers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cgroup_id.h"
#include "handle.h"
#include "hierarchy.h"
#include "path_cache.h"

/* @fd is the directory of the cgroup with @id, and not another's. */
static bool is_id(int fd, uint64_t id)
{
	struct stat st;

	return !fstat(fd, &st) && st.st_ino == id;
}

/*
 * The cgroup @id at @rel (below the root) opened: an fd and *abs, or
 * -ENOENT where no directory there is @id's (a cgroup made since at the
 * path of a removed one is not it), or -errno with the message.
 */
static int open_rel(struct memcgstat *h, const char *rel, uint64_t id, int flags,
		    char *buf, size_t size, char **abs)
{
	int fd;

	*abs = mcs_join(h->root, rel, buf, size);
	if (!*abs)
		return mcs_set_err(h, -ENOMEM, "out of memory");
	fd = mcs_openat_long(AT_FDCWD, *abs, flags);
	if (fd >= 0 && !is_id(fd, id)) {
		close(fd);
		fd = -ENOENT;
	}
	if (fd == -ENOTDIR)
		fd = -ENOENT;
	if (fd < 0 && fd != -ENOENT)
		fd = mcs_set_err(h, fd, "cannot open cgroup %s: %s", *abs, strerror(-fd));
	if (fd < 0)
		mcs_abs_free(*abs, buf);
	return fd;
}

/* open_by_id()'s answer where the kernel would not tell: scan. */
#define NO_ANSWER	(-EOPNOTSUPP)

/*
 * A kernfs file handle: the node's 64-bit id, which is the cgroup id and
 * the inode number. Taken as that only where the root's handle is its own
 * inode number (h->fh_type: 0 not asked yet, -1 no such handles).
 */
union kernfs_fh {
	struct file_handle fh;
	char room[sizeof(struct file_handle) + sizeof(uint64_t)];
};

static int fh_type(struct memcgstat *h, int mnt)
{
	union kernfs_fh k = { .fh.handle_bytes = sizeof(uint64_t) };
	struct stat st;
	uint64_t id;
	int mount_id;

	if (h->fh_type)
		return h->fh_type;
	h->fh_type = -1;
	if (!fstat(mnt, &st) &&
	    !name_to_handle_at(mnt, "", &k.fh, &mount_id, AT_EMPTY_PATH) &&
	    k.fh.handle_bytes == sizeof(id)) {
		memcpy(&id, k.fh.f_handle, sizeof(id));
		if (id == st.st_ino)
			h->fh_type = k.fh.handle_type;
	}
	return h->fh_type;
}

/*
 * The cgroup @id opened by its file handle, a lookup of the id in the
 * kernel, no path: an fd and *abs (from /proc/self/fd), -ENOENT if no
 * cgroup has it, NO_ANSWER where handles are not to be had (no
 * CAP_DAC_READ_SEARCH, no /proc) or the cgroup is not below h->root as it
 * is named (a root given through a symlink), or another -errno with the
 * message (EMFILE, say).
 */
static int open_by_id(struct memcgstat *h, uint64_t id, int flags, char *buf, size_t size,
		      char **abs)
{
	union kernfs_fh k = { .fh.handle_bytes = sizeof(id) };
	size_t rl = strlen(h->root);
	char link[32];
	int mnt, fd, err;
	ssize_t n;

	if (h->fh_type < 0)
		return NO_ANSWER;
	mnt = open(h->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mnt < 0)
		return NO_ANSWER;
	k.fh.handle_type = fh_type(h, mnt);
	memcpy(k.fh.f_handle, &id, sizeof(id));
	fd = k.fh.handle_type < 0 ? -1 : open_by_handle_at(mnt, &k.fh, flags);
	err = fd < 0 && k.fh.handle_type >= 0 ? errno : 0;
	close(mnt);
	switch (err) {
	case 0:
		break;
	case ESTALE:	/* no such node */
	case ENOTDIR:	/* a file's */
	case ENOENT:
		return -ENOENT;
	case EPERM:	/* no CAP_DAC_READ_SEARCH */
	case EOPNOTSUPP:
	case EINVAL:
	case ENOSYS:
		h->fh_type = -1;
		return NO_ANSWER;
	default:
		return mcs_set_err(h, -err, "cannot open cgroup id %llu: %s",
				   (unsigned long long)id, strerror(err));
	}
	if (fd < 0)
		return NO_ANSWER;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, size);
	if (n < 0 && errno == ENOENT)
		h->fh_type = -1;	/* no /proc */
	if (n > 0 && (size_t)n < size)
		buf[n] = '\0';
	/* removed meanwhile: its path says " (deleted)", its reads -ENOENT */
	if (n > 0 && (size_t)n < size && !strncmp(buf, h->root, rl) &&
	    (buf[rl] == '/' || !buf[rl])) {
		*abs = buf;
		return fd;
	}
	close(fd);
	return NO_ANSWER;
}

/*
 * Ids of removed cgroups, so that a caller who reads a removed cgroup's
 * id again and again pays a look at MCS_GONE ids a read, not a scan of the
 * hierarchy or a lookup through a file handle. Cgroup ids are not reused:
 * an id the kernel's lookup of file handles does not know is gone for
 * good. So, on cgroup v2, is one whose cached path leads to another
 * cgroup now (no rename moves a v2 cgroup), and one that a scan of the
 * whole hierarchy did not meet: an id is asked for once its cgroup was
 * there (a caller has it from a read or a stat()), and a scan that began
 * after then would have met it. Not from v1 scans, which a rename can
 * pass by, nor from a scan that skipped a directory it could not read.
 */
static bool known_gone(const struct memcgstat *h, uint64_t id)
{
	unsigned int i, n = h->nr_gone < MCS_GONE ? h->nr_gone : MCS_GONE;

	for (i = 0; i < n; i++)
		if (h->gone[i] == id)
			return true;
	return false;
}

static void put_gone(struct memcgstat *h, uint64_t id)
{
	if (!known_gone(h, id))
		h->gone[h->nr_gone++ % MCS_GONE] = id;
}

/*
 * What a scan that did not meet @id says of it: -ENOENT, or where it
 * skipped a directory it could not read (the cgroup may be below it)
 * -EACCES without a message (a row's status), or another -errno with one.
 */
static int scan_missed(struct memcgstat *h, uint64_t id)
{
	if (h->version == 2 && h->scan_whole)
		put_gone(h, id);
	if (!h->scan_skip || h->scan_skip == ENOENT)
		return -ENOENT;
	if (h->scan_skip == EACCES || h->scan_skip == EPERM)
		return -EACCES;
	return mcs_set_err(h, -h->scan_skip, "cannot look for cgroup id %llu in %s: %s",
			   (unsigned long long)id, h->root, strerror(h->scan_skip));
}

int mcs_open_id(struct memcgstat *h, uint64_t id, const char *rel, int flags, char *buf,
		size_t size, char **abs, bool *rescanned)
{
	struct stat st;
	int fd, err = 0;

	flags |= O_DIRECTORY | O_CLOEXEC;
	if (!rel)
		rel = mcs_path_find(h, id);
	if (rel) {
		fd = open_rel(h, rel, id, flags, buf, size, abs);
		if (fd != -ENOENT)
			return fd;
		/* v2 refuses rename(2): a cached path that is not the id's is its end */
		if (h->version == 2) {
			put_gone(h, id);
			return fd;
		}
	}
	if (known_gone(h, id))
		return -ENOENT;
	fd = open_by_id(h, id, flags, buf, size, abs);
	if (fd >= 0) {
		/* not a path the cgroup left while it was looked up ("x (deleted)") */
		if (!mcs_stat_long(*abs, &st) && st.st_ino == id)
			err = mcs_path_put(h, id, *abs);
		if (err) {
			close(fd);
			return mcs_set_err(h, err, "out of memory");
		}
		return fd;
	}
	if (fd == -ENOENT)
		put_gone(h, id);
	if (fd != NO_ANSWER)
		return fd;
	if (*rescanned)		/* this call's scan, which began after the caller had the id */
		return scan_missed(h, id);
	rel = mcs_path_rescan(h, h->root, id, rescanned, &err);
	if (err)
		return mcs_set_err(h, err, "out of memory");
	if (!rel)
		return scan_missed(h, id);
	return open_rel(h, rel, id, flags, buf, size, abs);
}
