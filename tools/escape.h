/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * How memcgstat and memcgstat-exporter print a string they did not choose:
 * a cgroup path (a cgroup name is any bytes but '/' and NUL), an argument,
 * a message that quotes either. One rule for every output, so that a name
 * reads the same in the table, top, CSV, JSON, the expositions and the
 * error messages:
 *
 *   - a backslash becomes \\ (two characters);
 *   - a byte that is not part of valid UTF-8, and each byte of a control
 *     character (C0 U+0000-U+001F, DEL U+007F, C1 U+0080-U+009F), of a
 *     Unicode format character (general category Cf: U+00AD, U+200B-U+200F,
 *     U+202A-U+202E, U+2060-U+206F, U+FEFF, ...) or of the line and
 *     paragraph separators U+2028, U+2029, becomes \xHH (lowercase hex);
 *   - everything else, printable ASCII and valid UTF-8, is kept as it is.
 *
 * The escaped string is valid UTF-8 without control or format characters:
 * nothing in it moves a terminal's cursor, sets its title or reorders its
 * text. Undone by reading \\ as a backslash and \xHH as the byte HH, left to
 * right: distinct names print distinct. Each format quotes the escaped
 * string by its own rules on top (JSON's \" and \\, CSV's "", a label
 * value's \\ \" \n).
 */
#ifndef __MEMCGSTAT_ESCAPE_H
#define __MEMCGSTAT_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Whether @s needs escaping: most paths do not. */
bool esc_needed(const char *s);

/* The length of @s escaped, without the NUL: at most 4 * strlen(@s). */
size_t esc_len(const char *s);

/* @s escaped into @out (esc_len(@s) + 1 bytes): the NUL's address. */
char *esc_write(char *out, const char *s);

/* @s escaped onto @f, without an allocation. */
void esc_fputs(const char *s, FILE *f);

/* A malloc'd escaped copy of @s, or NULL without memory. */
char *esc_dup(const char *s);

/*
 * The next unit of the escaped string @e, one that a cut must not split:
 * an escape (\\ or \xHH), or a character with the zero-width characters
 * (combining marks) that follow it. Its length in bytes (0 at the end) and
 * in *@width the terminal columns it takes (a wide character two).
 */
size_t esc_unit(const char *e, size_t *width);

/* The terminal columns of the escaped string @e. */
size_t esc_width(const char *e);

#endif /* __MEMCGSTAT_ESCAPE_H */
