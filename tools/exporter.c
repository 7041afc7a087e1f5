// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * memcgstat-exporter: memory cgroup counters for Prometheus, served on
 * /metrics by libmicrohttpd, or written as a node_exporter textfile.
 *
 * Every exposition comes from one libmemcgstat snapshot of the chosen
 * subtree (bpf backend where the kernel has the memcg kfuncs, memory.stat
 * otherwise). One reader thread does the reads, one at a time. A scrape
 * within --min-interval of the last read gets that one; any other scrape
 * is suspended (libmicrohttpd's suspend/resume) until the next read is
 * done, so scrapes arriving during a read share the next read and the HTTP
 * threads never block. The rendered bodies are libmicrohttpd responses,
 * reference counted and shared by every connection sending them.
 *
 * Exit status: 0 after SIGTERM or SIGINT, or --once written; 1 start-up or
 * --once failed; 2 bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <libgen.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <microhttpd.h>
#include "accept.h"
#include "common.h"
#include "memcgstat.h"

#define DEFAULT_LISTEN	"127.0.0.1:9743"
/* Per-connection memory: request line and headers. Prometheus sends < 1 KiB. */
#define CONN_MEMORY	16384

static const char *const content_type[NR_FMTS] = {
	"text/plain; version=0.0.4; charset=utf-8",
	"application/openmetrics-text; version=1.0.0; charset=utf-8",
};

static struct env {
	const char *listen;		/* NULL: no HTTP server */
	const char *textfile;
	const char *cgroup;		/* subtree to export */
	double interval;		/* textfile rewrite period */
	double min_interval;		/* reuse a snapshot this young */
	long max_depth;			/* below cgroup; -1: no limit */
	char **include, **exclude;	/* fnmatch(3) patterns on the label */
	size_t nr_include, nr_exclude;
	long threads, max_conns, timeout;
	bool once, verbose;
	enum memcgstat_backend backend;
} env = {
	.cgroup = "/", .interval = 15, .max_depth = -1,
	.threads = 2, .max_conns = 256, .timeout = 10,
};

static const char usage_text[] =
"Usage: memcgstat-exporter [OPTION]... [CGROUP]\n"
"Export memory cgroup counters of CGROUP and every cgroup below it (default:\n"
"the whole memory hierarchy) to Prometheus, over HTTP or as a textfile.\n"
"\n"
"  -l, --listen ADDR:PORT   serve /metrics there (default " DEFAULT_LISTEN ";\n"
"                           [::1]:PORT for IPv6, :PORT for every IPv4 address)\n"
"  -s, --stats LIST         comma-separated stats (default: all; memcgstat --list-stats)\n"
"      --max-depth N        only cgroups at most N levels below CGROUP\n"
"      --include GLOB       only cgroups whose path matches GLOB (fnmatch(3), '*'\n"
"                           matches '/' too); repeatable, any may match\n"
"      --exclude GLOB       no cgroup whose path matches GLOB; repeatable, wins\n"
"                           over --include\n"
"      --min-interval SECS  scrapes within SECS of the last read reuse it (default 0)\n"
"      --backend NAME       auto (default), bpf or text\n"
"      --textfile PATH      write the exposition to PATH atomically (for\n"
"                           node_exporter's textfile collector); no HTTP server\n"
"                           unless --listen is given too\n"
"      --interval SECS      rewrite the textfile every SECS (default 15)\n"
"      --once               write the textfile once and exit\n"
"      --threads N          HTTP worker threads (default 2)\n"
"      --max-connections N  concurrent HTTP connections (default 256)\n"
"      --timeout SECS       close idle HTTP connections after SECS (default 10)\n"
"  -v, --verbose            libmicrohttpd and libbpf messages\n"
"  -h, --help               this help\n"
"      --version            the version\n"
"\n"
"Exit status: 0 stopped by SIGTERM or SIGINT (or --once done), 1 failure,\n"
"2 bad usage.\n";

enum {
	OPT_MAX_DEPTH = 256, OPT_INCLUDE, OPT_EXCLUDE, OPT_MIN_INTERVAL,
	OPT_BACKEND, OPT_TEXTFILE, OPT_INTERVAL, OPT_ONCE, OPT_THREADS,
	OPT_MAX_CONNS, OPT_TIMEOUT, OPT_VERSION,
};

static const struct option long_opts[] = {
	{ "listen", required_argument, NULL, 'l' },
	{ "stats", required_argument, NULL, 's' },
	{ "max-depth", required_argument, NULL, OPT_MAX_DEPTH },
	{ "include", required_argument, NULL, OPT_INCLUDE },
	{ "exclude", required_argument, NULL, OPT_EXCLUDE },
	{ "min-interval", required_argument, NULL, OPT_MIN_INTERVAL },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "textfile", required_argument, NULL, OPT_TEXTFILE },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "once", no_argument, NULL, OPT_ONCE },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "max-connections", required_argument, NULL, OPT_MAX_CONNS },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{}
};

static void __attribute__((format(printf, 1, 2))) p_err(const char *fmt, ...)
{
	va_list ap;

	fputs("memcgstat-exporter: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int usage_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_err(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	p_err("%s (see memcgstat-exporter --help)", msg);
	return 2;
}

static int parse_long(const char *s, const char *what, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return usage_err("%s: '%s' is not a whole number in [%ld, %ld]", what, s, min, max);
	*out = v;
	return 0;
}

static int parse_secs(const char *s, const char *what, double min, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= min) || v > 86400)
		return usage_err("%s: '%s' is not a number of seconds in [%g, 86400]", what, s, min);
	*out = v;
	return 0;
}

static int add_pattern(char ***v, size_t *nr, char *pat)
{
	char **nv = realloc(*v, (*nr + 1) * sizeof(**v));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[(*nr)++] = pat;
	return 0;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	if (!env.verbose)
		return;
	fputs("memcgstat-exporter: libmicrohttpd: ", stderr);
	vfprintf(stderr, fmt, ap);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A growing string; after a failed allocation it stays failed. */
struct sbuf {
	char *p;
	size_t len, cap;
	bool failed;
};

static bool sb_reserve(struct sbuf *b, size_t more)
{
	size_t cap;
	char *p;

	if (b->failed)
		return false;
	if (b->len + more < b->cap)
		return true;
	cap = b->cap ? b->cap : 4096;
	while (cap <= b->len + more)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->failed = true;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

static void __attribute__((format(printf, 2, 3))) sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	/* format in place; only when it did not fit, grow and format again */
	if (!sb_reserve(b, 0))
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n >= b->cap - b->len) {
		if (!sb_reserve(b, n))
			return;
		va_start(ap, fmt);
		n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	if (n < 0) {
		b->failed = true;
		return;
	}
	b->len += n;
}

/* A label value, quoted, with \, " and newline escaped (both formats). */
static void sb_label(struct sbuf *b, const char *s)
{
	if (!sb_reserve(b, 2 * strlen(s) + 2))
		return;
	b->p[b->len++] = '"';
	for (; *s; s++) {
		if (*s == '\\' || *s == '"' || *s == '\n') {
			b->p[b->len++] = '\\';
			b->p[b->len++] = *s == '\n' ? 'n' : *s;
		} else {
			b->p[b->len++] = *s;
		}
	}
	b->p[b->len++] = '"';
	b->p[b->len] = '\0';
}

/*
 * HELP and TYPE (and, in OpenMetrics, UNIT) of a family. @name is the
 * sample name; OpenMetrics names a counter's family without "_total" and
 * an info's without "_info", the text format names both as their samples.
 */
static void family(struct sbuf *b, enum fmt f, const char *name,
		   const char *type, const char *unit, const char *help)
{
	int len = strlen(name);

	if (f == FMT_OPENMETRICS && !strcmp(type, "counter"))
		len -= strlen("_total");
	else if (f == FMT_OPENMETRICS && !strcmp(type, "info"))
		len -= strlen("_info");
	else if (!strcmp(type, "info"))
		type = "gauge";
	sb_printf(b, "# HELP %.*s %s\n", len, name, help);
	sb_printf(b, "# TYPE %.*s %s\n", len, name, type);
	if (f == FMT_OPENMETRICS && unit)
		sb_printf(b, "# UNIT %.*s %s\n", len, name, unit);
}

/* A snapshot and what was rendered from it. */
struct snap {
	bool valid;
	double start;			/* now() when the read began */
	double duration;		/* read and filter, seconds */
	struct memcgstat_result *res;	/* NULL after a failed read */
	char err[1024];			/* then why */
	size_t *rows;			/* exported rows of res */
	size_t nr_rows;
	unsigned long long reads, read_errors;	/* st's, this one counted */
	struct MHD_Response *resp[NR_FMTS];	/* or the 500 in [0] */
};

/* A GET /metrics, from its first call of the handler to its completion. */
struct req {
	bool waited;			/* suspended for a read; resumed since */
	enum fmt f;			/* the format it wants */
	struct MHD_Connection *conn;
	struct req *next;		/* in st.waiters */
};

static struct state {
	pthread_mutex_t lock;		/* the fields below read_lock */
	pthread_cond_t wake;		/* the reader: waiters, or stopping */
	struct snap snap;		/* the last read */
	struct req *waiters;		/* suspended, for the next read */
	bool stopping;
	unsigned long long reads, read_errors;
	pthread_mutex_t read_lock;	/* one read of the handle at a time */
	struct memcgstat *h;
} st = {
	.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER,
	.read_lock = PTHREAD_MUTEX_INITIALIZER,
};

static void snap_clear(struct snap *s)
{
	int f;

	for (f = 0; f < NR_FMTS; f++)
		if (s->resp[f])
			MHD_destroy_response(s->resp[f]);
	memcgstat_result_free(s->res);
	free(s->rows);
	memset(s, 0, sizeof(*s));
}

static int depth_of(const char *path)
{
	int d = 0;

	for (; *path; path++)
		d += *path == '/' && path[1];
	return d;
}

static bool matches_any(char *const *pats, size_t nr, const char *path)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!fnmatch(pats[i], path, 0))
			return true;
	return false;
}

/* --max-depth, --include, --exclude: the rows to export. */
static int filter(struct snap *s)
{
	size_t n = memcgstat_result_count(s->res), i;
	int base = n ? depth_of(memcgstat_result_path(s->res, 0)) : 0;

	s->rows = calloc(n ? n : 1, sizeof(*s->rows));
	if (!s->rows)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const char *path = memcgstat_result_path(s->res, i);

		if (env.max_depth >= 0 && depth_of(path) - base > env.max_depth)
			continue;
		if (env.nr_include && !matches_any(env.include, env.nr_include, path))
			continue;
		if (matches_any(env.exclude, env.nr_exclude, path))
			continue;
		s->rows[s->nr_rows++] = i;
	}
	return 0;
}

/* A new snapshot into @s: its rows, or its error (res NULL, err set). */
static void read_snap(struct snap *s)
{
	int err;

	memset(s, 0, sizeof(*s));
	s->valid = true;
	s->start = now();
	pthread_mutex_lock(&st.read_lock);
	err = memcgstat_snapshot(st.h, env.cgroup, NULL, 0, &s->res);
	if (err)
		snprintf(s->err, sizeof(s->err), "%s", memcgstat_errmsg(st.h));
	pthread_mutex_unlock(&st.read_lock);
	if (!err && filter(s)) {
		err = -ENOMEM;
		snprintf(s->err, sizeof(s->err), "out of memory");
	}
	if (err) {
		memcgstat_result_free(s->res);
		s->res = NULL;
		p_err("snapshot of %s failed: %s", env.cgroup, s->err);
	}
	s->duration = now() - s->start;
}

/* Count the read of @s, and give @s the counts. Caller holds st.lock. */
static void count_snap(struct snap *s)
{
	st.reads++;
	if (!s->res)
		st.read_errors++;
	s->reads = st.reads;
	s->read_errors = st.read_errors;
}

/* Make @s the current snapshot. Caller holds st.lock. */
static void install_snap(struct snap *s)
{
	snap_clear(&st.snap);
	st.snap = *s;
}

static void render_stats(struct sbuf *b, enum fmt f, const struct snap *s)
{
	size_t nc = memcgstat_nr_columns(st.h), c, r;
	char name[128], help[192];

	for (c = 0; c < nc; c++) {
		const char *stat = memcgstat_column_name(st.h, c);
		bool counter = is_counter(stat);

		snprintf(name, sizeof(name), "memcgstat_%s_%s", stat, counter ? "total" : "bytes");
		snprintf(help, sizeof(help), "memory cgroup %s, as the kernel reports it", stat);
		family(b, f, name, counter ? "counter" : "gauge", counter ? NULL : "bytes", help);
		for (r = 0; r < s->nr_rows; r++) {
			const uint64_t *v = memcgstat_result_values(s->res, s->rows[r]);

			if (v[c] == MEMCGSTAT_NA)
				continue;
			sb_printf(b, "%s{cgroup=", name);
			sb_label(b, memcgstat_result_path(s->res, s->rows[r]));
			sb_printf(b, "} %llu\n", (unsigned long long)v[c]);
		}
	}
}

/* The exporter's own health: families of their own, after the stats. */
static void render_self(struct sbuf *b, enum fmt f, const struct snap *s)
{
	const char *reason = memcgstat_backend_reason(st.h);

	family(b, f, "memcgstat_exporter_scrape_duration_seconds", "gauge", "seconds",
	       "time the snapshot behind this exposition took to read and filter");
	sb_printf(b, "memcgstat_exporter_scrape_duration_seconds %.6f\n", s->duration);
	family(b, f, "memcgstat_exporter_cgroups_seen", "gauge", NULL,
	       "cgroups in the snapshot");
	sb_printf(b, "memcgstat_exporter_cgroups_seen %zu\n", memcgstat_result_count(s->res));
	family(b, f, "memcgstat_exporter_cgroups_exported", "gauge", NULL,
	       "cgroups exported after --max-depth, --include and --exclude");
	sb_printf(b, "memcgstat_exporter_cgroups_exported %zu\n", s->nr_rows);
	family(b, f, "memcgstat_exporter_reads_total", "counter", NULL,
	       "snapshot reads since the exporter started");
	sb_printf(b, "memcgstat_exporter_reads_total %llu\n", s->reads);
	family(b, f, "memcgstat_exporter_read_errors_total", "counter", NULL,
	       "failed snapshot reads since the exporter started");
	sb_printf(b, "memcgstat_exporter_read_errors_total %llu\n", s->read_errors);
	family(b, f, "memcgstat_exporter_backend_info", "info", NULL,
	       "the backend reading the counters, and why auto did not choose bpf");
	sb_printf(b, "memcgstat_exporter_backend_info{backend=\"%s\",cgroup_version=\"%d\",reason=",
		  memcgstat_backend_name(memcgstat_backend(st.h)),
		  memcgstat_cgroup_version(st.h));
	sb_label(b, reason ? reason : "");
	sb_printf(b, "} 1\n");
	family(b, f, "memcgstat_exporter_build_info", "info", NULL,
	       "the memcgstat version");
	sb_printf(b, "memcgstat_exporter_build_info{version=\"%s\"} 1\n", MEMCGSTAT_VERSION);
}

/*
 * The exposition of @s (a successful, counted read) in format @f. Reads
 * nothing but @s and the handle's columns, which never change after open:
 * no lock needed.
 */
static int render(struct sbuf *b, enum fmt f, const struct snap *s)
{
	render_stats(b, f, s);
	render_self(b, f, s);
	if (f == FMT_OPENMETRICS)
		sb_printf(b, "# EOF\n");
	if (b->failed) {
		free(b->p);
		memset(b, 0, sizeof(*b));
		return -ENOMEM;
	}
	return 0;
}

/* Static replies, built once, shared by every connection. */
static struct MHD_Response *resp_404, *resp_405, *resp_index, *resp_503;

static struct MHD_Response *text_response(const char *body)
{
	struct MHD_Response *r;

	r = MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT);
	if (r)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	return r;
}

/* Render format @f of @s (a successful read) into s->resp[f], if not yet. */
static void snap_render(struct snap *s, enum fmt f)
{
	struct sbuf b = {};

	if (s->resp[f] || render(&b, f, s))
		return;
	s->resp[f] = MHD_create_response_from_buffer(b.len, b.p, MHD_RESPMEM_MUST_FREE);
	if (!s->resp[f])
		free(b.p);
	else
		MHD_add_response_header(s->resp[f], MHD_HTTP_HEADER_CONTENT_TYPE, content_type[f]);
}

/* Under st.lock: the response for format @f of st.snap, and its status. */
static struct MHD_Response *snap_response(enum fmt f, unsigned int *status)
{
	struct snap *s = &st.snap;
	char msg[1200];

	if (!s->res) {
		*status = MHD_HTTP_INTERNAL_SERVER_ERROR;
		if (!s->resp[0]) {
			snprintf(msg, sizeof(msg), "memcgstat-exporter: snapshot of %s failed: %s\n",
				 env.cgroup, s->err);
			s->resp[0] = MHD_create_response_from_buffer(strlen(msg), msg,
								     MHD_RESPMEM_MUST_COPY);
			if (s->resp[0])
				MHD_add_response_header(s->resp[0], MHD_HTTP_HEADER_CONTENT_TYPE,
							"text/plain; charset=utf-8");
		}
		return s->resp[0];
	}
	*status = MHD_HTTP_OK;
	snap_render(s, f);	/* rendered by the reader unless the snapshot is reused */
	return s->resp[f];
}

/*
 * GET /metrics: if the last snapshot is younger than --min-interval, reply
 * from it. Otherwise suspend the connection and queue it for the reader,
 * which resumes every queued connection once its next read is done: the
 * scrapes that arrive during a read share the one after it, and no
 * libmicrohttpd thread ever waits for a read.
 */
static enum MHD_Result handler(void *cls, struct MHD_Connection *conn,
			       const char *url, const char *method,
			       const char *version, const char *upload_data,
			       size_t *upload_data_size, void **con_cls)
{
	struct req *q = *con_cls;
	struct MHD_Response *r;
	unsigned int status;
	enum MHD_Result ret;
	enum fmt f;

	(void)cls;
	(void)version;
	(void)upload_data;
	/*
	 * Other methods get 405 at once, which also closes the connection
	 * without reading a body. GET and HEAD are answered once the request
	 * is complete (a body, if any, discarded): a reply queued earlier
	 * would close the connection and lose keep-alive.
	 */
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return MHD_queue_response(conn, MHD_HTTP_METHOD_NOT_ALLOWED, resp_405);
	if (!q) {
		q = calloc(1, sizeof(*q));
		if (!q)
			return MHD_NO;
		q->conn = conn;
		*con_cls = q;	/* freed by completed() */
		return MHD_YES;
	}
	if (*upload_data_size) {
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (!strcmp(url, "/"))
		return MHD_queue_response(conn, MHD_HTTP_OK, resp_index);
	if (strcmp(url, "/metrics"))
		return MHD_queue_response(conn, MHD_HTTP_NOT_FOUND, resp_404);

	f = negotiate(MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT));
	pthread_mutex_lock(&st.lock);
	if (!q->waited && !st.stopping &&
	    !(st.snap.valid && now() - st.snap.start < env.min_interval)) {
		q->waited = true;
		q->f = f;
		q->next = st.waiters;
		st.waiters = q;
		MHD_suspend_connection(conn);
		pthread_cond_signal(&st.wake);
		pthread_mutex_unlock(&st.lock);
		return MHD_YES;
	}
	if (st.snap.valid) {
		r = snap_response(f, &status);
	} else {
		r = resp_503;	/* stopping before any read */
		status = MHD_HTTP_SERVICE_UNAVAILABLE;
	}
	/* queueing takes a reference: the snapshot may be replaced meanwhile */
	ret = r ? MHD_queue_response(conn, status, r) : MHD_NO;
	pthread_mutex_unlock(&st.lock);
	return ret;
}

static void completed(void *cls, struct MHD_Connection *conn, void **con_cls,
		      enum MHD_RequestTerminationCode toe)
{
	(void)cls;
	(void)conn;
	(void)toe;
	free(*con_cls);
	*con_cls = NULL;
}

/*
 * The reader thread: one read for every batch of suspended scrapes, the
 * formats they asked for rendered outside the lock, then resume them. When
 * stopping, resume the last ones without reading, so that no connection is
 * left suspended for MHD_stop_daemon().
 */
static void *reader(void *arg)
{
	struct req *batch, *q, *next;
	bool want[NR_FMTS];
	struct snap s;
	int f;

	(void)arg;
	pthread_mutex_lock(&st.lock);
	for (;;) {
		while (!st.waiters && !st.stopping)
			pthread_cond_wait(&st.wake, &st.lock);
		if (!st.waiters)
			break;
		batch = st.waiters;
		st.waiters = NULL;
		if (!st.stopping) {
			memset(want, 0, sizeof(want));
			for (q = batch; q; q = q->next)
				want[q->f] = true;
			pthread_mutex_unlock(&st.lock);
			read_snap(&s);
			pthread_mutex_lock(&st.lock);
			count_snap(&s);
			pthread_mutex_unlock(&st.lock);
			for (f = 0; s.res && f < NR_FMTS; f++)
				if (want[f])
					snap_render(&s, f);
			pthread_mutex_lock(&st.lock);
			install_snap(&s);
		}
		pthread_mutex_unlock(&st.lock);
		/* a resumed request may complete and be freed at once */
		for (q = batch; q; q = next) {
			next = q->next;
			MHD_resume_connection(q->conn);
		}
		pthread_mutex_lock(&st.lock);
	}
	pthread_mutex_unlock(&st.lock);
	return NULL;
}

/* Write the text format to @path: a temporary file beside it, fsync, rename. */
static int write_textfile(const char *path)
{
	char tmp[4096], dir[4096];
	struct sbuf b = {};
	struct snap s;
	size_t off = 0;
	int fd, err = 0;
	ssize_t n;

	read_snap(&s);
	pthread_mutex_lock(&st.lock);
	count_snap(&s);
	pthread_mutex_unlock(&st.lock);
	if (!s.res)
		err = -EIO;
	else if (render(&b, FMT_TEXT, &s))
		err = -ENOMEM;
	pthread_mutex_lock(&st.lock);
	install_snap(&s);
	pthread_mutex_unlock(&st.lock);
	if (err) {
		if (err == -ENOMEM)
			p_err("%s: out of memory", path);
		return err;	/* the read failure is reported already */
	}
	/* a name node_exporter ignores (not *.prom) until the rename */
	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp)) {
		free(b.p);
		p_err("%s: path too long", path);
		return -ENAMETOOLONG;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = -errno;
		p_err("cannot create a temporary file beside %s: %s", path, strerror(errno));
		free(b.p);
		return err;
	}
	while (off < b.len) {
		n = write(fd, b.p + off, b.len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		off += n;
	}
	free(b.p);
	if (!err && (fchmod(fd, 0644) || fsync(fd)))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err) {
		p_err("cannot write %s: %s", path, strerror(-err));
		unlink(tmp);
		return err;
	}
	/* the rename itself durable */
	snprintf(dir, sizeof(dir), "%s", path);
	fd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	return 0;
}

/* "ADDR:PORT", "[V6ADDR]:PORT" or ":PORT": a bound, listening socket. */
static int listen_on(const char *spec, int *fd_out)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE };
	char host[256], shown[INET6_ADDRSTRLEN];
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	const char *colon = strrchr(spec, ':');
	struct addrinfo *ai;
	size_t hl;
	long port;
	int fd, one = 1, err;

	if (!colon)
		return usage_err("--listen: '%s' is not ADDR:PORT", spec);
	hl = colon - spec;
	if (hl >= 2 && spec[0] == '[' && spec[hl - 1] == ']') {
		spec++;
		hl -= 2;
	}
	if (hl >= sizeof(host))
		return usage_err("--listen: address too long");
	memcpy(host, spec, hl);
	host[hl] = '\0';
	if (parse_long(colon + 1, "--listen port", 0, 65535, &port))
		return 2;
	err = getaddrinfo(hl ? host : "0.0.0.0", colon + 1, &hints, &ai);
	if (err)
		return usage_err("--listen: '%s': %s", hl ? host : "0.0.0.0", gai_strerror(err));
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 128)) {
		p_err("cannot listen on %s:%ld: %s", hl ? host : "0.0.0.0", port, strerror(errno));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return 1;
	}
	freeaddrinfo(ai);
	/* the port actually bound, for :0 */
	if (!getsockname(fd, (struct sockaddr *)&ss, &sl)) {
		if (ss.ss_family == AF_INET6) {
			struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

			inet_ntop(AF_INET6, &a->sin6_addr, shown, sizeof(shown));
			fprintf(stderr, "memcgstat-exporter: listening on [%s]:%d\n", shown, ntohs(a->sin6_port));
		} else {
			struct sockaddr_in *a = (struct sockaddr_in *)&ss;

			inet_ntop(AF_INET, &a->sin_addr, shown, sizeof(shown));
			fprintf(stderr, "memcgstat-exporter: listening on %s:%d\n", shown, ntohs(a->sin_port));
		}
	}
	*fd_out = fd;
	return 0;
}

int main(int argc, char **argv)
{
	struct memcgstat_opts opts = { .sz = sizeof(opts) };
	struct MHD_Daemon *d = NULL;
	pthread_t reader_thread;
	bool have_reader = false;
	char **stats = NULL, *stats_arg = NULL;
	size_t nr_stats = 0;
	bool have_interval = false, have_listen = false;
	struct timespec ts, *tmo = NULL;
	sigset_t sigs;
	int opt, err, sig, fd = -1, ret = 1;

	/*
	 * SIGTERM and SIGINT wait for the main loop, even during start-up;
	 * libmicrohttpd's threads inherit the mask and never take them.
	 */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	while ((opt = getopt_long(argc, argv, "l:s:vh", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'l':
			env.listen = optarg;
			have_listen = true;
			break;
		case 's':
			stats_arg = optarg;
			break;
		case OPT_MAX_DEPTH:
			if (parse_long(optarg, "--max-depth", 0, 1024, &env.max_depth))
				return 2;
			break;
		case OPT_INCLUDE:
		case OPT_EXCLUDE:
			if (opt == OPT_INCLUDE ? add_pattern(&env.include, &env.nr_include, optarg) :
			    add_pattern(&env.exclude, &env.nr_exclude, optarg)) {
				p_err("out of memory");
				return 1;
			}
			break;
		case OPT_MIN_INTERVAL:
			if (parse_secs(optarg, "--min-interval", 0, &env.min_interval))
				return 2;
			break;
		case OPT_BACKEND:
			if (parse_backend(optarg, &env.backend))
				return usage_err("--backend: unknown backend '%s' (auto, bpf, text)", optarg);
			break;
		case OPT_TEXTFILE:
			env.textfile = optarg;
			break;
		case OPT_INTERVAL:
			if (parse_secs(optarg, "--interval", 0.001, &env.interval))
				return 2;
			have_interval = true;
			break;
		case OPT_ONCE:
			env.once = true;
			break;
		case OPT_THREADS:
			if (parse_long(optarg, "--threads", 1, 64, &env.threads))
				return 2;
			break;
		case OPT_MAX_CONNS:
			if (parse_long(optarg, "--max-connections", 1, 65536, &env.max_conns))
				return 2;
			break;
		case OPT_TIMEOUT:
			if (parse_long(optarg, "--timeout", 1, 3600, &env.timeout))
				return 2;
			break;
		case 'v':
			env.verbose = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case OPT_VERSION:
			printf("memcgstat-exporter %s\n", MEMCGSTAT_VERSION);
			return 0;
		default:
			fprintf(stderr, "%s", usage_text);
			return 2;
		}
	}
	if (optind < argc)
		env.cgroup = argv[optind++];
	if (optind < argc)
		return usage_err("one CGROUP at most ('%s' is extra)", argv[optind]);
	/* conflicts, after every option is known */
	if ((have_interval || env.once) && !env.textfile)
		return usage_err("--interval and --once apply to --textfile");
	if (env.once && have_listen)
		return usage_err("--once writes the textfile and exits: no --listen");
	if (!env.textfile && !env.listen)
		env.listen = DEFAULT_LISTEN;

	set_libbpf_print(env.verbose);
	if (stats_arg) {
		stats = split_stats(stats_arg, &nr_stats);
		if (!stats || !nr_stats)
			return usage_err("--stats: empty list");
	}
	opts.stats = (const char *const *)stats;
	opts.nr_stats = nr_stats;
	opts.backend = env.backend;
	err = memcgstat_open(&opts, &st.h);
	if (err) {
		p_err("%s%s", memcgstat_errmsg(st.h),
		      env.backend == MEMCGSTAT_BACKEND_BPF && memcgstat_backend(st.h) != MEMCGSTAT_BACKEND_BPF ?
		      "; use --backend text" : "");
		ret = err == -EINVAL || err == -ENOENT ? 2 : 1;
		goto out;
	}
	if (memcgstat_backend_reason(st.h))
		p_err("using the text backend: %s", memcgstat_backend_reason(st.h));
	if (env.verbose)
		p_err("backend %s, cgroup v%d at %s, %zu stats",
		      memcgstat_backend_name(memcgstat_backend(st.h)),
		      memcgstat_cgroup_version(st.h), memcgstat_root(st.h),
		      memcgstat_nr_columns(st.h));

	if (env.once) {
		ret = write_textfile(env.textfile) ? 1 : 0;
		goto out;
	}

	if (env.listen) {
		err = listen_on(env.listen, &fd);
		if (err) {
			ret = err;
			goto out;
		}
		resp_404 = text_response("not found: the metrics are at /metrics\n");
		resp_405 = text_response("method not allowed: GET or HEAD\n");
		resp_index = text_response("memcgstat-exporter: the metrics are at /metrics\n");
		resp_503 = text_response("memcgstat-exporter: shutting down\n");
		if (!resp_404 || !resp_405 || !resp_index || !resp_503 ||
		    MHD_add_response_header(resp_405, MHD_HTTP_HEADER_ALLOW, "GET, HEAD") != MHD_YES) {
			p_err("out of memory");
			close(fd);
			goto out;
		}
		err = pthread_create(&reader_thread, NULL, reader, NULL);
		if (err) {
			p_err("cannot start the reader thread: %s", strerror(err));
			close(fd);
			goto out;
		}
		have_reader = true;
		d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
				     MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG,
				     0, NULL, NULL, handler, NULL,
				     MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
				     MHD_OPTION_LISTEN_SOCKET, fd,
				     MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
				     /* 1 is no pool: the internal polling thread alone */
				     MHD_OPTION_THREAD_POOL_SIZE,
				     (unsigned int)(env.threads > 1 ? env.threads : 0),
				     MHD_OPTION_CONNECTION_LIMIT, (unsigned int)env.max_conns,
				     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY,
				     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)env.timeout,
				     MHD_OPTION_END);
		if (!d) {
			p_err("cannot start the HTTP server on %s (run with -v for libmicrohttpd's reason)",
			      env.listen);
			close(fd);
			goto out;
		}
	}
	if (env.textfile) {
		ts.tv_sec = (time_t)env.interval;
		ts.tv_nsec = (long)((env.interval - ts.tv_sec) * 1e9);
		tmo = &ts;
		write_textfile(env.textfile);
	}
	for (;;) {
		sig = tmo ? sigtimedwait(&sigs, NULL, tmo) : sigwaitinfo(&sigs, NULL);
		if (sig == SIGTERM || sig == SIGINT)
			break;
		if (sig < 0 && errno == EAGAIN)
			write_textfile(env.textfile);
	}
	ret = 0;
out:
	/* every suspended connection resumed before MHD_stop_daemon() */
	if (have_reader) {
		pthread_mutex_lock(&st.lock);
		st.stopping = true;
		pthread_cond_signal(&st.wake);
		pthread_mutex_unlock(&st.lock);
		pthread_join(reader_thread, NULL);
	}
	if (d)
		MHD_stop_daemon(d);
	if (resp_404)
		MHD_destroy_response(resp_404);
	if (resp_405)
		MHD_destroy_response(resp_405);
	if (resp_index)
		MHD_destroy_response(resp_index);
	if (resp_503)
		MHD_destroy_response(resp_503);
	snap_clear(&st.snap);
	memcgstat_close(st.h);
	free(stats);
	free(env.include);
	free(env.exclude);
	return ret;
}
