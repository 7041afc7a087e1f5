/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * memcgstat top's state and its view (tools/top_view.c): the columns, the
 * frame drawn from the last refresh's rows, and the keys that change how it
 * is sorted and shown; the filter typed after / is top_filter.c's. top.c
 * parses the options, opens the handle, takes the refreshes and runs the
 * loop.
 */
#ifndef __MEMCGSTAT_TOP_VIEW_H
#define __MEMCGSTAT_TOP_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "filter.h"
#include "memcgstat.h"
#include "render.h"
#include "sample.h"

struct top_col;		/* a column of the frame (top_view.c) */

/*
 * The filter typed after / (or given by --filter): with a glob character
 * (* ? [) a pattern the whole path must match, fnmatch(3) as --include;
 * else a substring of the path. Both on the raw path, as the library has it.
 */
#define TOP_MATCH_MAX	256		/* bytes of the text, with its NUL */

struct top_match {
	char text[TOP_MATCH_MAX];			/* "": no filter */
	bool glob;
};

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
	struct render_view view;		/* the handle and dt, for rates */
	struct top_col *cols;			/* the frame's, the path's last */
	size_t nr_cols;
	bool chosen;				/* -s: exactly its stats, in order */
	struct render_row *rows;
	size_t nr_rows, cap_rows;
	const char *root;			/* CGROUP's path as its row shows it */
	char *root_own;				/* ... escaped, when there is no row */
	size_t sort;				/* the column, as top_sort_column() */
	struct row_filter filter;		/* --max-depth (+ and -), --include, --exclude */
	struct top_match match;			/* and --filter, or /: all must keep a row */
	bool prompt;				/* / typed: keys edit the text below */
	char edit[TOP_MATCH_MAX];
	size_t edit_len;
	int deepest;				/* the last refresh's deepest row, below CGROUP */
	bool remake;				/* a key changed the filter: the rows again */
	size_t first;				/* the first row shown (scrolled) */
	size_t page;				/* rows the last frame had room for */
	bool reverse, totals, bytes;
	char note[160];				/* in place of the keys, until a key */
	char *gone;				/* why CGROUP could not be read, while so */
	int gone_err;				/* ... its errno, or 0 */
	bool failed;				/* a refresh could not read it or a row: exit 1 */
	struct bad_row *bad;			/* the rows shown without values ... */
	size_t nr_bad, cap_bad;			/* ... (their read failed) */
	struct report rep;			/* -b: each said once, as the CLI's */
};

/*
 * The frame's columns, t->cols, from t->h: with t->chosen each of the
 * handle's, in its order; else those of top's own set the handle reads (a
 * stat this hierarchy lacks has none). The path last. 0 or -ENOMEM.
 */
int top_find_columns(struct top *t);

/*
 * The stats of the columns top_find_columns() found, added to the -s list
 * *@list (add_stats()): 0, or 1 said why.
 */
int top_stats(const struct top *t, char **list);

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

/* @m from @text: 0, or -ENAMETOOLONG (@m kept as it was). */
int top_match_set(struct top_match *m, const char *text);

/* Whether @m keeps the row of the raw path @path (no filter: every row). */
bool top_match_keeps(const struct top_match *m, const char *path);

/*
 * The filter as the first line says it, escaped, after @sep, into @buf:
 * filter "d0" or glob "*d0?"; nothing without a filter.
 */
void top_match_say(const struct top_match *m, const char *sep, char *buf, size_t size);

/* / pressed: an empty prompt on the second line (t->prompt). */
void top_prompt_open(struct top *t);

/*
 * A key while the prompt is open: a byte of the text, Backspace, ^U (the
 * line emptied), Enter (t->match set, t->remake: an empty text clears the
 * filter) or Esc (the filter as it was). True for ^C: quit.
 */
bool top_prompt_key(struct top *t, int key);

/* The prompt's line, the text escaped, into @buf. */
void top_prompt_line(const struct top *t, char *buf, size_t size);

#endif /* __MEMCGSTAT_TOP_VIEW_H */
