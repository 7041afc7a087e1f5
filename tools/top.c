// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * memcgstat top: a live view of a cgroup tree, a row per cgroup with its
 * sizes, limits and events per second, sorted by the column a key chooses
 * and redrawn every interval; with -b, plain frames for scripts, as top -b.
 *
 * Each refresh is one snapshot of the tree into a result kept from the
 * refresh before last (memcgstat_snapshot_into(): no allocation once the
 * results hold the tree); rates are the counters' deltas between the last
 * two, matched by cgroup id.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "common.h"
#include "escape.h"
#include "memcgstat.h"
#include "render.h"
#include "term.h"
#include "top.h"

/*
 * The columns, left to right, the cgroup's path last (where the window
 * cuts it, from the left). A stat this hierarchy does not have gets no
 * column: cgroup v1 has no memory_high and no memory.events, v2 no failcnt.
 */
struct top_col {
	const char *stat;	/* NULL: the path */
	const char *label;	/* a counter's is LABEL/s while rates show */
	int key;		/* sorts by it */
	int idx;		/* the handle's column, or -1 */
	bool counter;
	size_t width;		/* this frame's */
};

#define COL(s, l, k)	{ .stat = s, .label = l, .key = k, .idx = -1 }

static struct top_col cols[] = {
	COL("usage", "USAGE", 'u'),
	COL("working_set", "WSET", 'w'),
	COL("anon", "ANON", 'a'),
	COL("file", "FILE", 'f'),
	COL("memory_high", "HIGH", 'h'),
	COL("memory_max", "MAX", 'm'),
	COL("pgfault", "FLT", 'p'),
	COL("pgmajfault", "MAJFLT", 'j'),
	COL("events_high", "HIGHEV", 'H'),
	COL("events_max", "MAXEV", 'M'),
	COL("events_oom_kill", "OOMKILL", 'o'),
	COL("memory_failcnt", "FAILCNT", 'c'),
	COL(NULL, "CGROUP", 'n'),
};
#define PATH_COL	(ARRAY_SIZE(cols) - 1)
#define HEADER_LINES	3
#define MIN_PATH	12	/* columns the path keeps before numbers go */

static struct top_env {
	struct common_env c;		/* --backend, -v, -q */
	double interval;
	long count;			/* -n, or -1: until q */
	bool batch;
	int bytes, totals, reverse;	/* flags long_opts sets itself */
	const char *sort;
	const char *cgroup;
} env = { .interval = 2, .count = -1, .cgroup = "/" };

static const char usage_text[] =
"Usage: memcgstat top [OPTION]... [CGROUP]\n"
"A live view of CGROUP (default: the root of the memory hierarchy) and every\n"
"cgroup below it: sizes, limits and events per second, refreshed every\n"
"interval, sorted by the column a key chooses.\n"
"\n"
"  -i, --interval SECS    refresh every SECS seconds (default 2)\n"
"  -n, --iterations N     stop after N refreshes (default: at q)\n"
"  -b, --batch            plain frames on standard output and no keys, for\n"
"                         pipes and files (as top -b); until -n or a signal\n"
"      --sort COLUMN      sort by COLUMN first: a stat named below, or cgroup\n"
"                         (default usage)\n"
"      --reverse          smallest first (cgroup: reverse tree order)\n"
"      --totals           counters as totals, not per second\n"
"      --bytes            sizes in bytes, not K, M, G\n"
"      --backend NAME     auto (default), bpf or text\n"
"  -v, --verbose          say which backend runs, and why\n"
"  -q, --quiet            no warnings from libbpf, errors only\n"
"  -h, --help             this help\n"
"      --version          the version\n"
"\n"
"Columns, with the key that sorts by each: u usage, w working_set, a anon,\n"
"f file, h memory_high, m memory_max (sizes); p pgfault, j pgmajfault,\n"
"H events_high, M events_max, o events_oom_kill, c memory_failcnt (per second;\n"
"\"-\" until the second refresh); n cgroup. A stat this hierarchy lacks has no\n"
"column. Keys: a column's key sorts by it (pressed again: reversed); < and >\n"
"(or the arrow keys) the column left or right; r reverse; t totals or rates;\n"
"b bytes or K, M, G; q or ^C quit.\n"
"\n"
"Exit status: 0 success, 1 a refresh could not read CGROUP (after the first,\n"
"the frames go on without it), 2 bad usage.\n";

enum { OPT_SORT = OPT_FIRST };

static const struct option long_opts[] = {
	{ "interval", required_argument, NULL, 'i' },
	{ "iterations", required_argument, NULL, 'n' },
	{ "batch", no_argument, NULL, 'b' },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "reverse", no_argument, &env.reverse, 1 },
	{ "totals", no_argument, &env.totals, 1 },
	{ "bytes", no_argument, &env.bytes, 1 },
	QUIET_LONG_OPT,
	COMMON_LONG_OPTS,
	{}
};

/* A result's rows by cgroup id, for the next refresh's rates. */
struct top {
	struct memcgstat *h;
	struct memcgstat_result *res[2];	/* res[cur]: the last refresh */
	struct id_index index[2];		/* each result's rows, by id */
	double t[2];				/* CLOCK_MONOTONIC of each read */
	double wall;				/* CLOCK_REALTIME of the last */
	int cur;
	long nr_samples;
	struct render_view view;		/* the columns and dt, for rates */
	struct render_row *rows;
	size_t nr_rows, cap_rows;
	const char *root;			/* CGROUP's path as its row shows it */
	char *root_own;				/* ... escaped, when there is no row */
	size_t sort;				/* the index in cols[] */
	bool reverse, totals, bytes;
	char note[160];				/* in place of the keys, until a key */
	char gone[512];				/* why CGROUP could not be read, while so */
	int gone_err;				/* ... its errno, or 0 */
	bool failed;				/* a refresh could not read it: exit 1 */
};

/* Returns 0 to go on, else the exit status. */
static int parse_opt(int opt, char *arg)
{
	switch (opt) {
	case 'i':
		return parse_secs(arg, "--interval", 0, true, &env.interval);
	case 'n':
		return parse_long(arg, "--iterations", 1, LONG_MAX, &env.count);
	case 'b':
		env.batch = true;
		break;
	case OPT_SORT:
		env.sort = arg;
		break;
	default:
		return parse_common_opt(&env.c, opt, arg);
	}
	return 0;
}

/* The options, then what they cannot be together. 0 or the exit status. */
static int parse_opts(int argc, char **argv)
{
	int ret = parse_args(argc, argv, "i:n:bvqh", long_opts, usage_text, parse_opt);

	if (ret)
		return ret;
	if (argc - optind > 1)
		return usage_err("one CGROUP at most: top shows the tree below it");
	if (optind < argc)
		env.cgroup = argv[optind];
	if (env.c.verbose && env.c.quiet)
		return usage_err("-v and -q cannot be combined");
	if (env.batch)
		return 0;
	if (!isatty(STDOUT_FILENO))
		return usage_err("standard output is not a terminal: use -b for plain frames");
	if (!isatty(STDIN_FILENO))
		return usage_err("standard input is not a terminal (keys are read from it): use -b for plain frames");
	return 0;
}

/* The column --sort names: 0 and t->sort set, or the exit status. */
static int find_sort(struct top *t)
{
	char names[256] = "";
	size_t i, len;

	for (i = 0; i < ARRAY_SIZE(cols); i++) {
		const char *name = cols[i].stat ? cols[i].stat : "cgroup";

		if (!strcmp(env.sort, name))
			break;
		len = strlen(names);
		snprintf(names + len, sizeof(names) - len, "%s%s", len ? ", " : "", name);
	}
	if (i == ARRAY_SIZE(cols))
		return usage_err("--sort: '%s' is not a column of top (%s)", env.sort, names);
	if (cols[i].stat && cols[i].idx < 0)
		return usage_err("--sort: %s has no column here: the %s backend on cgroup v%d does not read it",
				 env.sort, memcgstat_backend_name(memcgstat_backend(t->h)),
				 memcgstat_cgroup_version(t->h));
	t->sort = i;
	return 0;
}

/* Each column's index in the handle, or -1. */
static void find_columns(struct memcgstat *h)
{
	size_t i;

	for (i = 0; i < PATH_COL; i++) {
		cols[i].idx = memcgstat_column_index(h, cols[i].stat, -1);
		cols[i].counter = cols[i].idx >= 0 &&
				  memcgstat_column_kind(h, cols[i].idx) == MEMCGSTAT_KIND_COUNTER;
	}
}

/*
 * The handle, with every stat of cols[] the backend reads here. Opened with
 * every stat first, to learn which those are. The text backend then opens
 * again with top's only: each refresh it reads, for every cgroup, each file
 * a chosen stat comes from (with every stat: memory.stat and half a dozen
 * more), and opening it costs little.
 * The bpf backend reads all in one walk and stays, since its opening costs
 * the programs' loading (or takes memcgstat --pin's pins). With -n, auto
 * is the library's choice by the reads (memcgstat_opts.expected_reads),
 * made at the first refresh: the handle waiting for it opens again too.
 * 0 or the exit status.
 */
static int open_top(struct top *t)
{
	struct memcgstat_opts opts = {
		.sz = sizeof(opts),
		.backend = env.c.backend,
		.flags = env.c.backend == MEMCGSTAT_BACKEND_TEXT ? 0 : MEMCGSTAT_PINNED,
	};
	char *list = NULL;
	size_t i;
	int ret;

	if (env.count > 0)	/* a snapshot a refresh; until q: no end */
		opts.expected_reads = env.count;
	set_libbpf_print(env.c.verbose, env.c.quiet);
	ret = open_handle(&opts, NULL, env.c.backend == MEMCGSTAT_BACKEND_BPF, false, &t->h);
	if (ret)
		return ret;
	find_columns(t->h);
	/* text now, or perhaps after auto's first read: top's columns only */
	if (memcgstat_backend(t->h) != MEMCGSTAT_BACKEND_BPF) {
		for (i = 0; i < PATH_COL; i++) {
			if (cols[i].idx >= 0 && add_stats(&list, cols[i].stat)) {
				free(list);
				return 1;
			}
		}
		memcgstat_close(t->h);
		ret = open_handle(&opts, list, false, false, &t->h);
		free(list);
		if (ret)
			return ret;
		find_columns(t->h);
	}
	t->res[0] = memcgstat_result_new(t->h);
	t->res[1] = memcgstat_result_new(t->h);
	if (!t->res[0] || !t->res[1]) {
		p_err("out of memory");
		return 1;
	}
	t->view.h = t->h;
	return env.sort ? find_sort(t) : 0;
}

/* The values the refresh before the last read for cgroup @id, or NULL. */
static const uint64_t *prev_vals(const struct top *t, uint64_t id)
{
	return t->nr_samples < 2 ? NULL : id_index_find(&t->index[!t->cur], id);
}

static void free_paths(struct top *t)
{
	size_t i;

	for (i = 0; i < t->nr_rows; i++)
		free(t->rows[i].own);
	t->nr_rows = 0;
}

/* The rows of the last refresh, and its index by id. 0 or -ENOMEM. */
static int make_rows(struct top *t)
{
	struct memcgstat_result *res = t->res[t->cur];
	size_t n = memcgstat_result_count(res), i;
	struct render_row *r;

	free_paths(t);
	if (n > t->cap_rows) {
		r = realloc(t->rows, n * sizeof(*r));
		if (!r)
			return -ENOMEM;
		t->rows = r;
		t->cap_rows = n;
	}
	if (id_index_set(&t->index[t->cur], &res, 1))
		return -ENOMEM;
	for (i = 0; i < n; i++, t->nr_rows++) {
		r = &t->rows[i];
		if (render_path(r, memcgstat_result_path(res, i)))
			return -ENOMEM;
		r->id = memcgstat_result_id(res, i);
		r->vals = memcgstat_result_values(res, i);
		r->prev = prev_vals(t, r->id);
	}
	/* the walk's first row is CGROUP's (before sort_rows() moves it) */
	if (!n && !t->root_own)
		t->root_own = esc_dup(env.cgroup ? env.cgroup : "/");
	t->root = n ? t->rows[0].path : t->root_own ? t->root_own : "-";
	return 0;
}

/*
 * After the first refresh, CGROUP removed (a service restarted) or not
 * readable: a frame of no rows that says why on its second line, said
 * once on standard error in batch mode (again if its errno changes); the frames go on, and the tree
 * comes back when it can be read again (a cgroup made again at its path:
 * new ids, so no rates until the refresh after).
 */
static void read_failed(struct top *t, int err)
{
	const char *msg = memcgstat_errmsg(t->h);

	if (!err) {
		if (t->gone_err && env.batch && env.c.verbose)
			p_info("cgroup %s: read again", env.cgroup);
		t->gone[0] = '\0';
		t->gone_err = 0;
		return;
	}
	t->failed = true;
	snprintf(t->gone, sizeof(t->gone), "%s", msg);
	if (env.batch && err != t->gone_err)
		p_info("%s", t->gone);
	t->gone_err = err;
}

/*
 * A refresh: the tree into the result the one before last used. 0, or the
 * exit status with the reason said: the first refresh must read CGROUP,
 * later ones go on without it (read_failed()).
 */
static int take_sample(struct top *t)
{
	int next = t->nr_samples ? !t->cur : 0, err;
	double mono = now(CLOCK_MONOTONIC);

	t->wall = now(CLOCK_REALTIME);
	err = memcgstat_snapshot_into(t->h, env.cgroup, NULL, 0, t->res[next]);
	if (err && (!t->nr_samples || err == -EINVAL)) {
		term_close();
		p_err("%s", memcgstat_errmsg(t->h));
		return err == -EINVAL ? 2 : 1;	/* a CGROUP that cannot be one */
	}
	read_failed(t, err);		/* on failure the result has no rows */
	t->t[next] = mono;
	t->cur = next;
	t->nr_samples++;
	t->view.dt = t->nr_samples > 1 ? t->t[t->cur] - t->t[!t->cur] : 0;
	if (make_rows(t)) {
		term_close();
		p_err("out of memory");
		return 1;
	}
	return 0;
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
	const struct top_col *c = &cols[sorting->sort];
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

static void sort_rows(struct top *t)
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
	else if (c->counter || t->bytes)
		snprintf(buf, size, "%" PRIu64, v);
	else
		render_human((double)v, buf, size);
}

static void label(const struct top *t, const struct top_col *c, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s", &cols[t->sort] == c ? "*" : "", c->label,
		 c->counter && !t->totals ? "/s" : "");
}

/* Where a frame goes: the window (rows, cols), or no limit (0) in batch mode. */
struct screen {
	FILE *f;
	bool tty;
	size_t rows, cols;
	size_t lines;			/* begun so far */
};

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

static void header(const struct top *t, struct screen *s)
{
	const struct top_col *c = &cols[t->sort];
	time_t now_s = (time_t)t->wall;
	char line[512], keys[64] = "", *first;
	struct tm tm = {};
	size_t i, len;

	localtime_r(&now_s, &tm);
	/* the top's path whole, however long (a window cuts it, batch does not) */
	if (asprintf(&first,
		     "%02d:%02d:%02d memcgstat top %s: %zu cgroups, every %gs, %s backend, cgroup v%d%s",
		     tm.tm_hour, tm.tm_min, tm.tm_sec, t->root, t->nr_rows, env.interval,
		     memcgstat_backend_name(memcgstat_backend(t->h)), memcgstat_cgroup_version(t->h),
		     t->nr_samples < 2 && !t->totals ? "; rates from the next refresh" : "") < 0)
		first = NULL;
	put_line(s, first ? first : "memcgstat top: out of memory");
	free(first);
	snprintf(keys, sizeof(keys), " (%c)", c->key);
	len = snprintf(line, sizeof(line), "sort: %s%s%s, %s", c->label,
		       c->counter && !t->totals ? "/s" : "", s->tty ? keys : "",
		       !c->stat ? (t->reverse ? "reverse tree order" : "tree order") :
		       t->reverse ? "smallest first" : "largest first");
	if (t->gone_err) {
		snprintf(line + len, sizeof(line) - len, " - cannot read: %s", t->gone);
	} else if (s->tty) {
		keys[0] = '\0';
		for (i = 0; i < ARRAY_SIZE(cols); i++)
			if (!cols[i].stat || cols[i].idx >= 0)
				snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys), "%s%c",
					 i ? " " : "", cols[i].key);
		if (t->note[0])
			snprintf(line + len, sizeof(line) - len, " - %s", t->note);
		else
			snprintf(line + len, sizeof(line) - len,
				 " - keys: %s sort, < > move, r reverse, t %s, b %s, q quit", keys,
				 t->totals ? "rates" : "totals", t->bytes ? "K/M/G" : "bytes");
	}
	put_line(s, line);
}

/*
 * Each column's width for this frame, and how many columns fit beside
 * MIN_PATH characters of path (from the left; the rest are hidden).
 */
static size_t fit_columns(struct top *t, size_t width)
{
	size_t i, r, used = 0, n = 0;
	char buf[64];

	for (i = 0; i < PATH_COL; i++) {
		struct top_col *c = &cols[i];

		if (c->idx < 0)
			continue;
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
	return n;		/* cols[0..n) are shown */
}

/* One frame: the header, the rows that fit, and what did not fit. */
static void draw(struct top *t, struct screen *s)
{
	size_t ncols = fit_columns(t, s->cols), i, r, hidden = 0, shown, room, used = 0, len;
	size_t avail = s->rows > HEADER_LINES ? s->rows - HEADER_LINES : 0;
	char buf[64], line[160];
	bool footer;

	for (i = ncols; i < PATH_COL; i++)
		hidden += cols[i].idx >= 0;
	footer = s->rows && (hidden || t->nr_rows > avail);
	shown = !s->rows ? t->nr_rows : footer ? (avail ? avail - 1 : 0) : t->nr_rows;
	if (shown > t->nr_rows)
		shown = t->nr_rows;
	header(t, s);
	if (begin_line(s)) {
		for (i = 0; i < ncols; i++) {
			if (cols[i].idx < 0)
				continue;
			label(t, &cols[i], buf, sizeof(buf));
			used += fprintf(s->f, "%*s ", (int)cols[i].width, buf);
		}
		label(t, &cols[PATH_COL], buf, sizeof(buf));
		put_path(s, buf, s->cols > used ? s->cols - used : 0);
		end_line(s);
	}
	room = s->cols > used ? s->cols - used : 0;
	for (r = 0; r < shown && begin_line(s); r++) {
		for (i = 0; i < ncols; i++) {
			if (cols[i].idx < 0)
				continue;
			cell(t, &t->rows[r], &cols[i], buf, sizeof(buf));
			fprintf(s->f, "%*s ", (int)cols[i].width, buf);
		}
		put_path(s, t->rows[r].path, room);
		end_line(s);
	}
	if (footer) {
		len = snprintf(line, sizeof(line), "--");
		if (shown < t->nr_rows)
			len += snprintf(line + len, sizeof(line) - len, " %zu more cgroups (%zu in all)%s",
					t->nr_rows - shown, t->nr_rows, hidden ? "," : "");
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
	size_t i = t->sort;

	do
		i = (i + ARRAY_SIZE(cols) + dir) % ARRAY_SIZE(cols);
	while (cols[i].stat && cols[i].idx < 0);
	t->sort = i;
	t->reverse = false;
}

/* A key: true to quit. */
static bool on_key(struct top *t, int key)
{
	size_t i;

	t->note[0] = '\0';
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
	case 12:		/* ^L: the next frame redraws all anyway */
	case TERM_KEY_OTHER:
		return false;
	}
	for (i = 0; i < ARRAY_SIZE(cols); i++)
		if (cols[i].key == key)
			break;
	if (i == ARRAY_SIZE(cols))
		snprintf(t->note, sizeof(t->note), "key %d (%c) does nothing", key,
			 key > ' ' && key < 127 ? key : '?');
	else if (cols[i].stat && cols[i].idx < 0)
		snprintf(t->note, sizeof(t->note), "no %s column here (%s)", cols[i].label,
			 cols[i].stat);
	else if (t->sort == i)
		t->reverse = !t->reverse;
	else
		t->sort = i, t->reverse = false;
	return false;
}

/* A stop signal: the terminal restored, then the signal's own default. */
static int stop_by(int sig)
{
	sigset_t set;

	term_close();
	fflush(stdout);
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	return 128 + sig;
}

/* -v: the handle, once the first read has made auto's choice. */
static void say_handle(struct memcgstat *h)
{
	say_backend(h);
	p_info("backend %s, cgroup v%d at %s, %zu column%s",
	       memcgstat_backend_name(memcgstat_backend(h)), memcgstat_cgroup_version(h),
	       memcgstat_root(h), memcgstat_nr_columns(h), memcgstat_nr_columns(h) == 1 ? "" : "s");
	if (memcgstat_pinned(h))
		p_info("programs pinned at %s", memcgstat_pin_dir(h));
}

/* Until q, -n or a signal. Returns the exit status. */
static int run(struct top *t)
{
	struct screen s = { .f = stdout, .tty = !env.batch };
	struct timespec ts;
	double next = now(CLOCK_MONOTONIC) + env.interval;
	bool sample = false;
	int ret, key;

	/* the first read before the screen changes: an error reads as one */
	ret = take_sample(t);
	if (ret)
		return ret;
	if (env.c.verbose)
		say_handle(t->h);
	if (s.tty && (ret = term_open())) {
		p_err("cannot set up the terminal: %s", strerror(-ret));
		return 1;
	}
	for (;;) {
		if (sample) {
			ret = take_sample(t);
			if (ret)
				return ret;
			next += env.interval;
			if (next < now(CLOCK_MONOTONIC))
				next = now(CLOCK_MONOTONIC) + env.interval;	/* fell behind */
		}
		if (s.tty)
			term_size(&s.rows, &s.cols);
		s.lines = 0;
		sort_rows(t);
		draw(t, &s);
		if (ferror(stdout))
			return 1;	/* close_stdout() says why */
		if (env.count > 0 && t->nr_samples >= env.count)
			return t->failed;
		if (!s.tty) {
			ts = timespec_of(next);
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
				;
			sample = true;
			continue;
		}
		switch (term_wait(next - now(CLOCK_MONOTONIC), &key)) {
		case TERM_STOP:
			return stop_by(key);
		case TERM_KEY:
			if (on_key(t, key))
				return t->failed;
			break;
		case TERM_RESIZE:
		case TERM_TIMEOUT:
			break;
		}
		/* a key or a resize redraws the same refresh, sorted anew */
		sample = now(CLOCK_MONOTONIC) >= next - 1e-3;
	}
}

static void free_top(struct top *t)
{
	free_paths(t);
	free(t->rows);
	free(t->root_own);
	id_index_free(&t->index[0]);
	id_index_free(&t->index[1]);
	memcgstat_result_free(t->res[0]);
	memcgstat_result_free(t->res[1]);
	memcgstat_close(t->h);
}

int top_main(int argc, char **argv)
{
	struct top t = {};
	int ret;

	prog_name = "memcgstat top";
	ret = parse_opts(argc, argv);
	if (ret)
		return ret;
	t.sort = 0;		/* usage */
	t.reverse = env.reverse;
	t.totals = env.totals;
	t.bytes = env.bytes;
	ret = open_top(&t);
	if (!ret && !env.batch)
		setvbuf(stdout, NULL, _IOFBF, 1 << 16);	/* a frame in one write */
	if (!ret)
		ret = run(&t);
	term_close();
	free_top(&t);
	return ret;
}
