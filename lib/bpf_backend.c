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
#include <sys/file.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/btf.h>
#include <linux/capability.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <bpf/skel_internal.h>	/* the in-kernel loader's context */
#include "handle.h"
#include "hierarchy.h"
#include "loader.h"
#include "result.h"
#include "testing.h"
#include "memcg_iter.h"
#include "memcg_iter.skel.h"
#include "memcg_iter.upstream.skel.h"
#include "memcg_pin_id.h"

#define INITIAL_RECORDS 1024
/* The records map holds at most this many cgroups at its first load. */
#define MAX_INITIAL_RECORDS (1 << 20)
/*
 * The filter of a filtered snapshot starts small and grows when a snapshot
 * needs more. A hash map's buckets are allocated and set up at creation:
 * sized for MCS_MAX_FILTER_IDS, its 16 MiB took 60 M of the then 164 M
 * instructions of memcgstat_open() (bench/insn profile, 4 stats).
 */
#define INITIAL_FILTER 64

/* The kfuncs the backend looks for, in one pass over vmlinux BTF. */
enum {
	F_GET, F_PUT, F_FLUSH, F_PAGE_STATE, F_VM_EVENTS, F_MEMORY_EVENTS, F_USAGE,
	NR_NEEDED,			/* the Linux 7.0 set, all needed */
	F_LOCAL_STATE = NR_NEEDED, F_LOCAL_EVENTS, F_NODE_STATE, F_READ,	/* memcgstat's */
	F_CGROUP_FROM_ID, F_CGROUP_ANCESTOR,				/* the syscall path's */
	/* found for their type ids only (mcs_loader_answer()) */
	F_CGROUP_RELEASE, F_RDONLY_CAST, F_ITER_CGROUP,
	NR_FUNCS
};

static const char *const func_names[NR_FUNCS] = {
	"bpf_get_mem_cgroup", "bpf_put_mem_cgroup", "bpf_mem_cgroup_flush_stats",
	"bpf_mem_cgroup_page_state", "bpf_mem_cgroup_vm_events",
	"bpf_mem_cgroup_memory_events", "bpf_mem_cgroup_usage",
	"bpf_memcgstat_page_state_local", "bpf_memcgstat_vm_events_local",
	"bpf_memcgstat_node_page_state", "bpf_memcgstat_read",
	"bpf_cgroup_from_id", "bpf_cgroup_ancestor",
	"bpf_cgroup_release", "bpf_rdonly_cast", "bpf_iter_cgroup",
};

/* The backend's state, behind h->priv. */
struct mcs_bpf {
	struct mcs_vmlinux *vmlinux;	/* what the backend needs of vmlinux BTF */
	bool upstream_only;		/* kernel has Linux 7.0's kfuncs only */
	int func_ids[NR_FUNCS];		/* their vmlinux BTF type ids, 0 if none */
	size_t nr_answered;		/* the last load's lookups answered (testing) */
	size_t nr_folded;		/* and the loader's instructions folded away */
	bool has_ids;			/* bpf_cgroup_from_id() and _ancestor() */
	bool has_read;			/* bpf_memcgstat_read() */
	struct memcg_iter *skel;
	struct mcs_item *items;		/* what the programs read, in order */
	int nr_items;
	int nr_fast;			/* items[0 .. nr_fast - 1]: bpf_memcgstat_read() */
	int *first_item, *nr_col_items;	/* per column: items summed */
	bool *copy_col;			/* per column: its one item is its value */
	bool plain;			/* one item per column: items are the values */
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
	bool in_kernel;			/* the programs loaded by the in-kernel loader */

	/* what the reads use: the loader's programs and maps, or the pins' */
	int fd_snapshot, fd_batch, fd_records, fd_keep_ids, fd_names, fd_bss;
	struct memcg_iter__bss *bss;
	struct mcs_name *names;		/* the names map, mapped at first use */
	size_t names_len;
	size_t bss_len;			/* mmapped by us (pins), else 0 */
	/* MEMCGSTAT_PINNED: the directory of the pins, flock()ed per read */
	int pin_fd;
	struct mcs_pin_meta *meta;	/* the pins' description */
};

/*
 * What memcgstat_pin() leaves beside the programs and maps, in an array
 * map of one frozen element: enough to open a handle on them without
 * vmlinux BTF or a load.
 */
#define MCS_PIN_MAGIC	"mcspin1"

struct mcs_pin_meta {
	char magic[8];
	char id[24];			/* MCS_PIN_ID of the library that pinned */
	__u32 nr_items, cap, filter_cap;
	__u32 query;			/* enum memcgstat_query the pins have */
	__u32 upstream_only, has_ids;
	struct mcs_item items[MCS_MAX_ITEMS];
	/* per mcs_stat_defs[] entry: its items, first -1 if not pinned */
	__s16 first[256], count[256];
	char query_reason[512];
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

/* What the kernel must have; fills b->vmlinux, b->upstream_only, b->has_ids, b->has_read. */
static int probe_kernel(struct memcgstat *h, struct mcs_bpf *b)
{
	struct mcs_btf_name f[NR_FUNCS] = {};
	bool local, node;
	size_t i;
	int err;

	if (!b->vmlinux) {
		err = mcs_vmlinux_load(func_names, NR_FUNCS, &b->vmlinux);
		if (err == -ENOENT)
			return mcs_set_err(h, -EOPNOTSUPP,
					   "kernel has no BTF (/sys/kernel/btf/vmlinux): the bpf backend needs CONFIG_DEBUG_INFO_BTF");
		if (err)
			return mcs_set_err(h, err == -ENOMEM ? err : -EOPNOTSUPP,
					   "cannot read /sys/kernel/btf/vmlinux: %s",
					   err == -EPROTO ? "not BTF as this library reads it" : strerror(-err));
	}
	for (i = 0; i < NR_FUNCS; i++) {
		f[i].name = func_names[i];
		f[i].func = true;
	}
	mcs_vmlinux_lookup(b->vmlinux, f, NR_FUNCS);
	for (i = 0; i < NR_FUNCS; i++)
		b->func_ids[i] = f[i].found ? f[i].val : 0;
	for (i = 0; i < NR_NEEDED; i++)
		if (!f[i].found)
			return mcs_set_err(h, -EOPNOTSUPP,
					   "kernel lacks kfunc %s (memcg stat kfuncs: Linux 7.0, or 6.12 with memcgstat's kernel/patches)",
					   func_names[i]);
	local = f[F_LOCAL_STATE].found && f[F_LOCAL_EVENTS].found;
	node = f[F_NODE_STATE].found;
	b->upstream_only = !local || !node;
	b->has_ids = f[F_CGROUP_FROM_ID].found && f[F_CGROUP_ANCESTOR].found;
	b->has_read = !b->upstream_only && f[F_READ].found;
	/* what this kernel has, said: Linux 7.0's set is a kernel of its own */
	if ((h->flags & MEMCGSTAT_LOCAL) && !local)
		return mcs_set_err(h, -EOPNOTSUPP,
				   "local values need memcgstat's kernel additions (kfunc %s, kernel/patches): this kernel %s",
				   func_names[f[F_LOCAL_STATE].found ? F_LOCAL_EVENTS : F_LOCAL_STATE],
				   node ? "lacks it" : "has Linux 7.0's memcg kfuncs only");
	if ((h->flags & MEMCGSTAT_NUMA) && !node)
		return mcs_set_err(h, -EOPNOTSUPP,
				   "per-node values need memcgstat's kernel additions (kfunc bpf_memcgstat_node_page_state, kernel/patches): this kernel %s",
				   local ? "lacks it" : "has Linux 7.0's memcg kfuncs only");
	return 0;
}

static bool may_load(void)
{
	return has_cap(CAP_SYS_ADMIN) || (has_cap(CAP_BPF) && has_cap(CAP_PERFMON));
}

static const char not_permitted[] =
	"not permitted to load BPF: needs CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN";

int mcs_bpf_check(struct memcgstat *h, char *why, size_t size)
{
	struct mcs_bpf *b = calloc(1, sizeof(*b));
	char saved[sizeof(h->err)];
	int err;

	if (!b) {
		snprintf(why, size, "out of memory");
		return -ENOMEM;
	}
	memcpy(saved, h->err, sizeof(saved));
	h->err[0] = '\0';
	err = probe_kernel(h, b);
	if (!err && !may_load())
		err = mcs_set_err(h, -EPERM, "%s", not_permitted);
	snprintf(why, size, "%s", err ? h->err : "");
	memcpy(h->err, saved, sizeof(saved));
	mcs_vmlinux_free(b->vmlinux);
	free(b);
	return err;
}

int mcs_bpf_may_load(struct memcgstat *h)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		return mcs_set_err(h, errno == ENOENT ? -EOPNOTSUPP : -errno,
				   errno == ENOENT ? "kernel has no BTF (/sys/kernel/btf/vmlinux): the bpf backend needs CONFIG_DEBUG_INFO_BTF" :
				   "cannot read /sys/kernel/btf/vmlinux: %s", strerror(errno));
	if (!may_load())
		return mcs_set_err(h, -EPERM, "%s", not_permitted);
	return 0;
}

static void bpf_close(struct memcgstat *h);

static int open_pins(struct memcgstat *h, struct mcs_bpf *b);

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
		err = open_pins(h, b);
	if (err && (h->flags & MEMCGSTAT_PIN_REQUIRED)) {
		bpf_close(h);
		return err;
	}
	h->err[0] = '\0';
	if (err)
		err = probe_kernel(h, b);
	if (!err && !may_load())
		err = mcs_set_err(h, -EPERM, "%s", not_permitted);
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
	mcs_vmlinux_lookup(b->vmlinux, parts, k);
	for (i = k = 0; !err && i < h->nr_cols; i++) {
		const struct mcs_column *c = &h->cols[i];
		int nid = c->nid < 0 ? 0 : c->nid;

		b->first_item[i] = n;
		if (mcs_def_file_only(c->def)) {	/* the file, after the read */
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

/*
 * How each column comes from the items, once per handle: a copy of its one
 * item where that is its value, and the whole row one memcpy() (plain)
 * where every column is such a copy, in order. Not a copy: a value to
 * convert (pages, no limit), derived (working_set, sums), read from a file
 * (memory.pressure) or missing from the v2 root's files (memory.events,
 * memory.max, ...). Decoding all 63 columns of memory.stat's counters with
 * the general loop cost 33 instructions a column (make bench, profile of
 * 1.all.into).
 */
static int plan_columns(struct memcgstat *h, struct mcs_bpf *b)
{
	size_t i;

	free(b->copy_col);
	b->copy_col = calloc(h->nr_cols ? h->nr_cols : 1, sizeof(*b->copy_col));
	if (!b->copy_col)
		return mcs_set_err(h, -ENOMEM, "out of memory");
	b->plain = (size_t)b->nr_items == h->nr_cols;
	for (i = 0; i < h->nr_cols; i++) {
		const struct mcs_stat_def *def = h->cols[i].def;

		b->copy_col[i] = b->nr_col_items[i] == 1 && def->conv == MCS_CONV_NONE &&
				 def->src != MCS_SRC_WORKING_SET && !mcs_def_file_only(def) &&
				 !(h->version == 2 && def->file && !def->on_v2_root) &&
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
 * to_columns()), and count them in b->nr_fast; the programs read those in
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

static int dup_fd(int fd)
{
	return fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Drop the programs and maps: the skeleton's, or the pins'. */
static void unload(struct mcs_bpf *b)
{
	if (b->records)
		munmap(b->records, b->records_len);
	b->records = NULL;
	if (b->names)
		munmap(b->names, b->names_len);
	b->names = NULL;
	if (b->bss_len)
		munmap(b->bss, b->bss_len);
	b->bss = NULL;
	b->bss_len = 0;
	/* the skeleton's object unmaps .bss, mapped over its own copy */
	memcg_iter__destroy(b->skel);
	b->skel = NULL;
	close_fd(&b->fd_names);
	close_fd(&b->fd_snapshot);
	close_fd(&b->fd_batch);
	close_fd(&b->fd_records);
	close_fd(&b->fd_keep_ids);
	close_fd(&b->fd_bss);
	close_fd(&b->pin_fd);	/* and its lock, if held */
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

	if (!obj) {
		errno = ENOMEM;	/* the caller returns -errno: never 0 */
		return NULL;
	}
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

/*
 * The loader's context: a struct bpf_loader_ctx, then a struct
 * bpf_map_desc for each of the object's maps and a struct bpf_prog_desc
 * for each of its programs in libbpf's order, where the subprograms
 * (.text) count too and get no fd. A context too small for the loader's
 * accesses fails its run (EINVAL).
 */
#define MCS_MAX_MAPS	8
#define MCS_MAX_PROGS	32

struct mcs_loader_ctx {
	struct bpf_loader_ctx ctx;
	struct bpf_map_desc maps[MCS_MAX_MAPS];
	struct bpf_prog_desc progs[MCS_MAX_PROGS];
};

/* The snapshot program (@batch false) or the batch program, in the form @fast says. */
static struct bpf_program *prog_of(const struct memcg_iter *sk, bool batch, bool fast)
{
	if (batch)
		return fast ? sk->progs.batch_fast : sk->progs.batch;
	return fast ? sk->progs.snapshot_fast : sk->progs.snapshot;
}

/*
 * Load with an in-kernel loader (libbpf's gen_loader, as a light skeleton
 * does, generated here after the sizes and .rodata are set): libbpf then
 * reads no vmlinux BTF. Fills the fds; .bss mapped over the skeleton's
 * copy, so b->skel->bss is the map's. -errno on failure, nothing said.
 */
static int load_in_kernel(struct mcs_bpf *b, bool fast)
{
	LIBBPF_OPTS(gen_loader_opts, gen);
	struct memcg_iter *sk = b->skel;
	struct mcs_loader_ctx lc = {};
	struct bpf_insn *insns;
	size_t i = 0, nr_maps = 0, len, slots, *sites;
	struct bpf_prog_desc *progs;
	struct bpf_program *prog;
	struct bpf_map *map;
	void *bss;
	int err;

	bpf_object__for_each_map(map, sk->obj)
		nr_maps++;
	if (nr_maps > MCS_MAX_MAPS)
		return -E2BIG;
	/* the programs' descriptors right after the object's maps' */
	progs = (struct bpf_prog_desc *)&lc.maps[nr_maps];
	slots = ((char *)(&lc + 1) - (char *)progs) / sizeof(*progs);
	/* the loader sets the fds of what it loads: -1 marks the others */
	for (i = 0; i < slots; i++)
		progs[i].prog_fd = -1;
	err = bpf_object__gen_loader(sk->obj, &gen);
	if (!err) {
		/* a failure says its own in the load after (load()) */
		libbpf_print_fn_t old = libbpf_set_print(silent_print);

		err = bpf_object__load(sk->obj);	/* generates the loader */
		libbpf_set_print(old);
	}
	if (!err) {
		/*
		 * The loader's instructions, the lookups answered and the
		 * checks of their results folded (insn_fold.c), in a copy.
		 */
		len = gen.insns_sz / sizeof(*insns);
		insns = malloc(gen.insns_sz);
		sites = malloc((len / 6 + 1) * sizeof(*sites));
		if (!insns || !sites) {
			free(insns);
			free(sites);
			return -ENOMEM;
		}
		memcpy(insns, gen.insns, gen.insns_sz);
		b->nr_answered = mcs_loader_answer(insns, len, gen.data, gen.data_sz, func_names,
						   b->func_ids, NR_FUNCS, sites);
		b->nr_folded = len;
		len = mcs_fold_known(insns, len, sites, b->nr_answered);
		b->nr_folded -= len;
		gen.insns = (const char *)insns;
		gen.insns_sz = len * sizeof(*insns);
		err = mcs_loader_run(&gen, &lc, sizeof(lc));
		free(insns);
		free(sites);
	}
	if (err)
		return err;
	i = 0;
	bpf_object__for_each_map(map, sk->obj) {
		int *fd = map == sk->maps.records ? &b->fd_records :
			  map == sk->maps.keep_ids ? &b->fd_keep_ids :
			  map == sk->maps.names ? &b->fd_names :
			  map == sk->maps.bss ? &b->fd_bss : NULL;

		if (fd)
			*fd = lc.maps[i].map_fd;
		else if (lc.maps[i].map_fd >= 0)
			close(lc.maps[i].map_fd);	/* .rodata: the programs hold it */
		i++;
	}
	/* the programs loaded, in the order of their fds' slots */
	i = 0;
	bpf_object__for_each_program(prog, sk->obj) {
		if (!bpf_program__autoload(prog))
			continue;
		while (i < slots && progs[i].prog_fd < 0)
			i++;
		if (i == slots)
			return -ENOENT;
		if (prog == prog_of(sk, false, fast))
			b->fd_snapshot = progs[i].prog_fd;
		else if (prog == prog_of(sk, true, fast))
			b->fd_batch = progs[i].prog_fd;
		else
			close(progs[i].prog_fd);
		i++;
	}
	len = bpf_map__value_size(sk->maps.bss);
	len = (len + b->page_size - 1) / b->page_size * b->page_size;
	bss = mmap(sk->bss, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, b->fd_bss, 0);
	return bss == MAP_FAILED ? -errno : 0;
}

/*
 * Whether the _fast programs read every item: bpf_memcgstat_read() the
 * first b->nr_fast, and all the others are fields.
 */
static bool fast_programs(const struct mcs_bpf *b)
{
	int i;

	if (!b->has_read)
		return false;
	for (i = b->nr_fast; i < b->nr_items; i++)
		if (b->items[i].kind < MCS_PC_USAGE)
			return false;
	return true;
}

/*
 * A fresh skeleton in b->skel for the chosen items and @cap records: the
 * handle's programs only to load, .rodata and .bss set, the maps sized.
 */
static int open_sized(struct memcgstat *h, struct mcs_bpf *b, uint32_t cap, bool batch, bool fast)
{
	struct memcg_iter *sk;
	int err, i;

	b->skel = sk = open_skel(b->upstream_only);
	if (!sk)
		return mcs_set_err(h, -errno, "failed to open the BPF object: %s", strerror(errno));
	bpf_program__set_autoload(sk->progs.snapshot, !fast);
	bpf_program__set_autoload(sk->progs.snapshot_fast, fast);
	bpf_program__set_autoload(sk->progs.batch, batch && !fast);
	bpf_program__set_autoload(sk->progs.batch_fast, batch && fast);
	sk->rodata->nr_items = b->nr_items;
	memcpy((void *)sk->rodata->items, b->items, b->nr_items * sizeof(*b->items));
	sk->rodata->nr_fast_items = b->nr_fast;
	sk->rodata->has_read = b->has_read;
	for (i = 0; i < b->nr_fast; i++)
		sk->bss->fast_items[i] = MCS_KF_ITEM(b->items[i].kind, b->items[i].nid,
						     b->items[i].idx);
	if (!b->filter_cap)
		b->filter_cap = INITIAL_FILTER;
	err = bpf_map__set_value_size(sk->maps.records, MCS_RECORD_SIZE(b->nr_items));
	if (!err)
		err = bpf_map__set_max_entries(sk->maps.records, cap);
	if (!err)
		err = bpf_map__set_max_entries(sk->maps.keep_ids, b->filter_cap);
	if (!err)
		err = bpf_map__set_max_entries(sk->maps.names, cap);
	if (err)
		return mcs_set_err(h, err, "failed to size the maps: %s", strerror(-err));
	return 0;
}

/* libbpf's own load of b->skel; the fds are copies, the object keeps its own. */
static int load_libbpf(struct memcgstat *h, struct mcs_bpf *b, bool batch, bool fast)
{
	struct memcg_iter *sk = b->skel;
	int err = memcg_iter__load(sk);

	if (err)
		return mcs_set_err(h, err, "failed to load BPF object: %s (run with -v for the verifier log)",
				   strerror(-err));
	b->fd_snapshot = dup_fd(bpf_program__fd(prog_of(sk, false, fast)));
	b->fd_batch = batch ? dup_fd(bpf_program__fd(prog_of(sk, true, fast))) : -1;
	b->fd_records = dup_fd(bpf_map__fd(sk->maps.records));
	b->fd_keep_ids = dup_fd(bpf_map__fd(sk->maps.keep_ids));
	b->fd_names = dup_fd(bpf_map__fd(sk->maps.names));
	b->fd_bss = dup_fd(bpf_map__fd(sk->maps.bss));
	if (b->fd_snapshot < 0 || (batch && b->fd_batch < 0) || b->fd_records < 0 ||
	    b->fd_keep_ids < 0 || b->fd_names < 0 || b->fd_bss < 0)
		return mcs_set_err(h, -errno, "cannot duplicate the programs' fds: %s", strerror(errno));
	return 0;
}

/*
 * Load the programs for the chosen items, with a records map of @cap:
 * snapshot always (trees, and one cgroup by path), batch on the syscall
 * path, each in its _fast form where that reads every item. In the kernel
 * first: libbpf 1.1 reading vmlinux BTF in user space was ~63 M of the
 * ~128 M instructions of memcgstat_open() (make bench profile, issue 22).
 * Where that fails, libbpf's own load, for its diagnostics (the verifier's
 * log with -v) and whatever it can load.
 */
static int load(struct memcgstat *h, struct mcs_bpf *b, uint32_t cap)
{
	bool batch = h->query == MEMCGSTAT_QUERY_SYSCALL, fast = fast_programs(b);
	size_t rec = MCS_RECORD_SIZE(b->nr_items);
	int err;

	err = open_sized(h, b, cap, batch, fast);
	if (err)
		return err;
	b->in_kernel = !load_in_kernel(b, fast);
	if (!b->in_kernel) {
		unload(b);
		err = open_sized(h, b, cap, batch, fast);
		if (!err)
			err = load_libbpf(h, b, batch, fast);
		if (err)
			return err;
	}
	b->cap = cap;
	b->bss = b->skel->bss;
	b->records_len = rec * cap;
	b->names_len = sizeof(struct mcs_name) * cap;
	return 0;
}

static int map_names(struct memcgstat *h, struct mcs_bpf *b)
{
	if (b->names)
		return 0;
	b->names = mmap(NULL, b->names_len, PROT_READ, MAP_SHARED, b->fd_names, 0);
	if (b->names != MAP_FAILED)
		return 0;
	b->names = NULL;
	return mcs_set_err(h, -errno, "failed to mmap the names map: %s", strerror(errno));
}

/*
 * The records map, mapped at its first use: mapping the pins' 1,024
 * records at open made a pinned memcgstat_open() cost 324 k instructions
 * instead of 195 k (bench/insn, 7.open.pinned), for a CLI run that may
 * read one cgroup by path with the iterator.
 */
static int map_records(struct memcgstat *h, struct mcs_bpf *b)
{
	if (b->records)
		return 0;
	b->records = mmap(NULL, b->records_len, PROT_READ, MAP_SHARED, b->fd_records, 0);
	if (b->records != MAP_FAILED)
		return 0;
	b->records = NULL;
	return mcs_set_err(h, -errno, "failed to mmap the records map: %s", strerror(errno));
}

/*
 * Records for the cgroups there are now and a quarter more: /proc/cgroups
 * counts the memory hierarchy's cgroups (v1 and v2). A snapshot of a tree
 * larger than the map loads the programs again with a larger one, which
 * made a new handle's first snapshot of 10,001 cgroups cost 121.8 M
 * instructions against 6.6 M for a steady one (make bench 4.first.10000).
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
			b->has_psi = true;
	}
	b->nr_items = m->nr_items;
	memcpy(b->items, m->items, m->nr_items * sizeof(*b->items));
	err = plan_columns(h, b);
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
	unload(b);
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
	return probe_kernel(h, b);
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
	err = build_items(h, b);
	if (!err)
		err = order_items(h, b);
	if (!err)
		err = plan_columns(h, b);
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
	err = load(h, b, initial_records());
	if (err && h->query == MEMCGSTAT_QUERY_SYSCALL && h->want_query == MEMCGSTAT_QUERY_AUTO) {
		/* The kernel refused the syscall program: iterators only. */
		snprintf(h->query_reason, sizeof(h->query_reason),
			 "the kernel refused the syscall program: %.900s", h->err);
		h->err[0] = '\0';
		unload(b);
		h->query = MEMCGSTAT_QUERY_ITER;
		err = load(h, b, initial_records());
	}
	return err;
}

/*
 * A cgroup_iter link of @prog_fd on the cgroup open at @fd, or with @id if
 * fd < 0: its fd, or -1 with errno set.
 */
static int attach_iter(int prog_fd, int fd, uint64_t id, enum bpf_cgroup_iter_order order)
{
	union bpf_iter_link_info linfo = {};
	LIBBPF_OPTS(bpf_link_create_opts, opts, .iter_info = &linfo,
		    .iter_info_len = sizeof(linfo));

	if (fd >= 0)
		linfo.cgroup.cgroup_fd = fd;
	else
		linfo.cgroup.cgroup_id = id;
	linfo.cgroup.order = order;
	return bpf_link_create(prog_fd, 0, BPF_TRACE_ITER, &opts);
}

/* @prog_fd's iterator on the cgroup directory open at @fd (at @abs). */
static int attach(struct memcgstat *h, int prog_fd, int fd, const char *abs,
		  enum bpf_cgroup_iter_order order, int *link)
{
	*link = attach_iter(prog_fd, fd, 0, order);
	if (*link < 0)
		return mcs_set_err(h, -errno, "cannot attach the cgroup iterator to %s: %s",
				   abs, strerror(errno));
	return 0;
}

static int run_iter(struct memcgstat *h, int link)
{
	char buf[64];
	ssize_t n;
	int fd = bpf_iter_create(link);

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
_Static_assert(MCS_INVALID == MEMCGSTAT_NA, "a kfunc's invalid is the library's NA");

static void convert_columns(const struct memcgstat *h, uint64_t id, const __u64 *items,
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
		if (v2_root && def->file && !def->on_v2_root)
			sum = MEMCGSTAT_NA;
		/* v1's root-only stats (dying cgroups): as the text backend has them */
		if (id != b->root_id && mcs_def_root_only(def, h->version))
			sum = MEMCGSTAT_NA;
		vals[i] = sum;
	}
}

/*
 * A row's values from its record's items. Inline, the plain case: per row
 * of a steady snapshot of 10,001 cgroups the call and the checks before the
 * copy cost more than the copy (make bench, 2.into.10000).
 */
static inline void to_columns(const struct memcgstat *h, uint64_t id, const __u64 *items,
			      uint64_t *vals)
{
	if (bpf_of(h)->plain)
		memcpy(vals, items, h->nr_cols * sizeof(*vals));
	else
		convert_columns(h, id, items, vals);
}

/*
 * memory.pressure, read from its file on this backend too (the kernel
 * aggregates it from per-CPU state when the file is read): into @vals of
 * the cgroup at @path (relative to the root; NULL: found by @id). A cgroup
 * gone meanwhile keeps NA.
 */
static int read_psi_file(struct memcgstat *h, const char *path, uint64_t id,
			 uint64_t *vals, bool *rescanned)
{
	char buf[PATH_MAX], *abs;
	int err = 0, fd;

	if (!path)
		path = mcs_path_of(h, h->root, id, rescanned, &err);
	if (err)
		return mcs_set_err(h, err, "out of memory");
	if (!path)
		return 0;
	abs = mcs_join(h->root, path, buf, sizeof(buf));
	if (!abs)
		return mcs_set_err(h, -ENOMEM, "out of memory");
	fd = mcs_openat_long(AT_FDCWD, abs, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		err = fd == -ENOENT ? 0 : mcs_set_err(h, fd, "cannot open cgroup %s: %s",
						       abs, strerror(-fd));
	} else {
		err = mcs_text_read_files(h, fd, abs, vals, true);
		close(fd);
	}
	mcs_abs_free(abs, buf);
	if (err == -ENOENT || err == -ENODEV) {
		h->err[0] = '\0';
		err = 0;
	}
	return err;
}

/* The same where there are memory.pressure columns; inline: most have none. */
static inline int read_psi(struct memcgstat *h, const char *path, uint64_t id,
			   uint64_t *vals, bool *rescanned)
{
	return bpf_of(h)->has_psi ? read_psi_file(h, path, id, vals, rescanned) : 0;
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

	err = map_records(h, b);
	if (err)
		return err;
	memcpy(b->bss->batch_ids, ids, nr * sizeof(*ids));
	err = bpf_prog_test_run_opts(b->fd_batch, &opts);
	if (err)
		return mcs_set_err(h, -errno, "cannot run the batch program: %s", strerror(errno));
	if (opts.retval)
		return mcs_set_err(h, (int)opts.retval, "the batch program failed: %s",
				   strerror(-(int)opts.retval));
	h->last_query = MEMCGSTAT_QUERY_SYSCALL;
	for (i = 0; i < nr; i++) {
		r = (const void *)((char *)b->records + i * rec);
		switch (b->bss->batch_status[i]) {
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

/*
 * The snapshot program on one cgroup (BPF_CGROUP_ITER_SELF_ONLY) through a
 * link made for it; the link is gone after. Its record is the first. A
 * cgroup removed between the attach and the read is not shown to the
 * program (cgroup_iter skips dead cgroups): no record, -ENOENT.
 */
static int read_link(struct memcgstat *h, int link, const char *what, uint64_t *vals)
{
	struct mcs_bpf *b = bpf_of(h);
	const struct mcs_record *r;
	int err;

	memset(&b->bss->walk, 0, sizeof(b->bss->walk));
	b->bss->walk_flushed = false;
	b->bss->want_names = false;
	b->bss->filter_ids = false;
	err = run_iter(h, link);
	close(link);
	if (!err)
		err = map_records(h, b);
	if (err)
		return err;
	if (b->bss->walk.no_memcg)
		return mcs_set_err(h, -ENODATA, "cgroup %s has no memory controller", what);
	if (!b->bss->walk.nr_records)
		return mcs_set_err(h, -ENOENT, "cgroup %s: removed while read", what);
	r = b->records;
	to_columns(h, r->id, r->values, vals);
	return 0;
}

static int bpf_read_path(struct memcgstat *h, int fd, const char *abs, uint64_t *vals)
{
	int link, err;

	h->last_query = MEMCGSTAT_QUERY_ITER;
	err = attach(h, bpf_of(h)->fd_snapshot, fd, abs, BPF_CGROUP_ITER_SELF_ONLY, &link);
	if (!err)
		err = read_link(h, link, abs, vals);
	if (!err && bpf_of(h)->has_psi)
		err = mcs_text_read_files(h, fd, abs, vals, true);
	return err;
}

/* The iterator on the cgroup v2 cgroup with this id; -ENOENT if none. */
static int read_id(struct memcgstat *h, uint64_t id, uint64_t *vals)
{
	bool rescanned = false;
	char what[32];
	int link, err;

	h->last_query = MEMCGSTAT_QUERY_ITER;
	link = attach_iter(bpf_of(h)->fd_snapshot, -1, id, BPF_CGROUP_ITER_SELF_ONLY);
	if (link < 0) {
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
 * Every handle on the pins shares their maps: a read holds the pin
 * directory's flock() from the first write to them to the last read.
 */
static int lock_pins(struct memcgstat *h)
{
	struct mcs_bpf *b = bpf_of(h);

	if (b->pin_fd < 0)
		return 0;
	while (flock(b->pin_fd, LOCK_EX))
		if (errno != EINTR)
			return mcs_set_err(h, -errno, "cannot lock the pinned programs: %s",
					   strerror(errno));
	return 0;
}

/* @err, after the lock is let go (unless the read gave the pins up) */
static int unlock_pins(struct memcgstat *h, int err)
{
	struct mcs_bpf *b = bpf_of(h);

	if (b->pin_fd >= 0)
		flock(b->pin_fd, LOCK_UN);
	return err;
}

/*
 * One cgroup by path. On the syscall path: one stat() for its id, one run
 * of the batch program, which says whether the cgroup has a memcg.
 */
static int read_one_path(struct memcgstat *h, const char *cgroup, const char *abs,
			 struct memcgstat_result *res)
{
	struct stat st;
	uint64_t id;
	int err, status;

	if (h->query != MEMCGSTAT_QUERY_SYSCALL)
		return mcs_read_checked(h, cgroup, abs, res);
	err = mcs_stat_long(abs, &st);
	if (err)
		return mcs_set_err(h, err, "cgroup %s: %s (%s)", cgroup, strerror(-err), abs);
	if (!S_ISDIR(st.st_mode))
		return mcs_set_err(h, -ENOTDIR, "%s is not a cgroup", abs);
	id = st.st_ino;
	if (!mcs_result_reuse(res, id, mcs_rel_path(h, abs)) &&
	    !mcs_result_add_raw(res, id, mcs_rel_path(h, abs)))
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

static int bpf_read(struct memcgstat *h, const char *cgroup, const char *abs,
		    struct memcgstat_result *res)
{
	int err = lock_pins(h);

	return err ? err : unlock_pins(h, read_one_path(h, cgroup, abs, res));
}

/* A list of ids: one batch run; or an iterator per id (v2), by path on v1. */
static int read_ids(struct memcgstat *h, const uint64_t *ids, size_t nr,
		    struct memcgstat_result *res)
{
	uint64_t *vals;
	size_t i;
	int err = 0;

	if (h->version != 2)
		return mcs_read_ids_by_path(h, ids, nr, res);
	for (i = 0; i < nr; i++) {
		/* run_batch() writes every value or a status of each row */
		vals = h->query == MEMCGSTAT_QUERY_SYSCALL ? mcs_result_add_raw(res, ids[i], NULL) :
			mcs_result_add(res, ids[i], NULL);
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

static int bpf_read_ids(struct memcgstat *h, const uint64_t *ids, size_t nr,
			struct memcgstat_result *res)
{
	int err = lock_pins(h);

	return err ? err : unlock_pins(h, read_ids(h, ids, nr, res));
}

static int set_filter(struct memcgstat *h, const uint64_t *ids, size_t nr_ids)
{
	struct mcs_bpf *b = bpf_of(h);
	int fd = b->fd_keep_ids;
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
		fd = b->fd_keep_ids;
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
	b->bss->filter_ids = ids != NULL;
	return 0;
}

/* Walk the tree at @abs into the records map; grow the map if it is short. */
static int walk(struct memcgstat *h, int fd, const char *abs, const uint64_t *ids,
		size_t nr_ids, bool names)
{
	struct mcs_bpf *b = bpf_of(h);
	uint32_t seen;
	int err, try, link = -1;

	for (try = 0; try < 4; try++) {
		err = set_filter(h, ids, nr_ids);
		if (!err)
			err = attach(h, b->fd_snapshot, fd, abs, BPF_CGROUP_ITER_DESCENDANTS_PRE,
				     &link);
		if (err)
			return err;
		memset(&b->bss->walk, 0, sizeof(b->bss->walk));
		b->bss->walk_flushed = false;
		b->bss->want_names = names;
		err = run_iter(h, link);
		close(link);
		if (err)
			return err;
		seen = b->bss->walk.nr_seen;
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

/*
 * The path of record @i's cgroup @id: from the cache; else, if the walk
 * recorded names, its parent's path and its name (pre-order: the parent's
 * record came first); else NULL with *unknown set, for the caller to walk
 * again with names; with neither, from a scan of the directories below
 * @abs (a filtered snapshot records no parents, a long name is not
 * recorded). NULL without *unknown: removed since the walk.
 */
static const char *path_of(struct memcgstat *h, const char *abs, uint64_t id, size_t i,
			   bool names, bool *unknown, bool *rescanned, size_t *len, int *err)
{
	struct mcs_bpf *b = bpf_of(h);
	const char *path = mcs_path_get(h, id, len), *parent;
	size_t pl;

	*err = 0;
	if (path)
		return path;
	if (!names && !*rescanned) {
		*unknown = true;
		return NULL;
	}
	if (names && b->names[i].name[0] && (parent = mcs_path_get(h, b->names[i].parent_id, &pl)))
		return mcs_path_add(h, id, parent, pl, b->names[i].name, len, err);
	path = mcs_path_of(h, abs, id, rescanned, err);
	if (path)
		*len = strlen(path);
	return path;
}

/*
 * A walk of the tree at @abs, its records named: the snapshot program
 * records the cgroups' names for a first snapshot (the cache empty); a
 * later one that meets a cgroup the cache does not know walks again with
 * names. Reading every directory of a tree instead made the first snapshot
 * of 10,001 cgroups cost ~60 times a steady one (make bench, issue 12).
 */
static int snapshot(struct memcgstat *h, int fd, const char *abs,
		    const uint64_t *ids, size_t nr_ids,
		    struct memcgstat_result *res)
{
	struct mcs_bpf *b = bpf_of(h);
	size_t rec = MCS_RECORD_SIZE(b->nr_items), i;
	bool rescanned = false, names = !h->nr_paths, first = names, unknown;
	int err;

again:
	unknown = false;
	err = walk(h, fd, abs, ids, nr_ids, names);
	if (!err)
		err = map_records(h, b);
	if (!err && names)
		err = map_names(h, b);
	if (!err && names)
		err = mcs_path_add_dir(h, abs);	/* the top's parent is not recorded */
	/* a first snapshot: the cache's and the result's room at once */
	if (!err && first)
		err = mcs_path_reserve(h, b->bss->walk.nr_records);
	if (!err)
		err = mcs_result_reserve(res, b->bss->walk.nr_records);
	if (err)
		return mcs_set_err(h, err, "out of memory");
	for (i = 0; !err && i < b->bss->walk.nr_records; i++) {
		const struct mcs_record *r = (const void *)((char *)b->records + i * rec);
		uint64_t *vals = mcs_result_reuse(res, r->id, NULL);
		const char *path = NULL;
		size_t len;

		/*
		 * A walk with names finds every row's cache entry, a reused
		 * one's too: the cache drops what no read found for a while
		 * (hierarchy.c), and a child's path is built from its parent's.
		 */
		if (vals && names &&
		    !path_of(h, abs, r->id, i, names, &unknown, &rescanned, &len, &err) && err)
			return mcs_set_err(h, err, "out of memory");
		if (!vals) {
			path = path_of(h, abs, r->id, i, names, &unknown, &rescanned, &len, &err);
			if (err)
				return mcs_set_err(h, err, "out of memory");
			if (unknown) {
				/* the rows so far are read again, in their memory */
				mcs_result_reset(res);
				names = true;
				goto again;
			}
			if (!path)
				continue;	/* removed since the walk */
			vals = mcs_result_add_len(res, r->id, path, len);
			if (!vals)
				return mcs_set_err(h, -ENOMEM, "out of memory");
		}
		to_columns(h, r->id, r->values, vals);
		/* a reused row has no path here: read_psi() finds it by id */
		err = read_psi(h, path, r->id, vals, &rescanned);
	}
	return err;
}

static int bpf_snapshot(struct memcgstat *h, int fd, const char *abs,
			const uint64_t *ids, size_t nr_ids,
			struct memcgstat_result *res)
{
	int err = lock_pins(h);

	return err ? err : unlock_pins(h, snapshot(h, fd, abs, ids, nr_ids, res));
}

static void bpf_close(struct memcgstat *h)
{
	struct mcs_bpf *b = bpf_of(h);

	if (!b)
		return;
	unload(b);
	free(b->meta);
	mcs_vmlinux_free(b->vmlinux);
	free(b->items);
	free(b->first_item);
	free(b->nr_col_items);
	free(b->copy_col);
	free(b->filtered);
	free(b);
	h->priv = NULL;
}

/*
 * Whether the kernel has every enumerator @def is read with: from the
 * probe's pass over vmlinux BTF, or (pins) a pass made for the first such
 * question and kept until the handle closes.
 */
static int bpf_has_stat(struct memcgstat *h, const struct mcs_stat_def *def)
{
	struct mcs_btf_name parts[MCS_MAX_PARTS] = {};
	struct mcs_bpf *b = bpf_of(h);
	int p, n = 0, err;

	/* a field: where this hierarchy's files have it (swap accounting, v1 or v2) */
	if (mcs_def_is_field(def))
		return mcs_files_have(h, def);
	for (p = 0; p < MCS_MAX_PARTS && def->parts[p]; p++)
		parts[n++].name = def->parts[p];
	if (!n)
		return 1;	/* usage: the page counter */
	if (!b->vmlinux) {
		err = mcs_vmlinux_load(func_names, NR_FUNCS, &b->vmlinux);
		if (err)
			return mcs_set_err(h, err == -ENOMEM ? err : -EOPNOTSUPP,
					   "cannot read /sys/kernel/btf/vmlinux: %s", strerror(-err));
	}
	mcs_vmlinux_lookup(b->vmlinux, parts, n);
	for (p = 0; p < n; p++)
		if (!parts[p].found)
			return 0;
	return 1;
}

/* Pinned programs and maps, by name in the pin directory of this build. */
enum { P_SNAPSHOT, P_BATCH, P_RECORDS, P_KEEP_IDS, P_NAMES, P_BSS, P_META, NR_PINS };
static const char *const pin_names[NR_PINS] = {
	"snapshot", "batch", "records", "keep_ids", "names", "bss", "meta",
};

#define BPF_FS_MAGIC_	0xcafe4a11	/* include/uapi/linux/magic.h */

static int pin_path(const struct memcgstat *h, const char *dir, int i, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s%s%s", h->pin_dir, dir, i >= 0 ? "/" : "",
			 i >= 0 ? pin_names[i] : "");

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int get_pinned(struct memcgstat *h, int i, int *fd)
{
	char p[PATH_MAX];

	if (pin_path(h, MCS_PIN_ID, i, p, sizeof(p)))
		return -ENAMETOOLONG;
	*fd = bpf_obj_get(p);
	return *fd < 0 ? -errno : 0;
}

/*
 * The pins of this build, if there are: fills @b as load() does, from the
 * meta map. -ENOENT (or another errno) with the reason set if not usable.
 */
static int open_pins(struct memcgstat *h, struct mcs_bpf *b)
{
	char dir[PATH_MAX];
	struct mcs_pin_meta *m;
	__u32 key = 0;
	long page = sysconf(_SC_PAGESIZE);
	int fd = -1, err;

	if (pin_path(h, MCS_PIN_ID, -1, dir, sizeof(dir)))
		return mcs_set_err(h, -ENAMETOOLONG, "pin directory path too long");
	b->pin_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (b->pin_fd < 0)
		return mcs_set_err(h, -errno, "no pinned programs of this library at %s: %s (memcgstat --pin pins them)",
				   dir, strerror(errno));
	m = b->meta = calloc(1, sizeof(*m));
	if (!m)
		return mcs_set_err(h, -ENOMEM, "out of memory");
	err = get_pinned(h, P_META, &fd);
	if (!err && bpf_map_lookup_elem(fd, &key, m))
		err = -errno;
	if (fd >= 0)
		close(fd);
	if (!err && (memcmp(m->magic, MCS_PIN_MAGIC, sizeof(m->magic)) || strcmp(m->id, MCS_PIN_ID) ||
		     m->nr_items > MCS_MAX_ITEMS || !m->cap))
		err = -EPROTO;
	if (!err)
		err = get_pinned(h, P_SNAPSHOT, &b->fd_snapshot);
	if (!err && m->query == MEMCGSTAT_QUERY_SYSCALL)
		err = get_pinned(h, P_BATCH, &b->fd_batch);
	if (!err)
		err = get_pinned(h, P_RECORDS, &b->fd_records);
	if (!err)
		err = get_pinned(h, P_KEEP_IDS, &b->fd_keep_ids);
	if (!err)
		err = get_pinned(h, P_NAMES, &b->fd_names);
	if (!err)
		err = get_pinned(h, P_BSS, &fd);
	if (!err) {
		b->bss_len = (sizeof(*b->bss) + page - 1) / page * page;
		b->bss = mmap(NULL, b->bss_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
		if (b->bss == MAP_FAILED) {
			b->bss = NULL;
			b->bss_len = 0;
			err = -errno;
		}
	}
	if (!err) {
		b->cap = m->cap;
		b->filter_cap = m->filter_cap;
		b->upstream_only = m->upstream_only;
		b->has_ids = m->has_ids;
		b->records_len = (size_t)MCS_RECORD_SIZE(m->nr_items) * m->cap;
		b->names_len = sizeof(struct mcs_name) * m->cap;
	}
	if (err) {
		unload(b);
		free(b->meta);
		b->meta = NULL;
		return mcs_set_err(h, err, "the pinned programs at %s are not usable: %s", dir,
				   err == -EPROTO ? "not of this library" : strerror(-err));
	}
	return 0;
}

/* Remove the files of pin directory @dir, and it. */
static int remove_pin_dir(const char *dir)
{
	char p[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(dir);
	int err = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			if (snprintf(p, sizeof(p), "%s/%s", dir, de->d_name) < (int)sizeof(p) && unlink(p))
				err = -errno;
	closedir(d);
	if (rmdir(dir) && !err)
		err = -errno;
	return err;
}

int memcgstat_pin(struct memcgstat *h)
{
	struct mcs_bpf *b = memcgstat_backend(h) == MEMCGSTAT_BACKEND_BPF ? bpf_of(h) : NULL;
	const int fds[NR_PINS] = {
		b ? b->fd_snapshot : -1, b ? b->fd_batch : -1,
		b ? b->fd_records : -1, b ? b->fd_keep_ids : -1, b ? b->fd_names : -1,
		b ? b->fd_bss : -1, -1,
	};
	char tmp[PATH_MAX], dir[PATH_MAX], p[PATH_MAX], sub[64];
	struct mcs_pin_meta *m = NULL;
	struct statfs fs;
	__u32 key = 0;
	size_t i, d;
	int fd = -1, err = 0;

	if (!h)
		return -EINVAL;
	h->err[0] = '\0';
	if (!b)
		return mcs_set_err(h, -EOPNOTSUPP, "pinning needs the bpf backend");
	if (b->meta || b->pin_fd >= 0)
		return 0;	/* reads with the pins already */
	if ((h->flags & (MEMCGSTAT_LOCAL | MEMCGSTAT_NUMA)) || !h->all_stats)
		return mcs_set_err(h, -EINVAL,
				   "pin a handle of every stat (opts.stats NULL), without local or per-node values");
	if (mcs_nr_stat_defs > sizeof(m->first) / sizeof(m->first[0]))
		return mcs_set_err(h, -E2BIG, "too many stats to pin");
	if (mkdir(h->pin_dir, 0700) && errno != EEXIST)
		return mcs_set_err(h, -errno, "cannot make %s: %s", h->pin_dir, strerror(errno));
	if (statfs(h->pin_dir, &fs))
		return mcs_set_err(h, -errno, "%s: %s", h->pin_dir, strerror(errno));
	if ((unsigned long)fs.f_type != BPF_FS_MAGIC_)
		return mcs_set_err(h, -EINVAL, "%s is not on a BPF file system (mount -t bpf bpf /sys/fs/bpf)",
				   h->pin_dir);
	/* bpffs refuses names with a dot */
	snprintf(sub, sizeof(sub), "tmp-%d", (int)getpid());
	if (pin_path(h, sub, -1, tmp, sizeof(tmp)) || pin_path(h, MCS_PIN_ID, -1, dir, sizeof(dir)))
		return mcs_set_err(h, -ENAMETOOLONG, "pin directory path too long");
	remove_pin_dir(tmp);	/* of a process of this pid that died pinning */
	if (mkdir(tmp, 0700))
		return mcs_set_err(h, -errno, "cannot make %s: %s", tmp, strerror(errno));

	m = calloc(1, sizeof(*m));
	if (!m) {
		err = mcs_set_err(h, -ENOMEM, "out of memory");
		goto out;
	}
	memcpy(m->magic, MCS_PIN_MAGIC, sizeof(m->magic));
	snprintf(m->id, sizeof(m->id), "%s", MCS_PIN_ID);
	m->nr_items = b->nr_items;
	m->cap = b->cap;
	m->filter_cap = b->filter_cap;
	m->query = h->query;
	m->upstream_only = b->upstream_only;
	m->has_ids = b->has_ids;
	memcpy(m->items, b->items, b->nr_items * sizeof(*b->items));
	for (d = 0; d < sizeof(m->first) / sizeof(m->first[0]); d++)
		m->first[d] = -1;
	for (i = 0; i < h->nr_cols; i++) {
		d = h->cols[i].def - mcs_stat_defs;
		m->first[d] = b->first_item[i];
		m->count[d] = b->nr_col_items[i];
	}
	snprintf(m->query_reason, sizeof(m->query_reason), "%.500s", h->query_reason);
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "mcs_pin_meta", sizeof(key), sizeof(*m), 1, NULL);
	if (fd < 0 || bpf_map_update_elem(fd, &key, m, BPF_ANY) || bpf_map_freeze(fd)) {
		err = mcs_set_err(h, -errno, "cannot make the pins' meta map: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < NR_PINS; i++) {
		int f = i == P_META ? fd : fds[i];

		if (f < 0)
			continue;	/* no batch program: iterators only */
		if (snprintf(p, sizeof(p), "%s/%s", tmp, pin_names[i]) >= (int)sizeof(p) ||
		    bpf_obj_pin(f, p)) {
			err = mcs_set_err(h, -errno, "cannot pin %s: %s", p, strerror(errno));
			goto out;
		}
	}
	/* all or nothing: the directory of the build appears whole */
	if (rename(tmp, dir)) {
		if (errno != EEXIST && errno != ENOTEMPTY)
			err = mcs_set_err(h, -errno, "cannot rename %s to %s: %s", tmp, dir,
					  strerror(errno));
		goto out;	/* another process pinned this build meanwhile */
	}
	b->pin_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (b->pin_fd < 0)
		err = mcs_set_err(h, -errno, "cannot open %s: %s", dir, strerror(errno));
out:
	if (fd >= 0)
		close(fd);
	free(m);
	remove_pin_dir(tmp);
	return err;
}

int memcgstat_unpin(struct memcgstat *h)
{
	char p[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int err = 0, e;

	if (!h)
		return -EINVAL;
	h->err[0] = '\0';
	d = opendir(h->pin_dir);
	if (!d)
		return errno == ENOENT ? 0 : mcs_set_err(h, -errno, "%s: %s", h->pin_dir, strerror(errno));
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (snprintf(p, sizeof(p), "%s/%s", h->pin_dir, de->d_name) >= (int)sizeof(p))
			continue;
		e = remove_pin_dir(p);
		if (e && !err)
			err = mcs_set_err(h, e, "cannot remove %s: %s", p, strerror(-e));
	}
	closedir(d);
	if (rmdir(h->pin_dir) && !err)
		err = mcs_set_err(h, -errno, "cannot remove %s: %s", h->pin_dir, strerror(errno));
	return err;
}

int memcgstat_pinned(const struct memcgstat *h)
{
	const struct mcs_bpf *b = h && memcgstat_backend(h) == MEMCGSTAT_BACKEND_BPF ? bpf_of(h) : NULL;

	return b && b->pin_fd >= 0;
}

const char *memcgstat_pin_dir(const struct memcgstat *h)
{
	return h ? h->pin_dir : NULL;
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

const char *memcgstat__testing_loader(struct memcgstat *h)
{
	struct mcs_bpf *b = memcgstat_backend(h) == MEMCGSTAT_BACKEND_BPF ? bpf_of(h) : NULL;

	if (!b)
		return NULL;
	return b->meta ? "pins" : b->in_kernel ? "kernel" : "libbpf";
}

int memcgstat__testing_answered(struct memcgstat *h)
{
	struct mcs_bpf *b = memcgstat_backend(h) == MEMCGSTAT_BACKEND_BPF ? bpf_of(h) : NULL;

	return b ? (int)b->nr_answered : 0;
}

const char *const *memcgstat__testing_func_names(size_t *nr)
{
	*nr = NR_FUNCS;
	return func_names;
}

size_t memcgstat__testing_folded(struct memcgstat *h)
{
	struct mcs_bpf *b = memcgstat_backend(h) == MEMCGSTAT_BACKEND_BPF ? bpf_of(h) : NULL;

	return b ? b->nr_folded : 0;
}

int memcgstat__testing_prog_fd(struct memcgstat *h, const char *name)
{
	struct mcs_bpf *b = memcgstat_backend(h) == MEMCGSTAT_BACKEND_BPF ? bpf_of(h) : NULL;

	if (!b)
		return -1;
	return !strcmp(name, "snapshot") ? b->fd_snapshot : !strcmp(name, "batch") ? b->fd_batch : -1;
}
