// SPDX-License-Identifier: GPL-2.0
/*
 * test_exporter_alloc CGROUP: memcgstat-exporter's request path under a
 * failed allocation. This is the exporter itself, its own objects and
 * main() (the ASan/UBSan build of make user-asan), linked with
 * -Wl,--wrap=...: main() starts a client thread and then runs the
 * exporter's main() on CGROUP (made here, with two children, one named
 * with a byte that is not UTF-8, and removed at the end). The client
 * scrapes it over TCP, each scrape on a connection of its own, and fails
 * the N-th allocation of a steady scrape for every N it makes, then the
 * N-th and all after it (a render that failed in the reader thread is
 * tried again when the reply is queued; this fails both). Steady: two
 * scrapes in a row made as many allocations (the reads after a failed one
 * allocate a new result; test_alloc fails those of the library). Counted:
 *
 *   - malloc, calloc, realloc and strdup of the exporter and the library
 *     (alloc_fail.c);
 *   - open_memstream(): replaced by a stream (fopencookie) that grows its
 *     buffer with the counted realloc, so each growth of the exposition's
 *     buffer can fail as glibc's own would (glibc's calls inside libc are
 *     out of --wrap's reach);
 *   - zlib's allocations for the gzip stream: deflateInit2_() gets
 *     counted allocators when the caller left them to zlib;
 *   - MHD_create_response_from_buffer() and MHD_add_response_header(),
 *     one allocation each (libmicrohttpd's own calls of malloc are out of
 *     reach too: its connection pools are not tested here).
 *
 * Each failing scrape must get a clean reply: a 500 with a message, or a
 * 200 with a whole exposition of the format asked for (a failure the
 * exporter survives on purpose: an untracked connection, gzip falling
 * back to the plain body); never a closed connection without a reply, a
 * crash, or a 200 with a wrong or missing Content-Type or
 * Content-Encoding. The scrapes after it, without a failure, must be
 * whole 200s. After each scenario LeakSanitizer looks for leaks; the
 * exporter then gets SIGTERM, must exit 0, and LeakSanitizer looks again
 * at exit. Scenarios: the text format and OpenMetrics, each plain and
 * gzip-compressed, then a read that fails (CGROUP removed): a 500 every
 * time.
 * Prints "#N exporter_alloc/NAME:OK|FAIL".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <microhttpd.h>
#include <zlib.h>
#include "alloc_fail.h"
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#include <sanitizer/lsan_interface.h>
#endif

#define CT_TEXT	"text/plain; version=0.0.4; charset=utf-8"
#define CT_OM	"application/openmetrics-text; version=1.0.0; charset=utf-8"
#define OM_ACCEPT "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"

int __real_listen(int fd, int backlog);
int __real_main(int argc, char **argv);
int __real_deflateInit2_(z_streamp strm, int level, int method, int window_bits, int mem_level,
			 int strategy, const char *version, int stream_size);
struct MHD_Response *__real_MHD_create_response_from_buffer(size_t size, void *buffer,
							     enum MHD_ResponseMemoryMode mode);
enum MHD_Result __real_MHD_add_response_header(struct MHD_Response *r, const char *header,
					       const char *content);

/* open_memstream(): the buffer and size given at fflush() and fclose(). */
struct mstream {
	char **buf;
	size_t *len, size, cap;
	char *b;
};

static ssize_t ms_write(void *cookie, const char *data, size_t n)
{
	struct mstream *m = cookie;
	size_t cap = m->cap ? m->cap : 256;
	char *nb;

	while (cap < m->size + n + 1)
		cap *= 2;
	if (cap != m->cap) {
		nb = __wrap_realloc(m->b, cap);
		if (!nb)
			return 0;	/* fopencookie(3): 0, the stream's error */
		m->b = nb;
		m->cap = cap;
	}
	memcpy(m->b + m->size, data, n);
	m->size += n;
	m->b[m->size] = '\0';
	*m->buf = m->b;
	*m->len = m->size;
	return n;
}

static int ms_close(void *cookie)
{
	struct mstream *m = cookie;

	*m->buf = m->b;
	*m->len = m->size;
	free(m);
	return 0;
}

FILE *__wrap_open_memstream(char **buf, size_t *len)
{
	cookie_io_functions_t io = { .write = ms_write, .close = ms_close };
	struct mstream *m;
	FILE *f;

	if (alloc_fail_inject())
		return NULL;
	m = __real_calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->buf = buf;
	m->len = len;
	*buf = NULL;
	*len = 0;
	f = fopencookie(m, "w", io);
	if (!f)
		free(m);
	return f;
}

static voidpf z_alloc(voidpf opaque, uInt items, uInt size)
{
	(void)opaque;
	return __wrap_malloc((size_t)items * size);
}

static void z_free(voidpf opaque, voidpf p)
{
	(void)opaque;
	free(p);
}

int __wrap_deflateInit2_(z_streamp strm, int level, int method, int window_bits, int mem_level,
			 int strategy, const char *version, int stream_size)
{
	if (!strm->zalloc && !strm->zfree) {
		strm->zalloc = z_alloc;
		strm->zfree = z_free;
	}
	return __real_deflateInit2_(strm, level, method, window_bits, mem_level, strategy,
				    version, stream_size);
}

struct MHD_Response *__wrap_MHD_create_response_from_buffer(size_t size, void *buffer,
							     enum MHD_ResponseMemoryMode mode)
{
	if (alloc_fail_inject())
		return NULL;
	return __real_MHD_create_response_from_buffer(size, buffer, mode);
}

enum MHD_Result __wrap_MHD_add_response_header(struct MHD_Response *r, const char *header,
					       const char *content)
{
	return alloc_fail_inject() ? MHD_NO : __real_MHD_add_response_header(r, header, content);
}

/* The port the exporter listens on, once it does. */
static int port;

int __wrap_listen(int fd, int backlog)
{
	struct sockaddr_in a;
	socklen_t al = sizeof(a);
	int ret = __real_listen(fd, backlog);

	if (!ret && !getsockname(fd, (struct sockaddr *)&a, &al) && a.sin_family == AF_INET)
		__atomic_store_n(&port, ntohs(a.sin_port), __ATOMIC_SEQ_CST);
	return ret;
}

#define RESULT_SUITE "exporter_alloc"
#include "host_test.h"

/*
 * The exporter's stderr (a message per failed read) away from the log;
 * the sanitizers' reports still on the real one.
 */
static int saved_stderr = -1;

static void sanitizer_report_fd(int fd)
{
#if defined(__SANITIZE_ADDRESS__)
	__sanitizer_set_report_fd((void *)(long)fd);
#else
	(void)fd;
#endif
}

static void quiet(bool on)
{
	char path[] = "/tmp/memcgstat-exporter-alloc.XXXXXX";
	int fd;

	if (on && saved_stderr < 0) {
		fd = mkstemp(path);
		if (fd < 0)
			return;
		unlink(path);
		saved_stderr = dup(STDERR_FILENO);
		sanitizer_report_fd(saved_stderr);
		dup2(fd, STDERR_FILENO);
		close(fd);
	} else if (!on && saved_stderr >= 0) {
		dup2(saved_stderr, STDERR_FILENO);
		sanitizer_report_fd(STDERR_FILENO);
		close(saved_stderr);
		saved_stderr = -1;
	}
}

/* LeakSanitizer now, its report on the real stderr: true if no leak. */
static bool no_leaks(void)
{
#if defined(__SANITIZE_ADDRESS__)
	bool ok;

	quiet(false);
	ok = !__lsan_do_recoverable_leak_check();
	quiet(true);
	return ok;
#else
	return true;
#endif
}

struct reply {
	int status;
	char ctype[128], cenc[32];
	long clen;		/* -1: no Content-Length */
	const char *body;
	size_t len;
};

static char rbuf[8 << 20], zbuf[32 << 20];

static void header(const char *line, size_t n, const char *name, char *out, size_t size)
{
	size_t nl = strlen(name);

	if (n > nl && !strncasecmp(line, name, nl)) {
		n -= nl;
		line += nl;
		while (n && *line == ' ') {
			line++;
			n--;
		}
		snprintf(out, size, "%.*s", (int)n, line);
	}
}

/*
 * GET /metrics on a new connection, Connection: close, read to the end.
 * 0 and @r, or -1 if the connection gave no reply at all.
 */
static int scrape(const char *accept, bool gz, struct reply *r)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct timeval tv = { .tv_sec = 10 };
	char req[512], clen[24] = "", *eoh, *p, *nl;
	size_t got = 0;
	ssize_t n;
	int fd, len;

	memset(r, 0, sizeof(*r));
	len = snprintf(req, sizeof(req),
		       "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n%s%s%s%sConnection: close\r\n\r\n",
		       accept ? "Accept: " : "", accept ? accept : "", accept ? "\r\n" : "",
		       gz ? "Accept-Encoding: gzip\r\n" : "");
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) || send(fd, req, len, MSG_NOSIGNAL) != len) {
		close(fd);
		return -1;
	}
	while (got < sizeof(rbuf) - 1 && (n = recv(fd, rbuf + got, sizeof(rbuf) - 1 - got, 0)) > 0)
		got += n;
	close(fd);
	rbuf[got] = '\0';
	eoh = strstr(rbuf, "\r\n\r\n");
	if (!eoh || sscanf(rbuf, "HTTP/1.%*d %d", &r->status) != 1)
		return -1;
	for (p = strstr(rbuf, "\r\n") + 2; p < eoh; p = nl + 2) {
		nl = strstr(p, "\r\n");
		header(p, nl - p, "Content-Type:", r->ctype, sizeof(r->ctype));
		header(p, nl - p, "Content-Encoding:", r->cenc, sizeof(r->cenc));
		header(p, nl - p, "Content-Length:", clen, sizeof(clen));
	}
	r->clen = *clen ? atol(clen) : -1;
	r->body = eoh + 4;
	r->len = got - (r->body - rbuf);
	return 0;
}

static char why[512];

/* @fmt formatted into why[]: the reason a reply is not what it should be. */
__attribute__((format(printf, 1, 2)))
static const char *say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return why;
}

/* NULL if @r is a whole exposition in the format asked for, else why not. */
static const char *not_whole(const struct reply *r, bool om, bool gz)
{
	const char *body = r->body, *last, *line;
	size_t len = r->len;
	z_stream z = {};

	if (r->status != 200)
		return say("status %d: %.200s", r->status, r->body);
	if (strcmp(r->ctype, om ? CT_OM : CT_TEXT))
		return say("Content-Type '%s'", r->ctype);
	if (r->clen != (long)r->len)
		return say("Content-Length %ld, %zu bytes", r->clen, r->len);
	if (*r->cenc) {
		if (!gz || strcmp(r->cenc, "gzip"))
			return say("Content-Encoding '%s'", r->cenc);
		if (inflateInit2(&z, 15 + 16) != Z_OK)
			return "inflateInit2 failed";
		z.next_in = (Bytef *)body;
		z.avail_in = len;
		z.next_out = (Bytef *)zbuf;
		z.avail_out = sizeof(zbuf) - 1;
		if (inflate(&z, Z_FINISH) != Z_STREAM_END) {
			inflateEnd(&z);
			return "a gzip body that does not inflate";
		}
		len = z.total_out;
		inflateEnd(&z);
		zbuf[len] = '\0';
		body = zbuf;
	} else if (len >= 2 && (unsigned char)body[0] == 0x1f && (unsigned char)body[1] == 0x8b) {
		return "a gzip body without Content-Encoding";
	}
	if (len < 2 || body[len - 1] != '\n')
		return "a body not ending in a newline";
	for (last = body + len - 1; last > body && last[-1] != '\n'; last--)
		;
	if (om ? strcmp(last, "# EOF\n") : strncmp(last, "memcgstat_exporter_build_info{", 30))
		return say("the last line is '%.100s'", last);
	for (line = body; line < body + len; line = strchr(line, '\n') + 1)
		if (strncmp(line, "# ", 2) && strncmp(line, "memcgstat_", 10))
			return say("line '%.100s'", line);
	if (!strstr(body, "memcgstat_usage_bytes{cgroup=\"") || !strstr(body, "\\xff\"} "))
		return "no usage sample, or none of the cgroup with the name that is not UTF-8";
	return NULL;
}

/* NULL if @r is a 500 with a message, else why not. */
static const char *not_500(const struct reply *r)
{
	if (r->status != 500 || r->clen != (long)r->len ||
	    strncmp(r->body, "memcgstat-exporter: ", 20))
		return say("status %d, Content-Length %ld, %zu bytes: '%.200s'",
				r->status, r->clen, r->len, r->body);
	return NULL;
}

struct scenario {
	const char *name, *accept;
	bool om, gz, gone;	/* gone: CGROUP removed, every read fails */
};

static const struct scenario scenarios[] = {
	{ "text", NULL, false, false, false },
	{ "text_gzip", NULL, false, true, false },
	{ "openmetrics", OM_ACCEPT, true, false, false },
	{ "openmetrics_gzip", OM_ACCEPT, true, true, false },
	{ "read_failed", NULL, false, true, true },
};

/* A reply to a scrape without a failure: whole, or the 500 of a failed read. */
static const char *unfailed(const struct scenario *sc, const struct reply *r)
{
	const char *w = sc->gone ? not_500(r) : not_whole(r, sc->om, sc->gz);

	if (!w && sc->gone && !strstr(r->body, "No such file or directory"))
		w = say("a 500 without the reason: '%.200s'", r->body);
	return w;
}

/*
 * Scrape without a failure, counting, until two scrapes in a row make as
 * many allocations: a failed read loses the result kept for the next one
 * (and the paths in it), and the reads after it allocate more until one
 * is kept again. The count of the steady scrape, or -1 and @msg.
 */
static long settle(const struct scenario *sc, long n, char *msg, size_t size)
{
	long prev = -1, c = -2;
	struct reply r;
	const char *w;
	int i;

	for (i = 0; i < 10 && c != prev; i++) {
		prev = c;
		alloc_fail_arm(LONG_MAX, false);
		if (scrape(sc->accept, sc->gz, &r)) {
			alloc_fail_disarm();
			snprintf(msg, size, "allocation %ld failed; a scrape after it got no reply", n);
			return -1;
		}
		c = alloc_fail_disarm();
		if ((w = unfailed(sc, &r))) {
			snprintf(msg, size, "%s%ld failed; a scrape after it: %s",
				 n ? "allocation " : "no allocation ", n, w);
			return -1;
		}
	}
	if (c != prev) {
		snprintf(msg, size, "10 scrapes after allocation %ld failed, no two made as many", n);
		return -1;
	}
	return c;
}

/*
 * Fail each allocation of a steady scrape in turn (the first reads into
 * a new result allocate more: test_alloc fails those of the library);
 * with @on, every allocation after it too (a render that failed in the
 * reader is tried again when the reply is queued: this fails both).
 * True and in @msg how many, and what the failing scrapes got; false and
 * the first error.
 */
static bool fail_each(const struct scenario *sc, bool on, char *msg, size_t size)
{
	long n, steady = 0, n200 = 0, n500 = 0;
	struct reply r;
	const char *w;

	for (n = 1; !*msg; n++) {
		steady = settle(sc, n - 1, msg, size);
		if (steady < n)
			break;
		alloc_fail_arm(n, on);
		if (scrape(sc->accept, sc->gz, &r)) {
			alloc_fail_disarm();
			snprintf(msg, size, "allocation %ld%s failed: the connection closed without a reply",
				 n, on ? " and on" : "");
			break;
		}
		alloc_fail_disarm();
		if (r.status == 500 ? !!(w = not_500(&r)) : !!(w = not_whole(&r, sc->om, sc->gz))) {
			snprintf(msg, size, "allocation %ld%s failed: %s", n, on ? " and on" : "", w);
			break;
		}
		r.status == 500 ? n500++ : n200++;
	}
	if (*msg)
		return false;
	snprintf(msg, size, "%ld allocations failed %s: %ld scrapes got a 500, %ld a whole 200",
		 steady, on ? "each with all after it" : "one at a time", n500, n200);
	return true;
}

static void run_scenario(const struct scenario *sc)
{
	char one[512] = "", on[512] = "";

	if (!fail_each(sc, false, one, sizeof(one)))
		result(sc->name, false, one);
	else if (!fail_each(sc, true, on, sizeof(on)))
		result(sc->name, false, on);
	else if (!no_leaks())
		result(sc->name, false, "LeakSanitizer found leaks (above)");
	else
		printf("#%d exporter_alloc/%s:OK\n  %s\n  %s\n", ++nr, sc->name, one, on);
	fflush(stdout);
}

static const char *cgroup;
static char child_a[4096], child_bad[4096];

static void remove_tree(void)
{
	rmdir(child_a);
	rmdir(child_bad);
	rmdir(cgroup);
}

static void *client(void *arg)
{
	size_t i;
	int t;

	(void)arg;
	for (t = 0; t < 1000 && !__atomic_load_n(&port, __ATOMIC_SEQ_CST); t++)
		usleep(10000);
	if (!port) {
		result("exporter_listens", false, "no listening socket after 10 s");
	} else {
		quiet(true);
		for (i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
			if (scenarios[i].gone)
				remove_tree();
			run_scenario(&scenarios[i]);
		}
		quiet(false);
	}
	kill(getpid(), SIGTERM);
	return NULL;
}

int __wrap_main(int argc, char **argv)
{
	char *args[] = { argv[0], "--listen", "127.0.0.1:0", "-s", "anon,file,pgfault,usage",
			 NULL, NULL };
	pthread_t thread;
	sigset_t sigs;
	int ret, err;

	if (argc != 2) {
		fprintf(stderr, "usage: test_exporter_alloc CGROUP\n");
		return 2;
	}
	cgroup = args[5] = argv[1];
	snprintf(child_a, sizeof(child_a), "%s/a", cgroup);
	snprintf(child_bad, sizeof(child_bad), "%s/bad\xff", cgroup);
	mkdir(cgroup, 0755);
	mkdir(child_a, 0755);
	mkdir(child_bad, 0755);
	/* as the exporter's main() does, before there is a thread to inherit it */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	err = pthread_create(&thread, NULL, client, NULL);
	if (err) {
		fprintf(stderr, "test_exporter_alloc: cannot start the client: %s\n", strerror(err));
		remove_tree();
		return 1;
	}
	ret = __real_main(6, args);
	pthread_join(thread, NULL);
	result("exporter_exits_0", ret == 0, "the exporter's main() did not return 0 on SIGTERM");
	remove_tree();
	return failed ? 1 : 0;
}
