// SPDX-License-Identifier: GPL-2.0
/*
 * bench_read CGROUP [ITERATIONS [ROUNDS]]: time per memcgstat_read() of one
 * cgroup, all default stats, on the text backend (open/read/parse of
 * memory.stat, memory.events, memory.current) and on the bpf backend
 * (cgroup_iter query, no text), interleaved round by round. Prints the
 * median per-read time of each and their ratio.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "memcgstat.h"

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_d);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int open_backend(enum memcgstat_backend b, struct memcgstat **h)
{
	struct memcgstat_opts opts = { .sz = sizeof(opts), .backend = b };

	if (memcgstat_open(&opts, h)) {
		fprintf(stderr, "%s backend: %s\n", memcgstat_backend_name(b),
			memcgstat_errmsg(*h));
		return -1;
	}
	return 0;
}

static double run(struct memcgstat *h, const char *cg, int iters)
{
	struct memcgstat_result *res;
	double t0 = now_us();
	int i;

	for (i = 0; i < iters; i++) {
		if (memcgstat_read(h, cg, &res)) {
			fprintf(stderr, "read: %s\n", memcgstat_errmsg(h));
			exit(1);
		}
		memcgstat_result_free(res);
	}
	return (now_us() - t0) / iters;
}

int main(int argc, char **argv)
{
	struct memcgstat *text = NULL, *bpf = NULL;
	int iters = argc > 2 ? atoi(argv[2]) : 1000;
	int rounds = argc > 3 ? atoi(argv[3]) : 7, r;
	double t[64], b[64], ratio[64], mt, mb, mr;

	if (argc < 2 || iters < 1 || rounds < 1 || rounds > 64) {
		fprintf(stderr, "usage: bench_read CGROUP [ITERATIONS [ROUNDS<=64]]\n");
		return 2;
	}
	if (open_backend(MEMCGSTAT_BACKEND_TEXT, &text) ||
	    open_backend(MEMCGSTAT_BACKEND_BPF, &bpf))
		return 1;
	run(text, argv[1], iters / 10 + 1);	/* warm up */
	run(bpf, argv[1], iters / 10 + 1);
	for (r = 0; r < rounds; r++) {
		t[r] = run(text, argv[1], iters);
		b[r] = run(bpf, argv[1], iters);
		ratio[r] = t[r] / b[r];
	}
	mt = median(t, rounds);
	mb = median(b, rounds);
	mr = median(ratio, rounds);	/* sorts ratio: [0] is the min */
	printf("%zu stats, %d rounds x %d reads, median per read:\n",
	       memcgstat_nr_columns(bpf), rounds, iters);
	printf("  text (memory.stat + memory.events + memory.current): %8.1f us\n", mt);
	printf("  bpf  (cgroup_iter query through the kfuncs):         %8.1f us\n", mb);
	printf("  ratio text/bpf: median %.2f (min %.2f, max %.2f)\n",
	       mr, ratio[0], ratio[rounds - 1]);
	memcgstat_close(text);
	memcgstat_close(bpf);
	return 0;
}
