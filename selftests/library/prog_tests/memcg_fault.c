// SPDX-License-Identifier: GPL-2.0
/*
 * libmemcgstat's reads while the kernel's allocations fail: failslab and
 * fail_page_alloc (debugfs fault injection, the debug kernel's
 * kernel/debug.fragment) made to fail one in FAULT_PERCENT of the slab and
 * page allocations of the reading thread only (task-filter, and the
 * thread's make-it-fail), sleeping allocations too (ignore-gfp-wait=N),
 * while it takes snapshots, batch reads by id and reads by path of a quiet
 * tree. A read either fails with a negative errno and a message, or gives
 * exactly what it gave before the faults (the tree does not change, and
 * the values were checked against the text backend's reading of the
 * files); afterwards the same handles read it whole again. A splat fails
 * the run (vmtest.sh). SKIPs on a kernel without fault injection.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include "test_progs.h"
#include "memcg_util.h"
#include "memcgstat.h"

#define DEBUGFS		"/sys/kernel/debug"
#define FAULT_PERCENT	"10"
#define ROUNDS		400	/* of each kind of read */
#define LEAVES		6

static const char *const stats[] = {
	"anon", "file", "kernel", "shmem", "percpu", "pgfault", "usage", "events_max",
};
#define NR_STATS ARRAY_SIZE(stats)

static const char *const faults[] = { "failslab", "fail_page_alloc" };

static char *top, *leaf[LEAVES];
static uint64_t ids[LEAVES + 1];	/* the leaves, then the top */

/* A debugfs knob of one fault attribute; 0 or -errno. */
static int knob(const char *fault, const char *name, const char *val)
{
	char dir[128];

	snprintf(dir, sizeof(dir), DEBUGFS "/%s", fault);
	return cg_write(dir, name, val);
}

/* Whether debugfs has the fault attributes, mounting it if need be. */
static bool have_faults(void)
{
	struct stat st;

	if (stat(DEBUGFS "/failslab", &st))
		mount("debugfs", DEBUGFS, "debugfs", 0, NULL);
	return !stat(DEBUGFS "/failslab/probability", &st) &&
	       !stat(DEBUGFS "/fail_page_alloc/probability", &st);
}

static int faults_set(bool on)
{
	static const char *const knobs[][2] = {
		{ "task-filter", "Y" }, { "verbose", "0" }, { "interval", "1" },
		{ "times", "-1" }, { "space", "0" }, { "ignore-gfp-wait", "N" },
	};
	size_t f, k;
	int err = 0;

	for (f = 0; f < ARRAY_SIZE(faults); f++) {
		for (k = 0; on && !err && k < ARRAY_SIZE(knobs); k++)
			err = knob(faults[f], knobs[k][0], knobs[k][1]);
		if (!err && !strcmp(faults[f], "fail_page_alloc") && on)
			err = knob(faults[f], "ignore-gfp-highmem", "N");
		if (!err)
			err = knob(faults[f], "probability", on ? FAULT_PERCENT : "0");
	}
	return err;
}

static struct memcgstat *open_handle(enum memcgstat_backend backend, enum memcgstat_query query)
{
	return lib_open(backend, query, stats, NR_STATS);
}

/* The expected rows: what the snapshot read before the faults, by id. */
static struct memcgstat_result *want;

static const uint64_t *want_of(uint64_t id)
{
	size_t i;

	for (i = 0; i < memcgstat_result_count(want); i++)
		if (memcgstat_result_id(want, i) == id)
			return memcgstat_result_values(want, i);
	return NULL;
}

struct tally {
	unsigned long ok, failed, wrong;
	int errs[4];			/* the first distinct errnos */
	char first_wrong[200];
	char first_msg[200];
};

static void failed(struct tally *t, struct memcgstat *h, int err)
{
	int i;

	t->failed++;
	/* the tree is there, has memcgs and does not change: no allocation failure says otherwise */
	if (err >= 0 || err == -ENOENT || err == -ENODATA || err == -ENOTDIR ||
	    !*memcgstat_errmsg(h)) {
		if (t->wrong++)
			return;
		snprintf(t->first_wrong, sizeof(t->first_wrong), "failed with %d, message '%s'",
			 err, memcgstat_errmsg(h));
		return;
	}
	for (i = 0; i < 4 && t->errs[i] && t->errs[i] != err; i++)
		;
	if (i < 4 && !t->errs[i])
		t->errs[i] = err;
	if (!*t->first_msg)
		snprintf(t->first_msg, sizeof(t->first_msg), "%s", memcgstat_errmsg(h));
}

/* Every row of @res equal to the one before the faults; @n rows wanted. */
static void check(struct tally *t, const struct memcgstat_result *res, size_t n)
{
	size_t i, c;

	if (memcgstat_result_count(res) != n) {
		if (!t->wrong++)
			snprintf(t->first_wrong, sizeof(t->first_wrong), "%zu rows, not %zu",
				 memcgstat_result_count(res), n);
		return;
	}
	for (i = 0; i < n; i++) {
		const uint64_t *v = memcgstat_result_values(res, i);
		const uint64_t *w = want_of(memcgstat_result_id(res, i));

		for (c = 0; c < NR_STATS; c++) {
			if (w && !memcgstat_result_status(res, i) && v[c] == w[c])
				continue;
			if (!t->wrong++)
				snprintf(t->first_wrong, sizeof(t->first_wrong),
					 "row %zu (id %llu, status %d): %s %llu, before %llu", i,
					 (unsigned long long)memcgstat_result_id(res, i),
					 memcgstat_result_status(res, i), stats[c],
					 (unsigned long long)v[c], w ? (unsigned long long)w[c] : 0ULL);
			return;
		}
	}
	t->ok++;
}

struct faulty {
	struct memcgstat *snap, *batch, *iter;
	struct tally t[3];	/* snapshot, batch by id (syscall, iterator), by path */
	int setup_err;
};

/* The reader, the only task whose allocations fail. */
static void *faulty_reader(void *arg)
{
	struct faulty *f = arg;
	struct memcgstat_result *rs = memcgstat_result_new(f->snap);
	struct memcgstat_result *rb = memcgstat_result_new(f->batch);
	struct memcgstat_result *ri = memcgstat_result_new(f->iter);
	int i, err;

	if (!rs || !rb || !ri) {
		f->setup_err = -ENOMEM;
		goto out;
	}
	f->setup_err = cg_write("/proc/thread-self", "make-it-fail", "1");
	if (f->setup_err)
		goto out;
	for (i = 0; i < ROUNDS; i++) {
		err = memcgstat_snapshot_into(f->snap, top, NULL, 0, rs);
		if (err)
			failed(&f->t[0], f->snap, err);
		else
			check(&f->t[0], rs, LEAVES + 1);
		err = memcgstat_read_ids_into(i & 1 ? f->iter : f->batch, ids, LEAVES + 1,
					      i & 1 ? ri : rb);
		if (err)
			failed(&f->t[1], i & 1 ? f->iter : f->batch, err);
		else
			check(&f->t[1], i & 1 ? ri : rb, LEAVES + 1);
		err = memcgstat_read_into(f->batch, leaf[i % LEAVES], rb);
		if (err)
			failed(&f->t[2], f->batch, err);
		else
			check(&f->t[2], rb, 1);
	}
	cg_write("/proc/thread-self", "make-it-fail", "0");
out:
	memcgstat_result_free(rs);
	memcgstat_result_free(rb);
	memcgstat_result_free(ri);
	return NULL;
}

static int make_tree(void)
{
	char name[64];
	int i;

	snprintf(name, sizeof(name), "memcgstat_fault_%d", getpid());
	if (cg_create_tree(name, "l", LEAVES, &top, leaf))
		return -1;
	for (i = 0; i < LEAVES; i++)
		ids[i] = id_of(leaf[i]);
	ids[LEAVES] = id_of(top);
	return 0;
}

static void report(const char *what, const struct tally *t)
{
	printf("  %s: %lu equal to before, %lu failed (errnos %d %d %d %d), %lu wrong\n",
	       what, t->ok, t->failed, t->errs[0], t->errs[1], t->errs[2], t->errs[3], t->wrong);
	if (*t->first_msg)
		printf("  %s: first error: %s\n", what, t->first_msg);
	if (t->wrong)
		printf("  %s: first wrong: %s\n", what, t->first_wrong);
}

static void reads_under_faults(void)
{
	struct faulty f = {
		.snap = open_handle(MEMCGSTAT_BACKEND_BPF, MEMCGSTAT_QUERY_AUTO),
		.batch = open_handle(MEMCGSTAT_BACKEND_BPF, MEMCGSTAT_QUERY_AUTO),
		.iter = open_handle(MEMCGSTAT_BACKEND_BPF, MEMCGSTAT_QUERY_ITER),
	};
	struct memcgstat *text = open_handle(MEMCGSTAT_BACKEND_TEXT, MEMCGSTAT_QUERY_AUTO);
	struct memcgstat_result *tr = NULL, *after = NULL;
	struct cg_child child = {};
	pthread_t thr;
	size_t i, c;
	bool on = false;

	if (!f.snap || !f.batch || !f.iter || !text)
		goto out;
	if (!ASSERT_OK(make_tree(), "make the tree") ||
	    !ASSERT_OK(cg_run(leaf[0], touch_anon, (void *)4, &child), "a task with 4 MiB in l0"))
		goto out;
	/*
	 * What the tree reads once settled (two snapshots across the 2 s
	 * periodic flush agree), and that its files say the same.
	 */
	for (i = 0; i < 5; i++) {
		struct tally t = {};

		memcgstat_result_free(want);
		want = after;
		after = NULL;
		if (!ASSERT_OK(memcgstat_snapshot(f.snap, top, NULL, 0, &after), memcgstat_errmsg(f.snap)))
			goto out;
		if (want && (check(&t, after, LEAVES + 1), !t.wrong))
			break;
		sleep(3);
	}
	memcgstat_result_free(after);
	after = NULL;
	if (!ASSERT_OK_PTR(want, "a settled snapshot") ||
	    !ASSERT_EQ(memcgstat_result_count(want), LEAVES + 1, "rows before the faults") ||
	    !ASSERT_OK(memcgstat_snapshot(text, top, NULL, 0, &tr), memcgstat_errmsg(text)) ||
	    !ASSERT_EQ(memcgstat_result_count(tr), LEAVES + 1, "text rows"))
		goto out;
	for (i = 0; i < LEAVES + 1; i++) {
		const uint64_t *w = want_of(memcgstat_result_id(tr, i));

		for (c = 0; w && c < NR_STATS; c++)
			if (w[c] != memcgstat_result_values(tr, i)[c])
				break;
		if (!ASSERT_TRUE(w && c == NR_STATS, "bpf reads the quiet tree as its files say")) {
			if (w)
				printf("  %s: %s %llu, file %llu\n", memcgstat_result_path(tr, i),
				       stats[c], (unsigned long long)w[c],
				       (unsigned long long)memcgstat_result_values(tr, i)[c]);
			goto out;
		}
	}

	if (!ASSERT_OK(faults_set(true), "enable failslab and fail_page_alloc"))
		goto out;
	on = true;
	if (!ASSERT_OK(pthread_create(&thr, NULL, faulty_reader, &f), "pthread_create"))
		goto out;
	pthread_join(thr, NULL);
	ASSERT_OK(faults_set(false), "disable the faults");
	on = false;
	if (!ASSERT_OK(f.setup_err, "the reader's make-it-fail"))
		goto out;
	report("snapshot", &f.t[0]);
	report("by id", &f.t[1]);
	report("by path", &f.t[2]);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(f.t[i].wrong, 0, "reads neither equal to before nor a library error");
	ASSERT_GT(f.t[0].failed + f.t[1].failed + f.t[2].failed, 0, "reads the faults failed");
	ASSERT_GT(f.t[0].ok + f.t[1].ok + f.t[2].ok, 0, "reads that went through");

	/* the handles survive their failed reads */
	if (ASSERT_OK(memcgstat_snapshot(f.snap, top, NULL, 0, &after), memcgstat_errmsg(f.snap))) {
		struct tally t = {};

		check(&t, after, LEAVES + 1);
		ASSERT_EQ(t.wrong, 0, "a snapshot after the faults");
		if (t.wrong)
			printf("  after: %s\n", t.first_wrong);
	}
out:
	if (on)
		faults_set(false);
	cg_child_finish(&child);
	memcgstat_result_free(after);
	memcgstat_result_free(tr);
	memcgstat_result_free(want);
	want = NULL;
	memcgstat_close(f.snap);
	memcgstat_close(f.batch);
	memcgstat_close(f.iter);
	memcgstat_close(text);
	if (top)
		cg_destroy(top);
	free(top);
	for (i = 0; i < LEAVES; i++)
		free(leaf[i]);
}

void test_memcg_fault(void)
{
	if (!test__start_subtest("reads_under_faults"))
		return;
	if (!cg_is_v2()) {
		test__skip("the syscall path and reads by id are cgroup v2's");
		return;
	}
	if (!have_faults()) {
		test__skip("no failslab and fail_page_alloc in debugfs (kernel without CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC, CONFIG_FAULT_INJECTION_DEBUG_FS: the debug kernel has them)");
		return;
	}
	reads_under_faults();
}
