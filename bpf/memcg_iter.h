/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libmemcgstat's BPF programs and user space share this: which counters to
 * read (rodata, set before load) and the layout of what the programs write.
 */
#ifndef __MEMCG_ITER_H
#define __MEMCG_ITER_H

#include "memcg_items.h"

/*
 * One snapshot record: the cgroup's id (its cgroupfs inode number), then
 * one value per item. The records map's value size is set at load time to
 * MCS_RECORD_SIZE(nr_items).
 */
struct mcs_record {
	__u64 id;
	__u64 values[MCS_MAX_ITEMS];
};

#define MCS_RECORD_SIZE(nr_items)	(8 * (1 + (nr_items)))

/*
 * Where snapshot record i's cgroup is: its level (the root's is 0) and its
 * name (its kernfs node's), and in a filtered walk its parent's id (not
 * written in a whole one), written to record i of the names map when the
 * library asks (want_names: the first snapshot, or one that met cgroups it
 * did not know), so that it can name the cgroups without reading the
 * directories.
 * A whole walk is in pre-order, so a record's parent is the last record
 * before it one level up. An empty name: unknown, or longer than
 * MCS_NAME_LEN - 2 bytes.
 */
#define MCS_NAME_LEN	112

struct mcs_name {
	__u64 parent_id;
	__u32 level;
	__u32 pad;
	char name[MCS_NAME_LEN];
};

/*
 * What a program reads its items with (memcg_iter.bpf.c): every program
 * comes in each form, and the library loads the one with the fewest
 * kfuncs and CO-RE relocations that reads all of its items. The kernel
 * applies (and formats) every relocation of a program at each load,
 * whether or not the code it is in can run.
 *  - MCS_FORM_ANY (snapshot, batch): a kfunc call or a field read an item;
 *  - MCS_FORM_KFUNCS (_kfunc): a kfunc call an item, no field;
 *  - MCS_FORM_FAST (_fast): bpf_memcgstat_read() the first nr_fast_items,
 *    the others fields, read with CO-RE and no kfunc;
 *  - MCS_FORM_READ (_read): bpf_memcgstat_read() every item, no field.
 */
enum mcs_form {
	MCS_FORM_ANY,
	MCS_FORM_KFUNCS,
	MCS_FORM_FAST,
	MCS_FORM_READ,
};

/* Cgroup ids a filtered snapshot may keep at most. */
#define MCS_MAX_FILTER_IDS	(1 << 20)

/* Written by the snapshot program: records filled, and records wanted. */
struct mcs_walk_state {
	__u32 nr_records;	/* records written, at most the map's size */
	__u32 nr_seen;		/* cgroups the walk kept: > nr_records = too small */
	__u32 no_memcg;		/* cgroups without a memcg (not recorded) */
	__u32 pad;
};

/*
 * The batch program (SEC("syscall"), run with BPF_PROG_TEST_RUN) reads the
 * cgroup v2 ids in batch_ids[] (.bss, written by user space through the
 * mmapped map), as many as its context says. The ids are not in the
 * context: a syscall program's context is copied into the kernel and back
 * on every run, whole, and a 2 KiB context made a one-id run in the TCG
 * guest cost 18 us instead of 8.
 */
#define MCS_MAX_BATCH	1024

struct mcs_batch {
	__u32 nr_ids;		/* batch_ids[0 .. nr_ids - 1]; > MCS_MAX_BATCH: -E2BIG */
	__u32 pad;
};

/*
 * Per id, in batch_status[] (.bss): written for every id of the run, so a
 * status left over from an earlier run is never read. Values go to the
 * records map, record i for ids[i].
 */
enum mcs_batch_status {
	MCS_BATCH_OK = 1,	/* record i holds the cgroup's values */
	MCS_BATCH_GONE,		/* no cgroup has this id (removed, or never was) */
	MCS_BATCH_NO_MEMCG,	/* the cgroup has no memory controller */
};

#endif /* __MEMCG_ITER_H */
