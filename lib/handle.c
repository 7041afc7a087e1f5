// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* libmemcgstat's handle: its messages, and what it was opened with. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "handle.h"

int mcs_set_err(struct memcgstat *h, int err, const char *fmt, ...)
{
	char *old = h->err_long;	/* an argument may be it: freed after */
	va_list ap;
	int n;

	h->err_long = NULL;
	va_start(ap, fmt);
	n = vsnprintf(h->err, sizeof(h->err), fmt, ap);
	va_end(ap);
	/* whole, where memory allows; else its first bytes */
	if (n >= (int)sizeof(h->err))
		h->err_long = malloc(n + 1);
	if (h->err_long) {
		va_start(ap, fmt);
		vsnprintf(h->err_long, n + 1, fmt, ap);
		va_end(ap);
	}
	free(old);
	return err;
}

uint64_t mcs_cols_sig(const struct memcgstat *h)
{
	uint64_t x = 0xcbf29ce484222325ULL;	/* FNV-1a, 64 bits */
	size_t i;

	for (i = 0; i < h->nr_cols; i++) {
		x = (x ^ (uint64_t)(h->cols[i].def - mcs_stat_defs)) * 0x100000001b3ULL;
		x = (x ^ (uint64_t)(h->cols[i].nid + 1)) * 0x100000001b3ULL;
	}
	return x;
}

bool mcs_cols_need(const struct memcgstat *h, enum mcs_source src)
{
	size_t i;

	for (i = 0; i < h->nr_cols; i++)
		if (h->cols[i].def->src == src)
			return true;
	return false;
}

const char *memcgstat_version(void)
{
	return MEMCGSTAT_VERSION;
}

const char *memcgstat_errmsg(const struct memcgstat *h)
{
	if (!h)
		return "out of memory";
	if (!h->err[0])
		return "no error";
	return h->err_long ? h->err_long : h->err;
}

const char *memcgstat_backend_name(enum memcgstat_backend b)
{
	static const char *const names[] = { "auto", "bpf", "text" };

	return (unsigned int)b < sizeof(names) / sizeof(names[0]) ? names[b] : "unknown";
}

enum memcgstat_backend memcgstat_backend(const struct memcgstat *h)
{
	return h->ops && !h->undecided ? h->ops->id : MEMCGSTAT_BACKEND_AUTO;
}

const char *memcgstat_backend_reason(const struct memcgstat *h)
{
	return h->reason[0] ? h->reason : NULL;
}

enum memcgstat_query memcgstat_query(const struct memcgstat *h)
{
	return h->query;
}

const char *memcgstat_query_reason(const struct memcgstat *h)
{
	return h->query_reason[0] ? h->query_reason : NULL;
}

const char *memcgstat_kfuncs(const struct memcgstat *h)
{
	return memcgstat_backend(h) == MEMCGSTAT_BACKEND_BPF ? h->kfuncs : NULL;
}

enum memcgstat_query memcgstat_last_query(const struct memcgstat *h)
{
	return h->last_query;
}

const char *memcgstat_query_name(enum memcgstat_query q)
{
	static const char *const names[] = { "auto", "syscall", "iter" };

	return (unsigned int)q < sizeof(names) / sizeof(names[0]) ? names[q] : "unknown";
}

const char *memcgstat_root(const struct memcgstat *h)
{
	return h->root;
}

int memcgstat_cgroup_version(const struct memcgstat *h)
{
	return h->version;
}

size_t memcgstat_nr_columns(const struct memcgstat *h)
{
	return h->nr_cols;
}

const char *memcgstat_column_name(const struct memcgstat *h, size_t i)
{
	return i < h->nr_cols ? h->cols[i].def->name : NULL;
}

int memcgstat_column_node(const struct memcgstat *h, size_t i)
{
	return i < h->nr_cols ? h->cols[i].nid : -1;
}

int memcgstat_stat_available(struct memcgstat *h, const char *name)
{
	const struct mcs_stat_def *def = name ? mcs_stat_def_for(name, h->version) : NULL;

	if (!def)
		return mcs_set_err(h, -ENOENT, "unknown stat '%s'", name ? name : "(null)");
	return h->ops->has_stat(h, def);
}

int memcgstat_column_index(const struct memcgstat *h, const char *name, int nid)
{
	size_t i;

	for (i = 0; name && i < h->nr_cols; i++)
		if (!strcmp(h->cols[i].def->name, name) && h->cols[i].nid == nid)
			return i;
	return -ENOENT;
}

static enum memcgstat_kind def_kind(const struct mcs_stat_def *def)
{
	if (!def)
		return MEMCGSTAT_KIND_UNKNOWN;
	return def->unit == MCS_EVENTS || def->unit == MCS_MICROSECONDS ?
	       MEMCGSTAT_KIND_COUNTER : MEMCGSTAT_KIND_GAUGE;
}

static const char *def_unit(const struct mcs_stat_def *def)
{
	if (def && def->unit == MCS_BYTES)
		return "bytes";
	if (def && def->unit == MCS_MICROSECONDS)
		return "microseconds";
	return NULL;
}

enum memcgstat_kind memcgstat_column_kind(const struct memcgstat *h, size_t i)
{
	return def_kind(i < h->nr_cols ? h->cols[i].def : NULL);
}

const char *memcgstat_column_unit(const struct memcgstat *h, size_t i)
{
	return def_unit(i < h->nr_cols ? h->cols[i].def : NULL);
}

enum memcgstat_kind memcgstat_stat_kind(const char *name)
{
	return def_kind(name ? mcs_stat_def_find(name) : NULL);
}

const char *memcgstat_stat_unit(const char *name)
{
	return def_unit(name ? mcs_stat_def_find(name) : NULL);
}

size_t memcgstat_nr_known_stats(void)
{
	return mcs_nr_named_stats();
}

const char *memcgstat_known_stat(size_t i)
{
	const struct mcs_stat_def *def = mcs_named_stat(i);

	return def ? def->name : NULL;
}
