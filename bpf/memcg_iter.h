/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libmemcgstat's BPF programs and user space share this: which counters to
 * read (rodata, set before load) and the layout of what the programs write.
 */
#ifndef __MEMCG_ITER_H
#define __MEMCG_ITER_H

#include "memcg_query.h"

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

/* Cgroup ids a filtered snapshot may keep at most. */
#define MCS_MAX_FILTER_IDS	(1 << 20)

/* Written by the snapshot program: records filled, and records wanted. */
struct mcs_walk_state {
	__u32 nr_records;	/* records written, at most the map's size */
	__u32 nr_seen;		/* cgroups the walk kept: > nr_records = too small */
	__u32 no_memcg;		/* cgroups without a memcg (not recorded) */
	__u32 pad;
};

#endif /* __MEMCG_ITER_H */
