// SPDX-License-Identifier: GPL-2.0
/*
 * A cgroup held by a BPF map across the removal of the cgroup and the
 * offlining and freeing of its memcg: hold stores a reference (a struct
 * cgroup kptr), read_held reads the memcg through it on each run, drop lets
 * it go. For memcg_lifetime.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "memcg_kfuncs.h"
#include "memcg_items.h"

char _license[] SEC("license") = "GPL";

struct held {
	struct cgroup __kptr *cgrp;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct held);
	__uint(max_entries, 1);
} held SEC(".maps");

/* in */
__u64 hold_id;
__u32 kf_items[2];	/* MCS_KF_ITEM()s for bpf_memcgstat_read(), set by the test */

/* out, of the last read_held run */
bool memcg_found;	/* bpf_get_mem_cgroup() gave a memcg */
bool memcg_online;	/* ... and it was online */
__u64 usage;		/* its memory.current */
int kf_ret;		/* bpf_memcgstat_read() on the held cgroup, -ENOSYS: none */
__u64 kf_vals[2];

/* The map's one slot, or NULL. */
static __always_inline struct held *held_slot(void)
{
	__u32 key = 0;

	return bpf_map_lookup_elem(&held, &key);
}

/* Store @cgrp (a reference, or NULL) in @h, releasing the one it held. */
static __always_inline void held_store(struct held *h, struct cgroup *cgrp)
{
	cgrp = bpf_kptr_xchg(&h->cgrp, cgrp);
	if (cgrp)
		bpf_cgroup_release(cgrp);
}

SEC("syscall")
int hold(void *ctx)
{
	struct cgroup *cgrp = bpf_cgroup_from_id(hold_id);
	struct held *h;

	if (!cgrp)
		return -2;	/* ENOENT */
	h = held_slot();
	if (!h) {
		bpf_cgroup_release(cgrp);
		return -1;
	}
	held_store(h, cgrp);
	return 0;
}

SEC("syscall")
int read_held(void *ctx)
{
	struct mem_cgroup *memcg;
	struct cgroup *cgrp;
	struct held *h = held_slot();

	if (!h)
		return -1;
	cgrp = bpf_kptr_xchg(&h->cgrp, NULL);
	if (!cgrp)
		return -2;
	memcg = bpf_get_mem_cgroup(&cgrp->self);
	memcg_found = memcg;
	memcg_online = false;
	if (memcg) {
		memcg_online = memcg->css.flags & CSS_ONLINE;
		usage = bpf_mem_cgroup_usage(memcg);
		bpf_put_mem_cgroup(memcg);
	}
	kf_ret = -38;	/* ENOSYS */
	if (mcs_kfunc_exists(bpf_memcgstat_read))
		kf_ret = bpf_memcgstat_read(&cgrp->self, kf_items, sizeof(kf_items),
					    kf_vals, sizeof(kf_vals));
	/* back in the slot: nothing else stored one meanwhile */
	held_store(h, cgrp);
	return 0;
}

SEC("syscall")
int drop(void *ctx)
{
	struct held *h = held_slot();

	if (!h)
		return -1;
	held_store(h, NULL);
	return 0;
}
