// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The bpf backend's reads: one cgroup (an iterator on it, or the batch
 * program), a list of ids (the batch program, or an iterator each), a
 * subtree (the snapshot program's walk); memory.pressure from its file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpf_backend.h"
#include "by_path.h"
#include "cgroup_files.h"
#include "cgroup_id.h"
#include "hierarchy.h"
#include "path_cache.h"
#include "result.h"
#include "memcg_iter.skel.h"

/*
 * A row's values from its record's items. Inline, the plain case: per row
 * of a steady snapshot of 10,001 cgroups the call and the checks before the
 * copy cost more than the copy (make bench, 2.into.10000). What the v2 root
 * has no value of is not its business: snapshots set it NA once, in the
 * root's row (root_row_na()), reads of single cgroups and ids by
 * to_columns_of().
 */
static inline void to_columns(const struct memcgstat *h, uint64_t id, const __u64 *items,
			      uint64_t *vals)
{
	if (bpf_of(h)->plain)
		memcpy(vals, items, h->nr_cols * sizeof(*vals));
	else
		mcs_bpf_convert_columns(h, id, items, vals);
}

/* The same for a row that may be the v2 root's. */
static void to_columns_of(const struct memcgstat *h, uint64_t id, const __u64 *items,
			  uint64_t *vals)
{
	to_columns(h, id, items, vals);
	if (id == bpf_of(h)->na_id)	/* usage, memory.max, ...: none there */
		mcs_bpf_root_na(h, vals);
}

/* A snapshot's rows: the root's, first if the walk met it, as to_columns_of(). */
static void root_row_na(const struct memcgstat *h, struct memcgstat_result *res)
{
	uint64_t id = bpf_of(h)->na_id;

	if (id && memcgstat_result_count(res) && memcgstat_result_id(res, 0) == id)
		mcs_bpf_root_na(h, mcs_result_row(res, 0));
}

/*
 * A cgroup_iter link of @prog_fd on the cgroup open at @fd, or with @id if
 * fd < 0: its fd, or -1 with errno set.
 */
static int attach_iter(int prog_fd, int fd, uint64_t id, enum bpf_cgroup_iter_order order)
{
	union bpf_iter_link_info linfo = {};
	LIBBPF_OPTS(bpf_link_create_opts, opts, .iter_info = &linfo,
		    .iter_info_len = sizeof(linfo));

	if (fd >= 0)
		linfo.cgroup.cgroup_fd = fd;
	else
		linfo.cgroup.cgroup_id = id;
	linfo.cgroup.order = order;
	return bpf_link_create(prog_fd, 0, BPF_TRACE_ITER, &opts);
}

/* @prog_fd's iterator on the cgroup directory open at @fd (at @abs). */
static int attach(struct memcgstat *h, int prog_fd, int fd, const char *abs,
		  enum bpf_cgroup_iter_order order, int *link)
{
	*link = attach_iter(prog_fd, fd, 0, order);
	if (*link < 0)
		return mcs_set_err(h, -errno, "cannot attach the cgroup iterator to %s: %s",
				   abs, strerror(errno));
	return 0;
}

static int run_iter(struct memcgstat *h, int link)
{
	char buf[64];
	ssize_t n;
	int fd = bpf_iter_create(link);

	if (fd < 0)
		return mcs_set_err(h, -errno, "cannot create the cgroup iterator: %s", strerror(errno));
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	if (n < 0)
		n = mcs_set_err(h, -errno, "cgroup iterator read failed: %s", strerror(errno));
	close(fd);
	return n;
}

/*
 * The columns read from files on this backend too (mcs_def_file_only():
 * memory.pressure, which the kernel aggregates from per-CPU state when the
 * file is read; cgroup.procs' entries; ...): into @vals of
 * the cgroup at @path (relative to the root; NULL: found by @id; on v1
 * held to @id, found by it where renamed). A cgroup gone meanwhile, or
 * whose files this process may not read (they, its directory, a directory
 * on its way, or one that a scan for it skipped: unreadable), keeps NA
 * in those files' columns: the kernel's columns stand.
 */
static int read_file_cols_of(struct memcgstat *h, const char *path, uint64_t id,
			     uint64_t *vals, bool *rescanned)
{
	char buf[PATH_MAX], *abs;
	int err = 0, fd;

	if (!path || h->version == 1) {
		/* v1: the path a snapshot knows may be a renamed cgroup's old one */
		fd = mcs_open_id(h, id, path, O_PATH, buf, sizeof(buf), &abs, rescanned);
	} else {
		abs = mcs_join(h->root, path, buf, sizeof(buf));
		if (!abs)
			return mcs_set_err(h, -ENOMEM, "out of memory");
		fd = mcs_openat_long(AT_FDCWD, abs, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0 && fd != -ENOENT && fd != -EACCES)
			fd = mcs_set_err(h, fd, "cannot open cgroup %s: %s", abs, strerror(-fd));
		if (fd < 0)
			mcs_abs_free(abs, buf);
	}
	if (fd == -ENOENT || fd == -EACCES) {
		h->err[0] = '\0';
		return 0;
	}
	if (fd < 0)
		return fd;
	err = mcs_read_own_files(h, fd, abs, vals, true);
	if (err == -ENOENT) {
		h->err[0] = '\0';
		err = 0;
	}
	close(fd);
	mcs_abs_free(abs, buf);
	return err;
}

/* The same where there are columns read from files; inline: most have none. */
static inline int read_file_cols(struct memcgstat *h, const char *path, uint64_t id,
				 uint64_t *vals, bool *rescanned)
{
	return bpf_of(h)->has_file_cols ? read_file_cols_of(h, path, id, vals, rescanned) : 0;
}

/*
 * One run of the batch program for @nr ids: rows @first .. @first + nr - 1
 * of @res, one per id, get the values, or status -ENOENT (no such cgroup)
 * or -ENODATA (no memcg). *rescanned: the call's scan for the file-read
 * columns.
 */
static int run_batch_part(struct memcgstat *h, const uint64_t *ids, size_t nr,
			  struct memcgstat_result *res, size_t first, bool *rescanned)
{
	struct mcs_bpf *b = bpf_of(h);
	struct mcs_batch req = { .nr_ids = nr };
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.ctx_in = &req,
		.ctx_size_in = sizeof(req),
	);
	size_t rec = MCS_RECORD_SIZE(b->nr_items), i;
	const struct mcs_record *r;
	int err;

	err = mcs_bpf_map_records(h, b);
	if (err)
		return err;
	memcpy(b->bss->batch_ids, ids, nr * sizeof(*ids));
	err = bpf_prog_test_run_opts(b->fd_batch, &opts);
	if (err)
		return mcs_set_err(h, -errno, "cannot run the batch program: %s", strerror(errno));
	if (opts.retval)
		return mcs_set_err(h, (int)opts.retval, "the batch program failed: %s",
				   strerror(-(int)opts.retval));
	h->last_query = MEMCGSTAT_QUERY_SYSCALL;
	for (i = 0; i < nr; i++) {
		r = (const void *)((char *)b->records + i * rec);
		switch (b->bss->batch_status[i]) {
		case MCS_BATCH_OK:
			if (r->id != ids[i])
				return mcs_set_err(h, -EIO, "batch record %zu holds id %llu, not %llu",
						   i, (unsigned long long)r->id,
						   (unsigned long long)ids[i]);
			to_columns_of(h, r->id, r->values, mcs_result_row(res, first + i));
			err = read_file_cols(h, memcgstat_result_path(res, first + i), ids[i],
					     mcs_result_row(res, first + i), rescanned);
			if (err)
				return err;
			break;
		case MCS_BATCH_GONE:
			mcs_result_set_status(res, first + i, -ENOENT);
			break;
		case MCS_BATCH_NO_MEMCG:
			mcs_result_set_status(res, first + i, -ENODATA);
			break;
		default:
			return mcs_set_err(h, -EIO, "batch program left id %zu unread", i);
		}
	}
	return 0;
}

/*
 * @nr ids into rows @first on of @res: a run of the batch program for as
 * many as the records map holds, each run flushing what its ids share.
 */
static int run_batch(struct memcgstat *h, const uint64_t *ids, size_t nr,
		     struct memcgstat_result *res, size_t first)
{
	size_t cap = bpf_of(h)->cap, done, n;
	bool rescanned = false;		/* one scan a call, for the file-read columns */
	int err = 0;

	for (done = 0; !err && done < nr; done += n) {
		n = nr - done < cap ? nr - done : cap;
		err = run_batch_part(h, ids + done, n, res, first + done, &rescanned);
	}
	return err;
}

/*
 * The snapshot program on one cgroup (BPF_CGROUP_ITER_SELF_ONLY) through a
 * link made for it; the link is gone after. Its record is the first. A
 * cgroup removed between the attach and the read is not shown to the
 * program (cgroup_iter skips dead cgroups): no record, -ENOENT.
 */
static int read_link(struct memcgstat *h, int link, const char *what, uint64_t *vals)
{
	struct mcs_bpf *b = bpf_of(h);
	const struct mcs_record *r;
	int err;

	memset(&b->bss->walk, 0, sizeof(b->bss->walk));
	b->bss->walk_flushed = false;
	b->bss->want_names = false;
	b->bss->filter_ids = false;
	err = run_iter(h, link);
	close(link);
	if (!err)
		err = mcs_bpf_map_records(h, b);
	if (err)
		return err;
	if (b->bss->walk.no_memcg)
		return mcs_set_err(h, -ENODATA, "cgroup %s has no memory controller", what);
	if (!b->bss->walk.nr_records)
		return mcs_set_err(h, -ENOENT, "cgroup %s: removed while read", what);
	r = b->records;
	to_columns_of(h, r->id, r->values, vals);
	return 0;
}

int mcs_bpf_read_path(struct memcgstat *h, int fd, const char *abs, uint64_t *vals)
{
	int link, err;

	h->last_query = MEMCGSTAT_QUERY_ITER;
	err = attach(h, bpf_of(h)->fd_snapshot, fd, abs, BPF_CGROUP_ITER_SELF_ONLY, &link);
	if (!err)
		err = read_link(h, link, abs, vals);
	if (!err && bpf_of(h)->has_file_cols)
		err = mcs_read_own_files(h, fd, abs, vals, true);	/* NA where unreadable */
	return err;
}

/*
 * The iterator on the cgroup v2 cgroup with this id; -ENOENT if none.
 * *rescanned: the call's scan for the file-read columns, once a call.
 */
static int read_id(struct memcgstat *h, uint64_t id, uint64_t *vals, bool *rescanned)
{
	char what[32];
	int link, err;

	h->last_query = MEMCGSTAT_QUERY_ITER;
	link = attach_iter(bpf_of(h)->fd_snapshot, -1, id, BPF_CGROUP_ITER_SELF_ONLY);
	if (link < 0) {
		if (errno == ENOENT)
			return -ENOENT;
		return mcs_set_err(h, -errno, "cannot attach the cgroup iterator to cgroup id %llu: %s",
				   (unsigned long long)id, strerror(errno));
	}
	snprintf(what, sizeof(what), "id %llu", (unsigned long long)id);
	err = read_link(h, link, what, vals);
	return err ? err : read_file_cols(h, NULL, id, vals, rescanned);
}

/*
 * One cgroup by path. On the syscall path: one stat() for its id, one run
 * of the batch program, which says whether the cgroup has a memcg.
 */
static int read_one_path(struct memcgstat *h, const char *cgroup, const char *abs,
			 struct memcgstat_result *res)
{
	struct stat st;
	uint64_t id;
	int err, status;

	if (h->query != MEMCGSTAT_QUERY_SYSCALL)
		return mcs_read_checked(h, cgroup, abs, res);
	err = mcs_stat_long(abs, &st);
	if (err)
		return mcs_set_err(h, err, "cgroup %s: %s (%s)", cgroup, strerror(-err), abs);
	if (!S_ISDIR(st.st_mode))
		return mcs_set_err(h, -ENOTDIR, "%s is not a cgroup", abs);
	id = st.st_ino;
	if (!mcs_result_reuse(res, id, mcs_rel_path(h, abs)) &&
	    !mcs_result_add_raw(res, id, mcs_rel_path(h, abs)))
		return mcs_set_err(h, -ENOMEM, "out of memory");
	err = run_batch(h, &id, 1, res, 0);
	status = memcgstat_result_status(res, 0);
	if (!err && status == -ENOENT)
		err = mcs_set_err(h, -ENOENT, "cgroup %s: removed while read (%s)", cgroup, abs);
	if (!err && status == -ENODATA)
		err = mcs_set_err(h, -ENODATA,
				  "cgroup %s has no memory controller (enable it in the parent's cgroup.subtree_control)",
				  cgroup);
	return err;
}

int mcs_bpf_read(struct memcgstat *h, const char *cgroup, const char *abs,
		    struct memcgstat_result *res)
{
	int err = mcs_bpf_lock_pins(h);

	return err ? err : mcs_bpf_unlock_pins(h, read_one_path(h, cgroup, abs, res));
}

/* A list of ids: one batch run; or an iterator per id (v2), by path on v1. */
static int read_ids(struct memcgstat *h, const uint64_t *ids, size_t nr,
		    struct memcgstat_result *res)
{
	bool rescanned = false;
	uint64_t *vals;
	size_t i;
	int err = 0;

	if (h->version != 2)
		return mcs_read_ids_by_path(h, ids, nr, res);
	for (i = 0; i < nr; i++) {
		/* run_batch() writes every value or a status of each row */
		vals = h->query == MEMCGSTAT_QUERY_SYSCALL ? mcs_result_add_raw(res, ids[i], NULL) :
			mcs_result_add(res, ids[i], NULL);
		if (!vals)
			return mcs_set_err(h, -ENOMEM, "out of memory");
		if (h->query == MEMCGSTAT_QUERY_SYSCALL)
			continue;
		/* the iterator takes a cgroup v2 id as it is */
		err = read_id(h, ids[i], vals, &rescanned);
		if (err == -ENOENT || err == -ENODATA) {
			h->err[0] = '\0';
			mcs_result_set_status(res, i, err);
		} else if (err) {
			return err;
		}
	}
	if (h->query == MEMCGSTAT_QUERY_SYSCALL && nr)
		return run_batch(h, ids, nr, res, 0);
	return 0;
}

int mcs_bpf_read_ids(struct memcgstat *h, const uint64_t *ids, size_t nr,
			struct memcgstat_result *res)
{
	int err = mcs_bpf_lock_pins(h);

	return err ? err : mcs_bpf_unlock_pins(h, read_ids(h, ids, nr, res));
}

static int set_filter(struct memcgstat *h, const uint64_t *ids, size_t nr_ids)
{
	struct mcs_bpf *b = bpf_of(h);
	int fd = b->fd_keep_ids;
	uint64_t *copy = NULL;
	__u8 one = 1;
	size_t i;
	int err;

	if (nr_ids > MCS_MAX_FILTER_IDS)
		return mcs_set_err(h, -E2BIG, "at most %d cgroup ids per filtered snapshot", MCS_MAX_FILTER_IDS);
	if (nr_ids > b->filter_cap) {
		/* a bigger filter map: load again, keeping the records map's size */
		mcs_bpf_unload(b);
		b->filter_cap = nr_ids;
		err = mcs_bpf_load(h, b, b->cap);
		if (err)
			return err;
		fd = b->fd_keep_ids;
	}
	for (i = 0; i < b->nr_filtered; i++)
		bpf_map_delete_elem(fd, &b->filtered[i]);
	b->nr_filtered = 0;
	if (nr_ids) {
		copy = realloc(b->filtered, nr_ids * sizeof(*copy));
		if (!copy)
			return mcs_set_err(h, -ENOMEM, "out of memory");
		b->filtered = copy;
	}
	for (i = 0; i < nr_ids; i++) {
		if (bpf_map_update_elem(fd, &ids[i], &one, BPF_ANY))
			return mcs_set_err(h, -errno, "cannot fill the cgroup id filter: %s", strerror(errno));
		b->filtered[b->nr_filtered++] = ids[i];
	}
	b->bss->filter_ids = ids != NULL;
	return 0;
}

/* Walk the tree at @abs into the records map; grow the map if it is short. */
static int walk(struct memcgstat *h, int fd, const char *abs, const uint64_t *ids,
		size_t nr_ids, bool names)
{
	struct mcs_bpf *b = bpf_of(h);
	uint32_t seen;
	int err, try, link = -1;

	for (try = 0; try < 4; try++) {
		err = set_filter(h, ids, nr_ids);
		if (!err)
			err = attach(h, b->fd_snapshot, fd, abs, BPF_CGROUP_ITER_DESCENDANTS_PRE,
				     &link);
		if (err)
			return err;
		memset(&b->bss->walk, 0, sizeof(b->bss->walk));
		b->bss->walk_flushed = false;
		b->bss->want_names = names;
		err = run_iter(h, link);
		close(link);
		if (err)
			return err;
		seen = b->bss->walk.nr_seen;
		if (seen <= b->cap)
			return 0;
		/* The tree outgrew the records map: grow it, walk again. */
		mcs_bpf_unload(b);
		err = mcs_bpf_load(h, b, seen + seen / 2 + 64);
		if (err)
			return err;
	}
	return mcs_set_err(h, -EAGAIN, "the cgroup tree kept growing faster than the snapshot");
}

/* The ids of a walk's last records by level, below its first record's. */
struct lineage {
	uint64_t *ids;
	size_t cap;
	uint32_t base;
};

/*
 * Record @i's parent's id, 0 where not known: in a filtered walk the
 * program recorded it; a whole walk is in pre-order, so it is the last
 * record before @i one level up, which @l keeps. 0 or -ENOMEM.
 */
static int parent_of(const struct mcs_bpf *b, struct lineage *l, size_t i, uint64_t id,
		     uint64_t *parent)
{
	uint32_t level = b->names[i].level;
	uint64_t *ids;
	size_t d, cap;

	*parent = 0;
	if (b->bss->filter_ids) {
		*parent = b->names[i].parent_id;
		return 0;
	}
	if (!i)
		l->base = level;
	if (level < l->base)
		return 0;
	d = level - l->base;
	if (d >= l->cap) {
		cap = d + 32;
		ids = realloc(l->ids, cap * sizeof(*ids));
		if (!ids)
			return -ENOMEM;
		l->ids = ids;
		l->cap = cap;
	}
	l->ids[d] = id;
	if (d)
		*parent = l->ids[d - 1];
	return 0;
}

/*
 * The path of record @i's cgroup @id: from the cache; else, if the walk
 * recorded names, its parent's (@parent_id's, parent_of()) path and its
 * name (pre-order: the parent's record came first); else NULL with
 * *unknown set, for the caller to walk again with names; with neither,
 * from a scan of the directories below @abs (a filtered walk's parent
 * the cache does not know, a name too long to be recorded). NULL
 * without *unknown: removed since the walk.
 */
static const char *path_of(struct memcgstat *h, const char *abs, uint64_t id, size_t i,
			   bool names, uint64_t parent_id, bool *unknown, bool *rescanned,
			   size_t *len, int *err)
{
	struct mcs_bpf *b = bpf_of(h);
	const char *path = mcs_path_get(h, id, len), *parent;
	size_t pl;

	*err = 0;
	if (path)
		return path;
	if (!names && !*rescanned) {
		*unknown = true;
		return NULL;
	}
	if (names && b->names[i].name[0] && (parent = mcs_path_get(h, parent_id, &pl)))
		return mcs_path_add(h, id, parent, pl, b->names[i].name, len, err);
	path = mcs_path_of(h, abs, id, rescanned, err);
	if (path)
		*len = strlen(path);
	return path;
}

_Static_assert(MCS_NAME_LEN % 8 == 0, "names are read a word at a time");

/*
 * A first snapshot's rows (the cache empty but for the top, the records
 * named): every path made in one pass over the records, every row added
 * in one, then their values: per cgroup about a third of the
 * instructions of the general loop's calls (doc/bench.md, issue 22's
 * seventh step). 1 where a record's path is not known that way (a name
 * not recorded, a filtered walk's parents), for the general loop, which
 * then finds the paths made here in the cache; else 0 or -errno, said.
 */
static int first_snapshot(struct memcgstat *h, struct memcgstat_result *res, bool *rescanned)
{
	struct mcs_bpf *b = bpf_of(h);
	size_t rec = MCS_RECORD_SIZE(b->nr_items), n = b->bss->walk.nr_records, i;
	const char **paths;
	const struct mcs_walk_layout layout = {
		.ids = b->records, .ids_stride = rec,
		.names = b->names, .names_stride = sizeof(*b->names),
		.level_off = offsetof(struct mcs_name, level),
		.name_off = offsetof(struct mcs_name, name),
		.name_size = sizeof(b->names->name),
	};
	const struct mcs_record *r;
	uint64_t *vals;
	int err;

	if (!n)		/* the top removed before the walk: the front end says so */
		return 0;
	paths = malloc(n * sizeof(*paths));
	if (!paths)
		return mcs_set_err(h, -ENOMEM, "out of memory");
	/* a filtered walk's records have gaps: the general loop's parent ids */
	err = b->bss->filter_ids ? 1 : mcs_path_add_walk(h, n, &layout, paths);
	for (i = 0; !err && i < n; i++) {
		r = (const void *)((char *)b->records + i * rec);
		/* the top, cached before the walk; else the general loop's */
		if (!paths[i] && !(paths[i] = mcs_path_find(h, r->id)))
			err = 1;
	}
	vals = err ? NULL : mcs_result_add_lent_rows(res, n, b->records, rec, paths, h->path_pool);
	if (!err && !vals)
		err = -ENOMEM;
	for (i = 0; !err && i < n; i++) {
		r = (const void *)((char *)b->records + i * rec);
		to_columns(h, r->id, r->values, vals + i * h->nr_cols);
		err = read_file_cols(h, paths[i], r->id, vals + i * h->nr_cols, rescanned);
	}
	free(paths);
	return err == -ENOMEM ? mcs_set_err(h, err, "out of memory") : err;
}

/*
 * A walk of the tree at @abs, its records named: the snapshot program
 * records the cgroups' names for a first snapshot (the cache empty); a
 * later one that meets a cgroup the cache does not know walks again with
 * names. Reading every directory of a tree instead made the first snapshot
 * of 10,001 cgroups cost ~60 times a steady one (make bench, issue 12).
 */
static int snapshot(struct memcgstat *h, int fd, const char *abs,
		    const uint64_t *ids, size_t nr_ids,
		    struct memcgstat_result *res)
{
	struct mcs_bpf *b = bpf_of(h);
	size_t rec = MCS_RECORD_SIZE(b->nr_items), i;
	bool rescanned = false, names = !h->nr_paths, first = names, unknown;
	struct lineage lin = { 0 };
	int err;

again:
	unknown = false;
	err = walk(h, fd, abs, ids, nr_ids, names);
	if (!err)
		err = mcs_bpf_map_records(h, b);
	if (!err && names)
		err = mcs_bpf_map_names(h, b);
	if (err)
		goto out;	/* said */
	/* the top's parent is not recorded: the top's path is the start */
	err = names ? mcs_path_add_dir(h, abs) : 0;
	if (err) {
		err = mcs_set_err(h, err, "%s: %s", abs, strerror(-err));
		goto out;
	}
	/* a first snapshot: the cache's and the result's room at once */
	if (first)
		err = mcs_path_reserve(h, b->bss->walk.nr_records);
	if (!err)
		err = mcs_result_reserve(res, b->bss->walk.nr_records);
	if (err)
		goto nomem;
	if (first) {
		err = first_snapshot(h, res, &rescanned);
		if (err <= 0)
			goto out;
		first = false;	/* the rest, as any walk with names */
		err = 0;
	}
	for (i = 0; !err && i < b->bss->walk.nr_records; i++) {
		const struct mcs_record *r = (const void *)((char *)b->records + i * rec);
		uint64_t *vals = mcs_result_reuse(res, r->id, NULL), parent = 0;
		const char *path = NULL;
		size_t len;

		if (names && parent_of(b, &lin, i, r->id, &parent))
			goto nomem;
		/*
		 * A walk with names finds every row's cache entry, a reused
		 * one's too: the cache drops what no read found for a while
		 * (path_cache.c), and a child's path is built from its parent's.
		 */
		if (vals && names &&
		    !path_of(h, abs, r->id, i, names, parent, &unknown, &rescanned, &len, &err) &&
		    err)
			goto nomem;
		if (!vals) {
			path = path_of(h, abs, r->id, i, names, parent, &unknown, &rescanned, &len,
				       &err);
			if (err)
				goto nomem;
			if (unknown) {
				/* the rows so far are read again, in their memory */
				mcs_result_reset(res);
				names = true;
				goto again;
			}
			if (!path)
				continue;	/* removed since the walk */
			/* the cache's path, lent: no copy */
			vals = mcs_result_add_lent(res, r->id, path, h->path_pool);
			if (!vals)
				goto nomem;
		}
		to_columns(h, r->id, r->values, vals);
		/* a reused row has no path here: read_file_cols() finds it by id */
		err = read_file_cols(h, path, r->id, vals, &rescanned);
	}
out:
	if (!err)
		root_row_na(h, res);
	free(lin.ids);
	return err;
nomem:
	free(lin.ids);
	return mcs_set_err(h, -ENOMEM, "out of memory");
}

int mcs_bpf_snapshot(struct memcgstat *h, int fd, const char *abs,
			const uint64_t *ids, size_t nr_ids,
			struct memcgstat_result *res)
{
	int err = mcs_bpf_lock_pins(h);

	return err ? err : mcs_bpf_unlock_pins(h, snapshot(h, fd, abs, ids, nr_ids, res));
}
