// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What the bpf backend needs of vmlinux BTF, in one pass over the raw file:
 * whether it has the kfuncs asked for, and the enumerators of the stat
 * table's enums (mcs_wanted_enum()). The types are read in chunks
 * through one buffer and only the string section is held whole: parsing
 * the file with libbpf (btf__load_vmlinux_btf(), an index of every type,
 * two copies of the file's 5 MB) and walking it cost ~24 M of the ~77 M
 * guest instructions of memcgstat_open() (make bench profile, issue 22).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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

static int scan(struct mcs_vmlinux *v, int fd)
{
	struct btf_header hdr;
	char *strs = NULL, *buf = NULL;
	size_t have = 0, pos = 0;	/* bytes in buf; where the next type starts */
	off_t off, end;
	long skip = 0;
	int err = -EPROTO, id = 0;	/* the last type's id: they count from 1 */

	err = pread_full(fd, (char *)&hdr, sizeof(hdr), 0);
	if (err)
		return err;
	if (hdr.magic != BTF_MAGIC || hdr.version != BTF_VERSION || hdr.hdr_len < sizeof(hdr) ||
	    !hdr.str_len)
		return -EPROTO;
	strs = malloc(hdr.str_len);
	buf = malloc(CHUNK);
	if (!strs || !buf) {
		err = -ENOMEM;
		goto out;
	}
	err = pread_full(fd, strs, hdr.str_len, hdr.hdr_len + hdr.str_off);
	if (err)
		goto out;
	err = -EPROTO;
	if (strs[hdr.str_len - 1])
		goto out;
	off = hdr.hdr_len + hdr.type_off;
	end = off + hdr.type_len;
	for (;;) {
		const struct btf_type *t;
		const char *name;
		long extra;
		ssize_t n;

		/* the rest of a type skipped across the buffer's end */
		if (skip) {
			long k = (long)(have - pos) < skip ? (long)(have - pos) : skip;

			pos += k;
			skip -= k;
		}
		if (!skip && have - pos >= sizeof(*t)) {
			t = (const void *)(buf + pos);
			extra = extra_size(t);
			if (extra < 0) {
				err = -EPROTO;
				goto out;
			}
			name = str_at(strs, hdr.str_len, t->name_off);
			if (!name) {
				err = -EPROTO;
				goto out;
			}
			if (BTF_INFO_KIND(t->info) == BTF_KIND_FUNC) {
				/* 57,000 functions: the prefix first, inline */
				++id;
				if (name[0] == 'b' && name[1] == 'p' && name[2] == 'f' &&
				    name[3] == '_' && wanted_func(v, name) && !have_func(v, name) &&
				    (err = add(v, name, true, id)))
					goto out;
				pos += sizeof(*t);
				continue;
			}
			if (BTF_INFO_KIND(t->info) != BTF_KIND_ENUM || !mcs_wanted_enum(name)) {
				++id;
				pos += sizeof(*t);
				skip = extra;
				continue;
			}
			/* a wanted enum is read whole from the buffer */
			if (sizeof(*t) + extra > CHUNK) {
				err = -E2BIG;
				goto out;
			}
			if (have - pos >= sizeof(*t) + extra) {
				const struct btf_enum *e = (const void *)(t + 1);
				__u32 i;

				for (i = 0; i < BTF_INFO_VLEN(t->info); i++, e++) {
					name = str_at(strs, hdr.str_len, e->name_off);
					if (!name) {
						err = -EPROTO;
						goto out;
					}
					err = add(v, name, false, e->val);
					if (err)
						goto out;
				}
				++id;
				pos += sizeof(*t) + extra;
				continue;
			}
		}
		/* more of the type section: what is left first */
		if (off >= end) {
			err = have == pos && !skip ? 0 : -EPROTO;
			break;
		}
		memmove(buf, buf + pos, have - pos);
		have -= pos;
		pos = 0;
		n = (size_t)(end - off) < CHUNK - have ? (size_t)(end - off) : CHUNK - have;
		n = pread(fd, buf + have, n, off);
		if (n <= 0) {
			err = n < 0 ? -errno : -EPROTO;
			goto out;
		}
		have += n;
		off += n;
	}
	if (!err)
		qsort(v->e, v->nr, sizeof(*v->e), cmp_entry);
out:
	free(strs);
	free(buf);
	return err;
}

int mcs_vmlinux_load_file(const char *path, const char *const *funcs, size_t nr_funcs,
			  struct mcs_vmlinux **out)
{
	struct mcs_vmlinux *v = calloc(1, sizeof(*v));
	size_t i;
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
	err = scan(v, fd);
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
	return mcs_vmlinux_load_file(VMLINUX_BTF, funcs, nr_funcs, out);
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
