// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What the bpf backend needs of vmlinux BTF, in one pass over the raw file:
 * whether it has the kfuncs asked for, and the enumerators of the stat
 * table's enums (mcs_wanted_enum()). Where the kernel lets the file be
 * mapped (Linux 6.16 and later; 6.12 with kernel/patches' backport) the
 * pass reads the kernel's own copy of the BTF through a read-only mapping;
 * elsewhere the types are read in chunks through one buffer and only the
 * string section is held whole. Reading the file a page a read costs the
 * kernel a copy into the page and one out of it, and this process fresh
 * pages for the strings: the mapping saved 5.0 M guest instructions of an
 * open (make bench 7.open.once, release kernel: 13.16 M to 8.21 M,
 * doc/bench.md). Parsing the file with libbpf
 * (btf__load_vmlinux_btf(), an index of every type) cost ~24 M before
 * this pass replaced it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/btf.h>
#include "memcg_items.h"
#include "stats.h"
#include "strpool.h"

#define VMLINUX_BTF	"/sys/kernel/btf/vmlinux"
#define CHUNK		(64 * 1024)

struct mcs_vmlinux_entry {
	const char *name;
	bool func;
	int val;		/* an enumerator's value, a function's type id */
};

struct mcs_vmlinux {
	struct mcs_vmlinux_entry *e;
	size_t nr, cap;
	struct mcs_strpool pool;
	const char *const *funcs;	/* the functions to look for, all bpf_* */
	size_t nr_funcs;
	bool mapped;			/* the pass read a mapping of the file */
};

/* Whether @name, a bpf_* function's, is among those looked for. */
static bool wanted_func(const struct mcs_vmlinux *v, const char *name)
{
	size_t i;

	for (i = 0; i < v->nr_funcs; i++)
		if (v->funcs[i][4] == name[4] && !strcmp(v->funcs[i], name))
			return true;
	return false;
}

/* Whether the function @name is in @v already: its first type id is kept. */
static bool have_func(const struct mcs_vmlinux *v, const char *name)
{
	size_t i;

	for (i = 0; i < v->nr; i++)
		if (v->e[i].func && !strcmp(v->e[i].name, name))
			return true;
	return false;
}

static int add(struct mcs_vmlinux *v, const char *name, bool func, int val)
{
	struct mcs_vmlinux_entry *e;

	if (v->nr == v->cap) {
		e = realloc(v->e, (v->cap ? v->cap * 2 : 256) * sizeof(*e));
		if (!e)
			return -ENOMEM;
		v->e = e;
		v->cap = v->cap ? v->cap * 2 : 256;
	}
	name = mcs_strpool_add(&v->pool, name, strlen(name));
	if (!name)
		return -ENOMEM;
	v->e[v->nr++] = (struct mcs_vmlinux_entry){ name, func, val };
	return 0;
}

/* The bytes of a type's data after its struct btf_type; -1: a kind unknown here. */
static long extra_size(const struct btf_type *t)
{
	__u32 vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return (long)vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return (long)vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO:
		return (long)vlen * sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return (long)vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_ENUM64:
		return (long)vlen * sizeof(struct btf_enum64);
	}
	return -1;
}

static const char *str_at(const char *strs, __u32 len, __u32 off)
{
	/* the section ends with a NUL (checked): a string in it ends in it */
	return off < len ? strs + off : NULL;
}

/* @len bytes at @off, in as many reads as it takes: sysfs gives a page a read. */
static int pread_full(int fd, char *buf, size_t len, off_t off)
{
	ssize_t n;

	while (len) {
		n = pread(fd, buf, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPROTO;
		buf += n;
		len -= n;
		off += n;
	}
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct mcs_vmlinux_entry *x = a, *y = b;
	int d = strcmp(x->name, y->name);

	return d ? d : (int)x->func - (int)y->func;
}

/* The string section, its length: for the names of the types scanned. */
struct mcs_btf_strs {
	const char *s;
	__u32 len;
};

/*
 * The types of @p .. @end that are whole there, the first of them type
 * @id + 1: each bpf_* function asked for and the wanted enums' enumerators
 * added to @v. Returns where it stopped (the first type not whole there),
 * or NULL with *err set (-EPROTO: a kind or a name out of place; -ENOMEM).
 */
static const char *scan_types(struct mcs_vmlinux *v, const struct mcs_btf_strs *strs,
			      const char *p, const char *end, int *id, int *err)
{
	const char *s = strs->s;
	__u32 len = strs->len;
	int n = *id;

	while ((size_t)(end - p) >= sizeof(struct btf_type)) {
		const struct btf_type *t = (const void *)p;
		__u32 kind = BTF_INFO_KIND(t->info);
		const struct btf_enum *e;
		const char *name;
		long extra;
		__u32 i;

		if (kind == BTF_KIND_FUNC) {
			/* 27,000 functions: the prefix first, inline */
			name = str_at(s, len, t->name_off);
			if (!name)
				goto bad;
			++n;
			if (name[0] == 'b' && name[1] == 'p' && name[2] == 'f' && name[3] == '_' &&
			    wanted_func(v, name) && !have_func(v, name) &&
			    (*err = add(v, name, true, n)))
				return NULL;
			p += sizeof(*t);
			continue;
		}
		extra = extra_size(t);
		if (extra < 0)
			goto bad;
		if ((size_t)(end - p) - sizeof(*t) < (size_t)extra)
			break;
		++n;
		p += sizeof(*t) + extra;
		if (kind != BTF_KIND_ENUM)
			continue;
		/* the names of the enums only: no other is read */
		name = str_at(s, len, t->name_off);
		if (!name)
			goto bad;
		if (!mcs_wanted_enum(name))
			continue;
		for (i = 0, e = (const void *)(t + 1); i < BTF_INFO_VLEN(t->info); i++, e++) {
			name = str_at(s, len, e->name_off);
			if (!name)
				goto bad;
			*err = add(v, name, false, e->val);
			if (*err)
				return NULL;
		}
	}
	*id = n;
	return p;
bad:
	*err = -EPROTO;
	return NULL;
}

/*
 * The pass over the BTF of @map, @size bytes, or if @map is NULL of the
 * file open at @fd, read in chunks: 0, -EPROTO (not BTF as read here, or
 * cut short), -ENOMEM, or a read's -errno.
 */
static int scan(struct mcs_vmlinux *v, int fd, const char *map, size_t size)
{
	struct btf_header hdr;
	struct mcs_btf_strs strs;
	char *strs_buf = NULL, *chunk = NULL;
	const char *p;
	size_t have = 0, cap = CHUNK;	/* bytes in chunk, its size */
	off_t off, end;			/* the type bytes still to read into chunk */
	int err = -EPROTO, id = 0;	/* the last type's id: they count from 1 */
	ssize_t n;

	if (map && size < sizeof(hdr))
		return -EPROTO;
	if (map)
		memcpy(&hdr, map, sizeof(hdr));
	else if ((err = pread_full(fd, (char *)&hdr, sizeof(hdr), 0)))
		return err;
	if (hdr.magic != BTF_MAGIC || hdr.version != BTF_VERSION || hdr.hdr_len < sizeof(hdr) ||
	    !hdr.str_len)
		return -EPROTO;
	strs.len = hdr.str_len;
	if (map) {
		/* both sections inside the file: nothing is read past its end */
		if ((__u64)hdr.hdr_len + hdr.str_off + hdr.str_len > size ||
		    (__u64)hdr.hdr_len + hdr.type_off + hdr.type_len > size)
			return -EPROTO;
		strs.s = map + hdr.hdr_len + hdr.str_off;
		if (strs.s[strs.len - 1])
			return -EPROTO;
		p = map + hdr.hdr_len + hdr.type_off;
		p = scan_types(v, &strs, p, p + hdr.type_len, &id, &err);
		if (!p)
			return err;
		/* every type whole: the section ends where the last one does */
		if (p != map + hdr.hdr_len + hdr.type_off + hdr.type_len)
			return -EPROTO;
		qsort(v->e, v->nr, sizeof(*v->e), cmp_entry);
		return 0;
	}
	strs.s = strs_buf = malloc(hdr.str_len);
	chunk = malloc(CHUNK);
	if (!strs_buf || !chunk) {
		err = -ENOMEM;
		goto out;
	}
	err = pread_full(fd, strs_buf, hdr.str_len, hdr.hdr_len + hdr.str_off);
	if (err)
		goto out;
	err = -EPROTO;
	if (strs_buf[strs.len - 1])
		goto out;
	off = hdr.hdr_len + hdr.type_off;
	end = off + hdr.type_len;
	/* the chunk refilled behind the types not yet whole in it */
	while (off < end) {
		if (have == cap) {
			/* a type larger than the chunk: twice the chunk */
			char *bigger = realloc(chunk, 2 * cap);

			if (!bigger) {
				err = -ENOMEM;
				goto out;
			}
			chunk = bigger;
			cap *= 2;
		}
		n = (size_t)(end - off) < cap - have ? (size_t)(end - off) : cap - have;
		n = pread(fd, chunk + have, n, off);
		if (n <= 0) {
			err = n < 0 ? -errno : -EPROTO;
			goto out;
		}
		have += n;
		off += n;
		p = scan_types(v, &strs, chunk, chunk + have, &id, &err);
		if (!p)
			goto out;
		have -= p - chunk;
		memmove(chunk, p, have);
	}
	/* every type whole: nothing left over */
	err = have ? -EPROTO : 0;
	if (!err)
		qsort(v->e, v->nr, sizeof(*v->e), cmp_entry);
out:
	free(strs_buf);
	free(chunk);
	return err;
}

/*
 * @fd's whole file mapped read-only, its size in *size: NULL where it cannot
 * be (sysfs's BTF before Linux 6.16 has no mmap, an empty file).
 */
static const char *map_file(int fd, size_t *size)
{
	struct stat st;
	void *p;

	if (fstat(fd, &st) || st.st_size <= 0 || (unsigned long long)st.st_size > SIZE_MAX)
		return NULL;
	p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return NULL;
	*size = st.st_size;
	return p;
}

int mcs_vmlinux_load_file(const char *path, const char *const *funcs, size_t nr_funcs,
			  bool may_map, struct mcs_vmlinux **out)
{
	struct mcs_vmlinux *v = calloc(1, sizeof(*v));
	const char *map = NULL;
	size_t i, size = 0;
	int fd, err;

	*out = NULL;
	if (!v)
		return -ENOMEM;
	for (i = 0; i < nr_funcs; i++)
		if (strncmp(funcs[i], "bpf_", 4)) {
			free(v);
			return -EINVAL;
		}
	v->funcs = funcs;
	v->nr_funcs = nr_funcs;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		free(v);
		return err;
	}
	if (may_map)
		map = map_file(fd, &size);
	v->mapped = map != NULL;
	err = scan(v, fd, map, size);
	if (map)
		munmap((void *)map, size);
	close(fd);
	v->funcs = NULL;	/* the caller's */
	if (err) {
		mcs_vmlinux_free(v);
		return err;
	}
	*out = v;
	return 0;
}

int mcs_vmlinux_load(const char *const *funcs, size_t nr_funcs, struct mcs_vmlinux **out)
{
	return mcs_vmlinux_load_file(VMLINUX_BTF, funcs, nr_funcs, true, out);
}

bool mcs_vmlinux_mapped(const struct mcs_vmlinux *v)
{
	return v->mapped;
}

void mcs_vmlinux_free(struct mcs_vmlinux *v)
{
	if (!v)
		return;
	mcs_strpool_free(&v->pool);
	free(v->e);
	free(v);
}

void mcs_vmlinux_lookup(const struct mcs_vmlinux *v, struct mcs_btf_name *names, size_t n)
{
	struct mcs_vmlinux_entry key, *p;
	size_t i;

	for (i = 0; i < n; i++) {
		key.name = names[i].name;
		key.func = names[i].func;
		p = bsearch(&key, v->e, v->nr, sizeof(*v->e), cmp_entry);
		names[i].found = p != NULL;
		names[i].val = p ? p->val : 0;
	}
}

bool mcs_vmlinux_kf_layout_ok(const struct mcs_vmlinux *v)
{
	static const struct {
		const char *name;
		int val;
	} want[] = {
		{ "BPF_MEMCGSTAT_PAGE_STATE", MCS_PAGE_STATE },
		{ "BPF_MEMCGSTAT_PAGE_STATE_LOCAL", MCS_PAGE_STATE_LOCAL },
		{ "BPF_MEMCGSTAT_NODE_PAGE_STATE", MCS_NODE_PAGE_STATE },
		{ "BPF_MEMCGSTAT_VM_EVENTS", MCS_VM_EVENTS },
		{ "BPF_MEMCGSTAT_VM_EVENTS_LOCAL", MCS_VM_EVENTS_LOCAL },
		{ "BPF_MEMCGSTAT_MEMORY_EVENTS", MCS_MEMORY_EVENTS },
		{ "BPF_MEMCGSTAT_USAGE", MCS_USAGE },
		{ "BPF_MEMCGSTAT_IDX_SHIFT", 0 },
		{ "BPF_MEMCGSTAT_IDX_BITS", __builtin_popcount(MCS_KF_IDX_MAX) },
		{ "BPF_MEMCGSTAT_NID_SHIFT", MCS_KF_NID_SHIFT },
		{ "BPF_MEMCGSTAT_NID_BITS", __builtin_popcount(MCS_KF_NID_MAX) },
		{ "BPF_MEMCGSTAT_KIND_SHIFT", MCS_KF_KIND_SHIFT },
		{ "BPF_MEMCGSTAT_KIND_BITS", 32 - MCS_KF_KIND_SHIFT },
	};
	struct mcs_btf_name n[sizeof(want) / sizeof(want[0])] = {};
	size_t i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		n[i].name = want[i].name;
	mcs_vmlinux_lookup(v, n, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (n[i].found && n[i].val != want[i].val)
			return false;
	return true;
}
