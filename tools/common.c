// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Helpers the memcgstat CLI and memcgstat-exporter share. */
#define _GNU_SOURCE	/* vasprintf() */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "common.h"
#include "escape.h"
#include "json_writer.h"

const char *prog_name;
bool json_output;

static void json_error(const char *msg)
{
	struct json_writer jw;

	jsonw_init(&jw, stdout);
	jsonw_start_object(&jw);
	jsonw_name(&jw, "error");
	jsonw_string(&jw, msg);
	jsonw_end_object(&jw);
	putchar('\n');
}

/*
 * A message quotes paths, names and arguments as they are, and is printed
 * escaped whole (escape.h): a cgroup name reads the same here as in the
 * output, and no byte of it reaches the terminal raw.
 */
static void p_stderr(const char *raw)
{
	fprintf(stderr, "%s: ", prog_name);
	if (raw)
		esc_fputs(raw, stderr);
	else
		fputs("out of memory", stderr);
	fputc('\n', stderr);
}

void p_err(const char *fmt, ...)
{
	char *raw, *msg;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&raw, fmt, ap) < 0)
		raw = NULL;
	va_end(ap);
	if (json_output) {
		msg = raw ? esc_dup(raw) : NULL;
		json_error(msg ? msg : "out of memory");
		free(msg);
	} else {
		p_stderr(raw);
	}
	free(raw);
}

void p_info(const char *fmt, ...)
{
	va_list ap;
	char *raw;

	va_start(ap, fmt);
	if (vasprintf(&raw, fmt, ap) < 0)
		raw = NULL;
	va_end(ap);
	p_stderr(raw);
	free(raw);
}

int usage_err(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	p_err("%s (see %s --help)", msg, prog_name);
	return 2;
}

int parse_args(int argc, char **argv, const char *short_opts,
	       const struct option *long_opts, const char *usage,
	       int (*parse_opt)(int opt, char *arg))
{
	int opt, ret;

	while ((opt = getopt_long(argc, argv, short_opts, long_opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			fputs(usage, stdout);
			exit(0);
		case OPT_VERSION:
			printf("%s %s\n", prog_name, memcgstat_version());
			exit(0);
		case '?':
			fputs(usage, stderr);
			return 2;
		}
		ret = parse_opt(opt, optarg);
		if (ret)
			return ret;
	}
	return 0;
}

int parse_long(const char *s, const char *what, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!errno && end != s && !*end && v >= min && v <= max) {
		*out = v;
		return 0;
	}
	if (max == LONG_MAX && end != s && !*end && errno == ERANGE && v == LONG_MAX)
		return usage_err("%s: '%s' is too large (at most %ld)", what, s, max);
	if (max == LONG_MAX)
		return usage_err("%s: '%s' is not a whole number >= %ld", what, s, min);
	return usage_err("%s: '%s' is not a whole number in [%ld, %ld]", what, s, min, max);
}

int parse_secs(const char *s, const char *what, double min, bool above, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(above ? v > min : v >= min) || v > 86400)
		return usage_err("%s: '%s' is not a number of seconds in %c%g, 86400]",
				 what, s, above ? '(' : '[', min);
	*out = v;
	return 0;
}

int parse_name(const char *s, const char *const *names, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

int parse_backend(const char *name, enum memcgstat_backend *out)
{
	/* in the order of enum memcgstat_backend */
	static const char *const names[] = { "auto", "bpf", "text" };
	int i = parse_name(name, names, ARRAY_SIZE(names));

	if (i < 0)
		return usage_err("--backend: unknown backend '%s' (auto, bpf, text)", name);
	*out = i;
	return 0;
}

int append_ptr(char ***v, size_t *nr, char *p)
{
	char **nv = realloc(*v, (*nr + 1) * sizeof(**v));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[(*nr)++] = p;
	return 0;
}

char **split_stats(char *list, size_t *nr)
{
	char **v = NULL, *tok, *save = NULL;

	*nr = 0;
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (append_ptr(&v, nr, tok)) {
			free(v);
			return NULL;
		}
	}
	return v;
}

double now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct timespec timespec_of(double secs)
{
	struct timespec ts;

	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - ts.tv_sec) * 1e9);
	return ts;
}

static int libbpf_level = LIBBPF_INFO;	/* the most verbose level printed */

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if ((int)level > libbpf_level)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void set_libbpf_print(bool verbose, bool quiet)
{
	libbpf_level = verbose ? LIBBPF_DEBUG : quiet ? -1 : LIBBPF_INFO;
	libbpf_set_print(libbpf_print);
}

int add_stats(char **list, const char *arg)
{
	size_t len = *list ? strlen(*list) : 0;
	char *p = realloc(*list, len + strlen(arg) + 2);

	if (!p) {
		p_err("out of memory");
		return 1;
	}
	if (len)
		p[len++] = ',';
	strcpy(p + len, arg);
	*list = p;
	return 0;
}

int try_open(struct memcgstat_opts *opts, const char *stats_arg, struct memcgstat **h)
{
	char **stats = NULL, *list = NULL;
	size_t nr = 0;
	int err;

	*h = NULL;
	if (stats_arg) {
		/* split a copy: the caller may open again with the same list */
		list = strdup(stats_arg);
		if (!list)
			return -ENOMEM;
		stats = split_stats(list, &nr);
		if (!stats || !nr) {
			free(stats);
			free(list);
			return -EINVAL;
		}
	}
	opts->stats = (const char *const *)stats;
	opts->nr_stats = nr;
	err = memcgstat_open(opts, h);
	/* the library keeps no pointer to the names */
	free(stats);
	free(list);
	opts->stats = NULL;
	return err;
}

/* Whether the text backend opens with @opts' stats and flags: a hint that works. */
static bool text_opens(const struct memcgstat_opts *opts, const char *stats_arg)
{
	struct memcgstat_opts text = *opts;
	struct memcgstat *h = NULL;
	int err;

	text.backend = MEMCGSTAT_BACKEND_TEXT;
	text.query = MEMCGSTAT_QUERY_AUTO;
	text.flags &= ~(unsigned int)(MEMCGSTAT_PINNED | MEMCGSTAT_PIN_REQUIRED);
	err = try_open(&text, stats_arg, &h);
	memcgstat_close(h);
	return !err;
}

int open_handle(struct memcgstat_opts *opts, char *stats_arg, bool bpf_asked,
		bool say_backend, struct memcgstat **h)
{
	int err = try_open(opts, stats_arg, h);

	if (err && !*h)
		return err == -EINVAL ? usage_err("--stats: empty list") : (p_err("out of memory"), 1);
	if (err) {
		/* a hint only where it works: the text backend takes no --query */
		p_err("%s%s", memcgstat_errmsg(*h),
		      !bpf_asked || memcgstat_backend(*h) == MEMCGSTAT_BACKEND_BPF ||
		      !text_opens(opts, stats_arg) ? "" :
		      opts->query ? "; without --query the text backend can read it" :
		      "; use --backend text");
		/* --backend text with what only bpf reads here: a usage error */
		if (err == -EOPNOTSUPP && opts->backend == MEMCGSTAT_BACKEND_TEXT)
			return 2;
		return err == -EINVAL || err == -ENOENT ? 2 : 1;
	}
	if (say_backend && memcgstat_backend_reason(*h))
		p_info("using the text backend: %s", memcgstat_backend_reason(*h));
	return 0;
}

/*
 * memcgstat --pin's programs, opened without loading any: true, or false
 * with *@h NULL (and why in @why, if there is room).
 */
static bool open_pinned(const struct memcgstat_opts *opts, const char *stats_arg,
			char *why, size_t size, struct memcgstat **h)
{
	struct memcgstat_opts p = *opts;

	p.backend = MEMCGSTAT_BACKEND_BPF;
	p.flags |= MEMCGSTAT_PINNED | MEMCGSTAT_PIN_REQUIRED;
	if (!try_open(&p, stats_arg, h))
		return true;
	if (size)
		snprintf(why, size, "%s", memcgstat_errmsg(*h));
	memcgstat_close(*h);
	*h = NULL;
	return false;
}

/*
 * The directories below the directory @dfd (closed here), added to *@n
 * while it is below @limit: 0 or a negative errno. A cgroup v1 hierarchy
 * has no count of its own; kernfs fills in d_type.
 */
static int count_dirs(int dfd, long limit, long *n)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;
	int fd, err = 0;

	if (!d) {
		err = -errno;
		close(dfd);
		return err;
	}
	while (!err && *n < limit) {
		errno = 0;
		e = readdir(d);
		if (!e) {
			err = -errno;
			break;
		}
		if (e->d_type != DT_DIR || !strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		fd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			/* removed since readdir(): not a cgroup a read will meet */
			if (errno != ENOENT)
				err = -errno;
			continue;
		}
		++*n;
		err = count_dirs(fd, limit, n);
	}
	closedir(d);
	return err;
}

/*
 * The cgroups of the tree at @cgroup in @h's hierarchy into *@n, on cgroup
 * v1 counted up to @limit: 0, or a negative errno.
 */
static int tree_size(struct memcgstat *h, const char *cgroup, long limit, long *n)
{
	/* named as the library names it: any length, "." and symlinks too */
	int dfd = memcgstat_cgroup_open(h, cgroup), fd, err = -ENODATA;
	char key[64];
	long long v;
	FILE *f;

	if (dfd < 0)
		return dfd;
	if (memcgstat_cgroup_version(h) == 1) {
		*n = 1;
		return count_dirs(dfd, limit, n);
	}
	fd = openat(dfd, "cgroup.stat", O_RDONLY | O_CLOEXEC);
	close(dfd);
	f = fd < 0 ? NULL : fdopen(fd, "r");
	if (!f) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		return err;
	}
	/* the live ones: a snapshot does not read nr_dying_descendants */
	while (fscanf(f, "%63s %lld", key, &v) == 2) {
		if (!strcmp(key, "nr_descendants") && v >= 0 && v < LONG_MAX) {
			*n = v + 1;
			err = 0;
			break;
		}
	}
	fclose(f);
	return err;
}

/* @a * @b, or LONG_MAX if that is more: both > 0. */
static long mul_sat(long a, long b)
{
	return a > LONG_MAX / b ? LONG_MAX : a * b;
}

/*
 * The cgroup reads of @run's samples, each tree counted in @h's hierarchy
 * until they make BPF_PAYS_AFTER: NULL and *@reads (*@more: a count that
 * stopped there), or why they cannot be counted, in @why.
 */
static const char *count_reads(struct memcgstat *h, const struct run_reads *run,
			       long *reads, bool *more, char *why, size_t size)
{
	long limit = (BPF_PAYS_AFTER + run->samples - 1) / run->samples, n = 0, k;
	size_t i;
	int err;

	for (i = 0; i < run->nr_cgroups && n < limit; i++) {
		err = tree_size(h, run->cgroups[i], limit - n, &k);
		if (err) {
			snprintf(why, size, "cannot count the cgroups of %s: %s", run->cgroups[i],
				 strerror(-err));
			return why;
		}
		n += k;
		*more = n >= limit && (memcgstat_cgroup_version(h) == 1 || i + 1 < run->nr_cgroups);
	}
	*reads = mul_sat(run->samples, n);
	return NULL;
}

int open_auto(struct memcgstat_opts *opts, char *stats_arg, const struct run_reads *run,
	      bool pins, bool verbose, struct memcgstat **h)
{
	struct memcgstat_opts text = *opts;
	const char *why = NULL, *no_bpf;
	char msg[1200], pin_msg[1024] = "";	/* the library's message (1024 at most) and ours */
	bool more = false;
	long reads = 0;
	int err;

	*h = NULL;
	text.backend = MEMCGSTAT_BACKEND_TEXT;
	/*
	 * The trees' sizes need the hierarchy's mount, from a handle: the
	 * pins' (then no count is needed), else the text backend's, which a
	 * small tree keeps and a large one closes again (a small cost next to
	 * loading bpf).
	 */
	if (run->samples <= 0) {
		why = "a run without an end pays for loading it";
	} else if (!run->recursive) {
		reads = mul_sat(run->samples, run->nr_cgroups);
	} else if (pins && open_pinned(opts, stats_arg, pin_msg, sizeof(pin_msg), h)) {
		return 0;
	} else if (try_open(&text, stats_arg, h)) {
		snprintf(msg, sizeof(msg), "the text backend cannot open%s%s",
			 *h ? ": " : "", *h ? memcgstat_errmsg(*h) : "");
		why = msg;
	} else {
		why = count_reads(*h, run, &reads, &more, msg, sizeof(msg));
	}
	if (!why && reads < BPF_PAYS_AFTER) {
		/* without -r, no handle yet: the pins' or the text backend's */
		if (!*h && pins && open_pinned(opts, stats_arg, pin_msg, sizeof(pin_msg), h))
			return 0;
		if (!*h && (err = open_handle(&text, stats_arg, false, verbose, h)))
			return err;
		if (!verbose)
			return 0;
		/* where bpf cannot run, that is the reason, and no advice to take it */
		no_bpf = memcgstat_bpf_unavailable(*h);
		if (no_bpf) {
			p_info("using the text backend: %s", no_bpf);
			return 0;
		}
		if (pin_msg[0])
			p_info("%s", pin_msg);
		p_info("using the text backend: %ld cgroup read%s cost%s less than loading the bpf backend (--backend bpf to use it, memcgstat --pin to pin it)",
		       reads, reads == 1 ? "" : "s", reads == 1 ? "s" : "");
		return 0;
	}
	if (!why) {
		snprintf(msg, sizeof(msg), "%ld%s cgroup reads pay for loading it", reads,
			 more ? " or more" : "");
		why = msg;
	}
	/* no pins, and --pin would fail: no word of them */
	if (verbose && pin_msg[0] && *h && !memcgstat_bpf_unavailable(*h))
		p_info("%s", pin_msg);
	if (verbose)
		p_info("the bpf backend where it can run: %s", why);
	memcgstat_close(*h);
	*h = NULL;
	return open_handle(opts, stats_arg, false, verbose, h);
}

/*
 * Whether standard output is a pipe (or socket) nobody reads any more:
 * Linux polls the write end of a pipe without readers as POLLERR.
 */
static bool reader_gone(void)
{
	struct pollfd p = { .fd = STDOUT_FILENO, .events = POLLOUT };

	return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP));
}

/*
 * At exit: what is still buffered for standard output written, and the
 * program's exit status 1 if that or any earlier write failed (a full
 * disk, a closed pipe): output that scripts read must not end silently.
 * A reader that stopped reading (head -1) is told nothing it would not
 * read: exit 1 without a word.
 */
static void close_stdout(void)
{
	bool failed = ferror(stdout);
	int err;

	/* errno: the write's that failed, or fclose()'s */
	if (fclose(stdout) || failed) {
		err = errno;
		if (err == EPIPE || reader_gone())
			_exit(1);
		fprintf(stderr, "%s: cannot write standard output: %s\n", prog_name,
			err ? strerror(err) : "write error");
		_exit(1);
	}
}

void check_stdout_at_exit(void)
{
	/* a closed pipe is EPIPE, and a quiet exit 1, not death by SIGPIPE (141) */
	signal(SIGPIPE, SIG_IGN);
	atexit(close_stdout);
}
