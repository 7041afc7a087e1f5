// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: mcs_parse_psi() and mcs_parse_limit() on arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "memcgstat.h"
#include "testing.h"

static int check(const char *key, size_t keylen, int nid,
		 unsigned long long val, void *arg)
{
	(void)val;
	(void)arg;
	/* "LINE_FIELD", as the callback's buffer holds it */
	if (!keylen || keylen > 33 || nid != -1 || !memchr(key, '_', keylen))
		__builtin_trap();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned long long v;
	int line = 0;

	mcs_parse_psi((const char *)data, size, check, NULL, &line);
	if (!mcs_parse_limit((const char *)data, size, &v) && v == MEMCGSTAT_MAX &&
	    (size < 3 || memcmp(data, "max", 3)))
		__builtin_trap();
	return 0;
}
