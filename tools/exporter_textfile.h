/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * memcgstat-exporter's --textfile (exporter_textfile.c), for
 * node_exporter's textfile collector.
 */
#ifndef __MEMCGSTAT_EXPORTER_TEXTFILE_H
#define __MEMCGSTAT_EXPORTER_TEXTFILE_H

#include "exporter_ctx.h"

/*
 * A new snapshot's text format written atomically to @path, which must be
 * a regular file or not exist (a symbolic link only with
 * --textfile-follow-symlinks); the snapshot made @ex's current one: 0 or
 * -errno, said.
 */
int write_textfile(struct exporter *ex, const char *path);
/* Whether @path could be written so, before the first read: 0 or -errno, said. */
int check_textfile(const struct exporter *ex, const char *path);

#endif /* __MEMCGSTAT_EXPORTER_TEXTFILE_H */
