/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the parts of memcgstat-exporter share: its options (exporter.c),
 * the snapshots and the state shared with the reader thread
 * (exporter_snapshot.c), the HTTP server (exporter_http.c) and the textfile
 * writer (exporter_textfile.c).
 */
#ifndef __MEMCGSTAT_EXPORTER_H
#define __MEMCGSTAT_EXPORTER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include "accept.h"
#include "memcgstat.h"
#include "render.h"

struct MHD_Connection;
struct MHD_Response;

struct env {
	const char *listen;		/* NULL: no HTTP server */
	const char *textfile;
	char **cgroups;			/* the subtrees to export, none inside another */
	size_t nr_cgroups;
	const char *web_config;		/* --web.config.file: TLS, basic auth */
	char *stats;			/* -s, all of them; split when opening */
	double interval;		/* textfile rewrite period */
	bool have_interval;
	double min_interval;		/* reuse a snapshot this young */
	long max_depth;			/* below cgroup; -1: no limit */
	char **include, **exclude;	/* fnmatch(3) patterns on the label */
	size_t nr_include, nr_exclude;
	long threads, max_conns, timeout, max_per_ip, header_timeout;
	bool once, verbose, local, numa;
	bool textfile_follow;		/* --textfile-follow-symlinks */
	enum memcgstat_backend backend;
};
extern struct env env;

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
	struct memcgstat_result **res;	/* [env.nr_cgroups]; failed ones empty */
	size_t nr_failed;		/* CGROUPs whose read failed */
	size_t nr_unreadable;		/* cgroups below them left out: unreadable */
	char err[1024];			/* why, each of them */
	struct render_row *rows;	/* exported rows of res */
	size_t nr_rows;
	/* st's, this one counted */
	unsigned long long reads, read_errors, cgroup_failures;
	void *resp[NR_RESP];		/* HTTP responses, or the 500 in [0] */
};

/* A GET /metrics, from its first call of the handler to its completion. */
struct req {
	bool waited;			/* suspended for a read; resumed since */
	bool authorized;		/* basic_auth_users checked */
	int f;				/* the response it wants: resp_kind() */
	struct MHD_Connection *conn;
	struct req *next;		/* in st.waiters */
};

/*
 * Every exposition comes from one libmemcgstat snapshot of the chosen
 * subtree (bpf backend where the kernel has the memcg kfuncs, memory.stat
 * otherwise). One reader thread does the reads, one at a time. A scrape
 * within --min-interval of the last read gets that one; any other scrape
 * is suspended (libmicrohttpd's suspend/resume) until the next read is
 * done, so scrapes arriving during a read share the next read and the HTTP
 * threads never block. The rendered bodies are libmicrohttpd responses,
 * reference counted and shared by every connection sending them.
 */
struct state {
	pthread_mutex_t lock;		/* the fields below read_lock */
	pthread_cond_t wake;		/* the reader: waiters, or stopping */
	struct snap snap;		/* the last read */
	struct memcgstat_result **spare; /* the one before's, to read the next into */
	struct req *waiters;		/* suspended, for the next read */
	bool stopping;
	unsigned long long reads, read_errors, cgroup_failures;
	pthread_mutex_t read_lock;	/* one read of the handle at a time */
	struct memcgstat *h;
};
extern struct state st;

/* exporter_snapshot.c */

/* A new snapshot into @s, counted: its rows, or its error (res NULL). */
void read_snap(struct snap *s);
/* Make @s the current snapshot. Takes st.lock. */
void install_snap(struct snap *s);
/* Free @s's result, rows and responses (through snap_free_response). */
void snap_clear(struct snap *s);
/* Free an array of env.nr_cgroups results (NULL: none). */
void results_free(struct memcgstat_result **res);
extern void (*snap_free_response)(void *resp);
/*
 * The exposition of @s (a successful, counted read) in format @f, in a
 * malloc'd buffer. Reads nothing but @s and the handle's columns, which
 * never change after open: no lock needed. 0 or -ENOMEM.
 */
int snap_exposition(const struct snap *s, enum fmt f, char **buf, size_t *len);
/* exporter_http.c */

/*
 * Serve /metrics on --listen, with the reader thread that reads for
 * suspended scrapes: 0, or the exit status, said why.
 */
int http_start(const char *listen);
/* Every connection resumed, the reader joined, the server stopped. */
void http_stop(void);
/* GET /metrics answered 200 so far, without and with gzip (any thread). */
void http_replies(unsigned long long *identity, unsigned long long *gzip);

/* exporter_textfile.c */

/*
 * A new snapshot's text format written atomically to @path, which must be
 * a regular file or not exist (a symbolic link only with
 * --textfile-follow-symlinks): 0 or -errno, said.
 */
int write_textfile(const char *path);
/* Whether @path could be written so, before the first read: 0 or -errno, said. */
int check_textfile(const char *path);

#endif /* __MEMCGSTAT_EXPORTER_H */
