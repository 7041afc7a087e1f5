// SPDX-License-Identifier: GPL-2.0
/*
 * test_lib ROOT_CGROUP: libmemcgstat's API on a tree: a filtered snapshot
 * returns exactly the chosen cgroups; the full snapshot holds each cgroup
 * once; values print as "path,id,v1,v2,..." (for comparing with the CLI).
 * Prints "#N lib/NAME:OK|FAIL"; with -p also the CSV of the full snapshot.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "memcgstat.h"

static int nr, failed;

static void result(const char *name, int ok, const char *why)
{
	printf("#%d lib/%s:%s\n", ++nr, name, ok ? "OK" : "FAIL");
	if (!ok && why)
		printf("  %s\n", why);
	failed += !ok;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Reads of @cgroup into one kept result give the rows of a fresh snapshot
 * (ids and paths: values move on a live tree), and a second read keeps the
 * rows' memory where the tree did not change.
 */
static void into_checks(struct memcgstat *h, const char *cgroup,
			const struct memcgstat_result *fresh)
{
	struct memcgstat_result *res = memcgstat_result_new(h);
	size_t i, n = memcgstat_result_count(fresh), same = 0, moved = 0;
	const char **paths = calloc(n ? n : 1, sizeof(*paths));
	char why[512] = "";
	int err = -ENOMEM;

	if (res && paths)
		err = memcgstat_snapshot_into(h, cgroup, NULL, 0, res);
	for (i = 0; !err && i < n && i < memcgstat_result_count(res); i++) {
		paths[i] = memcgstat_result_path(res, i);
		same += memcgstat_result_id(res, i) == memcgstat_result_id(fresh, i) &&
			!strcmp(paths[i], memcgstat_result_path(fresh, i));
	}
	snprintf(why, sizeof(why), "err %d (%s), %zu of %zu rows as a fresh snapshot's", err,
		 err ? memcgstat_errmsg(h) : "", same, n);
	result("snapshot_into_rows", !err && same == n && memcgstat_result_count(res) == n, why);
	if (!err)
		err = memcgstat_snapshot_into(h, cgroup, NULL, 0, res);
	for (i = 0; !err && i < n && i < memcgstat_result_count(res); i++)
		moved += memcgstat_result_path(res, i) != paths[i];
	snprintf(why, sizeof(why), "err %d (%s), %zu of %zu paths in new memory", err,
		 err ? memcgstat_errmsg(h) : "", moved, n);
	result("snapshot_into_keeps_rows", !err && !moved && memcgstat_result_count(res) == n, why);
	free(paths);
	memcgstat_result_free(res);
}

/*
 * memcgstat_bpf_unavailable() on a text handle opened by choice says what
 * auto's fallback says (memcgstat_backend_reason(), the same probe): on a
 * kernel without the kfuncs why, where bpf runs NULL; the same again, the
 * handle's message left alone; NULL for no handle.
 */
static void bpf_unavailable_checks(void)
{
	static const char *const one[] = { "anon" };
	struct memcgstat_opts opts = {
		.sz = sizeof(opts), .backend = MEMCGSTAT_BACKEND_TEXT, .stats = one, .nr_stats = 1,
	};
	struct memcgstat *text = NULL, *autoh = NULL;
	const char *why = NULL, *reason = NULL;
	char msg[2048];
	int err;

	err = memcgstat_open(&opts, &text);
	opts.backend = MEMCGSTAT_BACKEND_AUTO;
	if (!err)
		err = memcgstat_open(&opts, &autoh);
	if (!err) {
		why = memcgstat_bpf_unavailable(text);
		reason = memcgstat_backend_reason(autoh);
	}
	snprintf(msg, sizeof(msg), "err %d; text: %s; auto (%s): %s; errmsg '%s'", err,
		 why ? why : "(null)", autoh ? memcgstat_backend_name(memcgstat_backend(autoh)) : "-",
		 reason ? reason : "(null)", text ? memcgstat_errmsg(text) : "-");
	result("bpf_unavailable_as_auto_says",
	       !err && (why && reason ? !strcmp(why, reason) : !why && !reason) &&
	       memcgstat_bpf_unavailable(text) == why && !strcmp(memcgstat_errmsg(text), "no error") &&
	       !memcgstat_bpf_unavailable(NULL) &&
	       (memcgstat_backend(autoh) != MEMCGSTAT_BACKEND_BPF || !memcgstat_bpf_unavailable(autoh)),
	       msg);
	memcgstat_close(text);
	memcgstat_close(autoh);
}

/*
 * The API's contracts that need no tree: NULL results, the strict opts.sz,
 * columns by name, kind and unit, the version. On the text backend, so
 * that it runs on any host (make test's host suite lib-api).
 */
static int api_checks(void)
{
	static const char *const stats[] = { "anon", "pgfault" };
	struct {
		struct memcgstat_opts o;
		char later[8];		/* fields of a later library */
	} big = { .o = { .sz = sizeof(big), .backend = MEMCGSTAT_BACKEND_TEXT } };
	struct memcgstat_opts opts = {
		.sz = sizeof(opts), .backend = MEMCGSTAT_BACKEND_TEXT,
		.stats = stats, .nr_stats = 2,
	};
	struct memcgstat *h = NULL;
	int err;

	result("null_result_accessors",
	       memcgstat_result_count(NULL) == 0 && !memcgstat_result_path(NULL, 0) &&
	       memcgstat_result_id(NULL, 0) == 0 && !memcgstat_result_values(NULL, 0) &&
	       memcgstat_result_status(NULL, 0) == -EINVAL, "");
	memcgstat_result_free(NULL);

	big.later[3] = 1;
	err = memcgstat_open(&big.o, &h);
	result("opts_unknown_tail_refused",
	       err == -EINVAL && strstr(memcgstat_errmsg(h), "does not know"), memcgstat_errmsg(h));
	memcgstat_close(h);
	big.later[3] = 0;
	err = memcgstat_open(&big.o, &h);
	result("opts_zero_tail_accepted", !err, memcgstat_errmsg(h));
	memcgstat_close(h);

	err = memcgstat_open(&opts, &h);
	result("column_index",
	       !err && memcgstat_column_index(h, "anon", -1) == 0 &&
	       memcgstat_column_index(h, "pgfault", -1) == 1 &&
	       memcgstat_column_index(h, "file", -1) == -ENOENT &&
	       memcgstat_column_index(h, "anon", 0) == -ENOENT &&
	       memcgstat_column_index(h, NULL, -1) == -ENOENT, memcgstat_errmsg(h));
	result("column_kind_unit",
	       !err && memcgstat_column_kind(h, 0) == MEMCGSTAT_KIND_GAUGE &&
	       !strcmp(memcgstat_column_unit(h, 0), "bytes") &&
	       memcgstat_column_kind(h, 1) == MEMCGSTAT_KIND_COUNTER &&
	       !memcgstat_column_unit(h, 1) &&
	       memcgstat_column_kind(h, 2) == MEMCGSTAT_KIND_UNKNOWN &&
	       memcgstat_stat_kind("workingset_refault_file") == MEMCGSTAT_KIND_COUNTER &&
	       memcgstat_stat_kind("no_such_stat") == MEMCGSTAT_KIND_UNKNOWN &&
	       !memcgstat_stat_unit("no_such_stat"), "");
	if (!err) {
		/* a result of other columns is refused, and the result stays usable */
		struct memcgstat_opts all = { .sz = sizeof(all), .backend = MEMCGSTAT_BACKEND_TEXT };
		struct memcgstat_result *res = memcgstat_result_new(h);
		struct memcgstat *h2 = NULL;

		err = memcgstat_open(&all, &h2);
		if (!err)
			err = memcgstat_read_into(h2, "/", res);
		result("into_other_columns_refused",
		       err == -EINVAL && strstr(memcgstat_errmsg(h2), "another handle") &&
		       !memcgstat_read_into(h, "/", res) && memcgstat_result_count(res) == 1,
		       memcgstat_errmsg(h2));
		memcgstat_result_free(res);
		memcgstat_close(h2);
		err = 0;
	}
	memcgstat_close(h);
	bpf_unavailable_checks();
	result("version", !strcmp(memcgstat_version(), MEMCGSTAT_VERSION), memcgstat_version());
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *backend = getenv("MEMCGSTAT_BACKEND");
	struct memcgstat_opts opts = { .sz = sizeof(opts) };
	struct memcgstat_result *all = NULL, *some = NULL;
	struct memcgstat *h = NULL;
	uint64_t ids[2], *seen;
	int print = argc > 2 && !strcmp(argv[2], "-p");
	size_t i, j, n;
	char why[512];
	int err;

	if (argc < 2) {
		fprintf(stderr, "usage: test_lib ROOT_CGROUP [-p] | test_lib --api\n");
		return 2;
	}
	if (!strcmp(argv[1], "--api"))
		return api_checks();
	if (backend && !strcmp(backend, "bpf"))
		opts.backend = MEMCGSTAT_BACKEND_BPF;
	else if (backend && !strcmp(backend, "text"))
		opts.backend = MEMCGSTAT_BACKEND_TEXT;
	err = memcgstat_open(&opts, &h);
	if (err) {
		fprintf(stderr, "memcgstat_open: %s\n", memcgstat_errmsg(h));
		memcgstat_close(h);
		return 1;
	}
	err = memcgstat_snapshot(h, argv[1], NULL, 0, &all);
	snprintf(why, sizeof(why), "%s", err ? memcgstat_errmsg(h) : "");
	result("snapshot", !err, why);
	if (err)
		goto out;
	n = memcgstat_result_count(all);
	seen = calloc(n, sizeof(*seen));
	for (i = 0; seen && i < n; i++)
		seen[i] = memcgstat_result_id(all, i);
	qsort(seen, n, sizeof(*seen), cmp_u64);
	for (i = j = 1; seen && i < n; i++)
		j += seen[i] != seen[i - 1];
	snprintf(why, sizeof(why), "%zu cgroups, %zu distinct ids", n, j);
	result("snapshot_each_cgroup_once", seen && n >= 3 && j == n, why);
	free(seen);

	/* filter: the last and the second cgroup of the walk */
	if (n >= 3) {
		ids[0] = memcgstat_result_id(all, n - 1);
		ids[1] = memcgstat_result_id(all, 1);
		err = memcgstat_snapshot(h, argv[1], ids, 2, &some);
		snprintf(why, sizeof(why), "err %d (%s), %zu cgroups", err,
			 err ? memcgstat_errmsg(h) : "", memcgstat_result_count(some));
		result("filtered_snapshot_exact",
		       !err && memcgstat_result_count(some) == 2 &&
		       ((memcgstat_result_id(some, 0) == ids[0] &&
			 memcgstat_result_id(some, 1) == ids[1]) ||
			(memcgstat_result_id(some, 0) == ids[1] &&
			 memcgstat_result_id(some, 1) == ids[0])), why);
	}
	into_checks(h, argv[1], all);
	if (print) {
		for (i = 0; i < n; i++) {
			const uint64_t *v = memcgstat_result_values(all, i);

			printf("%s,%llu", memcgstat_result_path(all, i),
			       (unsigned long long)memcgstat_result_id(all, i));
			for (j = 0; j < memcgstat_nr_columns(h); j++) {
				if (v[j] == MEMCGSTAT_NA)
					printf(",");
				else
					printf(",%llu", (unsigned long long)v[j]);
			}
			printf("\n");
		}
	}
out:
	memcgstat_result_free(all);
	memcgstat_result_free(some);
	memcgstat_close(h);
	return failed ? 1 : 0;
}
