/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Which cgroups of a tree are shown (memcgstat -r) or exported
 * (memcgstat-exporter): --max-depth, --include and --exclude, one
 * implementation for both (tools/filter.c).
 */
#ifndef __MEMCGSTAT_FILTER_H
#define __MEMCGSTAT_FILTER_H

#include <stdbool.h>
#include <stddef.h>

struct row_filter {
	long max_depth;			/* below the read's top; -1: no limit */
	char **include, **exclude;	/* fnmatch(3) patterns on the path */
	size_t nr_include, nr_exclude;
};

#define ROW_FILTER_INIT { .max_depth = -1 }

/* Whether @f leaves every row in. */
static inline bool row_filter_none(const struct row_filter *f)
{
	return f->max_depth < 0 && !f->nr_include && !f->nr_exclude;
}

/* The depth of a result's path: "/" 0, "/a" 1, "/a/b" 2. */
int path_depth(const char *path);

/*
 * Whether @f keeps the row at @path of a read whose top is at depth @base
 * (path_depth() of its first row): at most max_depth below the top, one of
 * the include patterns matching if there are any, none of the exclude ones
 * (exclude wins).
 */
bool row_filter_keeps(const struct row_filter *f, const char *path, int base);

void row_filter_free(struct row_filter *f);

#endif /* __MEMCGSTAT_FILTER_H */
