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

/* One element of a comma-separated header list (Accept, Accept-Encoding). */
struct elem {
	const char *val;	/* the media range or coding, trimmed */
	size_t len;
	const char *params;	/* after its ';', or NULL */
	size_t plen;
	double q;		/* 1 without q=, -1 if q is malformed */
};

/* Parse the element at @p into @e; where the next one starts, or NULL. */
static const char *list_elem(const char *p, struct elem *e)
{
	const char *comma = strchr(p, ','), *end = comma ? comma : p + strlen(p);
	const char *semi = memchr(p, ';', end - p), *te = semi ? semi : end, *v;
	char val[32], *num;

	while (p < te && (*p == ' ' || *p == '\t'))
		p++;
	while (te > p && (te[-1] == ' ' || te[-1] == '\t'))
		te--;
	e->val = p;
	e->len = te - p;
	e->params = semi ? semi + 1 : NULL;
	e->plen = semi ? (size_t)(end - semi - 1) : 0;
	e->q = 1;
	if (semi && (v = param(e->params, e->plen, "q", val, sizeof(val)))) {
		errno = 0;
		e->q = strtod(v, &num);
		if (errno || num == v || *num || !(e->q >= 0 && e->q <= 1))
			e->q = -1;
	}
	return comma ? comma + 1 : NULL;
}

static bool elem_is(const struct elem *e, const char *s)
{
	return e->len == strlen(s) && !strncasecmp(e->val, s, e->len);
}

/*
 * Content negotiation: OpenMetrics 1.0 when the Accept header prefers
 * application/openmetrics-text (no version, or 1.0.0) to the text format
 * (text/plain without version or 0.0.4, or the wildcards text/STAR and
 * STAR/STAR); the text format otherwise. A malformed media range (no '/',
 * a q outside [0, 1]) counts as absent, so garbage falls back to the text
 * format.
 */
enum fmt negotiate(const char *accept)
{
	double q_om = 0, q_text = 0;
	const char *p = accept, *v;
	struct elem e;
	char val[32];

	while (p && *p) {
		p = list_elem(p, &e);
		v = e.params ? param(e.params, e.plen, "version", val, sizeof(val)) : NULL;
		if (e.q < 0 || !memchr(e.val, '/', e.len))
			;	/* malformed: ignored */
		else if (elem_is(&e, "application/openmetrics-text") && (!v || !strcmp(v, "1.0.0")))
			q_om = e.q > q_om ? e.q : q_om;
		else if ((elem_is(&e, "text/plain") && (!v || !strcmp(v, "0.0.4"))) ||
			 elem_is(&e, "text/*") || elem_is(&e, "*/*"))
			q_text = e.q > q_text ? e.q : q_text;
	}
	return q_om > 0 && q_om > q_text ? FMT_OPENMETRICS : FMT_TEXT;
}

bool accepts_gzip(const char *ae)
{
	double q_gzip = -1, q_any = -1;
	const char *p = ae;
	struct elem e;

	while (p && *p) {
		p = list_elem(p, &e);
		if (elem_is(&e, "gzip") || elem_is(&e, "x-gzip"))
			q_gzip = e.q;
		else if (elem_is(&e, "*"))
			q_any = e.q;
	}
	/* a coding named counts over the wildcard, "gzip;q=0" refuses it */
	return q_gzip >= 0 ? q_gzip > 0 : q_any > 0;
}
