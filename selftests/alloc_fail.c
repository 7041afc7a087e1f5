// SPDX-License-Identifier: GPL-2.0
/* Failed allocations on demand: see alloc_fail.h. */
#include <stdlib.h>
#include <string.h>
#include "alloc_fail.h"

/*
 * fail_at 0: nothing counted, nothing failed. Else the fail_at-th fails,
 * and with from_on every one after it too. Several threads allocate.
 */
static long calls, fail_at;
static bool from_on;

bool alloc_fail_inject(void)
{
	long at = __atomic_load_n(&fail_at, __ATOMIC_SEQ_CST), c;

	if (!at)
		return false;
	c = __atomic_add_fetch(&calls, 1, __ATOMIC_SEQ_CST);
	return c == at || (c > at && __atomic_load_n(&from_on, __ATOMIC_SEQ_CST));
}

void alloc_fail_arm(long n, bool on)
{
	__atomic_store_n(&calls, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&from_on, on, __ATOMIC_SEQ_CST);
	__atomic_store_n(&fail_at, n, __ATOMIC_SEQ_CST);
}

long alloc_fail_disarm(void)
{
	__atomic_store_n(&fail_at, 0, __ATOMIC_SEQ_CST);
	return __atomic_load_n(&calls, __ATOMIC_SEQ_CST);
}

void *__wrap_malloc(size_t n)
{
	return alloc_fail_inject() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t m)
{
	return alloc_fail_inject() ? NULL : __real_calloc(n, m);
}

void *__wrap_realloc(void *p, size_t n)
{
	return alloc_fail_inject() ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
	return alloc_fail_inject() ? NULL : __real_strdup(s);
}
