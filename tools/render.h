/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The output formats of memcgstat and memcgstat-exporter, each in one
 * place: table, JSON and CSV, and the Prometheus exposition in its two
 * dialects. What a column is (size or count, its unit) comes from the
 * library's stat table, and so do the metric names: a size in bytes is a
 * gauge memcgstat_<stat>_bytes, a count a counter memcgstat_<stat>_total.
 */
#ifndef __MEMCGSTAT_RENDER_H
#define __MEMCGSTAT_RENDER_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "memcgstat.h"

/* One cgroup to print. */
struct render_row {
	const char *path;		/* escaped: see render_path() */
	char *own;			/* path's malloc'd copy, if it needed one */
	uint64_t id;
	const uint64_t *vals;		/* memcgstat_nr_columns() values */
	const uint64_t *prev;		/* the previous sample's, or NULL */
};

/*
 * A cgroup that could not be read in this sample: a CGROUP argument (as
 * given) or a cgroup of a tree (its path, as render_path() prints it), and
 * the message standard error has for it, without the program's name.
 */
struct render_error {
	const char *cgroup;
	const char *error;
};

/* The table's layout (render_table()). */
enum render_layout {
	RENDER_FIT,		/* wide where it fits render_view.width, else lines */
	RENDER_WIDE,		/* a line per cgroup, a column per stat */
	RENDER_LINES,		/* a paragraph per cgroup, a line per stat */
};

/* One sample of rows, and how to print it. */
struct render_view {
	const struct memcgstat *h;	/* the columns */
	const struct render_row *rows;
	size_t nr_rows;
	double time;			/* CLOCK_REALTIME seconds of the sample */
	double dt;			/* seconds since the previous sample: counters
					 * as rates; 0 for the first */
	bool first;			/* the first sample: headers */
	bool rates;			/* a run of samples (-i): counters' rates
					 * too, in their own fields */
	bool human;			/* table: sizes as K, M, G */
	size_t width;			/* table: the terminal's columns; 0: not one */
	enum render_layout layout;	/* table: RENDER_FIT unless asked */
	bool local;			/* openmetrics: local values, memcgstat_local_* */
	const struct render_error *errors;	/* json: "errors", if any */
	size_t nr_errors;
};

/*
 * The rows of a sample's results by cgroup id, for the next sample's rates
 * (render_row.prev): sorted, looked up by binary search. A cgroup in two
 * results (overlapping CGROUP arguments) has the same values in both.
 */
struct id_vals {
	uint64_t id;
	const uint64_t *vals;
};

struct id_index {
	struct id_vals *v;
	size_t nr, cap;
};

/*
 * Room for @n elements of @size bytes in the array *@pp holds @cap of:
 * realloc'd if it holds fewer. 0, or -ENOMEM with the array as it was.
 */
static inline int grow_array(void *pp, size_t *cap, size_t n, size_t size)
{
	void *p;

	if (n <= *cap)
		return 0;
	memcpy(&p, pp, sizeof(p));
	p = realloc(p, n * size);
	if (!p)
		return -ENOMEM;
	memcpy(pp, &p, sizeof(p));
	*cap = n;
	return 0;
}

/* @ix of the rows of @res[0 .. @nr_res - 1]: 0, or -ENOMEM (@ix empty). */
int id_index_set(struct id_index *ix, struct memcgstat_result *const *res, size_t nr_res);
/* The values of cgroup @id in @ix, or NULL. */
const uint64_t *id_index_find(const struct id_index *ix, uint64_t id);
void id_index_free(struct id_index *ix);

/*
 * Set @r's path to the cgroup path @path as every format prints it:
 * escaped as escape.h says (a backslash as \\, control characters and bytes
 * that are not valid UTF-8 as \xHH), the same in every format, each of which
 * quotes it on top by its own rules. Most paths are kept as they are; an
 * escaped copy goes to r->own, to free. 0, or -ENOMEM.
 */
int render_path(struct render_row *r, const char *path);

/*
 * Column @c's rate of change per second in @r since the previous sample:
 * false when there is none (the first sample, a cgroup new in this one, a
 * counter that went down: reset, or the cgroup recreated at this path).
 */
bool render_rate(const struct render_view *v, const struct render_row *r, size_t c,
		 double *rate);

/* A size in bytes as -H prints it: "512", "1.5K", "64.0M", up to E. */
void render_human(double v, char *buf, size_t size);

/*
 * The CLI's formats; rows of a later sample follow the first's. The table
 * is render_table.c's, the others render.c's.
 */
void render_table(FILE *f, const struct render_view *v);
void render_json(FILE *f, const struct render_view *v);
void render_csv(FILE *f, const struct render_view *v);

enum om_dialect {
	OM_PROMETHEUS,		/* Prometheus text format 0.0.4 */
	OM_OPENMETRICS,		/* OpenMetrics 1.0: # UNIT, # EOF */
};

enum om_type { OM_GAUGE, OM_COUNTER, OM_INFO };

struct om_label {
	const char *name;
	const char *value;	/* escaped by om_sample() */
};

/*
 * HELP and TYPE (and in OpenMetrics UNIT) of a family. @name is its
 * samples' name, ending in "_total" for a counter and "_info" for an info:
 * OpenMetrics names the family without that suffix, the text format names
 * it as its samples and has gauges for infos.
 */
void om_family(FILE *f, enum om_dialect d, const char *name, enum om_type type,
	       const char *unit, const char *help);

/* A sample: name{labels} value, the value formatted as @fmt says. */
void om_sample(FILE *f, const char *name, const struct om_label *labels,
	       size_t nr_labels, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* A family per stat, a sample per cgroup (and node) that has a value. */
void om_stats(FILE *f, enum om_dialect d, const struct render_view *v);

/* The end of an exposition: "# EOF" in OpenMetrics. */
void om_end(FILE *f, enum om_dialect d);

#endif /* __MEMCGSTAT_RENDER_H */
