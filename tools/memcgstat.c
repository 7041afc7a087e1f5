// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * memcgstat: print memory cgroup counters, read through the memcg kfuncs
 * (bpf backend) or memory.stat (text backend).
 *
 * Exit status: 0 success, 1 a read or load failed, 2 bad usage (unknown
 * option or stat, conflicting options, bad number).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "common.h"
#include "memcgstat.h"

enum output { OUT_TABLE, OUT_JSON, OUT_CSV, OUT_OPENMETRICS };

static struct env {
	bool recursive, local, numa, human, verbose;
	double interval;
	long count;
	const char *sort;
	long top;
	enum output output;
	enum memcgstat_backend backend;
	enum memcgstat_query query;
} env = { .count = -1, .top = -1 };

static const char usage_text[] =
"Usage: memcgstat [OPTION]... [CGROUP]...\n"
"Print memory cgroup counters. CGROUP is a path below the memory cgroup\n"
"mount or an absolute path; default: the root of the memory hierarchy.\n"
"\n"
"  -s, --stats LIST       comma-separated stats (default: all; see --list-stats)\n"
"  -r, --recursive        every cgroup below each CGROUP too\n"
"  -i, --interval SECS    repeat every SECS seconds; counters become rates\n"
"  -c, --count N          stop after N samples (default: 1, or forever with -i)\n"
"      --local            the cgroup's own values, without its descendants\n"
"      --numa             one value per NUMA node\n"
"      --sort STAT        order cgroups by STAT, largest first\n"
"      --top N            only the first N cgroups (after --sort)\n"
"  -o, --output FORMAT    table (default), json, csv or openmetrics\n"
"      --backend NAME     auto (default), bpf or text\n"
"      --query PATH       how bpf reads single cgroups: auto (default),\n"
"                         syscall (one system call) or iter (cgroup iterator)\n"
"      --list-stats       print the stat names and exit\n"
"  -H, --human-readable   sizes as K, M, G (table output)\n"
"  -v, --verbose          say which backend and query path run; libbpf debug\n"
"                         output\n"
"  -h, --help             this help\n"
"      --version          the version\n"
"\n"
"Exit status: 0 success, 1 a read failed, 2 bad usage.\n";

enum { OPT_LOCAL = 256, OPT_NUMA, OPT_SORT, OPT_TOP, OPT_BACKEND, OPT_QUERY, OPT_LIST, OPT_VERSION };

static const struct option long_opts[] = {
	{ "stats", required_argument, NULL, 's' },
	{ "recursive", no_argument, NULL, 'r' },
	{ "interval", required_argument, NULL, 'i' },
	{ "count", required_argument, NULL, 'c' },
	{ "local", no_argument, NULL, OPT_LOCAL },
	{ "numa", no_argument, NULL, OPT_NUMA },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "output", required_argument, NULL, 'o' },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "query", required_argument, NULL, OPT_QUERY },
	{ "list-stats", no_argument, NULL, OPT_LIST },
	{ "human-readable", no_argument, NULL, 'H' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{}
};

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Errors: one place decides their form. In JSON mode they are JSON. */
static void __attribute__((format(printf, 1, 2))) p_err(const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (env.output == OUT_JSON) {
		printf("{\"error\":");
		json_string(stdout, msg);
		printf("}\n");
	} else {
		fprintf(stderr, "memcgstat: %s\n", msg);
	}
}

static int usage_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_err(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	p_err("%s (see memcgstat --help)", msg);
	return 2;
}

static int parse_long(const char *s, const char *what, long min, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min)
		return usage_err("%s: '%s' is not a whole number >= %ld", what, s, min);
	*out = v;
	return 0;
}

struct sample {
	struct memcgstat_result **res;	/* one per CGROUP argument */
	size_t nr;
	double t;			/* CLOCK_MONOTONIC seconds, for rates */
	double wall;			/* CLOCK_REALTIME seconds, printed */
};

struct row {
	const char *path;
	uint64_t id;
	const uint64_t *vals;
	const uint64_t *prev;		/* same cgroup in the previous sample */
};

static double now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static const uint64_t *find_prev(const struct sample *prev, uint64_t id)
{
	size_t a, i;

	if (!prev)
		return NULL;
	for (a = 0; a < prev->nr; a++)
		for (i = 0; i < memcgstat_result_count(prev->res[a]); i++)
			if (memcgstat_result_id(prev->res[a], i) == id)
				return memcgstat_result_values(prev->res[a], i);
	return NULL;
}

/* The value to print: a rate for counters after the first sample. */
static double cell(const struct memcgstat *h, const struct row *r, size_t c,
		   double dt, bool *na, bool *rate)
{
	const char *name = memcgstat_column_name(h, c);

	*na = r->vals[c] == MEMCGSTAT_NA;
	*rate = false;
	if (*na)
		return 0;
	if (dt > 0 && is_counter(name)) {
		*rate = true;
		if (!r->prev || r->prev[c] == MEMCGSTAT_NA) {
			*na = true;	/* new cgroup: no rate yet */
			return 0;
		}
		return ((double)r->vals[c] - (double)r->prev[c]) / dt;
	}
	return (double)r->vals[c];
}

static int sort_col = -1;
static int cmp_rows(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	uint64_t vx = x->vals[sort_col], vy = y->vals[sort_col];

	if (vx == MEMCGSTAT_NA)
		vx = 0;
	if (vy == MEMCGSTAT_NA)
		vy = 0;
	return vx < vy ? 1 : vx > vy ? -1 : strcmp(x->path, y->path);
}

static void col_label(const struct memcgstat *h, size_t c, char *buf, size_t size)
{
	int nid = memcgstat_column_node(h, c);

	if (nid >= 0)
		snprintf(buf, size, "%s:N%d", memcgstat_column_name(h, c), nid);
	else
		snprintf(buf, size, "%s", memcgstat_column_name(h, c));
}

static void human(double v, char *buf, size_t size)
{
	static const char units[] = "BKMGTPE";
	int u = 0;

	while (fabs(v) >= 1024 && u < 6) {
		v /= 1024;
		u++;
	}
	if (u)
		snprintf(buf, size, "%.1f%c", v, units[u]);
	else
		snprintf(buf, size, "%.0f", v);
}

static void fmt_value(const struct memcgstat *h, size_t c, double v, bool na,
		      bool rate, char *buf, size_t size)
{
	if (na)
		snprintf(buf, size, "-");
	else if (env.human && !is_counter(memcgstat_column_name(h, c)))
		human(v, buf, size);
	else if (rate)
		snprintf(buf, size, "%.1f", v);
	else
		snprintf(buf, size, "%.0f", v);
}

static void print_table(const struct memcgstat *h, struct row *rows, size_t n,
			double dt, bool first)
{
	size_t nc = memcgstat_nr_columns(h), c, i, pw = 6;
	char label[96], val[64];
	bool na, rate;
	double v;

	for (i = 0; i < n; i++)
		if (strlen(rows[i].path) > pw)
			pw = strlen(rows[i].path);
	if (pw > 40)
		pw = 40;
	/* Wide (a column per stat) when it fits 100 columns, else long. */
	if (pw + 1 + nc * 15 <= 100) {
		if (first || dt > 0) {
			printf("%-*s", (int)pw, "CGROUP");
			for (c = 0; c < nc; c++) {
				col_label(h, c, label, sizeof(label));
				printf(" %14s", label);
			}
			printf("\n");
		}
		for (i = 0; i < n; i++) {
			printf("%-*s", (int)pw, rows[i].path);
			for (c = 0; c < nc; c++) {
				v = cell(h, &rows[i], c, dt, &na, &rate);
				fmt_value(h, c, v, na, rate, val, sizeof(val));
				printf(" %14s", val);
			}
			printf("\n");
		}
		return;
	}
	for (i = 0; i < n; i++) {
		printf("%s%s\n", i ? "\n" : "", rows[i].path);
		for (c = 0; c < nc; c++) {
			col_label(h, c, label, sizeof(label));
			v = cell(h, &rows[i], c, dt, &na, &rate);
			fmt_value(h, c, v, na, rate, val, sizeof(val));
			printf("  %-28s %20s%s\n", label, val, rate && !na ? "/s" : "");
		}
	}
}

/* With --numa a stat has one column per node, next to each other. */
static bool first_of_stat(const struct memcgstat *h, size_t c)
{
	return c == 0 || strcmp(memcgstat_column_name(h, c - 1),
				memcgstat_column_name(h, c));
}

static void print_json(const struct memcgstat *h, struct row *rows, size_t n,
		       double dt, double t)
{
	size_t nc = memcgstat_nr_columns(h), c, i;
	bool na, rate;
	double v;

	printf("{\"backend\":\"%s\",\"cgroup_version\":%d,\"time\":%.6f,\"interval\":",
	       memcgstat_backend_name(memcgstat_backend(h)),
	       memcgstat_cgroup_version(h), t);
	if (dt > 0)
		printf("%.6f", dt);
	else
		printf("null");
	printf(",\"cgroups\":[");
	for (i = 0; i < n; i++) {
		printf("%s{\"path\":", i ? "," : "");
		json_string(stdout, rows[i].path);
		printf(",\"id\":%llu,\"stats\":{", (unsigned long long)rows[i].id);
		for (c = 0; c < nc; c++) {
			int nid = memcgstat_column_node(h, c);

			if (first_of_stat(h, c))
				printf("%s\"%s\":%s", c ? "," : "",
				       memcgstat_column_name(h, c), nid >= 0 ? "{" : "");
			else
				printf(",");
			if (nid >= 0)
				printf("\"N%d\":", nid);
			v = cell(h, &rows[i], c, dt, &na, &rate);
			if (na)
				printf("null");
			else if (rate)
				printf("%.3f", v);
			else
				printf("%llu", (unsigned long long)rows[i].vals[c]);
			if (nid >= 0 && (c + 1 == nc || first_of_stat(h, c + 1)))
				printf("}");
		}
		printf("}}");
	}
	printf("]}\n");
}

static void csv_field(const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

static void print_csv(const struct memcgstat *h, struct row *rows, size_t n,
		      double dt, double t, bool first)
{
	size_t nc = memcgstat_nr_columns(h), c, i;
	char label[96];
	bool na, rate;
	double v;

	if (first) {
		printf("time,cgroup,id");
		for (c = 0; c < nc; c++) {
			col_label(h, c, label, sizeof(label));
			printf(",%s", label);
		}
		printf("\n");
	}
	for (i = 0; i < n; i++) {
		printf("%.6f,", t);
		csv_field(rows[i].path);
		printf(",%llu", (unsigned long long)rows[i].id);
		for (c = 0; c < nc; c++) {
			v = cell(h, &rows[i], c, dt, &na, &rate);
			if (na)
				printf(",");
			else if (rate)
				printf(",%.3f", v);
			else
				printf(",%llu", (unsigned long long)rows[i].vals[c]);
		}
		printf("\n");
	}
}

static void om_label(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			printf("\\%c", *s);
		else if (*s == '\n')
			printf("\\n");
		else
			putchar(*s);
	}
	putchar('"');
}

/* OpenMetrics: one family per stat, cgroup (and node) as labels. */
static void print_openmetrics(const struct memcgstat *h, struct row *rows, size_t n)
{
	size_t nc = memcgstat_nr_columns(h), c, i;

	for (c = 0; c < nc; c++) {
		const char *name = memcgstat_column_name(h, c);
		bool counter = is_counter(name);
		int nid = memcgstat_column_node(h, c);

		if (first_of_stat(h, c)) {
			printf("# TYPE memcgstat_%s%s %s\n", name, counter ? "" : "_bytes",
			       counter ? "counter" : "gauge");
			printf("# HELP memcgstat_%s%s memory cgroup %s, as the kernel reports it\n",
			       name, counter ? "" : "_bytes", name);
		}
		for (i = 0; i < n; i++) {
			if (rows[i].vals[c] == MEMCGSTAT_NA)
				continue;
			printf("memcgstat_%s%s{cgroup=", name, counter ? "_total" : "_bytes");
			om_label(rows[i].path);
			if (nid >= 0)
				printf(",node=\"%d\"", nid);
			printf("} %llu\n", (unsigned long long)rows[i].vals[c]);
		}
	}
	printf("# EOF\n");
}

static int print_sample(const struct memcgstat *h, const struct sample *s,
			const struct sample *prev, bool first)
{
	size_t n = 0, a, i, k = 0;
	double dt = prev ? s->t - prev->t : 0;
	struct row *rows;

	for (a = 0; a < s->nr; a++)
		n += memcgstat_result_count(s->res[a]);
	rows = calloc(n ? n : 1, sizeof(*rows));
	if (!rows) {
		p_err("out of memory");
		return 1;
	}
	for (a = 0; a < s->nr; a++) {
		for (i = 0; i < memcgstat_result_count(s->res[a]); i++, k++) {
			rows[k].path = memcgstat_result_path(s->res[a], i);
			rows[k].id = memcgstat_result_id(s->res[a], i);
			rows[k].vals = memcgstat_result_values(s->res[a], i);
			rows[k].prev = find_prev(prev, rows[k].id);
		}
	}
	if (sort_col >= 0)
		qsort(rows, n, sizeof(*rows), cmp_rows);
	if (env.top >= 0 && (size_t)env.top < n)
		n = env.top;

	switch (env.output) {
	case OUT_TABLE:
		if (!first)
			printf("\n");
		print_table(h, rows, n, dt, first);
		break;
	case OUT_JSON:
		print_json(h, rows, n, dt, s->wall);
		break;
	case OUT_CSV:
		print_csv(h, rows, n, dt, s->wall, first);
		break;
	case OUT_OPENMETRICS:
		print_openmetrics(h, rows, n);
		break;
	}
	fflush(stdout);
	free(rows);
	return 0;
}

static void free_sample(struct sample *s)
{
	size_t i;

	for (i = 0; s && i < s->nr; i++)
		memcgstat_result_free(s->res[i]);
	if (s)
		free(s->res);
}

int main(int argc, char **argv)
{
	struct memcgstat_opts opts = { .sz = sizeof(opts) };
	struct sample cur = {}, prev = {};
	const char *root_arg[] = { "/" };
	const char **cgroups;
	struct memcgstat *h = NULL;
	char **stats = NULL, *stats_arg = NULL;
	size_t nr_stats = 0, nr_cgroups, i;
	bool have_interval = false, list = false;
	int opt, err, ret = 1;
	long n, sample;

	while ((opt = getopt_long(argc, argv, "s:ri:c:o:Hvh", long_opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			stats_arg = optarg;
			break;
		case 'r':
			env.recursive = true;
			break;
		case 'i': {
			char *end;

			errno = 0;
			env.interval = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(env.interval > 0) ||
			    env.interval > 86400)
				return usage_err("--interval: '%s' is not a number of seconds in (0, 86400]", optarg);
			have_interval = true;
			break;
		}
		case 'c':
			if (parse_long(optarg, "--count", 1, &env.count))
				return 2;
			break;
		case OPT_LOCAL:
			env.local = true;
			break;
		case OPT_NUMA:
			env.numa = true;
			break;
		case OPT_SORT:
			env.sort = optarg;
			break;
		case OPT_TOP:
			if (parse_long(optarg, "--top", 1, &env.top))
				return 2;
			break;
		case 'o':
			if (!strcmp(optarg, "table"))
				env.output = OUT_TABLE;
			else if (!strcmp(optarg, "json"))
				env.output = OUT_JSON;
			else if (!strcmp(optarg, "csv"))
				env.output = OUT_CSV;
			else if (!strcmp(optarg, "openmetrics"))
				env.output = OUT_OPENMETRICS;
			else
				return usage_err("--output: unknown format '%s' (table, json, csv, openmetrics)", optarg);
			break;
		case OPT_BACKEND:
			if (parse_backend(optarg, &env.backend))
				return usage_err("--backend: unknown backend '%s' (auto, bpf, text)", optarg);
			break;
		case OPT_QUERY:
			if (!strcmp(optarg, "auto"))
				env.query = MEMCGSTAT_QUERY_AUTO;
			else if (!strcmp(optarg, "syscall"))
				env.query = MEMCGSTAT_QUERY_SYSCALL;
			else if (!strcmp(optarg, "iter"))
				env.query = MEMCGSTAT_QUERY_ITER;
			else
				return usage_err("--query: unknown query path '%s' (auto, syscall, iter)", optarg);
			break;
		case OPT_LIST:
			list = true;
			break;
		case 'H':
			env.human = true;
			break;
		case 'v':
			env.verbose = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case OPT_VERSION:
			printf("memcgstat %s\n", MEMCGSTAT_VERSION);
			return 0;
		default:
			fprintf(stderr, "%s", usage_text);
			return 2;
		}
	}
	/* conflicts, after every option is known */
	if (env.local && env.numa)
		return usage_err("--local and --numa cannot be combined");
	if (env.count > 1 && !have_interval)
		return usage_err("--count above 1 needs --interval");
	if (env.human && env.output != OUT_TABLE)
		return usage_err("-H applies to table output only");
	if (env.query && env.backend == MEMCGSTAT_BACKEND_TEXT)
		return usage_err("--query applies to the bpf backend only");
	if (env.output == OUT_OPENMETRICS && have_interval)
		return usage_err("openmetrics output is one exposition: no --interval");
	if (list) {
		for (i = 0; i < memcgstat_nr_known_stats(); i++)
			printf("%s\n", memcgstat_known_stat(i));
		return 0;
	}

	set_libbpf_print(env.verbose);
	if (stats_arg) {
		stats = split_stats(stats_arg, &nr_stats);
		if (!stats || !nr_stats)
			return usage_err("--stats: empty list");
	}
	opts.stats = (const char *const *)stats;
	opts.nr_stats = nr_stats;
	opts.backend = env.backend;
	opts.query = env.query;
	opts.flags = (env.local ? MEMCGSTAT_LOCAL : 0) | (env.numa ? MEMCGSTAT_NUMA : 0);
	err = memcgstat_open(&opts, &h);
	if (err) {
		p_err("%s%s", memcgstat_errmsg(h),
		      (env.backend == MEMCGSTAT_BACKEND_BPF || env.query) &&
		      memcgstat_backend(h) != MEMCGSTAT_BACKEND_BPF ?
		      "; use --backend text" : "");
		ret = err == -EINVAL || err == -ENOENT ? 2 : 1;
		goto out;
	}
	if (memcgstat_backend_reason(h))
		fprintf(stderr, "memcgstat: using the text backend: %s\n", memcgstat_backend_reason(h));
	if (env.verbose) {
		fprintf(stderr, "memcgstat: backend %s, cgroup v%d at %s, %zu columns\n",
			memcgstat_backend_name(memcgstat_backend(h)),
			memcgstat_cgroup_version(h), memcgstat_root(h),
			memcgstat_nr_columns(h));
		if (memcgstat_backend(h) == MEMCGSTAT_BACKEND_BPF) {
			fprintf(stderr, "memcgstat: query path %s%s%s\n",
				memcgstat_query_name(memcgstat_query(h)),
				memcgstat_query_reason(h) ? ": " : "",
				memcgstat_query_reason(h) ? memcgstat_query_reason(h) : "");
			fprintf(stderr, "memcgstat: kfuncs %s\n", memcgstat_kfuncs(h));
		}
	}
	if (env.sort) {
		for (i = 0; i < memcgstat_nr_columns(h); i++)
			if (!strcmp(memcgstat_column_name(h, i), env.sort))
				break;
		if (i == memcgstat_nr_columns(h)) {
			ret = usage_err("--sort: '%s' is not one of the chosen stats", env.sort);
			goto out;
		}
		sort_col = i;
	}

	nr_cgroups = optind < argc ? (size_t)(argc - optind) : 1;
	cgroups = optind < argc ? (const char **)&argv[optind] : root_arg;
	n = env.count > 0 ? env.count : have_interval ? -1 : 1;
	for (sample = 0; n < 0 || sample < n; sample++) {
		if (sample) {
			struct timespec ts;

			ts.tv_sec = (time_t)env.interval;
			ts.tv_nsec = (long)((env.interval - ts.tv_sec) * 1e9);
			nanosleep(&ts, NULL);
		}
		cur.res = calloc(nr_cgroups, sizeof(*cur.res));
		if (!cur.res) {
			p_err("out of memory");
			goto out;
		}
		cur.t = now(CLOCK_MONOTONIC);
		cur.wall = now(CLOCK_REALTIME);
		for (i = 0; i < nr_cgroups; i++) {
			err = env.recursive ?
			      memcgstat_snapshot(h, cgroups[i], NULL, 0, &cur.res[i]) :
			      memcgstat_read(h, cgroups[i], &cur.res[i]);
			cur.nr = i + 1;
			if (err) {
				p_err("%s", memcgstat_errmsg(h));
				free_sample(&cur);
				goto out;
			}
		}
		if (env.verbose && !sample && memcgstat_backend(h) == MEMCGSTAT_BACKEND_BPF)
			fprintf(stderr, "memcgstat: read with the %s path\n",
				env.recursive ? "iter" : memcgstat_query_name(memcgstat_last_query(h)));
		if (print_sample(h, &cur, sample ? &prev : NULL, !sample))
			goto out;
		free_sample(&prev);
		prev = cur;
		memset(&cur, 0, sizeof(cur));
	}
	ret = 0;
out:
	free_sample(&prev);
	memcgstat_close(h);
	free(stats);
	return ret;
}
