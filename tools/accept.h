/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* memcgstat-exporter's content negotiation, on its own for the fuzzer. */
#ifndef __MEMCGSTAT_ACCEPT_H
#define __MEMCGSTAT_ACCEPT_H

#include <stdbool.h>

enum fmt { FMT_TEXT, FMT_OPENMETRICS, NR_FMTS };

/*
 * The format for an HTTP Accept header (NULL: none): FMT_OPENMETRICS when
 * it prefers application/openmetrics-text (no version, or 1.0.0) to the
 * text format, FMT_TEXT otherwise, malformed input included.
 */
enum fmt negotiate(const char *accept);

/*
 * Whether an HTTP Accept-Encoding header (NULL: none) accepts gzip: a
 * "gzip" (or "x-gzip") coding, or "*", with a q above 0.
 */
bool accepts_gzip(const char *accept_encoding);

#endif /* __MEMCGSTAT_ACCEPT_H */
