// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * memcgstat: print memory cgroup counters, read through the memcg kfuncs
 * (bpf backend) or memory.stat (text backend). This file holds its options,
 * the handle, the schedule of samples and their printing, --pin/--unpin
 * and --list-stats; a sample's reading and its errors are sample.c's, the
 * formats render.c's, memcgstat top is top.c.
 *
 * Exit status: 0 success, 1 a cgroup could not be read (after every
 * sample: the others are printed), the backend could not be opened or the
 * output written, 2 bad usage (unknown option or stat, conflicting
 * options, bad number, a CGROUP outside the hierarchy).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include "common.h"
#include "memcgstat.h"
#include "render.h"
#include "filter.h"
#include "json_writer.h"
#include "sample.h"
#include "top.h"

enum output { OUT_TABLE, OUT_JSON, OUT_CSV, OUT_OPENMETRICS };
static const char *const output_names[] = { "table", "json", "csv", "openmetrics" };
/* in the order of enum memcgstat_query */
static const char *const query_names[] = { "auto", "syscall", "iter" };
enum layout { LAYOUT_AUTO, LAYOUT_WIDE, LAYOUT_LINES };
static const char *const layout_names[] = { "auto", "wide", "lines" };

static struct env {
	struct common_env c;		/* --backend, -v, -q */
	bool recursive, human;
	bool local, numa, list;
	bool pin, unpin, no_pins;
	bool have_interval;
	double interval;
	long count;
	const char *sort;
	long top;
	char *stats;			/* -s, all of them; split when opening */
	enum output output;
	enum layout layout;		/* --layout, as given */
	enum render_layout table;	/* the one the table has: table_layout() */
	enum memcgstat_query query;
	const char **cgroups;		/* the CGROUP arguments, or "/" */
	size_t nr_cgroups;
	bool have_cgroups;		/* CGROUP arguments given */
} env = { .count = -1, .top = -1, .c.filter = ROW_FILTER_INIT };

static const char usage_text[] =
"Usage: memcgstat [OPTION]... [CGROUP]...\n"
"       memcgstat top [OPTION]... [CGROUP]   (a live view: memcgstat top --help)\n"
"Print memory cgroup counters. CGROUP is a path below the memory cgroup\n"
"mount, an absolute path (a symlink into the mount too), or ., .., ./PATH,\n"
"../PATH from the working directory; default: the root of the hierarchy.\n"
"\n"
"  -s, --stats LIST       comma-separated stats (default: all; see --list-stats)\n"
"  -r, --recursive        every cgroup below each CGROUP too\n"
"      --max-depth N      with -r: only cgroups at most N levels below CGROUP\n"
"      --include GLOB     with -r: only cgroups whose path matches GLOB\n"
"                         (fnmatch(3), '*' matches '/' too); repeatable, any\n"
"                         may match\n"
"      --exclude GLOB     with -r: no cgroup whose path matches GLOB;\n"
"                         repeatable, wins over --include\n"
"  -i, --interval SECS    repeat every SECS seconds; counters become rates\n"
"  -c, --count N          stop after N samples (default: 1, or forever with -i)\n"
"      --local            the cgroup's own values, without its descendants\n"
"      --numa             one value per NUMA node\n"
"      --sort STAT        order cgroups by STAT, largest first\n"
"      --top N            only the first N cgroups (after --sort)\n"
"  -o, --output FORMAT    table (default), json, csv or openmetrics\n"
"      --layout NAME      the table's layout: wide (a line per cgroup), lines\n"
"                         (a line per stat) or auto (default): on a terminal\n"
"                         lines for one cgroup a sample, else wide where it\n"
"                         fits; in a pipe or a file wide\n"
"      --backend NAME     auto (default), bpf or text\n"
"      --query PATH       how bpf reads single cgroups: auto (default),\n"
"                         syscall (one system call) or iter (cgroup iterator)\n"
"      --list-stats       print the stat names and exit; with -v, -o csv or\n"
"                         -o json their kinds, units and backends\n"
"      --pin              load the bpf backend and pin its programs in the BPF\n"
"                         file system, for later runs to start in a few system\n"
"                         calls; print where, and exit\n"
"      --unpin            remove the pinned programs and exit\n"
"      --no-pins          load the bpf backend's programs, pinned or not\n"
"  -H, --human-readable   sizes as K, M, G (table output)\n"
"  -v, --verbose          say which backend and query path run, and why auto\n"
"                         took it; libbpf debug output\n"
"  -q, --quiet            no warnings from libbpf, errors only\n"
"  -h, --help             this help\n"
"      --version          the version\n"
"\n"
"Exit status: 0 success; 1 a cgroup could not be read (the others are printed,\n"
"with -i the samples go on), the backend could not be opened or the output\n"
"written; 2 bad usage.\n";

enum { OPT_LAYOUT = OPT_FIRST, OPT_QUERY };

#define E struct env
/* In --help's order. */
static const struct tool_opt opts[] = {
	OPT_OWN_ARG("stats", 's'),
	OPT_TRUE("recursive", 'r', E, recursive),
	FILTER_OPTS,
	OPT_OWN_ARG("interval", 'i'),
	OPT_LONG("count", 'c', E, count, 1, LONG_MAX),
	LOCAL_NUMA_OPTS(E),
	OPT_STR("sort", 0, E, sort),
	OPT_LONG("top", 0, E, top, 1, LONG_MAX),
	OPT_OWN_ARG("output", 'o'),
	OPT_OWN_ARG("layout", OPT_LAYOUT),
	BACKEND_OPT,
	OPT_OWN_ARG("query", OPT_QUERY),
	OPT_TRUE("list-stats", 0, E, list),
	OPT_TRUE("pin", 0, E, pin),
	OPT_TRUE("unpin", 0, E, unpin),
	OPT_TRUE("no-pins", 0, E, no_pins),
	OPT_TRUE("human-readable", 'H', E, human),
	VERBOSE_OPT,
	QUIET_OPT,
	HELP_OPTS,
};
#undef E

/* Returns 0 to go on, else the exit status. @base: &env. */
static int parse_opt(void *base, int opt, char *arg)
{
	int i, ret;

	(void)base;
	switch (opt) {
	case 's':
		return add_stats(&env.stats, arg);
	case 'i':
		env.have_interval = true;
		return parse_secs(arg, "--interval", 0.001, false, &env.interval);
	case 'o':
		ret = parse_choice(arg, "--output", "format", output_names,
				   ARRAY_SIZE(output_names), &i);
		env.output = ret ? env.output : (enum output)i;
		json_output = env.output == OUT_JSON;
		return ret;
	case OPT_LAYOUT:
		ret = parse_choice(arg, "--layout", "layout", layout_names,
				   ARRAY_SIZE(layout_names), &i);
		env.layout = ret ? env.layout : (enum layout)i;
		return ret;
	case OPT_QUERY:
		ret = parse_choice(arg, "--query", "query path", query_names,
				   ARRAY_SIZE(query_names), &i);
		env.query = ret ? env.query : (enum memcgstat_query)i;
		return ret;
	}
	return 0;
}

/*
 * Whether the last -o of the command line asks for JSON: errors found
 * while parsing the options before it are JSON too.
 */
static bool wants_json(int argc, char **argv)
{
	const char *v = NULL;
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output"))
			v = i + 1 < argc ? argv[++i] : NULL;
		else if (!strncmp(argv[i], "--output=", 9))
			v = argv[i] + 9;
		else if (!strncmp(argv[i], "-o", 2))
			v = argv[i] + 2;
	}
	return v && !strcmp(v, "json");
}

/* Returns 0 to go on, else the exit status. */
static int parse_opts(int argc, char **argv)
{
	static const char *root_arg[] = { "/" };
	int ret;

	json_output = wants_json(argc, argv);
	ret = parse_args(argc, argv, opts, ARRAY_SIZE(opts), &env, &env.c, usage_text, parse_opt);
	if (ret)
		return ret;
	env.have_cgroups = optind < argc;
	env.nr_cgroups = optind < argc ? (size_t)(argc - optind) : 1;
	env.cgroups = optind < argc ? (const char **)&argv[optind] : root_arg;
	return 0;
}

/* After every option is known. */
static int check_conflicts(void)
{
	if (env.local && env.numa)
		return usage_err("--local and --numa cannot be combined");
	if (env.c.verbose && env.c.quiet)
		return usage_err("-v and -q cannot be combined");
	if (env.count > 1 && !env.have_interval)
		return usage_err("--count above 1 needs --interval");
	if (!row_filter_none(&env.c.filter) && !env.recursive)
		return usage_err("--max-depth, --include and --exclude apply to -r");
	if (env.human && env.output != OUT_TABLE)
		return usage_err("-H applies to table output only");
	if (env.layout != LAYOUT_AUTO && env.output != OUT_TABLE)
		return usage_err("--layout applies to table output only");
	if (env.query && env.c.backend == MEMCGSTAT_BACKEND_TEXT)
		return usage_err("--query applies to the bpf backend only");
	if (env.output == OUT_OPENMETRICS && env.have_interval)
		return usage_err("openmetrics output is one exposition: no --interval");
	if (env.pin + env.unpin + env.list > 1)
		return usage_err("--pin, --unpin and --list-stats are each a run of their own");
	/* not taken silently: what a list of names would ignore */
	if (env.list && (env.have_cgroups || env.recursive || env.have_interval || env.count >= 0 ||
			 env.stats || env.local || env.numa || env.sort || env.top >= 0 || env.human ||
			 env.layout != LAYOUT_AUTO || env.output == OUT_OPENMETRICS))
		return usage_err("--list-stats takes no CGROUP, no option of a read (-s, -r, -i, -c, --local, ...) and no -o openmetrics");
	if ((env.pin || env.unpin) && (env.stats || env.local || env.numa || env.no_pins ||
				       env.c.backend == MEMCGSTAT_BACKEND_TEXT))
		return usage_err("--pin and --unpin take no --stats, --local, --numa, --no-pins or --backend text");
	return 0;
}

static void print_verbose(struct memcgstat *h)
{
	const char *reason = memcgstat_query_reason(h);

	say_backend(h);
	p_info("backend %s, cgroup v%d at %s, %zu column%s",
	       memcgstat_backend_name(memcgstat_backend(h)),
	       memcgstat_cgroup_version(h), memcgstat_root(h), memcgstat_nr_columns(h),
	       memcgstat_nr_columns(h) == 1 ? "" : "s");
	if (memcgstat_backend(h) != MEMCGSTAT_BACKEND_BPF)
		return;
	p_info("query path %s%s%s", memcgstat_query_name(memcgstat_query(h)),
	       reason ? ": " : "", reason ? reason : "");
	p_info("kfuncs %s", memcgstat_kfuncs(h));
	if (memcgstat_pinned(h))
		p_info("programs pinned at %s", memcgstat_pin_dir(h));
}

static int sort_col = -1;
static const struct render_view *sort_view;

/*
 * What --sort orders by: the value as the table shows it, a counter's rate
 * after the first sample of an -i run; no value sorts last.
 */
static double sort_key(const struct render_row *r)
{
	double x;

	if (sort_view->dt > 0 &&
	    memcgstat_column_kind(sort_view->h, sort_col) == MEMCGSTAT_KIND_COUNTER)
		return render_rate(sort_view, r, sort_col, &x) ? x : -1;
	return r->vals[sort_col] == MEMCGSTAT_NA ? -1 : (double)r->vals[sort_col];
}

static int cmp_rows(const void *a, const void *b)
{
	const struct render_row *x = a, *y = b;
	double kx = sort_key(x), ky = sort_key(y);

	return kx < ky ? 1 : kx > ky ? -1 : strcmp(x->path, y->path);
}

/* The handle, and the column of --sort. Returns 0 or the exit status. */
static int open_cli(struct memcgstat **h)
{
	struct memcgstat_opts opts = {
		.sz = sizeof(opts),
		.backend = env.c.backend,
		.query = env.query,
		.flags = (env.local ? MEMCGSTAT_LOCAL : 0) | (env.numa ? MEMCGSTAT_NUMA : 0) |
			 (env.no_pins || env.local || env.numa ? 0 : MEMCGSTAT_PINNED),
	};
	long samples = env.have_interval ? env.count : 1;
	size_t i;
	int ret;

	/*
	 * A read per CGROUP a sample (-i without -c: no end); with auto the
	 * library weighs them against loading bpf.
	 */
	if (samples > 0)
		opts.expected_reads = samples > LONG_MAX / (long)env.nr_cgroups ? 0 :
				      samples * (long)env.nr_cgroups;
	set_libbpf_print(env.c.verbose, env.c.quiet);
	ret = open_handle(&opts, env.stats, env.c.backend == MEMCGSTAT_BACKEND_BPF || env.query,
			  false, h);
	if (ret)
		return ret;
	if (!env.sort)
		return 0;
	for (i = 0; i < memcgstat_nr_columns(*h); i++)
		if (!strcmp(memcgstat_column_name(*h, i), env.sort))
			break;
	if (i == memcgstat_nr_columns(*h))
		return usage_err("--sort: '%s' is not one of the chosen stats", env.sort);
	sort_col = i;
	return 0;
}

/* --sort, then --top: the rows left out are not printed, their copies freed. */
static void order_rows(struct render_view *v, struct render_row *rows)
{
	if (sort_col >= 0 && v->nr_rows) {
		sort_view = v;
		qsort(rows, v->nr_rows, sizeof(*rows), cmp_rows);
	}
	for (; env.top >= 0 && (size_t)env.top < v->nr_rows; v->nr_rows--)
		free(rows[v->nr_rows - 1].own);
}

/* The columns of the terminal standard output is, else 0. */
static size_t term_width(void)
{
	struct winsize ws;
	const char *cols;

	if (!isatty(STDOUT_FILENO))
		return 0;
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col)
		return ws.ws_col;
	cols = getenv("COLUMNS");
	return cols && atoi(cols) > 0 ? (size_t)atoi(cols) : 80;
}

/*
 * @s in the output format, its errors said by @rep; @prev, the sample
 * before, for rates.
 */
static int print_sample(const struct memcgstat *h, struct report *rep, struct sample *s,
			const struct sample *prev)
{
	struct render_view v = {
		.h = h, .time = s->wall, .dt = prev ? s->t - prev->t : 0,
		.first = !prev, .human = env.human, .rates = env.have_interval,
		.width = term_width(), .layout = env.table, .local = env.local,
	};
	struct sample_errors errs = {};
	struct render_row *rows = NULL;

	if (!report_args(rep, s, &errs) && !report_rows(rep, s, &env.c.filter, &errs))
		rows = sample_rows(s, prev, env.have_interval, &env.c.filter, &v.nr_rows);
	if (!rows) {
		free_errors(&errs);
		p_err("out of memory");
		return 1;
	}
	order_rows(&v, rows);
	v.rows = rows;
	v.errors = errs.v;
	v.nr_errors = errs.nr;
	switch (env.output) {
	case OUT_TABLE:
		render_table(stdout, &v);
		break;
	case OUT_JSON:
		render_json(stdout, &v);
		break;
	case OUT_CSV:
		render_csv(stdout, &v);
		break;
	case OUT_OPENMETRICS:
		om_stats(stdout, OM_OPENMETRICS, &v);
		om_end(stdout, OM_OPENMETRICS);
		break;
	}
	sample_rows_free(rows, v.nr_rows);
	free_errors(&errs);
	/* a failed write ends the run; close_stdout() says why */
	return fflush(stdout) || ferror(stdout) ? 1 : 0;
}

/*
 * The table's layout, from the arguments alone, before the first sample,
 * so that a run of samples keeps it: --layout wide or lines as asked;
 * auto where standard output is a terminal and every sample has one row
 * (one CGROUP without -r or with --max-depth 0, or --top 1) lines, else
 * wide where it fits the terminal and lines where not; in a pipe or a
 * file (term_width() 0) always wide.
 */
static enum render_layout table_layout(void)
{
	bool one = env.top == 1 ||
		   (env.nr_cgroups == 1 && (!env.recursive || env.c.filter.max_depth == 0));

	if (env.layout == LAYOUT_WIDE)
		return RENDER_WIDE;
	if (env.layout == LAYOUT_LINES)
		return RENDER_LINES;
	return one && isatty(STDOUT_FILENO) ? RENDER_LINES : RENDER_FIT;
}

#define NSEC_PER_SEC	1000000000LL

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* Until CLOCK_MONOTONIC reads @t nanoseconds. */
static void sleep_until(long long t)
{
	struct timespec ts = { .tv_sec = t / NSEC_PER_SEC, .tv_nsec = t % NSEC_PER_SEC };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/*
 * Every sample, on a schedule of absolute times: sample k at the first's
 * time plus k intervals (ticks), so that the time a read takes does not
 * add up into drift. A sample that ends after the next tick skips the
 * ticks it overran (-v says so): the next starts on the tick after.
 * Returns the exit status: a cgroup that could not be read in any sample
 * makes it 1, after every sample.
 */
static int run(struct memcgstat *h)
{
	long n = env.count > 0 ? env.count : env.have_interval ? -1 : 1, i;
	long long step = llround(env.interval * NSEC_PER_SEC), start = mono_ns(), tick = 0;
	long long began, end, passed;
	struct sample cur = {}, prev = {}, tmp;
	struct report rep;
	int ret = 0;

	if (step < 1)
		step = 1;
	if (report_init(&rep, env.cgroups, env.nr_cgroups, env.c.verbose, env.output == OUT_JSON)) {
		p_err("out of memory");
		return 1;
	}
	for (i = 0; !ret && (n < 0 || i < n); i++) {
		if (i)
			sleep_until(start + tick * step);
		began = mono_ns();
		ret = read_sample(h, env.cgroups, env.nr_cgroups, env.recursive, !i, &cur);
		if (ret)
			break;
		/* auto's choice, made by the first read */
		if (env.c.verbose && !i)
			print_verbose(h);
		if (env.c.verbose && !i && memcgstat_backend(h) == MEMCGSTAT_BACKEND_BPF)
			p_info("read with the %s path",
			       env.recursive ? "iter" : memcgstat_query_name(memcgstat_last_query(h)));
		ret = print_sample(h, &rep, &cur, i ? &prev : NULL);
		tmp = prev;
		prev = cur;
		cur = tmp;
		/* the last tick that has passed: the next sample is on the one after */
		end = mono_ns();
		passed = (end - start) / step;
		if (passed > tick && env.c.verbose && (n < 0 || i + 1 < n))
			p_info("sample %ld took %.3f s, skipped %lld tick%s of %g s", i + 1,
			       (end - began) / 1e9, passed - tick, passed - tick > 1 ? "s" : "",
			       env.interval);
		tick = passed > tick ? passed + 1 : tick + 1;
	}
	free_sample(&cur);
	free_sample(&prev);
	report_free(&rep);
	return ret ? ret : rep.failed;
}

/* --pin and --unpin. Returns the exit status. */
static int pin_run(void)
{
	struct memcgstat_opts opts = {
		.sz = sizeof(opts),
		.backend = env.unpin ? MEMCGSTAT_BACKEND_TEXT : MEMCGSTAT_BACKEND_BPF,
		.query = env.query,
	};
	struct memcgstat *h = NULL;
	int ret;

	set_libbpf_print(env.c.verbose, env.c.quiet);
	ret = open_handle(&opts, NULL, true, false, &h);
	if (ret)
		return ret;
	if (env.unpin ? memcgstat_unpin(h) : memcgstat_pin(h)) {
		p_err("%s", memcgstat_errmsg(h));
		ret = 1;
	} else if (env.pin) {
		printf("%s\n", memcgstat_pin_dir(h));
	}
	memcgstat_close(h);
	return ret;
}

/* Whether @h (NULL: its backend cannot run here) reads @name: 1, 0, -1 for no backend. */
static int reads(struct memcgstat *h, const char *name)
{
	return !h ? -1 : memcgstat_stat_available(h, name) == 1;
}

static const char *kind_name(const char *name)
{
	return memcgstat_stat_kind(name) == MEMCGSTAT_KIND_GAUGE ? "gauge" : "counter";
}

/* --list-stats -o json: each stat's name, kind, unit, and whether each backend reads it. */
static void list_json(struct memcgstat *text, struct memcgstat *bpf)
{
	struct memcgstat *hs[] = { text, bpf };
	static const char *const be[] = { "text", "bpf" };
	struct json_writer jw;
	const char *name, *unit;
	size_t i, k;

	jsonw_init(&jw, stdout);
	jsonw_start_object(&jw);
	jsonw_name(&jw, "stats");
	jsonw_start_array(&jw);
	for (i = 0; i < memcgstat_nr_known_stats(); i++) {
		name = memcgstat_known_stat(i);
		unit = memcgstat_stat_unit(name);
		jsonw_start_object(&jw);
		jsonw_name(&jw, "name");
		jsonw_string(&jw, name);
		jsonw_name(&jw, "kind");
		jsonw_string(&jw, kind_name(name));
		jsonw_name(&jw, "unit");
		if (unit)
			jsonw_string(&jw, unit);
		else
			jsonw_null(&jw);
		for (k = 0; k < 2; k++) {	/* null: that backend cannot run here */
			int r = reads(hs[k], name);

			jsonw_name(&jw, be[k]);
			if (r < 0)
				jsonw_null(&jw);
			else
				jsonw_bool(&jw, r);
		}
		jsonw_end_object(&jw);
	}
	jsonw_end_array(&jw);
	jsonw_end_object(&jw);
	putchar('\n');
}

/*
 * --list-stats: every stat name the library knows; with -v, -o csv or
 * -o json their kind and unit and which backend can read each on this
 * kernel and hierarchy ("-", empty or null for a backend that cannot run
 * here, said why with -v).
 */
static int list_stats(void)
{
	static const char *const one[] = { "usage" }, *const yn[] = { "-", "no", "yes" };
	struct memcgstat_opts opts = { .sz = sizeof(opts), .stats = one, .nr_stats = 1 };
	struct memcgstat *text = NULL, *bpf = NULL;
	const char *name, *unit;
	size_t i;

	if (!env.c.verbose && env.output == OUT_TABLE) {
		for (i = 0; i < memcgstat_nr_known_stats(); i++)
			printf("%s\n", memcgstat_known_stat(i));
		return 0;
	}
	set_libbpf_print(false, true);
	opts.backend = MEMCGSTAT_BACKEND_TEXT;
	if (memcgstat_open(&opts, &text)) {
		p_err("%s", memcgstat_errmsg(text));
		memcgstat_close(text);
		return 1;
	}
	opts.backend = MEMCGSTAT_BACKEND_BPF;
	if (memcgstat_open(&opts, &bpf)) {
		if (env.c.verbose)
			p_info("the bpf backend cannot run here: %s", memcgstat_errmsg(bpf));
		memcgstat_close(bpf);
		bpf = NULL;
	}
	if (env.output == OUT_JSON)
		list_json(text, bpf);
	else if (env.output == OUT_CSV)
		printf("stat,kind,unit,text,bpf\n");
	else
		printf("%-28s %-8s %-12s %-4s %s\n", "STAT", "KIND", "UNIT", "TEXT", "BPF");
	for (i = 0; env.output != OUT_JSON && i < memcgstat_nr_known_stats(); i++) {
		name = memcgstat_known_stat(i);
		unit = memcgstat_stat_unit(name);
		if (env.output == OUT_CSV)
			printf("%s,%s,%s,%s,%s\n", name, kind_name(name), unit ? unit : "",
			       yn[reads(text, name) + 1], bpf ? yn[reads(bpf, name) + 1] : "");
		else
			printf("%-28s %-8s %-12s %-4s %s\n", name, kind_name(name), unit ? unit : "-",
			       yn[reads(text, name) + 1], yn[reads(bpf, name) + 1]);
	}
	memcgstat_close(text);
	memcgstat_close(bpf);
	return 0;
}

int main(int argc, char **argv)
{
	struct memcgstat *h = NULL;
	int ret;

	prog_name = "memcgstat";
	check_stdout_at_exit();
	/* a subcommand; a cgroup named top is ./top or /top */
	if (argc > 1 && !strcmp(argv[1], "top"))
		return top_main(argc - 1, argv + 1);
	ret = parse_opts(argc, argv);
	if (!ret)
		ret = check_conflicts();
	if (ret)
		return ret;
	if (env.list)
		return list_stats();
	if (env.pin || env.unpin)
		return pin_run();
	env.table = table_layout();
	ret = open_cli(&h);
	if (!ret)
		ret = run(h);
	memcgstat_close(h);
	free(env.stats);
	return ret;
}
