/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * For make bench and the selftests only: what they may use of the library
 * besides memcgstat.h. Not installed, not exported by the shared library
 * (its version script lists the public symbols only): link libmemcgstat.a.
 *
 * - the text parsers, which test_text unit-tests and the fuzzers fuzz;
 * - the stat table, with which the selftests map a memory.stat key to the
 *   kernel enumerators they read through memcgstat's own BPF programs;
 * - the bpf backend's skeleton, with which make bench runs the library's
 *   programs without its decoding;
 * - the size of the id -> path cache, and the scans that refilled it.
 */
#ifndef __MEMCGSTAT_TESTING_H
#define __MEMCGSTAT_TESTING_H

#include "stats.h"
#include "text_parse.h"

struct memcgstat;
struct memcg_iter;

/*
 * The bpf backend's skeleton (bpf/memcg_iter.bpf.c, memcg_iter.skel.h in the
 * library's build directory: .rodata as loaded, .bss the map's), NULL with
 * the text backend: to run the library's own programs without its
 * decoding. It stays the handle's; it changes when a snapshot grows the
 * records map.
 */
struct memcg_iter *memcgstat__testing_skel(struct memcgstat *h);
/*
 * The fd of its program @name ("snapshot", "batch"), -1 if it has none:
 * the skeleton's programs have none where the loader ran in the kernel.
 */
int memcgstat__testing_prog_fd(struct memcgstat *h, const char *name);
/* The fd of its map @name ("records", "names"), -1 if it has none. */
int memcgstat__testing_map_fd(struct memcgstat *h, const char *name);
/*
 * How its programs were loaded: "kernel" (the in-kernel loader), "libbpf"
 * (libbpf's own load, where that failed), "pins"; NULL: not bpf.
 */
const char *memcgstat__testing_loader(struct memcgstat *h);
/*
 * How many of the in-kernel loader's kfunc lookups the library answered
 * from its own pass over vmlinux BTF (its last load); 0 if none ran.
 */
int memcgstat__testing_answered(struct memcgstat *h);
/* ... and the loader's instructions mcs_fold_known() dropped then */
size_t memcgstat__testing_folded(struct memcgstat *h);
/*
 * Whether its pass over vmlinux BTF read a mapping of the file (1) or
 * read() it (0); -1: it made none (pins, the text backend).
 */
int memcgstat__testing_btf_mapped(struct memcgstat *h);
/* The functions the bpf backend looks up in vmlinux BTF, the loader's too. */
const char *const *memcgstat__testing_func_names(size_t *nr);

/* Entries of the handle's id -> path cache (lib/path_cache.c): bounded under churn. */
size_t memcgstat__testing_nr_paths(const struct memcgstat *h);
/* Scans of the hierarchy it made to find a cgroup by id (no file handle). */
unsigned long memcgstat__testing_nr_scans(const struct memcgstat *h);

#endif /* __MEMCGSTAT_TESTING_H */
