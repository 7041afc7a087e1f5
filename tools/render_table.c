// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The table, memcgstat's default format, in its two layouts: wide, a line
 * per cgroup and a column per stat; lines, a paragraph per cgroup and a
 * line per stat (name, value, unit and, with -i, a counter's rate), as
 * memory.stat lists a cgroup's counters. Both print a value with
 * table_value(). Which layout a run has is render_view.layout's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "escape.h"
#include "render.h"

/* Whether the table shows column @c as a rate: a counter after the first sample. */
static bool shows_rate(const struct render_view *v, size_t c)
{
	return v->dt > 0 && memcgstat_column_kind(v->h, c) == MEMCGSTAT_KIND_COUNTER;
}

/*
 * Column @c of @r as the table prints it: with @rate the counter's rate
 * per second (render_rate()), else its value; "-" for none, "max" for no
 * limit; -H humanises sizes, not counts.
 */
static void table_value(const struct render_view *v, const struct render_row *r, size_t c,
			bool rate, char *buf, size_t size)
{
	const char *unit = memcgstat_column_unit(v->h, c);
	double x = 0;

	if (r->vals[c] == MEMCGSTAT_NA || (rate && !render_rate(v, r, c, &x)))
		snprintf(buf, size, "-");
	else if (!rate && r->vals[c] == MEMCGSTAT_MAX)
		snprintf(buf, size, "max");
	else if (v->human && unit && !strcmp(unit, "bytes"))
		render_human(rate ? x : (double)r->vals[c], buf, size);
	else if (rate)
		snprintf(buf, size, "%.1f", x);
	else	/* exact: a double has 53 bits, a value up to 64 */
		snprintf(buf, size, "%" PRIu64, r->vals[c]);
}

/*
 * Column @c's name, with --numa its node ("anon:N0"). The wide table heads
 * a column of rates NAME/s ("pgfault/s", "pgfault/s:N0", @per_s), as top
 * and CSV's NAME_per_s name theirs, in every sample's heading.
 */
static void table_label(const struct render_view *v, size_t c, bool per_s, char *buf,
			size_t size)
{
	int nid = memcgstat_column_node(v->h, c);
	const char *per = per_s ? "/s" : "";

	if (nid >= 0)
		snprintf(buf, size, "%s%s:N%d", memcgstat_column_name(v->h, c), per, nid);
	else
		snprintf(buf, size, "%s%s", memcgstat_column_name(v->h, c), per);
}

/* An escaped path, then spaces up to @pw columns. */
static void put_padded(FILE *f, const char *path, size_t pw)
{
	size_t w = esc_width(path);

	fputs(path, f);
	for (; w < pw; w++)
		fputc(' ', f);
}

/* *@w widened to @s if it is wider. */
static void widen(int *w, const char *s)
{
	int n = strlen(s);

	if (n > *w)
		*w = n;
}

/*
 * Column @c's width in the wide table: its label, every value (19 and 20
 * digits too), at least 14.
 */
static int col_width(const struct render_view *v, size_t c)
{
	char buf[96];
	int w = 14;
	size_t i;

	table_label(v, c, shows_rate(v, c), buf, sizeof(buf));
	widen(&w, buf);
	for (i = 0; i < v->nr_rows; i++) {
		table_value(v, &v->rows[i], c, shows_rate(v, c), buf, sizeof(buf));
		widen(&w, buf);
	}
	return w;
}

/* A column per stat (widths[c] wide), a line per cgroup. */
static void table_wide(FILE *f, const struct render_view *v, size_t pw, const int *widths)
{
	size_t nc = memcgstat_nr_columns(v->h), c, i;
	char buf[96];

	put_padded(f, "CGROUP", pw);
	for (c = 0; c < nc; c++) {
		table_label(v, c, shows_rate(v, c), buf, sizeof(buf));
		fprintf(f, " %*s", widths ? widths[c] : 14, buf);
	}
	fputc('\n', f);
	for (i = 0; i < v->nr_rows; i++) {
		put_padded(f, v->rows[i].path, pw);
		for (c = 0; c < nc; c++) {
			table_value(v, &v->rows[i], c, shows_rate(v, c), buf, sizeof(buf));
			fprintf(f, " %*s", widths ? widths[c] : 14, buf);
		}
		fputc('\n', f);
	}
}

/* The fields of the lines layout, as wide as their widest in the sample. */
struct lines_widths {
	int label, value, unit, rate;
};

/* A counter's rate in the lines layout: "12.5/s", or "-" where it has none. */
static void rate_cell(const struct render_view *v, const struct render_row *r, size_t c,
		      char *buf, size_t size)
{
	table_value(v, r, c, true, buf, size - 2);
	if (strcmp(buf, "-"))
		strcat(buf, "/s");
}

/*
 * The widths of @v's labels, values (at least 14, as the wide table's
 * columns, so that a run's samples stay aligned), units and rates.
 */
static void lines_widths(const struct render_view *v, struct lines_widths *w)
{
	size_t nc = memcgstat_nr_columns(v->h), c, i;
	const char *unit;
	char buf[96];

	memset(w, 0, sizeof(*w));
	w->value = 14;
	w->rate = 10;
	for (c = 0; c < nc; c++) {
		table_label(v, c, false, buf, sizeof(buf));
		widen(&w->label, buf);
		unit = memcgstat_column_unit(v->h, c);
		if (unit)
			widen(&w->unit, unit);
		for (i = 0; i < v->nr_rows; i++) {
			table_value(v, &v->rows[i], c, false, buf, sizeof(buf));
			widen(&w->value, buf);
			if (!shows_rate(v, c))
				continue;
			rate_cell(v, &v->rows[i], c, buf, sizeof(buf));
			widen(&w->rate, buf);
		}
	}
}

/*
 * Column @c of @r on a line of its own: name, value, unit (none for a
 * count, nor for no value or no limit), then a counter's rate.
 */
static void lines_stat(FILE *f, const struct render_view *v, const struct render_row *r,
		       size_t c, const struct lines_widths *w)
{
	const char *unit = memcgstat_column_unit(v->h, c);
	char label[96], val[96], rate[96];

	table_label(v, c, false, label, sizeof(label));
	table_value(v, r, c, false, val, sizeof(val));
	if (!strcmp(val, "-") || !strcmp(val, "max"))
		unit = NULL;
	fprintf(f, "  %-*s %*s", w->label, label, w->value, val);
	if (shows_rate(v, c)) {
		rate_cell(v, r, c, rate, sizeof(rate));
		fprintf(f, " %-*s %*s", w->unit, unit ? unit : "", w->rate, rate);
	} else if (unit) {
		fprintf(f, " %s", unit);
	}
	fputc('\n', f);
}

/* A paragraph per cgroup: its path (--local: said), then a line per column. */
static void table_lines(FILE *f, const struct render_view *v)
{
	size_t nc = memcgstat_nr_columns(v->h), c, i;
	struct lines_widths w;

	lines_widths(v, &w);
	for (i = 0; i < v->nr_rows; i++) {
		fprintf(f, "%s%s%s\n", i ? "\n" : "", v->rows[i].path,
			v->local ? " (local: without its descendants)" : "");
		for (c = 0; c < nc; c++)
			lines_stat(f, v, &v->rows[i], c, &w);
	}
}

/*
 * As v->layout says: wide or lines, or (RENDER_FIT) wide when it fits the
 * terminal's width (v->width; 0, a pipe or a file: always), else lines.
 * With -i each sample starts with its time; a blank line between samples.
 */
void render_table(FILE *f, const struct render_view *v)
{
	size_t nc = memcgstat_nr_columns(v->h), pw = 6, i, width;
	time_t t = (time_t)v->time;
	int *widths;
	struct tm tm;

	/* a run of one sample that read no cgroup: nothing, the errors said why */
	if (!v->nr_rows && !v->rates)
		return;
	widths = calloc(nc ? nc : 1, sizeof(*widths));
	for (i = 0; i < v->nr_rows; i++)
		if (esc_width(v->rows[i].path) > pw)
			pw = esc_width(v->rows[i].path);
	width = pw;
	for (i = 0; i < nc; i++) {
		/* (without memory for them: 14 each, as before) */
		if (widths)
			widths[i] = col_width(v, i);
		width += 1 + (widths ? widths[i] : 14);
	}
	if (!v->first)
		fputc('\n', f);
	if (v->rates && localtime_r(&t, &tm))
		fprintf(f, "%02d:%02d:%02d.%03d%s\n", tm.tm_hour, tm.tm_min, tm.tm_sec,
			(int)((v->time - (double)t) * 1000), v->dt > 0 ? "" : " (totals; rates from the next sample)");
	if (v->layout == RENDER_LINES ||
	    (v->layout == RENDER_FIT && v->width && width > v->width))
		table_lines(f, v);
	else
		table_wide(f, v, pw, widths);
	free(widths);
}
