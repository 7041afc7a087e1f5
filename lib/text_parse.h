/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Reading and parsing the memory controller's text files. */
#ifndef __MEMCGSTAT_TEXT_H
#define __MEMCGSTAT_TEXT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/*
 * Called once per counter; return non-zero to stop parsing with that value.
 * @key is not NUL-terminated: @keylen bytes. @nid is -1 outside
 * memory.numa_stat.
 */
typedef int (*mcs_text_cb)(const char *key, size_t keylen, int nid,
			   unsigned long long val, void *arg);

/*
 * A flat-keyed file: memory.stat, memory.events, v1 memory.stat. Every
 * line must be "KEY VALUE\n", KEY of [a-z0-9_], VALUE a decimal that fits
 * 64 bits; the last line may lack its newline.
 *
 * Return: 0; -EINVAL for a malformed line (*bad_line gets its number,
 * counted from 1); or the callback's non-zero value.
 */
int mcs_parse_flat(const char *buf, size_t len, mcs_text_cb cb, void *arg,
		   int *bad_line);

/*
 * A pressure file (memory.pressure): "some avg10=1.23 avg60=0.00
 * avg300=0.00 total=123456\n" lines, each of its values a key of the line's
 * name and the field's ("some_avg10", "full_total"); an average in
 * hundredths (1.23 is 123).
 */
int mcs_parse_psi(const char *buf, size_t len, mcs_text_cb cb, void *arg,
		  int *bad_line);

/* cgroup v2 memory.numa_stat: "KEY N0=VALUE N1=VALUE ...\n" lines. */
int mcs_parse_numa(const char *buf, size_t len, mcs_text_cb cb, void *arg,
		   int *bad_line);

/*
 * -errno of a failed open() or read() of a cgroup's file: kernfs fails
 * those of a file whose cgroup was removed meanwhile with -ENODEV, which
 * is the file gone, -ENOENT, as an open after the removal says.
 */
static inline int mcs_file_errno(void)
{
	return errno == ENODEV ? -ENOENT : -errno;
}

/* A whole file, @dir/@name, into a malloc'd *buf of *len bytes; -errno (mcs_file_errno()). */
int mcs_read_file(const char *dir, const char *name, char **buf, size_t *len);
/* The same, @name relative to the directory open at @dirfd: any depth. */
int mcs_read_fileat(int dirfd, const char *name, char **buf, size_t *len);

/* A single-value file: memory.current, memory.usage_in_bytes. */
int mcs_parse_value(const char *buf, size_t len, unsigned long long *val);

/*
 * A limit file (memory.max, memory.swap.high, ...): a value, or "max",
 * which gives MEMCGSTAT_MAX; -EINVAL for a value of MEMCGSTAT_MAX or more
 * (no kernel prints one: its page counters hold less than 2^63 bytes).
 */
int mcs_parse_limit(const char *buf, size_t len, unsigned long long *val);
/* The largest limit the kernel takes, in bytes: PAGE_COUNTER_MAX pages. */
unsigned long long mcs_limit_max_bytes(void);
/* Whether the key @key of @keylen bytes is @name (NULL: none is). */
static inline bool mcs_key_is(const char *key, size_t keylen, const char *name)
{
	return name && strlen(name) == keylen && !memcmp(key, name, keylen);
}

#endif /* __MEMCGSTAT_TEXT_H */
