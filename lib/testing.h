/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * For make bench and the selftests only: a view into the bpf backend that
 * no caller of the library needs. Not installed, and not exported by the
 * shared library (its version script keeps memcgstat__* local); link
 * libmemcgstat.a to use it.
 */
#ifndef __MEMCGSTAT_TESTING_H
#define __MEMCGSTAT_TESTING_H

struct memcgstat;
struct memcg_iter;

/*
 * The bpf backend's loaded skeleton (bpf/memcg_iter.bpf.c, memcg_iter.skel.h
 * in the library's build directory), NULL with the text backend: to run the
 * library's own programs without its decoding. It stays the handle's; it
 * changes when a snapshot grows the records map.
 */
struct memcg_iter *memcgstat__testing_skel(struct memcgstat *h);

#endif /* __MEMCGSTAT_TESTING_H */
