// SPDX-License-Identifier: GPL-2.0
/*
 * Generate one kind of memory activity in a fresh cgroup, stop, then every
 * counter memory.stat, memory.events, memory.numa_stat and memory.current
 * (v1: memory.stat and memory.usage_in_bytes) print for it must equal what
 * the kfuncs return.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "test_progs.h"
#include "memcg_util.h"

#define MiB (1ULL << 20)

static const char *datafile(void)
{
	return getenv("MEMCGSTAT_DATAFILE") ?: "/proc/self/exe";
}

/*
 * Read bytes [arg*8M, arg*8M + 8M) of the data file into the page cache.
 * The subtests use chunks 0, 2 and 4: a gap keeps one chunk's readahead out
 * of the next, so each finds its pages uncached and charges them itself.
 */
static int read_file(void *arg)
{
	off_t off = (off_t)(unsigned long)arg * 8 * MiB;
	static char buf[1 << 16];
	size_t done = 0;
	int fd = open(datafile(), O_RDONLY);

	if (fd < 0)
		return -1;
	while (done < 8 * MiB) {
		ssize_t n = pread(fd, buf, sizeof(buf), off + done);

		if (n <= 0)
			return -1;
		done += n;
	}
	return 0;	/* fd stays open, the pages stay cached */
}

/* Map bytes [arg*8M, arg*8M + 8M) of the data file and touch every page. */
static int map_file(void *arg)
{
	off_t off = (off_t)(unsigned long)arg * 8 * MiB;
	volatile char sum = 0;
	int fd = open(datafile(), O_RDONLY);
	char *p;
	size_t i;

	if (fd < 0)
		return -1;
	/*
	 * none of the range cached: a page another read left in the page
	 * cache (the file is shared) made one fault minor, 2047 of 2048
	 */
	if (posix_fadvise(fd, off, 8 * MiB, POSIX_FADV_DONTNEED))
		return -1;
	p = mmap(NULL, 8 * MiB, PROT_READ, MAP_SHARED, fd, off);
	if (p == MAP_FAILED)
		return -1;
	/* no readahead: every page is read by its own (major) fault */
	if (madvise(p, 8 * MiB, MADV_RANDOM))
		return -1;
	for (i = 0; i < 8 * MiB; i += 4096)
		sum += p[i];
	return 0;	/* stays mapped */
}

static void *sleeper(void *arg)
{
	(void)arg;
	pause();
	return NULL;
}

static int spawn_threads(void *arg)
{
	long i, n = (long)arg;
	pthread_t t;

	for (i = 0; i < n; i++)
		if (pthread_create(&t, NULL, sleeper, NULL))
			return -1;
	return 0;
}

/* Allocate far beyond memory.max: the OOM killer ends the process. */
static int oom(void *arg)
{
	return touch_anon(arg);
}

struct activity {
	const char *name;
	int (*fn)(void *);
	void *arg;
	const char *key;		/* memory.stat key that must grow */
	unsigned long long min;		/* ... at least to this */
	bool expect_death;
};

/*
 * The bounds show the activity happened, no more: 6.12 flushes the per-CPU
 * deltas only past a threshold (MEMCG_CHARGE_BATCH pages a CPU), so a read
 * may miss that much of the last updates, here and in memory.stat alike
 * (seen: anon 16 KiB short of the 16 MiB touched, both views equal).
 */
static const struct activity activities[] = {
	{ "anon", touch_anon, (void *)16, "anon", 15 * MiB, false },
	{ "shmem", touch_memfd, (void *)8, "shmem", 7 * MiB, false },
	{ "file", read_file, (void *)0, "file", 7 * MiB, false },
	/* a page or two of the chunk may be cached already (seen once on the
	 * KASAN kernel): the bound shows the mapping happened, no more */
	{ "file_mapped", map_file, (void *)2, "file_mapped", 7 * MiB, false },
	{ "pgmajfault", map_file, (void *)4, "pgmajfault", 2048, false },
	{ "pgfault", touch_anon, (void *)4, "pgfault", 1024, false },
	/*
	 * 64 stacks of 16 KiB: a flush may leave up to MEMCG_CHARGE_BATCH
	 * pages a CPU unflushed, 512 KiB on the VM's 2 vCPUs (seen: 9 of 16
	 * stacks counted), so half of them at least
	 */
	{ "kernel_stack", spawn_threads, (void *)64, "kernel_stack", 32 * 16384, false },
	{ "oom", oom, (void *)64, NULL, 0, true },
};

static const char *v1_key(const char *v2_key)
{
	const struct mcs_stat_def *def = mcs_stat_def_find(v2_key);

	return def ? def->v1_name : NULL;
}

static void run_activity(const struct activity *a, bool v2)
{
	struct cg_child child = {};
	char *cg, *text = NULL;
	int err;

	cg = cg_create_own(a->name);
	if (!ASSERT_OK_PTR(cg, "cg_create"))
		return;
	if (a->expect_death &&
	    !ASSERT_OK(cg_write(cg, v2 ? "memory.max" : "memory.limit_in_bytes",
				"16777216"), "set limit"))
		goto out;

	err = cg_run(cg, a->fn, a->arg, &child);
	if (a->expect_death) {
		int status = cg_child_finish(&child);

		ASSERT_EQ(err, -ECHILD, "died before finishing its allocation");
		ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
			    "killed by the OOM killer");
	} else if (!ASSERT_OK(err, a->name)) {
		goto out;
	}

	/* The process now sleeps: nothing runs in the cgroup. */
	if (v2) {
		if (!check_view(cg, VIEW_STAT, &text))
			goto out;
		check_view(cg, VIEW_NUMA, NULL);
		check_view(cg, VIEW_USAGE, NULL);
		if (a->expect_death) {
			char *events = NULL;

			if (check_view(cg, VIEW_EVENTS, &events)) {
				ASSERT_GT(kv_get(events, "oom_kill"), 0, "oom_kill");
				ASSERT_GT(kv_get(events, "max"), 0, "max");
			}
			free(events);
		}
	} else {
		if (!check_view(cg, VIEW_V1_STAT, &text))
			goto out;
		check_view(cg, VIEW_USAGE, NULL);
	}
	/* The activity happened, so the equality above was not 0 == 0. */
	if (a->key) {
		const char *key = v2 ? a->key : v1_key(a->key);
		unsigned long long val;

		if (key) {
			val = kv_get(text, key);
			if (val == -1ULL || val < a->min)
				PRINT_FAIL("%s %s: %lld, expected at least %llu\n",
					   cg, key, (long long)val, a->min);
		}
	}
out:
	cg_child_finish(&child);
	free(text);
	ASSERT_OK(cg_destroy(cg), "cg_destroy");
	free(cg);
}

static void run_all(bool v2)
{
	size_t i;

	for (i = 0; i < sizeof(activities) / sizeof(activities[0]); i++) {
		if (!test__start_subtest(activities[i].name))
			continue;
		if (!ASSERT_EQ(cg_is_v2(), v2, "memory controller on the expected hierarchy"))
			continue;
		run_activity(&activities[i], v2);
	}
}

void test_memcg_v2(void)
{
	run_all(true);
}

void test_memcg_v1(void)
{
	run_all(false);
}
