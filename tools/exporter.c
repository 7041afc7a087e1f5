// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * memcgstat-exporter: memory cgroup counters for Prometheus, served on
 * /metrics by libmicrohttpd, or written as a node_exporter textfile. Its
 * options (into the struct exporter of exporter_ctx.h) and its start-up and
 * shutdown; the HTTP server in exporter_http.c (its slow-client limits in
 * exporter_conn.c), the textfile in exporter_textfile.c, the snapshots both
 * serve in exporter_snapshot.c. No state outside struct exporter: the
 * signals are taken with sigwait, never by a handler.
 *
 * Exit status: 0 after SIGTERM or SIGINT, or --once written; 1 start-up or
 * --once failed; 2 bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common.h"
#include "exporter_ctx.h"
#include "exporter_http.h"
#include "exporter_snapshot.h"
#include "exporter_textfile.h"
#include "filter.h"

#define DEFAULT_LISTEN	"127.0.0.1:9743"

/* without CGROUP: the whole hierarchy */
static char *const root_cgroup[] = { "/" };

static const struct exporter_opts default_opts = {
	.cgroups = root_cgroup, .nr_cgroups = 1, .interval = 15, .c.filter = ROW_FILTER_INIT,
	.threads = 2, .max_conns = 256, .timeout = 10, .max_per_ip = 64, .header_timeout = 5,
};

static const char usage_text[] =
"Usage: memcgstat-exporter [OPTION]... [CGROUP]...\n"
"Export memory cgroup counters of each CGROUP and every cgroup below it\n"
"(default: the whole memory hierarchy) to Prometheus, over HTTP or as a\n"
"textfile. A CGROUP that cannot be read at start is refused; one that fails\n"
"later is counted (memcgstat_exporter_cgroup_read_failures_total) and the\n"
"others are exported.\n"
"\n"
"  -l, --listen ADDR:PORT   serve /metrics there (default " DEFAULT_LISTEN ";\n"
"                           [::1]:PORT for IPv6, :PORT for every IPv4 address)\n"
"      --web.config.file FILE\n"
"                           TLS and basic auth for --listen: a YAML file in the\n"
"                           format of Prometheus exporter-toolkit's web\n"
"                           configuration (tls_server_config, basic_auth_users)\n"
"  -s, --stats LIST         comma-separated stats (default: all; memcgstat --list-stats)\n"
"      --max-depth N        only cgroups at most N levels below CGROUP\n"
"      --include GLOB       only cgroups whose path matches GLOB (fnmatch(3), '*'\n"
"                           matches '/' too); repeatable, any may match\n"
"      --exclude GLOB       no cgroup whose path matches GLOB; repeatable, wins\n"
"                           over --include\n"
"      --min-interval SECS  scrapes within SECS of the last read reuse it (default 0)\n"
"      --backend NAME       auto (default), bpf or text\n"
"      --compat cadvisor    cAdvisor's memory families too (container_memory_*,\n"
"                           container_spec_memory_*, container_oom_events_total),\n"
"                           labelled id, pod_uid, container_id\n"
"      --local              each cgroup's own values, without its descendants, as\n"
"                           memcgstat_local_* (bpf, or text on cgroup v1)\n"
"      --numa               one series per NUMA node of the node stats, a node\n"
"                           label (memory.numa_stat; bpf on cgroup v1)\n"
"      --textfile PATH      write the exposition to PATH atomically (for\n"
"                           node_exporter's textfile collector); no HTTP server\n"
"                           unless --listen is given too; PATH must be a regular\n"
"                           file or not exist\n"
"      --textfile-follow-symlinks\n"
"                           PATH may be a symbolic link: write where it points\n"
"      --interval SECS      rewrite the textfile every SECS (default 15)\n"
"      --once               write the textfile once and exit\n"
"      --threads N          HTTP worker threads (default 2)\n"
"      --max-connections N  concurrent HTTP connections (default 256)\n"
"      --timeout SECS       close idle HTTP connections after SECS (default 10)\n"
"      --max-waiting-per-ip N\n"
"                           connections from one address whose request has not\n"
"                           arrived whole (default 64); more are closed at once\n"
"      --header-timeout SECS\n"
"                           close a connection whose request has not arrived\n"
"                           whole SECS after it opened (default 5)\n"
"  -v, --verbose            libmicrohttpd and libbpf messages\n"
"  -h, --help               this help\n"
"      --version            the version\n"
"\n"
"Exit status: 0 stopped by SIGTERM or SIGINT (or --once done), 1 failure,\n"
"2 bad usage.\n";

enum { OPT_MIN_INTERVAL = OPT_FIRST, OPT_INTERVAL, OPT_COMPAT };

#define EO struct exporter_opts
/* In --help's order. */
static const struct tool_opt opts[] = {
	OPT_STR("listen", 'l', EO, listen),
	OPT_STR("web.config.file", 0, EO, web_config),
	OPT_OWN_ARG("stats", 's'),
	FILTER_OPTS,
	OPT_OWN_ARG("min-interval", OPT_MIN_INTERVAL),
	BACKEND_OPT,
	OPT_OWN_ARG("compat", OPT_COMPAT),
	LOCAL_NUMA_OPTS(EO),
	OPT_STR("textfile", 0, EO, textfile),
	OPT_TRUE("textfile-follow-symlinks", 0, EO, textfile_follow),
	OPT_OWN_ARG("interval", OPT_INTERVAL),
	OPT_TRUE("once", 0, EO, once),
	OPT_LONG("threads", 0, EO, threads, 1, 64),
	OPT_LONG("max-connections", 0, EO, max_conns, 1, 65536),
	OPT_LONG("timeout", 0, EO, timeout, 1, 3600),
	OPT_LONG("max-waiting-per-ip", 0, EO, max_per_ip, 1, 65536),
	OPT_LONG("header-timeout", 0, EO, header_timeout, 1, 3600),
	VERBOSE_OPT,
	HELP_OPTS,
};
#undef EO

/* Returns 0 to go on, else the exit status. @base: the struct exporter_opts. */
static int parse_opt(void *base, int opt, char *arg)
{
	struct exporter_opts *o = base;

	switch (opt) {
	case 's':
		return add_stats(&o->stats, arg);
	case OPT_MIN_INTERVAL:
		return parse_secs(arg, "--min-interval", 0, false, &o->min_interval);
	case OPT_INTERVAL:
		o->have_interval = true;
		return parse_secs(arg, "--interval", 0.001, false, &o->interval);
	case OPT_COMPAT:
		if (strcmp(arg, "cadvisor"))
			return usage_err("--compat: unknown '%s' (cadvisor)", arg);
		o->cadvisor = true;
		return 0;
	}
	return 0;
}

/* The options into @o. Returns 0 to go on, else the exit status. */
static int parse_opts(struct exporter_opts *o, int argc, char **argv)
{
	int ret = parse_args(argc, argv, opts, ARRAY_SIZE(opts), o, &o->c, usage_text, parse_opt);

	if (!ret && optind < argc) {
		o->cgroups = argv + optind;
		o->nr_cgroups = argc - optind;
	}
	return ret;
}

/* After every option is known. */
static int check_conflicts(struct exporter_opts *o)
{
	if ((o->have_interval || o->once || o->textfile_follow) && !o->textfile)
		return usage_err("--interval, --once and --textfile-follow-symlinks apply to --textfile");
	if (o->once && o->listen)
		return usage_err("--once writes the textfile and exits: no --listen");
	if (o->local && o->numa)
		return usage_err("--local and --numa cannot be combined");
	if (o->cadvisor && (o->local || o->numa))
		return usage_err("--compat cadvisor takes each cgroup's whole values: no --local or --numa");
	if (o->web_config && o->textfile && !o->listen)
		return usage_err("--web.config.file applies to the HTTP server: --listen with --textfile");
	if (!o->textfile && !o->listen)
		o->listen = DEFAULT_LISTEN;
	return 0;
}

/* Whether the subtree at path @b is inside the one at @a, or is it. */
static bool inside(const char *a, const char *b)
{
	size_t la = strlen(a);

	return !strcmp(a, "/") || !strcmp(a, b) || (!strncmp(a, b, la) && b[la] == '/');
}

/*
 * Every CGROUP read once: one that cannot be read now is refused (exit 1),
 * not a 500 or a failure counted on every scrape; one inside another
 * (their paths as the library resolves them) would export its cgroups
 * twice (exit 2).
 */
static int check_cgroups(struct exporter *ex)
{
	const struct exporter_opts *o = &ex->o;
	struct memcgstat_result *res;
	char **paths;
	size_t i, j;
	int ret = 0;

	paths = calloc(o->nr_cgroups, sizeof(*paths));
	if (!paths) {
		p_err("out of memory");
		return 1;
	}
	for (i = 0; i < o->nr_cgroups && !ret; i++) {
		if (memcgstat_read(ex->h, o->cgroups[i], &res)) {
			p_err("%s", memcgstat_errmsg(ex->h));
			ret = 1;
			break;
		}
		paths[i] = strdup(memcgstat_result_path(res, 0));
		memcgstat_result_free(res);
		if (!paths[i]) {
			p_err("out of memory");
			ret = 1;
		}
		for (j = 0; j < i && !ret; j++) {
			bool in_j = inside(paths[j], paths[i]);

			if (in_j || inside(paths[i], paths[j]))
				ret = usage_err("CGROUP %s is inside %s: its cgroups would be exported twice",
						in_j ? paths[i] : paths[j], in_j ? paths[j] : paths[i]);
		}
	}
	for (i = 0; i < o->nr_cgroups; i++)
		free(paths[i]);
	free(paths);
	return ret;
}

static int open_exporter(struct exporter *ex)
{
	struct memcgstat_opts opts = {
		.sz = sizeof(opts), .backend = ex->o.c.backend,
		.flags = (ex->o.local ? MEMCGSTAT_LOCAL : 0) | (ex->o.numa ? MEMCGSTAT_NUMA : 0),
	};
	int ret;

	set_libbpf_print(ex->o.c.verbose, false);
	/* the backend line with -v only: cron mails what a --once run prints */
	ret = open_handle(&opts, ex->o.stats, ex->o.c.backend == MEMCGSTAT_BACKEND_BPF,
			  ex->o.c.verbose, &ex->h);
	if (ret)
		return ret;
	ret = check_cgroups(ex);
	if (ret)
		return ret;
	if (ex->o.c.verbose)
		p_info("backend %s, cgroup v%d at %s, %zu stat%s",
		       memcgstat_backend_name(memcgstat_backend(ex->h)),
		       memcgstat_cgroup_version(ex->h), memcgstat_root(ex->h),
		       memcgstat_nr_columns(ex->h), memcgstat_nr_columns(ex->h) == 1 ? "" : "s");
	return 0;
}

/*
 * Serve and rewrite the textfile until SIGTERM or SIGINT. Returns 0 or the
 * exit status of a failed start.
 */
static int serve(struct exporter *ex, const sigset_t *sigs)
{
	struct timespec ts = timespec_of(ex->o.interval);
	int ret, sig;

	if (ex->o.listen) {
		ret = http_start(ex);
		if (ret)
			return ret;
	}
	if (ex->o.textfile)
		write_textfile(ex, ex->o.textfile);
	for (;;) {
		sig = ex->o.textfile ? sigtimedwait(sigs, NULL, &ts) : sigwaitinfo(sigs, NULL);
		if (sig == SIGTERM || sig == SIGINT)
			return 0;
		if (sig < 0 && errno == EAGAIN)
			write_textfile(ex, ex->o.textfile);
	}
}

int main(int argc, char **argv)
{
	struct exporter ex = { .o = default_opts };
	sigset_t sigs;
	int ret;

	prog_name = "memcgstat-exporter";
	check_stdout_at_exit();
	/*
	 * SIGTERM and SIGINT wait for the main loop, even during start-up;
	 * libmicrohttpd's threads inherit the mask and never take them.
	 */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	/*
	 * Every read renders a few bodies (tens of KiB to MiBs), and the
	 * thread that sends one last frees it. glibc raises its mmap
	 * threshold past the first such body freed and serves the later ones
	 * from its arenas, which then grow with the fragmentation: under
	 * soak.sh's load RSS went from 9.9 to 14.4 MiB in 10 minutes, still
	 * rising, while the live heap stayed near 1 MiB (heaptrack). A fixed
	 * threshold keeps them mmap'd, given back when freed: RSS flat.
	 */
#ifdef M_MMAP_THRESHOLD
	mallopt(M_MMAP_THRESHOLD, 32 * 1024);
#endif

	if (snaps_init(&ex)) {
		p_err("cannot set up the snapshots' locks");
		return 1;
	}
	ret = parse_opts(&ex.o, argc, argv);
	if (!ret)
		ret = check_conflicts(&ex.o);
	/* a target that will not be written refused before anything is read */
	if (!ret && ex.o.textfile && check_textfile(&ex, ex.o.textfile))
		ret = 1;
	if (!ret)
		ret = open_exporter(&ex);
	if (!ret)
		ret = ex.o.once ? (write_textfile(&ex, ex.o.textfile) ? 1 : 0) : serve(&ex, &sigs);
	http_stop(&ex);
	snaps_fini(&ex);
	memcgstat_close(ex.h);
	free(ex.o.stats);
	row_filter_free(&ex.o.c.filter);
	return ret;
}
