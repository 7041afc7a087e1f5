// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Helpers the memcgstat CLI and memcgstat-exporter share. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "common.h"

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

int parse_backend(const char *name, enum memcgstat_backend *out)
{
	if (!strcmp(name, "auto"))
		*out = MEMCGSTAT_BACKEND_AUTO;
	else if (!strcmp(name, "bpf"))
		*out = MEMCGSTAT_BACKEND_BPF;
	else if (!strcmp(name, "text"))
		*out = MEMCGSTAT_BACKEND_TEXT;
	else
		return -EINVAL;
	return 0;
}

static bool libbpf_verbose;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && !libbpf_verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void set_libbpf_print(bool verbose)
{
	libbpf_verbose = verbose;
	libbpf_set_print(libbpf_print);
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
