/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Stats read from files of their own, for both backends (cgroup_files.c). */
#ifndef __MEMCGSTAT_CGROUP_FILES_H
#define __MEMCGSTAT_CGROUP_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "stats.h"

struct memcgstat;

/*
 * Whether this hierarchy's files show @def : 1, 0, or -errno;
 * the text backend's has_stat.
 */
int mcs_files_have(struct memcgstat *h, const struct mcs_stat_def *def);

/*
 * The files of their own (memory.max, memory.pressure, ...) of the cgroup
 * directory open at @fd (at @abs) into its columns, each file read once :
 * every such file, or with @psi_only the ones both backends read from the
 * file (memory.pressure, cgroup.procs, ...). 0 or -errno; a file the
 * cgroup lacks leaves NA. With @psi_only (the bpf backend, whose other
 * columns are the kernel's) a file this process may not read leaves its
 * columns NA too; another failure has its reason said.
 */
int mcs_read_own_files(struct memcgstat *h, int fd, const char *abs, uint64_t *vals,
		       bool psi_only);

/* The stats this hierarchy's files show (a malloc'd array in *out). */
int mcs_hierarchy_stats(struct memcgstat *h, const struct mcs_stat_def ***out,
			size_t *nr);

#endif /* __MEMCGSTAT_CGROUP_FILES_H */
