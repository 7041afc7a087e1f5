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
 *
 * This file holds top's options, its handle, the refreshes and the loop
 * of refreshes, keys and signals; the columns, the frame and what a key
 * does are top_view.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
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
#include "top_view.h"

static struct top_env {
	struct common_env c;		/* --backend, -v, -q */
	double interval;
	long count;			/* -n, or -1: until q */
	bool batch;
	bool bytes, totals, reverse;
	const char *sort;
	const char *cgroup;
	char *stats;			/* -s, all of them; split when opening */
	const char *filter;		/* --filter */
} env = { .interval = 2, .count = -1, .cgroup = "/", .c.filter = ROW_FILTER_INIT };

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
"  -s, --stats LIST       columns of exactly these stats, in this order\n"
"                         (comma-separated, as memcgstat -s; memcgstat\n"
"                         --list-stats names them all)\n"
"      --sort COLUMN      sort by COLUMN first: a stat of a column, or cgroup\n"
"                         (default: the first column, usage without -s)\n"
"      --reverse          smallest first (cgroup: reverse tree order)\n"
"      --totals           counters as totals, not per second\n"
"      --bytes            sizes in bytes, not K, M, G\n"
"      --max-depth N      only cgroups at most N levels below CGROUP (+ and -\n"
"                         change it)\n"
"      --include GLOB     only cgroups whose path matches GLOB (fnmatch(3), '*'\n"
"                         matches '/' too); repeatable, any may match\n"
"      --exclude GLOB     no cgroup whose path matches GLOB; repeatable, wins\n"
"                         over --include\n"
"      --filter TEXT      only cgroups whose path TEXT matches, as the key /\n"
"                         filters (with them all: --include, --exclude, depth)\n"
"      --backend NAME     auto (default), bpf or text\n"
"  -v, --verbose          say which backend runs, and why\n"
"  -q, --quiet            no warnings from libbpf, errors only\n"
"  -h, --help             this help\n"
"      --version          the version\n"
"\n"
"Columns, with the key that sorts by each: u usage, w working_set, a anon,\n"
"f file, s swap_current, S memsw_usage, h memory_high, m memory_max (sizes);\n"
"T nr_procs (TASKS: the cgroup's own processes, not its descendants');\n"
"p pgfault, j pgmajfault, H events_high, M events_max, o events_oom_kill,\n"
"c memory_failcnt (per second; \"-\" until the second refresh); n cgroup. A\n"
"stat this hierarchy lacks has no column. With -s, a column of each stat\n"
"listed, in order: one of these with its label and key, any other headed by\n"
"its name in capitals, with no key (--sort, < and > sort by it); sizes as\n"
"sizes, counters per second, a stat this hierarchy lacks an error, as the\n"
"CLI's -s. Keys: a column's key sorts by it (pressed again: reversed); < and\n"
"> (or the left and right arrow keys) the column left or right; r reverse;\n"
"t totals or rates; b bytes or K, M, G; - and + one level less or more below\n"
"CGROUP; / a filter typed on the second line (Enter applies it, an empty one\n"
"none, Esc cancels): with * ? or [ a glob the whole path must match, as\n"
"--include's, else a part of the path; up and down, PgUp and PgDn, Home and\n"
"End scroll the rows a window has no room for; q or ^C quit.\n"
"\n"
"Exit status: 0 success, 1 a refresh could not read CGROUP (after the first,\n"
"the frames go on without it) or a cgroup below it (its row shows \"-\"; -b\n"
"says which on standard error), 2 bad usage.\n";

enum { OPT_FILTER = OPT_FIRST };

#define E struct top_env
/* In --help's order. */
static const struct tool_opt opts[] = {
	OPT_OWN_ARG("interval", 'i'),
	OPT_LONG("iterations", 'n', E, count, 1, LONG_MAX),
	OPT_TRUE("batch", 'b', E, batch),
	OPT_OWN_ARG("stats", 's'),
	OPT_STR("sort", 0, E, sort),
	OPT_TRUE("reverse", 0, E, reverse),
	OPT_TRUE("totals", 0, E, totals),
	OPT_TRUE("bytes", 0, E, bytes),
	FILTER_OPTS,
	OPT_OWN_ARG("filter", OPT_FILTER),
	BACKEND_OPT,
	VERBOSE_OPT,
	QUIET_OPT,
	HELP_OPTS,
};
#undef E

/* Returns 0 to go on, else the exit status. @base: &env. */
static int parse_opt(void *base, int opt, char *arg)
{
	(void)base;
	switch (opt) {
	case 'i':
		return parse_secs(arg, "--interval", 0.001, false, &env.interval);
	case 's':
		return add_stats(&env.stats, arg);
	case OPT_FILTER:
		if (strlen(arg) >= TOP_MATCH_MAX)
			return usage_err("--filter: longer than %d bytes", TOP_MATCH_MAX - 1);
		env.filter = arg;
		return 0;
	}
	return 0;
}

/* The options, then what they cannot be together. 0 or the exit status. */
static int parse_opts(int argc, char **argv)
{
	int ret = parse_args(argc, argv, opts, ARRAY_SIZE(opts), &env, &env.c, usage_text, parse_opt);

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

/*
 * The handle, with the stat of every column of top the backend reads here. Opened with
 * every stat first, to learn which those are. The text backend then opens
 * again with top's only: each refresh it reads, for every cgroup, each file
 * a chosen stat comes from (with every stat: memory.stat and half a dozen
 * more), and opening it costs little.
 * The bpf backend reads all in one walk and stays, since its opening costs
 * the programs' loading (or takes memcgstat --pin's pins). With -n, auto
 * is the library's choice by the reads (memcgstat_opts.expected_reads),
 * made at the first refresh: the handle waiting for it opens again too.
 * With -s the handle opens once, with its stats, as the CLI's does (the
 * same checks and messages: an unknown stat, one this hierarchy lacks).
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
	int ret;

	if (env.count > 0)	/* a snapshot a refresh; until q: no end */
		opts.expected_reads = env.count;
	set_libbpf_print(env.c.verbose, env.c.quiet);
	t->chosen = env.stats;
	ret = open_handle(&opts, env.stats, env.c.backend == MEMCGSTAT_BACKEND_BPF, false, &t->h);
	if (ret)
		return ret;
	if (top_find_columns(t))
		goto oom;
	/* text now, or perhaps after auto's first read: top's columns only */
	if (!t->chosen && memcgstat_backend(t->h) != MEMCGSTAT_BACKEND_BPF) {
		if (top_stats(t, &list)) {
			free(list);
			return 1;
		}
		memcgstat_close(t->h);
		ret = open_handle(&opts, list, false, false, &t->h);
		free(list);
		if (ret)
			return ret;
		if (top_find_columns(t))
			goto oom;
	}
	t->res[0] = memcgstat_result_new(t->h);
	t->res[1] = memcgstat_result_new(t->h);
	if (!t->res[0] || !t->res[1]) {
oom:
		p_err("out of memory");
		return 1;
	}
	t->view.h = t->h;
	return env.sort ? top_sort_column(t, env.sort) : 0;
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
	bool kept;
	int base;

	free_paths(t);
	t->nr_bad = 0;
	if (grow_array(&t->rows, &t->cap_rows, n, sizeof(*t->rows)))
		return -ENOMEM;
	if (id_index_set(&t->index[t->cur], &res, 1))
		return -ENOMEM;
	base = n ? path_depth(memcgstat_result_path(res, 0)) : 0;
	t->deepest = 0;
	for (i = 0; i < n; i++) {
		const char *path = memcgstat_result_path(res, i);

		if (path_depth(path) - base > t->deepest)
			t->deepest = path_depth(path) - base;
		r = &t->rows[t->nr_rows];
		if (render_path(r, path))
			return -ENOMEM;
		/* as printed, as the filters' own words say */
		if (!row_filter_keeps(&t->filter, r->path, base) ||
		    !top_match_keeps(&t->match, r->path)) {
			free(r->own);
			continue;
		}
		r->id = memcgstat_result_id(res, i);
		r->vals = memcgstat_result_values(res, i);
		r->prev = prev_vals(t, r->id);
		t->nr_rows++;
		if (memcgstat_result_status(res, i)) {
			if (grow_array(&t->bad, &t->cap_bad, t->nr_bad + 1, sizeof(*t->bad)))
				return -ENOMEM;
			t->bad[t->nr_bad++] = (struct bad_row){
				.id = r->id, .path = path, .status = memcgstat_result_status(res, i),
			};
		}
	}
	/*
	 * The walk's first row is CGROUP's (before top_sort_rows() moves it).
	 * Its path as the first refresh, which must read it, said it: for the
	 * header when the filters leave it out, or it cannot be read.
	 */
	kept = t->nr_rows && t->rows[0].id == memcgstat_result_id(res, 0);
	if (n && !t->root_own)
		t->root_own = esc_dup(memcgstat_result_path(res, 0));
	t->root = kept ? t->rows[0].path : t->root_own ? t->root_own : "-";
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
		free(t->gone);
		t->gone = NULL;
		t->gone_err = 0;
		return;
	}
	t->failed = true;
	free(t->gone);
	t->gone = esc_dup(msg);	/* whole, escaped as every line of the frame */
	if (env.batch && err != t->gone_err)
		p_info("%s", msg);
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
	if (err && !t->nr_samples) {
		term_close();
		p_err("%s", memcgstat_errmsg(t->h));
		return err == -EINVAL ? 2 : 1;	/* a CGROUP that cannot be one */
	}
	read_failed(t, err);		/* on failure the result has no rows */
	t->t[next] = mono;
	t->cur = next;
	t->nr_samples++;
	t->view.dt = t->nr_samples > 1 ? t->t[t->cur] - t->t[!t->cur] : 0;
	/*
	 * Rows shown without values (a cgroup whose files cannot be read):
	 * the exit status 1, as the CLI's; -b says each once on standard
	 * error, the live view counts them on its second line.
	 */
	if (make_rows(t) || (env.batch && report_bad(&t->rep, t->bad, t->nr_bad, NULL))) {
		term_close();
		p_err("out of memory");
		return 1;
	}
	if (t->nr_bad)
		t->failed = true;
	return 0;
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
		top_sort_rows(t);
		top_draw(t, &s);
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
			if (top_on_key(t, key))
				return t->failed;
			if (t->remake && make_rows(t)) {
				p_err("out of memory");
				return 1;
			}
			t->remake = false;
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
	free(t->gone);
	free(t->bad);
	report_free(&t->rep);
	free(t->cols);
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
	t.interval = env.interval;
	t.filter = env.c.filter;
	top_match_set(&t.match, env.filter ? env.filter : "");	/* fits: parse_opt() */
	ret = open_top(&t);
	if (!ret && !env.batch)
		setvbuf(stdout, NULL, _IOFBF, 1 << 16);	/* a frame in one write */
	if (!ret)
		ret = run(&t);
	term_close();
	free_top(&t);
	row_filter_free(&env.c.filter);
	free(env.stats);
	return ret;
}
