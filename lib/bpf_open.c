// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The bpf backend: bpf/memcg_iter.bpf.c's programs read the chosen counters
 * through the memcg kfuncs; no text in between. Opening a handle: the
 * probe (the pins, else the kernel), the query path (the syscall program,
 * or a cgroup iterator per cgroup) and the load; the backend's table of
 * operations. bpf_backend.h lists the other parts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "bpf_backend.h"
#include "testing.h"
#include "memcg_iter.skel.h"

/*
 * The records map holds at least this many cgroups at its first load, and
 * at most the second. A batch of more ids than it holds runs in parts
 * (bpf_read.c, run_batch()).
 */
#define INITIAL_RECORDS 64
#define MAX_INITIAL_RECORDS (1 << 20)
_Static_assert(MEMCGSTAT_MAX_BATCH == MCS_MAX_BATCH, "batch sizes differ");

static bool may_pin(const struct memcgstat *h)
{
	return (h->flags & MEMCGSTAT_PINNED) && !(h->flags & (MEMCGSTAT_LOCAL | MEMCGSTAT_NUMA));
}

int mcs_bpf_probe(struct memcgstat *h)
{
	struct mcs_bpf *b = calloc(1, sizeof(*b));
	int err = -ENOENT;

	if (!b)
		return mcs_set_err(h, -ENOMEM, "out of memory");
	h->priv = b;
	b->fd_snapshot = b->fd_batch = b->fd_bss = -1;
	b->fd_records = b->fd_keep_ids = b->pin_fd = b->fd_names = -1;
	/* pinned programs: no vmlinux BTF, no load */
	if (may_pin(h))
		err = mcs_bpf_open_pins(h, b);
	if (err && (h->flags & MEMCGSTAT_PIN_REQUIRED)) {
		mcs_bpf_close(h);
		return err;
	}
	h->err[0] = '\0';
	if (err)
		err = mcs_bpf_probe_kernel(h, b);
	if (!err)
		err = mcs_bpf_permitted(h);
	if (err)
		mcs_bpf_close(h);
	return err;
}

/*
 * Records for the cgroups there are now and a quarter more: /proc/cgroups
 * counts the memory hierarchy's cgroups (v1 and v2). A snapshot of a tree
 * larger than the map loads the programs again with a larger one, which
 * made a new handle's first snapshot of 10,001 cgroups cost 121.8 M
 * instructions against 6.6 M for a steady one (make bench 4.first.10000).
 * No more than that: each load allocates the map's pages cleared, and on a
 * host of few cgroups the old floor of a whole batch (1,024 records, 737 KB
 * with every stat) was most of that (make bench 7.open.all, issue 22's
 * sixth step).
 */
static uint32_t initial_records(void)
{
	char line[256], name[64];
	unsigned long n = 0, hier, cgs, on;
	FILE *f = fopen("/proc/cgroups", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %lu %lu %lu", name, &hier, &cgs, &on) == 4 &&
		    !strcmp(name, "memory"))
			n = cgs;
	if (f)
		fclose(f);
	n += n / 4 + 64;
	return n < INITIAL_RECORDS ? INITIAL_RECORDS : n > MAX_INITIAL_RECORDS ? MAX_INITIAL_RECORDS : n;
}

/* Whether the syscall query path can work here; if not, why. */
static const char *syscall_unusable(const struct memcgstat *h, const struct mcs_bpf *b)
{
	if (h->version != 2)
		return "cgroup v1: cgroup ids name cgroup v2 cgroups only";
	if (!b->has_ids)
		return "kernel lacks kfuncs bpf_cgroup_from_id/bpf_cgroup_ancestor (Linux 6.2)";
	return NULL;
}

/*
 * The columns of @h from the pins' items; -ENOENT if a stat is not among
 * them (the pinning handle's kernel did not have it, or an older table).
 */
static int pinned_columns(struct memcgstat *h, struct mcs_bpf *b)
{
	const struct mcs_pin_meta *m = b->meta;
	size_t i, d;
	int err;

	b->first_item = calloc(h->nr_cols, sizeof(*b->first_item));
	b->nr_col_items = calloc(h->nr_cols, sizeof(*b->nr_col_items));
	b->items = calloc(MCS_MAX_ITEMS, sizeof(*b->items));
	if (!b->first_item || !b->nr_col_items || !b->items)
		return mcs_set_err(h, -ENOMEM, "out of memory");
	for (i = 0; i < h->nr_cols; i++) {
		d = h->cols[i].def - mcs_stat_defs;
		if (m->first[d] < 0)
			return mcs_set_err(h, -ENOENT, "stat '%s' is not among the pinned programs' counters",
					   h->cols[i].def->name);
		b->first_item[i] = m->first[d];
		b->nr_col_items[i] = m->count[d];
		if (mcs_def_file_only(h->cols[i].def))
			b->has_file_cols = true;
	}
	b->nr_items = m->nr_items;
	memcpy(b->items, m->items, m->nr_items * sizeof(*b->items));
	err = mcs_bpf_plan_columns(h, b);
	if (err)
		return err;
	h->kfuncs = b->upstream_only ? "linux-7.0" : "linux-7.0+memcgstat";
	h->query = m->query;
	snprintf(h->query_reason, sizeof(h->query_reason), "%.500s", m->query_reason);
	if (h->want_query && h->want_query != h->query)
		return mcs_set_err(h, -EOPNOTSUPP, "the pinned programs read with the %s path",
				   memcgstat_query_name(h->query));
	return 0;
}

/* Give the pins up: this handle loads its own programs after all. */
static int unpinned(struct memcgstat *h, struct mcs_bpf *b)
{
	mcs_bpf_unload(b);
	free(b->meta);
	b->meta = NULL;
	free(b->items);
	free(b->first_item);
	free(b->nr_col_items);
	free(b->copy_col);
	b->items = NULL;
	b->first_item = b->nr_col_items = NULL;
	b->copy_col = NULL;
	if (h->flags & MEMCGSTAT_PIN_REQUIRED)
		return -ENOENT;		/* said by pinned_columns() */
	h->err[0] = '\0';
	return mcs_bpf_probe_kernel(h, b);
}

static int bpf_open(struct memcgstat *h)
{
	struct mcs_bpf *b = bpf_of(h);
	const char *why = NULL;
	struct stat st;
	int err;

	if (stat(h->root, &st))
		return mcs_set_err(h, -errno, "%s: %s", h->root, strerror(errno));
	b->root_id = st.st_ino;
	b->page_size = sysconf(_SC_PAGESIZE);
	b->page_counter_max = LONG_MAX / b->page_size;	/* 64-bit: LONG_MAX / PAGE_SIZE */
	if (b->meta) {
		err = pinned_columns(h, b);
		if (!err)
			return 0;
		err = unpinned(h, b);
		if (err)
			return err;
	}
	err = mcs_bpf_plan(h, b);
	if (err)
		return err;
	h->kfuncs = b->upstream_only ? "linux-7.0" : "linux-7.0+memcgstat";
	if (h->want_query != MEMCGSTAT_QUERY_ITER)
		why = syscall_unusable(h, b);
	if (!why && h->want_query == MEMCGSTAT_QUERY_AUTO && h->expected_reads &&
	    h->expected_reads < MEMCGSTAT_SYSCALL_PAYS_AFTER) {
		snprintf(h->query_reason, sizeof(h->query_reason),
			 "%ld read%s expected: the syscall program's load costs more than it saves before %d",
			 h->expected_reads, h->expected_reads == 1 ? "" : "s", MEMCGSTAT_SYSCALL_PAYS_AFTER);
		h->query = MEMCGSTAT_QUERY_ITER;
		goto chosen;
	}
	if (why && h->want_query == MEMCGSTAT_QUERY_SYSCALL)
		return mcs_set_err(h, -EOPNOTSUPP, "no syscall query path: %s", why);
	h->query = why || h->want_query == MEMCGSTAT_QUERY_ITER ?
		   MEMCGSTAT_QUERY_ITER : MEMCGSTAT_QUERY_SYSCALL;
	if (why)
		snprintf(h->query_reason, sizeof(h->query_reason), "%s", why);
chosen:
	err = mcs_bpf_load(h, b, initial_records());
	if (err && h->query == MEMCGSTAT_QUERY_SYSCALL && h->want_query == MEMCGSTAT_QUERY_AUTO) {
		/* The kernel refused the syscall program: iterators only. */
		snprintf(h->query_reason, sizeof(h->query_reason),
			 "the kernel refused the syscall program: %.900s", h->err);
		h->err[0] = '\0';
		mcs_bpf_unload(b);
		h->query = MEMCGSTAT_QUERY_ITER;
		err = mcs_bpf_load(h, b, initial_records());
	}
	return err;
}

const struct mcs_backend mcs_bpf_backend = {
	.id = MEMCGSTAT_BACKEND_BPF,
	.open = bpf_open,
	.close = mcs_bpf_close,
	.read_path = mcs_bpf_read_path,
	.read = mcs_bpf_read,
	.read_ids = mcs_bpf_read_ids,
	.snapshot = mcs_bpf_snapshot,
	.has_stat = mcs_bpf_has_stat,
};

/* The bpf backend's state of @h for the testing hooks; NULL with the text backend. */
static struct mcs_bpf *testing_bpf(struct memcgstat *h)
{
	return memcgstat_backend(h) == MEMCGSTAT_BACKEND_BPF ? bpf_of(h) : NULL;
}

struct memcg_iter *memcgstat__testing_skel(struct memcgstat *h)
{
	struct mcs_bpf *b = testing_bpf(h);

	return b ? b->skel : NULL;
}

const char *memcgstat__testing_loader(struct memcgstat *h)
{
	struct mcs_bpf *b = testing_bpf(h);

	if (!b)
		return NULL;
	return b->meta ? "pins" : b->in_kernel ? "kernel" : "libbpf";
}

int memcgstat__testing_answered(struct memcgstat *h)
{
	struct mcs_bpf *b = testing_bpf(h);

	return b ? (int)b->nr_answered : 0;
}

size_t memcgstat__testing_folded(struct memcgstat *h)
{
	struct mcs_bpf *b = testing_bpf(h);

	return b ? b->nr_folded : 0;
}

int memcgstat__testing_btf_mapped(struct memcgstat *h)
{
	struct mcs_bpf *b = testing_bpf(h);

	return b && b->vmlinux ? mcs_vmlinux_mapped(b->vmlinux) : -1;
}

int memcgstat__testing_prog_fd(struct memcgstat *h, const char *name)
{
	struct mcs_bpf *b = testing_bpf(h);

	if (!b)
		return -1;
	return !strcmp(name, "snapshot") ? b->fd_snapshot : !strcmp(name, "batch") ? b->fd_batch : -1;
}

int memcgstat__testing_map_fd(struct memcgstat *h, const char *name)
{
	struct mcs_bpf *b = testing_bpf(h);

	if (!b)
		return -1;
	return !strcmp(name, "records") ? b->fd_records : !strcmp(name, "names") ? b->fd_names : -1;
}
