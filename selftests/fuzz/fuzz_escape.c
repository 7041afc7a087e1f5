// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the escape of every output of tools/ (escape.c). The
 * input up to its first NUL is a cgroup name; its escape must have the
 * length esc_len() says, unescape by the man page's rule (\\ a backslash,
 * \xHH the byte) to the name, hold no byte below 0x20 nor 0x7f, and cut
 * into esc_unit()s that never split an escape.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "escape.h"

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), *e = NULL, *back = NULL;
	size_t len, elen, i, o = 0, n, w;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	len = strlen(s);
	e = esc_dup(s);
	back = malloc(len + 1);
	if (!e || !back)
		goto out;
	elen = strlen(e);
	if (elen != esc_len(s) || elen > 4 * len || esc_needed(s) != (elen != len || strcmp(e, s)))
		__builtin_trap();
	for (i = 0; i < elen; i++) {
		unsigned char c = e[i];

		if (c < 0x20 || c == 0x7f)
			__builtin_trap();
		if (c != '\\') {
			back[o++] = (char)c;
		} else if (e[i + 1] == '\\') {
			back[o++] = '\\';
			i++;
		} else if (e[i + 1] == 'x' && hexval(e[i + 2]) >= 0 && hexval(e[i + 3]) >= 0) {
			back[o++] = (char)(hexval(e[i + 2]) << 4 | hexval(e[i + 3]));
			i += 3;
		} else {
			__builtin_trap();	/* a backslash the rule does not allow */
		}
		if (o > len)
			__builtin_trap();
	}
	if (o != len || memcmp(back, s, len))
		__builtin_trap();
	for (i = 0; (n = esc_unit(e + i, &w)); i += n)
		if (e[i] == '\\' && n != 2 && n != 4)
			__builtin_trap();
	if (i != elen)
		__builtin_trap();
out:
	free(back);
	free(e);
	free(s);
	return 0;
}
