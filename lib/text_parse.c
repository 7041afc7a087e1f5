// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Reading and parsing the memory controller's text files. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include "memcgstat.h"
#include "text_parse.h"

/* The whole file open at @fd (closed here) into a malloc'd buffer. */
static int read_fd(int fd, char **buf, size_t *len)
{
	size_t size = 8192, n = 0;
	ssize_t r;
	char *b;

	if (fd < 0)
		return mcs_file_errno();
	b = malloc(size);
	while (b) {
		r = read(fd, b + n, size - n);
		if (r < 0) {
			r = mcs_file_errno();
			free(b);
			close(fd);
			return r;
		}
		if (!r)
			break;
		n += r;
		if (n == size) {
			char *nb = realloc(b, size * 2);

			if (!nb) {
				free(b);
				b = NULL;
				break;
			}
			b = nb;
			size *= 2;
		}
	}
	close(fd);
	if (!b)
		return -ENOMEM;
	*buf = b;
	*len = n;
	return 0;
}

int mcs_read_file(const char *dir, const char *name, char **buf, size_t *len)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return read_fd(open(path, O_RDONLY | O_CLOEXEC), buf, len);
}

int mcs_read_fileat(int dirfd, const char *name, char **buf, size_t *len)
{
	return read_fd(openat(dirfd, name, O_RDONLY | O_CLOEXEC), buf, len);
}

static int is_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/* A decimal in [s, end) that fits 64 bits; no sign, no spaces. */
static int parse_u64(const char *s, const char *end, unsigned long long *val)
{
	unsigned long long v = 0;

	if (s == end)
		return -EINVAL;
	for (; s < end; s++) {
		unsigned int d;

		if (*s < '0' || *s > '9')
			return -EINVAL;
		d = *s - '0';
		if (v > (ULLONG_MAX - d) / 10)
			return -EINVAL;	/* overflow */
		v = v * 10 + d;
	}
	*val = v;
	return 0;
}

static const char *line_end(const char *s, const char *end)
{
	while (s < end && *s != '\n')
		s++;
	return s;
}

/* KEY at s: returns the end of the key, or NULL. */
static const char *parse_key(const char *s, const char *eol)
{
	const char *k = s;

	while (k < eol && is_key_char(*k))
		k++;
	return k == s ? NULL : k;
}

int mcs_parse_flat(const char *buf, size_t len, mcs_text_cb cb, void *arg,
		   int *bad_line)
{
	const char *s = buf, *end = buf + len;
	int line = 0, ret;

	while (s < end) {
		const char *eol = line_end(s, end), *k;
		unsigned long long val;

		line++;
		k = parse_key(s, eol);
		if (!k || k + 1 >= eol || *k != ' ' ||
		    parse_u64(k + 1, eol, &val)) {
			if (bad_line)
				*bad_line = line;
			return -EINVAL;
		}
		ret = cb(s, k - s, -1, val, arg);
		if (ret)
			return ret;
		s = eol + 1;
	}
	return 0;
}

/*
 * One "NAME=VALUE" field [tok, end) of a line of key @key: its value to the
 * callback, or *bad for a field the format does not take.
 */
typedef int (*field_fn)(const char *key, size_t keylen, const char *tok, const char *eq,
			const char *end, mcs_text_cb cb, void *arg, bool *bad);

/*
 * Lines of "KEY NAME=VALUE NAME=VALUE ...", KEY of [a-z0-9_] and at most
 * @max_key bytes, each field to @field.
 */
static int parse_fields(const char *buf, size_t len, size_t max_key, field_fn field,
			mcs_text_cb cb, void *arg, int *bad_line)
{
	const char *s = buf, *end = buf + len;
	int line = 0, ret = 0;
	bool bad;

	while (s < end) {
		const char *eol = line_end(s, end), *k, *p, *tok, *eq, *tend;

		line++;
		k = parse_key(s, eol);
		bad = !k || k >= eol || *k != ' ' || (size_t)(k - s) > max_key;
		for (p = k; !bad && !ret && p < eol; p = tend) {
			tok = p + 1;
			if (*p != ' ' || tok >= eol) {
				bad = true;
				break;
			}
			for (tend = tok; tend < eol && *tend != ' '; tend++)
				;
			for (eq = tok; eq < tend && *eq != '='; eq++)
				;
			bad = eq == tend;
			if (!bad)
				ret = field(s, k - s, tok, eq, tend, cb, arg, &bad);
		}
		if (bad) {
			if (bad_line)
				*bad_line = line;
			return -EINVAL;
		}
		if (ret)
			return ret;
		s = eol + 1;
	}
	return 0;
}

/* "N0=123": node 0's value */
static int numa_field(const char *key, size_t keylen, const char *tok, const char *eq,
		      const char *end, mcs_text_cb cb, void *arg, bool *bad)
{
	unsigned long long nid, val;

	if (*tok != 'N' || parse_u64(tok + 1, eq, &nid) || nid > INT_MAX ||
	    parse_u64(eq + 1, end, &val)) {
		*bad = true;
		return 0;
	}
	return cb(key, keylen, (int)nid, val, arg);
}

int mcs_parse_numa(const char *buf, size_t len, mcs_text_cb cb, void *arg,
		   int *bad_line)
{
	return parse_fields(buf, len, SIZE_MAX, numa_field, cb, arg, bad_line);
}

/* "12.34" in [s, end): 1234; exactly two decimals, as the kernel prints them */
static int parse_centi(const char *s, const char *end, unsigned long long *val)
{
	unsigned long long i, f;

	if (end - s < 4 || end[-3] != '.' || parse_u64(s, end - 3, &i) ||
	    parse_u64(end - 2, end, &f) || i > (ULLONG_MAX - 99) / 100)
		return -EINVAL;
	*val = i * 100 + f;
	return 0;
}

/* "avg10=1.23" or "total=123", as "KEY_avg10" and "KEY_total" */
static int psi_field(const char *key, size_t keylen, const char *tok, const char *eq,
		     const char *end, mcs_text_cb cb, void *arg, bool *bad)
{
	unsigned long long val;
	char name[48];
	int n;

	if (eq == tok || eq - tok > 16 || parse_key(tok, eq) != eq ||
	    (eq - tok == 5 && !memcmp(tok, "total", 5) ? parse_u64(eq + 1, end, &val) :
	     parse_centi(eq + 1, end, &val))) {
		*bad = true;
		return 0;
	}
	n = snprintf(name, sizeof(name), "%.*s_%.*s", (int)keylen, key, (int)(eq - tok), tok);
	return cb(name, n, -1, val, arg);
}

int mcs_parse_psi(const char *buf, size_t len, mcs_text_cb cb, void *arg,
		  int *bad_line)
{
	return parse_fields(buf, len, 16, psi_field, cb, arg, bad_line);
}

int mcs_parse_value(const char *buf, size_t len, unsigned long long *val)
{
	if (len && buf[len - 1] == '\n')
		len--;
	return parse_u64(buf, buf + len, val);
}

int mcs_parse_limit(const char *buf, size_t len, unsigned long long *val)
{
	if (len && buf[len - 1] == '\n')
		len--;
	if (len == 3 && !memcmp(buf, "max", 3)) {
		*val = MEMCGSTAT_MAX;
		return 0;
	}
	/* a number is never taken for the sentinels MEMCGSTAT_MAX and _NA */
	if (parse_u64(buf, buf + len, val) || *val >= MEMCGSTAT_MAX)
		return -EINVAL;
	return 0;
}

unsigned long long mcs_limit_max_bytes(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	return (unsigned long long)(LONG_MAX / ps) * ps;
}
