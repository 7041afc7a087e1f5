// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Helpers the memcgstat CLI and memcgstat-exporter share. */
#define _GNU_SOURCE	/* vasprintf() */
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

/* @fmt's message in a malloc'd string, whole; NULL without memory. */
static char *vformat(const char *fmt, va_list ap)
{
	char *s;

	return vasprintf(&s, fmt, ap) < 0 ? NULL : s;
}

void p_err(const char *fmt, ...)
{
	char *raw, *msg;
	va_list ap;

	va_start(ap, fmt);
	raw = vformat(fmt, ap);
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
	raw = vformat(fmt, ap);
	va_end(ap);
	p_stderr(raw);
	free(raw);
}

/* Long-only options without a value of their own get one from here. */
#define OPT_AUTO	1024

static bool takes_arg(const struct tool_opt *o)
{
	return o->kind == TOOL_OWN_ARG || o->kind == TOOL_COMMON_ARG || o->kind == TOOL_STR ||
	       o->kind == TOOL_LONG;
}

/* The option @o, met with @arg: 0 to go on, else the exit status. */
static int do_opt(const struct tool_opt *o, int val, char *arg, void *base,
		  struct common_env *c, int (*parse_opt)(void *base, int opt, char *arg))
{
	void *field = (char *)base + o->off;
	char what[64];

	switch (o->kind) {
	case TOOL_OWN:
	case TOOL_OWN_ARG:
		return parse_opt(base, val, arg);
	case TOOL_COMMON:
	case TOOL_COMMON_ARG:
		return parse_common_opt(c, val, arg);
	case TOOL_STR:
		*(const char **)field = arg;
		return 0;
	case TOOL_TRUE:
		*(bool *)field = true;
		return 0;
	case TOOL_LONG:
		snprintf(what, sizeof(what), "--%s", o->name);
		return parse_long(arg, what, o->min, o->max, field);
	}
	return 0;
}

/*
 * The long options the @n bytes of @prefix (a name as typed) name: 1 for
 * one whole name or an abbreviation of one alone (*@one), else how many
 * it abbreviates, listed in *@alts (malloc'd).
 */
static int long_matches(const struct option *lopts, const char *prefix, size_t n, char **alts,
			const char **one)
{
	int k = 0, i;
	char *t;

	*alts = NULL;
	for (i = 0; lopts[i].name; i++) {
		if (strncmp(lopts[i].name, prefix, n))
			continue;
		if (!lopts[i].name[n]) {	/* whole: no abbreviation */
			free(*alts);
			*alts = NULL;
			*one = lopts[i].name;
			return 1;
		}
		k++;
		*one = lopts[i].name;
		if (asprintf(&t, "%s '--%s'", *alts ? *alts : "", lopts[i].name) < 0)
			t = NULL;
		free(*alts);
		*alts = t;
	}
	return k;
}

/*
 * What getopt_long() refused (@opt '?' or ':'; @sopts and @lopts its
 * options), @last the argument it last took whole, in glibc getopt's
 * words but said as any error (as JSON too after -o json): getopt's own
 * message, on standard error alone, left -o json's reader nothing.
 */
static void bad_option(int opt, const char *last, const char *sopts, const struct option *lopts)
{
	bool is_long = !strncmp(last, "--", 2);
	int n = strcspn(last, "=");
	const char *one = NULL;
	char *alts = NULL;
	int k = is_long ? long_matches(lopts, last + 2, n - 2, &alts, &one) : 0;

	if (opt == ':' && is_long)			/* it ended @last */
		p_err("option '--%s' requires an argument", k == 1 ? one : last + 2);
	else if (opt == ':')
		p_err("option requires an argument -- '%c'", optopt);
	else if (optopt > 0 && optopt < 256 && (optopt == ':' || !strchr(sopts + 1, optopt)))
		p_err("invalid option -- '%c'", optopt);	/* maybe amid others */
	else if (optopt && k == 1)			/* a known one, given a value */
		p_err("option '--%s' doesn't allow an argument", one);
	else if (optopt)
		p_err("option '-%c' doesn't allow an argument", optopt);
	else if (k > 1 && alts)
		p_err("option '%.*s' is ambiguous; possibilities:%s", n, last, alts);
	else
		p_err("unrecognized option '%s'", last);
	free(alts);
}

int parse_args(int argc, char **argv, const struct tool_opt *opts, size_t nr,
	       void *base, struct common_env *c, const char *usage,
	       int (*parse_opt)(void *base, int opt, char *arg))
{
	struct option *lopts = calloc(nr + 1, sizeof(*lopts));
	char *sopts = malloc(2 * nr + 2), *p = sopts;
	int opt, ret = 0;
	size_t i;

	if (!lopts || !sopts) {
		p_err("out of memory");
		ret = 1;
		goto out;
	}
	*p++ = ':';	/* a missing argument is ':', said here as any usage error */
	for (i = 0; i < nr; i++) {
		int val = opts[i].val ? opts[i].val : OPT_AUTO + (int)i;

		lopts[i] = (struct option){ opts[i].name,
					    takes_arg(&opts[i]) ? required_argument : no_argument,
					    NULL, val };
		if (val < 256) {
			*p++ = (char)val;
			if (takes_arg(&opts[i]))
				*p++ = ':';
		}
	}
	*p = '\0';
	opterr = 0;
	while (!ret && (opt = getopt_long(argc, argv, sopts, lopts, NULL)) != -1) {
		if (opt == 'h') {
			fputs(usage, stdout);
			exit(0);
		}
		if (opt == OPT_VERSION) {
			printf("%s %s\n", prog_name, memcgstat_version());
			exit(0);
		}
		if (opt == '?' || opt == ':') {
			bad_option(opt, argv[optind - 1], sopts, lopts);
			fputs(usage, stderr);
			ret = 2;
			break;
		}
		for (i = 0; i < nr && lopts[i].val != opt; i++)
			;
		ret = do_opt(&opts[i], opt, optarg, base, c, parse_opt);
	}
out:
	free(lopts);
	free(sopts);
	return ret;
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

int parse_choice(const char *s, const char *what, const char *noun,
		 const char *const *names, size_t nr, int *out)
{
	char list[256] = "";
	size_t i, n = 0;
	int k = parse_name(s, names, nr);

	if (k >= 0) {
		*out = k;
		return 0;
	}
	for (i = 0; i < nr && n < sizeof(list); i++)
		n += snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "", names[i]);
	return usage_err("%s: unknown %s '%s' (%s)", what, noun, s, list);
}

int parse_backend(const char *name, enum memcgstat_backend *out)
{
	/* in the order of enum memcgstat_backend */
	static const char *const names[] = { "auto", "bpf", "text" };
	int i, ret = parse_choice(name, "--backend", "backend", names, ARRAY_SIZE(names), &i);

	if (!ret)
		*out = i;
	return ret;
}

int parse_common_opt(struct common_env *c, int opt, const char *arg)
{
	switch (opt) {
	case OPT_BACKEND:
		return parse_backend(arg, &c->backend);
	case 'v':
		c->verbose = true;
		break;
	case 'q':
		c->quiet = true;
		break;
	case OPT_MAX_DEPTH:
	case OPT_INCLUDE:
	case OPT_EXCLUDE:
		return row_filter_opt(&c->filter, opt, (char *)arg);
	}
	return 0;
}

int row_filter_opt(struct row_filter *f, int opt, char *arg)
{
	switch (opt) {
	case OPT_MAX_DEPTH:
		return parse_long(arg, "--max-depth", 0, 1024, &f->max_depth);
	case OPT_INCLUDE:
	case OPT_EXCLUDE:
		if (opt == OPT_INCLUDE ? append_ptr(&f->include, &f->nr_include, arg) :
		    append_ptr(&f->exclude, &f->nr_exclude, arg)) {
			p_err("out of memory");
			return 1;
		}
		return 0;
	}
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
		bool verbose, struct memcgstat **h)
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
	if (verbose)
		say_backend(*h);
	return 0;
}

void say_backend(struct memcgstat *h)
{
	const char *why = memcgstat_backend_reason(h), *no_bpf;

	/* asked for by name, or not chosen yet (the first read does) */
	if (!why || memcgstat_backend(h) == MEMCGSTAT_BACKEND_AUTO)
		return;
	if (memcgstat_backend(h) == MEMCGSTAT_BACKEND_BPF) {
		p_info("using the bpf backend: %s", why);
		return;
	}
	/* where bpf cannot run, that is the reason, and no advice to take it */
	no_bpf = memcgstat_bpf_unavailable(h);
	if (no_bpf)
		p_info("using the text backend: %s", no_bpf);
	else
		p_info("using the text backend: %s (--backend bpf to use it, memcgstat --pin to pin it)",
		       why);
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
