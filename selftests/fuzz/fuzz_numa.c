// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: mcs_parse_numa() and mcs_parse_value() on arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>
#include "testing.h"

static int check(const char *key, size_t keylen, int nid,
		 unsigned long long val, void *arg)
{
	(void)key;
	(void)val;
	(void)arg;
	if (!keylen || nid < 0)
		__builtin_trap();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned long long v;
	int line = 0;

	mcs_parse_numa((const char *)data, size, check, NULL, &line);
	mcs_parse_value((const char *)data, size, &v);
	return 0;
}
