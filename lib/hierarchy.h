/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The memory cgroup hierarchy: where it is mounted, its NUMA nodes, cgroup
 * paths and ids, and which stats its files show.
 */
#ifndef __MEMCGSTAT_HIERARCHY_H
#define __MEMCGSTAT_HIERARCHY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct memcgstat;
struct mcs_stat_def;

/* The memory controller's mount (@want, or found): h->root, h->version. */
int mcs_find_root(struct memcgstat *h, const char *want);
/* NUMA nodes with memory: h->nodes. */
int mcs_find_nodes(struct memcgstat *h);

/*
 * @cgroup as the absolute path of a cgroup in the mount, in *out: @buf
 * (@size bytes) where it fits and nothing needed the file system, else
 * malloc'd; free it with mcs_abs_free(). A path below the mount ("ua/a"),
 * an absolute path inside it as it is, both without touching the file
 * system; ".", "..", "./x", "../x" against the working directory, and an
 * absolute path that is no cgroup below the mount ("/ua/a" is one) through
 * the file system (a symlink into the mount). No length limit.
 */
int mcs_cgroup_abs(struct memcgstat *h, const char *cgroup, char *buf, size_t size,
		   char **out);
void mcs_abs_free(char *abs, const char *buf);
/* @root and the path @rel below it ("/": none) in @buf, else malloc'd; NULL. */
char *mcs_join(const char *root, const char *rel, char *buf, size_t size);
/*
 * Whether the cgroup directory open at @fd (@abs, named @cgroup in
 * messages) has the memory controller: 0, -ENODATA (v2, not enabled in its
 * parent), -ENOENT (removed meanwhile), or another -errno; with a message.
 */
int mcs_memcg_check(struct memcgstat *h, int fd, const char *cgroup, const char *abs);
/*
 * The cgroup directory at @abs (from mcs_cgroup_abs(), for @cgroup)
 * opened, checked to have the memory controller: an O_RDONLY | O_DIRECTORY
 * fd, *id its cgroup id (inode number); or -errno with a message.
 */
int mcs_cgroup_check(struct memcgstat *h, const char *cgroup, const char *abs,
		     uint64_t *id);
/*
 * openat() for a path of any length: longer than PATH_MAX, a run of its
 * components at a time. An fd, or -errno.
 */
int mcs_openat_long(int dirfd, const char *path, int flags);
/* stat() of an absolute path of any length: 0 or -errno. */
struct stat;
int mcs_stat_long(const char *abs, struct stat *st);
/* Path relative to the root ("/" for the root itself) of absolute @abs. */
const char *mcs_rel_path(const struct memcgstat *h, const char *abs);

#endif /* __MEMCGSTAT_HIERARCHY_H */
