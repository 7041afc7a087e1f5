// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The handle's cache from cgroup ids to paths (below the root), and the
 * scan of a subtree that refills it; a path buffer for walks.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "handle.h"
#include "hierarchy.h"
#include "path_cache.h"
#include "testing.h"

struct mcs_path {
	uint64_t id;
	const char *path;		/* in h->path_pool */
	uint32_t seen;		/* h->path_gen when last found or added */
	uint32_t len;		/* strlen(path) */
};

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
	mcs_strpool_put(h->path_pool);
	h->path_pool = NULL;
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

/* The first empty slot on @id's probe of a hash of @mask + 1 @slots. */
static inline size_t free_slot(const uint32_t *slots, size_t mask, uint64_t id)
{
	size_t i;

	for (i = slot_of(id, mask + 1); slots[i]; i = (i + 1) & mask)
		;
	return i;
}

/* Entry @e (an index of h->paths) into the hash, for an id not in it. */
static void link_path(struct memcgstat *h, uint32_t e)
{
	h->path_slots[free_slot(h->path_slots, h->paths_cap - 1, h->paths[e].id)] = e + 1;
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
			mcs_strpool_drop(h->path_pool, h->paths[i].path);
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
		mcs_strpool_drop(h->path_pool, path);
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
	mcs_strpool_drop(h->path_pool, p->path);
	p->path = path;
	p->len = strlen(path);
	return 0;
}

/* The cache's pool, made at its first use: NULL without memory. */
static struct mcs_strpool *pool_of(struct memcgstat *h)
{
	if (!h->path_pool)
		h->path_pool = mcs_strpool_new();
	return h->path_pool;
}

static int add_path(struct memcgstat *h, uint64_t id, const char *dir)
{
	struct mcs_strpool *pool = pool_of(h);
	const char *rel = mcs_rel_path(h, dir);

	return put_path(h, id, pool ? mcs_strpool_add(pool, rel, strlen(rel)) : NULL);
}

/*
 * The live paths into a new pool, when dead ones outgrow them. Results
 * that hold the old one keep it until they let it go.
 */
void mcs_paths_pack(struct memcgstat *h)
{
	struct mcs_strpool *fresh;
	size_t i;

	if (!h->path_pool || !mcs_strpool_wants_pack(h->path_pool))
		return;
	fresh = malloc(sizeof(*fresh));
	if (!fresh || mcs_strpool_pack_start(fresh, h->path_pool->live)) {
		free(fresh);
		return;		/* still correct, only larger */
	}
	for (i = 0; i < h->nr_paths; i++)
		h->paths[i].path = mcs_strpool_move(fresh, h->paths[i].path);
	mcs_strpool_put(h->path_pool);
	h->path_pool = fresh;
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

/* @name below @parent (of length @pl) in @pool, its length in *len; NULL without memory. */
static inline char *join(struct mcs_strpool *pool, const char *parent, size_t pl,
			 const char *name, size_t *len)
{
	size_t nl = strlen(name);
	char *path;

	if (pl == 1 && parent[0] == '/')
		pl = 0;
	*len = pl + 1 + nl;
	path = mcs_strpool_alloc(pool, *len);
	if (path) {
		memcpy(path, parent, pl);
		path[pl] = '/';
		memcpy(path + pl + 1, name, nl);
	}
	return path;
}

const char *mcs_path_add(struct memcgstat *h, uint64_t id, const char *parent, size_t pl,
			 const char *name, size_t *len, int *err)
{
	struct mcs_strpool *pool = pool_of(h);
	char *path = pool ? join(pool, parent, pl, name, len) : NULL;

	*err = -ENOMEM;
	if (!path)
		return NULL;
	*err = put_new_path(h, id, path, *len);
	return *err ? NULL : path;	/* pooled: it stays where it is */
}

int mcs_path_add_walk(struct memcgstat *h, size_t n, const void *ids, size_t ids_stride,
		      const void *names, size_t names_stride, size_t level_off,
		      size_t name_off, const char **paths)
{
	struct mcs_strpool *pool = pool_of(h);
	struct {
		const char *path;
		size_t len;
	} up[32];
	const struct mcs_path *top;
	size_t i, mask, nr, depth, d, len;
	uint32_t base, level, *slots;
	struct mcs_path *e;
	const char *name;
	uint64_t id;
	char *path;
	int err = 0;

	if (!n)
		return 0;
	if (!pool || mcs_path_reserve(h, n))
		return -ENOMEM;
	/* the top, known before the walk: the rest is made below it */
	memcpy(&id, ids, sizeof(id));
	memcpy(&base, (const char *)names + level_off, sizeof(base));
	top = find(h, id);
	paths[0] = top ? top->path : NULL;
	if (!top) {
		for (i = 1; i < n; i++)
			paths[i] = NULL;
		return 0;
	}
	up[0].path = top->path;
	up[0].len = top->len;
	depth = 1;
	/* in locals: the stores of the paths' bytes would reload them */
	e = h->paths;
	slots = h->path_slots;
	mask = h->paths_cap - 1;
	nr = h->nr_paths;
	for (i = 1; i < n; i++) {
		memcpy(&id, (const char *)ids + i * ids_stride, sizeof(id));
		memcpy(&level, (const char *)names + i * names_stride + level_off, sizeof(level));
		name = (const char *)names + i * names_stride + name_off;
		paths[i] = NULL;
		/*
		 * Pre-order: the parent is the last record one level up, up[d - 1]
		 * while d <= depth; deeper, a record below one not placed.
		 */
		d = level - base;
		if (level <= base || d > depth)
			continue;
		depth = d;	/* what was deeper is not this one's lineage */
		if (!name[0])
			continue;
		path = join(pool, up[d - 1].path, up[d - 1].len, name, &len);
		if (!path) {
			err = -ENOMEM;
			break;
		}
		e[nr] = (struct mcs_path){ .id = id, .path = path, .seen = h->path_gen, .len = len };
		slots[free_slot(slots, mask, id)] = ++nr;
		paths[i] = path;
		if (d < sizeof(up) / sizeof(up[0])) {
			up[d].path = path;
			up[d].len = len;
			depth = d + 1;
		}
	}
	h->nr_paths = nr;
	return err;
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
