// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The one escape of every output: see escape.h for the rule. */
#define _GNU_SOURCE	/* wcwidth(), newlocale() */
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include "escape.h"

/*
 * The length of the valid UTF-8 sequence at @s and its code point in *@cp,
 * or 0 if it is not one: no overlong forms, no surrogates, nothing above
 * U+10FFFF (RFC 3629).
 */
static size_t utf8_decode(const unsigned char *s, uint32_t *cp)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	*cp = c & (0x7f >> n);
	for (i = 1; i < n; i++)
		*cp = *cp << 6 | (s[i] & 0x3f);
	return n;
}

/*
 * Unicode 15.1's format characters (Cf), U+2065 with them (unassigned
 * between two, and default-ignorable: a later one), and U+2028 (Zl) and
 * U+2029 (Zp): invisible, or they reorder (bidi controls) or break lines.
 */
static const struct { uint32_t lo, hi; } hidden[] = {
	{ 0x00ad, 0x00ad }, { 0x0600, 0x0605 }, { 0x061c, 0x061c }, { 0x06dd, 0x06dd },
	{ 0x070f, 0x070f }, { 0x0890, 0x0891 }, { 0x08e2, 0x08e2 }, { 0x180e, 0x180e },
	{ 0x200b, 0x200f }, { 0x2028, 0x202e }, { 0x2060, 0x206f },
	{ 0xfeff, 0xfeff }, { 0xfff9, 0xfffb }, { 0x110bd, 0x110bd }, { 0x110cd, 0x110cd },
	{ 0x13430, 0x1343f }, { 0x1bca0, 0x1bca3 }, { 0x1d173, 0x1d17a }, { 0xe0001, 0xe0001 },
	{ 0xe0020, 0xe007f },
};

static bool is_hidden(uint32_t cp)
{
	size_t i;

	if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
		return true;
	for (i = 0; i < sizeof(hidden) / sizeof(hidden[0]) && cp >= hidden[i].lo; i++)
		if (cp <= hidden[i].hi)
			return true;
	return false;
}

/*
 * What the bytes at @s become: 0 for n bytes kept as they are (*n set),
 * else the escape of one byte (2 for a backslash, 4 for \xHH).
 */
static size_t classify(const unsigned char *s, size_t *n)
{
	uint32_t cp;

	*n = utf8_decode(s, &cp);
	if (!*n) {
		*n = 1;
		return 4;
	}
	if (cp == '\\')
		return 2;
	if (is_hidden(cp)) {
		*n = 1;		/* byte by byte: each of its bytes, \xHH */
		return 4;
	}
	return 0;
}

bool esc_needed(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	for (; *p; p += n) {
		if (*p >= 0x20 && *p < 0x7f && *p != '\\') {
			n = 1;	/* the common case, quickly */
			continue;
		}
		if (classify(p, &n))
			return true;
	}
	return false;
}

size_t esc_len(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n, e, len = 0;

	for (; *p; p += n) {
		e = classify(p, &n);
		len += e ? e : n;
	}
	return len;
}

/* The escape (@e: 2, \\, or 4, \xHH) of the byte @c at @out: its length. */
static size_t put_escape(char *out, unsigned char c, size_t e)
{
	static const char hex[] = "0123456789abcdef";

	out[0] = '\\';
	if (e == 2) {
		out[1] = '\\';
	} else {
		out[1] = 'x';
		out[2] = hex[c >> 4];
		out[3] = hex[c & 0xf];
	}
	return e;
}

char *esc_write(char *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n, e;

	for (; *p; p += n) {
		e = classify(p, &n);
		if (!e) {
			memcpy(out, p, n);
			out += n;
		} else {
			out += put_escape(out, *p, e);
		}
	}
	*out = '\0';
	return out;
}

void esc_fputs(const char *s, FILE *f)
{
	const unsigned char *p = (const unsigned char *)s;
	char buf[5];
	size_t n, e;

	for (; *p; p += n) {
		e = classify(p, &n);
		if (!e)
			fwrite(p, 1, n, f);
		else
			fwrite(buf, 1, put_escape(buf, *p, e), f);
	}
}

char *esc_dup(const char *s)
{
	char *out = malloc(esc_len(s) + 1);

	if (out)
		esc_write(out, s);
	return out;
}

/*
 * The columns of @cp on a terminal: glibc's wcwidth() in C.UTF-8 (whatever
 * the user's locale: the output is UTF-8 either way), 1 where it has no
 * answer. The locale is made once, unlocked: the table and top, which ask
 * for widths, run in one thread.
 */
static int cp_width(uint32_t cp)
{
	static locale_t utf8;
	static bool tried;
	locale_t old;
	int w;

	if (cp < 0x80)
		return 1;
	if (!tried) {
		tried = true;
		utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	}
	if (!utf8)
		return 1;
	old = uselocale(utf8);
	w = wcwidth((wchar_t)cp);
	uselocale(old);
	return w < 0 ? 1 : w;
}

size_t esc_unit(const char *e, size_t *width)
{
	const unsigned char *p = (const unsigned char *)e;
	uint32_t cp;
	size_t n, len;

	*width = 0;
	if (!*p)
		return 0;
	if (p[0] == '\\') {
		len = p[1] == 'x' ? 4 : 2;
		*width = len;
		return strnlen(e, len);
	}
	len = utf8_decode(p, &cp);
	if (!len) {
		*width = 1;	/* not escaped after all: a byte, a column */
		return 1;
	}
	*width = cp_width(cp);
	/* the combining marks after it go with it */
	while (p[len] && p[len] != '\\' && (n = utf8_decode(p + len, &cp)) &&
	       cp >= 0x80 && cp_width(cp) == 0)
		len += n;
	return len;
}

size_t esc_width(const char *e)
{
	size_t n, w, width = 0;

	for (; (n = esc_unit(e, &w)); e += n)
		width += w;
	return width;
}
