// SPDX-License-Identifier: GPL-2.0
/*
 * mcsbench: libmemcgstat against memory.stat, side by side (make bench).
 *
 *   mcsbench single CGROUP [BATCHDIR]  one cgroup; batches of 50 from BATCHDIR
 *   mcsbench tree CGROUP               the tree below CGROUP: snapshot, text, walk
 *   mcsbench dirty CGROUP PAGES        the same tree made dirty before each run
 *   mcsbench cli RUNS CLI STATS CGROUP the memcgstat CLI: CPU time, peak RSS
 *   mcsbench oneshot CGROUP CLI        fixed costs: memcgstat_open, one CLI process
 *   mcsbench insn-profile-id           the marker id of MCSBENCH_INSN_PROFILE's method
 *   mcsbench openprof CGROUP           time and memory of each step of a snapshot
 *   mcsbench snaploop CGROUP N         N snapshots, nothing else (to profile)
 *   mcsbench readloop CGROUP N         N reads of every counter, nothing else
 *   mcsbench fault MB ROUNDS           page-fault loop on a MAP_SHARED tmpfs file
 *   mcsbench mktree DIR N              DIR and N-1 children (cgroupfs)
 *   mcsbench rmtree DIR                remove them again
 *
 * CGROUP is an absolute path in the memory hierarchy. Every comparison runs
 * method A and method B in alternating order, round by round; a round runs
 * each method for about MCSBENCH_BATCH_MS (default 20) milliseconds, or once
 * when it needs an untimed preparation (dirtying the tree). Output is one
 * tab-separated line per comparison, for bench/run.sh to tabulate:
 *
 *   ROW id label unit A a_med a_usr a_sys B b_med b_usr b_sys
 *       ratio ratio_min ratio_max rounds
 *
 * with medians over MCSBENCH_ROUNDS (default 7) rounds, times per operation,
 * ratio = B/A per round (its median and its min..max over the rounds).
 * "SKIP id label why" when a side cannot run here; "NOTE id text" adds to a
 * row's notes; "SCALE n snapshot_us text_us walk_us" feeds the plot.
 *
 * With MCSBENCH_INSN=1 each method of each row also runs once more, after
 * the timed rounds, between instruction-count markers (bench/insn), and a
 * line "INSN marker_id row A|B ops pairs method" says which marker counted
 * what (see "instruction counts" below).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/sched.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "memcgstat.h"
/*
 * The kernel-side-only rows run the library's own programs without decoding
 * their output: lib/testing.h hands out the handle's skeleton for that.
 */
#include "testing.h"
#include "cg_iter.h"
#include "memcg_iter.h"
#include "memcg_iter.skel.h"
#include "floor.skel.h"
#include "flush.skel.h"
#include "insn/marker.h"

#define MAX_PAIRS	512
#define MAX_ROUNDS	101
#define BATCH		50

/* Every result lands here, so that no loop is optimised away. */
static volatile uint64_t sink;

static int rounds = 7;
static double batch_us = 20000;

static long env_num(const char *name, long def, long min, long max);

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static double tv_us(struct timeval tv)
{
	return tv.tv_sec * 1e6 + tv.tv_usec;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(const double *v, int n)
{
	double s[MAX_ROUNDS];

	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_d);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "mcsbench: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static int silent_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

/* ---- memory.stat, read and parsed the plain way ---------------------- */

struct pair {
	const char *name;
	size_t len;
	uint64_t value;
};

static char fbuf[1 << 16];
static struct pair pairs[MAX_PAIRS];

static ssize_t read_fd(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	while (len < size - 1 && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	if (n < 0)
		return -errno;
	buf[len] = 0;
	return len;
}

/* open, read to the end, close: what any memory.stat reader does first */
static ssize_t read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read_fd(fd, buf, size);
	close(fd);
	return n;
}

static uint64_t parse_u64(const char **p)
{
	const char *s = *p;
	uint64_t v = 0;

	while (*s >= '0' && *s <= '9')
		v = v * 10 + (*s++ - '0');
	*p = s;
	return v;
}

/*
 * "name value\n" lines into name/value pairs: a hand-written parser, faster
 * than sscanf or strtoull, so that the text side is not handicapped.
 */
static int parse_pairs(const char *b, struct pair *p, int max)
{
	int n = 0;

	while (*b && n < max) {
		const char *name = b;

		while (*b && *b != ' ')
			b++;
		if (!*b)
			break;
		p[n].name = name;
		p[n].len = b - name;
		b++;
		p[n].value = parse_u64(&b);
		n++;
		while (*b && *b != '\n')
			b++;
		if (*b)
			b++;
	}
	return n;
}

/* The values of @nr keys (each "name "), in @vals; returns how many found. */
static size_t pick(const char *b, const char *const *keys, const size_t *lens,
		   size_t nr, uint64_t *vals)
{
	size_t found = 0, k;

	while (*b && found < nr) {
		for (k = 0; k < nr; k++)
			if (!strncmp(b, keys[k], lens[k]) && b[lens[k]] == ' ') {
				const char *v = b + lens[k] + 1;

				vals[k] = parse_u64(&v);
				found++;
				break;
			}
		b = strchr(b, '\n');
		if (!b)
			break;
		b++;
	}
	return found;
}

/* ---- operations ------------------------------------------------------ */

struct ctx {
	const char *path;		/* cgroup directory */
	char stat_path[4096];		/* its memory.stat */
	const char *const *keys;	/* text side: chosen counters */
	size_t lens[64], nr_keys;
	struct memcgstat *h;
	struct bpf_program *prog;
	struct bpf_link *link;
	enum bpf_cgroup_iter_order order;
	int prog_fd;
	uint64_t ids[BATCH];
	char *files[BATCH];		/* batch: memory.stat of each */
	char *cgroups[BATCH];
	size_t nr;
	enum memcgstat_backend backend;	/* op_open */
	const char *argv[16];		/* op_cli: a command, NULL-terminated */
	struct memcgstat_result *res;	/* the *_into ops: kept across runs */
	unsigned int flags;		/* op_open */
	long expected_reads;		/* op_open */
};

struct op {
	const char *name;
	int (*run)(const struct ctx *c);
	int (*prep)(const struct ctx *c);	/* untimed, before each run */
	struct ctx *c;
};

static int op_plain_all(const struct ctx *c)
{
	ssize_t n = read_file(c->stat_path, fbuf, sizeof(fbuf));
	int np;

	if (n < 0)
		return n;
	np = parse_pairs(fbuf, pairs, MAX_PAIRS);
	sink += np + pairs[np - 1].value;
	return 0;
}

static int op_plain_one(const struct ctx *c)
{
	ssize_t n = read_file(c->stat_path, fbuf, sizeof(fbuf));
	uint64_t v = 0;

	if (n < 0)
		return n;
	if (pick(fbuf, c->keys, c->lens, c->nr_keys, &v) != c->nr_keys)
		return -ENOENT;
	sink += v;
	return 0;
}

static int op_raw(const struct ctx *c)
{
	ssize_t n = read_file(c->stat_path, fbuf, sizeof(fbuf));

	if (n < 0)
		return n;
	sink += n;
	return 0;
}

static int op_plain_batch(const struct ctx *c)
{
	size_t i;
	int np;

	for (i = 0; i < c->nr; i++) {
		ssize_t n = read_file(c->files[i], fbuf, sizeof(fbuf));

		if (n < 0)
			return n;
		np = parse_pairs(fbuf, pairs, MAX_PAIRS);
		sink += np + pairs[np - 1].value;
	}
	return 0;
}

/*
 * Rows of a result into name/value pairs, as the text side ends up. The
 * column names are looked up once per handle, as a monitor would: the
 * text side has to find its names in the text every time.
 */
static void decode(const struct memcgstat *h, const struct memcgstat_result *res)
{
	static const struct memcgstat *names_of;
	static const char *names[MAX_PAIRS];
	size_t n = memcgstat_nr_columns(h), r, i;

	if (names_of != h) {
		for (i = 0; i < n && i < MAX_PAIRS; i++)
			names[i] = memcgstat_column_name(h, i);
		names_of = h;
	}
	for (r = 0; r < memcgstat_result_count(res); r++) {
		const uint64_t *v = memcgstat_result_values(res, r);

		for (i = 0; i < n && i < MAX_PAIRS; i++) {
			pairs[i].name = names[i];
			pairs[i].value = v[i];
		}
		sink += n + pairs[n - 1].value;
	}
}

/*
 * A read's result, decoded, then freed unless it is the kept c->res: the
 * read's error @err, else -ENOENT if @by_id and one of c->ids was not
 * read, else 0.
 */
static int decoded(const struct ctx *c, int err, struct memcgstat_result *res, bool by_id)
{
	size_t i;

	for (i = 0; !err && by_id && i < c->nr; i++)
		if (memcgstat_result_status(res, i))
			err = -ENOENT;
	if (!err)
		decode(c->h, res);
	if (res != c->res)
		memcgstat_result_free(res);
	return err;
}

static int op_lib_read(const struct ctx *c)
{
	struct memcgstat_result *res = NULL;
	int err = memcgstat_read(c->h, c->path, &res);

	return decoded(c, err, res, false);
}

static int op_lib_read_batch(const struct ctx *c)
{
	size_t i;
	int err = 0;

	for (i = 0; i < c->nr && !err; i++) {
		struct memcgstat_result *res = NULL;

		err = memcgstat_read(c->h, c->cgroups[i], &res);
		err = decoded(c, err, res, false);
	}
	return err;
}

static int op_snapshot(const struct ctx *c)
{
	struct memcgstat_result *res = NULL;
	int err = memcgstat_snapshot(c->h, c->path, c->nr ? c->ids : NULL, c->nr, &res);

	return decoded(c, err, res, false);
}

/* The reads into a kept result (0.4): c->res, made on the first run (or NULL). */
static struct memcgstat_result *kept(const struct ctx *c)
{
	struct ctx *w = (struct ctx *)c;

	if (!w->res)
		w->res = memcgstat_result_new(c->h);
	return w->res;
}

static int op_snapshot_into(const struct ctx *c)
{
	struct memcgstat_result *res = kept(c);

	if (!res)
		return -ENOMEM;
	return decoded(c, memcgstat_snapshot_into(c->h, c->path, c->nr ? c->ids : NULL, c->nr,
						  res), res, false);
}

static int op_read_ids_into(const struct ctx *c)
{
	struct memcgstat_result *res = kept(c);

	if (!res)
		return -ENOMEM;
	return decoded(c, memcgstat_read_ids_into(c->h, c->ids, c->nr, res), res, true);
}

#ifdef MEMCGSTAT_MAX_BATCH
/* issue 4's syscall query path: one program run for up to 256 ids */
static int op_lib_read_ids(const struct ctx *c)
{
	struct memcgstat_result *res = NULL;
	int err = memcgstat_read_ids(c->h, c->ids, c->nr, &res);

	return decoded(c, err, res, true);
}

/* the library's batch program on one id, its output not decoded */
static int op_batch_raw(const struct ctx *c)
{
	struct mcs_batch req = { .nr_ids = 1 };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &req, .ctx_size_in = sizeof(req));
	int err;

	memcgstat__testing_skel(c->h)->bss->batch_ids[0] = c->ids[0];
	err = bpf_prog_test_run_opts(c->prog_fd, &opts);
	if (err)
		return -errno;
	return opts.retval ? (int)opts.retval : 0;
}
#endif

/*
 * The library's snapshot program over the tree (c->order 0), or on the
 * cgroup alone (BPF_CGROUP_ITER_SELF_ONLY: a single read by path), records
 * not decoded
 */
static int op_snapshot_raw(const struct ctx *c)
{
	struct memcg_iter *sk = memcgstat__testing_skel(c->h);

	memset(&sk->bss->walk, 0, sizeof(sk->bss->walk));
	sk->bss->walk_flushed = false;
	sk->bss->filter_ids = false;
	sk->bss->want_names = false;
	return cg_iter_run_fd(memcgstat__testing_prog_fd(c->h, "snapshot"), c->path,
			      c->order ? c->order : BPF_CGROUP_ITER_DESCENDANTS_PRE);
}

static int op_stat(const struct ctx *c)
{
	struct stat st;

	if (stat(c->path, &st))
		return -errno;
	sink += st.st_ino;
	return 0;
}

/* memcgstat_open and memcgstat_close; keys NULL: every stat */
static int op_open(const struct ctx *c)
{
	struct memcgstat_opts opts = {
		.sz = sizeof(opts), .backend = c->backend, .stats = c->keys, .nr_stats = c->nr_keys,
		.flags = c->flags, .expected_reads = c->expected_reads,
	};
	struct memcgstat *h = NULL;
	int err = memcgstat_open(&opts, &h);

	if (!err && (c->flags & MEMCGSTAT_PINNED) && !memcgstat_pinned(h))
		err = -ENOENT;
	memcgstat_close(h);
	return err;
}

/* memcgstat_pin() of a handle of every stat, or memcgstat_unpin() */
static int pin(bool on, char *why, size_t len)
{
	struct memcgstat_opts opts = { .sz = sizeof(opts), .backend = MEMCGSTAT_BACKEND_BPF };
	struct memcgstat *h = NULL;
	int err = memcgstat_open(&opts, &h);

	if (!err)
		err = on ? memcgstat_pin(h) : memcgstat_unpin(h);
	if (err)
		snprintf(why, len, "%s", memcgstat_errmsg(h));
	memcgstat_close(h);
	return err;
}

/* one process: fork, exec c->argv with stdout to /dev/null, wait */
static int op_cli(const struct ctx *c)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0)
			dup2(fd, 1);
		execv(c->argv[0], (char *const *)c->argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -errno;
	/* a failed command: EIO, for want of a better errno */
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -EIO;
}

static int op_attach_run(const struct ctx *c)
{
	return cg_iter_run(c->prog, c->path, c->order);
}

static int op_iter_once(const struct ctx *c)
{
	return cg_iter_read(c->link);
}

static int op_test_run(const struct ctx *c)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	int err = bpf_prog_test_run_opts(c->prog_fd, &opts);

	return err ? -errno : 0;
}

/*
 * Every cgroup's memory.stat below c->path, as a monitor without the
 * library reads a tree: a readdir walk, chosen counters picked from each.
 */
static int text_walk(int dfd, const struct ctx *c, uint64_t *vals)
{
	struct dirent *de;
	int fd, sub, err = 0;
	ssize_t n;
	DIR *d;

	fd = openat(dfd, "memory.stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read_fd(fd, fbuf, sizeof(fbuf));
	close(fd);
	if (n < 0)
		return n;
	sink += pick(fbuf, c->keys, c->lens, c->nr_keys, vals) + vals[0];

	fd = dup(dfd);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		sub = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (sub < 0)
			continue;	/* removed meanwhile */
		err = text_walk(sub, c, vals);
		close(sub);
	}
	closedir(d);
	return err;
}

static int op_text_tree(const struct ctx *c)
{
	uint64_t vals[64];
	int fd = open(c->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = text_walk(fd, c, vals);
	close(fd);
	return err;
}

/*
 * Activity in every child of a cgroup, on demand: one sleeping process per
 * child cgroup, started there with clone3(CLONE_INTO_CGROUP) once (exec or
 * a fork per round cost too much under TCG). Each SIGUSR1 makes it touch
 * its pages (MAP_POPULATE), unmap them and ack on a pipe, so every memcg
 * has charges, uncharges and events waiting for the next flush.
 */
static struct {
	pid_t *pids;
	size_t nr;
	int ack;			/* read end of the shared ack pipe */
} dirtiers;

static void dirtier(int ack, int pages)
{
	sigset_t set;
	int sig;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	for (;;) {
		char *p;

		if (sigwait(&set, &sig))
			_exit(1);
		p = mmap(NULL, pages * 4096L, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (p == MAP_FAILED)
			_exit(1);
		munmap(p, pages * 4096L);
		if (write(ack, "x", 1) != 1)
			_exit(1);
	}
}

static int start_dirtiers(const char *dir, int pages)
{
	struct clone_args args = { .flags = CLONE_INTO_CGROUP, .exit_signal = SIGCHLD };
	struct dirent *de;
	size_t cap = 0;
	sigset_t set;
	int fd, pfd[2], err = 0;
	pid_t pid;
	DIR *d = opendir(dir);

	if (!d || pipe2(pfd, O_CLOEXEC))
		return -errno;
	/* blocked before the clone, so no SIGUSR1 is lost in between */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	while (!err && (de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (dirtiers.nr == cap) {
			cap = cap ? 2 * cap : 1024;
			dirtiers.pids = realloc(dirtiers.pids, cap * sizeof(pid_t));
			if (!dirtiers.pids)
				die("out of memory");
		}
		args.cgroup = fd;
		pid = syscall(SYS_clone3, &args, sizeof(args));
		if (pid == 0)
			dirtier(pfd[1], pages);
		if (pid < 0)
			err = -errno;
		else
			dirtiers.pids[dirtiers.nr++] = pid;
		close(fd);
	}
	closedir(d);
	close(pfd[1]);
	dirtiers.ack = pfd[0];
	return err;
}

static void stop_dirtiers(void)
{
	size_t i;

	for (i = 0; i < dirtiers.nr; i++)
		kill(dirtiers.pids[i], SIGKILL);
	for (i = 0; i < dirtiers.nr; i++)
		waitpid(dirtiers.pids[i], NULL, 0);
	dirtiers.nr = 0;
}

static int prep_dirty(const struct ctx *c)
{
	char buf[4096];
	size_t i, acked = 0;
	ssize_t n;

	(void)c;
	for (i = 0; i < dirtiers.nr; i++)
		if (kill(dirtiers.pids[i], SIGUSR1))
			return -errno;
	while (acked < dirtiers.nr) {
		n = read(dirtiers.ack, buf, sizeof(buf));
		if (n <= 0)
			return n ? -errno : -ECHILD;
		acked += n;
	}
	return 0;
}

/* ---- comparison ------------------------------------------------------ */

struct sample {
	double us, usr, sys;	/* per operation */
};

struct row {
	double a, b, ratio;	/* medians */
	bool ok;
};

static int run_batch(const struct op *op, long iters, struct sample *s)
{
	struct rusage r0, r1;
	double t = 0, usr = 0, sys = 0, t0;
	long i;
	int err = 0;

	if (!op->prep) {
		getrusage(RUSAGE_SELF, &r0);
		t0 = now_us();
		for (i = 0; i < iters && !err; i++)
			err = op->run(op->c);
		t = now_us() - t0;
		getrusage(RUSAGE_SELF, &r1);
		usr = tv_us(r1.ru_utime) - tv_us(r0.ru_utime);
		sys = tv_us(r1.ru_stime) - tv_us(r0.ru_stime);
	} else {
		for (i = 0; i < iters && !err; i++) {
			err = op->prep(op->c);
			if (err)
				break;
			getrusage(RUSAGE_SELF, &r0);
			t0 = now_us();
			err = op->run(op->c);
			t += now_us() - t0;
			getrusage(RUSAGE_SELF, &r1);
			usr += tv_us(r1.ru_utime) - tv_us(r0.ru_utime);
			sys += tv_us(r1.ru_stime) - tv_us(r0.ru_stime);
		}
	}
	s->us = t / iters;
	s->usr = usr / iters;
	s->sys = sys / iters;
	return err;
}

/* Operations per round: about batch_us worth, at least one. */
static long calibrate(const struct op *op, int *err)
{
	struct sample s;
	long n = 1;

	*err = run_batch(op, 1, &s);	/* warm up */
	if (*err || op->prep)
		return 1;
	*err = run_batch(op, 1, &s);
	if (*err)
		return 1;
	if (s.us > 0)
		n = batch_us / s.us;
	if (n > 1000000)
		n = 1000000;
	return n < 1 ? 1 : n;
}

static void skip(const char *id, const char *label, const char *fmt, ...)
{
	va_list ap;

	printf("SKIP\t%s\t%s\t", id, label);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static void note(const char *id, const char *fmt, ...)
{
	va_list ap;

	printf("NOTE\t%s\t", id);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* ---- instruction counts (MCSBENCH_INSN) ----------------------------- */

/*
 * The cost model of make bench: under the insncount QEMU plugin (a 1-vCPU
 * TCG guest, selftests/vmtest.sh -I) every guest instruction between
 * mcs_insn_begin(ID) and mcs_insn_end(ID), kernel and user, counts to ID.
 * With MCSBENCH_INSN set, compare() runs each method once more after its
 * timed rounds: INSN_PAIRS pairs of K operations, K = MCSBENCH_INSN_OPS
 * (10) when a timed round holds that many, else 1 (and 1 with an untimed
 * preparation, which stays outside the pair), each pair after a pause. It
 * prints
 *
 *   INSN marker_id row A|B K pairs method
 *
 * and the plugin's per-pair minimum over K is the clean figure per
 * operation (a pair that a timer tick hits counts the tick too). Without
 * the plugin the markers are NOPs and only those lines show.
 *
 * Marker ids are immediates, so a run-time id goes through a switch over
 * INSN_DYN_IDS constants; the switch's own few instructions inside each
 * pair are measured by empty pairs on INSN_ID_EMPTY (its INSN line has row
 * "-") for the report to subtract. The ids of one boot come one after the
 * other from the file MCSBENCH_INSN_NEXT (read at start, written at exit),
 * so that every run of mcsbench in the boot gets ids of its own; the
 * method MCSBENCH_INSN_PROFILE=ROW[/B] names (A by default) gets
 * INSN_ID_PROFILE, which the plugin's profile_id can name before the boot.
 */
#define INSN_IDS	512
#define INSN_ID_EMPTY	(INSN_IDS - 2)
#define INSN_ID_PROFILE	(INSN_IDS - 1)
#define INSN_DYN_IDS	(INSN_IDS - 2)
#define INSN_PAIRS	5
/*
 * Idle time before each pair, MCSBENCH_INSN_PAUSE_MS (20), and ten times
 * that before a method's first: with one vCPU, the work that the timed
 * rounds and the previous pair left behind (RCU callbacks freeing links
 * and programs, kworkers, the reader of our output) runs then, not inside
 * the pair. Idle counts no instructions.
 */
#define INSN_DRAIN	10

static struct {
	bool on;		/* MCSBENCH_INSN=1 */
	long ops;		/* MCSBENCH_INSN_OPS */
	long pause_us;		/* MCSBENCH_INSN_PAUSE_MS */
	unsigned int next;	/* the next free id */
	const char *next_file;	/* MCSBENCH_INSN_NEXT */
	char profile[128];	/* MCSBENCH_INSN_PROFILE: row */
	char profile_side;	/* and method */
	bool empty_done;
} insn;

#define INSN_CASE(mark, n)	case (n): mark(n); break;
#define INSN_CASE2(mark, n)	INSN_CASE(mark, n) INSN_CASE(mark, (n) + 1)
#define INSN_CASE4(mark, n)	INSN_CASE2(mark, n) INSN_CASE2(mark, (n) + 2)
#define INSN_CASE8(mark, n)	INSN_CASE4(mark, n) INSN_CASE4(mark, (n) + 4)
#define INSN_CASE16(mark, n)	INSN_CASE8(mark, n) INSN_CASE8(mark, (n) + 8)
#define INSN_CASE32(mark, n)	INSN_CASE16(mark, n) INSN_CASE16(mark, (n) + 16)
#define INSN_CASE64(mark, n)	INSN_CASE32(mark, n) INSN_CASE32(mark, (n) + 32)
#define INSN_CASE128(mark, n)	INSN_CASE64(mark, n) INSN_CASE64(mark, (n) + 64)
#define INSN_CASE256(mark, n)	INSN_CASE128(mark, n) INSN_CASE128(mark, (n) + 128)
#define INSN_CASE512(mark, n)	INSN_CASE256(mark, n) INSN_CASE256(mark, (n) + 256)
_Static_assert(INSN_IDS == 512, "the switches below cover ids 0..511");

/* noinline: the same few instructions for every id, inside each pair */
static __attribute__((noinline)) void insn_begin(unsigned int id)
{
	switch (id) {
	INSN_CASE512(mcs_insn_begin, 0)
	}
}

static __attribute__((noinline)) void insn_end(unsigned int id)
{
	switch (id) {
	INSN_CASE512(mcs_insn_end, 0)
	}
}

static void insn_save(void)
{
	FILE *f = fopen(insn.next_file, "w");

	if (!f || fprintf(f, "%u\n", insn.next) < 0 || fclose(f))
		fprintf(stderr, "mcsbench: cannot write %s: %s\n", insn.next_file, strerror(errno));
}

static void insn_init(void)
{
	const char *on = getenv("MCSBENCH_INSN"), *p = getenv("MCSBENCH_INSN_PROFILE");
	const char *slash;
	FILE *f;

	if (!on || !*on || !strcmp(on, "0"))
		return;
	if (strcmp(on, "1"))
		die("MCSBENCH_INSN=%s: want 0 or 1", on);
	insn.on = true;
	insn.ops = env_num("MCSBENCH_INSN_OPS", 10, 1, 1000000);
	insn.pause_us = env_num("MCSBENCH_INSN_PAUSE_MS", 20, 0, 10000) * 1000;
	if (p && *p) {
		slash = strchr(p, '/');
		insn.profile_side = slash ? slash[1] : 'A';
		if (slash && (strlen(slash) != 2 || (slash[1] != 'A' && slash[1] != 'B')))
			die("MCSBENCH_INSN_PROFILE=%s: want ROW, ROW/A or ROW/B", p);
		snprintf(insn.profile, sizeof(insn.profile), "%.*s",
			 (int)(slash ? slash - p : (long)strlen(p)), p);
	}
	insn.next_file = getenv("MCSBENCH_INSN_NEXT");
	if (insn.next_file && *insn.next_file) {
		f = fopen(insn.next_file, "r");
		if (f && fscanf(f, "%u", &insn.next) != 1)
			insn.next = 0;
		if (f)
			fclose(f);
		atexit(insn_save);
	}
}

/* the dispatch's share of each pair, on INSN_ID_EMPTY, once per process */
static void insn_empty(void)
{
	int p;

	if (insn.empty_done)
		return;
	insn.empty_done = true;
	for (p = 0; p < INSN_PAIRS; p++) {
		insn_begin(INSN_ID_EMPTY);
		insn_end(INSN_ID_EMPTY);
	}
	printf("INSN\t%d\t-\t-\t0\t%d\tempty pair (marker dispatch)\n", INSN_ID_EMPTY, INSN_PAIRS);
}

/* an id for @row's method @side, or -1 when they are used up */
static int insn_id(const char *row, char side)
{
	if (insn.profile[0] && side == insn.profile_side && !strcmp(row, insn.profile))
		return INSN_ID_PROFILE;
	if (insn.next >= INSN_DYN_IDS)
		return -1;
	return insn.next++;
}

/*
 * @row's method @side counted; @per_round: its operations per timed round.
 * Returns the marker id, or -1 for none.
 */
static int insn_run(const char *row, char side, const struct op *op, long per_round)
{
	long k = op->prep || per_round < insn.ops ? 1 : insn.ops, i;
	int id, p, err = 0;

	if (!insn.on)
		return -1;
	insn_empty();
	id = insn_id(row, side);
	if (id < 0) {
		note(row, "no instruction count for %s: the %d marker ids are used up",
		     op->name, INSN_DYN_IDS);
		return -1;
	}
	for (p = 0; p < INSN_PAIRS && !err; p++) {
		if (op->prep)
			err = op->prep(op->c);
		if (err)
			break;
		usleep(p ? insn.pause_us : INSN_DRAIN * insn.pause_us);
		insn_begin(id);
		for (i = 0; i < k && !err; i++)
			err = op->run(op->c);
		insn_end(id);
	}
	if (err) {
		note(row, "no instruction count for %s: %s", op->name, strerror(-err));
		return -1;
	}
	printf("INSN\t%d\t%s\t%c\t%ld\t%d\t%s\n", id, row, side, k, INSN_PAIRS, op->name);
	fflush(stdout);
	return id;
}

/* A and B in alternating order, round by round; ratio B/A. */
/*
 * MCSBENCH_ONLY: a comma-separated list of row id prefixes ("4.first,2.into")
 * to measure; the other rows are skipped (a profile boot of one row need not
 * pay for the text backend's side of every other).
 */
static bool wanted(const char *id)
{
	const char *only = getenv("MCSBENCH_ONLY"), *p, *e;

	if (!only || !*only)
		return true;
	for (p = only; *p; p = *e ? e + 1 : e) {
		e = strchrnul(p, ',');
		if (e > p && !strncmp(id, p, e - p))
			return true;
	}
	return false;
}

static struct row compare(const char *id, const char *label,
			  const struct op *a, const struct op *b)
{
	struct sample sa[MAX_ROUNDS], sb[MAX_ROUNDS];
	double va[MAX_ROUNDS], vb[MAX_ROUNDS], vr[MAX_ROUNDS];
	double ua[MAX_ROUNDS], ub[MAX_ROUNDS], ka[MAX_ROUNDS], kb[MAX_ROUNDS];
	struct row row = {};
	long na, nb;
	int r, err;

	if (!wanted(id)) {
		skip(id, label, "not in MCSBENCH_ONLY");
		return row;
	}
	na = calibrate(a, &err);
	if (err) {
		skip(id, label, "%s: %s", a->name, strerror(-err));
		return row;
	}
	nb = calibrate(b, &err);
	if (err) {
		skip(id, label, "%s: %s", b->name, strerror(-err));
		return row;
	}
	for (r = 0; r < rounds; r++) {
		if (r % 2 == 0) {
			err = run_batch(a, na, &sa[r]);
			if (!err)
				err = run_batch(b, nb, &sb[r]);
		} else {
			err = run_batch(b, nb, &sb[r]);
			if (!err)
				err = run_batch(a, na, &sa[r]);
		}
		if (err) {
			skip(id, label, "round %d: %s", r, strerror(-err));
			return row;
		}
		va[r] = sa[r].us;
		vb[r] = sb[r].us;
		ua[r] = sa[r].usr;
		ub[r] = sb[r].usr;
		ka[r] = sa[r].sys;
		kb[r] = sb[r].sys;
		vr[r] = vb[r] / va[r];
	}
	row.a = median(va, rounds);
	row.b = median(vb, rounds);
	row.ratio = median(vr, rounds);
	row.ok = true;
	qsort(vr, rounds, sizeof(*vr), cmp_d);
	printf("ROW\t%s\t%s\tus\t%s\t%.3f\t%.3f\t%.3f\t%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%d\n",
	       id, label, a->name, row.a, median(ua, rounds), median(ka, rounds),
	       b->name, row.b, median(ub, rounds), median(kb, rounds),
	       row.ratio, vr[0], vr[rounds - 1], rounds);
	fflush(stdout);
	/* outside the timed rounds, after them: the same history each time */
	insn_run(id, 'A', a, na);
	insn_run(id, 'B', b, nb);
	return row;
}

/* ---- set-up ---------------------------------------------------------- */

static bool known_stat(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < memcgstat_nr_known_stats(); i++) {
		const char *k = memcgstat_known_stat(i);

		if (strlen(k) == len && !strncmp(k, name, len))
			return true;
	}
	return false;
}

enum query { Q_DEFAULT, Q_ITER, Q_SYSCALL };

static struct memcgstat *open_h(enum memcgstat_backend be, const char *const *stats,
				size_t nr, enum query q, char *why, size_t whylen)
{
	struct memcgstat_opts opts = {
		.sz = sizeof(opts), .backend = be, .stats = stats, .nr_stats = nr,
	};
	struct memcgstat *h = NULL;

#ifdef MEMCGSTAT_MAX_BATCH
	opts.query = q == Q_SYSCALL ? MEMCGSTAT_QUERY_SYSCALL :
		     q == Q_ITER ? MEMCGSTAT_QUERY_ITER : MEMCGSTAT_QUERY_AUTO;
#else
	if (q == Q_SYSCALL) {
		snprintf(why, whylen, "libmemcgstat has no syscall query path yet (issue 4)");
		return NULL;
	}
#endif
	if (memcgstat_open(&opts, &h)) {
		snprintf(why, whylen, "%s backend: %s", memcgstat_backend_name(be),
			 h ? memcgstat_errmsg(h) : "out of memory");
		memcgstat_close(h);
		return NULL;
	}
	return h;
}

/* The keys of @path's memory.stat, as names (allocated, leaked on exit). */
static size_t stat_keys(const char *path, const char ***out, bool known_only)
{
	static char buf[1 << 16];
	const char **names;
	char file[4096];
	size_t n = 0;
	int np, i;

	snprintf(file, sizeof(file), "%s/memory.stat", path);
	if (read_file(file, buf, sizeof(buf)) < 0)
		die("cannot read %s: %s", file, strerror(errno));
	np = parse_pairs(buf, pairs, MAX_PAIRS);
	names = calloc(np, sizeof(*names));
	for (i = 0; i < np; i++)
		if (!known_only || known_stat(pairs[i].name, pairs[i].len))
			names[n++] = strndup(pairs[i].name, pairs[i].len);
	*out = names;
	return n;
}

static void set_keys(struct ctx *c, const char *const *keys, size_t nr)
{
	size_t i;

	c->keys = keys;
	c->nr_keys = nr;
	for (i = 0; i < nr; i++)
		c->lens[i] = strlen(keys[i]);
}

static struct floor *load_floor(char *why, size_t len)
{
	libbpf_print_fn_t old = libbpf_set_print(silent_print);
	struct floor *f = floor__open_and_load();

	libbpf_set_print(old);
	if (!f)
		snprintf(why, len, "cannot load bench/floor.bpf.c: %s", strerror(errno));
	return f;
}

static void ctx_init(struct ctx *c, const char *path)
{
	memset(c, 0, sizeof(*c));
	c->path = path;
	snprintf(c->stat_path, sizeof(c->stat_path), "%s/memory.stat", path);
}

/* The first BATCH child cgroups of @dir: paths, memory.stat files, ids. */
static size_t batch_of(const char *dir, struct ctx *c)
{
	struct dirent *de;
	struct stat st;
	char p[4096];
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	c->nr = 0;
	while (c->nr < BATCH && (de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		if (stat(p, &st))
			continue;
		c->cgroups[c->nr] = strdup(p);
		if (asprintf(&c->files[c->nr], "%s/memory.stat", p) < 0)
			die("out of memory");
		c->ids[c->nr] = st.st_ino;
		c->nr++;
	}
	closedir(d);
	return c->nr;
}

/* ---- subcommands ----------------------------------------------------- */

/* One cgroup and batches of 50: what every part of cmd_single shares. */
struct single {
	const char *path, *batchdir;
	const char **keys;		/* the memory.stat keys the library knows */
	size_t nr;
	char label[256];		/* "1 cgroup, all N memory.stat counters, ..." */
	struct floor *fl;		/* NULL: no floors here (why in fwhy) */
	char fwhy[1200];
	struct ctx c_plain, c_one, c_full, c_crc, c_sys, c_batch;
	struct op plain, one, raw, full, crc, sys, batch;
	bool have_batch;
};

static const char *const anon_only[] = { "anon" };

/* The iterator path: memcgstat_read with opts.query = ITER. */
static void single_iter(struct single *s)
{
	static struct ctx c_all, c_one, c_kern, c_text, c_bat, c_snap;
	struct op all, one, kern, text, bat, snap;
	char why[1200] = "";
	struct memcgstat *h_all, *h_one, *h_text;

	h_all = open_h(MEMCGSTAT_BACKEND_BPF, s->keys, s->nr, Q_ITER, why, sizeof(why));
	h_one = open_h(MEMCGSTAT_BACKEND_BPF, anon_only, 1, Q_ITER, why, sizeof(why));
	ctx_init(&c_all, s->path);
	c_all.h = h_all;
	all = (struct op){ "memcgstat_read (iterator)", op_lib_read, NULL, &c_all };
	ctx_init(&c_one, s->path);
	c_one.h = h_one;
	one = (struct op){ "memcgstat_read (iterator)", op_lib_read, NULL, &c_one };
	ctx_init(&c_kern, s->path);
	if (h_all) {
		c_kern.h = h_all;
		c_kern.order = BPF_CGROUP_ITER_SELF_ONLY;
	}
	kern = (struct op){ "snapshot program on the cgroup alone, not decoded", op_snapshot_raw, NULL,
			    &c_kern };

	if (h_all) {
		compare("1.all.iter", s->label, &all, &s->plain);
		compare("1.kernel", "1 cgroup, kernel side only: no parsing on either side", &kern, &s->raw);
	} else {
		skip("1.all.iter", s->label, "%s", why);
		skip("1.kernel", "1 cgroup, kernel side only: no parsing on either side", "%s", why);
	}
	if (h_one)
		compare("1.one.iter", "1 cgroup, one counter (anon)", &one, &s->one);
	else
		skip("1.one.iter", "1 cgroup, one counter (anon)", "%s", why);

	h_text = open_h(MEMCGSTAT_BACKEND_TEXT, s->keys, s->nr, Q_DEFAULT, why, sizeof(why));
	if (h_text) {
		ctx_init(&c_text, s->path);
		c_text.h = h_text;
		text = (struct op){ "memcgstat_read (text backend)", op_lib_read, NULL, &c_text };
		compare("1.textlib", "1 cgroup, all counters: library text backend against the plain parser",
			&s->plain, &text);
	}

	if (s->fl && h_all) {
		compare("3.iter.full", "1 cgroup all counters: memcgstat_read against the empty iterator, same steps",
			&s->full, &all);
		compare("3.iter.crc", "1 cgroup all counters: memcgstat_read against empty iterator create/read/close",
			&s->crc, &all);
		compare("3.iter.prog", "breakdown, iterator read: the snapshot program on 1 cgroup against the empty one, both attach+create+read+close",
			&s->full, &kern);
		compare("3.iter.lib", "breakdown, iterator read: memcgstat_read against its snapshot program on 1 cgroup undecoded",
			&kern, &all);
	}

	/* batches of 50 the ways the library offered before read_ids */
	if (s->have_batch && h_all) {
		batch_of(s->batchdir, &c_bat);
		c_bat.h = h_all;
		ctx_init(&c_snap, s->batchdir);
		batch_of(s->batchdir, &c_snap);
		c_snap.h = h_all;
		bat = (struct op){ "50 x memcgstat_read (iterator)", op_lib_read_batch, NULL, &c_bat };
		snap = (struct op){ "memcgstat_snapshot filtered to 50 ids", op_snapshot, NULL, &c_snap };
		compare("1.b50.iter", "batch of 50 cgroups, all counters", &bat, &s->batch);
		compare("1.b50.snap", "batch of 50 cgroups, all counters", &snap, &s->batch);
	}
#ifdef MEMCGSTAT_MAX_BATCH
	if (s->have_batch && h_all) {
		static struct ctx c_ids;
		struct op ids;

		batch_of(s->batchdir, &c_ids);
		c_ids.h = h_all;
		ids = (struct op){ "memcgstat_read_ids, 50 ids (iterator)", op_lib_read_ids, NULL, &c_ids };
		compare("1.b50.iterids", "batch of 50 cgroups, all counters", &ids, &s->batch);
	}
#endif
}

/* What the floors bound: memory.stat against each empty program. */
static void single_bounds(struct single *s)
{
	if (!s->fl) {
		skip("3.bound", "floors", "%s", s->fwhy);
		return;
	}
	compare("3.bound.iter", "bound: memory.stat read+parse against the empty iterator create/read/close",
		&s->crc, &s->plain);
	compare("3.bound.attach", "bound: memory.stat read+parse against the empty iterator with attach",
		&s->full, &s->plain);
	compare("3.bound.sys", "bound: memory.stat read+parse against the empty syscall program",
		&s->sys, &s->plain);
}

#ifdef MEMCGSTAT_MAX_BATCH
/* The syscall path (issue 4): opts.query = SYSCALL, one program run per read. */
static void single_syscall(struct single *s)
{
	static struct ctx c_all, c_one, c_kern, c_ids1, c_stat, c_ids, c_into1, c_into;
	struct op all, one, kern, ids1, st_op, ids, into1, into;
	char why[1200] = "";
	struct memcgstat *h_all, *h_one;
	struct stat st;

	h_all = open_h(MEMCGSTAT_BACKEND_BPF, s->keys, s->nr, Q_SYSCALL, why, sizeof(why));
	h_one = open_h(MEMCGSTAT_BACKEND_BPF, anon_only, 1, Q_SYSCALL, why, sizeof(why));
	ctx_init(&c_all, s->path);
	c_all.h = h_all;
	all = (struct op){ "memcgstat_read (syscall program)", op_lib_read, NULL, &c_all };
	if (h_all && !op_lib_read(&c_all) && memcgstat_last_query(h_all) != MEMCGSTAT_QUERY_SYSCALL) {
		snprintf(why, sizeof(why), "the library ran the %s path, not syscall",
			 memcgstat_query_name(memcgstat_last_query(h_all)));
		h_all = h_one = NULL;
	}
	if (!h_all) {
		skip("1.all.sys", s->label, "%s", why);
		return;
	}
	ctx_init(&c_one, s->path);
	c_one.h = h_one;
	one = (struct op){ "memcgstat_read (syscall program)", op_lib_read, NULL, &c_one };
	ctx_init(&c_kern, s->path);
	c_kern.h = h_all;
	c_kern.prog_fd = memcgstat__testing_prog_fd(h_all, "batch");
	c_kern.ids[0] = stat(s->path, &st) ? 0 : st.st_ino;
	kern = (struct op){ "batch program run on 1 id, not decoded", op_batch_raw, NULL, &c_kern };
	ctx_init(&c_ids1, s->path);
	c_ids1.h = h_all;
	c_ids1.ids[0] = c_kern.ids[0];
	c_ids1.nr = 1;
	ids1 = (struct op){ "memcgstat_read_ids, 1 id (syscall)", op_lib_read_ids, NULL, &c_ids1 };
	ctx_init(&c_stat, s->path);
	st_op = (struct op){ "stat() of the cgroup directory", op_stat, NULL, &c_stat };

	ctx_init(&c_into1, s->path);
	c_into1.h = h_all;
	c_into1.ids[0] = c_kern.ids[0];
	c_into1.nr = 1;
	into1 = (struct op){ "memcgstat_read_ids_into, 1 id (syscall), kept result", op_read_ids_into,
			     NULL, &c_into1 };

	compare("1.all.sys", s->label, &all, &s->plain);
	compare("1.all.ids", "1 cgroup, all counters, by id: memcgstat_read_ids (1 id, syscall) against memory.stat",
		&ids1, &s->plain);
	compare("1.all.into", "1 cgroup, all counters, by id into a kept result: memcgstat_read_ids_into (1 id, syscall) against memory.stat",
		&into1, &s->plain);
	if (h_one)
		compare("1.one.sys", "1 cgroup, one counter (anon)", &one, &s->one);
	compare("1.kernel.sys", "1 cgroup, kernel side only: no parsing on either side", &kern, &s->raw);
	if (s->fl) {
		compare("3.sys", "1 cgroup all counters: syscall read against the empty syscall program",
			&s->sys, &all);
		compare("3.sys.prog", "breakdown, syscall read: the batch program on 1 id against the empty program",
			&s->sys, &kern);
	}
	compare("3.sys.lib", "breakdown, syscall read: memcgstat_read_ids (1 id) against its program undecoded",
		&kern, &ids1);
	compare("3.sys.path", "breakdown, syscall read: memcgstat_read (by path) against memcgstat_read_ids (1 id)",
		&ids1, &all);
	compare("3.sys.stat", "breakdown, syscall read: memcgstat_read (by path) against a stat() of the path",
		&st_op, &all);

	if (!s->have_batch)
		return;
	batch_of(s->batchdir, &c_ids);
	c_ids.h = h_all;
	ids = (struct op){ "memcgstat_read_ids, 50 ids (syscall)", op_lib_read_ids, NULL, &c_ids };
	compare("1.b50.sys", "batch of 50 cgroups, all counters", &ids, &s->batch);
	batch_of(s->batchdir, &c_into);
	c_into.h = h_all;
	into = (struct op){ "memcgstat_read_ids_into, 50 ids (syscall), kept result", op_read_ids_into,
			    NULL, &c_into };
	compare("1.b50.into", "batch of 50 cgroups, all counters, into a kept result", &into, &s->batch);
	if (s->fl)
		compare("3.b50.sys", "batch of 50: read_ids (syscall) against one empty syscall program run",
			&s->sys, &ids);
}
#else
static void single_syscall(struct single *s)
{
	skip("1.all.sys", s->label, "libmemcgstat has no syscall query path (issue 4) yet");
}
#endif

static int cmd_single(const char *path, const char *batchdir)
{
	static struct single s;

	s.path = path;
	s.batchdir = batchdir;
	s.nr = stat_keys(path, &s.keys, true);
	snprintf(s.label, sizeof(s.label), "1 cgroup, all %zu memory.stat counters, parsed to name/value", s.nr);

	ctx_init(&s.c_plain, path);
	s.plain = (struct op){ "memory.stat read+parse", op_plain_all, NULL, &s.c_plain };
	s.raw = (struct op){ "memory.stat open+read+close", op_raw, NULL, &s.c_plain };
	ctx_init(&s.c_one, path);
	set_keys(&s.c_one, anon_only, 1);
	s.one = (struct op){ "memory.stat read, parse to anon", op_plain_one, NULL, &s.c_one };
	s.have_batch = batchdir && batch_of(batchdir, &s.c_batch) == BATCH;
	s.batch = (struct op){ "50 x memory.stat read+parse", op_plain_batch, NULL, &s.c_batch };

	s.fl = load_floor(s.fwhy, sizeof(s.fwhy));
	ctx_init(&s.c_full, path);
	ctx_init(&s.c_crc, path);
	ctx_init(&s.c_sys, path);
	if (s.fl) {
		s.c_full.prog = s.fl->progs.empty_iter;
		s.c_full.order = BPF_CGROUP_ITER_SELF_ONLY;
		s.c_crc.link = cg_iter_attach(s.fl->progs.empty_iter, path, BPF_CGROUP_ITER_SELF_ONLY);
		s.c_sys.prog_fd = bpf_program__fd(s.fl->progs.empty_syscall);
		if (!s.c_crc.link) {
			snprintf(s.fwhy, sizeof(s.fwhy), "cannot attach the empty iterator: %s", strerror(errno));
			floor__destroy(s.fl);
			s.fl = NULL;
		}
	}
	s.full = (struct op){ "empty iterator attach+create+read+close", op_attach_run, NULL, &s.c_full };
	s.crc = (struct op){ "empty iterator create+read+close", op_iter_once, NULL, &s.c_crc };
	s.sys = (struct op){ "empty syscall program test run", op_test_run, NULL, &s.c_sys };

	single_iter(&s);
	single_syscall(&s);
	single_bounds(&s);
	return 0;
}

/*
 * The cgroups at and below @path, counted (0 if @path does not open); with
 * @rm, each removed after those below it, a message for one that stays.
 */
static size_t walk_tree(const char *path, bool rm)
{
	struct dirent *de;
	char sub[4096];
	size_t n = 1;
	DIR *d = opendir(path);

	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (de->d_type == DT_DIR && de->d_name[0] != '.') {
			snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
			n += walk_tree(sub, rm);
		}
	closedir(d);
	if (rm && rmdir(path))
		fprintf(stderr, "mcsbench: rmdir %s: %s\n", path, strerror(errno));
	return n;
}

static size_t count_tree(const char *path)
{
	return walk_tree(path, false);
}

static size_t split_stats(char *list, const char **out, size_t max)
{
	size_t n = 0;
	char *s;

	for (s = strtok(list, ","); s && n < max; s = strtok(NULL, ","))
		out[n++] = s;
	return n;
}

static const char *tree_stats[64];
static size_t nr_tree_stats;

/*
 * The contexts a tree's comparisons share, of the tree at @path: @snap
 * memcgstat_snapshot() with @h, @text every cgroup's memory.stat for the
 * tree's stats, @iter the program @prog (NULL: none) iterating in @order.
 */
static void tree_ctxs(const char *path, struct memcgstat *h, struct bpf_program *prog,
		      enum bpf_cgroup_iter_order order, struct ctx *snap, struct ctx *text,
		      struct ctx *iter)
{
	ctx_init(snap, path);
	snap->h = h;
	ctx_init(text, path);
	set_keys(text, tree_stats, nr_tree_stats);
	ctx_init(iter, path);
	if (prog) {
		iter->prog = prog;
		iter->order = order;
	}
}

static char stats_arg[1024];	/* MCSBENCH_STATS as given */

/* untimed: a new handle, whose first snapshot is the one measured */
static int prep_fresh(const struct ctx *c)
{
	struct ctx *w = (struct ctx *)c;
	char why[1200];

	memcgstat_close(w->h);
	w->h = open_h(MEMCGSTAT_BACKEND_BPF, tree_stats, nr_tree_stats, Q_DEFAULT, why, sizeof(why));
	return w->h ? 0 : -EIO;
}

/*
 * A new handle that has taken its first snapshot: its id -> path hash is
 * made at the first lookup (lib/path_cache.c), which the next snapshot
 * into a new result pays.
 */
static int prep_first_taken(const struct ctx *c)
{
	struct memcgstat_result *res = NULL;
	int err = prep_fresh(c);

	if (!err)
		err = memcgstat_snapshot(c->h, c->path, NULL, 0, &res);
	memcgstat_result_free(res);
	return err;
}

/*
 * memcgstat_read_ids_into() of c->ids, the last of which is a removed
 * cgroup's: its row -ENOENT, the others read.
 */
static int op_read_ids_dead(const struct ctx *c)
{
	struct memcgstat_result *res = kept(c);
	size_t i;
	int err;

	if (!res)
		return -ENOMEM;
	err = memcgstat_read_ids_into(c->h, c->ids, c->nr, res);
	for (i = 0; !err && i < c->nr; i++)
		if (memcgstat_result_status(res, i) != (i == c->nr - 1 ? -ENOENT : 0))
			err = -EIO;
	if (!err)
		decode(c->h, res);
	return err;
}

/*
 * 4.deadid.N: on text, a read by id of the tree's top and of a removed
 * cgroup's id against the top's alone, each into a kept result: what a
 * monitor pays, read after read, for an id that has gone.
 */
static void dead_id_row(const char *path, size_t n)
{
	static struct ctx live, dead;
	char why[1200] = "", label[256], id[64], p[4096];
	struct op o_live, o_dead;
	struct stat st;

	snprintf(id, sizeof(id), "4.deadid.%zu", n);
	snprintf(label, sizeof(label), "%zu-cgroup tree, text: read_ids of the top and a removed id against the top alone", n);
	ctx_init(&live, path);
	ctx_init(&dead, path);
	live.h = open_h(MEMCGSTAT_BACKEND_TEXT, tree_stats, nr_tree_stats, Q_DEFAULT, why, sizeof(why));
	if (!live.h) {
		skip(id, label, "%s", why);
		return;
	}
	dead.h = live.h;
	snprintf(p, sizeof(p), "%s-dead", path);
	rmdir(p);	/* an earlier run's, stopped */
	if (stat(path, &st) || mkdir(p, 0755)) {
		skip(id, label, "%s: %s", p, strerror(errno));
		goto out;
	}
	live.ids[0] = dead.ids[0] = st.st_ino;
	if (stat(p, &st) || rmdir(p)) {
		skip(id, label, "%s: %s", p, strerror(errno));
		rmdir(p);
		goto out;
	}
	dead.ids[1] = st.st_ino;
	live.nr = 1;
	dead.nr = 2;
	o_live = (struct op){ "memcgstat_read_ids_into, the top", op_read_ids_into, NULL, &live };
	o_dead = (struct op){ "memcgstat_read_ids_into, the top and a removed id", op_read_ids_dead,
			      NULL, &dead };
	compare(id, label, &o_live, &o_dead);
out:
	memcgstat_result_free(live.res);
	memcgstat_result_free(dead.res);
	memcgstat_close(live.h);
	live.res = dead.res = NULL;
}

static int cmd_tree(const char *path)
{
	struct ctx snap, text, walk;
	struct op o_snap, o_text, o_walk;
	struct row r_text = {}, r_walk = {};
	char why[1200] = "", fwhy[1200] = "", label[256], id[64];
	size_t n = count_tree(path);
	struct floor *fl = load_floor(fwhy, sizeof(fwhy));
	struct memcgstat *h = open_h(MEMCGSTAT_BACKEND_BPF, tree_stats, nr_tree_stats,
				     Q_DEFAULT, why, sizeof(why));

	tree_ctxs(path, h, fl ? fl->progs.empty_iter : NULL, BPF_CGROUP_ITER_DESCENDANTS_PRE,
		  &snap, &text, &walk);
	o_snap = (struct op){ "memcgstat_snapshot", op_snapshot, NULL, &snap };
	o_text = (struct op){ "memory.stat of every cgroup", op_text_tree, NULL, &text };
	o_walk = (struct op){ "empty cgroup_iter walk", op_attach_run, NULL, &walk };

	snprintf(label, sizeof(label), "%zu-cgroup tree, %zu counters each", n, nr_tree_stats);
	snprintf(id, sizeof(id), "2.tree.%zu", n);
	if (h)
		r_text = compare(id, label, &o_snap, &o_text);
	else
		skip(id, label, "%s", why);
	snprintf(id, sizeof(id), "3.walk.%zu", n);
	if (!fl) {
		skip(id, label, "%s", fwhy);
	} else if (h) {
		snprintf(label, sizeof(label), "%zu-cgroup tree: snapshot against the empty walk", n);
		r_walk = compare(id, label, &o_walk, &o_snap);
	} else {
		snprintf(label, sizeof(label), "%zu-cgroup tree: memory.stat of every cgroup against the empty walk", n);
		r_walk = compare(id, label, &o_walk, &o_text);
		r_text.b = r_walk.b;
	}
	if (h) {
		static struct ctx into;
		struct op o_into;

		ctx_init(&into, path);
		into.h = h;
		o_into = (struct op){ "memcgstat_snapshot_into, kept result", op_snapshot_into, NULL, &into };
		snprintf(id, sizeof(id), "2.into.%zu", n);
		snprintf(label, sizeof(label), "%zu-cgroup tree, %zu counters each, into a kept result",
			 n, nr_tree_stats);
		compare(id, label, &o_into, &o_text);
		if (fl) {
			snprintf(id, sizeof(id), "3.walk.into.%zu", n);
			snprintf(label, sizeof(label), "%zu-cgroup tree: snapshot_into against the empty walk", n);
			compare(id, label, &o_walk, &o_into);
		}
		if (n >= 100) {
			static struct ctx first;
			struct op o_first;

			ctx_init(&first, path);
			o_first = (struct op){ "memcgstat_snapshot, the first of a new handle", op_snapshot,
					       prep_fresh, &first };
			snprintf(id, sizeof(id), "4.first.%zu", n);
			snprintf(label, sizeof(label), "%zu-cgroup tree: a new handle's first snapshot against a steady one (into a kept result)", n);
			compare(id, label, &o_into, &o_first);
			o_first = (struct op){ "memcgstat_snapshot, the second of a new handle",
					       op_snapshot, prep_first_taken, &first };
			snprintf(id, sizeof(id), "4.second.%zu", n);
			snprintf(label, sizeof(label), "%zu-cgroup tree: a new handle's second snapshot against a steady one (both into new results: every path looked up)", n);
			compare(id, label, &o_snap, &o_first);
			memcgstat_close(first.h);
			first.h = NULL;
		}
		if (n >= 100)
			dead_id_row(path, n);
		memcgstat_result_free(into.res);
		into.res = NULL;
	}
	if (h && fl) {
		struct ctx raw;
		struct op o_raw;

		ctx_init(&raw, path);
		raw.h = h;
		o_raw = (struct op){ "snapshot program, records not decoded", op_snapshot_raw, NULL, &raw };
		snprintf(id, sizeof(id), "3.walk.prog.%zu", n);
		snprintf(label, sizeof(label), "breakdown, %zu-cgroup tree: the snapshot program against the empty walk", n);
		compare(id, label, &o_walk, &o_raw);
		snprintf(id, sizeof(id), "3.walk.lib.%zu", n);
		snprintf(label, sizeof(label), "breakdown, %zu-cgroup tree: memcgstat_snapshot against its program undecoded", n);
		compare(id, label, &o_raw, &o_snap);
	}
	printf("SCALE\t%zu\t%.3f\t%.3f\t%.3f\n", n, r_text.ok ? r_text.a : -1,
	       r_text.b > 0 ? r_text.b : -1, r_walk.ok ? r_walk.a : -1);
	fflush(stdout);
	memcgstat_close(h);
	floor__destroy(fl);
	return 0;
}

static int cmd_dirty(const char *path, int pages)
{
	struct ctx snap, text, fl_ctx;
	struct op o_clean, o_dirty, o_flush, o_text_dirty;
	struct row r;
	char why[1200] = "", label[256], id[64];
	size_t n = count_tree(path);
	libbpf_print_fn_t old;
	int err;
	struct memcgstat *h = open_h(MEMCGSTAT_BACKEND_BPF, tree_stats, nr_tree_stats,
				     Q_DEFAULT, why, sizeof(why));
	struct flush *fs;

	snprintf(label, sizeof(label), "dirty %zu-cgroup tree, %d pages touched in each", n, pages);
	if (!h) {
		skip("5.dirty", label, "%s", why);
		return 0;
	}
	old = libbpf_set_print(silent_print);
	fs = flush__open_and_load();
	libbpf_set_print(old);

	tree_ctxs(path, h, fs ? fs->progs.flush_only : NULL, BPF_CGROUP_ITER_SELF_ONLY,
		  &snap, &text, &fl_ctx);
	/* clean: right after another snapshot, nothing left to flush */
	o_clean = (struct op){ "snapshot, clean tree", op_snapshot, op_snapshot, &snap };
	o_dirty = (struct op){ "snapshot, dirty tree", op_snapshot, prep_dirty, &snap };
	o_flush = (struct op){ "flush only, dirty tree", op_attach_run, prep_dirty, &fl_ctx };
	o_text_dirty = (struct op){ "memory.stat of every cgroup, dirty tree", op_text_tree, prep_dirty, &text };

	err = start_dirtiers(path, pages);
	if (err) {
		stop_dirtiers();
		skip("5.dirty", label, "cannot start a process in every cgroup: %s", strerror(-err));
		return 0;
	}
	snprintf(id, sizeof(id), "5.dirty.%zu", n);
	r = compare(id, label, &o_clean, &o_dirty);
	if (r.ok)
		note(id, "flush share of a dirty snapshot, (dirty - clean) / dirty: %.0f %%",
		     100 * (r.b - r.a) / r.b);
	snprintf(id, sizeof(id), "5.flush.%zu", n);
	if (fs) {
		r = compare(id, label, &o_flush, &o_dirty);
		if (r.ok)
			note(id, "flush-only program / dirty snapshot: %.0f %%", 100 * r.a / r.b);
	} else {
		skip(id, label, "cannot load bench/flush.bpf.c: %s", strerror(errno));
	}
	snprintf(id, sizeof(id), "5.text.%zu", n);
	compare(id, label, &o_dirty, &o_text_dirty);
	stop_dirtiers();
	flush__destroy(fs);
	memcgstat_close(h);
	return 0;
}

/* a ROW of two series of per-run values, ratio per run */
static void row_of(const char *id, const char *label, const char *unit,
		   const char *an, const double *a, const char *bn, const double *b, int n)
{
	double r[MAX_ROUNDS];
	int i;

	for (i = 0; i < n; i++)
		r[i] = b[i] / a[i];
	printf("ROW\t%s\t%s\t%s\t%s\t%.0f\t-\t-\t%s\t%.0f\t-\t-\t%.3f", id, label, unit,
	       an, median(a, n), bn, median(b, n), median(r, n));
	qsort(r, n, sizeof(*r), cmp_d);
	printf("\t%.3f\t%.3f\t%d\n", r[0], r[n - 1], n);
}

/* @c's argv: the CLI on @path, csv, with @backend (and -r) */
static void cli_argv(struct ctx *c, const char *cli, const char *backend, bool recursive,
		     const char *stats, const char *path)
{
	int a = 0;

	c->argv[a++] = cli;
	c->argv[a++] = "--backend";
	/* "bpf": load the programs; "pinned": the bpf backend on the pins */
	c->argv[a++] = strcmp(backend, "pinned") ? backend : "bpf";
	if (!strcmp(backend, "bpf"))
		c->argv[a++] = "--no-pins";
	if (recursive)
		c->argv[a++] = "-r";
	if (stats) {
		c->argv[a++] = "-s";
		c->argv[a++] = stats;
	}
	c->argv[a++] = "-o";
	c->argv[a++] = "csv";
	c->argv[a++] = path;
	c->argv[a] = NULL;
}

/* The same command with -i 0.01 -c 10 before the path: ten samples. */
static void cli_argv_i10(struct ctx *c, const char *cli, const char *backend,
			 const char *stats, const char *path)
{
	int a;

	cli_argv(c, cli, backend, false, stats, path);
	for (a = 0; c->argv[a]; a++)
		;
	c->argv[a - 1] = "-i";
	c->argv[a++] = "0.01";
	c->argv[a++] = "-c";
	c->argv[a++] = "10";
	c->argv[a++] = path;
	c->argv[a] = NULL;
}

/*
 * @o: one CLI process a run, --backend @backend on @path, ten samples with
 * @i10 (cli_argv_i10()), in @c.
 */
static void cli_op(struct op *o, const char *name, struct ctx *c, const char *cli,
		   const char *backend, bool i10, const char *stats, const char *path)
{
	ctx_init(c, path);
	if (i10)
		cli_argv_i10(c, cli, backend, stats, path);
	else
		cli_argv(c, cli, backend, false, stats, path);
	*o = (struct op){ name, op_cli, NULL, c };
}

/*
 * The CLI, interleaved: the tree with the bpf and the text backend, and
 * the tree's top alone with bpf (the fixed cost: loading the programs).
 * Wall time (with exec), user+sys CPU and peak RSS of each run; with
 * MCSBENCH_INSN, then each of the three counted, fork to wait.
 */
static int cmd_cli(int runs, const char *cli, const char *stats, const char *path)
{
	static const struct {
		const char *backend;
		bool recursive;
		const char *name;
	} cf[3] = {
		{ "bpf", true, "memcgstat --backend bpf" },
		{ "text", true, "memcgstat --backend text" },
		{ "bpf", false, "bpf, 1 cgroup" },
	};
	double wall[3][MAX_ROUNDS], cpu[3][MAX_ROUNDS], rss[3][MAX_ROUNDS];
	static struct ctx c[3];
	struct op o[3];
	char label[256];
	size_t n = count_tree(path);
	int r, k, st;

	for (k = 0; k < 3; k++) {
		ctx_init(&c[k], path);
		cli_argv(&c[k], cli, cf[k].backend, cf[k].recursive, stats, path);
		o[k] = (struct op){ cf[k].name, op_cli, NULL, &c[k] };
	}
	if (runs > MAX_ROUNDS)
		runs = MAX_ROUNDS;
	for (r = 0; r < runs; r++) {
		for (k = 0; k < 3; k++) {
			int i = (k + r) % 3;
			struct rusage ru;
			double t0 = now_us();
			pid_t pid = fork();

			if (pid == 0) {
				int fd = open("/dev/null", O_WRONLY);

				dup2(fd, 1);
				execv(cli, (char *const *)c[i].argv);
				_exit(127);
			}
			if (pid < 0 || wait4(pid, &st, 0, &ru) < 0)
				die("cannot run %s: %s", cli, strerror(errno));
			if (!WIFEXITED(st) || WEXITSTATUS(st)) {
				skip("7.cli", "memcgstat CLI", "%s --backend %s failed (status %d)",
				     cli, cf[i].backend, st);
				return 0;
			}
			wall[i][r] = now_us() - t0;
			cpu[i][r] = tv_us(ru.ru_utime) + tv_us(ru.ru_stime);
			rss[i][r] = ru.ru_maxrss;
		}
	}
	snprintf(label, sizeof(label), "memcgstat CLI -r -s %s on a tree of %zu cgroups: wall time, exec included", stats, n);
	row_of("7.cli.wall", label, "us", cf[0].name, wall[0], cf[1].name, wall[1], runs);
	row_of("7.cli.cpu", "memcgstat CLI, same runs: user+sys CPU time", "us",
	       cf[0].name, cpu[0], cf[1].name, cpu[1], runs);
	row_of("7.cli.rss", "memcgstat CLI, same runs: peak RSS (ru_maxrss)", "KiB",
	       cf[0].name, rss[0], cf[1].name, rss[1], runs);
	snprintf(label, sizeof(label), "breakdown, memcgstat CLI: the top cgroup alone against the %zu-cgroup tree, bpf: CPU time", n);
	row_of("7.cli.cpu1", label, "us", cf[2].name, cpu[2], "bpf, whole tree", cpu[0], runs);
	snprintf(label, sizeof(label), "breakdown, memcgstat CLI: the top cgroup alone against the %zu-cgroup tree, bpf: peak RSS", n);
	row_of("7.cli.rss1", label, "KiB", cf[2].name, rss[2], "bpf, whole tree", rss[0], runs);
	/* one process per operation; 7.cli.cpu1's B is 7.cli.wall's A */
	k = insn_run("7.cli.wall", 'A', &o[0], 1);
	insn_run("7.cli.wall", 'B', &o[1], 1);
	insn_run("7.cli.cpu1", 'A', &o[2], 1);
	if (k >= 0)
		printf("INSN\t%d\t7.cli.cpu1\tB\t1\t%d\tbpf, whole tree\n", k, INSN_PAIRS);
	return 0;
}

/*
 * Fixed costs, each its own row: memcgstat_open+close with the bpf backend
 * against the text backend, for MCSBENCH_STATS and for every stat; and one
 * one-shot CLI process reading one cgroup (fork, exec, wait), bpf against
 * text.
 */
static int cmd_oneshot(const char *path, const char *cli)
{
	static struct ctx c_bpf4, c_text4, c_bpfall, c_textall, c_pbpf, c_ptext, c_pin4, c_ppin;
	static struct ctx c_ibpf, c_itext, c_ipin, c_bpf1;
	struct op bpf4, text4, bpfall, textall, pbpf, ptext, pin4, ppin, ibpf, itext, ipin, bpf1;
	char label[1200], stats[1024] = "", why[1200] = "";
	size_t i, len = 0;

	for (i = 0; i < nr_tree_stats && len < sizeof(stats); i++)
		len += snprintf(stats + len, sizeof(stats) - len, "%s%s", i ? "," : "", tree_stats[i]);
	ctx_init(&c_bpf4, path);
	c_bpf4.backend = MEMCGSTAT_BACKEND_BPF;
	set_keys(&c_bpf4, tree_stats, nr_tree_stats);
	c_text4 = c_bpf4;
	c_text4.backend = MEMCGSTAT_BACKEND_TEXT;
	ctx_init(&c_bpfall, path);
	c_bpfall.backend = MEMCGSTAT_BACKEND_BPF;
	c_textall = c_bpfall;
	c_textall.backend = MEMCGSTAT_BACKEND_TEXT;
	bpf4 = (struct op){ "memcgstat_open+close (bpf)", op_open, NULL, &c_bpf4 };
	text4 = (struct op){ "memcgstat_open+close (text)", op_open, NULL, &c_text4 };
	bpfall = (struct op){ "memcgstat_open+close (bpf)", op_open, NULL, &c_bpfall };
	textall = (struct op){ "memcgstat_open+close (text)", op_open, NULL, &c_textall };
	snprintf(label, sizeof(label), "memcgstat_open+close, %zu stats (%s): bpf backend against text",
		 nr_tree_stats, stats);
	compare("7.open.stats", label, &bpf4, &text4);
	compare("7.open.all", "memcgstat_open+close, every stat: bpf backend against text",
		&bpfall, &textall);
	/* a caller that reads once (the CLI without -i): the iterator's program only */
	c_bpf1 = c_bpf4;
	c_bpf1.expected_reads = 1;
	bpf1 = (struct op){ "memcgstat_open+close (bpf, expected_reads 1)", op_open, NULL, &c_bpf1 };
	snprintf(label, sizeof(label), "memcgstat_open+close, %zu stats (%s), expected_reads 1: bpf backend against text",
		 nr_tree_stats, stats);
	compare("7.open.once", label, &bpf1, &text4);

	cli_op(&pbpf, "memcgstat --backend bpf", &c_pbpf, cli, "bpf", false, stats, path);
	cli_op(&ptext, "memcgstat --backend text", &c_ptext, cli, "text", false, stats, path);
	snprintf(label, sizeof(label), "one memcgstat CLI process, 1 cgroup, -s %s: fork+exec+wait", stats);
	compare("7.proc", label, &pbpf, &ptext);
	cli_op(&ibpf, "memcgstat --backend bpf -i 0.01 -c 10", &c_ibpf, cli, "bpf", true,
	       stats, path);
	cli_op(&itext, "memcgstat --backend text -i 0.01 -c 10", &c_itext, cli, "text", true,
	       stats, path);
	snprintf(label, sizeof(label), "one memcgstat CLI process, 1 cgroup, -s %s, 10 samples (-i 0.01 -c 10)",
		 stats);
	compare("7.proc.i10", label, &ibpf, &itext);

	/* the same with the programs of memcgstat --pin */
	if (pin(true, why, sizeof(why))) {
		skip("7.open.pinned", "memcgstat_open on pinned programs", "%s", why);
		return 0;
	}
	c_pin4 = c_bpf4;
	c_pin4.flags = MEMCGSTAT_PINNED | MEMCGSTAT_PIN_REQUIRED;
	pin4 = (struct op){ "memcgstat_open+close (bpf, pinned)", op_open, NULL, &c_pin4 };
	snprintf(label, sizeof(label), "memcgstat_open+close, %zu stats (%s): bpf on the pins of memcgstat --pin against text",
		 nr_tree_stats, stats);
	compare("7.open.pinned", label, &pin4, &text4);
	cli_op(&ppin, "memcgstat --backend bpf (pinned)", &c_ppin, cli, "pinned", false, stats, path);
	snprintf(label, sizeof(label), "one memcgstat CLI process, 1 cgroup, -s %s, bpf on the pins: fork+exec+wait",
		 stats);
	compare("7.proc.pinned", label, &ppin, &ptext);
	cli_op(&ipin, "memcgstat --backend bpf -i 0.01 -c 10 (pinned)", &c_ipin, cli, "pinned", true,
	       stats, path);
	snprintf(label, sizeof(label), "one memcgstat CLI process, 1 cgroup, -s %s, 10 samples, bpf on the pins",
		 stats);
	compare("7.proc.i10.pinned", label, &ipin, &itext);
	pin(false, why, sizeof(why));
	return 0;
}

/* VmRSS and VmHWM of this process, KiB */
static void mem_now(long *rss, long *hwm)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	*rss = *hwm = -1;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "VmRSS: %ld", rss);
		sscanf(line, "VmHWM: %ld", hwm);
	}
	fclose(f);
}

static void step(const char *what, double *t0)
{
	long rss, hwm;
	double t = now_us();

	mem_now(&rss, &hwm);
	printf("NOTE\t7.cli.rss1\tin one process, %s: %.0f ms, VmRSS %ld KiB, VmHWM %ld KiB\n",
	       what, (t - *t0) / 1000, rss, hwm);
	*t0 = t;
}

/*
 * Where the CLI's fixed cost goes: time and memory of each step of a
 * snapshot in one process, as NOTEs on the CLI rows.
 */
static int cmd_openprof(const char *path)
{
	static const char *const progs[2] = { "snapshot", "batch" };
	struct memcgstat_result *res;
	struct memcgstat *h;
	libbpf_print_fn_t old;
	struct btf *btf;
	char why[1200];
	double t0 = now_us();
	int i;

	step("start", &t0);
	old = libbpf_set_print(silent_print);
	btf = btf__load_vmlinux_btf();
	libbpf_set_print(old);
	step("vmlinux BTF parsed (libbpf)", &t0);
	btf__free(btf);
	step("and freed", &t0);
	h = open_h(MEMCGSTAT_BACKEND_BPF, tree_stats, nr_tree_stats, Q_DEFAULT, why, sizeof(why));
	if (!h) {
		skip("7.open", "memcgstat_open", "%s", why);
		return 0;
	}
	step("memcgstat_open (bpf: probe, BTF, load)", &t0);
	/* what the verifier did, program by program */
	for (i = 0; i < 2; i++) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = memcgstat__testing_prog_fd(h, progs[i]);

		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		printf("NOTE\t7.open.stats\tloaded by %s: %s (%.15s), %u instructions, %u verified\n",
		       memcgstat__testing_loader(h), progs[i], info.name, info.xlated_prog_len / 8,
		       info.verified_insns);
	}
	if (!memcgstat_snapshot(h, path, NULL, 0, &res))
		memcgstat_result_free(res);
	step("first snapshot", &t0);
	if (!memcgstat_snapshot(h, path, NULL, 0, &res))
		memcgstat_result_free(res);
	step("second snapshot", &t0);
	memcgstat_close(h);
	step("memcgstat_close", &t0);
	return 0;
}

/*
 * N snapshots of CGROUP (or with @single, N reads of every counter of it,
 * on the library's default query path) and nothing else: a workload to
 * profile (bench/vm-profile.sh)
 */
static int cmd_loop(const char *path, long n, bool single)
{
	struct memcgstat_result *res;
	struct memcgstat *h;
	const char **keys;
	char why[1200];
	size_t nr;
	long i;
	int err;

	if (single) {
		nr = stat_keys(path, &keys, true);
		h = open_h(MEMCGSTAT_BACKEND_BPF, keys, nr, Q_DEFAULT, why, sizeof(why));
	} else {
		h = open_h(MEMCGSTAT_BACKEND_BPF, tree_stats, nr_tree_stats, Q_DEFAULT, why, sizeof(why));
	}
	if (!h)
		die("%s", why);
	for (i = 0; i < n; i++) {
		err = single ? memcgstat_read(h, path, &res) :
			       memcgstat_snapshot(h, path, NULL, 0, &res);
		if (err)
			die("%s: %s", single ? "read" : "snapshot", memcgstat_errmsg(h));
		decode(h, res);
		memcgstat_result_free(res);
	}
	memcgstat_close(h);
	return 0;
}

/*
 * The write side in instructions (MCSBENCH_INSN=1, after the timed rounds):
 * FAULT_INSN_ROUNDS more rounds, each fault alone between the markers of
 * id 0 and each round's MADV_DONTNEED between those of id 1, so that the
 * plugin's per-pair minimum of id 0 is one fault on its common path (no
 * tick, no page-table allocation) and that of id 1 one unmapping of the
 * whole file. Direct markers, not insn_begin(): this process counts
 * nothing else, and a direct pair counts 0 when empty. Prints
 *
 *   FAULTINSN pages-per-round rounds
 */
#define FAULT_INSN_ROUNDS	3

static void fault_insn(volatile char *p, long npages, long page)
{
	long i;
	int r;

	for (r = 0; r < FAULT_INSN_ROUNDS; r++) {
		usleep(INSN_DRAIN * insn.pause_us);
		for (i = 0; i < npages; i++) {
			mcs_insn_begin(0);
			p[i * page] = r;
			mcs_insn_end(0);
		}
		mcs_insn_begin(1);
		if (madvise((void *)p, npages * page, MADV_DONTNEED))
			die("madvise: %s", strerror(errno));
		mcs_insn_end(1);
	}
	printf("FAULTINSN\t%ld\t%d\n", npages, FAULT_INSN_ROUNDS);
}

/*
 * The write side: a file on tmpfs mapped MAP_SHARED; every round touches
 * each page (a minor fault mapping the page-cache page, with its memcg
 * stat updates) and drops the mappings with MADV_DONTNEED. Prints the
 * median time per page fault and its min..max over the rounds.
 */
static int cmd_fault(long mb, int nrounds)
{
	long page = sysconf(_SC_PAGESIZE), npages = mb * (1 << 20) / page, i;
	double t[MAX_ROUNDS], t0;
	const char *dir = getenv("TMPDIR");
	char path[4096];
	volatile char *p;
	int fd, r;

	if (nrounds > MAX_ROUNDS)
		nrounds = MAX_ROUNDS;
	snprintf(path, sizeof(path), "%s/mcsbench-fault.XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0 || ftruncate(fd, npages * page))
		die("cannot create %s: %s", path, strerror(errno));
	unlink(path);
	p = mmap(NULL, npages * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	for (r = -1; r < nrounds; r++) {	/* round -1 allocates the pages */
		t0 = now_us();
		for (i = 0; i < npages; i++)
			p[i * page] = r;
		if (madvise((void *)p, npages * page, MADV_DONTNEED))
			die("madvise: %s", strerror(errno));
		if (r >= 0)
			t[r] = (now_us() - t0) * 1000 / npages;
	}
	printf("FAULT\t%.2f", median(t, nrounds));
	qsort(t, nrounds, sizeof(*t), cmp_d);
	printf("\t%.2f\t%.2f\t%d\t%ld\n", t[0], t[nrounds - 1], nrounds, npages);
	if (insn.on)
		fault_insn(p, npages, page);
	return 0;
}

static void write_file(const char *dir, const char *file, const char *s)
{
	char p[4096];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	fd = open(p, O_WRONLY);
	if (fd < 0)
		return;		/* v1 has no cgroup.subtree_control */
	if (write(fd, s, strlen(s)) < 0)
		die("cannot write %s to %s: %s", s, p, strerror(errno));
	close(fd);
}

static int cmd_mktree(const char *dir, long n)
{
	char p[4096];
	long i;

	if (mkdir(dir, 0755) && errno != EEXIST)
		die("mkdir %s: %s", dir, strerror(errno));
	if (n > 1)
		write_file(dir, "cgroup.subtree_control", "+memory");
	for (i = 1; i < n; i++) {
		snprintf(p, sizeof(p), "%s/c%ld", dir, i);
		if (mkdir(p, 0755) && errno != EEXIST)
			die("mkdir %s: %s", p, strerror(errno));
	}
	return 0;
}

static long env_num(const char *name, long def, long min, long max)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		die("%s=%s: want a number from %ld to %ld", name, s, min, max);
	return v;
}

static long arg_num(const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		die("'%s': want a number from %ld to %ld", s, min, max);
	return v;
}

/* One GET /metrics from the exporter on 127.0.0.1:port (c->nr), to EOF. */
static int op_scrape(const struct ctx *c)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n";
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(c->nr),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	size_t got = 0;
	ssize_t n;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), err = 0;

	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    write(fd, req, sizeof(req) - 1) != (ssize_t)sizeof(req) - 1)
		err = -errno;
	while (!err && (n = read(fd, fbuf, sizeof(fbuf))) > 0) {
		if (!got && strncmp(fbuf, "HTTP/1.1 200", 12))
			err = -EIO;
		got += n;
	}
	close(fd);
	sink += got;
	return err ? err : got ? 0 : -EIO;
}

/* An exporter on @port: its pid, once it answers a scrape; else -1. */
static pid_t start_exporter(const char *exporter, const char *backend, int port,
			    const char *path)
{
	char listen[32];
	struct ctx c = { .nr = port };
	pid_t pid;
	int i;

	snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
	pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0)
			dup2(fd, 2);
		execl(exporter, exporter, "--backend", backend, "-s", stats_arg, "--listen", listen,
		      path, (char *)NULL);
		_exit(127);
	}
	for (i = 0; pid > 0 && i < 600; i++) {
		if (!op_scrape(&c))
			return pid;
		usleep(100000);
	}
	if (pid > 0) {
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
	}
	return -1;
}

/*
 * The exporter's cost per scrape of the tree at @path, the bpf backend
 * against the text backend: one GET /metrics, the exporter's snapshot and
 * exposition and the client's read of it (instructions: both processes).
 */
static int cmd_scrape(const char *path, const char *exporter)
{
	static struct ctx c_bpf, c_text;
	struct op o_bpf, o_text;
	char id[64], label[1200];
	size_t n = count_tree(path);
	pid_t bpf = start_exporter(exporter, "bpf", 19743, path);
	pid_t text = start_exporter(exporter, "text", 19744, path);

	snprintf(id, sizeof(id), "8.scrape.%zu", n);
	snprintf(label, sizeof(label), "exporter, one scrape of a %zu-cgroup tree, %zu stats (%s)",
		 n, nr_tree_stats, stats_arg);
	if (bpf < 0 || text < 0) {
		skip(id, label, "an exporter (%s) did not answer", bpf < 0 ? "bpf" : "text");
	} else {
		ctx_init(&c_bpf, path);
		c_bpf.nr = 19743;
		ctx_init(&c_text, path);
		c_text.nr = 19744;
		o_bpf = (struct op){ "memcgstat-exporter --backend bpf: GET /metrics", op_scrape, NULL, &c_bpf };
		o_text = (struct op){ "memcgstat-exporter --backend text: GET /metrics", op_scrape, NULL, &c_text };
		compare(id, label, &o_bpf, &o_text);
	}
	if (bpf > 0)
		kill(bpf, SIGTERM);
	if (text > 0)
		kill(text, SIGTERM);
	if (bpf > 0)
		waitpid(bpf, NULL, 0);
	if (text > 0)
		waitpid(text, NULL, 0);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: mcsbench single CGROUP [BATCHDIR] | tree CGROUP | dirty CGROUP PAGES |\n"
		"       cli RUNS CLI STATS CGROUP | oneshot CGROUP CLI | openprof CGROUP | snaploop CGROUP N |\n"
		"       readloop CGROUP N | fault MB ROUNDS | mktree DIR N | rmtree DIR | insn-profile-id |\n"
		"       scrape CGROUP EXPORTER\n"
		"env: MCSBENCH_ROUNDS (7), MCSBENCH_BATCH_MS (20), MCSBENCH_STATS (anon,file,shmem,pgfault),\n"
		"     MCSBENCH_INSN (0 or 1), MCSBENCH_INSN_OPS (10), MCSBENCH_INSN_PAUSE_MS (20),\n"
		"     MCSBENCH_INSN_NEXT (FILE), MCSBENCH_INSN_PROFILE (ROW[/A|/B])\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static char stats[1024];
	const char *cmd = argc > 1 ? argv[1] : "";
	const char *s = getenv("MCSBENCH_STATS");

	rounds = env_num("MCSBENCH_ROUNDS", 7, 1, MAX_ROUNDS);
	batch_us = env_num("MCSBENCH_BATCH_MS", 20, 1, 100000) * 1000.0;
	snprintf(stats, sizeof(stats), "%s", s && *s ? s : "anon,file,shmem,pgfault");
	snprintf(stats_arg, sizeof(stats_arg), "%s", stats);
	nr_tree_stats = split_stats(stats, tree_stats, 64);
	setvbuf(stdout, NULL, _IOLBF, 0);
	insn_init();

	if (!strcmp(cmd, "single") && (argc == 3 || argc == 4))
		return cmd_single(argv[2], argc == 4 ? argv[3] : NULL);
	if (!strcmp(cmd, "tree") && argc == 3)
		return cmd_tree(argv[2]);
	if (!strcmp(cmd, "dirty") && argc == 4)
		return cmd_dirty(argv[2], arg_num(argv[3], 1, 1 << 20));
	if (!strcmp(cmd, "cli") && argc == 6)
		return cmd_cli(arg_num(argv[2], 1, MAX_ROUNDS), argv[3], argv[4], argv[5]);
	if (!strcmp(cmd, "insn-profile-id") && argc == 2)
		return printf("%d\n", INSN_ID_PROFILE) < 0;
	if (!strcmp(cmd, "oneshot") && argc == 4)
		return cmd_oneshot(argv[2], argv[3]);
	if (!strcmp(cmd, "scrape") && argc == 4)
		return cmd_scrape(argv[2], argv[3]);
	if (!strcmp(cmd, "snaploop") && argc == 4)
		return cmd_loop(argv[2], arg_num(argv[3], 1, 1 << 30), false);
	if (!strcmp(cmd, "readloop") && argc == 4)
		return cmd_loop(argv[2], arg_num(argv[3], 1, 1 << 30), true);
	if (!strcmp(cmd, "openprof") && argc == 3)
		return cmd_openprof(argv[2]);
	if (!strcmp(cmd, "fault") && argc == 4)
		return cmd_fault(arg_num(argv[2], 1, 1 << 16), arg_num(argv[3], 1, MAX_ROUNDS));
	if (!strcmp(cmd, "mktree") && argc == 4)
		return cmd_mktree(argv[2], arg_num(argv[3], 1, 1 << 20));
	if (!strcmp(cmd, "rmtree") && argc == 3) {
		walk_tree(argv[2], true);
		return 0;
	}
	usage();
	return 2;
}
