// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The output formats of memcgstat and memcgstat-exporter but the table
 * (render_table.c), and what they share: paths, rates, -H sizes.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "escape.h"
#include "json_writer.h"
#include "render.h"

/* With --numa a stat has one column per node, next to each other. */
static bool first_of_stat(const struct memcgstat *h, size_t c)
{
	return c == 0 || strcmp(memcgstat_column_name(h, c - 1),
				memcgstat_column_name(h, c));
}

static bool last_of_stat(const struct memcgstat *h, size_t c)
{
	return c + 1 == memcgstat_nr_columns(h) || first_of_stat(h, c + 1);
}

static bool column_is_counter(const struct memcgstat *h, size_t c)
{
	return memcgstat_column_kind(h, c) == MEMCGSTAT_KIND_COUNTER;
}

bool render_rate(const struct render_view *v, const struct render_row *r, size_t c,
		 double *rate)
{
	if (!(v->dt > 0) || !r->prev || r->prev[c] == MEMCGSTAT_NA ||
	    r->vals[c] == MEMCGSTAT_NA || r->vals[c] < r->prev[c])
		return false;
	*rate = (double)(r->vals[c] - r->prev[c]) / v->dt;
	return true;
}

static int cmp_id_vals(const void *a, const void *b)
{
	const struct id_vals *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

int id_index_set(struct id_index *ix, struct memcgstat_result *const *res, size_t nr_res)
{
	size_t n = 0, a, i;

	ix->nr = 0;
	for (a = 0; a < nr_res; a++)
		n += memcgstat_result_count(res[a]);
	if (grow_array(&ix->v, &ix->cap, n, sizeof(*ix->v)))
		return -ENOMEM;
	for (a = 0; a < nr_res; a++)
		for (i = 0; i < memcgstat_result_count(res[a]); i++, ix->nr++) {
			ix->v[ix->nr].id = memcgstat_result_id(res[a], i);
			ix->v[ix->nr].vals = memcgstat_result_values(res[a], i);
		}
	if (ix->nr)
		qsort(ix->v, ix->nr, sizeof(*ix->v), cmp_id_vals);
	return 0;
}

const uint64_t *id_index_find(const struct id_index *ix, uint64_t id)
{
	struct id_vals key = { .id = id };
	const struct id_vals *hit;

	if (!ix->nr)
		return NULL;
	hit = bsearch(&key, ix->v, ix->nr, sizeof(key), cmp_id_vals);
	return hit ? hit->vals : NULL;
}

void id_index_free(struct id_index *ix)
{
	free(ix->v);
	ix->v = NULL;
	ix->nr = ix->cap = 0;
}

int render_path(struct render_row *r, const char *path)
{
	r->path = path;
	r->own = NULL;
	if (!esc_needed(path))
		return 0;
	r->own = esc_dup(path);
	if (!r->own)
		return -ENOMEM;
	r->path = r->own;
	return 0;
}

static void col_label(const struct memcgstat *h, size_t c, char *buf, size_t size)
{
	int nid = memcgstat_column_node(h, c);

	if (nid >= 0)
		snprintf(buf, size, "%s:N%d", memcgstat_column_name(h, c), nid);
	else
		snprintf(buf, size, "%s", memcgstat_column_name(h, c));
}

/* A counter's rate column: "pgfault_per_s", "workingset_refault_anon_per_s:N0". */
static const char *rate_label(const struct memcgstat *h, size_t c, char *buf, size_t size)
{
	int nid = memcgstat_column_node(h, c);

	if (nid >= 0)
		snprintf(buf, size, "%s_per_s:N%d", memcgstat_column_name(h, c), nid);
	else
		snprintf(buf, size, "%s_per_s", memcgstat_column_name(h, c));
	return buf;
}

/*
 * @v in the largest unit it rounds to at least 1 of: one decimal in K and
 * up, none in bytes. The unit is chosen by the value as printed, so that
 * 1073737728 (1023.996 MiB) is 1.0G, never 1024.0M.
 */
void render_human(double v, char *buf, size_t size)
{
	static const char units[] = "BKMGTPE";
	int u = 0;

	/* the rounding printf does: to a whole byte, to a tenth of a unit */
	while (u < 6 && fabs(u ? round(v * 10) / 10 : round(v)) >= 1024) {
		v /= 1024;
		u++;
	}
	if (u)
		snprintf(buf, size, "%.1f%c", v, units[u]);
	else
		snprintf(buf, size, "%.0f", v);
}

/*
 * Each stat's total, or with --numa an object of its nodes' totals; with
 * @rates, the counters' rates per second instead (null where there is
 * none), under the same names.
 */
static void json_stats(struct json_writer *jw, const struct render_view *v,
		       const struct render_row *r, bool rates)
{
	size_t nc = memcgstat_nr_columns(v->h), c;
	char node[16];
	double x;

	jsonw_start_object(jw);
	for (c = 0; c < nc; c++) {
		int nid = memcgstat_column_node(v->h, c);

		if (rates && !column_is_counter(v->h, c))
			continue;
		if (first_of_stat(v->h, c)) {
			jsonw_name(jw, memcgstat_column_name(v->h, c));
			if (nid >= 0)
				jsonw_start_object(jw);
		}
		if (nid >= 0) {
			snprintf(node, sizeof(node), "N%d", nid);
			jsonw_name(jw, node);
		}
		if (rates && render_rate(v, r, c, &x))
			jsonw_float(jw, x, 3);
		else if (rates || r->vals[c] == MEMCGSTAT_NA || r->vals[c] == MEMCGSTAT_MAX)
			jsonw_null(jw);	/* no value, or no limit: see "unlimited" */
		else
			jsonw_uint(jw, r->vals[c]);
		if (nid >= 0 && last_of_stat(v->h, c))
			jsonw_end_object(jw);
	}
	jsonw_end_object(jw);
}

/* The stats of @r with no limit (MEMCGSTAT_MAX), each named once. */
static void json_unlimited(struct json_writer *jw, const struct render_view *v,
			   const struct render_row *r)
{
	size_t nc = memcgstat_nr_columns(v->h), c;
	const char *last = NULL, *name;

	jsonw_start_array(jw);
	for (c = 0; c < nc; c++) {
		name = memcgstat_column_name(v->h, c);
		if (r->vals[c] != MEMCGSTAT_MAX || (last && !strcmp(last, name)))
			continue;
		jsonw_string(jw, name);
		last = name;
	}
	jsonw_end_array(jw);
}

/* A member of the object open: "@name":"@s". */
static void json_string_member(struct json_writer *jw, const char *name, const char *s)
{
	jsonw_name(jw, name);
	jsonw_string(jw, s);
}

/*
 * One line per sample; "errors", a list of {"cgroup", "error"}, after
 * "cgroups" when some cgroup could not be read.
 */
void render_json(FILE *f, const struct render_view *v)
{
	struct json_writer jw;
	size_t i;

	jsonw_init(&jw, f);
	jsonw_start_object(&jw);
	json_string_member(&jw, "backend", memcgstat_backend_name(memcgstat_backend(v->h)));
	jsonw_name(&jw, "cgroup_version");
	jsonw_int(&jw, memcgstat_cgroup_version(v->h));
	jsonw_name(&jw, "time");
	jsonw_float(&jw, v->time, 6);
	jsonw_name(&jw, "interval");
	if (v->dt > 0)
		jsonw_float(&jw, v->dt, 6);
	else
		jsonw_null(&jw);
	jsonw_name(&jw, "cgroups");
	jsonw_start_array(&jw);
	for (i = 0; i < v->nr_rows; i++) {
		jsonw_start_object(&jw);
		json_string_member(&jw, "path", v->rows[i].path);
		jsonw_name(&jw, "id");
		jsonw_uint(&jw, v->rows[i].id);
		jsonw_name(&jw, "stats");
		json_stats(&jw, v, &v->rows[i], false);
		if (v->rates) {
			jsonw_name(&jw, "rates");
			json_stats(&jw, v, &v->rows[i], true);
		}
		jsonw_name(&jw, "unlimited");
		json_unlimited(&jw, v, &v->rows[i]);
		jsonw_end_object(&jw);
	}
	jsonw_end_array(&jw);
	if (v->nr_errors) {
		jsonw_name(&jw, "errors");
		jsonw_start_array(&jw);
		for (i = 0; i < v->nr_errors; i++) {
			jsonw_start_object(&jw);
			json_string_member(&jw, "cgroup", v->errors[i].cgroup);
			json_string_member(&jw, "error", v->errors[i].error);
			jsonw_end_object(&jw);
		}
		jsonw_end_array(&jw);
	}
	jsonw_end_object(&jw);
	fputc('\n', f);
}

/*
 * Quoted, with quotes doubled, only where it has to be (RFC 4180). A path
 * is escaped (no CR, no LF left), but may hold a comma or a quote.
 */
static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/*
 * A header line before the first sample; an empty field for no value.
 * With rates (-i): the interval after the id, and after each counter its
 * rate per second, NAME_per_s.
 */
void render_csv(FILE *f, const struct render_view *v)
{
	size_t nc = memcgstat_nr_columns(v->h), c, i;
	char label[96];
	double x;

	if (v->first) {
		fprintf(f, "time,cgroup,id%s", v->rates ? ",interval" : "");
		for (c = 0; c < nc; c++) {
			col_label(v->h, c, label, sizeof(label));
			fprintf(f, ",%s", label);
			if (v->rates && column_is_counter(v->h, c))
				fprintf(f, ",%s", rate_label(v->h, c, label, sizeof(label)));
		}
		fputc('\n', f);
	}
	for (i = 0; i < v->nr_rows; i++) {
		const struct render_row *r = &v->rows[i];

		fprintf(f, "%.6f,", v->time);
		csv_field(f, r->path);
		fprintf(f, ",%" PRIu64, r->id);
		if (v->rates && v->dt > 0)
			fprintf(f, ",%.6f", v->dt);
		else if (v->rates)
			fputc(',', f);
		for (c = 0; c < nc; c++) {
			/* no limit: +Inf, a number to the parsers that read CSV */
			if (r->vals[c] == MEMCGSTAT_NA)
				fputc(',', f);
			else if (r->vals[c] == MEMCGSTAT_MAX)
				fputs(",+Inf", f);
			else
				fprintf(f, ",%" PRIu64, r->vals[c]);
			if (!v->rates || !column_is_counter(v->h, c))
				continue;
			if (render_rate(v, r, c, &x))
				fprintf(f, ",%.3f", x);
			else
				fputc(',', f);
		}
		fputc('\n', f);
	}
}

/*
 * A label value, quoted; \, " and newline escaped (both dialects). The
 * runs between them in one write: an exposition is mostly cgroup paths.
 */
static void om_label_value(FILE *f, const char *s)
{
	size_t n;

	fputc('"', f);
	for (;;) {
		n = strcspn(s, "\\\"\n");
		fwrite(s, 1, n, f);
		s += n;
		if (!*s)
			break;
		fputs(*s == '\n' ? "\\n" : *s == '"' ? "\\\"" : "\\\\", f);
		s++;
	}
	fputc('"', f);
}

void om_family(FILE *f, enum om_dialect d, const char *name, enum om_type type,
	       const char *unit, const char *help)
{
	static const char *const types[] = { "gauge", "counter", "info" };
	static const char *const suffixes[] = { "", "_total", "_info" };
	int len = strlen(name), sl = strlen(suffixes[type]);
	const char *t = types[type];

	/*
	 * OpenMetrics names a counter's family without its samples' _total:
	 * a counter named otherwise (cAdvisor's container_memory_failcnt) is
	 * "unknown" there, its samples as they are, as client_golang does.
	 */
	if (d == OM_OPENMETRICS && len > sl && !strcmp(name + len - sl, suffixes[type]))
		len -= sl;
	else if (d == OM_OPENMETRICS && sl)
		t = "unknown";
	else if (type == OM_INFO)
		t = types[OM_GAUGE];
	fprintf(f, "# HELP %.*s %s\n", len, name, help);
	fprintf(f, "# TYPE %.*s %s\n", len, name, t);
	if (d == OM_OPENMETRICS && unit)
		fprintf(f, "# UNIT %.*s %s\n", len, name, unit);
}

void om_sample(FILE *f, const char *name, const struct om_label *labels,
	       size_t nr_labels, const char *fmt, ...)
{
	va_list ap;
	size_t i;

	fputs(name, f);
	for (i = 0; i < nr_labels; i++) {
		fprintf(f, "%c%s=", i ? ',' : '{', labels[i].name);
		om_label_value(f, labels[i].value);
	}
	fputs(nr_labels ? "} " : " ", f);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

/*
 * memcgstat_<stat>, with its unit and, for a counter, "_total"; the
 * cgroup's own values (--local) are memcgstat_local_<stat>: a value of
 * other meaning under the same name would sum wrongly in queries.
 */
static void om_stat_name(const struct render_view *v, size_t c, char *buf, size_t size)
{
	const char *unit = memcgstat_column_unit(v->h, c);

	snprintf(buf, size, "memcgstat_%s%s%s%s%s", v->local ? "local_" : "",
		 memcgstat_column_name(v->h, c), unit ? "_" : "", unit ? unit : "",
		 column_is_counter(v->h, c) ? "_total" : "");
}

/* @v in decimal at the end of @buf (21 bytes): where it starts. */
static char *u64_dec(char *end, uint64_t v)
{
	*--end = '\0';
	do
		*--end = '0' + v % 10;
	while (v /= 10);
	return end;
}

/*
 * {cgroup="PATH" of each row, escaped as om_label_value() does, once for
 * all its samples. By hand: an open_memstream() per row cleared its 8 KiB
 * buffer, 9 M of the 62 M instructions of a textfile exposition of 1,000
 * cgroups (valgrind --tool=callgrind).
 */
static char **row_labels(const struct render_view *v, size_t **lens)
{
	static const char head[] = "{cgroup=\"";
	char **lab = calloc(v->nr_rows ? v->nr_rows : 1, sizeof(*lab));
	const char *s;
	size_t i, n;
	char *o;

	*lens = calloc(v->nr_rows ? v->nr_rows : 1, sizeof(**lens));
	for (i = 0; lab && *lens && i < v->nr_rows; i++) {
		for (n = 0, s = v->rows[i].path; *s; s++)
			n += *s == '\\' || *s == '"' || *s == '\n' ? 2 : 1;
		o = lab[i] = malloc(sizeof(head) - 1 + n + 1);
		if (!o)
			break;
		memcpy(o, head, sizeof(head) - 1);
		o += sizeof(head) - 1;
		for (s = v->rows[i].path; *s; s++) {
			if (*s == '\\' || *s == '"' || *s == '\n') {
				*o++ = '\\';
				*o++ = *s == '\n' ? 'n' : *s;
			} else {
				*o++ = *s;
			}
		}
		*o++ = '"';
		(*lens)[i] = o - lab[i];
	}
	if (lab && *lens && i == v->nr_rows)
		return lab;
	while (lab && i--)
		free(lab[i]);
	free(lab);
	free(*lens);
	*lens = NULL;	/* om_stats() frees it too */
	return NULL;
}

/*
 * The samples of every row and column. The hot loop writes pieces made
 * once (the name, each row's escaped label) and formats the value by
 * hand: with om_sample()'s fprintf()s a sample cost about 2,000 guest
 * instructions (make bench, 8.scrape.1000: 9.3 M per scrape of 4,000).
 */
void om_stats(FILE *f, enum om_dialect d, const struct render_view *v)
{
	size_t nc = memcgstat_nr_columns(v->h), c, i, *lens = NULL, nlen, tail;
	char name[128], help[192], node[32], nid_s[16], num[24], *n;
	struct om_label labels[] = { { "cgroup", NULL }, { "node", nid_s } };
	char **lab = row_labels(v, &lens);

	for (c = 0; c < nc; c++) {
		int nid = memcgstat_column_node(v->h, c);

		om_stat_name(v, c, name, sizeof(name));
		nlen = strlen(name);
		if (first_of_stat(v->h, c)) {
			snprintf(help, sizeof(help), "memory cgroup %s%s, as the kernel reports it",
				 memcgstat_column_name(v->h, c),
				 v->local ? " of the cgroup alone, without its descendants" : "");
			om_family(f, d, name, column_is_counter(v->h, c) ? OM_COUNTER : OM_GAUGE,
				  memcgstat_column_unit(v->h, c), help);
		}
		/* after the cgroup label: ,node="N"} and the value */
		snprintf(nid_s, sizeof(nid_s), "%d", nid);
		snprintf(node, sizeof(node), ",node=\"%s\"} ", nid_s);
		tail = strlen(node);
		for (i = 0; i < v->nr_rows; i++) {
			if (v->rows[i].vals[c] == MEMCGSTAT_NA)
				continue;
			/* no limit: +Inf, as Prometheus exporters write it */
			if (!lab || v->rows[i].vals[c] == MEMCGSTAT_MAX) {
				/* (without memory for the labels: one by one) */
				labels[0].value = v->rows[i].path;
				if (v->rows[i].vals[c] == MEMCGSTAT_MAX)
					om_sample(f, name, labels, nid >= 0 ? 2 : 1, "+Inf");
				else
					om_sample(f, name, labels, nid >= 0 ? 2 : 1, "%" PRIu64,
						  v->rows[i].vals[c]);
				continue;
			}
			fwrite(name, 1, nlen, f);
			fwrite(lab[i], 1, lens[i], f);
			if (nid >= 0)
				fwrite(node, 1, tail, f);
			else
				fwrite("} ", 1, 2, f);
			n = u64_dec(num + sizeof(num), v->rows[i].vals[c]);
			num[sizeof(num) - 1] = '\n';
			fwrite(n, 1, num + sizeof(num) - n, f);
		}
	}
	for (i = 0; lab && i < v->nr_rows; i++)
		free(lab[i]);
	free(lab);
	free(lens);
}

void om_end(FILE *f, enum om_dialect d)
{
	if (d == OM_OPENMETRICS)
		fputs("# EOF\n", f);
}
