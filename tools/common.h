/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Helpers the memcgstat CLI and memcgstat-exporter share: messages, option
 * parsing, opening the handle. Not part of libmemcgstat: linked into the
 * two programs only.
 */
#ifndef __MEMCGSTAT_CLI_COMMON_H
#define __MEMCGSTAT_CLI_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>
#include "filter.h"
#include "memcgstat.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Set by main(): the name messages begin with. */
extern const char *prog_name;
/* Errors as {"error":"..."} on stdout (the CLI's -o json), as bpftool. */
extern bool json_output;

/*
 * An error: "prog: message" on stderr, or JSON on stdout in JSON mode. The
 * message is escaped whole as every output is (escape.h): give it paths
 * and arguments as they are, never escaped already. So is p_info()'s.
 */
void p_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A notice, on stderr whatever the output format. */
void p_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A usage error, pointing at --help. Returns 2, the exit status. */
int usage_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * getopt_long() values: the long-only options every program takes, then
 * each program's own from OPT_FIRST.
 */
enum { OPT_VERSION = 256, OPT_BACKEND, OPT_MAX_DEPTH, OPT_INCLUDE, OPT_EXCLUDE, OPT_FIRST };

/*
 * The long options of every program, last in each long option table:
 * --backend NAME, -v, -h and --version; -q in the programs that take it
 * (the CLI and top, not the exporter). parse_args() handles -h and
 * --version, parse_backend() --backend's name.
 */
#define COMMON_LONG_OPTS						\
	{ "backend", required_argument, NULL, OPT_BACKEND },		\
	{ "verbose", no_argument, NULL, 'v' },				\
	{ "help", no_argument, NULL, 'h' },				\
	{ "version", no_argument, NULL, OPT_VERSION }
#define QUIET_LONG_OPT	{ "quiet", no_argument, NULL, 'q' }
/* The tree filters of the CLI, top and the exporter (row_filter_opt() below). */
#define FILTER_LONG_OPTS						\
	{ "max-depth", required_argument, NULL, OPT_MAX_DEPTH },	\
	{ "include", required_argument, NULL, OPT_INCLUDE },		\
	{ "exclude", required_argument, NULL, OPT_EXCLUDE }

/* What --backend, -v, -q and the tree filters set: a part of the CLI's and top's env. */
struct common_env {
	enum memcgstat_backend backend;
	bool verbose, quiet;
	struct row_filter filter;	/* --max-depth, --include, --exclude */
};

/*
 * --backend, -v, -q or a tree filter into @c, for a parse_opt() of
 * parse_args(); any other
 * option is the program's own and left alone. Returns 0 to go on, else the
 * exit status.
 */
int parse_common_opt(struct common_env *c, int opt, const char *arg);

/*
 * An option that only stores its value into a field of the program's
 * options, as git's parse-options OPT_STRING, OPT_BOOL and OPT_INTEGER do:
 * the argument as it is (a const char *), true (a bool), or a whole number in
 * [@min, @max] (a long, parse_long() naming it @name in its messages).
 * Each program lists its own in a table: STORE_ARG(), STORE_TRUE(),
 * STORE_LONG() check the field's type.
 */
enum store_kind { STORE_KIND_ARG, STORE_KIND_TRUE, STORE_KIND_LONG };
struct store_opt {
	int opt;
	enum store_kind kind;
	size_t off;		/* the field's, in the program's options */
	const char *name;	/* STORE_KIND_LONG: "--threads" */
	long min, max;
};
#define STORE_FIELD(type, f, ftype)					\
	(offsetof(type, f) +						\
	 sizeof(struct { int:(-!__builtin_types_compatible_p(__typeof__(((type *)0)->f), ftype)); }))
#define STORE_ARG(o, type, f)						\
	{ .opt = (o), .kind = STORE_KIND_ARG, .off = STORE_FIELD(type, f, const char *) }
#define STORE_TRUE(o, type, f)						\
	{ .opt = (o), .kind = STORE_KIND_TRUE, .off = STORE_FIELD(type, f, bool) }
#define STORE_LONG(o, type, f, n, lo, hi)				\
	{ .opt = (o), .kind = STORE_KIND_LONG, .off = STORE_FIELD(type, f, long),	\
	  .name = (n), .min = (lo), .max = (hi) }

/*
 * @opt of @t (@nr of them) into the options at @base, any other into @c
 * (parse_common_opt()): the default of a parse_opt() of parse_args().
 * Returns 0 to go on, else the exit status.
 */
int parse_stored_opt(const struct store_opt *t, size_t nr, void *base, struct common_env *c,
		     int opt, char *arg);

/*
 * The value of --max-depth (OPT_MAX_DEPTH), --include (OPT_INCLUDE) or
 * --exclude (OPT_EXCLUDE) into @f: 0, or the exit status, said.
 */
int row_filter_opt(struct row_filter *f, int opt, char *arg);

struct option;

/*
 * getopt_long() over @argv, each option to @parse_opt with @ctx (which
 * returns 0 to go on, else the exit status) but those of @long_opts with a flag, which
 * getopt_long() sets itself. -h prints @usage and exits, as --version
 * does the version; an unknown option prints @usage on stderr and gives 2.
 * Returns 0 or the exit status.
 */
int parse_args(int argc, char **argv, const char *short_opts,
	       const struct option *long_opts, const char *usage,
	       int (*parse_opt)(void *ctx, int opt, char *arg), void *ctx);

/*
 * Option values. On bad input they say so with usage_err() and return 2;
 * otherwise 0 and *out set. parse_long()'s range is [@min, @max]
 * (@max LONG_MAX: no upper bound); parse_secs()'s is [@min, 86400], or
 * (@min, 86400] if @above. parse_backend() takes --backend's "auto",
 * "bpf" or "text".
 */
int parse_long(const char *s, const char *what, long min, long max, long *out);
int parse_secs(const char *s, const char *what, double min, bool above, double *out);
int parse_backend(const char *name, enum memcgstat_backend *out);

/* The index of @s in @names, or -1. */
int parse_name(const char *s, const char *const *names, size_t nr);

/*
 * The index of @s in @names into *@out: 0, or (not one of them) the exit
 * status of usage_err() saying "@what: unknown @noun '@s' (NAMES, ...)".
 */
int parse_choice(const char *s, const char *what, const char *noun,
		 const char *const *names, size_t nr, int *out);

/* Append @p to the malloc'd array *@v of *@nr: 0, or -ENOMEM (*v kept). */
int append_ptr(char ***v, size_t *nr, char *p);

/*
 * Split a comma-separated list in place. Returns a malloc'd array of
 * pointers into @list (free it, not the strings) with *nr entries, or NULL
 * without memory. Empty items are dropped.
 */
char **split_stats(char *list, size_t *nr);

/* @clock's time in seconds; seconds as a timespec. */
double now(clockid_t clock);
struct timespec timespec_of(double secs);

/* libbpf's messages on stderr: its debug output too if @verbose, none if @quiet. */
void set_libbpf_print(bool verbose, bool quiet);

/*
 * Open *@h with @opts and the stats of @stats_arg (-s; NULL: all). On
 * failure say why, with a hint if the bpf backend was asked for
 * (@bpf_asked) and could not be used; *@h is still to be closed. With
 * @verbose, say_backend(). Returns 0 or the exit status: 2 for a usage
 * error (unknown stat, no such file), 1 otherwise. --backend auto is the
 * library's choice: the tools say how many reads they will make
 * (memcgstat_opts.expected_reads) and take memcgstat --pin's pins unless
 * --no-pins (MEMCGSTAT_PINNED).
 */
int open_handle(struct memcgstat_opts *opts, char *stats_arg, bool bpf_asked,
		bool verbose, struct memcgstat **h);

/*
 * -v: the backend auto took and why (memcgstat_backend_reason()), once it
 * has chosen (a handle with expected_reads chooses at its first read);
 * nothing for a backend asked for by name.
 */
void say_backend(struct memcgstat *h);

/*
 * memcgstat_open() with the --stats list, saying nothing: 0, or a negative
 * errno (-EINVAL without a handle: an empty list). Close *h either way.
 */
int try_open(struct memcgstat_opts *opts, const char *stats_arg, struct memcgstat **h);

/*
 * -s LIST, given again: the lists add up into the malloc'd *@list (a stat
 * named twice is refused when the handle opens). 0, or 1 said why.
 */
int add_stats(char **list, const char *arg);

/* Exit 1 with the reason if a write to standard output failed. */
void check_stdout_at_exit(void);

#endif /* __MEMCGSTAT_CLI_COMMON_H */
