/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Failed allocations on demand, for test_alloc and test_exporter_alloc.
 * alloc_fail.c wraps malloc, calloc, realloc and strdup at link time
 * (-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup: the
 * selftests Makefile's ALLOC_WRAP): while armed each call is counted, and
 * the n-th fails (returns NULL), and with from_on every one after it too.
 * A test's own wrappers of other allocating calls count and fail the same
 * way with alloc_fail_inject(). Safe with several threads allocating.
 */
#ifndef __ALLOC_FAIL_H
#define __ALLOC_FAIL_H

#include <stdbool.h>
#include <stddef.h>

/* Count from 0 and fail the n-th call (n 0: count none, fail none). */
void alloc_fail_arm(long n, bool from_on);
/* Disarm; how many calls were counted since alloc_fail_arm(). */
long alloc_fail_disarm(void);
/* Count one call; true: it is to fail. */
bool alloc_fail_inject(void);

/* the counted allocators (what the wrapped calls reach) */
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);

/* the allocators themselves, never failed */
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);

#endif /* __ALLOC_FAIL_H */
