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
/*
 * A usage error, said by p_err() and pointing at --help: 2, the exit
 * status. @fmt a string literal.
 */
#define usage_err(fmt, ...) (p_err(fmt " (see %s --help)", ##__VA_ARGS__, prog_name), 2)

/*
 * getopt_long() values of the long-only options a program handles in its
 * parse_opt(), from OPT_FIRST; the common ones below them.
 */
enum { OPT_VERSION = 256, OPT_BACKEND, OPT_MAX_DEPTH, OPT_INCLUDE, OPT_EXCLUDE, OPT_FIRST };

/* What --backend, -v, -q and the tree filters set: a part of each program's options. */
struct common_env {
	enum memcgstat_backend backend;
	bool verbose, quiet;
	struct row_filter filter;	/* --max-depth, --include, --exclude */
};

/*
 * A program's options, one table of them: each one's long name, its short
 * letter (0: none) or long-only value, and what it does. TOOL_OWN and
 * TOOL_OWN_ARG go to the program's parse_opt(); TOOL_COMMON to
 * parse_common_opt(); the rest only store their value into a field of
 * the program's options, as git's parse-options OPT_STRING, OPT_BOOL and
 * OPT_INTEGER do: the argument as it is (a const char *), true (a bool),
 * or a whole number in [@min, @max] (a long; messages name it --NAME).
 * OPT_STR(), OPT_TRUE() and OPT_LONG() check the field's type. The
 * getopt_long() tables are made from this one (parse_args()).
 */
enum tool_opt_kind { TOOL_OWN, TOOL_OWN_ARG, TOOL_COMMON, TOOL_COMMON_ARG,
		     TOOL_STR, TOOL_TRUE, TOOL_LONG };
struct tool_opt {
	const char *name;
	int val;
	enum tool_opt_kind kind;
	size_t off;		/* the field's, in the program's options */
	long min, max;
};
#define OPT_FIELD(type, f, ftype)					\
	(offsetof(type, f) +						\
	 sizeof(struct { int:(-!__builtin_types_compatible_p(__typeof__(((type *)0)->f), ftype)); }))
#define OPT_OWN(n, v)		{ .name = (n), .val = (v), .kind = TOOL_OWN }
#define OPT_OWN_ARG(n, v)	{ .name = (n), .val = (v), .kind = TOOL_OWN_ARG }
#define OPT_STR(n, v, type, f)						\
	{ .name = (n), .val = (v), .kind = TOOL_STR, .off = OPT_FIELD(type, f, const char *) }
#define OPT_TRUE(n, v, type, f)						\
	{ .name = (n), .val = (v), .kind = TOOL_TRUE, .off = OPT_FIELD(type, f, bool) }
#define OPT_LONG(n, v, type, f, lo, hi)					\
	{ .name = (n), .val = (v), .kind = TOOL_LONG, .off = OPT_FIELD(type, f, long),	\
	  .min = (lo), .max = (hi) }
/*
 * The options every program takes: --backend NAME, -v, -h and --version
 * (parse_args() handles -h and --version); -q in the programs that take
 * it (the CLI and top, not the exporter); the tree filters of all three
 * (row_filter_opt() below).
 */
#define BACKEND_OPT	{ .name = "backend", .val = OPT_BACKEND, .kind = TOOL_COMMON_ARG }
#define VERBOSE_OPT	{ .name = "verbose", .val = 'v', .kind = TOOL_COMMON }
#define QUIET_OPT	{ .name = "quiet", .val = 'q', .kind = TOOL_COMMON }
/* --local and --numa, into the bools local and numa of @type: the CLI's and the exporter's */
#define LOCAL_NUMA_OPTS(type)						\
	OPT_TRUE("local", 0, type, local), OPT_TRUE("numa", 0, type, numa)
#define HELP_OPTS							\
	{ .name = "help", .val = 'h', .kind = TOOL_COMMON },		\
	{ .name = "version", .val = OPT_VERSION, .kind = TOOL_COMMON }
#define FILTER_OPTS							\
	{ .name = "max-depth", .val = OPT_MAX_DEPTH, .kind = TOOL_COMMON_ARG },	\
	{ .name = "include", .val = OPT_INCLUDE, .kind = TOOL_COMMON_ARG },	\
	{ .name = "exclude", .val = OPT_EXCLUDE, .kind = TOOL_COMMON_ARG }

/*
 * --backend, -v, -q or a tree filter into @c. Returns 0 to go on, else
 * the exit status.
 */
int parse_common_opt(struct common_env *c, int opt, const char *arg);

/*
 * The value of --max-depth (OPT_MAX_DEPTH), --include (OPT_INCLUDE) or
 * --exclude (OPT_EXCLUDE) into @f: 0, or the exit status, said.
 */
int row_filter_opt(struct row_filter *f, int opt, char *arg);

/*
 * getopt_long() over @argv with the @nr options of @opts: the stored ones
 * into the options at @base, the common ones into @c, the program's own to
 * @parse_opt with @base (which returns 0 to go on, else the exit status).
 * -h prints @usage and exits, as --version does the version; an unknown
 * option prints @usage on stderr and gives 2. Returns 0 or the exit status.
 */
int parse_args(int argc, char **argv, const struct tool_opt *opts, size_t nr,
	       void *base, struct common_env *c, const char *usage,
	       int (*parse_opt)(void *base, int opt, char *arg));

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
