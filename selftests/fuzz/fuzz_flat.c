// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: mcs_parse_flat() on arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "testing.h"

static int check(const char *key, size_t keylen, int nid,
		 unsigned long long val, void *arg)
{
	size_t *total = arg;
	size_t i;

	/* keys are non-empty [a-z0-9_] runs; nid is -1 outside numa_stat */
	if (!keylen || nid != -1)
		__builtin_trap();
	for (i = 0; i < keylen; i++)
		if (!((key[i] >= 'a' && key[i] <= 'z') ||
		      (key[i] >= '0' && key[i] <= '9') || key[i] == '_'))
			__builtin_trap();
	*total += keylen + (val & 1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t total = 0;
	int line = 0;

	mcs_parse_flat((const char *)data, size, check, &total, &line);
	return 0;
}
