/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * memcgstat-exporter's snapshots (exporter_snapshot.c): read, filtered by
 * --max-depth, --include and --exclude, counted, installed as the current
 * one, rendered. Used by the HTTP server and the textfile writer; knows
 * neither.
 */
#ifndef __MEMCGSTAT_EXPORTER_SNAPSHOT_H
#define __MEMCGSTAT_EXPORTER_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include "exporter_ctx.h"

/* @ex's locks, and no snapshot yet: before any other call. 0 or -errno. */
int snaps_init(struct exporter *ex);
/* The current snapshot and the spare results freed, the locks destroyed. */
void snaps_fini(struct exporter *ex);

/* A new snapshot of @ex's CGROUPs into @s, counted: its rows, or its error. */
void read_snap(struct exporter *ex, struct snap *s);
/* Make @s the current snapshot (the one before it freed). Takes ex->lock. */
void install_snap(struct exporter *ex, struct snap *s);
/* Free @s's results, rows and responses. */
void snap_clear(const struct exporter *ex, struct snap *s);

/*
 * @resp as @s's response @k (resp_kind(); the 500 in 0), to be freed with
 * @s by @free_resp. Every response of a snapshot has the same owner.
 */
void snap_add_response(struct snap *s, int k, void *resp, void (*free_resp)(void *resp));

/*
 * The exposition of @s (a successful, counted read) in format @f, in a
 * malloc'd buffer; @http: for an HTTP reply, with the reply counts (a
 * textfile has none). Reads nothing but @s, @ex's options, its reply
 * counts (atomic) and the handle's columns, which never change after
 * open: no lock needed. 0 or -ENOMEM.
 */
int snap_exposition(const struct exporter *ex, const struct snap *s, enum fmt f, bool http,
		    char **buf, size_t *len);

#endif /* __MEMCGSTAT_EXPORTER_SNAPSHOT_H */
