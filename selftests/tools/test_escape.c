// SPDX-License-Identifier: GPL-2.0
/*
 * The escape every output of tools/ prints a cgroup path with
 * (render_path(), tools/escape.h): exact examples, then a property over
 * seeded random byte strings and every string of one and two bytes: the
 * escape undone by the rule the man pages give (\\ a backslash, \xHH the
 * byte HH) is the name again, so two names never print as one; the escape
 * is valid UTF-8 without a control or format character (checked with
 * glibc's decoder, not the escape's own). Prints "#N escape/NAME:OK|FAIL".
 *
 *   test_escape [SEED [COUNT]]
 */
#define _GNU_SOURCE
#include <locale.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include "escape.h"
#include "render.h"

static int nr, failed;

static bool result(const char *name, bool ok)
{
	printf("#%d escape/%s:%s\n", ++nr, name, ok ? "OK" : "FAIL");
	failed += !ok;
	return ok;
}

/* @s as C would write it, for a failure's report. */
static void show(const char *what, const char *s, size_t len)
{
	size_t i;

	printf("  %s \"", what);
	for (i = 0; i < len; i++) {
		unsigned char c = s[i];

		if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"')
			putchar(c);
		else
			printf("\\x%02x", c);
	}
	printf("\"\n");
}

/*
 * The man pages' rule, read left to right: \\ is a backslash, \xHH the
 * byte HH; any other backslash is an error. The length, or -1.
 */
static long unescape(const char *e, char *out)
{
	char *o = out;
	unsigned int b;

	for (; *e; e++) {
		if (*e != '\\') {
			*o++ = *e;
			continue;
		}
		if (e[1] == '\\') {
			*o++ = '\\';
			e++;
		} else if (e[1] == 'x' && strspn(e + 2, "0123456789abcdef") >= 2 &&
			   sscanf(e + 2, "%2x", &b) == 1) {
			*o++ = (char)b;
			e += 3;
		} else {
			return -1;
		}
	}
	return o - out;
}

static locale_t utf8;

/*
 * Whether @e is valid UTF-8 without a C0, DEL, C1, U+2028, U+2029 or
 * bidi/zero-width format character: by glibc's mbrtowc() in C.UTF-8.
 */
static bool clean(const char *e)
{
	size_t len = strlen(e), n;
	mbstate_t ms = { 0 };
	locale_t old = uselocale(utf8);
	bool ok = true;
	wchar_t wc;

	while (ok && len) {
		n = mbrtowc(&wc, e, len, &ms);
		if (n == 0 || n > len) {
			ok = false;	/* invalid or cut short */
			break;
		}
		ok = !(wc < 0x20 || (wc >= 0x7f && wc <= 0x9f) || (wc >= 0x200b && wc <= 0x200f) ||
		       (wc >= 0x2028 && wc <= 0x202e) || (wc >= 0x2060 && wc <= 0x206f) ||
		       wc == 0xfeff || wc == 0xad);
		e += n;
		len -= n;
	}
	uselocale(old);
	return ok;
}

/* The escape units of @e: each escape whole, nothing lost. */
static bool units_whole(const char *e)
{
	size_t n, w, total = 0, width = 0;

	while ((n = esc_unit(e + total, &w))) {
		if (e[total] == '\\' && !(n == 2 && e[total + 1] == '\\' && w == 2) &&
		    !(n == 4 && e[total + 1] == 'x' && w == 4))
			return false;
		total += n;
		width += w;
	}
	return total == strlen(e) && width == esc_width(e);
}

static char *buf;	/* unescape's output */

/* One name: every property, reported (the first few failures) if one fails. */
static bool check_one(const char *name, size_t len)
{
	static int shown;
	struct render_row r;
	long back;
	bool ok;

	if (render_path(&r, name))
		return false;
	back = unescape(r.path, buf);
	ok = back == (long)len && !memcmp(buf, name, len) && clean(r.path) &&
	     (r.own != NULL) == esc_needed(name) && esc_len(name) == strlen(r.path) &&
	     strlen(r.path) <= 4 * len && units_whole(r.path);
	if (!ok && shown++ < 5) {
		show("name", name, len);
		show("printed", r.path, strlen(r.path));
		printf("  unescaped to %ld bytes, clean %d, units whole %d\n", back, clean(r.path),
		       units_whole(r.path));
	}
	free(r.own);
	return ok;
}

static const struct example {
	const char *name, *printed;
} examples[] = {
	{ "/ua/a", "/ua/a" },
	{ "/", "/" },
	{ "/ua/\xff\xfe", "/ua/\\xff\\xfe" },
	{ "/ua/\\xff\\xfe", "/ua/\\\\xff\\\\xfe" },	/* the look-alike: 8 characters */
	{ "/ua/esc\x1b]0;PWNED\aX", "/ua/esc\\x1b]0;PWNED\\x07X" },
	{ "/ua/cr\rZZZZ", "/ua/cr\\x0dZZZZ" },
	{ "tab\tT", "tab\\x09T" },
	{ "nl\n", "nl\\x0a" },
	{ "\x01\x1f\x7f", "\\x01\\x1f\\x7f" },
	{ "a\\b", "a\\\\b" },
	{ "\\", "\\\\" },
	{ "\"q\",c", "\"q\",c" },			/* CSV and JSON quote those */
	{ "csi\xc2\x9b" "2J", "csi\\xc2\\x9b2J" },	/* C1 CSI, U+009B */
	{ "\xc2\x80\xc2\x9f", "\\xc2\\x80\\xc2\\x9f" },
	{ "nbsp\xc2\xa0", "nbsp\xc2\xa0" },		/* U+00A0 prints */
	{ "caf\xc3\xa9", "caf\xc3\xa9" },		/* é */
	{ "\xe6\x97\xa5\xe6\x9c\xac", "\xe6\x97\xa5\xe6\x9c\xac" },	/* 日本 */
	{ "\xf0\x9f\x90\xa7", "\xf0\x9f\x90\xa7" },	/* U+1F427 */
	{ "rlo\xe2\x80\xae", "rlo\\xe2\\x80\\xae" },	/* U+202E, bidi override */
	{ "zw\xe2\x80\x8b", "zw\\xe2\\x80\\x8b" },	/* U+200B */
	{ "ls\xe2\x80\xa8", "ls\\xe2\\x80\\xa8" },	/* U+2028 */
	{ "bom\xef\xbb\xbf", "bom\\xef\\xbb\\xbf" },	/* U+FEFF */
	{ "\xc0\xaf", "\\xc0\\xaf" },			/* overlong '/' */
	{ "\xed\xa0\x80", "\\xed\\xa0\\x80" },		/* a surrogate */
	{ "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80" },	/* above U+10FFFF */
	{ "\xe6\x97", "\\xe6\\x97" },			/* cut short */
	{ "\xe6\x97x", "\\xe6\\x97x" },
	{ "\x80", "\\x80" },
};

static void test_examples(void)
{
	struct render_row r;
	bool ok = true;
	size_t i;

	for (i = 0; i < sizeof(examples) / sizeof(examples[0]); i++) {
		const struct example *x = &examples[i];

		if (render_path(&r, x->name)) {
			ok = false;
			continue;
		}
		if (strcmp(r.path, x->printed)) {
			ok = false;
			show("name", x->name, strlen(x->name));
			show("printed", r.path, strlen(r.path));
			show("wanted", x->printed, strlen(x->printed));
		}
		free(r.own);
	}
	result("examples", ok);
}

/* The columns a table and top give an escaped path. */
static void test_width(void)
{
	static const struct { const char *e; size_t width, first, first_width; } w[] = {
		{ "/ua/a", 5, 1, 1 },
		{ "\\\\xff", 5, 2, 2 },
		{ "\\xff\\xfe", 8, 4, 4 },
		{ "\xe6\x97\xa5\xe6\x9c\xac", 4, 3, 2 },	/* wide: two columns each */
		{ "e\xcc\x81x", 2, 3, 1 },			/* e and U+0301 one unit */
		{ "caf\xc3\xa9", 4, 1, 1 },
		{ "\xf0\x9f\x90\xa7", 2, 4, 2 },
		{ "", 0, 0, 0 },
	};
	size_t i, n, uw;
	bool ok = true;

	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		n = esc_unit(w[i].e, &uw);
		if (esc_width(w[i].e) != w[i].width || n != w[i].first || uw != w[i].first_width) {
			ok = false;
			printf("  \"%s\": width %zu (want %zu), first unit %zu bytes %zu columns (want %zu, %zu)\n",
			       w[i].e, esc_width(w[i].e), w[i].width, n, uw, w[i].first, w[i].first_width);
		}
	}
	result("display_width", ok);
}

/* Every string of one and of two bytes. */
static void test_all_short(void)
{
	char s[3] = { 0 };
	bool ok = true;
	int a, b;

	for (a = 1; a < 256; a++) {
		s[0] = (char)a;
		s[1] = 0;
		ok &= check_one(s, 1);
		for (b = 1; b < 256; b++) {
			s[1] = (char)b;
			ok &= check_one(s, 2);
		}
	}
	result("every_short_string", ok);
}

static uint64_t rng;

static uint32_t next(void)
{
	/* xorshift64*: the same strings for the same seed, on any libc */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (uint32_t)((rng * 0x2545f4914f6cdd1dULL) >> 32);
}

/* A code point's UTF-8 at @o: its length. */
static size_t put_utf8(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/*
 * A random name of up to 48 bytes, from pieces that matter: the bytes of
 * escapes (\, x, hex digits), control bytes, lone and misplaced UTF-8
 * lead and continuation bytes, code points near every boundary (C1, the
 * format characters, surrogates, U+10FFFF and past it), any byte at all.
 */
static size_t random_name(char *s)
{
	static const char pieces[] = "\\x0123456789abcdefABCDEF/\"',\x1b\a\r\n\t\x7f";
	static const uint32_t cps[] = { 0x80, 0x9b, 0x9f, 0xa0, 0xad, 0xe9, 0x301, 0x7ff, 0x800,
					0x200b, 0x200f, 0x2028, 0x2029, 0x202e, 0x2066, 0x3042,
					0xd7ff, 0xd800, 0xdfff, 0xe000, 0xfeff, 0xfffd, 0xffff,
					0x10000, 0x1f427, 0xe0001, 0x10ffff, 0x110000, 0x1fffff };
	size_t len = 0, max = next() % 49, k;
	uint32_t cp;

	while (len < max) {
		switch (next() % 6) {
		case 0:
			s[len++] = pieces[next() % (sizeof(pieces) - 1)];
			break;
		case 1:		/* any byte */
			s[len++] = (char)(next() % 255 + 1);
			break;
		case 2:		/* a UTF-8 lead or continuation byte alone */
			s[len++] = (char)(0x80 + next() % 0x80);
			break;
		case 3:		/* a boundary code point, maybe cut short */
			cp = cps[next() % (sizeof(cps) / sizeof(cps[0]))];
			k = put_utf8(s + len, cp);
			len += next() % 4 ? k : next() % k;
			break;
		case 4:		/* any code point, surrogates and all */
			len += put_utf8(s + len, 0x80 + next() % 0x10ff80);
			break;
		default:
			s[len++] = (char)(' ' + next() % 95);
		}
	}
	s[len] = '\0';
	return len;
}

static void test_random(uint64_t seed, long count)
{
	char s[64];
	bool ok = true;
	long i;

	rng = seed ? seed : 1;
	for (i = 0; i < count; i++)
		ok &= check_one(s, random_name(s));
	if (!ok)
		printf("  seed %llu\n", (unsigned long long)seed);
	result("random_names", ok);
}

int main(int argc, char **argv)
{
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 21;
	long count = argc > 2 ? strtol(argv[2], NULL, 0) : 300000;

	utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	buf = malloc(4096);
	if (!utf8 || !buf) {
		printf("#1 escape/setup:FAIL (no C.UTF-8 locale, or no memory)\n");
		return 1;
	}
	test_examples();
	test_width();
	test_all_short();
	test_random(seed, count);
	printf("%d tests, %d failed (seed %llu, %ld random names)\n", nr, failed,
	       (unsigned long long)seed, count);
	free(buf);
	freelocale(utf8);
	return failed ? 1 : 0;
}
