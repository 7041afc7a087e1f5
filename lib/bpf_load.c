// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Loading bpf/memcg_iter.bpf.c's programs for a handle's items: the
 * skeleton opened and sized, then loaded by an in-kernel loader (loader.c),
 * or by libbpf where that fails; the maps mapped; the backend's close.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <bpf/skel_internal.h>
#include "bpf_backend.h"
#include "loader.h"
#include "memcg_iter.skel.h"
#include "memcg_iter.upstream.skel.h"

/*
 * The filter of a filtered snapshot starts small and grows when a snapshot
 * needs more. A hash map's buckets are allocated and set up at creation:
 * sized for MCS_MAX_FILTER_IDS, its 16 MiB took 60 M of the then 164 M
 * instructions of memcgstat_open() (bench/insn profile, 4 stats).
 */
#define INITIAL_FILTER 64

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
void mcs_bpf_unload(struct mcs_bpf *b)
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

/* The snapshot program (@batch false) or the batch program, in @form. */
static struct bpf_program *prog_of(const struct memcg_iter *sk, bool batch, enum mcs_form form)
{
	switch (form) {
	case MCS_FORM_READ:
		return batch ? sk->progs.batch_read : sk->progs.snapshot_read;
	case MCS_FORM_FAST:
		return batch ? sk->progs.batch_fast : sk->progs.snapshot_fast;
	case MCS_FORM_KFUNCS:
		return batch ? sk->progs.batch_kfunc : sk->progs.snapshot_kfunc;
	default:
		return batch ? sk->progs.batch : sk->progs.snapshot;
	}
}

/*
 * Load with an in-kernel loader (libbpf's gen_loader, as a light skeleton
 * does, generated here after the sizes and .rodata are set): libbpf then
 * reads no vmlinux BTF. Fills the fds; .bss mapped over the skeleton's
 * copy, so b->skel->bss is the map's. -errno on failure, nothing said.
 */
static int load_in_kernel(struct mcs_bpf *b, enum mcs_form form)
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
	/*
	 * Generates the loader. libbpf's messages go to the process's print
	 * callback, which the library never swaps: a process-wide setting,
	 * not safe to change under another thread's libbpf calls.
	 */
	if (!err)
		err = bpf_object__load(sk->obj);
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
		b->nr_answered = mcs_loader_answer(insns, len, gen.data, gen.data_sz, mcs_bpf_func_names,
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
		if (prog == prog_of(sk, false, form))
			b->fd_snapshot = progs[i].prog_fd;
		else if (prog == prog_of(sk, true, form))
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
 * The programs' form for b's items (enum mcs_form): _read where
 * bpf_memcgstat_read() reads them all (the first b->nr_fast), _fast where
 * the others are fields; without it, _kfunc where there is no field.
 */
static enum mcs_form form_of(const struct mcs_bpf *b)
{
	bool fields = false;
	int i;

	for (i = b->nr_fast; i < b->nr_items; i++)
		fields |= b->items[i].kind >= MCS_PC_USAGE;
	if (!b->has_read)
		return fields ? MCS_FORM_ANY : MCS_FORM_KFUNCS;
	if (b->nr_fast == b->nr_items)
		return MCS_FORM_READ;
	for (i = b->nr_fast; i < b->nr_items; i++)
		if (b->items[i].kind < MCS_PC_USAGE)
			return MCS_FORM_ANY;
	return MCS_FORM_FAST;
}

static int cmp_kind_slot(const void *a, const void *b)
{
	const struct mcs_item *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/*
 * The programs' items[] (bpf/memcg_iter.bpf.c, read_items()): the items
 * bpf_memcgstat_read() does not read, each with its slot in a record,
 * sorted by kind; the rest of the array stays zero, the end.
 */
static void set_item_list(const struct mcs_bpf *b, struct mcs_item *list)
{
	int i, n = 0;

	for (i = b->nr_fast; i < b->nr_items; i++) {
		list[n] = b->items[i];
		list[n++].slot = i;
	}
	qsort(list, n, sizeof(*list), cmp_kind_slot);
}

/*
 * A fresh skeleton in b->skel for the chosen items and @cap records: the
 * handle's programs only to load, .rodata and .bss set, the maps sized.
 */
static int open_sized(struct memcgstat *h, struct mcs_bpf *b, uint32_t cap, bool batch,
		      enum mcs_form form)
{
	struct bpf_program *snapshot, *batch_prog, *prog;
	struct memcg_iter *sk;
	int err, i;

	b->skel = sk = open_skel(b->upstream_only);
	if (!sk)
		return mcs_set_err(h, -errno, "failed to open the BPF object: %s", strerror(errno));
	snapshot = prog_of(sk, false, form);
	batch_prog = batch ? prog_of(sk, true, form) : NULL;
	bpf_object__for_each_program(prog, sk->obj)
		bpf_program__set_autoload(prog, prog == snapshot || prog == batch_prog);
	sk->rodata->nr_items = b->nr_items;
	set_item_list(b, (struct mcs_item *)sk->rodata->items);
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
static int load_libbpf(struct memcgstat *h, struct mcs_bpf *b, bool batch, enum mcs_form form)
{
	struct memcg_iter *sk = b->skel;
	int err = memcg_iter__load(sk);

	if (err)
		return mcs_set_err(h, err, "failed to load BPF object: %s (run with -v for the verifier log)",
				   strerror(-err));
	b->fd_snapshot = dup_fd(bpf_program__fd(prog_of(sk, false, form)));
	b->fd_batch = batch ? dup_fd(bpf_program__fd(prog_of(sk, true, form))) : -1;
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
 * path, each in the form that reads every item with the fewest kfuncs and
 * relocations (form_of()). In the kernel
 * first: libbpf 1.1 reading vmlinux BTF in user space was ~63 M of the
 * ~128 M instructions of memcgstat_open() (make bench profile, issue 22).
 * Where that fails, libbpf's own load, for its diagnostics (the verifier's
 * log with -v) and whatever it can load.
 */
int mcs_bpf_load(struct memcgstat *h, struct mcs_bpf *b, uint32_t cap)
{
	bool batch = h->query == MEMCGSTAT_QUERY_SYSCALL;
	enum mcs_form form = form_of(b);
	size_t rec = MCS_RECORD_SIZE(b->nr_items);
	int err;

	err = open_sized(h, b, cap, batch, form);
	if (err)
		return err;
	b->in_kernel = !load_in_kernel(b, form);
	if (!b->in_kernel) {
		mcs_bpf_unload(b);
		err = open_sized(h, b, cap, batch, form);
		if (!err)
			err = load_libbpf(h, b, batch, form);
		if (err)
			return err;
	}
	b->cap = cap;
	b->bss = b->skel->bss;
	b->records_len = rec * cap;
	b->names_len = sizeof(struct mcs_name) * cap;
	return 0;
}

/* The map at @fd, @len bytes, mapped read-only into *@at once: 0 or -errno, said. */
static int map_once(struct memcgstat *h, int fd, size_t len, void **at, const char *what)
{
	void *p;

	if (*at)
		return 0;
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return mcs_set_err(h, -errno, "failed to mmap the %s map: %s", what, strerror(errno));
	*at = p;
	return 0;
}

int mcs_bpf_map_names(struct memcgstat *h, struct mcs_bpf *b)
{
	void *p = b->names;
	int err = map_once(h, b->fd_names, b->names_len, &p, "names");

	b->names = p;
	return err;
}

/*
 * The records map, mapped at its first use: mapping the pins' 1,024
 * records at open made a pinned memcgstat_open() cost 324 k instructions
 * instead of 195 k (bench/insn, 7.open.pinned), for a CLI run that may
 * read one cgroup by path with the iterator.
 */
int mcs_bpf_map_records(struct memcgstat *h, struct mcs_bpf *b)
{
	return map_once(h, b->fd_records, b->records_len, &b->records, "records");
}

void mcs_bpf_close(struct memcgstat *h)
{
	struct mcs_bpf *b = bpf_of(h);

	if (!b)
		return;
	mcs_bpf_unload(b);
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
