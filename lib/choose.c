// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * MEMCGSTAT_BACKEND_AUTO for a caller that knows how many reads it will
 * make (memcgstat_opts.expected_reads): bpf only where loading it costs
 * less than the reads save.
 *
 * Loading costs the same whatever is read; a read saves per cgroup. At open
 * the library knows the number of reads but not the cgroups each covers,
 * so a handle that could go either way opens on the text backend (it costs
 * little) and decides at its first read, which names them: one cgroup, a
 * list of ids, or a tree, counted as cgroup.stat counts it (v2) or by its
 * directories (v1, up to the count that decides). That read and the rest
 * are taken to cover as many. The choice is final: every read of a handle
 * comes from one backend.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "handle.h"

/* @a * @b, or LONG_MAX if that is more: both > 0. */
static long mul_sat(long a, long b)
{
	return a > LONG_MAX / b ? LONG_MAX : a * b;
}

int mcs_auto_open(struct memcgstat *h)
{
	unsigned int flags = h->flags;
	int err;

	h->ops = &mcs_text_backend;
	/* memcgstat_pin()'s programs: opening them costs less than text */
	if ((flags & MEMCGSTAT_PINNED) && !(flags & (MEMCGSTAT_LOCAL | MEMCGSTAT_NUMA))) {
		h->flags |= MEMCGSTAT_PIN_REQUIRED;
		err = mcs_bpf_probe(h);
		h->flags = flags;
		if (!err) {
			h->ops = &mcs_bpf_backend;
			snprintf(h->reason, sizeof(h->reason),
				 "memcgstat_pin()'s programs cost less to open than the text backend");
			return 0;
		}
		if (err == -ENOMEM || (flags & MEMCGSTAT_PIN_REQUIRED))
			return err;
		h->err[0] = '\0';
	}
	/* where bpf cannot run at all, no need to wait: that is the reason */
	err = mcs_bpf_may_load(h);
	if (err) {
		snprintf(h->reason, sizeof(h->reason), "%s", h->err);
		h->err[0] = '\0';
		return err == -ENOMEM ? err : 0;
	}
	h->undecided = true;
	return 0;
}

/*
 * The directories below the directory @dfd (closed here), added to *@n
 * while it is below @limit: 0 or a negative errno. kernfs fills in d_type.
 */
static int count_dirs(int dfd, long limit, long *n)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;
	int fd, err = 0;

	if (!d) {
		err = -errno;
		close(dfd);
		return err;
	}
	while (!err && *n < limit) {
		errno = 0;
		e = readdir(d);
		if (!e) {
			err = -errno;
			break;
		}
		if (e->d_type != DT_DIR || !strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		fd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			/* removed since readdir(): not a cgroup the read will meet */
			if (errno != ENOENT)
				err = -errno;
			continue;
		}
		++*n;
		err = count_dirs(fd, limit, n);
	}
	closedir(d);
	return err;
}

/*
 * The cgroups of the tree at the directory @fd into *@n, counted up to
 * @limit on cgroup v1: 0, or a negative errno. On v2 the live ones, as a
 * snapshot meets them (cgroup.stat's nr_descendants, not the dying).
 */
static int tree_size(struct memcgstat *h, int fd, long limit, long *n)
{
	char buf[256], *p;
	long long v;
	ssize_t len;
	int sfd, dfd;

	if (h->version == 1) {
		dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0)
			return -errno;
		*n = 1;
		return count_dirs(dfd, limit, n);
	}
	sfd = openat(fd, "cgroup.stat", O_RDONLY | O_CLOEXEC);
	if (sfd < 0)
		return -errno;
	len = read(sfd, buf, sizeof(buf) - 1);
	close(sfd);
	if (len < 0)
		return -errno;
	buf[len] = '\0';
	p = strstr(buf, "nr_descendants ");
	if (!p || (p != buf && p[-1] != '\n') ||
	    sscanf(p, "nr_descendants %lld", &v) != 1 || v < 0 || v >= LONG_MAX)
		return -EPROTO;
	*n = v + 1;
	return 0;
}

/* The bpf backend for the rest of the handle's life, or text and why not. */
static int take_bpf(struct memcgstat *h)
{
	char why[sizeof(h->reason)];
	int err;

	snprintf(why, sizeof(why), "%s", h->reason);
	h->reason[0] = '\0';
	err = mcs_bpf_probe(h);
	if (!err) {
		h->ops = &mcs_bpf_backend;
		err = h->ops->open(h);
		if (!err) {
			snprintf(h->reason, sizeof(h->reason), "%s", why);
			return 0;
		}
		h->ops->close(h);
		h->ops = &mcs_text_backend;
		h->query = h->last_query = MEMCGSTAT_QUERY_AUTO;
		h->query_reason[0] = '\0';
		h->kfuncs = NULL;
	}
	if (err == -ENOMEM)
		return err;
	/* as auto does at open: the reason, and text */
	snprintf(h->reason, sizeof(h->reason), "%s", h->err);
	h->err[0] = '\0';
	return 0;
}

int mcs_auto_decide(struct memcgstat *h, int fd, size_t nr)
{
	long limit, n = nr, reads;
	bool more = false;
	int err = 0;

	if (!h->undecided)
		return 0;
	h->undecided = false;
	limit = (MEMCGSTAT_BPF_PAYS_AFTER + h->expected_reads - 1) / h->expected_reads;
	if (fd >= 0)
		err = tree_size(h, fd, limit, &n);
	if (err) {
		/* the read says what is wrong with the cgroup; text costs least */
		snprintf(h->reason, sizeof(h->reason),
			 "the cgroups of the first read could not be counted: %s", strerror(-err));
		return 0;
	}
	more = h->version == 1 && fd >= 0 && n >= limit;
	reads = mul_sat(h->expected_reads, n ? n : 1);
	if (reads < MEMCGSTAT_BPF_PAYS_AFTER) {
		snprintf(h->reason, sizeof(h->reason),
			 "%ld cgroup read%s cost%s less than loading the bpf backend",
			 reads, reads == 1 ? "" : "s", reads == 1 ? "s" : "");
		return 0;
	}
	snprintf(h->reason, sizeof(h->reason), "%ld%s cgroup reads pay for loading the bpf backend",
		 reads, more ? " or more" : "");
	return take_bpf(h);
}
