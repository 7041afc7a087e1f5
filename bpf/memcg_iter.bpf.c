// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libmemcgstat's programs. Each flushes the memcg statistics once and then
 * reads the chosen counters with the memcg kfuncs (read_cgroup()):
 *  - snapshot: a whole tree (BPF_CGROUP_ITER_DESCENDANTS_PRE), or one
 *    cgroup (BPF_CGROUP_ITER_SELF_ONLY), one record per cgroup into the
 *    mmapable records map;
 *  - batch: a list of cgroup v2 ids (SEC("syscall"), one BPF_PROG_TEST_RUN),
 *    record i of the records map for ids[i].
 * Each comes in three forms (enum mcs_form in memcg_iter.h): the library
 * loads the one its items need.
 * None writes to a seq_file: nothing is formatted, nothing truncated. Each
 * program loaded costs its kfunc lookups, CO-RE relocations and a verifier
 * pass (lib/bpf_load.c, mcs_bpf_load()): the library loads batch only on
 * the syscall path.
 */
#include "kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "memcg_kfuncs.h"
#include "memcg_iter.h"
#include "memcg_read.bpf.h"

char _license[] SEC("license") = "Dual BSD/GPL";

/*
 * Set by the library before load: nr_items values a record, and in
 * items[] those that bpf_memcgstat_read() does not read (all of them
 * without it), each with its slot in the record, sorted by kind in the
 * order of enum mcs_item_kind (read_items()). A kind 0 (no kind) ends the
 * list; the array has room for it after the most items a record has.
 */
const volatile __u32 nr_items;
const volatile struct mcs_item items[MCS_MAX_ITEMS + 1];
/*
 * Items 0 .. nr_fast_items - 1 are also in fast_items[], encoded for
 * bpf_memcgstat_read() (MCS_KF_ITEM()), which reads them in one call; the
 * library puts them first. fast_items[] is not in .rodata: 6.12's verifier
 * checks a kfunc's memory argument for writes as well as reads, and refuses
 * a read-only map's value. Set before load, never written after.
 */
const volatile __u32 nr_fast_items;
__u32 fast_items[MCS_MAX_ITEMS];
/*
 * Whether the kernel has bpf_memcgstat_read(), from the library's probe: a
 * constant the verifier prunes the other branch by. Not mcs_kfunc_exists():
 * libbpf 1.1's in-kernel loader resolves that as a variable, never found,
 * and then calls the kfunc with what it found (nothing).
 */
const volatile bool has_read;

/* snapshot's state: the library sets it before each walk */
struct mcs_walk_state walk;
bool walk_flushed;
bool filter_ids;	/* keep only the cgroups in keep_ids */

/* batch's input, and its output besides the records */
__u64 batch_ids[MCS_MAX_BATCH];
__u8 batch_status[MCS_MAX_BATCH];	/* enum mcs_batch_status */
__u64 batch_flushed;			/* id of the cgroup it flushed, 0: none */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	/* sizes, not BTF types: the value size is set at run time */
	__uint(key_size, sizeof(__u32));
	__uint(value_size, MCS_RECORD_SIZE(1));	/* resized before load */
	__uint(max_entries, 1);			/* resized before load */
} records SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, __u8);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);		/* sized before load */
} keep_ids SEC(".maps");

/* snapshot: record i's cgroup's level and name, when want_names is set */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct mcs_name);
	__uint(max_entries, 1);		/* sized before load, as records */
} names SEC(".maps");

bool want_names;

/*
 * @cgrp's id, its kernfs node's, read through an untrusted view of @cgrp.
 * For each read of a pointer field (->kn) of a trusted pointer the 6.12
 * verifier scans all of vmlinux BTF for the struct's __safe_trusted and
 * __safe_rcu variants, about 1.3 M instructions a scan; with four such
 * reads per ancestor in the batch program's common-ancestor loop, loading
 * took 544 M instructions (bench/insn profile of memcgstat_open(), 4
 * stats). Through the untrusted view the load is the same, guarded by the
 * exception table, and needs no scan; bpf_rdonly_cast() itself is inlined
 * away.
 */
static __always_inline __u64 cgroup_id_of(struct cgroup *cgrp)
{
	struct cgroup *u = bpf_rdonly_cast(cgrp, bpf_core_type_id_kernel(struct cgroup));

	return u->kn->id;
}

/*
 * The forms of each program (enum mcs_form). The build without memcgstat's
 * kfuncs has the _fast and _read programs too, for the skeletons' likeness,
 * empty: they are never loaded.
 */
#ifdef MCS_UPSTREAM_ONLY
#define MCS_HAS_READ	false
#else
#define MCS_HAS_READ	true
#endif

/*
 * Items 0 .. nr_fast_items - 1 of the cgroup of @css into @vals with one
 * bpf_memcgstat_read() call, where the kernel has it. Returns how many it
 * read (0 without it), or -1 if the cgroup has no memcg.
 */
static __always_inline int read_fast(struct cgroup_subsys_state *css, __u64 *vals,
				     const enum mcs_form form)
{
#ifndef MCS_UPSTREAM_ONLY
	if (form == MCS_FORM_KFUNCS)
		return 0;
	if (nr_fast_items && (form != MCS_FORM_ANY || has_read)) {
		if (bpf_memcgstat_read(css, fast_items, nr_fast_items * sizeof(__u32),
				       vals, nr_fast_items * sizeof(__u64)) < 0)
			return -1;
		return nr_fast_items;
	}
#endif
	return 0;
}

/* The items of kind @k at @it onwards, each with the call @read makes. */
#define MCS_READ_RUN(k, read)							\
	for (; it->kind == (k); it++)						\
		vals[it->slot] = (read)

/*
 * The items[] list into @vals, one kfunc call or field read an item: a run
 * of each kfunc's items, then the fields, each read by its kind. Walked by
 * pointer up to the kind 0 after them, with no counter, and with no choice
 * of kfunc per item. The 6.12 verifier marks a counter it finds compared
 * with a known bound precise back through every iteration walked so far,
 * at each test, and each test of a known kind back to the kind's load: a
 * counted loop over items of any kind cost it work quadratic in the items
 * (doc/bench.md, issue 22's sixth step). A kfunc item out of its run (a
 * kind this build lacks) reads MCS_INVALID, as it always did.
 */
static __always_inline void read_items(struct mem_cgroup *memcg, __u64 *vals,
				       const enum mcs_form form)
{
	const volatile struct mcs_item *it = items;

	if (form == MCS_FORM_READ)
		return;	/* bpf_memcgstat_read() read them all */
	if (form != MCS_FORM_FAST) {
		MCS_READ_RUN(MCS_PAGE_STATE, bpf_mem_cgroup_page_state(memcg, it->idx));
#ifndef MCS_UPSTREAM_ONLY
		MCS_READ_RUN(MCS_PAGE_STATE_LOCAL,
			     bpf_memcgstat_page_state_local(memcg, it->idx));
		MCS_READ_RUN(MCS_NODE_PAGE_STATE,
			     bpf_memcgstat_node_page_state(memcg, it->nid, it->idx));
#endif
		MCS_READ_RUN(MCS_VM_EVENTS, bpf_mem_cgroup_vm_events(memcg, it->idx));
#ifndef MCS_UPSTREAM_ONLY
		MCS_READ_RUN(MCS_VM_EVENTS_LOCAL, bpf_memcgstat_vm_events_local(memcg, it->idx));
#endif
		MCS_READ_RUN(MCS_MEMORY_EVENTS, bpf_mem_cgroup_memory_events(memcg, it->idx));
		MCS_READ_RUN(MCS_USAGE, bpf_mem_cgroup_usage(memcg));
	}
	for (; it->kind; it++)
		vals[it->slot] = form == MCS_FORM_KFUNCS ? MCS_INVALID :
				 mcs_read_field(memcg, it->kind, it->idx);
}

/*
 * Every item of @cgrp into @vals: those bpf_memcgstat_read() reads with it,
 * without a memcg reference, the others (all of them without it) through
 * bpf_get_mem_cgroup(). Returns 0, or -1 if @cgrp has no memcg.
 */
static __always_inline int read_cgroup(struct cgroup *cgrp, __u64 *vals,
				       const enum mcs_form form)
{
	struct mem_cgroup *memcg;
	int n = read_fast(&cgrp->self, vals, form);

	if (n < 0)
		return -1;
	if (form == MCS_FORM_READ || n >= nr_items)
		return 0;
	memcg = bpf_get_mem_cgroup(&cgrp->self);
	if (!memcg)
		return -1;
	read_items(memcg, vals, form);
	bpf_put_mem_cgroup(memcg);
	return 0;
}

/*
 * @cgrp's level and name into record @slot of the names map, and in a
 * filtered walk its parent's id (a whole walk is in pre-order: the
 * library knows the parent from the levels of the records before it).
 * All through the untrusted view: loads that cannot fault the program (a
 * root without a parent reads id 0). The parent's id is four loads, each
 * guarded in the JIT-ed code; the level is one: a first snapshot of
 * 10,001 cgroups cost 0.24 M instructions less (doc/bench.md, issue 22's
 * eighth step). kernfs_node's ->name is the same field in 6.12 and 7.0
 * (6.15 renamed ->parent, not read here: the cgroup's parent is).
 */
static __always_inline void record_name(struct cgroup *cgrp, __u32 slot)
{
	struct cgroup *u = bpf_rdonly_cast(cgrp, bpf_core_type_id_kernel(struct cgroup));
	struct mcs_name *n = bpf_map_lookup_elem(&names, &slot);
	long len;

	if (!n)
		return;
	n->level = u->level;
	if (filter_ids)
		n->parent_id = u->self.parent->cgroup->kn->id;
	len = bpf_probe_read_kernel_str(n->name, sizeof(n->name), u->kn->name);
	if (len <= 0 || len >= (long)sizeof(n->name))
		n->name[0] = '\0';	/* unknown, or perhaps cut: the library reads the directory */
}

static __always_inline int snapshot_one(struct bpf_iter__cgroup *ctx, const enum mcs_form form)
{
	struct cgroup *cgrp = ctx->cgroup;
	struct mcs_record *rec;
	__u32 slot;
	__u64 id;

	if (!cgrp)
		return 0;
	/*
	 * The walk is pre-order: the first cgroup with a memcg is the root of
	 * the tree. Flushing it flushes every descendant.
	 */
	if (!walk_flushed) {
		if (mcs_flush_cgroup(cgrp)) {
			walk.no_memcg++;
			return 0;
		}
		walk_flushed = true;
	}

	id = cgroup_id_of(cgrp);
	if (filter_ids && !bpf_map_lookup_elem(&keep_ids, &id))
		return 0;

	/*
	 * A full map counts a cgroup in nr_seen whether it has a memcg or
	 * not: the library then sizes the map for a few records more.
	 */
	slot = walk.nr_seen++;
	rec = bpf_map_lookup_elem(&records, &slot);
	if (!rec)
		return 0;	/* map full: the library grows it and walks again */
	if (read_cgroup(cgrp, rec->values, form)) {
		walk.nr_seen--;	/* its slot goes to the next cgroup */
		walk.no_memcg++;
		return 0;
	}
	rec->id = id;
	walk.nr_records++;
	if (want_names)
		record_name(cgrp, slot);
	return 0;
}

/*
 * The four programs of @run, one per enum mcs_form, in section @sec: @name,
 * @name_kfunc, and @name_fast and @name_read, which are empty where the
 * kernel has no bpf_memcgstat_read() (MCS_HAS_READ).
 */
#define MCS_FORM_PROGS(sec, name, ctx_type, run)				\
SEC(sec)									\
int name(ctx_type *ctx)								\
{										\
	return run(ctx, MCS_FORM_ANY);						\
}										\
										\
SEC(sec)									\
int name##_kfunc(ctx_type *ctx)							\
{										\
	return run(ctx, MCS_FORM_KFUNCS);					\
}										\
										\
SEC(sec)									\
int name##_fast(ctx_type *ctx)							\
{										\
	return MCS_HAS_READ ? run(ctx, MCS_FORM_FAST) : 0;			\
}										\
										\
SEC(sec)									\
int name##_read(ctx_type *ctx)							\
{										\
	return MCS_HAS_READ ? run(ctx, MCS_FORM_READ) : 0;			\
}

/* snapshot, snapshot_kfunc, snapshot_fast, snapshot_read */
MCS_FORM_PROGS("iter.s/cgroup", snapshot, struct bpf_iter__cgroup, snapshot_one)

/*
 * The batch program flushes once, at the lowest common ancestor of the
 * batch's cgroups: a flush covers the subtree below the cgroup it starts
 * from, so this is the smallest flush that covers every cgroup read, and
 * 6.12's flush threshold is checked where the batch's updates add up. For
 * one id that is the cgroup itself, as reading its memory.stat would do.
 * Ancestors are compared up to MCS_LCA_DEPTH levels apart; a batch spread
 * wider than that flushes the root.
 */
#define MCS_LCA_DEPTH	32

/* errno values for the run's return value (kernel_types.h has no macros) */
#define E2BIG	7

struct batch_walk {
	__u64 lca;		/* id of the common ancestor so far, 0: none */
	__u64 root;		/* id of the hierarchy's root */
	int lca_level;
	bool flush_in_read;	/* one id: flush it before reading it */
};

static __u64 ancestor_id(struct cgroup *cgrp, int level)
{
	struct cgroup *anc = bpf_cgroup_ancestor(cgrp, level);
	__u64 id = 0;

	if (anc) {
		id = cgroup_id_of(anc);
		bpf_cgroup_release(anc);
	}
	return id;
}

/* Whether @a and @b have the same ancestor at @level: the same cgroup. */
static bool same_ancestor(struct cgroup *a, struct cgroup *b, int level)
{
	struct cgroup *x, *y;
	bool same = false;

	x = bpf_cgroup_ancestor(a, level);
	if (!x)
		return false;
	y = bpf_cgroup_ancestor(b, level);
	if (y) {
		same = x == y;
		bpf_cgroup_release(y);
	}
	bpf_cgroup_release(x);
	return same;
}

/* One step of the search for a common ancestor: @level, then one up. */
struct lca_search {
	struct cgroup *cgrp, *lca;
	int level;
	bool found;
};

static long lca_step(__u64 i, void *data)
{
	struct lca_search *s = data;

	if (s->level <= 0)
		return 1;
	if (same_ancestor(s->cgrp, s->lca, s->level)) {
		s->found = true;
		return 1;
	}
	s->level--;
	return 0;
}

/*
 * Widen w's common ancestor to cover @cgrp as well. The levels are tried
 * in a bpf_loop(): the verifier checks one step, where a loop unrolled 32
 * times made loading the batch program cost 34 M guest instructions more
 * than the snapshot program alone (make bench 7.open.stats, 7.open.once).
 */
static void widen(struct batch_walk *w, struct cgroup *cgrp)
{
	struct lca_search s = { .cgrp = cgrp };
	int level = cgrp->level;
	struct cgroup *lca;

	if (!w->root)
		w->root = ancestor_id(cgrp, 0);
	if (!w->lca) {
		w->lca = cgroup_id_of(cgrp);
		w->lca_level = level;
		return;
	}
	if (level > w->lca_level)
		level = w->lca_level;
	lca = bpf_cgroup_from_id(w->lca);
	if (!lca) {	/* removed meanwhile */
		w->lca = w->root;
		w->lca_level = 0;
		return;
	}
	s.lca = lca;
	s.level = level;
	bpf_loop(MCS_LCA_DEPTH, lca_step, &s, 0);
	bpf_cgroup_release(lca);
	level = s.found ? s.level : 0;
	w->lca = level ? ancestor_id(cgrp, level) : w->root;
	w->lca_level = level;
}

static long batch_widen(__u64 i, void *data)
{
	struct batch_walk *w = data;
	struct cgroup *cgrp;

	if (i >= MCS_MAX_BATCH)
		return 1;
	cgrp = bpf_cgroup_from_id(batch_ids[i]);
	if (cgrp) {
		widen(w, cgrp);
		bpf_cgroup_release(cgrp);
	}
	return 0;
}

static __always_inline long batch_read_one(__u64 i, void *data, const enum mcs_form form)
{
	struct batch_walk *w = data;
	struct mcs_record *rec;
	struct cgroup *cgrp;
	__u32 slot = i;
	__u8 status = MCS_BATCH_OK, *st;

	if (i >= MCS_MAX_BATCH)
		return 1;
	/*
	 * The status's address taken here, before the items are read, and
	 * kept: the verifier marks an index added to a pointer precise back
	 * to where it came from, which at the end was through every item.
	 */
	st = &batch_status[i];
	barrier_var(st);
	rec = bpf_map_lookup_elem(&records, &slot);
	if (!rec)
		return 1;	/* cannot happen: the map holds more */
	rec->id = batch_ids[i];
	cgrp = bpf_cgroup_from_id(rec->id);
	if (!cgrp) {
		*st = MCS_BATCH_GONE;
		return 0;
	}
	if (w->flush_in_read) {
		if (mcs_flush_cgroup(cgrp))
			status = MCS_BATCH_NO_MEMCG;
		else
			batch_flushed = rec->id;
	}
	if (status == MCS_BATCH_OK && read_cgroup(cgrp, rec->values, form))
		status = MCS_BATCH_NO_MEMCG;
	bpf_cgroup_release(cgrp);
	*st = status;
	return 0;
}

static long batch_step(__u64 i, void *data)
{
	return batch_read_one(i, data, MCS_FORM_ANY);
}

static long batch_step_kfunc(__u64 i, void *data)
{
	return batch_read_one(i, data, MCS_FORM_KFUNCS);
}

static long batch_step_fast(__u64 i, void *data)
{
	return batch_read_one(i, data, MCS_FORM_FAST);
}

static long batch_step_read(__u64 i, void *data)
{
	return batch_read_one(i, data, MCS_FORM_READ);
}

static __always_inline int batch_run(struct mcs_batch *ctx, const enum mcs_form form)
{
	long (*step)(__u64 i, void *data) = form == MCS_FORM_READ ? batch_step_read :
					    form == MCS_FORM_FAST ? batch_step_fast :
					    form == MCS_FORM_KFUNCS ? batch_step_kfunc : batch_step;
	struct batch_walk w = {};
	struct cgroup *cgrp;
	__u32 nr = ctx->nr_ids;

	if (nr > MCS_MAX_BATCH)
		return -E2BIG;
	batch_flushed = 0;
	if (nr == 1) {
		/* its own common ancestor: one lookup, flush and read */
		w.flush_in_read = true;
		bpf_loop(1, step, &w, 0);
		return 0;
	}
	bpf_loop(nr, batch_widen, &w, 0);
	if (w.lca) {
		cgrp = bpf_cgroup_from_id(w.lca);
		if (!cgrp)	/* removed meanwhile */
			cgrp = bpf_cgroup_from_id(w.root);
		if (cgrp) {
			if (!mcs_flush_cgroup(cgrp))
				batch_flushed = cgroup_id_of(cgrp);
			bpf_cgroup_release(cgrp);
		}
	}
	bpf_loop(nr, step, &w, 0);
	return 0;
}

/* batch, batch_kfunc, batch_fast, batch_read */
MCS_FORM_PROGS("syscall", batch, struct mcs_batch, batch_run)
