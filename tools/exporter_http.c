// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * memcgstat-exporter's HTTP server (libmicrohttpd): the /metrics handler,
 * which replies from the last snapshot or suspends the connection for the
 * reader thread's next read (the design is described at struct state in
 * exporter.h), the static replies, the listening socket.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <gnutls/gnutls.h>
#include <microhttpd.h>
#include <zlib.h>
#include "common.h"
#include "escape.h"
#include "exporter.h"
#include "exporter_web.h"

/* Per-connection memory: request line and headers. Prometheus sends < 1 KiB. */
#define CONN_MEMORY	16384

static const char *const content_type[NR_FMTS] = {
	"text/plain; version=0.0.4; charset=utf-8",
	"application/openmetrics-text; version=1.0.0; charset=utf-8",
};

static struct MHD_Daemon *mhd;
/* 200 replies to GET /metrics: [0] identity, [1] gzip; atomic, any thread */
static unsigned long long replies[2];
/* --web.config.file: TLS and basic auth, if given */
static struct web_config web;

/*
 * Static replies, built once, shared by every connection. resp_oom is the
 * 500 of a scrape whose reply could not be built: a reply, never a
 * connection closed without one.
 */
static struct MHD_Response *resp_401, *resp_404, *resp_405, *resp_index, *resp_503, *resp_oom;

/* With -v; escaped as every message is (a request's bytes may be in it). */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char *msg;
	size_t len;

	(void)cls;
	if (!env.verbose || vasprintf(&msg, fmt, ap) < 0)
		return;
	len = strlen(msg);
	if (len && msg[len - 1] == '\n')
		msg[len - 1] = '\0';
	fputs("memcgstat-exporter: libmicrohttpd: ", stderr);
	esc_fputs(msg, stderr);
	fputc('\n', stderr);
	free(msg);
}

static struct MHD_Response *text_response(const char *body, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r;

	r = MHD_create_response_from_buffer(strlen(body), (void *)body, mode);
	if (r)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	return r;
}

/*
 * @body (@len bytes) gzip-compressed, in a malloc'd buffer; NULL if that
 * fails. The fastest level: an exposition is repetitive text (names,
 * labels), and the exporter is there to be cheap.
 */
static char *gzip(const char *body, size_t len, size_t *out_len)
{
	z_stream z = {};
	char *out = NULL;

	if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return NULL;
	*out_len = deflateBound(&z, len);
	out = malloc(*out_len);
	z.next_in = (Bytef *)body;
	z.avail_in = len;
	z.next_out = (Bytef *)out;
	z.avail_out = *out_len;
	/* avail_in is an unsigned int: a larger body is served plain */
	if (!out || len != z.avail_in || deflate(&z, Z_FINISH) != Z_STREAM_END) {
		free(out);
		out = NULL;
	}
	*out_len = z.total_out;
	deflateEnd(&z);
	return out;
}

/*
 * Render response @k (resp_kind()) of @s (a successful read) into
 * s->resp[k], if not yet. Compressed ones fall back to the plain body
 * (without Content-Encoding) if compressing fails. Without memory for the
 * body, the response or any of its headers, none: a 200 without its
 * Content-Type (Prometheus 3 refuses that) or a gzip body without its
 * Content-Encoding would be worse than the 500 it gets instead.
 */
static void snap_respond(struct snap *s, int k)
{
	enum fmt f = k % NR_FMTS;
	bool gz = k >= NR_FMTS;
	struct MHD_Response *r;
	size_t len, zlen;
	char *body, *z = NULL;

	if (s->resp[k] || snap_exposition(s, f, &body, &len))
		return;
	if (gz && (z = gzip(body, len, &zlen))) {
		free(body);
		body = z;
		len = zlen;
	}
	r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return;
	}
	if (MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, content_type[f]) != MHD_YES ||
	    MHD_add_response_header(r, MHD_HTTP_HEADER_VARY, MHD_HTTP_HEADER_ACCEPT ", "
				    MHD_HTTP_HEADER_ACCEPT_ENCODING) != MHD_YES ||
	    (z && MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip") != MHD_YES)) {
		MHD_destroy_response(r);	/* frees the body */
		return;
	}
	s->resp[k] = r;
}

static void free_response(void *resp)
{
	MHD_destroy_response(resp);
}

/*
 * Under st.lock: response @f (resp_kind()) of st.snap, and its status;
 * resp_oom if it could not be built.
 */
static struct MHD_Response *snap_response(int f, unsigned int *status)
{
	struct snap *s = &st.snap;
	char msg[1200];

	if (!s->ok) {
		*status = MHD_HTTP_INTERNAL_SERVER_ERROR;
		if (!s->resp[0]) {
			snprintf(msg, sizeof(msg), "memcgstat-exporter: %s\n", s->err);
			s->resp[0] = text_response(msg, MHD_RESPMEM_MUST_COPY);
		}
		return s->resp[0] ? s->resp[0] : resp_oom;
	}
	snap_respond(s, f);	/* rendered by the reader unless the snapshot is reused */
	*status = s->resp[f] ? MHD_HTTP_OK : MHD_HTTP_INTERNAL_SERVER_ERROR;
	return s->resp[f] ? s->resp[f] : resp_oom;
}

/*
 * A complete GET /metrics: if the last snapshot is younger than
 * --min-interval, reply from it. Otherwise suspend the connection and
 * queue it for the reader, which resumes every queued connection once its
 * next read is done: the scrapes that arrive during a read share the one
 * after it, and no libmicrohttpd thread ever waits for a read.
 */
static enum MHD_Result metrics(struct MHD_Connection *conn, struct req *q)
{
	int f = resp_kind(negotiate(MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
								MHD_HTTP_HEADER_ACCEPT)),
			  accepts_gzip(MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
								   MHD_HTTP_HEADER_ACCEPT_ENCODING)));
	struct MHD_Response *r;
	unsigned int status;
	enum MHD_Result ret;

	pthread_mutex_lock(&st.lock);
	if (!q->waited && !st.stopping &&
	    !(st.snap.valid && now(CLOCK_MONOTONIC) - st.snap.start < env.min_interval)) {
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
	ret = MHD_queue_response(conn, status, r);
	pthread_mutex_unlock(&st.lock);
	if (ret == MHD_YES && status == MHD_HTTP_OK)
		__atomic_add_fetch(&replies[f >= NR_FMTS], 1, __ATOMIC_RELAXED);
	return ret;
}

void http_replies(unsigned long long *identity, unsigned long long *gzip)
{
	*identity = __atomic_load_n(&replies[0], __ATOMIC_RELAXED);
	*gzip = __atomic_load_n(&replies[1], __ATOMIC_RELAXED);
}

/*
 * Slow clients. libmicrohttpd's --timeout closes a connection idle that
 * long, but a client sending a byte of its headers every few seconds is
 * never idle: 300 such clients took every connection and 4 of 10 scrapes
 * of a real client failed (exporter.sh, slow_clients). So each connection
 * is tracked from its start: a request must have arrived whole
 * --header-timeout after the connection opened or after the reply before
 * it, else the sweeper shuts the socket down (libmicrohttpd then closes
 * it). And an address may have --max-waiting-per-ip connections whose
 * first request has not arrived whole: one more is shut down at its start, so a
 * few hundred from one address cannot take every connection. Connections
 * that send their requests at once, however many, are not held back
 * (libmicrohttpd's own per-address limit also counts those, and failed
 * exporter.sh's 50 concurrent scrapers opening connections at 14,000/s).
 */
struct track {
	struct track *next, **pprev;
	struct sockaddr_storage addr;
	int fd;
	double since;		/* opened, or the last reply */
	bool in_request;	/* headers arrived: being answered */
	bool answered;		/* a request of it was: not waiting */
	bool cut;		/* shut down: never again (its fd may be reused) */
};

static pthread_mutex_t track_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t track_stop_cond = PTHREAD_COND_INITIALIZER;
static struct track *tracks;
static bool track_stopping, have_sweeper;
static pthread_t sweeper_thread;

static bool same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr));
	return false;
}

/*
 * RequireAndVerifyClientCert. With a trust list (MHD_OPTION_HTTPS_MEM_TRUST)
 * libmicrohttpd asks for a client certificate but takes a connection
 * without one, and verifies none. Its session is made before this
 * notification and shaken hands after (libmicrohttpd 0.9.75, Debian 12;
 * exporter_tls.sh checks it): so a certificate is required here, and GnuTLS
 * verifies it against the trust list in the handshake, which fails without
 * a valid one. A connection whose session cannot be had is cut.
 */
static void require_client_cert(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *si =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);

	if (si && si->tls_session) {
		gnutls_certificate_server_set_request(si->tls_session, GNUTLS_CERT_REQUIRE);
		gnutls_session_set_verify_cert(si->tls_session, NULL, 0);
	} else if (ci) {
		shutdown(ci->connect_fd, SHUT_RDWR);
	}
}

static void notify_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
			      enum MHD_ConnectionNotificationCode code)
{
	const union MHD_ConnectionInfo *ci, *ai;
	struct track *t = *socket_context, *o;
	long waiting = 0;

	(void)cls;
	if (code == MHD_CONNECTION_NOTIFY_STARTED && web.require_client_cert)
		require_client_cert(conn);
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		ai = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		t = calloc(1, sizeof(*t));
		if (!t || !ci) {
			free(t);
			return;	/* untracked: the idle timeout alone */
		}
		t->fd = ci->connect_fd;
		t->since = now(CLOCK_MONOTONIC);
		if (ai && ai->client_addr && (ai->client_addr->sa_family == AF_INET ||
					      ai->client_addr->sa_family == AF_INET6))
			memcpy(&t->addr, ai->client_addr, ai->client_addr->sa_family == AF_INET ?
			       sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
		pthread_mutex_lock(&track_lock);
		for (o = tracks; o && waiting < env.max_per_ip; o = o->next)
			waiting += !o->in_request && !o->answered && same_addr(&o->addr, &t->addr);
		if (waiting >= env.max_per_ip) {
			shutdown(t->fd, SHUT_RDWR);
			t->cut = true;
		}
		t->next = tracks;
		if (tracks)
			tracks->pprev = &t->next;
		t->pprev = &tracks;
		tracks = t;
		pthread_mutex_unlock(&track_lock);
		*socket_context = t;
	} else if (t) {
		pthread_mutex_lock(&track_lock);
		*t->pprev = t->next;
		if (t->next)
			t->next->pprev = t->pprev;
		pthread_mutex_unlock(&track_lock);
		free(t);
		*socket_context = NULL;
	}
}

/* A request of @conn arrived whole (@in), or its reply is done. */
static void track_request(struct MHD_Connection *conn, bool in)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct track *t = ci ? ci->socket_context : NULL;

	if (!t)
		return;
	pthread_mutex_lock(&track_lock);
	t->in_request = in;
	t->answered |= !in;
	t->since = now(CLOCK_MONOTONIC);
	pthread_mutex_unlock(&track_lock);
}

static void *sweeper(void *arg)
{
	struct timespec ts;
	struct track *t;
	double n;

	(void)arg;
	pthread_mutex_lock(&track_lock);
	while (!track_stopping) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&track_stop_cond, &track_lock, &ts);
		n = now(CLOCK_MONOTONIC);
		for (t = tracks; t; t = t->next) {
			if (t->cut || t->in_request || n - t->since < env.header_timeout)
				continue;
			/*
			 * libmicrohttpd closes the fd after the CLOSED
			 * notification, which takes track_lock: the fd is
			 * still this connection's here, but only until then.
			 */
			shutdown(t->fd, SHUT_RDWR);
			t->cut = true;
		}
	}
	pthread_mutex_unlock(&track_lock);
	return NULL;
}

static int sweeper_start(void)
{
	int err = pthread_create(&sweeper_thread, NULL, sweeper, NULL);

	if (err) {
		p_err("cannot start the connection sweeper: %s", strerror(err));
		return 1;
	}
	have_sweeper = true;
	return 0;
}

static void sweeper_stop(void)
{
	if (!have_sweeper)
		return;
	pthread_mutex_lock(&track_lock);
	track_stopping = true;
	pthread_cond_signal(&track_stop_cond);
	pthread_mutex_unlock(&track_lock);
	pthread_join(sweeper_thread, NULL);
	have_sweeper = false;
}

/* basic_auth_users: the request's credentials (none: no Authorization) accepted. */
static bool authorized(struct MHD_Connection *conn)
{
	char *user, *password = NULL;
	bool ok;

	user = MHD_basic_auth_get_username_password(conn, &password);
	ok = web_authorized(&web, user, password);
	if (password) {
		explicit_bzero(password, strlen(password));
		MHD_free(password);
	}
	if (user)
		MHD_free(user);
	return ok;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *conn,
			       const char *url, const char *method,
			       const char *version, const char *upload_data,
			       size_t *upload_data_size, void **con_cls)
{
	struct req *q = *con_cls;

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
		if (!q)	/* at once: the connection closes after it */
			return MHD_queue_response(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, resp_oom);
		q->conn = conn;
		*con_cls = q;	/* freed by completed() */
		track_request(conn, true);
		return MHD_YES;
	}
	if (*upload_data_size) {
		*upload_data_size = 0;
		return MHD_YES;
	}
	/* every path; once per request, not again when resumed after a read */
	if (!q->authorized) {
		if (web.nr_users && !authorized(conn))
			return MHD_queue_response(conn, MHD_HTTP_UNAUTHORIZED, resp_401);
		q->authorized = true;
	}
	if (!strcmp(url, "/"))
		return MHD_queue_response(conn, MHD_HTTP_OK, resp_index);
	if (strcmp(url, "/metrics"))
		return MHD_queue_response(conn, MHD_HTTP_NOT_FOUND, resp_404);
	return metrics(conn, q);
}

static void completed(void *cls, struct MHD_Connection *conn, void **con_cls,
		      enum MHD_RequestTerminationCode toe)
{
	(void)cls;
	(void)toe;
	track_request(conn, false);
	free(*con_cls);
	*con_cls = NULL;
}

/* Resume the suspended scrapes of @batch, which may be freed meanwhile. */
static void resume(struct req *batch)
{
	struct req *q, *next;

	/* a resumed request may complete and be freed at once */
	for (q = batch; q; q = next) {
		next = q->next;
		MHD_resume_connection(q->conn);
	}
}

/* The port actually bound, for :0. */
static pthread_t reader_thread;
static bool have_reader;

/* Read for @batch, the formats it asked for rendered outside the lock. */
static void refresh(const struct req *batch)
{
	bool want[NR_RESP] = {};
	const struct req *q;
	struct snap s;
	int f;

	for (q = batch; q; q = q->next)
		want[q->f] = true;
	read_snap(&s);
	for (f = 0; s.ok && f < NR_RESP; f++)
		if (want[f])
			snap_respond(&s, f);
	install_snap(&s);
}

/*
 * One read for every batch of suspended scrapes, then resume them. When
 * stopping, resume the last ones without reading, so that no connection
 * is left suspended for MHD_stop_daemon().
 */
static void *reader(void *arg)
{
	struct req *batch;
	bool stopping;

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&st.lock);
		while (!st.waiters && !st.stopping)
			pthread_cond_wait(&st.wake, &st.lock);
		batch = st.waiters;
		st.waiters = NULL;
		stopping = st.stopping;
		pthread_mutex_unlock(&st.lock);
		if (!batch)
			return NULL;
		if (!stopping)
			refresh(batch);
		resume(batch);
	}
}

static int reader_start(void)
{
	int err = pthread_create(&reader_thread, NULL, reader, NULL);

	if (err) {
		p_err("cannot start the reader thread: %s", strerror(err));
		return 1;
	}
	have_reader = true;
	return 0;
}

static void reader_stop(void)
{
	if (!have_reader)
		return;
	pthread_mutex_lock(&st.lock);
	st.stopping = true;
	pthread_cond_signal(&st.wake);
	pthread_mutex_unlock(&st.lock);
	pthread_join(reader_thread, NULL);
	have_reader = false;
}

static void say_listening(int fd)
{
	char shown[INET6_ADDRSTRLEN];
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &sl))
		return;
	if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &a->sin6_addr, shown, sizeof(shown));
		p_info("listening on [%s]:%d", shown, ntohs(a->sin6_port));
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &a->sin_addr, shown, sizeof(shown));
		p_info("listening on %s:%d", shown, ntohs(a->sin_port));
	}
}

/* "ADDR:PORT", "[V6ADDR]:PORT" or ":PORT": a bound, listening socket. */
static int listen_on(const char *spec, int *fd_out)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE };
	const char *colon = strrchr(spec, ':'), *host;
	struct addrinfo *ai;
	char buf[256];
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
	if (hl >= sizeof(buf))
		return usage_err("--listen: address too long");
	memcpy(buf, spec, hl);
	buf[hl] = '\0';
	host = hl ? buf : "0.0.0.0";
	if (parse_long(colon + 1, "--listen port", 0, 65535, &port))
		return 2;
	err = getaddrinfo(host, colon + 1, &hints, &ai);
	if (err)
		return usage_err("--listen: '%s': %s", host, gai_strerror(err));
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 128)) {
		p_err("cannot listen on %s:%ld: %s", host, port, strerror(errno));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return 1;
	}
	freeaddrinfo(ai);
	say_listening(fd);
	*fd_out = fd;
	return 0;
}

static int static_responses(void)
{
	resp_401 = text_response("unauthorized: basic auth with a user of the web configuration\n",
				 MHD_RESPMEM_PERSISTENT);
	resp_404 = text_response("not found: the metrics are at /metrics\n", MHD_RESPMEM_PERSISTENT);
	resp_405 = text_response("method not allowed: GET or HEAD\n", MHD_RESPMEM_PERSISTENT);
	resp_index = text_response("memcgstat-exporter: the metrics are at /metrics\n",
				   MHD_RESPMEM_PERSISTENT);
	resp_503 = text_response("memcgstat-exporter: shutting down\n", MHD_RESPMEM_PERSISTENT);
	resp_oom = text_response("memcgstat-exporter: out of memory for this reply\n",
				 MHD_RESPMEM_PERSISTENT);
	/*
	 * Not MHD_queue_basic_auth_fail_response(): it adds the header to the
	 * response it is given and removes it after, and this one is shared
	 * by every thread.
	 */
	if (!resp_401 || !resp_404 || !resp_405 || !resp_index || !resp_503 || !resp_oom ||
	    MHD_add_response_header(resp_401, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
				    "Basic realm=\"memcgstat-exporter\", charset=\"UTF-8\"") != MHD_YES ||
	    MHD_add_response_header(resp_405, MHD_HTTP_HEADER_ALLOW, "GET, HEAD") != MHD_YES) {
		p_err("out of memory");
		return 1;
	}
	return 0;
}

static struct MHD_Daemon *start_daemon(int fd)
{
	/* TLS: the PEM text, which libmicrohttpd keeps pointers to */
	struct MHD_OptionItem tls[] = {
		{ MHD_OPTION_HTTPS_MEM_CERT, 0, web.cert },
		{ MHD_OPTION_HTTPS_MEM_KEY, 0, web.key },
		{ web.client_ca ? MHD_OPTION_HTTPS_MEM_TRUST : MHD_OPTION_END, 0, web.client_ca },
		{ MHD_OPTION_END, 0, NULL },
	};

	if (!web.cert)
		tls[0].option = MHD_OPTION_END;
	return MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
				MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG |
				(web.cert ? MHD_USE_TLS : 0),
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
				MHD_OPTION_NOTIFY_CONNECTION, notify_connection, NULL,
				MHD_OPTION_ARRAY, tls,
				MHD_OPTION_END);
}

/* --web.config.file, if given: loaded and checked, TLS available. */
static int web_start(void)
{
	if (!env.web_config)
		return 0;
	if (web_config_load(env.web_config, &web))
		return 1;
	if (web.cert && MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
		p_err("--web.config.file %s: tls_server_config, but this libmicrohttpd has no TLS",
		      env.web_config);
		return 1;
	}
	if (env.verbose)
		p_info("web configuration %s: %s, %s, basic auth for %zu users", env.web_config,
		       web.cert ? "TLS" : "plain HTTP",
		       web.require_client_cert ? "client certificates required" : "no client certificates",
		       web.nr_users);
	return 0;
}

int http_start(const char *listen)
{
	int fd, ret;

	ret = web_start();
	if (!ret)
		ret = listen_on(listen, &fd);
	if (ret)
		return ret;
	snap_free_response = free_response;
	ret = static_responses();
	if (!ret)
		ret = reader_start();
	if (!ret)
		ret = sweeper_start();
	if (!ret) {
		mhd = start_daemon(fd);
		if (!mhd) {
			p_err("cannot start the HTTP server on %s (run with -v for libmicrohttpd's reason)",
			      listen);
			ret = 1;
		}
	}
	if (ret)
		close(fd);
	return ret;
}

void http_stop(void)
{
	struct MHD_Response **r[] = { &resp_401, &resp_404, &resp_405, &resp_index, &resp_503,
				      &resp_oom };
	size_t i;

	/* every suspended connection resumed before MHD_stop_daemon() */
	reader_stop();
	if (mhd)
		MHD_stop_daemon(mhd);
	mhd = NULL;
	sweeper_stop();
	for (i = 0; i < ARRAY_SIZE(r); i++) {
		if (*r[i])
			MHD_destroy_response(*r[i]);
		*r[i] = NULL;
	}
	if (env.web_config)
		web_config_free(&web);
}
