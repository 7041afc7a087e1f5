// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Pins: memcgstat_pin() leaves a handle's programs and maps in a directory
 * of bpffs named for this build, with what a handle needs to read with
 * them; a later handle takes them without vmlinux BTF or a load.
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
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <bpf/bpf.h>
#include "bpf_backend.h"
#include "memcg_iter.skel.h"
#include "memcg_pin_id.h"

/*
 * Every handle on the pins shares their maps: a read holds the pin
 * directory's flock() from the first write to them to the last read.
 */
int mcs_bpf_lock_pins(struct memcgstat *h)
{
	struct mcs_bpf *b = bpf_of(h);

	if (b->pin_fd < 0)
		return 0;
	while (flock(b->pin_fd, LOCK_EX))
		if (errno != EINTR)
			return mcs_set_err(h, -errno, "cannot lock the pinned programs: %s",
					   strerror(errno));
	return 0;
}

/* @err, after the lock is let go (unless the read gave the pins up) */
int mcs_bpf_unlock_pins(struct memcgstat *h, int err)
{
	struct mcs_bpf *b = bpf_of(h);

	if (b->pin_fd >= 0)
		flock(b->pin_fd, LOCK_UN);
	return err;
}

/* Pinned programs and maps, by name in the pin directory of this build. */
enum { P_SNAPSHOT, P_BATCH, P_RECORDS, P_KEEP_IDS, P_NAMES, P_BSS, P_META, NR_PINS };
static const char *const pin_names[NR_PINS] = {
	"snapshot", "batch", "records", "keep_ids", "names", "bss", "meta",
};

#define BPF_FS_MAGIC_	0xcafe4a11	/* include/uapi/linux/magic.h */

static int pin_path(const struct memcgstat *h, const char *dir, int i, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s%s%s", h->pin_dir, dir, i >= 0 ? "/" : "",
			 i >= 0 ? pin_names[i] : "");

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int get_pinned(struct memcgstat *h, int i, int *fd)
{
	char p[PATH_MAX];

	if (pin_path(h, MCS_PIN_ID, i, p, sizeof(p)))
		return -ENAMETOOLONG;
	*fd = bpf_obj_get(p);
	return *fd < 0 ? -errno : 0;
}

/*
 * The pins of this build, if there are: fills @b as mcs_bpf_load() does, from the
 * meta map. -ENOENT (or another errno) with the reason set if not usable.
 */
int mcs_bpf_open_pins(struct memcgstat *h, struct mcs_bpf *b)
{
	char dir[PATH_MAX];
	struct mcs_pin_meta *m;
	__u32 key = 0;
	long page = sysconf(_SC_PAGESIZE);
	int fd = -1, err;

	if (pin_path(h, MCS_PIN_ID, -1, dir, sizeof(dir)))
		return mcs_set_err(h, -ENAMETOOLONG, "pin directory path too long");
	b->pin_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (b->pin_fd < 0)
		return mcs_set_err(h, -errno, "no pinned programs of this library at %s: %s (memcgstat --pin pins them)",
				   dir, strerror(errno));
	m = b->meta = calloc(1, sizeof(*m));
	if (!m)
		return mcs_set_err(h, -ENOMEM, "out of memory");
	err = get_pinned(h, P_META, &fd);
	if (!err && bpf_map_lookup_elem(fd, &key, m))
		err = -errno;
	if (fd >= 0)
		close(fd);
	if (!err && (memcmp(m->magic, MCS_PIN_MAGIC, sizeof(m->magic)) || strcmp(m->id, MCS_PIN_ID) ||
		     m->nr_items > MCS_MAX_ITEMS || !m->cap))
		err = -EPROTO;
	if (!err)
		err = get_pinned(h, P_SNAPSHOT, &b->fd_snapshot);
	if (!err && m->query == MEMCGSTAT_QUERY_SYSCALL)
		err = get_pinned(h, P_BATCH, &b->fd_batch);
	if (!err)
		err = get_pinned(h, P_RECORDS, &b->fd_records);
	if (!err)
		err = get_pinned(h, P_KEEP_IDS, &b->fd_keep_ids);
	if (!err)
		err = get_pinned(h, P_NAMES, &b->fd_names);
	if (!err)
		err = get_pinned(h, P_BSS, &fd);
	if (!err) {
		b->bss_len = (sizeof(*b->bss) + page - 1) / page * page;
		b->bss = mmap(NULL, b->bss_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
		if (b->bss == MAP_FAILED) {
			b->bss = NULL;
			b->bss_len = 0;
			err = -errno;
		}
	}
	if (!err) {
		b->cap = m->cap;
		b->filter_cap = m->filter_cap;
		b->upstream_only = m->upstream_only;
		b->has_ids = m->has_ids;
		b->records_len = (size_t)MCS_RECORD_SIZE(m->nr_items) * m->cap;
		b->names_len = sizeof(struct mcs_name) * m->cap;
	}
	if (err) {
		mcs_bpf_unload(b);
		free(b->meta);
		b->meta = NULL;
		return mcs_set_err(h, err, "the pinned programs at %s are not usable: %s", dir,
				   err == -EPROTO ? "not of this library" : strerror(-err));
	}
	return 0;
}

/* Remove the files of pin directory @dir, and it. */
static int remove_pin_dir(const char *dir)
{
	char p[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(dir);
	int err = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			if (snprintf(p, sizeof(p), "%s/%s", dir, de->d_name) < (int)sizeof(p) && unlink(p))
				err = -errno;
	closedir(d);
	if (rmdir(dir) && !err)
		err = -errno;
	return err;
}

int memcgstat_pin(struct memcgstat *h)
{
	struct mcs_bpf *b = memcgstat_backend(h) == MEMCGSTAT_BACKEND_BPF ? bpf_of(h) : NULL;
	const int fds[NR_PINS] = {
		b ? b->fd_snapshot : -1, b ? b->fd_batch : -1,
		b ? b->fd_records : -1, b ? b->fd_keep_ids : -1, b ? b->fd_names : -1,
		b ? b->fd_bss : -1, -1,
	};
	char tmp[PATH_MAX], dir[PATH_MAX], p[PATH_MAX], sub[64];
	struct mcs_pin_meta *m = NULL;
	struct statfs fs;
	__u32 key = 0;
	size_t i, d;
	int fd = -1, err = 0;

	if (!h)
		return -EINVAL;
	h->err[0] = '\0';
	if (!b)
		return mcs_set_err(h, -EOPNOTSUPP, "pinning needs the bpf backend");
	if (b->meta || b->pin_fd >= 0)
		return 0;	/* reads with the pins already */
	if ((h->flags & (MEMCGSTAT_LOCAL | MEMCGSTAT_NUMA)) || !h->all_stats)
		return mcs_set_err(h, -EINVAL,
				   "pin a handle of every stat (opts.stats NULL), without local or per-node values");
	if (mcs_nr_stat_defs > sizeof(m->first) / sizeof(m->first[0]))
		return mcs_set_err(h, -E2BIG, "too many stats to pin");
	if (mkdir(h->pin_dir, 0700) && errno != EEXIST)
		return mcs_set_err(h, -errno, "cannot make %s: %s", h->pin_dir, strerror(errno));
	if (statfs(h->pin_dir, &fs))
		return mcs_set_err(h, -errno, "%s: %s", h->pin_dir, strerror(errno));
	if ((unsigned long)fs.f_type != BPF_FS_MAGIC_)
		return mcs_set_err(h, -EINVAL, "%s is not on a BPF file system (mount -t bpf bpf /sys/fs/bpf)",
				   h->pin_dir);
	/* bpffs refuses names with a dot */
	snprintf(sub, sizeof(sub), "tmp-%d", (int)getpid());
	if (pin_path(h, sub, -1, tmp, sizeof(tmp)) || pin_path(h, MCS_PIN_ID, -1, dir, sizeof(dir)))
		return mcs_set_err(h, -ENAMETOOLONG, "pin directory path too long");
	remove_pin_dir(tmp);	/* of a process of this pid that died pinning */
	if (mkdir(tmp, 0700))
		return mcs_set_err(h, -errno, "cannot make %s: %s", tmp, strerror(errno));

	m = calloc(1, sizeof(*m));
	if (!m) {
		err = mcs_set_err(h, -ENOMEM, "out of memory");
		goto out;
	}
	memcpy(m->magic, MCS_PIN_MAGIC, sizeof(m->magic));
	snprintf(m->id, sizeof(m->id), "%s", MCS_PIN_ID);
	m->nr_items = b->nr_items;
	m->cap = b->cap;
	m->filter_cap = b->filter_cap;
	m->query = h->query;
	m->upstream_only = b->upstream_only;
	m->has_ids = b->has_ids;
	memcpy(m->items, b->items, b->nr_items * sizeof(*b->items));
	for (d = 0; d < sizeof(m->first) / sizeof(m->first[0]); d++)
		m->first[d] = -1;
	for (i = 0; i < h->nr_cols; i++) {
		d = h->cols[i].def - mcs_stat_defs;
		m->first[d] = b->first_item[i];
		m->count[d] = b->nr_col_items[i];
	}
	snprintf(m->query_reason, sizeof(m->query_reason), "%.500s", h->query_reason);
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "mcs_pin_meta", sizeof(key), sizeof(*m), 1, NULL);
	if (fd < 0 || bpf_map_update_elem(fd, &key, m, BPF_ANY) || bpf_map_freeze(fd)) {
		err = mcs_set_err(h, -errno, "cannot make the pins' meta map: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < NR_PINS; i++) {
		int f = i == P_META ? fd : fds[i];

		if (f < 0)
			continue;	/* no batch program: iterators only */
		if (snprintf(p, sizeof(p), "%s/%s", tmp, pin_names[i]) >= (int)sizeof(p) ||
		    bpf_obj_pin(f, p)) {
			err = mcs_set_err(h, -errno, "cannot pin %s: %s", p, strerror(errno));
			goto out;
		}
	}
	/* all or nothing: the directory of the build appears whole */
	if (rename(tmp, dir)) {
		if (errno != EEXIST && errno != ENOTEMPTY)
			err = mcs_set_err(h, -errno, "cannot rename %s to %s: %s", tmp, dir,
					  strerror(errno));
		goto out;	/* another process pinned this build meanwhile */
	}
	b->pin_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (b->pin_fd < 0)
		err = mcs_set_err(h, -errno, "cannot open %s: %s", dir, strerror(errno));
out:
	if (fd >= 0)
		close(fd);
	free(m);
	remove_pin_dir(tmp);
	return err;
}

int memcgstat_unpin(struct memcgstat *h)
{
	char p[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int err = 0, e;

	if (!h)
		return -EINVAL;
	h->err[0] = '\0';
	d = opendir(h->pin_dir);
	if (!d)
		return errno == ENOENT ? 0 : mcs_set_err(h, -errno, "%s: %s", h->pin_dir, strerror(errno));
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (snprintf(p, sizeof(p), "%s/%s", h->pin_dir, de->d_name) >= (int)sizeof(p))
			continue;
		e = remove_pin_dir(p);
		if (e && !err)
			err = mcs_set_err(h, e, "cannot remove %s: %s", p, strerror(-e));
	}
	closedir(d);
	if (rmdir(h->pin_dir) && !err)
		err = mcs_set_err(h, -errno, "cannot remove %s: %s", h->pin_dir, strerror(errno));
	return err;
}

int memcgstat_pinned(const struct memcgstat *h)
{
	const struct mcs_bpf *b = h && memcgstat_backend(h) == MEMCGSTAT_BACKEND_BPF ? bpf_of(h) : NULL;

	return b && b->pin_fd >= 0;
}

const char *memcgstat_pin_dir(const struct memcgstat *h)
{
	return h ? h->pin_dir : NULL;
}
