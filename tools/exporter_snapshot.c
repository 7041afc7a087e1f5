// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * memcgstat-exporter's snapshots: reading and filtering them, installing
 * one as the current, and their exposition. Nothing here knows HTTP or
 * the textfile: the responses a snapshot carries are freed by the function
 * their owner gave with them (snap_add_response()), and the replies the
 * self-metrics count are the HTTP server's counts in struct exporter.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "escape.h"
#include "exporter_cadvisor.h"
#include "exporter_snapshot.h"

/* An array of @ex's nr_cgroups results (NULL: none) freed. */
static void results_free(const struct exporter *ex, struct memcgstat_result **res)
{
	size_t i;

	for (i = 0; res && i < ex->o.nr_cgroups; i++)
		memcgstat_result_free(res[i]);
	free(res);
}

int snaps_init(struct exporter *ex)
{
	int err;

	memset(&ex->snap, 0, sizeof(ex->snap));
	ex->spare = NULL;
	err = pthread_mutex_init(&ex->lock, NULL);
	if (err)
		return -err;
	err = pthread_mutex_init(&ex->read_lock, NULL);
	if (err) {
		pthread_mutex_destroy(&ex->lock);
		return -err;
	}
	return 0;
}

void snaps_fini(struct exporter *ex)
{
	snap_clear(ex, &ex->snap);
	results_free(ex, ex->spare);
	ex->spare = NULL;
	pthread_mutex_destroy(&ex->read_lock);
	pthread_mutex_destroy(&ex->lock);
}

void snap_add_response(struct snap *s, int k, void *resp, void (*free_resp)(void *resp))
{
	s->resp[k] = resp;
	s->free_resp = free_resp;
}

void snap_clear(const struct exporter *ex, struct snap *s)
{
	size_t i;
	int f;

	for (f = 0; f < NR_RESP; f++)
		if (s->resp[f])
			s->free_resp(s->resp[f]);
	results_free(ex, s->res);
	for (i = 0; i < s->nr_rows; i++)
		free(s->rows[i].own);
	free(s->rows);
	memset(s, 0, sizeof(*s));
}

static size_t rows_of(const struct exporter *ex, const struct snap *s)
{
	size_t n = 0, c;

	for (c = 0; c < ex->o.nr_cgroups; c++)
		n += memcgstat_result_count(s->res[c]);
	return n;
}

/* --max-depth (below each CGROUP), --include, --exclude: the rows to export. */
static int filter(const struct exporter *ex, struct snap *s)
{
	const struct exporter_opts *o = &ex->o;
	size_t n = rows_of(ex, s), c, i;
	struct render_row *r;

	s->rows = calloc(n ? n : 1, sizeof(*s->rows));
	if (!s->rows)
		return -ENOMEM;
	for (c = 0; c < o->nr_cgroups; c++) {
		const struct memcgstat_result *res = s->res[c];
		size_t nc = memcgstat_result_count(res);
		int base = nc ? path_depth(memcgstat_result_path(res, 0)) : 0;

		for (i = 0; i < nc; i++) {
			const char *path = memcgstat_result_path(res, i);
			bool keep;

			r = &s->rows[s->nr_rows];
			*r = (struct render_row){
				.id = memcgstat_result_id(res, i),
				.vals = memcgstat_result_values(res, i),
			};
			if (render_path(r, path))
				return -ENOMEM;
			/* the path as the label has it; a row filtered out is not counted */
			keep = row_filter_keeps(&o->c.filter, r->path, base);
			if (keep && !memcgstat_result_status(res, i)) {
				s->nr_rows++;
				continue;
			}
			s->nr_unreadable += keep;	/* unreadable: its own series only */
			free(r->own);
		}
	}
	return 0;
}

/* Count the read of @s, and give @s the counts. */
static void count_snap(struct exporter *ex, struct snap *s)
{
	pthread_mutex_lock(&ex->lock);
	ex->reads++;
	if (!s->ok)
		ex->read_errors++;
	ex->cgroup_failures += s->nr_failed;
	s->reads = ex->reads;
	s->read_errors = ex->read_errors;
	s->cgroup_failures = ex->cgroup_failures;
	pthread_mutex_unlock(&ex->lock);
}

/*
 * CGROUP @c's read failed: why, after the others' in s->err (escaped as the
 * log's line is: the body of the 500 reaches terminals too), and in the log.
 */
static void read_failed(const struct exporter *ex, struct snap *s, size_t c, const char *why)
{
	size_t len = strlen(s->err);
	char *arg = esc_dup(ex->o.cgroups[c]), *esc_why = esc_dup(why);

	s->nr_failed++;
	p_err("snapshot of %s failed: %s", ex->o.cgroups[c], why);
	snprintf(s->err + len, sizeof(s->err) - len, "%ssnapshot of %s failed: %s",
		 len ? "; " : "", arg ? arg : "?", esc_why ? esc_why : "out of memory");
	free(arg);
	free(esc_why);
}

void read_snap(struct exporter *ex, struct snap *s)
{
	size_t nr = ex->o.nr_cgroups, c;
	int err;

	memset(s, 0, sizeof(*s));
	s->valid = true;
	s->start = now(CLOCK_MONOTONIC);
	/* into the results of the snapshot before the current: their memory, their paths */
	pthread_mutex_lock(&ex->lock);
	s->res = ex->spare;
	ex->spare = NULL;
	pthread_mutex_unlock(&ex->lock);
	if (!s->res)
		s->res = calloc(nr, sizeof(*s->res));
	if (!s->res) {
		snprintf(s->err, sizeof(s->err), "out of memory");
		p_err("snapshot failed: out of memory");
		s->nr_failed = nr;
	}
	for (c = 0; s->res && c < nr; c++) {
		if (!s->res[c])
			s->res[c] = memcgstat_result_new(ex->h);
		if (!s->res[c]) {
			read_failed(ex, s, c, "out of memory");
			continue;
		}
		pthread_mutex_lock(&ex->read_lock);
		/* a failed read leaves the result empty, and usable */
		err = memcgstat_snapshot_into(ex->h, ex->o.cgroups[c], NULL, 0, s->res[c]);
		if (err)
			read_failed(ex, s, c, memcgstat_errmsg(ex->h));
		pthread_mutex_unlock(&ex->read_lock);
	}
	s->ok = s->nr_failed < nr;
	if (s->ok && filter(ex, s)) {
		s->ok = false;
		snprintf(s->err, sizeof(s->err), "out of memory");
		p_err("snapshot failed: out of memory");
	}
	s->duration = now(CLOCK_MONOTONIC) - s->start;
	count_snap(ex, s);
}

void install_snap(struct exporter *ex, struct snap *s)
{
	pthread_mutex_lock(&ex->lock);
	if (!ex->spare) {
		ex->spare = ex->snap.res;
		ex->snap.res = NULL;
	}
	snap_clear(ex, &ex->snap);
	ex->snap = *s;
	pthread_mutex_unlock(&ex->lock);
}

/*
 * The self-metrics of one sample without labels, a whole number each:
 * self_metrics() gives their values, in this order.
 */
static const struct self_count {
	const char *name;
	enum om_type type;
	const char *help;
} self_counts[] = {
	{ "memcgstat_exporter_cgroups_seen", OM_GAUGE, "cgroups in the snapshot" },
	{ "memcgstat_exporter_cgroups_exported", OM_GAUGE,
	  "cgroups exported after --max-depth, --include and --exclude" },
	{ "memcgstat_exporter_reads_total", OM_COUNTER,
	  "snapshot reads since the exporter started" },
	{ "memcgstat_exporter_read_errors_total", OM_COUNTER,
	  "snapshot reads that read nothing (each CGROUP failed) since the exporter started" },
	{ "memcgstat_exporter_cgroups_failed", OM_GAUGE,
	  "CGROUP arguments whose read failed in this snapshot: none of their cgroups exported" },
	{ "memcgstat_exporter_cgroups_unreadable", OM_GAUGE,
	  "cgroups below the CGROUPs whose files could not be read in this snapshot: their series left out" },
	{ "memcgstat_exporter_cgroup_read_failures_total", OM_COUNTER,
	  "reads of a CGROUP argument that failed, in every snapshot since the exporter started" },
};

/* The exporter's own health: families of their own, after the stats. */
static void self_metrics(FILE *f, enum om_dialect d, const struct exporter *ex, bool http,
			 const struct snap *s)
{
	const char *reason = memcgstat_backend_reason(ex->h);
	char version[16];
	const struct om_label backend[] = {
		{ "backend", memcgstat_backend_name(memcgstat_backend(ex->h)) },
		{ "cgroup_version", version },
		{ "reason", reason ? reason : "" },
	};
	const struct om_label build[] = { { "version", memcgstat_version() } };
	const struct om_label identity[] = { { "encoding", "identity" } };
	const struct om_label gzip[] = { { "encoding", "gzip" } };
	/* self_counts[]'s */
	const unsigned long long counts[] = {
		rows_of(ex, s), s->nr_rows, s->reads, s->read_errors, s->nr_failed,
		s->nr_unreadable, s->cgroup_failures,
	};
	size_t i;

	_Static_assert(ARRAY_SIZE(counts) == ARRAY_SIZE(self_counts), "a value per self_counts[]");
	snprintf(version, sizeof(version), "%d", memcgstat_cgroup_version(ex->h));
	om_family(f, d, "memcgstat_exporter_scrape_duration_seconds", OM_GAUGE, "seconds",
		  "time the snapshot behind this exposition took to read and filter");
	om_sample(f, "memcgstat_exporter_scrape_duration_seconds", NULL, 0, "%.6f", s->duration);
	for (i = 0; i < ARRAY_SIZE(self_counts); i++) {
		om_family(f, d, self_counts[i].name, self_counts[i].type, NULL, self_counts[i].help);
		om_sample(f, self_counts[i].name, NULL, 0, "%llu", counts[i]);
	}
	if (http) {	/* not in a textfile, even with --listen too */
		om_family(f, d, "memcgstat_exporter_replies_total", OM_COUNTER, NULL,
			  "GET /metrics answered with a 200 since the exporter started, by Content-Encoding (as of this body's rendering)");
		om_sample(f, "memcgstat_exporter_replies_total", identity, 1, "%llu",
			  __atomic_load_n(&ex->replies[0], __ATOMIC_RELAXED));
		om_sample(f, "memcgstat_exporter_replies_total", gzip, 1, "%llu",
			  __atomic_load_n(&ex->replies[1], __ATOMIC_RELAXED));
	}
	om_family(f, d, "memcgstat_exporter_backend_info", OM_INFO, NULL,
		  "the backend reading the counters, and why auto chose it");
	om_sample(f, "memcgstat_exporter_backend_info", backend, 3, "1");
	om_family(f, d, "memcgstat_exporter_build_info", OM_INFO, NULL, "the memcgstat version");
	om_sample(f, "memcgstat_exporter_build_info", build, 1, "1");
}

int snap_exposition(const struct exporter *ex, const struct snap *s, enum fmt f, bool http,
		    char **buf, size_t *len)
{
	enum om_dialect d = f == FMT_OPENMETRICS ? OM_OPENMETRICS : OM_PROMETHEUS;
	struct render_view v = { .h = ex->h, .rows = s->rows, .nr_rows = s->nr_rows,
				 .local = ex->o.local };
	FILE *out = open_memstream(buf, len);
	int failed;

	if (!out)
		return -ENOMEM;
	/* this thread's own stream: no lock per write */
	__fsetlocking(out, FSETLOCKING_BYCALLER);
	om_stats(out, d, &v);
	if (ex->o.cadvisor)
		cadvisor_families(out, d, &v);
	self_metrics(out, d, ex, http, s);
	om_end(out, d);
	failed = ferror(out);
	if (fclose(out) || failed) {
		free(*buf);
		return -ENOMEM;
	}
	return 0;
}
