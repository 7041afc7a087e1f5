// SPDX-License-Identifier: GPL-2.0
/*
 * libmemcgstat's reads while memcgs come and go. One thread creates and
 * removes MEMCGSTAT_CHURN_N cgroups (default 3000) three levels deep below
 * one top cgroup, some leaves with a task that charges memory to them and
 * then exits or is killed while the leaf is removed; meanwhile other threads
 * take whole-tree snapshots of the top, read batches of the ids just
 * created (many of them being removed), and read leaves by path. Every row
 * must be the cgroup's values or a clean "gone": an idle leaf reads exactly
 * what an idle leaf's files say, a busy cgroup reads values that could be
 * real, a removed one reads -ENOENT (or -ENODATA: its memcg was already
 * killed when the program got there) with every value NA. Afterwards the
 * top's nr_dying_descendants comes back to 0 within DYING_WAIT_S seconds.
 *
 * MEMCGSTAT_CHURN_READER_NICE gives the readers that nice value: they read
 * continuously still, in what time the churn leaves them (the debug
 * kernel's 100,000 cgroups in make test-debug).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "test_progs.h"
#include "memcg_util.h"
#include "memcgstat.h"

#define SLOTS		48	/* units alive at a time: u<k>/m/<leaf> */
#define TASK_EVERY	8	/* one unit in 8 has a task in its leaf */
#define RING		256	/* ids the batch reader picks from */
#define BATCH		64
#define IDLE_BIT	(1ULL << 63)	/* ring entry: the id is an idle leaf */
#define PLAUSIBLE	(1ULL << 40)	/* no byte or event count of the VM gets here */
#define DYING_WAIT_S	60
#define ANON_KIB	1024
#define FILE_KIB	256

/*
 * Every stat a leaf can move, and some it cannot (events); those of them
 * the hierarchy's files have (cgroup v1 lacks kernel, percpu, events_*).
 */
static const char *const wanted[] = {
	"anon", "file", "kernel", "shmem", "sock", "percpu", "file_mapped",
	"pgfault", "pgmajfault", "usage", "events_max", "events_oom_kill",
};
static const char *stats[ARRAY_SIZE(wanted)];
static size_t nr_stats;
#define NR_STATS nr_stats

struct unit {
	bool live, task;
	pid_t pid;
	int go;		/* the task's pipe: closed, it exits */
};

struct reader {
	const char *name;
	unsigned long reads, rows, ok, gone, nodata, errors, bad;
	char first_bad[256];
};

static struct {
	char *top;			/* absolute */
	const char *rel;		/* below the hierarchy mount */
	uint64_t ref[ARRAY_SIZE(wanted)];	/* an idle leaf, as its files say */
	uint64_t ref_id;
	atomic_bool stop;
	_Atomic uint64_t ring[RING];
	atomic_uint ring_pos;
	atomic_uint generation;		/* units created so far */
	unsigned long created, removed, tasks, killed, busy_retries;
	double secs;
	bool ready;
} cs;

static struct reader snap_r = { .name = "snapshot" }, batch_r = { .name = "batch" },
	path_r = { .name = "path" };

static struct memcgstat *open_handle(enum memcgstat_backend backend, enum memcgstat_query query)
{
	return lib_open(backend, query, stats, NR_STATS);
}

static void note_bad(struct reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note_bad(struct reader *r, const char *fmt, ...)
{
	va_list ap;

	if (!r->bad++) {
		va_start(ap, fmt);
		vsnprintf(r->first_bad, sizeof(r->first_bad), fmt, ap);
		va_end(ap);
	}
}

static bool is_idle_path(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash && (!strcmp(slash, "/idle") || !strcmp(slash, "/ref"));
}

/* One row that read: an idle leaf's values equal the reference's, others are plausible. */
static void check_row(struct reader *r, uint64_t id, const uint64_t *v, bool idle)
{
	size_t c;

	r->ok++;
	for (c = 0; c < NR_STATS; c++) {
		if (idle && v[c] != cs.ref[c]) {
			note_bad(r, "idle cgroup %llu: %s %llu, an idle leaf's file says %llu",
				 (unsigned long long)id, stats[c], (unsigned long long)v[c],
				 (unsigned long long)cs.ref[c]);
			return;
		}
		if (!idle && v[c] != MEMCGSTAT_NA && v[c] != MEMCGSTAT_MAX && v[c] >= PLAUSIBLE) {
			note_bad(r, "cgroup %llu: %s %llu is no value of this VM",
				 (unsigned long long)id, stats[c], (unsigned long long)v[c]);
			return;
		}
	}
}

/* A row that did not read: gone (-ENOENT) or killed (-ENODATA), every value NA. */
static void check_gone(struct reader *r, uint64_t id, int status, const uint64_t *v)
{
	size_t c;

	if (status == -ENOENT)
		r->gone++;
	else if (status == -ENODATA)
		r->nodata++;
	else
		return note_bad(r, "cgroup %llu: status %d", (unsigned long long)id, status);
	for (c = 0; v && c < NR_STATS; c++)
		if (v[c] != MEMCGSTAT_NA)
			return note_bad(r, "removed cgroup %llu: %s %llu, not NA",
					(unsigned long long)id, stats[c], (unsigned long long)v[c]);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A reader thread at MEMCGSTAT_CHURN_READER_NICE, if set. */
static void reader_nice(struct reader *r)
{
	const char *s = getenv("MEMCGSTAT_CHURN_READER_NICE");

	if (s && *s && setpriority(PRIO_PROCESS, syscall(SYS_gettid), atoi(s)))
		note_bad(r, "setpriority(%s): %s", s, strerror(errno));
}

/* Whole-tree snapshots of the top: each cgroup once, the top and ref in it. */
static void *snapshot_thread(void *arg)
{
	struct memcgstat *h = arg;
	struct memcgstat_result *res = memcgstat_result_new(h);
	uint64_t *ids = NULL;
	size_t cap = 0, n, i;
	bool ref_seen;

	if (!res) {
		note_bad(&snap_r, "memcgstat_result_new failed");
		return NULL;
	}
	reader_nice(&snap_r);
	while (!atomic_load(&cs.stop)) {
		snap_r.reads++;
		if (memcgstat_snapshot_into(h, cs.rel, NULL, 0, res)) {
			if (!snap_r.errors++)
				note_bad(&snap_r, "snapshot: %s", memcgstat_errmsg(h));
			continue;
		}
		n = memcgstat_result_count(res);
		snap_r.rows += n;
		if (n > cap) {
			cap = 2 * n;
			free(ids);
			ids = malloc(cap * sizeof(*ids));
			if (!ids)
				break;
		}
		ref_seen = false;
		for (i = 0; i < n; i++) {
			const char *path = memcgstat_result_path(res, i);

			ids[i] = memcgstat_result_id(res, i);
			ref_seen |= ids[i] == cs.ref_id;
			if (!path || strncmp(path, cs.rel, strlen(cs.rel)))
				note_bad(&snap_r, "row %zu: path %s, not below %s", i,
					 path ? path : "(none)", cs.rel);
			check_row(&snap_r, ids[i], memcgstat_result_values(res, i), is_idle_path(path));
		}
		if (!ref_seen)
			note_bad(&snap_r, "a snapshot of %zu rows lacks the idle reference", n);
		qsort(ids, n, sizeof(*ids), cmp_u64);
		for (i = 1; i < n; i++)
			if (ids[i] == ids[i - 1])
				note_bad(&snap_r, "cgroup %llu twice in a snapshot",
					 (unsigned long long)ids[i]);
	}
	free(ids);
	memcgstat_result_free(res);
	return NULL;
}

struct batch_arg {
	struct memcgstat *h[2];	/* syscall path, iterator path */
};

/* Batches of the ids created last, on both query paths by turns. */
static void *batch_thread(void *arg)
{
	struct batch_arg *a = arg;
	struct memcgstat_result *res[2] = { memcgstat_result_new(a->h[0]), memcgstat_result_new(a->h[1]) };
	uint64_t ids[BATCH];
	bool idle[BATCH];
	unsigned int k, i, turn = 0;

	if (!res[0] || !res[1]) {
		note_bad(&batch_r, "memcgstat_result_new failed");
		goto out;
	}
	reader_nice(&batch_r);
	while (!atomic_load(&cs.stop)) {
		unsigned int pos = atomic_load(&cs.ring_pos), w = turn++ & 1;
		size_t n = 0;

		/* the newest ids, and some of the oldest, about to be removed */
		for (k = 0; k < BATCH && k * 3 < pos; k++) {
			uint64_t e = atomic_load(&cs.ring[(pos - 1 - k * 3) % RING]);

			if (!e)
				continue;
			idle[n] = e & IDLE_BIT;
			ids[n++] = e & ~IDLE_BIT;
		}
		if (!n) {
			usleep(1000);
			continue;
		}
		batch_r.reads++;
		if (memcgstat_read_ids_into(a->h[w], ids, n, res[w])) {
			if (!batch_r.errors++)
				note_bad(&batch_r, "read_ids: %s", memcgstat_errmsg(a->h[w]));
			continue;
		}
		if (memcgstat_result_count(res[w]) != n) {
			note_bad(&batch_r, "%zu rows for %zu ids", memcgstat_result_count(res[w]), n);
			continue;
		}
		batch_r.rows += n;
		for (i = 0; i < n; i++) {
			int status = memcgstat_result_status(res[w], i);
			const uint64_t *v = memcgstat_result_values(res[w], i);

			if (memcgstat_result_id(res[w], i) != ids[i])
				note_bad(&batch_r, "row %u: id %llu, asked %llu", i,
					 (unsigned long long)memcgstat_result_id(res[w], i),
					 (unsigned long long)ids[i]);
			else if (status)
				check_gone(&batch_r, ids[i], status, v);
			else
				check_row(&batch_r, ids[i], v, idle[i]);
		}
	}
out:
	memcgstat_result_free(res[0]);
	memcgstat_result_free(res[1]);
	return NULL;
}

struct path_arg {
	struct memcgstat *bpf, *text;
};

/* Leaves and their parents by path, on bpf and on text: values or gone. */
static void *path_thread(void *arg)
{
	static const char *const leaves[] = { "m/idle", "m/task", "m" };
	struct path_arg *a = arg;
	struct memcgstat_result *res = memcgstat_result_new(a->bpf);
	struct memcgstat_result *tres = memcgstat_result_new(a->text);
	unsigned int turn = 0;
	char path[256];

	if (!res || !tres) {
		note_bad(&path_r, "memcgstat_result_new failed");
		goto out;
	}
	reader_nice(&path_r);
	while (!atomic_load(&cs.stop)) {
		unsigned int g = atomic_load(&cs.generation), t = turn++;
		const char *leaf = leaves[t % 3];
		bool idle = t % 3 == 0, text = t % 4 == 3;
		struct memcgstat *h = text ? a->text : a->bpf;
		struct memcgstat_result *r = text ? tres : res;
		int err;

		/* the unit made last, or the next to go */
		snprintf(path, sizeof(path), "%s/u%u/%s", cs.rel,
			 (t & 8 ? g - 1 : g) % SLOTS, leaf);
		path_r.reads++;
		err = memcgstat_read_into(h, path, r);
		if (!err) {
			path_r.rows++;
			check_row(&path_r, memcgstat_result_id(r, 0), memcgstat_result_values(r, 0), idle);
		} else if (err == -ENOENT || err == -ENODATA) {
			/* -ENODEV too, on text, before c5f4ad4: no more */
			check_gone(&path_r, 0, err, NULL);
		} else {
			path_r.errors++;
			note_bad(&path_r, "%s read of %s: %s", text ? "text" : "bpf", path,
				 memcgstat_errmsg(h));
		}
	}
out:
	memcgstat_result_free(res);
	memcgstat_result_free(tres);
	return NULL;
}

static void publish(uint64_t id, bool idle)
{
	unsigned int pos = atomic_fetch_add(&cs.ring_pos, 1);

	if (id)
		atomic_store(&cs.ring[pos % RING], id | (idle ? IDLE_BIT : 0));
}

/*
 * The task of a busy leaf: join it, charge anon and tmpfs memory to it,
 * say so, and wait for the pipe to close (then exit) or for SIGKILL. Only
 * async-signal-safe calls: the parent has threads.
 */
static void task_main(const char *leaf, int ready, int go, int k)
{
	char buf[4096] = "0", name[64];
	size_t i;
	char *p;
	int fd;

	/* "0": the writer itself */
	if (cg_write(leaf, "cgroup.procs", "0"))
		_exit(1);
	p = mmap(NULL, ANON_KIB << 10, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(1);
	for (i = 0; i < ANON_KIB << 10; i += 4096)
		p[i] = 1;
	/* the page cache stays charged after the task: the memcg lingers dying */
	snprintf(name, sizeof(name), "/tmp/memcg-churn-%d-%d", getppid(), k);
	fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	for (i = 0; fd >= 0 && i < FILE_KIB / 4; i++)
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			_exit(1);
	if (fd < 0 || close(fd) || write(ready, "", 1) != 1)
		_exit(1);
	while (read(go, buf, 1) > 0)
		;
	_exit(0);
}

static int unit_create(struct unit *u, int k, unsigned int gen)
{
	char path[256], *end;
	int ready[2], go[2];
	char c;

	u->task = gen % TASK_EVERY == TASK_EVERY - 1;
	end = path + snprintf(path, sizeof(path), "%s/u%d", cs.top, k);
	if (mkdir(path, 0755))
		return -errno;
	cs.created++;
	publish(id_of(path), false);
	cg_write(path, "cgroup.subtree_control", "+memory");
	strcpy(end, "/m");
	if (mkdir(path, 0755))
		return -errno;
	cs.created++;
	publish(id_of(path), false);
	cg_write(path, "cgroup.subtree_control", "+memory");
	strcat(end, u->task ? "/task" : "/idle");
	if (mkdir(path, 0755))
		return -errno;
	cs.created++;
	publish(id_of(path), !u->task);
	u->live = true;
	if (!u->task)
		return 0;
	if (pipe2(ready, O_CLOEXEC))
		return -errno;
	if (pipe2(go, O_CLOEXEC)) {
		close(ready[0]);
		close(ready[1]);
		return -errno;
	}
	u->pid = fork();
	if (!u->pid) {
		/*
		 * Only these two pipes: a go pipe of another unit's task
		 * held open here would keep that task from its EOF.
		 */
		if (dup2(ready[1], 0) < 0 || dup2(go[0], 1) < 0 || close_range(3, ~0U, 0))
			_exit(1);
		task_main(path, 0, 1, k);
	}
	close(ready[1]);
	close(go[0]);
	u->go = go[1];
	if (u->pid < 0 || read(ready[0], &c, 1) != 1) {
		close(ready[0]);
		return -ECHILD;
	}
	close(ready[0]);
	cs.tasks++;
	return 0;
}

/* rmdir, again while the cgroup's last task is still leaving */
static int rmdir_busy(const char *path)
{
	double start = now();

	while (now() - start < 10) {
		if (!rmdir(path))
			return 0;
		if (errno != EBUSY)
			return -errno;
		cs.busy_retries++;
		usleep(100);
	}
	return -EBUSY;
}

static int unit_remove(struct unit *u, int k, unsigned int gen)
{
	char path[256], *end;
	int err;

	end = path + snprintf(path, sizeof(path), "%s/u%d", cs.top, k);
	snprintf(end, sizeof(path) - (end - path), "/m/%s", u->task ? "task" : "idle");
	if (u->task) {
		/* by turns: the task exits by itself, or is killed */
		if ((gen / TASK_EVERY) & 1) {
			kill(u->pid, SIGKILL);
			cs.killed++;
		}
		close(u->go);
	}
	err = rmdir_busy(path);
	if (u->task) {
		char name[64];

		waitpid(u->pid, NULL, 0);
		snprintf(name, sizeof(name), "/tmp/memcg-churn-%d-%d", getpid(), k);
		unlink(name);
	}
	if (err)
		return err;
	cs.removed++;
	strcpy(end, "/m");
	if (rmdir(path))
		return -errno;
	cs.removed++;
	*end = '\0';
	if (rmdir(path))
		return -errno;
	cs.removed++;
	u->live = false;
	return 0;
}

static unsigned long churn_n(void)
{
	const char *s = getenv("MEMCGSTAT_CHURN_N");
	char *end;
	unsigned long n;

	if (!s || !*s)
		return 3000;
	errno = 0;
	n = strtoul(s, &end, 10);
	return errno || *end || !n ? 3000 : n;
}

static bool same_as_ref(const struct memcgstat_result *r)
{
	const uint64_t *v = memcgstat_result_values(r, 0);
	size_t c;

	for (c = 0; c < NR_STATS; c++)
		if (v[c] != cs.ref[c]) {
			printf("  %s: %llu, text %llu\n", stats[c], (unsigned long long)v[c],
			       (unsigned long long)cs.ref[c]);
			return false;
		}
	return true;
}

/* The top, and an idle leaf whose files give the values every idle leaf reads. */
static void setup(void)
{
	struct memcgstat_opts all = { .sz = sizeof(all), .backend = MEMCGSTAT_BACKEND_TEXT };
	struct memcgstat *text, *bpf;
	struct memcgstat_result *r = NULL;
	char name[64], *ref = NULL;
	size_t c;

	if (!ASSERT_OK(memcgstat_open(&all, &text), memcgstat_errmsg(text))) {
		memcgstat_close(text);
		return;
	}
	for (c = nr_stats = 0; c < ARRAY_SIZE(wanted); c++)
		if (memcgstat_stat_available(text, wanted[c]) == 1)
			stats[nr_stats++] = wanted[c];
	memcgstat_close(text);

	snprintf(name, sizeof(name), "memcg-churn-%d", getpid());
	cs.top = cg_create(NULL, name);
	if (!ASSERT_OK_PTR(cs.top, "cg_create top"))
		return;
	cs.rel = cs.top + strlen(cg_root());
	if (cg_is_v2() && !ASSERT_OK(cg_write(cs.top, "cgroup.subtree_control", "+memory"), "+memory"))
		return;
	ref = cg_create(cs.top, "ref");
	if (!ASSERT_OK_PTR(ref, "cg_create ref"))
		return;
	cs.ref_id = id_of(ref);
	text = open_handle(MEMCGSTAT_BACKEND_TEXT, MEMCGSTAT_QUERY_AUTO);
	bpf = open_handle(MEMCGSTAT_BACKEND_BPF, MEMCGSTAT_QUERY_AUTO);
	if (!text || !bpf)
		goto out;
	if (!ASSERT_OK(memcgstat_read(text, ref, &r), memcgstat_errmsg(text)))
		goto out;
	for (c = 0; c < NR_STATS; c++)
		cs.ref[c] = memcgstat_result_values(r, 0)[c];
	memcgstat_result_free(r);
	r = NULL;
	if (!ASSERT_OK(memcgstat_read(bpf, ref, &r), memcgstat_errmsg(bpf)) ||
	    !ASSERT_TRUE(same_as_ref(r), "bpf reads the idle leaf as its files say"))
		goto out;
	cs.ready = true;
out:
	memcgstat_result_free(r);
	memcgstat_close(text);
	memcgstat_close(bpf);
	free(ref);
}

static void report(const struct reader *r)
{
	printf("  %s: %lu reads, %lu rows, %lu read, %lu gone, %lu nodata, %lu errors, %lu bad\n",
	       r->name, r->reads, r->rows, r->ok, r->gone, r->nodata, r->errors, r->bad);
	if (r->bad)
		printf("  %s: first bad: %s\n", r->name, r->first_bad);
}

static void churn(void)
{
	/* one handle per thread and query path: a handle is not shared */
	struct memcgstat *hs[5] = {
		open_handle(MEMCGSTAT_BACKEND_BPF, MEMCGSTAT_QUERY_AUTO),
		open_handle(MEMCGSTAT_BACKEND_BPF, MEMCGSTAT_QUERY_AUTO),
		open_handle(MEMCGSTAT_BACKEND_BPF, MEMCGSTAT_QUERY_AUTO),
		open_handle(MEMCGSTAT_BACKEND_BPF, MEMCGSTAT_QUERY_ITER),
		open_handle(MEMCGSTAT_BACKEND_TEXT, MEMCGSTAT_QUERY_AUTO),
	};
	struct batch_arg ba = { { hs[1], hs[3] } };
	struct path_arg pa = { hs[2], hs[4] };
	static struct unit units[SLOTS];
	unsigned long n = churn_n();
	pthread_t thr[3];
	int nthr = 0, err = 0, k, i;
	unsigned int gen = 0;
	unsigned long next_report = 0;
	double start;

	for (i = 0; i < 5; i++)
		if (!hs[i])
			goto out;
	if (!ASSERT_OK(pthread_create(&thr[nthr], NULL, snapshot_thread, hs[0]), "snapshot thread"))
		goto stop;
	nthr++;
	if (!ASSERT_OK(pthread_create(&thr[nthr], NULL, batch_thread, &ba), "batch thread"))
		goto stop;
	nthr++;
	if (!ASSERT_OK(pthread_create(&thr[nthr], NULL, path_thread, &pa), "path thread"))
		goto stop;
	nthr++;

	start = now();
	while (cs.created < n && !err) {
		k = gen % SLOTS;
		if (units[k].live)
			err = unit_remove(&units[k], k, gen);
		if (!err)
			err = unit_create(&units[k], k, gen);
		atomic_store(&cs.generation, ++gen);
		/* a long run's course in the log: every 10,000 */
		if (cs.created / 10000 != next_report) {
			next_report = cs.created / 10000;
			printf("  churn: %lu cgroups in %.0f s; reads: %lu snapshots, %lu batches, %lu paths; %lu bad, %lu errors\n",
			       cs.created, now() - start, snap_r.reads, batch_r.reads, path_r.reads,
			       snap_r.bad + batch_r.bad + path_r.bad,
			       snap_r.errors + batch_r.errors + path_r.errors);
			fflush(stdout);
		}
	}
	ASSERT_OK(err, "create and remove");
	for (k = 0; k < SLOTS; k++)
		if (units[k].live && !ASSERT_OK(unit_remove(&units[k], k, gen), "remove the last units"))
			break;
	cs.secs = now() - start;
stop:
	atomic_store(&cs.stop, true);
	for (i = 0; i < nthr; i++)
		pthread_join(thr[i], NULL);
	printf("  churn: %lu cgroups created, %lu removed, %lu with a task (%lu killed), %lu EBUSY retries, in %.1f s (%.0f cgroups/s)\n",
	       cs.created, cs.removed, cs.tasks, cs.killed, cs.busy_retries, cs.secs,
	       cs.secs > 0 ? cs.created / cs.secs : 0.0);
	report(&snap_r);
	report(&batch_r);
	report(&path_r);
	ASSERT_GE(cs.created, n, "cgroups created");
	ASSERT_EQ(cs.removed, cs.created, "cgroups removed");
	ASSERT_EQ(snap_r.bad + batch_r.bad + path_r.bad, 0, "reads neither right nor cleanly gone");
	ASSERT_EQ(snap_r.errors + batch_r.errors + path_r.errors, 0, "reads that failed");
	ASSERT_GT(snap_r.reads, 0, "snapshots taken");
	ASSERT_GT(batch_r.gone + batch_r.nodata, 0, "batch reads met removed cgroups");
	ASSERT_GT(batch_r.ok, 0, "batch reads met live cgroups");
out:
	for (i = 0; i < 5; i++)
		memcgstat_close(hs[i]);
}

/* The top's nr_dying_descendants back to 0, helped by reclaim; DYING_WAIT_S at most. */
static void dying_released(void)
{
	double start = now(), last_push = 0;
	unsigned long long dying = -1ULL;
	char *stat;

	if (!cg_is_v2()) {
		test__skip("cgroup.stat is a cgroup v2 file");
		return;
	}
	while (now() - start < DYING_WAIT_S) {
		stat = cg_read(cs.top, "cgroup.stat");
		dying = stat ? kv_get(stat, "nr_dying_descendants") : -1ULL;
		free(stat);
		if (!dying)
			break;
		if (now() - last_push > 2) {
			/* what holds a dying memcg is charged memory: reclaim it */
			cg_write(cs.top, "memory.reclaim", "1G");
			cg_write("/proc/sys/vm", "drop_caches", "3");
			last_push = now();
		}
		usleep(100000);
	}
	printf("  dying: %llu left after %.1f s\n", dying, now() - start);
	ASSERT_EQ(dying, 0, "nr_dying_descendants back to 0");
}

void test_memcg_churn(void)
{
	/* not selected, its failures are the test's */
	test__start_subtest("idle_reference");
	setup();
	if (test__start_subtest("reads_while_churning")) {
		if (cs.ready)
			churn();
		else
			test__skip("no idle reference");
	}
	if (test__start_subtest("dying_released")) {
		if (cs.secs > 0)
			dying_released();
		else
			test__skip("no churn ran");
	}
	if (cs.top)
		ASSERT_OK(cg_destroy(cs.top), "cg_destroy");
	free(cs.top);
}
