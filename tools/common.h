/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Helpers the memcgstat CLI and memcgstat-exporter share. Not part of
 * libmemcgstat: linked into the two programs only.
 */
#ifndef __MEMCGSTAT_CLI_COMMON_H
#define __MEMCGSTAT_CLI_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include "memcgstat.h"

/*
 * Is the stat named @name an event count (a counter: rates with -i,
 * "_total" in Prometheus) rather than a size in bytes (a gauge)?
 */
bool is_counter(const char *name);

/*
 * Split a comma-separated list in place. Returns a malloc'd array of
 * pointers into @list (free it, not the strings) with *nr entries, or NULL
 * without memory. Empty items are dropped.
 */
char **split_stats(char *list, size_t *nr);

/* "auto", "bpf" or "text": 0 and *out set, or -EINVAL. */
int parse_backend(const char *name, enum memcgstat_backend *out);

/* libbpf's messages on stderr, its debug output only if @verbose. */
void set_libbpf_print(bool verbose);

#endif /* __MEMCGSTAT_CLI_COMMON_H */
