// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libmemcgstat's cgroup_iter programs. Both flush the memcg statistics once
 * and then read the chosen counters with the memcg kfuncs:
 *  - query: one cgroup (BPF_CGROUP_ITER_SELF_ONLY), values into .bss;
 *  - snapshot: a whole tree (BPF_CGROUP_ITER_DESCENDANTS_PRE), one record
 *    per cgroup into the mmapable records map.
 * Neither writes to the seq_file: nothing is formatted, nothing truncated.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "memcg_kfuncs.h"
#include "memcg_iter.h"
#include "memcg_read.bpf.h"

char _license[] SEC("license") = "Dual BSD/GPL";

/* Set by the library before load. */
const volatile __u32 nr_items;
const volatile struct mcs_item items[MCS_MAX_ITEMS];

/* query's output */
__u64 values[MCS_MAX_ITEMS];
__u64 query_id;
__u32 query_no_memcg;

/* snapshot's state: the library sets it before each walk */
struct mcs_walk_state walk;
bool walk_flushed;
bool filter_ids;	/* keep only the cgroups in keep_ids */

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
	__uint(max_entries, MCS_MAX_FILTER_IDS);
} keep_ids SEC(".maps");

static __always_inline __u64 read_item(struct mem_cgroup *memcg, __u32 i)
{
	return mcs_read_item(memcg, items[i].kind, items[i].idx, items[i].nid);
}

SEC("iter.s/cgroup")
int query(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;
	struct mem_cgroup *memcg;
	__u32 i;

	if (!cgrp)
		return 0;
	query_id = cgrp->kn->id;
	memcg = bpf_get_mem_cgroup(&cgrp->self);
	if (!memcg) {
		query_no_memcg = 1;
		return 0;
	}
	bpf_mem_cgroup_flush_stats(memcg);
	for (i = 0; i < MCS_MAX_ITEMS && i < nr_items; i++)
		values[i] = read_item(memcg, i);
	bpf_put_mem_cgroup(memcg);
	return 0;
}

SEC("iter.s/cgroup")
int snapshot(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;
	struct mem_cgroup *memcg;
	struct mcs_record *rec;
	__u32 i, slot;
	__u64 id;

	if (!cgrp)
		return 0;
	memcg = bpf_get_mem_cgroup(&cgrp->self);
	if (!memcg) {
		walk.no_memcg++;
		return 0;
	}
	/*
	 * The walk is pre-order: the first cgroup with a memcg is the root of
	 * the tree. Flushing it flushes every descendant.
	 */
	if (!walk_flushed) {
		bpf_mem_cgroup_flush_stats(memcg);
		walk_flushed = true;
	}

	id = cgrp->kn->id;
	if (filter_ids && !bpf_map_lookup_elem(&keep_ids, &id))
		goto out;

	slot = walk.nr_seen++;
	rec = bpf_map_lookup_elem(&records, &slot);
	if (!rec)
		goto out;	/* map full: the library grows it and walks again */
	rec->id = id;
	for (i = 0; i < MCS_MAX_ITEMS && i < nr_items; i++)
		rec->values[i] = read_item(memcg, i);
	walk.nr_records++;
out:
	bpf_put_mem_cgroup(memcg);
	return 0;
}
