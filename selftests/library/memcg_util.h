/* SPDX-License-Identifier: GPL-2.0 */
/* Cgroups, activity in them, and kfunc queries, for the selftests. */
#ifndef __MEMCG_UTIL_H
#define __MEMCG_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "cg_iter.h"
#include "memcg_items.h"
#include "memcgstat.h"
#include "testing.h"

struct memcg_items;
struct btf;

/* The memory controller's hierarchy: v2 at /sys/fs/cgroup, else v1. */
bool cg_is_v2(void);
const char *cg_root(void);

/* Create @name under the memory hierarchy root; returns a malloc'd path. */
char *cg_create(const char *parent, const char *name);
/* The test's own cgroup under the root, "memcgstat_@what_PID"; as cg_create(). */
char *cg_create_own(const char *what);
/*
 * A tree: *@top, the cgroup @name under the root, with the memory
 * controller handed down on v2, and @nr children "@kid0", "@kid1", ... in
 * @kids. 0, or -1 with what was made so far in *@top and @kids.
 */
int cg_create_tree(const char *name, const char *kid, int nr, char **top, char **kids);
/* Kill what runs in @path and below, then remove the cgroups. */
int cg_destroy(const char *path);
int cg_write(const char *path, const char *file, const char *val);
/* Read a whole cgroup file; returns a malloc'd string or NULL. */
char *cg_read(const char *path, const char *file);
/* The id of the cgroup at @path (its directory's inode number), or 0. */
uint64_t id_of(const char *path);

/* A process running @fn inside cgroup @path, then sleeping. */
struct cg_child {
	pid_t pid;
};
/*
 * 0 when @fn succeeded inside the cgroup and the child now sleeps; -EIO if
 * @fn failed; -ECHILD if the child died first (e.g. by the OOM killer).
 */
int cg_run(const char *path, int (*fn)(void *), void *arg,
	   struct cg_child *child);
/* Kill the child (if it still runs) and reap it; returns its wait status. */
int cg_child_finish(struct cg_child *child);

/* key/value pairs of a flat-keyed file ("key value" lines) */
struct kv {
	char key[64];
	unsigned long long val;
};
#define KV_MAX 160
/* Parses @text; returns the number of pairs, or -EINVAL on a bad line. */
int kv_parse(const char *text, struct kv *kv, int max);

/* The loaded memcg_items object, and vmlinux BTF for enum values. */
struct memcg_items *items_open(void);
const struct btf *items_btf(void);
/*
 * items_open() into *@skel, and the test's own cgroup (cg_create_own(@what)):
 * its path, or NULL with a FAIL printed if either is missing.
 */
char *items_setup(struct memcg_items **skel, const char *what);
/*
 * Run read_one on the cgroup at @path for @n items. Where the kernel has
 * bpf_memcgstat_read(), it reads them in one call as well, and each of its
 * values must equal the per-item kfunc's (-EAGAIN if not; items_kf_checked
 * counts the values held equal).
 */
int items_run(struct memcg_items *skel, const char *path,
	      const struct mcs_item *items, int n, __u64 *values);
extern unsigned long items_kf_checked;
/* @it encoded for bpf_memcgstat_read() (MCS_KF_ITEM()), as items_run does. */
__u32 items_kf_encode(const struct mcs_item *it);
/* Enum value of kernel enumerator @name; fails the test if missing. */
int enum_val(const char *name);
/* The kernel log, whole (klogctl): a malloc'd string, or NULL. */
char *kernel_log(void);
/* CLOCK_MONOTONIC, in seconds. */
double now(void);

/* A library handle on @nr @stats; NULL, with a FAIL printed, if none opens. */
struct memcgstat *lib_open(enum memcgstat_backend backend, enum memcgstat_query query,
			   const char *const *stats, size_t nr);

/* Activities, run in a child inside the cgroup. */
int touch_anon(void *mib);
int touch_memfd(void *mib);


/* Which text file a comparison reads, and which kfuncs it holds against it. */
enum view {
	VIEW_STAT,	/* v2 memory.stat: page_state, vm_events */
	VIEW_EVENTS,	/* v2 memory.events: memory_events */
	VIEW_NUMA,	/* v2 memory.numa_stat: node_page_state */
	VIEW_V1_STAT,	/* v1 memory.stat: local kfuncs, total_* hierarchical */
	VIEW_USAGE,	/* memory.current / v1 memory.usage_in_bytes: usage */
};

/*
 * Every counter of @view's file for cgroup @path must equal what the
 * kfuncs return. Retries while the file changes under the reads; fails
 * the running subtest on a mismatch. Returns the number of counters
 * compared (0 on failure); *@text_out gets the last text if not NULL.
 */
int check_view(const char *path, enum view view, char **text_out);
/* The value of @key in @text (a flat-keyed file), or -1ULL. */
unsigned long long kv_get(const char *text, const char *key);

#endif /* __MEMCG_UTIL_H */
