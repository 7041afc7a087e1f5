// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The CLI's samples: read_sample() reads every CGROUP argument,
 * sample_rows() makes the rows the renderers print, and report_args() /
 * report_rows() say which cgroups could not be read (see sample.h).
 */
#define _GNU_SOURCE	/* asprintf() */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common.h"
#include "escape.h"
#include "sample.h"

void free_sample(struct sample *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++) {
		memcgstat_result_free(s->res[i]);
		free(s->msg[i]);
	}
	free(s->res);
	free(s->err);
	free(s->msg);
	id_index_free(&s->ix);
	memset(s, 0, sizeof(*s));
}

int read_sample(struct memcgstat *h, const char *const *cgroups, size_t nr,
		bool recursive, bool first, struct sample *s)
{
	size_t i;
	int err;

	if (!s->res) {
		s->res = calloc(nr, sizeof(*s->res));
		s->err = calloc(nr, sizeof(*s->err));
		s->msg = calloc(nr, sizeof(*s->msg));
		for (i = 0; s->res && s->err && s->msg && i < nr; i++)
			if (!(s->res[s->nr++] = memcgstat_result_new(h)))
				break;
		if (!s->res || !s->err || !s->msg || i < nr) {
			p_err("out of memory");
			free_sample(s);
			return 1;
		}
	}
	s->t = now(CLOCK_MONOTONIC);
	s->wall = now(CLOCK_REALTIME);
	for (i = 0; i < nr; i++) {
		err = recursive ? memcgstat_snapshot_into(h, cgroups[i], NULL, 0, s->res[i]) :
				  memcgstat_read_into(h, cgroups[i], s->res[i]);
		free(s->msg[i]);
		s->msg[i] = NULL;
		s->err[i] = err;
		/* the first sample's: bad usage; later, a path that left the hierarchy */
		if (err == -EINVAL && first) {
			p_err("%s", memcgstat_errmsg(h));
			free_sample(s);
			return 2;
		}
		if (err && !(s->msg[i] = strdup(memcgstat_errmsg(h)))) {
			p_err("out of memory");
			free_sample(s);
			return 1;
		}
	}
	return 0;
}

/*
 * The ids of the rows so far, for overlapping or repeated CGROUP arguments:
 * an open-addressing set of @cap (a power of two, twice the rows at most)
 * slots; 0 is no cgroup's id.
 */
static bool seen_before(uint64_t *set, size_t cap, uint64_t id)
{
	size_t i = (id * 0x9e3779b97f4a7c15ULL) & (cap - 1);

	for (; set[i]; i = (i + 1) & (cap - 1))
		if (set[i] == id)
			return true;
	set[i] = id;
	return false;
}

void sample_rows_free(struct render_row *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(rows[i].own);
	free(rows);
}

struct render_row *sample_rows(struct sample *s, const struct sample *prev,
			       bool index, const struct row_filter *filter, size_t *nr)
{
	struct render_row *rows, *r;
	size_t n = 0, a, i, cap = 16;
	uint64_t *set;

	for (a = 0; a < s->nr; a++)
		n += memcgstat_result_count(s->res[a]);
	rows = calloc(n ? n : 1, sizeof(*rows));
	/* overlapping or repeated CGROUP arguments: each cgroup once */
	while (s->nr > 1 && cap < 2 * n)
		cap *= 2;
	set = s->nr > 1 ? calloc(cap, sizeof(*set)) : NULL;
	if (!rows || (s->nr > 1 && !set) || (index && id_index_set(&s->ix, s->res, s->nr))) {
		free(rows);
		free(set);
		return NULL;
	}
	for (r = rows, a = 0; a < s->nr; a++) {
		size_t nc = memcgstat_result_count(s->res[a]);
		int base = nc ? path_depth(memcgstat_result_path(s->res[a], 0)) : 0;

		for (i = 0; i < nc; i++) {
			const char *path = memcgstat_result_path(s->res[a], i);

			if (render_path(r, path)) {
				sample_rows_free(rows, r - rows);
				free(set);
				return NULL;
			}
			/* the GLOBs match the path as printed (man page) */
			r->id = memcgstat_result_id(s->res[a], i);
			if (!row_filter_keeps(filter, r->path, base) ||
			    (set && seen_before(set, cap, r->id))) {
				free(r->own);
				continue;
			}
			r->vals = memcgstat_result_values(s->res[a], i);
			r->prev = prev ? id_index_find(&prev->ix, r->id) : NULL;
			r++;
		}
	}
	free(set);
	*nr = r - rows;
	return rows;
}

void free_errors(struct sample_errors *e)
{
	size_t i;

	for (i = 0; i < e->nr; i++) {
		free((char *)e->v[i].cgroup);
		free((char *)e->v[i].error);
	}
	free(e->v);
	memset(e, 0, sizeof(*e));
}

/* {@cgroup, @msg} into @e, which takes both. 0, or -ENOMEM (both freed). */
static int add_error(struct sample_errors *e, char *cgroup, char *msg)
{
	struct render_error *v = NULL;
	char *raw = msg;

	/* a message as stderr has it: escaped whole, as p_err() does */
	msg = raw ? esc_dup(raw) : NULL;
	free(raw);
	if (cgroup && msg)
		v = realloc(e->v, (e->nr + 1) * sizeof(*v));
	if (!v) {
		free(cgroup);
		free(msg);
		return -ENOMEM;
	}
	e->v = v;
	v[e->nr].cgroup = cgroup;
	v[e->nr++].error = msg;
	return 0;
}

int report_init(struct report *rep, const char *const *cgroups, size_t nr,
		bool verbose, bool json)
{
	memset(rep, 0, sizeof(*rep));
	rep->cgroups = cgroups;
	rep->verbose = verbose;
	rep->json = json;
	rep->said = calloc(nr, sizeof(*rep->said));
	return rep->said ? 0 : -ENOMEM;
}

void report_free(struct report *rep)
{
	free(rep->said);
	free(rep->ids);
	rep->said = NULL;
	rep->ids = NULL;
	rep->nr_ids = 0;
}

int report_args(struct report *rep, const struct sample *s, struct sample_errors *e)
{
	size_t a;

	for (a = 0; a < s->nr; a++) {
		if (!s->err[a]) {
			if (rep->said[a] && rep->verbose)
				p_info("cgroup %s: read again", rep->cgroups[a]);
			rep->said[a] = 0;
			continue;
		}
		rep->failed = true;
		if (rep->said[a] != s->err[a])
			p_info("%s", s->msg[a]);
		rep->said[a] = s->err[a];
		if (rep->json && add_error(e, esc_dup(rep->cgroups[a]), strdup(s->msg[a])))
			return -ENOMEM;
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int report_rows(struct report *rep, const struct sample *s, const struct row_filter *filter,
		struct sample_errors *e)
{
	struct bad_row *bad = NULL, *nb;
	size_t nr = 0, a, i, cap = 0;
	struct render_row r;
	int ret;

	for (a = 0; a < s->nr; a++) {
		size_t nc = memcgstat_result_count(s->res[a]);
		int base = nc ? path_depth(memcgstat_result_path(s->res[a], 0)) : 0;

		for (i = 0; i < nc; i++) {
			const char *path = memcgstat_result_path(s->res[a], i);
			bool keep;

			if (!memcgstat_result_status(s->res[a], i))
				continue;
			if (render_path(&r, path))
				goto oom;
			keep = row_filter_keeps(filter, r.path, base);	/* as printed */
			free(r.own);
			if (!keep)
				continue;
			if (nr == cap) {
				cap = cap ? 2 * cap : 8;
				nb = realloc(bad, cap * sizeof(*bad));
				if (!nb)
					goto oom;
				bad = nb;
			}
			bad[nr].id = memcgstat_result_id(s->res[a], i);
			bad[nr].path = path;
			bad[nr++].status = memcgstat_result_status(s->res[a], i);
		}
	}
	ret = report_bad(rep, bad, nr, e);
	free(bad);
	return ret;
oom:
	free(bad);
	return -ENOMEM;
}

int report_bad(struct report *rep, struct bad_row *bad, size_t nr, struct sample_errors *e)
{
	size_t i, k;
	uint64_t *ids;
	char *path, *msg;

	if (!nr) {
		rep->nr_ids = 0;
		return 0;
	}
	ids = malloc(nr * sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	qsort(bad, nr, sizeof(*bad), cmp_u64);
	for (i = k = 0; i < nr; i++) {
		if (k && ids[k - 1] == bad[i].id)
			continue;
		ids[k++] = bad[i].id;
		rep->failed = true;
		/* the message raw, escaped once where it is printed, as the path */
		path = esc_dup(bad[i].path);
		msg = NULL;
		if (!path || asprintf(&msg, "cannot read cgroup %s: %s", bad[i].path,
				      strerror(-bad[i].status)) < 0) {
			free(path);
			free(ids);
			return -ENOMEM;
		}
		if (!rep->nr_ids ||
		    !bsearch(&bad[i].id, rep->ids, rep->nr_ids, sizeof(*rep->ids), cmp_u64))
			p_info("%s", msg);
		if (!rep->json) {
			free(path);
			free(msg);
		} else if (add_error(e, path, msg)) {
			free(ids);
			return -ENOMEM;
		}
	}
	free(rep->ids);
	rep->ids = ids;
	rep->nr_ids = k;
	return 0;
}
