// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Helpers the memcgstat CLI and memcgstat-exporter share. */
#include <stdlib.h>
#include <string.h>
#include "cli_common.h"

bool is_counter(const char *name)
{
	static const char *const gauges[] = {
		"anon", "file", "kernel", "kernel_stack", "pagetables",
		"sec_pagetables", "percpu", "sock", "vmalloc", "shmem", "zswap",
		"zswapped", "file_mapped", "file_dirty", "file_writeback",
		"swapcached", "anon_thp", "file_thp", "shmem_thp",
		"inactive_anon", "active_anon", "inactive_file", "active_file",
		"unevictable", "slab_reclaimable", "slab_unreclaimable", "slab",
		"swap", "usage",
	};
	size_t i;

	for (i = 0; i < sizeof(gauges) / sizeof(gauges[0]); i++)
		if (!strcmp(name, gauges[i]))
			return false;
	return true;
}

char **split_stats(char *list, size_t *nr)
{
	char **v = NULL, *tok, *save = NULL;

	*nr = 0;
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char **nv = realloc(v, (*nr + 1) * sizeof(*v));

		if (!nv) {
			free(v);
			return NULL;
		}
		v = nv;
		v[(*nr)++] = tok;
	}
	return v;
}
