/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The CLI's samples (tools/sample.c): a read of every CGROUP argument, its
 * rows for render.h, and the cgroups that could not be read, said once
 * across the samples of a run. memcgstat.c decides when and how to print.
 */
#ifndef __MEMCGSTAT_SAMPLE_H
#define __MEMCGSTAT_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "memcgstat.h"
#include "filter.h"
#include "render.h"

/* One read of every CGROUP argument. */
struct sample {
	struct memcgstat_result **res;	/* one per CGROUP argument */
	int *err;			/* each one's read: 0 or -errno ... */
	char **msg;			/* ... and then why, malloc'd */
	size_t nr;
	struct id_index ix;		/* the rows by id, for the next's rates */
	double t;			/* CLOCK_MONOTONIC seconds, for rates */
	double wall;			/* CLOCK_REALTIME seconds, printed */
};

/*
 * Read the @nr cgroups of @cgroups (with @recursive each one's tree) into
 * @s, into the results @s kept from the sample before the last (with -i:
 * no allocation once they hold the trees). A CGROUP that cannot be read
 * (not there, removed since the sample before, unreadable) costs its own
 * rows only: its error and why are in @s; so does one that has left the
 * hierarchy since the @first sample (a symlink changed). Returns 0 or the
 * exit status, said why (@s freed): 2 for a CGROUP that cannot be one in
 * the @first sample (outside the hierarchy: bad usage, the run ends), 1
 * without memory.
 */
int read_sample(struct memcgstat *h, const char *const *cgroups, size_t nr,
		bool recursive, bool first, struct sample *s);
void free_sample(struct sample *s);

/*
 * The rows of @s that @filter keeps (filter.h; depths below each CGROUP),
 * each cgroup once however many trees hold it, with the values of @prev
 * (the sample before, or NULL) for rates; with @index, @s's index made for
 * the next sample's. *@nr rows, or NULL without memory. Free them with
 * sample_rows_free().
 */
struct render_row *sample_rows(struct sample *s, const struct sample *prev,
			       bool index, const struct row_filter *filter, size_t *nr);
void sample_rows_free(struct render_row *rows, size_t n);

/* A sample's errors for JSON (render_view.errors); each string malloc'd. */
struct sample_errors {
	struct render_error *v;
	size_t nr;
};

void free_errors(struct sample_errors *e);

/*
 * The cgroups that could not be read, across the samples of a run: each is
 * said on standard error once when it starts failing (again if the reason,
 * its errno, changes), not in every sample while it fails; JSON has it in
 * every sample's "errors". Any of them makes the exit status 1 (@failed).
 */
struct report {
	const char *const *cgroups;	/* the CGROUP arguments, as given */
	bool verbose;			/* -v: say when one is read again */
	bool json;			/* each sample's errors into its JSON */
	int *said;			/* per CGROUP argument: its error, while it fails */
	uint64_t *ids;			/* the rows of trees without values, last sample */
	size_t nr_ids;
	bool failed;
};

/* For the @nr cgroups of @cgroups: 0, or -ENOMEM. */
int report_init(struct report *rep, const char *const *cgroups, size_t nr,
		bool verbose, bool json);
void report_free(struct report *rep);

/*
 * The CGROUP arguments of @s that could not be read: said if they were
 * not in the sample before, into @e with JSON. 0, or -ENOMEM.
 */
int report_args(struct report *rep, const struct sample *s, struct sample_errors *e);

/* A row of a tree that has no values: its read failed (a result's status). */
struct bad_row {
	uint64_t id;		/* first: sorted by it */
	const char *path;	/* as the result has it, not escaped */
	int status;
};

/*
 * The rows of @s's trees without values (their read failed, the others
 * stand) that @filter keeps, as sample_rows() does: each said unless it
 * was in the sample before, into @e with JSON, once however many trees
 * hold it. 0, or -ENOMEM.
 */
int report_rows(struct report *rep, const struct sample *s, const struct row_filter *filter,
		struct sample_errors *e);

/*
 * The same for rows a caller chose (top: those its frame shows): @bad's
 * @nr rows, sorted here. 0, or -ENOMEM.
 */
int report_bad(struct report *rep, struct bad_row *bad, size_t nr, struct sample_errors *e);

#endif /* __MEMCGSTAT_SAMPLE_H */
