/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* memcgstat-exporter's HTTP server (exporter_http.c): /metrics on --listen. */
#ifndef __MEMCGSTAT_EXPORTER_HTTP_H
#define __MEMCGSTAT_EXPORTER_HTTP_H

#include "exporter_ctx.h"

/*
 * Serve /metrics on ex->o.listen, with the reader thread that reads for
 * suspended scrapes, as ex->http: 0, or the exit status, said why. Stop it
 * with http_stop() either way.
 */
int http_start(struct exporter *ex);
/*
 * Every connection resumed, the reader joined, the server stopped and
 * freed (none started: nothing). The responses of ex->snap are freed with
 * it (snaps_fini()).
 */
void http_stop(struct exporter *ex);

#endif /* __MEMCGSTAT_EXPORTER_HTTP_H */
