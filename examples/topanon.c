// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * topanon: every INTERVAL seconds, the cgroups whose anonymous memory grew
 * fastest, from one libmemcgstat snapshot of the tree per interval.
 *
 *   topanon [-i SECS] [-n SAMPLES] [-k TOP] [CGROUP]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <memcgstat.h>

struct growth {
	const char *path;
	uint64_t anon;
	double rate;	/* bytes per second */
};

static int by_rate(const void *a, const void *b)
{
	const struct growth *x = a, *y = b;

	return x->rate < y->rate ? 1 : x->rate > y->rate ? -1 : 0;
}

/* anon of cgroup @id in @res, or MEMCGSTAT_NA */
static uint64_t anon_of(const struct memcgstat_result *res, uint64_t id)
{
	size_t i;

	for (i = 0; res && i < memcgstat_result_count(res); i++)
		if (memcgstat_result_id(res, i) == id)
			return memcgstat_result_values(res, i)[0];
	return MEMCGSTAT_NA;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The @top fastest growers from @prev to @cur, @dt seconds apart. */
static int print_top(const struct memcgstat_result *prev,
		     const struct memcgstat_result *cur, double dt, long top)
{
	size_t i, n = memcgstat_result_count(cur);
	struct growth *g = calloc(n ? n : 1, sizeof(*g));

	if (!g)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		uint64_t anon = memcgstat_result_values(cur, i)[0];
		uint64_t then = anon_of(prev, memcgstat_result_id(cur, i));

		g[i].path = memcgstat_result_path(cur, i);
		g[i].anon = anon;
		g[i].rate = anon == MEMCGSTAT_NA || then == MEMCGSTAT_NA ? 0 :
			    ((double)anon - (double)then) / dt;
	}
	qsort(g, n, sizeof(*g), by_rate);
	printf("%-40s %14s %14s\n", "CGROUP", "ANON", "GROWTH/S");
	for (i = 0; i < n && i < (size_t)top; i++)
		printf("%-40s %14llu %14.0f\n", g[i].path,
		       (unsigned long long)g[i].anon, g[i].rate);
	fflush(stdout);
	free(g);
	return 0;
}

/*
 * A snapshot every @interval seconds; rates over the time measured between
 * the snapshots, not the interval asked for (a sleep and a read take
 * longer than the sleep). Two results, kept and read into in turn: once
 * they have held the tree, a sample allocates nothing for them.
 */
static int sample(struct memcgstat *h, const char *root, double interval,
		  long samples, long top)
{
	struct timespec ts = { (time_t)interval, (long)((interval - (time_t)interval) * 1e9) };
	struct memcgstat_result *prev = memcgstat_result_new(h), *cur = memcgstat_result_new(h), *tmp;
	double t_prev = 0, t;
	int err = prev && cur ? 0 : -ENOMEM;
	long s;

	if (err)
		fprintf(stderr, "topanon: out of memory\n");
	for (s = 0; !err && (samples < 0 || s < samples); s++) {
		if (s)
			nanosleep(&ts, NULL);
		t = now();
		err = memcgstat_snapshot_into(h, root, NULL, 0, cur);
		if (err) {
			fprintf(stderr, "topanon: %s\n", memcgstat_errmsg(h));
			break;
		}
		if (s)
			err = print_top(prev, cur, t - t_prev, top);
		tmp = prev;
		prev = cur;
		cur = tmp;
		t_prev = t;
	}
	memcgstat_result_free(prev);
	memcgstat_result_free(cur);
	return err;
}

int main(int argc, char **argv)
{
	static const char *const stats[] = { "anon" };
	struct memcgstat_opts opts = {
		.sz = sizeof(opts), .stats = stats, .nr_stats = 1,
	};
	const char *root = "/";
	double interval = 1;
	long samples = -1, top = 10;
	struct memcgstat *h;
	int opt, err;

	while ((opt = getopt(argc, argv, "i:n:k:")) != -1) {
		switch (opt) {
		case 'i':
			interval = strtod(optarg, NULL);
			break;
		case 'n':
			samples = strtol(optarg, NULL, 10);
			break;
		case 'k':
			top = strtol(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr, "usage: topanon [-i SECS] [-n SAMPLES] [-k TOP] [CGROUP]\n");
			return 2;
		}
	}
	if (interval <= 0 || top < 1 || (samples != -1 && samples < 2)) {
		fprintf(stderr, "topanon: -i must be > 0, -k >= 1, -n >= 2\n");
		return 2;
	}
	if (optind < argc)
		root = argv[optind];

	err = memcgstat_open(&opts, &h);
	if (err) {
		fprintf(stderr, "topanon: %s\n", memcgstat_errmsg(h));
		memcgstat_close(h);
		return 1;
	}
	printf("backend %s\n", memcgstat_backend_name(memcgstat_backend(h)));
	err = sample(h, root, interval, samples, top);
	memcgstat_close(h);
	return err ? 1 : 0;
}
