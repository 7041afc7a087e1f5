// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What the programs read for a handle's columns: each column's kernel
 * enumerators as items (bpf/memcg_iter.h), the ones bpf_memcgstat_read()
 * takes first; and the columns made from a record's items again.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "bpf_backend.h"

static int item_kind(const struct memcgstat *h, const struct mcs_column *c)
{
	bool local = h->flags & MEMCGSTAT_LOCAL;

	switch (c->def->src) {
	case MCS_SRC_PAGE_STATE:
		if (c->nid >= 0)
			return MCS_NODE_PAGE_STATE;
		return local ? MCS_PAGE_STATE_LOCAL : MCS_PAGE_STATE;
	case MCS_SRC_VM_EVENT:
		return local ? MCS_VM_EVENTS_LOCAL : MCS_VM_EVENTS;
	case MCS_SRC_MEMORY_EVENT:
		return MCS_MEMORY_EVENTS;
	case MCS_SRC_USAGE:
		return MCS_USAGE;
	case MCS_SRC_WORKING_SET:	/* after its usage item: inactive_file */
		return MCS_PAGE_STATE;
	case MCS_SRC_PAGE_COUNTER:
	case MCS_SRC_MEMORY_EVENT_LOCAL:
	case MCS_SRC_MEMCG_FIELD:
	case MCS_SRC_CGROUP_FIELD:
		return c->def->kind;
	case MCS_SRC_PSI:	/* no item: read from the file */
	case MCS_SRC_PROCS:
		break;
	}
	return 0;
}

/* Add item @kind, @idx for column @i. */
static int add_item(struct memcgstat *h, struct mcs_bpf *b, size_t i, int *n,
		    int kind, int idx, int nid)
{
	if (*n >= MCS_MAX_ITEMS)
		return mcs_set_err(h, -E2BIG,
				   "too many counters: one read takes at most %d (fewer stats or nodes)",
				   MCS_MAX_ITEMS);
	b->items[*n].kind = kind;
	b->items[*n].idx = idx;
	b->items[*n].nid = nid;
	(*n)++;
	b->nr_col_items[i]++;
	return 0;
}

/* The items the programs read: each column's kernel enumerators, in order. */
static int build_items(struct memcgstat *h, struct mcs_bpf *b)
{
	struct mcs_btf_name *parts;
	size_t i, k;
	int n = 0, p, err = 0;

	b->items = calloc(MCS_MAX_ITEMS, sizeof(*b->items));
	b->first_item = calloc(h->nr_cols, sizeof(*b->first_item));
	b->nr_col_items = calloc(h->nr_cols, sizeof(*b->nr_col_items));
	parts = calloc(h->nr_cols * MCS_MAX_PARTS, sizeof(*parts));
	if (!b->items || !b->first_item || !b->nr_col_items || !parts) {
		free(parts);
		return mcs_set_err(h, -ENOMEM, "out of memory");
	}
	for (i = k = 0; i < h->nr_cols; i++)
		for (p = 0; p < MCS_MAX_PARTS && h->cols[i].def->parts[p]; p++)
			parts[k++].name = h->cols[i].def->parts[p];
	mcs_vmlinux_lookup(b->vmlinux, parts, k);
	for (i = k = 0; !err && i < h->nr_cols; i++) {
		const struct mcs_column *c = &h->cols[i];
		int nid = c->nid < 0 ? 0 : c->nid;

		b->first_item[i] = n;
		if (mcs_def_file_only(c->def)) {	/* the file, after the read */
			b->has_file_cols = true;
			continue;
		}
		/* working_set: usage, then inactive_file subtracted */
		if (c->def->src == MCS_SRC_WORKING_SET)
			err = add_item(h, b, i, &n, MCS_USAGE, 0, nid);
		/* usage and the fields have no part: one item of their own */
		for (p = 0; !err && (p == 0 || (p < MCS_MAX_PARTS && c->def->parts[p])); p++) {
			const char *part = c->def->parts[p];

			if (part && !parts[k].found) {
				err = mcs_set_err(h, -ENOENT,
						  "stat '%s' is not provided by this kernel (no %s in its BTF)",
						  c->def->name, part);
				break;
			}
			err = add_item(h, b, i, &n, item_kind(h, c),
				       part ? parts[k++].val : c->def->idx, nid);
			if (!part)
				break;
		}
	}
	free(parts);
	b->nr_items = n;
	return err;
}

/*
 * How each column comes from the items, once per handle: a copy of its one
 * item where that is its value, and the whole row one memcpy() (plain)
 * where every column is such a copy, in order. Not a copy: a value to
 * convert (pages, no limit), derived (working_set, sums) or read from a
 * file (memory.pressure); what the v2 root has no value of (usage,
 * memory.max, ...) is set NA after the copy, at the root alone (b->na_id).
 * Decoding all 63 columns of memory.stat's counters with
 * the general loop cost 33 instructions a column (make bench, profile of
 * 1.all.into).
 */
int mcs_bpf_plan_columns(struct memcgstat *h, struct mcs_bpf *b)
{
	size_t i;

	free(b->copy_col);
	b->copy_col = calloc(h->nr_cols ? h->nr_cols : 1, sizeof(*b->copy_col));
	if (!b->copy_col)
		return mcs_set_err(h, -ENOMEM, "out of memory");
	b->plain = (size_t)b->nr_items == h->nr_cols;
	b->na_id = 0;	/* no cgroup's id */
	for (i = 0; i < h->nr_cols; i++) {
		const struct mcs_stat_def *def = h->cols[i].def;

		/* the v2 root's NA: after the copy, mcs_bpf_root_na() */
		if (h->version == 2 && mcs_def_none_on_v2_root(def))
			b->na_id = b->root_id;
		b->copy_col[i] = b->nr_col_items[i] == 1 && def->conv == MCS_CONV_NONE &&
				 def->src != MCS_SRC_WORKING_SET && !mcs_def_file_only(def) &&
				 !mcs_def_root_only(def, h->version);
		if (!b->copy_col[i] || b->first_item[i] != (int)i)
			b->plain = false;
	}
	return 0;
}

/* Whether bpf_memcgstat_read() reads @it: a kind it knows, fields that fit. */
static bool item_is_fast(const struct mcs_item *it)
{
	switch (it->kind) {
	case MCS_PAGE_STATE:
	case MCS_PAGE_STATE_LOCAL:
	case MCS_NODE_PAGE_STATE:
	case MCS_VM_EVENTS:
	case MCS_VM_EVENTS_LOCAL:
	case MCS_MEMORY_EVENTS:
	case MCS_USAGE:
		return it->idx >= 0 && it->idx <= MCS_KF_IDX_MAX &&
		       it->nid >= 0 && it->nid <= MCS_KF_NID_MAX;
	}
	return false;
}

/*
 * Where the kernel has bpf_memcgstat_read(), put the columns whose items it
 * reads first (a column's items stay together and in order, for
 * mcs_bpf_to_columns()), and count them in b->nr_fast; the programs read those in
 * one call and only the rest one by one.
 */
static int order_items(struct memcgstat *h, struct mcs_bpf *b)
{
	struct mcs_item *sorted;
	int *first, n = 0, p;
	size_t i, pass;

	b->nr_fast = 0;
	if (!b->has_read)
		return 0;
	sorted = calloc(MCS_MAX_ITEMS, sizeof(*sorted));
	first = malloc(h->nr_cols * sizeof(*first));
	if (!sorted || !first) {
		free(sorted);
		free(first);
		return mcs_set_err(h, -ENOMEM, "out of memory");
	}
	memcpy(first, b->first_item, h->nr_cols * sizeof(*first));
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < h->nr_cols; i++) {
			const struct mcs_item *it = &b->items[first[i]];
			bool fast = true;

			for (p = 0; p < b->nr_col_items[i]; p++)
				fast &= item_is_fast(&it[p]);
			if (fast != (pass == 0))
				continue;
			memcpy(&sorted[n], it, b->nr_col_items[i] * sizeof(*it));
			b->first_item[i] = n;
			n += b->nr_col_items[i];
		}
		if (pass == 0)
			b->nr_fast = n;
	}
	free(first);
	free(b->items);
	b->items = sorted;
	return 0;
}

static bool same_item(const struct mcs_item *a, const struct mcs_item *b)
{
	return a->kind == b->kind && a->idx == b->idx && a->nid == b->nid;
}

/*
 * Where, from b->nr_fast on, the @nr items at @at stand again as the one
 * item each of columns in a row; -1 if nowhere. @own marks the items
 * that are a column's only one.
 */
static int find_run(const struct mcs_bpf *b, const bool *own, int at, int nr)
{
	int i, p;

	for (i = b->nr_fast; i + nr <= b->nr_items; i++) {
		if (i + nr > at && i < at + nr)
			continue;	/* its own */
		for (p = 0; p < nr && own[i + p] && same_item(&b->items[i + p], &b->items[at + p]);
		     p++)
			;
		if (p == nr)
			return i;
	}
	return -1;
}

/*
 * A column that sums items other columns read too, in the same order
 * (pgscan: pgscan_kswapd, _direct and _khugepaged; slab: slab_reclaimable
 * and slab_unreclaimable), sums theirs and reads none of its own. Only the
 * items read one by one: on a kernel without bpf_memcgstat_read() (7.0's
 * kfuncs) each is a kfunc call the verifier checks in every program, where
 * that call reads the others at once.
 */
static int share_runs(struct memcgstat *h, struct mcs_bpf *b)
{
	bool *own = calloc(MCS_MAX_ITEMS, sizeof(*own));
	size_t i, j;
	int at, first, nr;

	if (!own)
		return mcs_set_err(h, -ENOMEM, "out of memory");
	for (i = 0; i < h->nr_cols; i++)
		if (b->nr_col_items[i] == 1)
			own[b->first_item[i]] = true;
	for (i = 0; i < h->nr_cols; i++) {
		first = b->first_item[i];
		nr = b->nr_col_items[i];
		if (nr < 2 || first < b->nr_fast || (at = find_run(b, own, first, nr)) < 0)
			continue;
		/* column i's items go; the ones after them move up */
		memmove(&b->items[first], &b->items[first + nr],
			(b->nr_items - first - nr) * sizeof(*b->items));
		memmove(&own[first], &own[first + nr], (b->nr_items - first - nr) * sizeof(*own));
		b->nr_items -= nr;
		for (j = 0; j < h->nr_cols; j++)
			if (b->first_item[j] > first)
				b->first_item[j] -= nr;
		b->first_item[i] = at > first ? at - nr : at;
	}
	free(own);
	return 0;
}

int mcs_bpf_plan(struct memcgstat *h, struct mcs_bpf *b)
{
	int err = build_items(h, b);

	if (!err)
		err = order_items(h, b);
	if (!err)
		err = share_runs(h, b);
	return err ? err : mcs_bpf_plan_columns(h, b);
}

/* An item of a page counter field as its file prints it. */
static uint64_t convert(const struct mcs_bpf *b, enum mcs_conv conv, __u64 v)
{
	switch (conv) {
	case MCS_CONV_NONE:
		break;
	case MCS_CONV_LIMIT:
		if (v >= b->page_counter_max)
			return MEMCGSTAT_MAX;
		/* fall through */
	case MCS_CONV_PAGES:
		return v * b->page_size;
	}
	return v;
}

void mcs_bpf_root_na(const struct memcgstat *h, uint64_t *vals)
{
	size_t i;

	for (i = 0; i < h->nr_cols; i++)
		if (mcs_def_none_on_v2_root(h->cols[i].def))
			vals[i] = MEMCGSTAT_NA;
}

/*
 * The items of cgroup @id, summed into its columns (working_set: the
 * first minus the second, at least 0); NA if any is NA. The v2 root's
 * stats it has none of are to_columns()'s (mcs_bpf_root_na()).
 */
_Static_assert(MCS_INVALID == MEMCGSTAT_NA, "a kfunc's invalid is the library's NA");

void mcs_bpf_convert_columns(const struct memcgstat *h, uint64_t id, const __u64 *items,
			    uint64_t *vals)
{
	const struct mcs_bpf *b = bpf_of(h);
	size_t i;
	int p;

	for (i = 0; i < h->nr_cols; i++) {
		const struct mcs_stat_def *def = h->cols[i].def;
		const __u64 *v = &items[b->first_item[i]];
		uint64_t sum = b->nr_col_items[i] ? 0 : MEMCGSTAT_NA;

		if (b->copy_col[i]) {
			vals[i] = *v;	/* MCS_INVALID is MEMCGSTAT_NA */
			continue;
		}
		for (p = 0; p < b->nr_col_items[i]; p++) {
			if (v[p] == MCS_INVALID) {
				sum = MEMCGSTAT_NA;
				break;
			}
			sum += v[p];
		}
		if (sum != MEMCGSTAT_NA && def->src == MCS_SRC_WORKING_SET)
			sum = v[0] > v[1] ? v[0] - v[1] : 0;
		else if (sum != MEMCGSTAT_NA)
			sum = convert(b, def->conv, sum);
		/* v1's root-only stats (dying cgroups): as the text backend has them */
		if (id != b->root_id && mcs_def_root_only(def, h->version))
			sum = MEMCGSTAT_NA;
		vals[i] = sum;
	}
}
