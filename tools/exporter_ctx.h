/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * memcgstat-exporter's one context, struct exporter: its options
 * (exporter.c parses them), the current snapshot and the counts shared
 * with the reader thread (exporter_snapshot.h), and the HTTP server's own
 * state (exporter_http.h), passed to every function that needs any of
 * them. The modules call one way: exporter.c -> exporter_http.c and
 * exporter_textfile.c -> exporter_snapshot.c -> render.c; each has its own
 * header, included where it is used.
 */
#ifndef __MEMCGSTAT_EXPORTER_CTX_H
#define __MEMCGSTAT_EXPORTER_CTX_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include "accept.h"
#include "common.h"
#include "memcgstat.h"
#include "render.h"

struct exporter_opts {
	const char *listen;		/* NULL: no HTTP server */
	const char *textfile;
	char *const *cgroups;		/* the subtrees to export, none inside another */
	size_t nr_cgroups;
	const char *web_config;		/* --web.config.file: TLS, basic auth */
	char *stats;			/* -s, all of them; split when opening */
	double interval;		/* textfile rewrite period */
	bool have_interval;
	double min_interval;		/* reuse a snapshot this young */
	long threads, max_conns, timeout, max_per_ip, header_timeout;
	bool once, local, numa;
	bool textfile_follow;		/* --textfile-follow-symlinks */
	bool cadvisor;			/* --compat cadvisor: cAdvisor's families too */
	struct common_env c;		/* --backend, -v, the tree filters; no -q */
};

/*
 * The responses of a snapshot: each format, plain and gzip-compressed
 * (resp_kind()).
 */
#define NR_RESP	(2 * NR_FMTS)
static inline int resp_kind(enum fmt f, bool gzip)
{
	return f + (gzip ? NR_FMTS : 0);
}

/*
 * A snapshot and what was rendered from it: a read of each CGROUP, each
 * on its own. One that fails (its top cgroup removed; on the text
 * backend, any of its cgroups unreadable) has no rows, and the others are
 * exported; a snapshot fails (a 500) only when every read failed.
 */
struct snap {
	bool valid;
	bool ok;			/* some CGROUP read: rows to export */
	double start;			/* CLOCK_MONOTONIC when the read began */
	double duration;		/* read and filter, seconds */
	struct memcgstat_result **res;	/* [o.nr_cgroups]; failed ones empty */
	size_t nr_failed;		/* CGROUPs whose read failed */
	size_t nr_unreadable;		/* cgroups below them left out: unreadable */
	char err[1024];			/* why, each of them */
	struct render_row *rows;	/* exported rows of res */
	size_t nr_rows;
	/* the exporter's, this one counted */
	unsigned long long reads, read_errors, cgroup_failures;
	/*
	 * What a server made of it (the HTTP responses, or the 500 in [0]),
	 * freed with the snapshot by free_resp, which whoever adds one
	 * gives: snap_add_response().
	 */
	void *resp[NR_RESP];
	void (*free_resp)(void *resp);
};

struct http_server;			/* exporter_http.c's */

struct exporter {
	struct exporter_opts o;
	struct memcgstat *h;
	/*
	 * Every exposition comes from one libmemcgstat snapshot (bpf backend
	 * where the kernel has the memcg kfuncs, memory.stat otherwise),
	 * read by read_snap() and made the current one by install_snap().
	 * lock guards snap, spare and the counts (and the HTTP server's
	 * queue of scrapes waiting for a read: exporter_http.c).
	 */
	pthread_mutex_t lock;
	struct snap snap;		/* the last read */
	struct memcgstat_result **spare; /* the one before's, to read the next into */
	unsigned long long reads, read_errors, cgroup_failures;
	pthread_mutex_t read_lock;	/* one read of the handle at a time */
	/*
	 * GET /metrics answered 200, [0] identity, [1] gzip: counted by the
	 * HTTP server (exporter_count_reply()), read by the self-metrics of
	 * every body rendered after; atomic, any thread.
	 */
	unsigned long long replies[2];
	struct http_server *http;	/* NULL: none started */
};

/* A 200 to GET /metrics sent, gzip-compressed or not (any thread). */
static inline void exporter_count_reply(struct exporter *ex, bool gzip)
{
	__atomic_add_fetch(&ex->replies[gzip], 1, __ATOMIC_RELAXED);
}

#endif /* __MEMCGSTAT_EXPORTER_CTX_H */
