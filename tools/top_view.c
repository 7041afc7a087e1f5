// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * memcgstat top's view: the columns (top's own, known[], or -s's), the
 * order of the rows, a frame drawn in the window's rows and columns (or
 * plainly, in batch mode), and the keys that change the sort, the order,
 * rates or totals and the units. What top.c hands it is struct top, the
 * rows of the last refresh in it.
 */
#define _GNU_SOURCE	/* asprintf() */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common.h"
#include "escape.h"
#include "memcgstat.h"
#include "render.h"
#include "term.h"
#include "top_view.h"

/*
 * top's own columns, left to right, the cgroup's path last (where the
 * window cuts it, from the left), and the key that sorts by each. A stat
 * this hierarchy does not have gets no column: cgroup v1 has no memory_high
 * and no memory.events, v2 no failcnt; swap is v2's memory.swap.current,
 * memsw v1's memory and swap together; tasks are the cgroup's own
 * processes, not its descendants'. With -s the columns are its stats
 * instead; one of these keeps its label and key there, any other is
 * labelled with its name in capitals and has no key (--sort, < and >).
 */
static const struct known_col {
	const char *stat;	/* NULL: the path */
	const char *label;
	int key;
} known[] = {
	{ "usage", "USAGE", 'u' },
	{ "working_set", "WSET", 'w' },
	{ "anon", "ANON", 'a' },
	{ "file", "FILE", 'f' },
	{ "swap_current", "SWAP", 's' },	/* v2, with swap accounting */
	{ "memsw_usage", "MEMSW", 'S' },	/* v1, with swap accounting */
	{ "memory_high", "HIGH", 'h' },
	{ "memory_max", "MAX", 'm' },
	{ "nr_procs", "TASKS", 'T' },		/* cgroup.procs' entries, as systemd-cgtop's */
	{ "pgfault", "FLT", 'p' },
	{ "pgmajfault", "MAJFLT", 'j' },
	{ "events_high", "HIGHEV", 'H' },
	{ "events_max", "MAXEV", 'M' },
	{ "events_oom_kill", "OOMKILL", 'o' },
	{ "memory_failcnt", "FAILCNT", 'c' },
	{ NULL, "CGROUP", 'n' },
};

/* A column of this run's frames. */
struct top_col {
	const char *stat;	/* NULL: the path */
	char label[40];		/* a counter's is LABEL/s while rates show */
	int key;		/* sorts by it; 0: none */
	int idx;		/* the handle's column */
	bool counter;		/* as rates (or totals) */
	bool size;		/* in bytes: K, M, G (or bytes); else a plain number */
	size_t width;		/* this frame's */
};

#define PATH_COL(t)	((t)->nr_cols - 1)
#define HEADER_LINES	3
#define MIN_PATH	12	/* columns the path keeps before numbers go */

static const struct known_col *known_stat(const char *stat)
{
	size_t i;

	for (i = 0; stat && known[i].stat; i++)
		if (!strcmp(known[i].stat, stat))
			return &known[i];
	return stat ? NULL : &known[ARRAY_SIZE(known) - 1];
}

static const struct known_col *known_key(int key)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(known); i++)
		if (known[i].key == key)
			return &known[i];
	return NULL;
}

/* Column @c: stat @stat (NULL: the path), the handle's column @idx. */
static void set_col(struct top_col *c, struct memcgstat *h, const char *stat, int idx)
{
	const struct known_col *k = known_stat(stat);
	const char *unit;
	size_t i;

	c->stat = stat;
	c->idx = idx;
	c->key = k ? k->key : 0;
	if (k)
		snprintf(c->label, sizeof(c->label), "%s", k->label);
	else	/* a stat's name: lowercase ASCII, digits, _ */
		for (i = 0; i < sizeof(c->label); i++)
			if (!(c->label[i] = i + 1 < sizeof(c->label) ? toupper((unsigned char)stat[i]) : 0))
				break;
	if (!stat)
		return;
	unit = memcgstat_column_unit(h, idx);
	c->counter = memcgstat_column_kind(h, idx) == MEMCGSTAT_KIND_COUNTER;
	c->size = unit && !strcmp(unit, "bytes");
}

int top_find_columns(struct top *t)
{
	size_t n = t->chosen ? memcgstat_nr_columns(t->h) : ARRAY_SIZE(known) - 1, i;
	const char *stat;
	int idx;

	free(t->cols);
	t->nr_cols = 0;
	t->cols = calloc(n + 1, sizeof(*t->cols));
	if (!t->cols)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		stat = t->chosen ? memcgstat_column_name(t->h, i) : known[i].stat;
		idx = t->chosen ? (int)i : memcgstat_column_index(t->h, stat, -1);
		if (idx >= 0)
			set_col(&t->cols[t->nr_cols++], t->h, stat, idx);
	}
	set_col(&t->cols[t->nr_cols++], t->h, NULL, -1);
	return 0;
}

int top_stats(const struct top *t, char **list)
{
	size_t i;

	for (i = 0; i < PATH_COL(t); i++)
		if (add_stats(list, t->cols[i].stat))
			return 1;
	return 0;
}

int top_sort_column(struct top *t, const char *sort)
{
	char names[1024] = "";
	size_t i, len;

	for (i = 0; i < t->nr_cols; i++) {
		const char *name = t->cols[i].stat ? t->cols[i].stat : "cgroup";

		if (!strcmp(sort, name)) {
			t->sort = i;
			return 0;
		}
		len = strlen(names);
		snprintf(names + len, sizeof(names) - len, "%s%s", len ? ", " : "", name);
	}
	if (!t->chosen && known_stat(sort))
		return usage_err("--sort: %s has no column here: the %s backend on cgroup v%d does not read it",
				 sort, memcgstat_backend_name(memcgstat_backend(t->h)),
				 memcgstat_cgroup_version(t->h));
	return usage_err("--sort: '%s' is not a column of top (%s)", sort, names);
}

/* What column @c shows for @r as a number to sort by; false for "-". */
static bool sort_value(const struct top *t, const struct render_row *r,
		       const struct top_col *c, double *x)
{
	uint64_t v = r->vals[c->idx];

	if (v == MEMCGSTAT_NA)
		return false;
	if (c->counter && !t->totals)
		return render_rate(&t->view, r, c->idx, x);
	*x = (double)v;		/* MEMCGSTAT_MAX: above every size */
	return true;
}

static int rank(char c)
{
	return c == '/' ? 1 : c ? (unsigned char)c + 1 : 0;
}

/* Tree order: a cgroup, then everything below it, then its next sibling. */
static int tree_cmp(const char *a, const char *b)
{
	for (; *a && *a == *b; a++, b++)
		;
	return rank(*a) - rank(*b);
}

static const struct top *sorting;

/*
 * Largest first (--reverse, r: smallest); "-" last either way; ties, and
 * the cgroup column, in tree order.
 */
static int cmp_rows(const void *a, const void *b)
{
	const struct render_row *x = a, *y = b;
	const struct top_col *c = &sorting->cols[sorting->sort];
	double kx = 0, ky = 0;
	bool hx, hy;
	int d;

	if (c->stat) {
		hx = sort_value(sorting, x, c, &kx);
		hy = sort_value(sorting, y, c, &ky);
		if (hx != hy)
			return hx ? -1 : 1;
		if (hx && kx != ky) {
			d = kx > ky ? -1 : 1;
			return sorting->reverse ? -d : d;
		}
	}
	d = tree_cmp(x->path, y->path);
	return !c->stat && sorting->reverse ? -d : d;
}

void top_sort_rows(struct top *t)
{
	sorting = t;
	if (t->nr_rows)
		qsort(t->rows, t->nr_rows, sizeof(*t->rows), cmp_rows);
}

/* Events per second: one decimal below 100; 1000-based k, M, G from 10,000 up. */
static void rate_str(double x, char *buf, size_t size)
{
	static const char units[] = " kMGT";
	int u = 0;

	while (x >= 10000 && u < 4) {
		x /= 1000;
		u++;
	}
	if (u)
		snprintf(buf, size, "%.1f%c", x, units[u]);
	else
		snprintf(buf, size, "%.*f", x < 100 ? 1 : 0, x);
}

/* Column @c of @r as the frame shows it. */
static void cell(const struct top *t, const struct render_row *r, const struct top_col *c,
		 char *buf, size_t size)
{
	uint64_t v = r->vals[c->idx];
	double x;

	if (v == MEMCGSTAT_NA)
		snprintf(buf, size, "-");
	else if (v == MEMCGSTAT_MAX)
		snprintf(buf, size, "max");
	else if (c->counter && !t->totals && render_rate(&t->view, r, c->idx, &x))
		rate_str(x, buf, size);
	else if (c->counter && !t->totals)
		snprintf(buf, size, "-");	/* the first refresh, a new cgroup */
	else if (c->counter || t->bytes || !c->size)
		snprintf(buf, size, "%" PRIu64, v);
	else
		render_human((double)v, buf, size);
}

static void label(const struct top *t, const struct top_col *c, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s", &t->cols[t->sort] == c ? "*" : "", c->label,
		 c->counter && !t->totals ? "/s" : "");
}

/*
 * Each line starts cleared (so that nothing of the frame before stays) and
 * the last row of the window ends without a newline (which would scroll).
 */
static bool begin_line(struct screen *s)
{
	if (s->rows && s->lines >= s->rows)
		return false;
	if (s->tty)
		fputs(s->lines ? "\n\033[K" : "\033[H\033[K", s->f);
	s->lines++;
	return true;
}

static void end_line(struct screen *s)
{
	if (!s->tty)
		fputc('\n', s->f);
}

/*
 * The bytes of the escaped @s's first units (see esc_unit()) that fit in
 * @room columns, and in *@width their columns.
 */
static size_t fit_bytes(const char *s, size_t room, size_t *width)
{
	size_t len = 0, n, w;

	*width = 0;
	while ((n = esc_unit(s + len, &w)) && *width + w <= room) {
		len += n;
		*width += w;
	}
	return len;
}

/* A line of text; cut at the window's width, '>' marking the cut. */
static void put_line(struct screen *s, const char *line)
{
	size_t w;

	if (!begin_line(s))
		return;
	if (s->cols && esc_width(line) > s->cols) {
		fwrite(line, 1, fit_bytes(line, s->cols - 1, &w), s->f);
		fputc('>', s->f);
	} else {
		fputs(line, s->f);
	}
	end_line(s);
}

/*
 * An escaped path in @room columns: cut from the left, "..." marking the
 * cut, never inside an escape or a wide character.
 */
static void put_path(struct screen *s, const char *path, size_t room)
{
	size_t left = esc_width(path), n, w;

	if (!s->cols || left <= room) {
		fputs(path, s->f);
	} else if (room > 3) {
		for (; left > room - 3 && (n = esc_unit(path, &w)); path += n)
			left -= w;
		fputs("...", s->f);
		fputs(path, s->f);
	} else {
		fwrite(path, 1, fit_bytes(path, room, &w), s->f);
	}
}

/* The second line: the sort, then the keys, what a key did, or why CGROUP cannot be read. */
static void status(const struct top *t, struct screen *s)
{
	const struct top_col *c = &t->cols[t->sort];
	char line[1100], keys[64] = "", *why;
	size_t i, len;

	if (t->prompt) {
		top_prompt_line(t, line, sizeof(line));
		put_line(s, line);
		return;
	}
	if (c->key && s->tty)
		snprintf(keys, sizeof(keys), " (%c)", c->key);
	len = snprintf(line, sizeof(line), "sort: %s%s%s, %s", c->label,
		       c->counter && !t->totals ? "/s" : "", keys,
		       !c->stat ? (t->reverse ? "reverse tree order" : "tree order") :
		       t->reverse ? "smallest first" : "largest first");
	if (t->nr_bad)
		len += snprintf(line + len, sizeof(line) - len, ", %zu cgroup%s cannot be read",
				t->nr_bad, t->nr_bad == 1 ? "" : "s");
	if (t->gone_err) {	/* whole, as the header's path: a window cuts it */
		if (asprintf(&why, "%s - cannot read: %s", line,
			     t->gone ? t->gone : "out of memory") < 0)
			why = NULL;
		put_line(s, why ? why : line);
		free(why);
		return;
	} else if (s->tty) {
		keys[0] = '\0';
		for (i = 0; i < t->nr_cols; i++)
			if (t->cols[i].key)
				snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys), "%s%c",
					 keys[0] ? " " : "", t->cols[i].key);
		if (t->note[0])
			snprintf(line + len, sizeof(line) - len, " - %s", t->note);
		else
			snprintf(line + len, sizeof(line) - len,
				 " - %s < > sort, r reverse, t %s, b %s, / filter, q quit",
				 keys, t->totals ? "rates" : "totals", t->bytes ? "K/M/G" : "bytes");
	}
	put_line(s, line);
}

static void header(const struct top *t, struct screen *s)
{
	time_t now_s = (time_t)t->wall;
	char what[1100] = "", *first;
	struct tm tm = {};
	size_t len;

	localtime_r(&now_s, &tm);
	if (t->filter.max_depth >= 0)
		snprintf(what, sizeof(what), "depth %ld", t->filter.max_depth);
	len = strlen(what);
	top_match_say(&t->match, len ? ", " : "", what + len, sizeof(what) - len);
	/* the top's path whole, however long (a window cuts it, batch does not) */
	if (asprintf(&first,
		     "%02d:%02d:%02d memcgstat top %s: %zu cgroup%s%s%s%s, every %gs, %s backend, cgroup v%d%s",
		     tm.tm_hour, tm.tm_min, tm.tm_sec, t->root, t->nr_rows, t->nr_rows == 1 ? "" : "s",
		     what[0] ? " (" : "",
		     what, what[0] ? ")" : "", t->interval,
		     memcgstat_backend_name(memcgstat_backend(t->h)), memcgstat_cgroup_version(t->h),
		     t->nr_samples < 2 && !t->totals ? "; rates from the next refresh" : "") < 0)
		first = NULL;
	put_line(s, first ? first : "memcgstat top: out of memory");
	free(first);
	status(t, s);
}

/*
 * Each column's width for this frame, and how many columns fit beside
 * MIN_PATH characters of path (from the left; the rest are hidden).
 */
static size_t fit_columns(struct top *t, size_t width)
{
	size_t i, r, used = 0, n = 0;
	char buf[64];

	for (i = 0; i < PATH_COL(t); i++) {
		struct top_col *c = &t->cols[i];

		label(t, c, buf, sizeof(buf));
		c->width = strlen(buf);
		for (r = 0; r < t->nr_rows; r++) {
			cell(t, &t->rows[r], c, buf, sizeof(buf));
			if (strlen(buf) > c->width)
				c->width = strlen(buf);
		}
		if (width && used + c->width + 1 + MIN_PATH > width)
			break;
		used += c->width + 1;
		n = i + 1;
	}
	return n;		/* t->cols[0..n) are shown */
}

void top_draw(struct top *t, struct screen *s)
{
	size_t ncols = fit_columns(t, s->cols), i, r, hidden, shown, room, used = 0, len;
	size_t avail = s->rows > HEADER_LINES ? s->rows - HEADER_LINES : 0;
	char buf[64], line[160];
	bool footer;

	hidden = PATH_COL(t) - ncols;
	footer = s->rows && (hidden || t->nr_rows > avail);
	shown = !s->rows ? t->nr_rows : footer ? (avail ? avail - 1 : 0) : t->nr_rows;
	if (shown > t->nr_rows)
		shown = t->nr_rows;
	/* scrolled no further than a full last page; batch frames show all */
	if (!s->rows || t->first > t->nr_rows - shown)
		t->first = s->rows ? t->nr_rows - shown : 0;
	t->page = shown;
	header(t, s);
	if (begin_line(s)) {
		for (i = 0; i < ncols; i++) {
			label(t, &t->cols[i], buf, sizeof(buf));
			used += fprintf(s->f, "%*s ", (int)t->cols[i].width, buf);
		}
		label(t, &t->cols[PATH_COL(t)], buf, sizeof(buf));
		put_path(s, buf, s->cols > used ? s->cols - used : 0);
		end_line(s);
	}
	room = s->cols > used ? s->cols - used : 0;
	for (r = t->first; r < t->first + shown && begin_line(s); r++) {
		for (i = 0; i < ncols; i++) {
			cell(t, &t->rows[r], &t->cols[i], buf, sizeof(buf));
			fprintf(s->f, "%*s ", (int)t->cols[i].width, buf);
		}
		put_path(s, t->rows[r].path, room);
		end_line(s);
	}
	if (footer) {
		size_t more = t->nr_rows - t->first - shown;

		len = snprintf(line, sizeof(line), "--");
		if (t->first)
			len += snprintf(line + len, sizeof(line) - len, " %zu above%s", t->first,
					more ? "," : "");
		if (more)
			len += snprintf(line + len, sizeof(line) - len, " %zu more cgroups", more);
		if (shown < t->nr_rows)
			len += snprintf(line + len, sizeof(line) - len, " (%zu in all)%s", t->nr_rows,
					hidden ? "," : "");
		if (hidden)
			snprintf(line + len, sizeof(line) - len, " %zu column%s hidden", hidden,
				 hidden > 1 ? "s" : "");
		strncat(line, " --", sizeof(line) - strlen(line) - 1);
		put_line(s, line);
	}
	if (s->tty)
		fputs("\033[J", s->f);
	else
		fputc('\n', s->f);	/* a blank line between frames */
	fflush(s->f);
}

/* The next or previous column shown, for < and >. */
static void move_sort(struct top *t, int dir)
{
	t->sort = (t->sort + t->nr_cols + dir) % t->nr_cols;
	t->reverse = false;
}

bool top_on_key(struct top *t, int key)
{
	const struct known_col *k;
	size_t i;

	t->note[0] = '\0';
	if (t->prompt)
		return top_prompt_key(t, key);
	switch (key) {
	case 'q':
	case 3:			/* ^C */
		return true;
	case 'r':
		t->reverse = !t->reverse;
		return false;
	case 't':
		t->totals = !t->totals;
		return false;
	case 'b':
		t->bytes = !t->bytes;
		return false;
	case '<':
	case TERM_KEY_LEFT:
		move_sort(t, -1);
		return false;
	case '>':
	case TERM_KEY_RIGHT:
		move_sort(t, 1);
		return false;
	case '-':		/* one level less; from all, the deepest row's less one */
		if (t->filter.max_depth < 0 && t->deepest > 0)
			t->filter.max_depth = t->deepest - 1;
		else if (t->filter.max_depth > 0)
			t->filter.max_depth--;
		t->remake = true;
		return false;
	case '+':		/* one level more; past the deepest row, all */
		if (t->filter.max_depth >= 0 && ++t->filter.max_depth >= t->deepest)
			t->filter.max_depth = -1;
		t->remake = true;
		return false;
	case TERM_KEY_UP:
		t->first -= t->first > 0;
		return false;
	case TERM_KEY_DOWN:
		t->first++;		/* top_draw() keeps it in range */
		return false;
	case TERM_KEY_PGUP:
		t->first -= t->first < t->page ? t->first : t->page;
		return false;
	case TERM_KEY_PGDN:
		t->first += t->page;
		return false;
	case TERM_KEY_HOME:
		t->first = 0;
		return false;
	case TERM_KEY_END:
		t->first = t->nr_rows;
		return false;
	case '/':
		top_prompt_open(t);
		return false;
	case 12:		/* ^L: the next frame redraws all anyway */
	case TERM_KEY_OTHER:
		return false;
	}
	for (i = 0; i < t->nr_cols; i++)
		if (key && t->cols[i].key == key)
			break;
	k = i == t->nr_cols && key ? known_key(key) : NULL;
	if (k)
		snprintf(t->note, sizeof(t->note), "no %s column here (%s)", k->label, k->stat);
	else if (i == t->nr_cols)
		snprintf(t->note, sizeof(t->note), "key %d (%c) does nothing", key,
			 key > ' ' && key < 127 ? key : '?');
	else if (t->sort == i)
		t->reverse = !t->reverse;
	else
		t->sort = i, t->reverse = false;
	return false;
}
