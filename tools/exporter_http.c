// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * memcgstat-exporter's HTTP server (libmicrohttpd): the /metrics handler,
 * which replies from the last snapshot or suspends the connection for the
 * reader thread's next read, the static replies, the listening socket. Its
 * slow-client limits are exporter_conn.c's.
 *
 * Every exposition comes from one libmemcgstat snapshot of the chosen
 * subtrees. One reader thread does the reads, one at a time. A scrape
 * within --min-interval of the last read gets that one; any other scrape
 * is suspended (libmicrohttpd's suspend/resume) until the next read is
 * done, so scrapes arriving during a read share the next read and the HTTP
 * threads never block. The rendered bodies are libmicrohttpd responses,
 * reference counted and shared by every connection sending them, owned by
 * the snapshot they were rendered from (freed with it by free_response()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <gnutls/gnutls.h>
#include <microhttpd.h>
#include <zlib.h>
#include "common.h"
#include "escape.h"
#include "exporter_conn.h"
#include "exporter_http.h"
#include "exporter_snapshot.h"
#include "exporter_web.h"

/* Per-connection memory: request line and headers. Prometheus sends < 1 KiB. */
#define CONN_MEMORY	16384

static const char *const content_type[NR_FMTS] = {
	"text/plain; version=0.0.4; charset=utf-8",
	"application/openmetrics-text; version=1.0.0; charset=utf-8",
};

/* A GET /metrics, from its first call of the handler to its completion. */
struct req {
	bool waited;			/* suspended for a read; resumed since */
	bool authorized;		/* basic_auth_users checked */
	int f;				/* the response it wants: resp_kind() */
	struct MHD_Connection *conn;
	struct req *next;		/* in http_server.waiters */
};

/* One server, the cls of each of libmicrohttpd's callbacks. */
struct http_server {
	struct exporter *ex;
	struct MHD_Daemon *mhd;
	struct web_config web;		/* --web.config.file: TLS and basic auth */
	/*
	 * Static replies, built once, shared by every connection. resp_oom
	 * is the 500 of a scrape whose reply could not be built: a reply,
	 * never a connection closed without one.
	 */
	struct MHD_Response *resp_401, *resp_404, *resp_405, *resp_index, *resp_503, *resp_oom;
	/* the reader thread's: under ex->lock, with ex->snap */
	pthread_cond_t wake;		/* the reader: waiters, or stopping */
	struct req *waiters;		/* suspended, for the next read */
	bool stopping;
	pthread_t reader_thread;
	bool have_reader;
	struct conn_tracker conns;
};

/* With -v; escaped as every message is (a request's bytes may be in it). */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	const struct http_server *srv = cls;
	char *msg;
	size_t len;

	if (!srv->ex->o.c.verbose || vasprintf(&msg, fmt, ap) < 0)
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
static void free_response(void *resp)
{
	MHD_destroy_response(resp);
}

static void snap_respond(const struct exporter *ex, struct snap *s, int k)
{
	enum fmt f = k % NR_FMTS;
	bool gz = k >= NR_FMTS;
	struct MHD_Response *r;
	size_t len, zlen;
	char *body, *z = NULL;

	if (s->resp[k] || snap_exposition(ex, s, f, true, &body, &len))
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
	snap_add_response(s, k, r, free_response);
}

/*
 * Under ex->lock: response @f (resp_kind()) of ex->snap, and its status;
 * resp_oom if it could not be built.
 */
static struct MHD_Response *snap_response(struct http_server *srv, int f, unsigned int *status)
{
	struct snap *s = &srv->ex->snap;
	char msg[1200];

	if (!s->ok) {
		*status = MHD_HTTP_INTERNAL_SERVER_ERROR;
		if (!s->resp[0]) {
			snprintf(msg, sizeof(msg), "memcgstat-exporter: %s\n", s->err);
			snap_add_response(s, 0, text_response(msg, MHD_RESPMEM_MUST_COPY),
					  free_response);
		}
		return s->resp[0] ? s->resp[0] : srv->resp_oom;
	}
	snap_respond(srv->ex, s, f);	/* rendered by the reader unless the snapshot is reused */
	*status = s->resp[f] ? MHD_HTTP_OK : MHD_HTTP_INTERNAL_SERVER_ERROR;
	return s->resp[f] ? s->resp[f] : srv->resp_oom;
}

/*
 * A complete GET /metrics: if the last snapshot is younger than
 * --min-interval and not failed, reply from it. Otherwise suspend the connection and
 * queue it for the reader, which resumes every queued connection once its
 * next read is done: the scrapes that arrive during a read share the one
 * after it, and no libmicrohttpd thread ever waits for a read.
 */
static enum MHD_Result metrics(struct http_server *srv, struct MHD_Connection *conn,
			       struct req *q)
{
	struct exporter *ex = srv->ex;
	int f = resp_kind(negotiate(MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
								MHD_HTTP_HEADER_ACCEPT)),
			  accepts_gzip(MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
								   MHD_HTTP_HEADER_ACCEPT_ENCODING)));
	struct MHD_Response *r;
	unsigned int status;
	enum MHD_Result ret;

	pthread_mutex_lock(&ex->lock);
	/* a failed read is not kept: the next scrape reads again */
	if (!q->waited && !srv->stopping &&
	    !(ex->snap.valid && ex->snap.ok &&
	      now(CLOCK_MONOTONIC) - ex->snap.start < ex->o.min_interval)) {
		q->waited = true;
		q->f = f;
		q->next = srv->waiters;
		srv->waiters = q;
		MHD_suspend_connection(conn);
		pthread_cond_signal(&srv->wake);
		pthread_mutex_unlock(&ex->lock);
		return MHD_YES;
	}
	if (ex->snap.valid) {
		r = snap_response(srv, f, &status);
	} else {
		r = srv->resp_503;	/* stopping before any read */
		status = MHD_HTTP_SERVICE_UNAVAILABLE;
	}
	/* queueing takes a reference: the snapshot may be replaced meanwhile */
	ret = MHD_queue_response(conn, status, r);
	pthread_mutex_unlock(&ex->lock);
	if (ret == MHD_YES && status == MHD_HTTP_OK)
		exporter_count_reply(ex, f >= NR_FMTS);
	return ret;
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

/* Each connection tracked from its start to its end (exporter_conn.h). */
static void notify_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
			      enum MHD_ConnectionNotificationCode code)
{
	struct http_server *srv = cls;
	const union MHD_ConnectionInfo *ci, *ai;

	if (code == MHD_CONNECTION_NOTIFY_STARTED && srv->web.require_client_cert)
		require_client_cert(conn);
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		ai = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		/* untracked without them: the idle timeout alone */
		if (ci)
			*socket_context = conn_opened(&srv->conns, ci->connect_fd,
						      ai ? ai->client_addr : NULL);
	} else if (*socket_context) {
		conn_closed(&srv->conns, *socket_context);
		*socket_context = NULL;
	}
}

/* A request of @conn arrived whole (@in), or its reply is done. */
static void track_request(struct http_server *srv, struct MHD_Connection *conn, bool in)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	if (ci && ci->socket_context)
		conn_request(&srv->conns, ci->socket_context, in);
}

/* basic_auth_users: the request's credentials (none: no Authorization) accepted. */
static bool authorized(struct http_server *srv, struct MHD_Connection *conn)
{
	char *user, *password = NULL;
	bool ok;

	user = MHD_basic_auth_get_username_password(conn, &password);
	ok = web_authorized(&srv->web, user, password);
	if (password) {
		explicit_bzero(password, strlen(password));
		MHD_free(password);
	}
	if (user)
		MHD_free(user);
	return ok;
}

/*
 * The path of a request target in absolute form (GET http://host/metrics,
 * which RFC 9112 has servers accept: what a proxy sends), as the origin
 * form's: the scheme and authority dropped. Any other target as it is.
 */
static const char *origin_form(const char *url)
{
	const char *p = !strncasecmp(url, "http://", 7) ? url + 7 :
			!strncasecmp(url, "https://", 8) ? url + 8 : NULL;

	if (!p)
		return url;
	p = strchr(p, '/');
	return p ? p : "/";
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *conn,
			       const char *url, const char *method,
			       const char *version, const char *upload_data,
			       size_t *upload_data_size, void **con_cls)
{
	struct http_server *srv = cls;
	struct req *q = *con_cls;

	(void)version;
	(void)upload_data;
	/*
	 * Other methods get 405 at once, which also closes the connection
	 * without reading a body. GET and HEAD are answered once the request
	 * is complete (a body, if any, discarded): a reply queued earlier
	 * would close the connection and lose keep-alive.
	 */
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return MHD_queue_response(conn, MHD_HTTP_METHOD_NOT_ALLOWED, srv->resp_405);
	if (!q) {
		q = calloc(1, sizeof(*q));
		if (!q)	/* at once: the connection closes after it */
			return MHD_queue_response(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
						  srv->resp_oom);
		q->conn = conn;
		*con_cls = q;	/* freed by completed() */
		track_request(srv, conn, true);
		return MHD_YES;
	}
	if (*upload_data_size) {
		*upload_data_size = 0;
		return MHD_YES;
	}
	/* every path; once per request, not again when resumed after a read */
	if (!q->authorized) {
		if (srv->web.nr_users && !authorized(srv, conn))
			return MHD_queue_response(conn, MHD_HTTP_UNAUTHORIZED, srv->resp_401);
		q->authorized = true;
	}
	url = origin_form(url);
	if (!strcmp(url, "/"))
		return MHD_queue_response(conn, MHD_HTTP_OK, srv->resp_index);
	if (strcmp(url, "/metrics"))
		return MHD_queue_response(conn, MHD_HTTP_NOT_FOUND, srv->resp_404);
	return metrics(srv, conn, q);
}

static void completed(void *cls, struct MHD_Connection *conn, void **con_cls,
		      enum MHD_RequestTerminationCode toe)
{
	(void)toe;
	track_request(cls, conn, false);
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

/* Read for @batch, the formats it asked for rendered outside the lock. */
static void refresh(struct exporter *ex, const struct req *batch)
{
	bool want[NR_RESP] = {};
	const struct req *q;
	struct snap s;
	int f;

	for (q = batch; q; q = q->next)
		want[q->f] = true;
	read_snap(ex, &s);
	for (f = 0; s.ok && f < NR_RESP; f++)
		if (want[f])
			snap_respond(ex, &s, f);
	install_snap(ex, &s);
}

/*
 * One read for every batch of suspended scrapes, then resume them. When
 * stopping, resume the last ones without reading, so that no connection
 * is left suspended for MHD_stop_daemon().
 */
static void *reader(void *arg)
{
	struct http_server *srv = arg;
	struct exporter *ex = srv->ex;
	struct req *batch;
	bool stopping;

	for (;;) {
		pthread_mutex_lock(&ex->lock);
		while (!srv->waiters && !srv->stopping)
			pthread_cond_wait(&srv->wake, &ex->lock);
		batch = srv->waiters;
		srv->waiters = NULL;
		stopping = srv->stopping;
		pthread_mutex_unlock(&ex->lock);
		if (!batch)
			return NULL;
		if (!stopping)
			refresh(ex, batch);
		resume(batch);
	}
}

/* Every suspended connection resumed, the reader joined (if it started). */
static void reader_stop(struct http_server *srv)
{
	if (!srv->have_reader)
		return;
	pthread_mutex_lock(&srv->ex->lock);
	srv->stopping = true;
	pthread_cond_signal(&srv->wake);
	pthread_mutex_unlock(&srv->ex->lock);
	pthread_join(srv->reader_thread, NULL);
	srv->have_reader = false;
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

static int static_responses(struct http_server *srv)
{
	srv->resp_401 = text_response("unauthorized: basic auth with a user of the web configuration\n",
				      MHD_RESPMEM_PERSISTENT);
	srv->resp_404 = text_response("not found: the metrics are at /metrics\n",
				      MHD_RESPMEM_PERSISTENT);
	srv->resp_405 = text_response("method not allowed: GET or HEAD\n", MHD_RESPMEM_PERSISTENT);
	srv->resp_index = text_response("memcgstat-exporter: the metrics are at /metrics\n",
					MHD_RESPMEM_PERSISTENT);
	srv->resp_503 = text_response("memcgstat-exporter: shutting down\n", MHD_RESPMEM_PERSISTENT);
	srv->resp_oom = text_response("memcgstat-exporter: out of memory for this reply\n",
				      MHD_RESPMEM_PERSISTENT);
	/*
	 * Not MHD_queue_basic_auth_fail_response(): it adds the header to the
	 * response it is given and removes it after, and this one is shared
	 * by every thread.
	 */
	if (!srv->resp_401 || !srv->resp_404 || !srv->resp_405 || !srv->resp_index ||
	    !srv->resp_503 || !srv->resp_oom ||
	    MHD_add_response_header(srv->resp_401, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
				    "Basic realm=\"memcgstat-exporter\", charset=\"UTF-8\"") != MHD_YES ||
	    MHD_add_response_header(srv->resp_405, MHD_HTTP_HEADER_ALLOW, "GET, HEAD") != MHD_YES) {
		p_err("out of memory");
		return 1;
	}
	return 0;
}

static struct MHD_Daemon *start_daemon(struct http_server *srv, int fd)
{
	const struct web_config *web = &srv->web;
	const struct exporter_opts *o = &srv->ex->o;
	/* TLS: the PEM text, which libmicrohttpd keeps pointers to */
	struct MHD_OptionItem tls[] = {
		{ MHD_OPTION_HTTPS_MEM_CERT, 0, web->cert },
		{ MHD_OPTION_HTTPS_MEM_KEY, 0, web->key },
		{ web->client_ca ? MHD_OPTION_HTTPS_MEM_TRUST : MHD_OPTION_END, 0, web->client_ca },
		{ MHD_OPTION_END, 0, NULL },
	};

	if (!web->cert)
		tls[0].option = MHD_OPTION_END;
	return MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
				MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG |
				(web->cert ? MHD_USE_TLS : 0),
				0, NULL, NULL, handler, srv,
				MHD_OPTION_EXTERNAL_LOGGER, mhd_log, srv,
				MHD_OPTION_LISTEN_SOCKET, fd,
				MHD_OPTION_NOTIFY_COMPLETED, completed, srv,
				/* 1 is no pool: the internal polling thread alone */
				MHD_OPTION_THREAD_POOL_SIZE,
				(unsigned int)(o->threads > 1 ? o->threads : 0),
				MHD_OPTION_CONNECTION_LIMIT, (unsigned int)o->max_conns,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)o->timeout,
				MHD_OPTION_NOTIFY_CONNECTION, notify_connection, srv,
				MHD_OPTION_ARRAY, tls,
				MHD_OPTION_END);
}

/* --web.config.file, if given: loaded and checked, TLS available. */
static int web_start(struct http_server *srv)
{
	const struct exporter_opts *o = &srv->ex->o;
	struct web_config *web = &srv->web;

	if (!o->web_config)
		return 0;
	if (web_config_load(o->web_config, web))
		return 1;
	if (web->cert && MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
		p_err("--web.config.file %s: tls_server_config, but this libmicrohttpd has no TLS",
		      o->web_config);
		return 1;
	}
	if (o->c.verbose)
		p_info("web configuration %s: %s, %s, basic auth for %zu users", o->web_config,
		       web->cert ? "TLS" : "plain HTTP",
		       web->require_client_cert ? "client certificates required" : "no client certificates",
		       web->nr_users);
	return 0;
}

/* The reader, the sweeper and the daemon on @fd, in that order: 0 or 1, said. */
static int start_threads(struct http_server *srv, int fd)
{
	const struct exporter_opts *o = &srv->ex->o;
	int err;

	err = pthread_create(&srv->reader_thread, NULL, reader, srv);
	if (err) {
		p_err("cannot start the reader thread: %s", strerror(err));
		return 1;
	}
	srv->have_reader = true;
	if (conn_tracker_start(&srv->conns, o->max_per_ip, o->header_timeout))
		return 1;
	srv->mhd = start_daemon(srv, fd);
	if (!srv->mhd) {
		p_err("cannot start the HTTP server on %s (run with -v for libmicrohttpd's reason)",
		      o->listen);
		return 1;
	}
	return 0;
}

int http_start(struct exporter *ex)
{
	struct http_server *srv;
	int fd, ret, err;

	srv = calloc(1, sizeof(*srv));
	if (!srv) {
		p_err("out of memory");
		return 1;
	}
	err = pthread_cond_init(&srv->wake, NULL);
	if (err) {
		p_err("cannot set up the reader thread: %s", strerror(err));
		free(srv);
		return 1;
	}
	srv->ex = ex;
	ex->http = srv;
	ret = web_start(srv);
	if (!ret)
		ret = listen_on(ex->o.listen, &fd);
	if (ret)
		return ret;
	ret = static_responses(srv);
	if (!ret)
		ret = start_threads(srv, fd);
	if (ret)
		close(fd);
	return ret;
}

static void static_responses_free(struct http_server *srv)
{
	struct MHD_Response *r[] = { srv->resp_401, srv->resp_404, srv->resp_405,
				     srv->resp_index, srv->resp_503, srv->resp_oom };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(r); i++)
		if (r[i])
			MHD_destroy_response(r[i]);
}

void http_stop(struct exporter *ex)
{
	struct http_server *srv = ex->http;

	if (!srv)
		return;
	/* every suspended connection resumed before MHD_stop_daemon() */
	reader_stop(srv);
	if (srv->mhd)
		MHD_stop_daemon(srv->mhd);
	conn_tracker_stop(&srv->conns);
	static_responses_free(srv);
	if (ex->o.web_config)
		web_config_free(&srv->web);
	pthread_cond_destroy(&srv->wake);
	free(srv);
	ex->http = NULL;
}
