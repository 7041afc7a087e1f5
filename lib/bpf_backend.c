// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The bpf backend: bpf/memcg_iter.bpf.c's programs read the chosen counters
 * through the memcg kfuncs; no text in between. It owns its policy: which
 * build of the programs the kernel can load, and which query path (the
 * syscall program, or a cgroup iterator per cgroup) single reads take.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/capability.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "handle.h"
#include "hierarchy.h"
#include "result.h"
#include "testing.h"
#include "memcg_iter.h"
#include "memcg_iter.skel.h"
#include "memcg_iter.upstream.skel.h"

#define INITIAL_RECORDS 1024
/*
 * The filter of a filtered snapshot starts small and grows when a snapshot
 * needs more. A hash map's buckets are allocated and set up at creation:
 * sized for MCS_MAX_FILTER_IDS, its 16 MiB took 60 M of the 164 M
 * instructions of memcgstat_open() (bench/insn profile, 4 stats).
 */
#define INITIAL_FILTER 64

/* The backend's state, behind h->priv. */
struct mcs_bpf {
	struct btf *btf;		/* vmlinux BTF, until the load */
	bool upstream_only;		/* kernel has Linux 7.0's kfuncs only */
	bool has_ids;			/* bpf_cgroup_from_id() and _ancestor() */
	struct memcg_iter *skel;
	struct mcs_item *items;		/* what the programs read, in order */
	int nr_items;
	int *first_item, *nr_col_items;	/* per column: items summed */
	uint32_t cap;			/* records the map holds */
	uint32_t filter_cap;		/* ids the keep_ids map holds */
	void *records;			/* mmapped records map */
	size_t records_len;
	uint64_t *filtered;		/* ids in the keep_ids map */
	size_t nr_filtered;
	uint64_t root_id;		/* the hierarchy root's cgroup id */
	uint64_t page_size;		/* page counters count pages */
	uint64_t page_counter_max;	/* PAGE_COUNTER_MAX: no limit */
	bool has_psi;			/* columns of memory.pressure */
};

static struct mcs_bpf *bpf_of(const struct memcgstat *h)
{
	return h->priv;
}

static bool has_cap(int cap)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = {};

	if (syscall(SYS_capget, &hdr, data))
		return false;
	return data[cap / 32].effective & (1U << (cap % 32));
}

static int silent_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

/* The kfuncs the backend looks for, in one pass over vmlinux BTF. */
enum {
	F_GET, F_PUT, F_FLUSH, F_PAGE_STATE, F_VM_EVENTS, F_MEMORY_EVENTS, F_USAGE,
	NR_NEEDED,			/* the Linux 7.0 set, all needed */
	F_LOCAL_STATE = NR_NEEDED, F_LOCAL_EVENTS, F_NODE_STATE,	/* memcgstat's */
	F_CGROUP_FROM_ID, F_CGROUP_ANCESTOR,				/* the syscall path's */
	NR_FUNCS
};

static const char *const func_names[NR_FUNCS] = {
	"bpf_get_mem_cgroup", "bpf_put_mem_cgroup", "bpf_mem_cgroup_flush_stats",
	"bpf_mem_cgroup_page_state", "bpf_mem_cgroup_vm_events",
	"bpf_mem_cgroup_memory_events", "bpf_mem_cgroup_usage",
	"bpf_memcgstat_page_state_local", "bpf_memcgstat_vm_events_local",
	"bpf_memcgstat_node_page_state",
	"bpf_cgroup_from_id", "bpf_cgroup_ancestor",
};

/* What the kernel must have; fills b->btf, b->upstream_only, b->has_ids. */
static int probe_kernel(struct memcgstat *h, struct mcs_bpf *b)
{
	struct mcs_btf_name f[NR_FUNCS] = {};
	bool local, node;
	libbpf_print_fn_t old;
	size_t i;

	old = libbpf_set_print(silent_print);
	b->btf = btf__load_vmlinux_btf();
	libbpf_set_print(old);
	if (!b->btf) {
		b->btf = NULL;
		return mcs_set_err(h, -EOPNOTSUPP,
				   "kernel has no BTF (/sys/kernel/btf/vmlinux): the bpf backend needs CONFIG_DEBUG_INFO_BTF");
	}
	for (i = 0; i < NR_FUNCS; i++) {
		f[i].name = func_names[i];
		f[i].func = true;
	}
	if (mcs_btf_lookup(b->btf, f, NR_FUNCS))
		return mcs_set_err(h, -ENOMEM, "out of memory");
	for (i = 0; i < NR_NEEDED; i++)
		if (!f[i].found)
			return mcs_set_err(h, -EOPNOTSUPP,
					   "kernel lacks kfunc %s (memcg stat kfuncs: Linux 7.0, or 6.12 with memcgstat's kernel/patches)",
					   func_names[i]);
	local = f[F_LOCAL_STATE].found && f[F_LOCAL_EVENTS].found;
	node = f[F_NODE_STATE].found;
	b->upstream_only = !local || !node;
	b->has_ids = f[F_CGROUP_FROM_ID].found && f[F_CGROUP_ANCESTOR].found;
	if ((h->flags & MEMCGSTAT_LOCAL) && !local)
		return mcs_set_err(h, -EOPNOTSUPP,
				   "kernel lacks kfunc bpf_memcgstat_page_state_local (local values need memcgstat's kernel/patches)");
	if ((h->flags & MEMCGSTAT_NUMA) && !node)
		return mcs_set_err(h, -EOPNOTSUPP,
				   "kernel lacks kfunc bpf_memcgstat_node_page_state (per-node values need memcgstat's kernel/patches)");
	return 0;
}

static void bpf_close(struct memcgstat *h);

int mcs_bpf_probe(struct memcgstat *h)
{
	struct mcs_bpf *b = calloc(1, sizeof(*b));
	int err;

	if (!b)
		return mcs_set_err(h, -ENOMEM, "out of memory");
	h->priv = b;
	err = probe_kernel(h, b);
	if (!err && !has_cap(CAP_SYS_ADMIN) && !(has_cap(CAP_BPF) && has_cap(CAP_PERFMON)))
		err = mcs_set_err(h, -EPERM,
				  "not permitted to load BPF: needs CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN");
	if (err)
		bpf_close(h);
	return err;
}

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
	if (mcs_btf_lookup(b->btf, parts, k))
		err = mcs_set_err(h, -ENOMEM, "out of memory");
	for (i = k = 0; !err && i < h->nr_cols; i++) {
		const struct mcs_column *c = &h->cols[i];
		int nid = c->nid < 0 ? 0 : c->nid;

		b->first_item[i] = n;
		if (c->def->src == MCS_SRC_PSI) {	/* the file, after the read */
			b->has_psi = true;
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

static void unload(struct mcs_bpf *b)
{
	if (b->records)
		munmap(b->records, b->records_len);
	b->records = NULL;
	memcg_iter__destroy(b->skel);
	b->skel = NULL;
	b->nr_filtered = 0;
}

_Static_assert(MEMCGSTAT_MAX_BATCH == MCS_MAX_BATCH, "batch sizes differ");
_Static_assert(INITIAL_RECORDS >= MCS_MAX_BATCH, "the records map holds a batch");

/*
 * The skeleton of memcg_iter.bpf.o, holding memcg_iter.upstream.bpf.o when
 * the kernel lacks memcgstat's kfuncs: one source, the same maps, programs
 * and variables, only the reads of the additions compiled out.
 */
static struct memcg_iter *open_skel(bool upstream_only)
{
	struct memcg_iter *obj = calloc(1, sizeof(*obj));
	int err;

	if (!obj)
		return NULL;
	err = memcg_iter__create_skeleton(obj);
	if (!err && upstream_only)
		obj->skeleton->data = (void *)memcg_iter_upstream__elf_bytes(&obj->skeleton->data_sz);
	if (!err)
		err = bpf_object__open_skeleton(obj->skeleton, NULL);
	if (err) {
		memcg_iter__destroy(obj);
		errno = -err;
		return NULL;
	}
	return obj;
}

_Static_assert(sizeof(struct memcg_iter__bss) == sizeof(struct memcg_iter_upstream__bss) &&
	       sizeof(struct memcg_iter__rodata) == sizeof(struct memcg_iter_upstream__rodata),
	       "the two builds of memcg_iter.bpf.c lay out their variables alike");

/* Load the programs for the chosen items, with a records map of @cap. */
static int load(struct memcgstat *h, struct mcs_bpf *b, uint32_t cap)
{
	size_t rec = MCS_RECORD_SIZE(b->nr_items);
	int err;

	b->skel = open_skel(b->upstream_only);
	if (!b->skel)
		return mcs_set_err(h, -errno, "failed to open the BPF object: %s", strerror(errno));
	bpf_program__set_autoload(b->skel->progs.batch, h->query == MEMCGSTAT_QUERY_SYSCALL);
	b->skel->rodata->nr_items = b->nr_items;
	memcpy((void *)b->skel->rodata->items, b->items, b->nr_items * sizeof(*b->items));
	if (!b->filter_cap)
		b->filter_cap = INITIAL_FILTER;
	err = bpf_map__set_value_size(b->skel->maps.records, rec);
	if (!err)
		err = bpf_map__set_max_entries(b->skel->maps.records, cap);
	if (!err)
		err = bpf_map__set_max_entries(b->skel->maps.keep_ids, b->filter_cap);
	if (err)
		return mcs_set_err(h, err, "failed to size the maps: %s", strerror(-err));
	err = memcg_iter__load(b->skel);
	if (err)
		return mcs_set_err(h, err, "failed to load BPF object: %s (run with -v for the verifier log)",
				   strerror(-err));
	b->cap = cap;
	b->records_len = rec * cap;
	b->records = mmap(NULL, b->records_len, PROT_READ, MAP_SHARED,
			  bpf_map__fd(b->skel->maps.records), 0);
	if (b->records == MAP_FAILED) {
		b->records = NULL;
		return mcs_set_err(h, -errno, "failed to mmap the records map: %s", strerror(errno));
	}
	return 0;
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

static int bpf_open(struct memcgstat *h)
{
	struct mcs_bpf *b = bpf_of(h);
	const char *why = NULL;
	struct stat st;
	int err = build_items(h, b);

	if (err)
		return err;
	if (stat(h->root, &st))
		return mcs_set_err(h, -errno, "%s: %s", h->root, strerror(errno));
	b->root_id = st.st_ino;
	b->page_size = sysconf(_SC_PAGESIZE);
	b->page_counter_max = LONG_MAX / b->page_size;	/* 64-bit: LONG_MAX / PAGE_SIZE */
	h->kfuncs = b->upstream_only ? "linux-7.0" : "linux-7.0+memcgstat";
	if (h->want_query != MEMCGSTAT_QUERY_ITER)
		why = syscall_unusable(h, b);
	if (why && h->want_query == MEMCGSTAT_QUERY_SYSCALL)
		return mcs_set_err(h, -EOPNOTSUPP, "no syscall query path: %s", why);
	h->query = why || h->want_query == MEMCGSTAT_QUERY_ITER ?
		   MEMCGSTAT_QUERY_ITER : MEMCGSTAT_QUERY_SYSCALL;
	if (why)
		snprintf(h->query_reason, sizeof(h->query_reason), "%s", why);
	/*
	 * Enum values and kfuncs are resolved; libbpf parses vmlinux BTF again
	 * while loading. Holding both copies made the CLI's peak RSS 10.9 MiB
	 * instead of 7.9 (make bench, 7.cli.rss).
	 */
	btf__free(b->btf);
	b->btf = NULL;
	err = load(h, b, INITIAL_RECORDS);
	if (err && h->query == MEMCGSTAT_QUERY_SYSCALL && h->want_query == MEMCGSTAT_QUERY_AUTO) {
		/* The kernel refused the syscall program: iterators only. */
		snprintf(h->query_reason, sizeof(h->query_reason),
			 "the kernel refused the syscall program: %.900s", h->err);
		h->err[0] = '\0';
		unload(b);
		h->query = MEMCGSTAT_QUERY_ITER;
		err = load(h, b, INITIAL_RECORDS);
	}
	return err;
}

/* A cgroup_iter link on the cgroup open at @fd, or with @id if fd < 0. */
static struct bpf_link *attach_iter(struct bpf_program *prog, int fd, uint64_t id,
				    enum bpf_cgroup_iter_order order)
{
	LIBBPF_OPTS(bpf_iter_attach_opts, opts);
	union bpf_iter_link_info linfo = {};

	if (fd >= 0)
		linfo.cgroup.cgroup_fd = fd;
	else
		linfo.cgroup.cgroup_id = id;
	linfo.cgroup.order = order;
	opts.link_info = &linfo;
	opts.link_info_len = sizeof(linfo);
	return bpf_program__attach_iter(prog, &opts);
}

static int attach(struct memcgstat *h, struct bpf_program *prog, const char *abs,
		  enum bpf_cgroup_iter_order order, struct bpf_link **link)
{
	int fd = open(abs, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return mcs_set_err(h, -errno, "cannot open cgroup %s: %s", abs, strerror(errno));
	*link = attach_iter(prog, fd, 0, order);
	if (!*link)
		err = mcs_set_err(h, -errno, "cannot attach the cgroup iterator to %s: %s",
				  abs, strerror(errno));
	close(fd);
	return err;
}

static int run_iter(struct memcgstat *h, struct bpf_link *link)
{
	char buf[64];
	ssize_t n;
	int fd = bpf_iter_create(bpf_link__fd(link));

	if (fd < 0)
		return mcs_set_err(h, -errno, "cannot create the cgroup iterator: %s", strerror(errno));
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	if (n < 0)
		n = mcs_set_err(h, -errno, "cgroup iterator read failed: %s", strerror(errno));
	close(fd);
	return n;
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

/*
 * The items of cgroup @id, summed into its columns (working_set: the
 * first minus the second, at least 0); NA if any is NA, and for a stat
 * whose file the cgroup v2 root lacks (memory.max, ...) at the root.
 */
static void to_columns(const struct memcgstat *h, uint64_t id, const __u64 *items,
		       uint64_t *vals)
{
	const struct mcs_bpf *b = bpf_of(h);
	bool v2_root = h->version == 2 && id == b->root_id;
	size_t i;
	int p;

	for (i = 0; i < h->nr_cols; i++) {
		const struct mcs_stat_def *def = h->cols[i].def;
		const __u64 *v = &items[b->first_item[i]];
		uint64_t sum = b->nr_col_items[i] ? 0 : MEMCGSTAT_NA;

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
		if (v2_root && def->file && !def->on_v2_root)
			sum = MEMCGSTAT_NA;
		vals[i] = sum;
	}
}

/*
 * memory.pressure, read from its file on this backend too (the kernel
 * aggregates it from per-CPU state when the file is read): into @vals of
 * the cgroup at @path (relative to the root; NULL: found by @id). A cgroup
 * gone meanwhile keeps NA.
 */
static int read_psi(struct memcgstat *h, const char *path, uint64_t id,
		    uint64_t *vals, bool *rescanned)
{
	char abs[PATH_MAX + 8];
	int err = 0;

	if (!bpf_of(h)->has_psi)
		return 0;
	if (!path)
		path = mcs_path_of(h, h->root, id, rescanned, &err);
	if (err)
		return mcs_set_err(h, err, "out of memory");
	if (!path)
		return 0;
	if (snprintf(abs, sizeof(abs), "%s%s", h->root, strcmp(path, "/") ? path : "") >=
	    (int)sizeof(abs))
		return mcs_set_err(h, -ENAMETOOLONG, "cgroup path too long: %s", path);
	err = mcs_text_read_files(h, abs, vals, true);
	if (err == -ENOENT || err == -ENODEV) {
		h->err[0] = '\0';
		err = 0;
	}
	return err;
}

/*
 * One run of the batch program for @nr ids: rows @first .. @first + nr - 1
 * of @res, one per id, get the values, or status -ENOENT (no such cgroup)
 * or -ENODATA (no memcg).
 */
static int run_batch(struct memcgstat *h, const uint64_t *ids, size_t nr,
		     struct memcgstat_result *res, size_t first)
{
	struct mcs_bpf *b = bpf_of(h);
	struct mcs_batch req = { .nr_ids = nr };
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.ctx_in = &req,
		.ctx_size_in = sizeof(req),
	);
	size_t rec = MCS_RECORD_SIZE(b->nr_items), i;
	const struct mcs_record *r;
	bool rescanned = false;
	int err;

	memcpy(b->skel->bss->batch_ids, ids, nr * sizeof(*ids));
	err = bpf_prog_test_run_opts(bpf_program__fd(b->skel->progs.batch), &opts);
	if (err)
		return mcs_set_err(h, -errno, "cannot run the batch program: %s", strerror(errno));
	if (opts.retval)
		return mcs_set_err(h, (int)opts.retval, "the batch program failed: %s",
				   strerror(-(int)opts.retval));
	h->last_query = MEMCGSTAT_QUERY_SYSCALL;
	for (i = 0; i < nr; i++) {
		r = (const void *)((char *)b->records + i * rec);
		switch (b->skel->bss->batch_status[i]) {
		case MCS_BATCH_OK:
			if (r->id != ids[i])
				return mcs_set_err(h, -EIO, "batch record %zu holds id %llu, not %llu",
						   i, (unsigned long long)r->id,
						   (unsigned long long)ids[i]);
			to_columns(h, r->id, r->values, mcs_result_row(res, first + i));
			err = read_psi(h, memcgstat_result_path(res, first + i), ids[i],
				       mcs_result_row(res, first + i), &rescanned);
			if (err)
				return err;
			break;
		case MCS_BATCH_GONE:
			mcs_result_set_status(res, first + i, -ENOENT);
			break;
		case MCS_BATCH_NO_MEMCG:
			mcs_result_set_status(res, first + i, -ENODATA);
			break;
		default:
			return mcs_set_err(h, -EIO, "batch program left id %zu unread", i);
		}
	}
	return 0;
}

/* read_one through a link made for it; the link is gone after. */
static int read_link(struct memcgstat *h, struct bpf_link *link, const char *what,
		     uint64_t *vals)
{
	struct mcs_bpf *b = bpf_of(h);
	int err;

	b->skel->bss->one_no_memcg = 0;
	err = run_iter(h, link);
	bpf_link__destroy(link);
	if (err)
		return err;
	if (b->skel->bss->one_no_memcg)
		return mcs_set_err(h, -ENODATA, "cgroup %s has no memory controller", what);
	to_columns(h, b->skel->bss->one_id, b->skel->bss->values, vals);
	return 0;
}

static int bpf_read_path(struct memcgstat *h, const char *abs, uint64_t *vals)
{
	struct bpf_link *link;
	int err;

	h->last_query = MEMCGSTAT_QUERY_ITER;
	err = attach(h, bpf_of(h)->skel->progs.read_one, abs, BPF_CGROUP_ITER_SELF_ONLY, &link);
	if (!err)
		err = read_link(h, link, abs, vals);
	if (!err && bpf_of(h)->has_psi)
		err = mcs_text_read_files(h, abs, vals, true);
	return err;
}

/* The iterator on the cgroup v2 cgroup with this id; -ENOENT if none. */
static int read_id(struct memcgstat *h, uint64_t id, uint64_t *vals)
{
	struct bpf_link *link;
	bool rescanned = false;
	libbpf_print_fn_t old;
	char what[32];
	int err;

	h->last_query = MEMCGSTAT_QUERY_ITER;
	/* a removed cgroup is not an error here: keep libbpf quiet about it */
	old = libbpf_set_print(silent_print);
	link = attach_iter(bpf_of(h)->skel->progs.read_one, -1, id, BPF_CGROUP_ITER_SELF_ONLY);
	libbpf_set_print(old);
	if (!link) {
		if (errno == ENOENT)
			return -ENOENT;
		return mcs_set_err(h, -errno, "cannot attach the cgroup iterator to cgroup id %llu: %s",
				   (unsigned long long)id, strerror(errno));
	}
	snprintf(what, sizeof(what), "id %llu", (unsigned long long)id);
	err = read_link(h, link, what, vals);
	return err ? err : read_psi(h, NULL, id, vals, &rescanned);
}

/*
 * One cgroup by path. On the syscall path: one stat() for its id, one run
 * of the batch program, which says whether the cgroup has a memcg.
 */
static int bpf_read(struct memcgstat *h, const char *cgroup, const char *abs,
		    struct memcgstat_result *res)
{
	struct stat st;
	uint64_t id;
	int err, status;

	if (h->query != MEMCGSTAT_QUERY_SYSCALL)
		return mcs_read_checked(h, cgroup, abs, res);
	if (stat(abs, &st))
		return mcs_set_err(h, -errno, "cgroup %s: %s (%s)", cgroup, strerror(errno), abs);
	if (!S_ISDIR(st.st_mode))
		return mcs_set_err(h, -ENOTDIR, "%s is not a cgroup", abs);
	id = st.st_ino;
	if (!mcs_result_add(res, id, mcs_rel_path(h, abs)))
		return mcs_set_err(h, -ENOMEM, "out of memory");
	err = run_batch(h, &id, 1, res, 0);
	status = memcgstat_result_status(res, 0);
	if (!err && status == -ENOENT)
		err = mcs_set_err(h, -ENOENT, "cgroup %s: removed while read (%s)", cgroup, abs);
	if (!err && status == -ENODATA)
		err = mcs_set_err(h, -ENODATA,
				  "cgroup %s has no memory controller (enable it in the parent's cgroup.subtree_control)",
				  cgroup);
	return err;
}

/* A list of ids: one batch run; or an iterator per id (v2), by path on v1. */
static int bpf_read_ids(struct memcgstat *h, const uint64_t *ids, size_t nr,
			struct memcgstat_result *res)
{
	uint64_t *vals;
	size_t i;
	int err = 0;

	if (h->version != 2)
		return mcs_read_ids_by_path(h, ids, nr, res);
	for (i = 0; i < nr; i++) {
		vals = mcs_result_add(res, ids[i], NULL);
		if (!vals)
			return mcs_set_err(h, -ENOMEM, "out of memory");
		if (h->query == MEMCGSTAT_QUERY_SYSCALL)
			continue;
		/* the iterator takes a cgroup v2 id as it is */
		err = read_id(h, ids[i], vals);
		if (err == -ENOENT || err == -ENODATA) {
			h->err[0] = '\0';
			mcs_result_set_status(res, i, err);
		} else if (err) {
			return err;
		}
	}
	if (h->query == MEMCGSTAT_QUERY_SYSCALL && nr)
		return run_batch(h, ids, nr, res, 0);
	return 0;
}

static int set_filter(struct memcgstat *h, const uint64_t *ids, size_t nr_ids)
{
	struct mcs_bpf *b = bpf_of(h);
	int fd = bpf_map__fd(b->skel->maps.keep_ids);
	uint64_t *copy = NULL;
	__u8 one = 1;
	size_t i;
	int err;

	if (nr_ids > MCS_MAX_FILTER_IDS)
		return mcs_set_err(h, -E2BIG, "at most %d cgroup ids per filtered snapshot", MCS_MAX_FILTER_IDS);
	if (nr_ids > b->filter_cap) {
		/* a bigger filter map: load again, keeping the records map's size */
		unload(b);
		b->filter_cap = nr_ids;
		err = load(h, b, b->cap);
		if (err)
			return err;
		fd = bpf_map__fd(b->skel->maps.keep_ids);
	}
	for (i = 0; i < b->nr_filtered; i++)
		bpf_map_delete_elem(fd, &b->filtered[i]);
	b->nr_filtered = 0;
	if (nr_ids) {
		copy = realloc(b->filtered, nr_ids * sizeof(*copy));
		if (!copy)
			return mcs_set_err(h, -ENOMEM, "out of memory");
		b->filtered = copy;
	}
	for (i = 0; i < nr_ids; i++) {
		if (bpf_map_update_elem(fd, &ids[i], &one, BPF_ANY))
			return mcs_set_err(h, -errno, "cannot fill the cgroup id filter: %s", strerror(errno));
		b->filtered[b->nr_filtered++] = ids[i];
	}
	b->skel->bss->filter_ids = ids != NULL;
	return 0;
}

/* Walk the tree at @abs into the records map; grow the map if it is short. */
static int walk(struct memcgstat *h, const char *abs, const uint64_t *ids, size_t nr_ids)
{
	struct mcs_bpf *b = bpf_of(h);
	struct bpf_link *link = NULL;
	uint32_t seen;
	int err, try;

	for (try = 0; try < 4; try++) {
		err = set_filter(h, ids, nr_ids);
		if (!err)
			err = attach(h, b->skel->progs.snapshot, abs,
				     BPF_CGROUP_ITER_DESCENDANTS_PRE, &link);
		if (err)
			return err;
		memset(&b->skel->bss->walk, 0, sizeof(b->skel->bss->walk));
		b->skel->bss->walk_flushed = false;
		err = run_iter(h, link);
		bpf_link__destroy(link);
		if (err)
			return err;
		seen = b->skel->bss->walk.nr_seen;
		if (seen <= b->cap)
			return 0;
		/* The tree outgrew the records map: grow it, walk again. */
		unload(b);
		err = load(h, b, seen + seen / 2 + 64);
		if (err)
			return err;
	}
	return mcs_set_err(h, -EAGAIN, "the cgroup tree kept growing faster than the snapshot");
}

static int bpf_snapshot(struct memcgstat *h, const char *abs,
			const uint64_t *ids, size_t nr_ids,
			struct memcgstat_result *res)
{
	struct mcs_bpf *b = bpf_of(h);
	size_t rec = MCS_RECORD_SIZE(b->nr_items), i;
	bool rescanned = false;
	int err = walk(h, abs, ids, nr_ids);

	for (i = 0; !err && i < b->skel->bss->walk.nr_records; i++) {
		const struct mcs_record *r = (const void *)((char *)b->records + i * rec);
		const char *path = mcs_path_of(h, abs, r->id, &rescanned, &err);
		uint64_t *vals;

		if (err)
			return mcs_set_err(h, err, "out of memory");
		if (!path)
			continue;	/* removed since the walk */
		vals = mcs_result_add(res, r->id, path);
		if (!vals)
			return mcs_set_err(h, -ENOMEM, "out of memory");
		to_columns(h, r->id, r->values, vals);
		err = read_psi(h, path, r->id, vals, &rescanned);
	}
	return err;
}

static void bpf_close(struct memcgstat *h)
{
	struct mcs_bpf *b = bpf_of(h);

	if (!b)
		return;
	unload(b);
	btf__free(b->btf);
	free(b->items);
	free(b->first_item);
	free(b->nr_col_items);
	free(b->filtered);
	free(b);
	h->priv = NULL;
}

/*
 * Whether the kernel has every enumerator @def is read with. vmlinux BTF,
 * freed once the programs are loaded, is parsed again for the first such
 * question and kept until the handle closes.
 */
static int bpf_has_stat(struct memcgstat *h, const struct mcs_stat_def *def)
{
	struct mcs_btf_name parts[MCS_MAX_PARTS] = {};
	struct mcs_bpf *b = bpf_of(h);
	libbpf_print_fn_t old;
	int p, n = 0, err;

	/* a field: where this hierarchy's files have it (swap accounting, v1 or v2) */
	if (mcs_def_is_field(def))
		return mcs_files_have(h, def);
	for (p = 0; p < MCS_MAX_PARTS && def->parts[p]; p++)
		parts[n++].name = def->parts[p];
	if (!n)
		return 1;	/* usage: the page counter */
	if (!b->btf) {
		old = libbpf_set_print(silent_print);
		b->btf = btf__load_vmlinux_btf();
		libbpf_set_print(old);
		if (!b->btf) {
			b->btf = NULL;
			return mcs_set_err(h, -EOPNOTSUPP, "cannot load vmlinux BTF");
		}
	}
	err = mcs_btf_lookup(b->btf, parts, n);
	if (err)
		return mcs_set_err(h, err, "out of memory");
	for (p = 0; p < n; p++)
		if (!parts[p].found)
			return 0;
	return 1;
}

const struct mcs_backend mcs_bpf_backend = {
	.id = MEMCGSTAT_BACKEND_BPF,
	.open = bpf_open,
	.close = bpf_close,
	.read_path = bpf_read_path,
	.read = bpf_read,
	.read_ids = bpf_read_ids,
	.snapshot = bpf_snapshot,
	.has_stat = bpf_has_stat,
};

struct memcg_iter *memcgstat__testing_skel(struct memcgstat *h)
{
	struct mcs_bpf *b = memcgstat_backend(h) == MEMCGSTAT_BACKEND_BPF ? bpf_of(h) : NULL;

	return b ? b->skel : NULL;
}
