// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * memcgstat-exporter's snapshots: reading and filtering them, installing
 * one as the current, and their exposition. Nothing here knows HTTP: the
 * responses a snapshot carries are freed through snap_free_response, which
 * exporter_http.c sets.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "escape.h"
#include "exporter.h"

struct state st = {
	.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER,
	.read_lock = PTHREAD_MUTEX_INITIALIZER,
};

void (*snap_free_response)(void *resp);

void results_free(struct memcgstat_result **res)
{
	size_t i;

	for (i = 0; res && i < env.nr_cgroups; i++)
		memcgstat_result_free(res[i]);
	free(res);
}

void snap_clear(struct snap *s)
{
	size_t i;
	int f;

	for (f = 0; f < NR_RESP; f++)
		if (s->resp[f] && snap_free_response)
			snap_free_response(s->resp[f]);
	results_free(s->res);
	for (i = 0; i < s->nr_rows; i++)
		free(s->rows[i].own);
	free(s->rows);
	memset(s, 0, sizeof(*s));
}

static int depth_of(const char *path)
{
	int d = 0;

	for (; *path; path++)
		d += *path == '/' && path[1];
	return d;
}

static bool matches_any(char *const *pats, size_t nr, const char *path)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!fnmatch(pats[i], path, 0))
			return true;
	return false;
}

static size_t rows_of(const struct snap *s)
{
	size_t n = 0, c;

	for (c = 0; c < env.nr_cgroups; c++)
		n += memcgstat_result_count(s->res[c]);
	return n;
}

/* --max-depth (below each CGROUP), --include, --exclude: the rows to export. */
static int filter(struct snap *s)
{
	size_t n = rows_of(s), c, i;

	s->rows = calloc(n ? n : 1, sizeof(*s->rows));
	if (!s->rows)
		return -ENOMEM;
	for (c = 0; c < env.nr_cgroups; c++) {
		const struct memcgstat_result *res = s->res[c];
		size_t nc = memcgstat_result_count(res);
		int base = nc ? depth_of(memcgstat_result_path(res, 0)) : 0;

		for (i = 0; i < nc; i++) {
			const char *path = memcgstat_result_path(res, i);

			if (memcgstat_result_status(res, i)) {
				s->nr_unreadable++;	/* its own series only */
				continue;
			}
			if (env.max_depth >= 0 && depth_of(path) - base > env.max_depth)
				continue;
			if (env.nr_include && !matches_any(env.include, env.nr_include, path))
				continue;
			if (matches_any(env.exclude, env.nr_exclude, path))
				continue;
			s->rows[s->nr_rows] = (struct render_row){
				.id = memcgstat_result_id(res, i),
				.vals = memcgstat_result_values(res, i),
			};
			if (render_path(&s->rows[s->nr_rows++], path))
				return -ENOMEM;
		}
	}
	return 0;
}

/* Count the read of @s, and give @s the counts. */
static void count_snap(struct snap *s)
{
	pthread_mutex_lock(&st.lock);
	st.reads++;
	if (!s->ok)
		st.read_errors++;
	st.cgroup_failures += s->nr_failed;
	s->reads = st.reads;
	s->read_errors = st.read_errors;
	s->cgroup_failures = st.cgroup_failures;
	pthread_mutex_unlock(&st.lock);
}

/*
 * CGROUP @c's read failed: why, after the others' in s->err (escaped as the
 * log's line is: the body of the 500 reaches terminals too), and in the log.
 */
static void read_failed(struct snap *s, size_t c, const char *why)
{
	size_t len = strlen(s->err);
	char *arg = esc_dup(env.cgroups[c]), *esc_why = esc_dup(why);

	s->nr_failed++;
	p_err("snapshot of %s failed: %s", env.cgroups[c], why);
	snprintf(s->err + len, sizeof(s->err) - len, "%ssnapshot of %s failed: %s",
		 len ? "; " : "", arg ? arg : "?", esc_why ? esc_why : "out of memory");
	free(arg);
	free(esc_why);
}

void read_snap(struct snap *s)
{
	size_t c;
	int err;

	memset(s, 0, sizeof(*s));
	s->valid = true;
	s->start = now(CLOCK_MONOTONIC);
	/* into the results of the snapshot before the current: their memory, their paths */
	pthread_mutex_lock(&st.lock);
	s->res = st.spare;
	st.spare = NULL;
	pthread_mutex_unlock(&st.lock);
	if (!s->res)
		s->res = calloc(env.nr_cgroups, sizeof(*s->res));
	if (!s->res) {
		snprintf(s->err, sizeof(s->err), "out of memory");
		p_err("snapshot failed: out of memory");
		s->nr_failed = env.nr_cgroups;
	}
	for (c = 0; s->res && c < env.nr_cgroups; c++) {
		if (!s->res[c])
			s->res[c] = memcgstat_result_new(st.h);
		if (!s->res[c]) {
			read_failed(s, c, "out of memory");
			continue;
		}
		pthread_mutex_lock(&st.read_lock);
		/* a failed read leaves the result empty, and usable */
		err = memcgstat_snapshot_into(st.h, env.cgroups[c], NULL, 0, s->res[c]);
		if (err)
			read_failed(s, c, memcgstat_errmsg(st.h));
		pthread_mutex_unlock(&st.read_lock);
	}
	s->ok = s->nr_failed < env.nr_cgroups;
	if (s->ok && filter(s)) {
		s->ok = false;
		snprintf(s->err, sizeof(s->err), "out of memory");
		p_err("snapshot failed: out of memory");
	}
	s->duration = now(CLOCK_MONOTONIC) - s->start;
	count_snap(s);
}

void install_snap(struct snap *s)
{
	pthread_mutex_lock(&st.lock);
	if (!st.spare) {
		st.spare = st.snap.res;
		st.snap.res = NULL;
	}
	snap_clear(&st.snap);
	st.snap = *s;
	pthread_mutex_unlock(&st.lock);
}

/* The exporter's own health: families of their own, after the stats. */
static void self_metrics(FILE *f, enum om_dialect d, const struct snap *s)
{
	const char *reason = memcgstat_backend_reason(st.h);
	char version[16];
	const struct om_label backend[] = {
		{ "backend", memcgstat_backend_name(memcgstat_backend(st.h)) },
		{ "cgroup_version", version },
		{ "reason", reason ? reason : "" },
	};
	const struct om_label build[] = { { "version", memcgstat_version() } };
	const struct om_label identity[] = { { "encoding", "identity" } };
	const struct om_label gzip[] = { { "encoding", "gzip" } };
	unsigned long long n_identity, n_gzip;

	snprintf(version, sizeof(version), "%d", memcgstat_cgroup_version(st.h));
	http_replies(&n_identity, &n_gzip);
	om_family(f, d, "memcgstat_exporter_scrape_duration_seconds", OM_GAUGE, "seconds",
		  "time the snapshot behind this exposition took to read and filter");
	om_sample(f, "memcgstat_exporter_scrape_duration_seconds", NULL, 0, "%.6f", s->duration);
	om_family(f, d, "memcgstat_exporter_cgroups_seen", OM_GAUGE, NULL,
		  "cgroups in the snapshot");
	om_sample(f, "memcgstat_exporter_cgroups_seen", NULL, 0, "%zu", rows_of(s));
	om_family(f, d, "memcgstat_exporter_cgroups_exported", OM_GAUGE, NULL,
		  "cgroups exported after --max-depth, --include and --exclude");
	om_sample(f, "memcgstat_exporter_cgroups_exported", NULL, 0, "%zu", s->nr_rows);
	om_family(f, d, "memcgstat_exporter_reads_total", OM_COUNTER, NULL,
		  "snapshot reads since the exporter started");
	om_sample(f, "memcgstat_exporter_reads_total", NULL, 0, "%llu", s->reads);
	om_family(f, d, "memcgstat_exporter_read_errors_total", OM_COUNTER, NULL,
		  "snapshot reads that read nothing (each CGROUP failed) since the exporter started");
	om_sample(f, "memcgstat_exporter_read_errors_total", NULL, 0, "%llu", s->read_errors);
	om_family(f, d, "memcgstat_exporter_cgroups_failed", OM_GAUGE, NULL,
		  "CGROUP arguments whose read failed in this snapshot: none of their cgroups exported");
	om_sample(f, "memcgstat_exporter_cgroups_failed", NULL, 0, "%zu", s->nr_failed);
	om_family(f, d, "memcgstat_exporter_cgroups_unreadable", OM_GAUGE, NULL,
		  "cgroups below the CGROUPs whose files could not be read in this snapshot: their series left out");
	om_sample(f, "memcgstat_exporter_cgroups_unreadable", NULL, 0, "%zu", s->nr_unreadable);
	om_family(f, d, "memcgstat_exporter_cgroup_read_failures_total", OM_COUNTER, NULL,
		  "reads of a CGROUP argument that failed, in every snapshot since the exporter started");
	om_sample(f, "memcgstat_exporter_cgroup_read_failures_total", NULL, 0, "%llu",
		  s->cgroup_failures);
	if (env.listen) {	/* not in a textfile of --textfile alone */
		om_family(f, d, "memcgstat_exporter_replies_total", OM_COUNTER, NULL,
			  "GET /metrics answered with a 200 since the exporter started, by Content-Encoding (as of this body's rendering)");
		om_sample(f, "memcgstat_exporter_replies_total", identity, 1, "%llu", n_identity);
		om_sample(f, "memcgstat_exporter_replies_total", gzip, 1, "%llu", n_gzip);
	}
	om_family(f, d, "memcgstat_exporter_backend_info", OM_INFO, NULL,
		  "the backend reading the counters, and why auto chose it");
	om_sample(f, "memcgstat_exporter_backend_info", backend, 3, "1");
	om_family(f, d, "memcgstat_exporter_build_info", OM_INFO, NULL, "the memcgstat version");
	om_sample(f, "memcgstat_exporter_build_info", build, 1, "1");
}

int snap_exposition(const struct snap *s, enum fmt f, char **buf, size_t *len)
{
	enum om_dialect d = f == FMT_OPENMETRICS ? OM_OPENMETRICS : OM_PROMETHEUS;
	struct render_view v = { .h = st.h, .rows = s->rows, .nr_rows = s->nr_rows,
				 .local = env.local };
	FILE *out = open_memstream(buf, len);
	int failed;

	if (!out)
		return -ENOMEM;
	/* this thread's own stream: no lock per write */
	__fsetlocking(out, FSETLOCKING_BYCALLER);
	om_stats(out, d, &v);
	self_metrics(out, d, s);
	om_end(out, d);
	failed = ferror(out);
	if (fclose(out) || failed) {
		free(*buf);
		return -ENOMEM;
	}
	return 0;
}
