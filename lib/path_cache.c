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
 * The hash is made, and the entries added since linked into it, by the
 * first lookup that needs them (find()): a first snapshot adds every
 * cgroup of its tree and looks none up, and a one-shot run exits before
 * any lookup (filling 32,768 slots took 0.23 M and clearing them 0.13 M
 * of the 10.3 M of a first snapshot of 10,001 cgroups; doc/bench.md,
 * issue 22's ninth step). Without memory for it, a lookup reads the
 * entries in turn.
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
	h->nr_paths = h->paths_cap = h->nr_linked = 0;
}

static size_t slot_of(uint64_t id, size_t cap)
{
	return (id * 0x9e3779b97f4a7c15ULL >> 17) & (cap - 1);
}

/* The first empty slot on @id's probe of a hash of @mask + 1 @slots. */
static inline size_t free_slot(const uint32_t *slots, size_t mask, uint64_t id)
{
	size_t i;

	for (i = slot_of(id, mask + 1); slots[i]; i = (i + 1) & mask)
		;
	return i;
}

/* The entries not yet in the hash into it, made if need be: false without memory. */
static bool link_paths(struct memcgstat *h)
{
	size_t mask = h->paths_cap - 1, i;
	uint32_t *slots = h->path_slots;

	if (!slots) {
		slots = calloc(h->paths_cap, sizeof(*slots));
		if (!slots)
			return false;
		h->path_slots = slots;
	}
	for (i = h->nr_linked; i < h->nr_paths; i++)
		slots[free_slot(slots, mask, h->paths[i].id)] = i + 1;
	h->nr_linked = h->nr_paths;
	return true;
}

/* @id's entry read in turn: NULL if none. */
static struct mcs_path *scan_entries(struct memcgstat *h, uint64_t id)
{
	struct mcs_path *p, *end = h->paths + h->nr_paths;

	for (p = h->paths; p < end; p++) {
		if (p->id == id) {
			p->seen = h->path_gen;
			return p;
		}
	}
	return NULL;
}

/*
 * A cache with no hash yet and at most this many entries is read in turn:
 * the top that a first snapshot adds before its walk, and looks up again.
 */
#define MCS_PATH_SCAN	8

static struct mcs_path *find(struct memcgstat *h, uint64_t id)
{
	size_t i, mask = h->paths_cap - 1;
	struct mcs_path *p;

	if (!h->path_slots && h->nr_paths <= MCS_PATH_SCAN)
		return scan_entries(h, id);
	if (h->nr_linked < h->nr_paths && !link_paths(h))
		return scan_entries(h, id);
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

/*
 * Room for @more entries: the table again without its stale entries, for
 * a hash that keeps it at most half full (at least 512 slots), made at
 * the next lookup.
 */
static int grow_paths(struct memcgstat *h, size_t more)
{
	size_t cap = 512, live = 0, i;
	struct mcs_path *np;

	for (i = 0; i < h->nr_paths; i++)
		live += !stale(h, &h->paths[i]);
	while (2 * (live + more) > cap)
		cap *= 2;
	if (cap / 2 > UINT32_MAX - 1)
		return -ENOMEM;
	np = malloc(cap / 2 * sizeof(*np));
	if (!np)
		return -ENOMEM;
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
	h->path_slots = NULL;
	h->paths_cap = cap;
	h->nr_paths = live;
	h->nr_linked = 0;
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
	p = &h->paths[h->nr_paths++];
	p->id = id;
	p->path = path;
	p->len = len;
	p->seen = h->path_gen;
	return 0;	/* linked by the next lookup */
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

int mcs_path_put(struct memcgstat *h, uint64_t id, const char *dir)
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

unsigned long memcgstat__testing_nr_scans(const struct memcgstat *h)
{
	return h->nr_scans;
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

/*
 * The length of the name in the @size bytes at @s (a multiple of 8), read
 * a word at a time; 0 where no NUL ends it there. The lowest byte of a
 * word with its high bit set in (v - 0x01..01) & ~v & 0x80..80 is its
 * first zero byte (a borrow sets only higher ones): a little-endian word's
 * first in memory.
 */
static inline size_t name_len(const char *s, size_t size)
{
	const uint64_t ones = 0x0101010101010101ULL;
	uint64_t v, z;
	size_t k;

	if (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__) {
		const char *end = memchr(s, 0, size);

		return end ? (size_t)(end - s) : 0;
	}
	for (k = 0; k < size; k += 8) {
		memcpy(&v, s + k, sizeof(v));
		z = (v - ones) & ~v & ones << 7;
		if (z)
			return k + ((unsigned int)__builtin_ctzll(z) >> 3);
	}
	return 0;
}

/*
 * @n bytes of @src to @dst a word at a time, at least one: up to 8 bytes
 * past each are read and written (a pool's slack, a name's field).
 */
static inline void copy_words(char *dst, const char *src, size_t n)
{
	uint64_t v;
	size_t k = 0;

	do {
		memcpy(&v, src + k, sizeof(v));
		memcpy(dst + k, &v, sizeof(v));
		k += 8;
	} while (k < n);
}

/*
 * Where a walk's paths go: the free bytes [cur, end) of the pool's newest
 * chunk, kept here while the walk writes (the stores of the paths' bytes
 * would otherwise reload the chunk's use) and put back by walk_room_done().
 */
struct walk_room {
	struct mcs_strpool *pool;
	char *start, *cur, *end;
};

static void walk_room_start(struct walk_room *r)
{
	struct mcs_chunk *c = r->pool->chunks;

	r->start = r->cur = c ? c->data + c->used : NULL;
	r->end = c ? c->data + c->cap : NULL;
}

static void walk_room_done(struct walk_room *r)
{
	struct mcs_chunk *c = r->pool->chunks;

	if (c)
		c->used = r->cur - c->data;
	r->pool->live += r->cur - r->start;
}

/*
 * The newest chunk full: room for @len bytes and a NUL in a new one, or
 * NULL without memory. The walk takes room from [cur, end) itself.
 */
static char *walk_room_grow(struct walk_room *r, size_t len)
{
	char *p;

	walk_room_done(r);
	p = mcs_strpool_alloc_chunk(r->pool, len);	/* counted there */
	walk_room_start(r);
	return p;
}

int mcs_path_add_walk(struct memcgstat *h, size_t n, const struct mcs_walk_layout *l,
		      const char **paths)
{
	/* few locals in the pass: what does not fit in registers is reloaded */
	const char *name = (const char *)l->names + l->name_off;
	size_t stride = l->names_stride, size = l->name_size;
	ptrdiff_t to_level = (ptrdiff_t)l->level_off - (ptrdiff_t)l->name_off;
	struct walk_room room = { .pool = pool_of(h) };
	const char **out, **out_end = paths + n;
	size_t depth, d, len, pl;
	struct {
		const char *path;
		size_t len;
	} up[32];
	const struct mcs_path *top;
	struct mcs_path *e, *ep;
	uint32_t base, level, gen = h->path_gen;
	const char *parent;
	size_t nl;
	uint64_t id;
	char *path;
	int err = 0;

	if (!n)
		return 0;
	if (!room.pool || mcs_path_reserve(h, n))
		return -ENOMEM;
	/* the top, known before the walk: the rest is made below it */
	memcpy(&id, l->ids, sizeof(id));
	memcpy(&base, name + to_level, sizeof(base));
	top = find(h, id);
	paths[0] = top ? top->path : NULL;
	if (!top) {
		for (out = paths + 1; out < out_end; out++)
			*out = NULL;
		return 0;
	}
	/* the root's path is "/": its children's start with their own '/' */
	up[0].path = top->path;
	up[0].len = top->len == 1 && top->path[0] == '/' ? 0 : top->len;
	depth = 1;
	walk_room_start(&room);
	/*
	 * The paths, each entry with its record's index for an id; then the
	 * entries' ids. The hash links them at the next lookup.
	 */
	e = ep = h->paths + h->nr_paths;
	for (out = paths + 1; out < out_end; out++) {
		name += stride;
		memcpy(&level, name + to_level, sizeof(level));
		path = NULL;
		/*
		 * Pre-order: the parent is the last record one level up, up[d - 1]
		 * while d <= depth; deeper, a record below one not placed.
		 */
		d = level - base;
		if (level <= base || d > depth)
			goto next;
		depth = d;	/* what was deeper is not this one's lineage */
		nl = name_len(name, size);
		if (!nl)
			goto next;
		parent = up[d - 1].path;
		pl = up[d - 1].len;
		len = pl + 1 + nl;
		if ((size_t)(room.end - room.cur) > len) {
			path = room.cur;
			room.cur += len + 1;
		} else if (!(path = walk_room_grow(&room, len))) {
			err = -ENOMEM;
			break;
		}
		copy_words(path, parent, pl);
		path[pl] = '/';
		copy_words(path + pl + 1, name, nl);
		path[len] = '\0';
		*ep++ = (struct mcs_path){
			.id = out - paths, .path = path, .seen = gen, .len = len
		};
		if (d < sizeof(up) / sizeof(up[0])) {
			up[d].path = path;
			up[d].len = len;
			depth = d + 1;
		}
next:
		*out = path;
	}
	walk_room_done(&room);
	for (; e < ep; e++)
		memcpy(&e->id, (const char *)l->ids + e->id * l->ids_stride, sizeof(e->id));
	h->nr_paths = ep - h->paths;
	return err;	/* linked by the next lookup */
}

int mcs_path_add_dir(struct memcgstat *h, const char *abs)
{
	struct stat st;
	int err = mcs_stat_long(abs, &st);

	if (err)
		return err == -ENOENT ? 0 : err;
	return find(h, st.st_ino) ? 0 : mcs_path_put(h, st.st_ino, abs);
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

/* A directory the scan could not read, for the reason @err: skipped. */
static void skipped(struct memcgstat *h, int err)
{
	h->scan_whole = false;
	if (!h->scan_skip)
		h->scan_skip = err;
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
		skipped(h, ELOOP);
		return 0;	/* absurdly deep: skip */
	}
	d = fdopendir(fd);
	if (!d) {
		skipped(h, errno);
		close(fd);
		return 0;
	}
	while (!err && (errno = 0, de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		err = mcs_pathbuf_push(p, de->d_name);
		if (!err)
			err = mcs_path_put(h, de->d_ino, p->s);
		if (!err) {
			sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (sub >= 0)
				err = scan_paths(h, sub, p, depth + 1);
			else if (errno != ENOENT)	/* not gone meanwhile */
				skipped(h, errno);
		}
		mcs_pathbuf_pop(p, len);
	}
	if (!de && errno)
		skipped(h, errno);
	closedir(d);
	return err;
}

const char *mcs_path_rescan(struct memcgstat *h, const char *top, uint64_t id,
			    bool *rescanned, int *err)
{
	struct mcs_pathbuf pb;
	struct stat st;
	int fd;

	*rescanned = true;
	h->nr_scans++;
	h->scan_whole = false;
	h->scan_skip = 0;
	mcs_free_paths(h);
	fd = mcs_openat_long(AT_FDCWD, top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return NULL;	/* gone */
	if (fstat(fd, &st)) {
		close(fd);
		return NULL;
	}
	*err = mcs_path_put(h, st.st_ino, top);
	h->scan_whole = !strcmp(top, h->root);	/* until a directory is skipped */
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

const char *mcs_path_of(struct memcgstat *h, const char *top, uint64_t id,
			bool *rescanned, int *err)
{
	const char *p = mcs_path_find(h, id);

	*err = 0;
	if (p || *rescanned)
		return p;
	return mcs_path_rescan(h, top, id, rescanned, err);
}
