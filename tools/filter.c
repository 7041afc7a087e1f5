// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --max-depth, --include and --exclude (filter.h). */
#include <fnmatch.h>
#include <stdlib.h>
#include "filter.h"

int path_depth(const char *path)
{
	int d = 0;

	for (; *path; path++)
		d += *path == '/' && path[1];
	return d;
}

static bool matches_any(char *const *pats, size_t nr, const char *path)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!fnmatch(pats[i], path, 0))
			return true;
	return false;
}

bool row_filter_keeps(const struct row_filter *f, const char *path, int base)
{
	if (f->max_depth >= 0 && path_depth(path) - base > f->max_depth)
		return false;
	if (f->nr_include && !matches_any(f->include, f->nr_include, path))
		return false;
	return !matches_any(f->exclude, f->nr_exclude, path);
}

void row_filter_free(struct row_filter *f)
{
	free(f->include);
	free(f->exclude);
	f->include = f->exclude = NULL;
	f->nr_include = f->nr_exclude = 0;
}
