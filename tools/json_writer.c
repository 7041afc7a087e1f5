// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A small JSON writer: nesting, commas and string escapes in one place. */
#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include "json_writer.h"

void jsonw_init(struct json_writer *jw, FILE *out)
{
	jw->out = out;
	jw->depth = 0;
	jw->sep = false;
}

/* Before a value or a name: the comma after the previous one. */
static void jsonw_next(struct json_writer *jw)
{
	if (jw->sep)
		fputc(',', jw->out);
	jw->sep = false;
}

static void jsonw_open(struct json_writer *jw, char c)
{
	jsonw_next(jw);
	fputc(c, jw->out);
	jw->depth++;
}

static void jsonw_close(struct json_writer *jw, char c)
{
	assert(jw->depth > 0);
	fputc(c, jw->out);
	jw->depth--;
	jw->sep = true;
}

void jsonw_start_object(struct json_writer *jw)
{
	jsonw_open(jw, '{');
}

void jsonw_end_object(struct json_writer *jw)
{
	jsonw_close(jw, '}');
}

void jsonw_start_array(struct json_writer *jw)
{
	jsonw_open(jw, '[');
}

void jsonw_end_array(struct json_writer *jw)
{
	jsonw_close(jw, ']');
}

/* " and \ escaped, control characters as \u00XX; other bytes as they are */
static void jsonw_quoted(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

void jsonw_name(struct json_writer *jw, const char *name)
{
	jsonw_next(jw);
	jsonw_quoted(jw->out, name);
	fputc(':', jw->out);
}

void jsonw_string(struct json_writer *jw, const char *s)
{
	jsonw_next(jw);
	jsonw_quoted(jw->out, s);
	jw->sep = true;
}

static void __attribute__((format(printf, 2, 3)))
jsonw_printf(struct json_writer *jw, const char *fmt, ...)
{
	va_list ap;

	jsonw_next(jw);
	va_start(ap, fmt);
	vfprintf(jw->out, fmt, ap);
	va_end(ap);
	jw->sep = true;
}

void jsonw_uint(struct json_writer *jw, uint64_t v)
{
	jsonw_printf(jw, "%" PRIu64, v);
}

void jsonw_int(struct json_writer *jw, int64_t v)
{
	jsonw_printf(jw, "%" PRId64, v);
}

void jsonw_float(struct json_writer *jw, double v, int precision)
{
	jsonw_printf(jw, "%.*f", precision, v);
}

void jsonw_null(struct json_writer *jw)
{
	jsonw_printf(jw, "null");
}

void jsonw_bool(struct json_writer *jw, bool v)
{
	jsonw_printf(jw, v ? "true" : "false");
}
