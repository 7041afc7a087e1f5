/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Reads by path, one cgroup at a time (by_path.c). */
#ifndef __MEMCGSTAT_BY_PATH_H
#define __MEMCGSTAT_BY_PATH_H

#include <stddef.h>
#include <stdint.h>

struct memcgstat;
struct memcgstat_result;

/*
 * The front end's reads by path, what a backend without a read or
 * read_ids of its own gets: check the cgroup, then read_path; for ids, open
 * each one's directory (mcs_open_id(): no other cgroup's), then read_path
 * (rows of ids that are gone -ENOENT, without a memcg -ENODATA).
 */
int mcs_read_checked(struct memcgstat *h, const char *cgroup, const char *abs,
		     struct memcgstat_result *res);
int mcs_read_ids_by_path(struct memcgstat *h, const uint64_t *ids, size_t nr,
			 struct memcgstat_result *res);

#endif /* __MEMCGSTAT_BY_PATH_H */
