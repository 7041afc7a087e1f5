/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A small JSON writer in the shape of bpftool's json_writer: the caller
 * says what comes next (an object, a name, a value), the writer puts the
 * commas and escapes the strings. Compact output, no whitespace.
 */
#ifndef __MEMCGSTAT_JSON_WRITER_H
#define __MEMCGSTAT_JSON_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json_writer {
	FILE *out;
	unsigned int depth;	/* open objects and arrays */
	bool sep;		/* a value came last: the next one needs a comma */
};

void jsonw_init(struct json_writer *jw, FILE *out);

void jsonw_start_object(struct json_writer *jw);
void jsonw_end_object(struct json_writer *jw);
void jsonw_start_array(struct json_writer *jw);
void jsonw_end_array(struct json_writer *jw);

/* The name of the next member of an object. */
void jsonw_name(struct json_writer *jw, const char *name);

void jsonw_string(struct json_writer *jw, const char *s);
void jsonw_uint(struct json_writer *jw, uint64_t v);
void jsonw_int(struct json_writer *jw, int64_t v);
/* @v with @precision digits after the point. */
void jsonw_float(struct json_writer *jw, double v, int precision);
void jsonw_null(struct json_writer *jw);
void jsonw_bool(struct json_writer *jw, bool v);

#endif /* __MEMCGSTAT_JSON_WRITER_H */
