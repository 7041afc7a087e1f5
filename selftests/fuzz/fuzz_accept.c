// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: memcgstat-exporter's Accept header negotiation, and
 * the same bytes as an Accept-Encoding header.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "accept.h"

static volatile int sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* libmicrohttpd hands the header over as a C string */
	char *s = malloc(size + 1);
	enum fmt f;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	f = negotiate(s);
	if (f != FMT_TEXT && f != FMT_OPENMETRICS)
		__builtin_trap();
	sink ^= accepts_gzip(s);
	free(s);
	return 0;
}
