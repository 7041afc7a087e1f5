// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * memcgstat_open(): check the options, find the hierarchy, choose the
 * backend (or leave auto's choice to the first read, choose.c), choose the
 * columns, and let the backend prepare its reads; memcgstat_close().
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "handle.h"
#include "cgroup_files.h"
#include "hierarchy.h"
#include "path_cache.h"

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, d[64], prev, tmp;

	if (lb >= 64)
		return 64;
	for (j = 0; j <= lb; j++)
		d[j] = j;
	for (i = 1; i <= la; i++) {
		prev = d[0];
		d[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t best = prev + (a[i - 1] != b[j - 1]);

			if (d[j] + 1 < best)
				best = d[j] + 1;
			if (d[j - 1] + 1 < best)
				best = d[j - 1] + 1;
			tmp = d[j];
			d[j] = best;
			prev = tmp;
		}
	}
	return d[lb];
}

static int unknown_stat(struct memcgstat *h, const char *name)
{
	const struct mcs_stat_def *v1 = mcs_stat_def_find_v1(name);
	size_t i, best = SIZE_MAX, len;
	char hint[256] = "";

	/* a cgroup v1 memory.stat key: its name here is the v2 one */
	if (v1)
		return mcs_set_err(h, -EINVAL, "unknown stat '%s' (did you mean %s? v1's memory.stat calls it %s)",
				   name, v1->name, name);

	for (i = 0; i < mcs_nr_stat_defs; i++) {
		size_t d = edit_distance(name, mcs_stat_defs[i].name);

		if (d < best)
			best = d;
	}
	for (i = 0; best <= 3 && i < mcs_nr_stat_defs; i++) {
		if (mcs_stat_defs[i].v1_twin || edit_distance(name, mcs_stat_defs[i].name) != best)
			continue;
		len = strlen(hint);
		snprintf(hint + len, sizeof(hint) - len, "%s%s", len ? ", " : "",
			 mcs_stat_defs[i].name);
	}
	if (hint[0])
		return mcs_set_err(h, -EINVAL, "unknown stat '%s' (did you mean %s?)", name, hint);
	return mcs_set_err(h, -EINVAL, "unknown stat '%s' (--list-stats shows them all)", name);
}

static int add_columns(struct memcgstat *h, const struct mcs_stat_def *def)
{
	int n = h->flags & MEMCGSTAT_NUMA ? h->nr_nodes : 1, i;
	struct mcs_column *cols;

	cols = realloc(h->cols, (h->nr_cols + n) * sizeof(*cols));
	if (!cols)
		return mcs_set_err(h, -ENOMEM, "out of memory");
	h->cols = cols;
	for (i = 0; i < n; i++) {
		struct mcs_column *c = &h->cols[h->nr_cols++];

		c->def = def;
		c->nid = h->flags & MEMCGSTAT_NUMA ? h->nodes[i] : -1;
	}
	return 0;
}

/* The options on their own, before anything is read. */
static int check_opts(struct memcgstat *h, const struct memcgstat_opts *opts)
{
	const char *pin_dir;

	/* 0.1.0's struct ended at root */
	if (!opts || opts->sz < offsetof(struct memcgstat_opts, query))
		return mcs_set_err(h, -EINVAL, "memcgstat_opts.sz must be sizeof(struct memcgstat_opts)");
	/* a caller built against a later library: its new fields must be unset */
	if (opts->sz > sizeof(*opts)) {
		const char *tail = (const char *)opts + sizeof(*opts);
		size_t i;

		for (i = 0; i < opts->sz - sizeof(*opts); i++)
			if (tail[i])
				return mcs_set_err(h, -EINVAL,
						   "memcgstat_opts sets fields this library (%s) does not know: sz %zu, it knows %zu bytes",
						   MEMCGSTAT_VERSION, opts->sz, sizeof(*opts));
	}
	if (opts->backend > MEMCGSTAT_BACKEND_TEXT)
		return mcs_set_err(h, -EINVAL, "unknown backend %d", opts->backend);
	if (opts->sz >= offsetof(struct memcgstat_opts, query) + sizeof(opts->query))
		h->want_query = opts->query;
	if (h->want_query > MEMCGSTAT_QUERY_ITER)
		return mcs_set_err(h, -EINVAL, "unknown query path %d", h->want_query);
	if (opts->sz >= offsetof(struct memcgstat_opts, expected_reads) + sizeof(opts->expected_reads))
		h->expected_reads = opts->expected_reads;
	if (h->expected_reads < 0)
		return mcs_set_err(h, -EINVAL, "expected_reads %ld: a count, or 0 for no end",
				   h->expected_reads);
	if (h->want_query && opts->backend == MEMCGSTAT_BACKEND_TEXT)
		return mcs_set_err(h, -EINVAL, "a query path (%s) needs the bpf backend",
				   memcgstat_query_name(h->want_query));
	if (opts->flags & ~(unsigned int)(MEMCGSTAT_LOCAL | MEMCGSTAT_NUMA | MEMCGSTAT_PINNED |
					  MEMCGSTAT_PIN_REQUIRED))
		return mcs_set_err(h, -EINVAL, "unknown flags 0x%x", opts->flags);
	if ((opts->flags & MEMCGSTAT_PIN_REQUIRED) && !(opts->flags & MEMCGSTAT_PINNED))
		return mcs_set_err(h, -EINVAL, "MEMCGSTAT_PIN_REQUIRED without MEMCGSTAT_PINNED");
	if ((opts->flags & MEMCGSTAT_PIN_REQUIRED) &&
	    (opts->flags & (MEMCGSTAT_LOCAL | MEMCGSTAT_NUMA)))
		return mcs_set_err(h, -EINVAL, "pinned programs read neither local nor per-node values");
	if ((opts->flags & MEMCGSTAT_PIN_REQUIRED) && opts->backend == MEMCGSTAT_BACKEND_TEXT)
		return mcs_set_err(h, -EINVAL, "MEMCGSTAT_PIN_REQUIRED needs the bpf backend");
	pin_dir = opts->sz >= offsetof(struct memcgstat_opts, pin_dir) + sizeof(opts->pin_dir) &&
		  opts->pin_dir ? opts->pin_dir : MEMCGSTAT_PIN_DIR;
	if (snprintf(h->pin_dir, sizeof(h->pin_dir), "%s", pin_dir) >= (int)sizeof(h->pin_dir))
		return mcs_set_err(h, -ENAMETOOLONG, "pin directory path too long");
	if ((opts->flags & MEMCGSTAT_LOCAL) && (opts->flags & MEMCGSTAT_NUMA))
		return mcs_set_err(h, -EINVAL, "local and per-node values cannot be combined: the kernel keeps per-node values only hierarchically");
	h->flags = opts->flags;
	return 0;
}

/*
 * The values of @h's flags the text backend cannot read on this hierarchy:
 * true, with their name in *@what and why in *@files.
 */
static bool text_lacks(const struct memcgstat *h, const char **what, const char **files)
{
	if ((h->flags & MEMCGSTAT_LOCAL) && h->version == 2) {
		*what = "local values";
		*files = "memory.stat has hierarchical values only";
		return true;
	}
	if ((h->flags & MEMCGSTAT_NUMA) && h->version == 1) {
		*what = "per-node values";
		*files = "v1 memory.numa_stat has a few page counts only";
		return true;
	}
	return false;
}

/*
 * Neither backend reads @what here: why bpf cannot (@bpf_why, which may be
 * h->err), then that text cannot either. No advice that cannot work.
 */
static int neither_backend(struct memcgstat *h, const char *what, const char *files,
			   const char *bpf_why)
{
	bool names_it = !strncmp(bpf_why, what, strlen(what));
	char why[sizeof(h->err)];

	snprintf(why, sizeof(why), "%s", bpf_why);
	return mcs_set_err(h, -EOPNOTSUPP, "%s%s%s; on cgroup v%d the text backend has no %s either (%s)",
			   names_it ? "" : what,
			   names_it ? "" : " need the bpf backend, which cannot run here: ",
			   why, h->version, what, files);
}

/*
 * bpf where the kernel and the process allow it (and auto or bpf asked);
 * with auto and a count of reads, where they pay for it (choose.c), which
 * the first read may decide if @may_wait.
 */
static int choose_backend(struct memcgstat *h, enum memcgstat_backend want, bool may_wait)
{
	const char *what, *files;
	int err;

	h->ops = &mcs_text_backend;
	if (want == MEMCGSTAT_BACKEND_TEXT)
		return 0;
	if (want == MEMCGSTAT_BACKEND_AUTO && h->expected_reads && may_wait &&
	    !text_lacks(h, &what, &files))
		return mcs_auto_open(h);
	err = mcs_bpf_probe(h);
	if (!err) {
		h->ops = &mcs_bpf_backend;
		if (want == MEMCGSTAT_BACKEND_AUTO)
			snprintf(h->reason, sizeof(h->reason), "%s",
				 !h->expected_reads ? "no end of reads known (expected_reads 0)" :
				 "the text backend cannot read what was asked for here");
		return 0;
	}
	if (want == MEMCGSTAT_BACKEND_BPF) {
		h->ops = NULL;
		/* the message set by the probe; and whether text is a way out */
		if (err != -ENOMEM && text_lacks(h, &what, &files))
			return neither_backend(h, what, files, h->err);
		return err;
	}
	snprintf(h->reason, sizeof(h->reason), "%s", h->err);
	h->err[0] = '\0';
	return 0;
}

/* What the text backend cannot read on this hierarchy. */
static int text_limits(struct memcgstat *h)
{
	const char *what, *files;
	char why[sizeof(h->err)];

	if (!text_lacks(h, &what, &files))
		return 0;
	/* auto fell back: the probe said why */
	if (h->reason[0])
		return neither_backend(h, what, files, h->reason);
	/* --backend text: whether bpf would read them here, without loading it */
	if (mcs_bpf_check(h, why, sizeof(why)))
		return neither_backend(h, what, files, why);
	return mcs_set_err(h, -EOPNOTSUPP, "%s need the bpf backend on cgroup v%d (--backend bpf): %s",
			   what, h->version, files);
}

const char *memcgstat_bpf_unavailable(struct memcgstat *h)
{
	if (!h || memcgstat_backend(h) == MEMCGSTAT_BACKEND_BPF)
		return NULL;
	if (!h->bpf_checked) {
		if (!mcs_bpf_check(h, h->bpf_why, sizeof(h->bpf_why)))
			h->bpf_why[0] = '\0';
		h->bpf_checked = true;
	}
	return h->bpf_why[0] ? h->bpf_why : NULL;
}

/* Whether @def has values of the kind the flags ask for. */
static const char *no_such_values(const struct memcgstat *h, const struct mcs_stat_def *def)
{
	if ((h->flags & MEMCGSTAT_NUMA) && !def->node)
		return "has no per-node values (memory.numa_stat lacks it)";
	if ((h->flags & MEMCGSTAT_LOCAL) &&
	    (def->src == MCS_SRC_MEMORY_EVENT || def->src == MCS_SRC_USAGE ||
	     def->src == MCS_SRC_WORKING_SET || mcs_def_is_field(def)))
		return "has no local value";
	if (mcs_def_is_field(def) && !mcs_def_on(def, h->version))
		return h->version == 2 ? "is cgroup v1's only (it has no cgroup v2 file)" :
					 "is cgroup v2's only (it has no cgroup v1 file)";
	return NULL;
}

static bool def_in(const struct mcs_stat_def *def, const struct mcs_stat_def **defs, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (defs[i] == def)
			return true;
	return false;
}

/*
 * One column (per node) for each stat named; the text backend only has
 * what this hierarchy's files show (@shown).
 */
static int named_columns(struct memcgstat *h, const struct memcgstat_opts *opts,
			 const struct mcs_stat_def **shown, size_t nr_shown)
{
	const struct mcs_stat_def *def;
	const char *why;
	size_t i, j;
	int err;

	for (i = 0; i < opts->nr_stats; i++) {
		if (!opts->stats[i])
			return mcs_set_err(h, -EINVAL, "stats[%zu] is NULL, not a stat's name", i);
		def = mcs_stat_def_for(opts->stats[i], h->version);
		if (!def)
			return unknown_stat(h, opts->stats[i]);
		for (j = 0; j < i; j++)
			if (!strcmp(opts->stats[j], opts->stats[i]))
				return mcs_set_err(h, -EINVAL, "stat '%s' given twice", opts->stats[i]);
		why = no_such_values(h, def);
		if (why)
			return mcs_set_err(h, -EINVAL, "stat '%s' %s", def->name, why);
		if (h->ops == &mcs_text_backend && !def_in(def, shown, nr_shown))
			return mcs_set_err(h, -ENOENT, "stat '%s' is not in this kernel's cgroup v%d files%s%s",
					   def->name, h->version,
					   h->reason[0] ? "; bpf backend unavailable: " : "", h->reason);
		err = add_columns(h, def);
		if (err)
			return err;
	}
	return 0;
}

/* The stats named in @opts, or every stat this hierarchy shows. */
static int choose_columns(struct memcgstat *h, const struct memcgstat_opts *opts)
{
	const struct mcs_stat_def **shown = NULL;
	size_t i, nr = 0;
	int err = 0;

	/* what this hierarchy's files show, read once */
	if (!opts->stats || h->ops == &mcs_text_backend)
		err = mcs_hierarchy_stats(h, &shown, &nr);
	if (!err && opts->stats)
		err = named_columns(h, opts, shown, nr);
	for (i = 0; !err && !opts->stats && i < nr; i++)
		if (!no_such_values(h, shown[i]))
			err = add_columns(h, shown[i]);
	h->all_stats = !opts->stats;
	free(shown);
	if (!err && !h->nr_cols)
		err = mcs_set_err(h, -EINVAL, "no stats chosen");
	return err;
}

int memcgstat_open(const struct memcgstat_opts *opts, struct memcgstat **out)
{
	enum memcgstat_backend want = MEMCGSTAT_BACKEND_AUTO;
	struct memcgstat *h;
	int err;

	*out = h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	err = check_opts(h, opts);
	if (!err) {
		want = h->want_query ? MEMCGSTAT_BACKEND_BPF : opts->backend;
		err = mcs_find_root(h, opts->root);
	}
	if (!err && (h->flags & MEMCGSTAT_NUMA))
		err = mcs_find_nodes(h);
	if (!err)
		err = choose_backend(h, want, true);
	if (!err && h->ops == &mcs_text_backend)
		err = text_limits(h);
	if (!err)
		err = choose_columns(h, opts);
	if (err == -ENOENT && h->undecided) {
		/* a stat the files lack: bpf or nothing, decided now */
		h->undecided = false;
		h->reason[0] = h->err[0] = '\0';
		h->nr_cols = 0;
		err = choose_backend(h, want, false);
		if (!err)
			err = choose_columns(h, opts);
	}
	if (!err)
		h->cols_sig = mcs_cols_sig(h);
	if (!err && h->ops->open)
		err = h->ops->open(h);
	return err;
}

void memcgstat_close(struct memcgstat *h)
{
	if (!h)
		return;
	if (h->ops && h->ops->close)
		h->ops->close(h);
	mcs_free_paths(h);
	free(h->cols);
	free(h->err_long);
	free(h);
}
