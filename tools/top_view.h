/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * memcgstat top's state and its view (tools/top_view.c): the columns, the
 * frame drawn from the last refresh's rows, and the keys that change how it
 * is sorted and shown. top.c parses the options, opens the handle, takes
 * the refreshes and runs the loop.
 */
#ifndef __MEMCGSTAT_TOP_VIEW_H
#define __MEMCGSTAT_TOP_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "filter.h"
#include "memcgstat.h"
#include "render.h"

/* A run of top: two results in turn, the rows of the last, the view. */
struct top {
	struct memcgstat *h;
	struct memcgstat_result *res[2];	/* res[cur]: the last refresh */
	struct id_index index[2];		/* each result's rows, by id */
	double t[2];				/* CLOCK_MONOTONIC of each read */
	double wall;				/* CLOCK_REALTIME of the last */
	double interval;			/* -i, as the header says it */
	int cur;
	long nr_samples;
	struct render_view view;		/* the columns and dt, for rates */
	struct render_row *rows;
	size_t nr_rows, cap_rows;
	const char *root;			/* CGROUP's path as its row shows it */
	char *root_own;				/* ... escaped, when there is no row */
	size_t sort;				/* the column, as top_sort_column() */
	struct row_filter filter;		/* --max-depth (+ and -), --include, --exclude */
	int deepest;				/* the last refresh's deepest row, below CGROUP */
	bool remake;				/* a key changed the filter: the rows again */
	size_t first;				/* the first row shown (scrolled) */
	size_t page;				/* rows the last frame had room for */
	bool reverse, totals, bytes;
	char note[160];				/* in place of the keys, until a key */
	char gone[512];				/* why CGROUP could not be read, while so */
	int gone_err;				/* ... its errno, or 0 */
	bool failed;				/* a refresh could not read it: exit 1 */
};

/* Which of top's columns @h reads (a stat this hierarchy lacks has none). */
void top_find_columns(struct memcgstat *h);

/*
 * The stats of the columns top_find_columns() found, added to the -s list
 * *@list (add_stats()): 0, or 1 said why.
 */
int top_stats(char **list);

/* The column --sort @name names: 0 and t->sort set, or the exit status. */
int top_sort_column(struct top *t, const char *name);

/* The rows in the view's order: by t->sort, reversed or not. */
void top_sort_rows(struct top *t);

/* Where a frame goes: the window (rows, cols), or no limit (0) in batch mode. */
struct screen {
	FILE *f;
	bool tty;
	size_t rows, cols;
	size_t lines;			/* begun so far */
};

/* One frame of the last refresh: the header, the rows that fit, and what did not fit. */
void top_draw(struct top *t, struct screen *s);

/*
 * A key (term.h's, or a character): true to quit. Up, Down, PgUp, PgDn,
 * Home and End scroll the rows (the next frame keeps them in range); + and
 * - change the depth shown, for the caller to make the rows again
 * (t->remake).
 */
bool top_on_key(struct top *t, int key);

#endif /* __MEMCGSTAT_TOP_VIEW_H */
