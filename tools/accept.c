// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* memcgstat-exporter's content negotiation: the Accept header. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "accept.h"

/* The value of parameter @key in "; k=v; k2="v2"" (unquoted), or NULL. */
static const char *param(const char *params, size_t len, const char *key,
			 char *buf, size_t size)
{
	const char *p = params, *end = params + len;
	size_t kl = strlen(key);

	while (p < end) {
		const char *semi = memchr(p, ';', end - p), *e = semi ? semi : end;
		const char *eq = memchr(p, '=', e - p);

		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		if (eq && (size_t)(eq - p) == kl && !strncasecmp(p, key, kl)) {
			const char *v = eq + 1, *ve = e;

			while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
				ve--;
			if (ve - v >= 2 && *v == '"' && ve[-1] == '"') {
				v++;
				ve--;
			}
			if ((size_t)(ve - v) >= size)
				return NULL;
			memcpy(buf, v, ve - v);
			buf[ve - v] = '\0';
			return buf;
		}
		p = e + 1;
	}
	return NULL;
}

/*
 * Content negotiation: OpenMetrics 1.0 when the Accept header prefers
 * application/openmetrics-text (no version, or 1.0.0) to the text format
 * (text/plain without version or 0.0.4, or the wildcards text/STAR and
 * STAR/STAR); the text format otherwise. A malformed media range (no '/', a q outside [0, 1]) counts
 * as absent, so garbage falls back to the text format.
 */
enum fmt negotiate(const char *accept)
{
	double q_om = 0, q_text = 0;
	const char *p = accept;

	while (p && *p) {
		const char *comma = strchr(p, ','), *e = comma ? comma : p + strlen(p);
		const char *semi = memchr(p, ';', e - p), *te = semi ? semi : e;
		char val[32], *end;
		const char *v;
		double q = 1;

		while (p < te && (*p == ' ' || *p == '\t'))
			p++;
		while (te > p && (te[-1] == ' ' || te[-1] == '\t'))
			te--;
		if (semi && (v = param(semi + 1, e - semi - 1, "q", val, sizeof(val)))) {
			errno = 0;
			q = strtod(v, &end);
			if (errno || end == v || *end || !(q >= 0 && q <= 1))
				q = -1;
		}
		v = semi ? param(semi + 1, e - semi - 1, "version", val, sizeof(val)) : NULL;
#define IS(s) ((size_t)(te - p) == strlen(s) && !strncasecmp(p, s, strlen(s)))
		if (q < 0 || !memchr(p, '/', te - p))
			;	/* malformed: ignored */
		else if (IS("application/openmetrics-text") && (!v || !strcmp(v, "1.0.0")))
			q_om = q > q_om ? q : q_om;
		else if ((IS("text/plain") && (!v || !strcmp(v, "0.0.4"))) ||
			 IS("text/*") || IS("*/*"))
			q_text = q > q_text ? q : q_text;
#undef IS
		p = comma ? comma + 1 : NULL;
	}
	return q_om > 0 && q_om > q_text ? FMT_OPENMETRICS : FMT_TEXT;
}

bool accepts_gzip(const char *ae)
{
	double q_gzip = -1, q_any = -1;
	const char *p = ae;

	while (p && *p) {
		const char *comma = strchr(p, ','), *e = comma ? comma : p + strlen(p);
		const char *semi = memchr(p, ';', e - p), *te = semi ? semi : e;
		char val[32], *end;
		const char *v;
		double q = 1;

		while (p < te && (*p == ' ' || *p == '\t'))
			p++;
		while (te > p && (te[-1] == ' ' || te[-1] == '\t'))
			te--;
		if (semi && (v = param(semi + 1, e - semi - 1, "q", val, sizeof(val)))) {
			errno = 0;
			q = strtod(v, &end);
			if (errno || end == v || *end || !(q >= 0 && q <= 1))
				q = -1;
		}
#define IS(s) ((size_t)(te - p) == strlen(s) && !strncasecmp(p, s, strlen(s)))
		if (IS("gzip") || IS("x-gzip"))
			q_gzip = q;
		else if (IS("*"))
			q_any = q;
#undef IS
		p = comma ? comma + 1 : NULL;
	}
	/* a coding named counts over the wildcard, "gzip;q=0" refuses it */
	return q_gzip >= 0 ? q_gzip > 0 : q_any > 0;
}
