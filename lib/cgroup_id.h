/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A cgroup opened by its id (cgroup_id.c). */
#ifndef __MEMCGSTAT_CGROUP_ID_H
#define __MEMCGSTAT_CGROUP_ID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct memcgstat;

/*
 * The cgroup with @id opened, @flags and O_DIRECTORY | O_CLOEXEC: an fd,
 * its absolute path in *abs (@buf of @size, else malloc'd: free it with
 * mcs_abs_free()); -ENOENT if no cgroup below the root has the id; -EACCES
 * without a message if a scan did not find it but skipped a directory it
 * could not read (the cgroup may be below it); another -errno with the
 * message. First at @rel (below the root; NULL: its cached
 * path), held to the id by the inode number there (a cgroup made since at
 * a removed one's path is not it); where that fails on cgroup v1 (renamed,
 * maybe) or no path is known, the id looked up in the kernel through a
 * file handle (CAP_DAC_READ_SEARCH); without one, a scan of the hierarchy,
 * once per *rescanned.
 */
int mcs_open_id(struct memcgstat *h, uint64_t id, const char *rel, int flags, char *buf,
		size_t size, char **abs, bool *rescanned);

#endif /* __MEMCGSTAT_CGROUP_ID_H */
