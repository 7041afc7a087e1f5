// SPDX-License-Identifier: GPL-2.0
/*
 * test_alloc CGROUP [BACKEND]: libmemcgstat under a failed allocation, on
 * the cgroup CGROUP and a child of it (made and removed here), the child
 * holding the deep fixture: a chain of 40 cgroups of 250-byte names, so
 * that snapshots walk paths past PATH_MAX and grow theirs. The
 * library's calls of malloc, calloc, realloc and strdup are wrapped at
 * link time (-Wl,--wrap=..., alloc_fail.c): the N-th fails. For every N
 * that a scenario reaches (open, then read, read_ids, snapshot, the *_into
 * reads and close) the failing call must return an error with a message,
 * never crash, and leave the handle usable: the same call without a
 * failure then succeeds.
 * On bpf a read into a kept result must make no allocation at all (as
 * memcgstat.h says) on the syscall path; on v1 (the iterator path, ids by
 * path) reads by id allocate for the id -> path cache.
 * Built with ASan and LeakSanitizer, so a leak on any of those paths fails
 * the run at exit. BACKEND: text (default) or bpf.
 * Prints "#N alloc/NAME:OK|FAIL".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include "alloc_fail.h"
#include "memcgstat.h"
#define RESULT_SUITE "alloc"
#include "host_test.h"

static const char *cgroup;
static bool syscall_path;
static enum memcgstat_backend backend;
static uint64_t ids[2];

static int open_h(struct memcgstat **h)
{
	static const char *const stats[] = { "anon", "file", "pgfault", "usage" };
	struct memcgstat_opts opts = {
		.sz = sizeof(opts), .backend = backend, .stats = stats, .nr_stats = 4,
	};

	return memcgstat_open(&opts, h);
}

enum op { READ, READ_IDS, SNAPSHOT, READ_INTO, SNAPSHOT_INTO, READ_IDS_INTO, NR_OPS };
static const char *const op_name[NR_OPS] = {
	"read", "read_ids", "snapshot", "read_into", "snapshot_into", "read_ids_into",
};

static int run(struct memcgstat *h, enum op op, struct memcgstat_result *keep)
{
	struct memcgstat_result *res = NULL;
	int err = 0;

	switch (op) {
	case READ:
		err = memcgstat_read(h, cgroup, &res);
		break;
	case READ_IDS:
		err = memcgstat_read_ids(h, ids, 2, &res);
		break;
	case SNAPSHOT:
		err = memcgstat_snapshot(h, cgroup, NULL, 0, &res);
		break;
	case READ_INTO:
		err = memcgstat_read_into(h, cgroup, keep);
		break;
	case SNAPSHOT_INTO:
		err = memcgstat_snapshot_into(h, cgroup, NULL, 0, keep);
		break;
	case READ_IDS_INTO:
		err = memcgstat_read_ids_into(h, ids, 2, keep);
		break;
	default:
		break;
	}
	if (!err && !res && op < READ_INTO)
		err = -EFAULT;	/* success without a result */
	memcgstat_result_free(res);
	return err;
}

/*
 * Disarm the failure of allocation @n: whether the call made fewer
 * allocations, none failed: the scenario's last run, which must have
 * succeeded (else why, in @why of @size, and *@bad counted).
 */
static bool last_run(long n, int err, struct memcgstat *h, char *why, size_t size, long *bad)
{
	if (alloc_fail_disarm() >= n)
		return false;
	if (err) {
		snprintf(why, size, "no failure injected, yet %d: %s", err, memcgstat_errmsg(h));
		(*bad)++;
	}
	return true;
}

/* The scenario's line, and how many allocations it failed in turn. */
static void report(const char *what, long bad, const char *why, long reached)
{
	char name[64];

	snprintf(name, sizeof(name), "%s_%s", memcgstat_backend_name(backend), what);
	result(name, !bad, why);
	if (!bad)
		printf("  %ld allocations failed in turn\n", reached);
}

/*
 * Fail each allocation of @op on a fresh handle in turn, until one run
 * makes no more allocations than the failure's number.
 */
static void scenario(enum op op)
{
	char why[1400] = "";
	long n, reached = 0, bad = 0;
	int err;

	for (n = 1; !bad; n++) {
		struct memcgstat_result *keep = NULL;
		struct memcgstat *h = NULL;

		if (open_h(&h)) {
			snprintf(why, sizeof(why), "open without a failure: %s", memcgstat_errmsg(h));
			bad++;
			memcgstat_close(h);
			break;
		}
		keep = memcgstat_result_new(h);
		if (op >= READ_INTO && (!keep || run(h, op, keep))) {
			snprintf(why, sizeof(why), "a first read into the result failed");
			bad++;
		}
		alloc_fail_arm(n, false);
		err = run(h, op, keep);
		if (last_run(n, err, h, why, sizeof(why), &bad)) {
			reached = n - 1;
			memcgstat_result_free(keep);
			memcgstat_close(h);
			break;
		}
		if (!err) {
			/* a failed allocation the library survived on purpose */
		} else if (!memcgstat_errmsg(h) || !*memcgstat_errmsg(h)) {
			snprintf(why, sizeof(why), "allocation %ld: error %d without a message", n, err);
			bad++;
		} else if ((err = run(h, op, keep))) {
			snprintf(why, sizeof(why), "allocation %ld failed; the next %s failed too: %s",
				 n, op_name[op], memcgstat_errmsg(h));
			bad++;
		}
		memcgstat_result_free(keep);
		memcgstat_close(h);
	}
	/* memcgstat.h: a read into a kept result allocates nothing on bpf */
	if (!bad && backend == MEMCGSTAT_BACKEND_BPF && op >= READ_INTO && reached &&
	    (op != READ_IDS_INTO || syscall_path)) {
		snprintf(why, sizeof(why), "a read into a kept result made %ld allocations", reached);
		bad++;
	}
	report(op_name[op], bad, why, reached);
}

/* memcgstat_open() with its N-th allocation failing, for every N. */
static void open_scenario(void)
{
	char why[1400] = "";
	long n, reached = 0, bad = 0;
	int err;

	for (n = 1; !bad; n++) {
		struct memcgstat *h = NULL;

		alloc_fail_arm(n, false);
		err = open_h(&h);
		if (last_run(n, err, h, why, sizeof(why), &bad)) {
			reached = n - 1;
			memcgstat_close(h);
			break;
		}
		if (err && h && !*memcgstat_errmsg(h)) {
			snprintf(why, sizeof(why), "allocation %ld: error %d without a message", n, err);
			bad++;
		}
		if (err && !h && err != -ENOMEM) {
			snprintf(why, sizeof(why), "allocation %ld: no handle, error %d", n, err);
			bad++;
		}
		memcgstat_close(h);
	}
	report("open", bad, why, reached);
}

#define DEEP_LEVELS	40

/*
 * The chain below the cgroup directory @top, its parent at @parent (@make
 * it, or remove it): 0 or -1.
 */
static int deep_chain(const char *parent, const char *top, bool make)
{
	int fds[DEEP_LEVELS + 1], i, n, ret = 0;
	char name[251];

	memset(name, 'D', 250);
	name[250] = '\0';
	if (make) {
		fds[0] = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fds[0] >= 0) {
			hand_down(fds[0]);
			close(fds[0]);
		}
	}
	fds[0] = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (n = 1; fds[n - 1] >= 0 && n <= DEEP_LEVELS; n++) {
		if (make)
			hand_down(fds[n - 1]);
		if (make && mkdirat(fds[n - 1], name, 0755) && errno != EEXIST)
			break;
		fds[n] = openat(fds[n - 1], name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fds[n] < 0)
			break;
	}
	if (make && n <= DEEP_LEVELS)
		ret = -1;
	for (i = n - 1; i >= 0; i--) {
		if (fds[i] < 0)
			continue;
		if (!make && i < n - 1 && unlinkat(fds[i], name, AT_REMOVEDIR))
			ret = -1;
		close(fds[i]);
	}
	return ret;
}

int main(int argc, char **argv)
{
	char child[4096];
	struct stat st;
	int op;

	if (argc < 2) {
		fprintf(stderr, "usage: test_alloc CGROUP [text|bpf]\n");
		return 2;
	}
	cgroup = argv[1];
	backend = argc > 2 && !strcmp(argv[2], "bpf") ? MEMCGSTAT_BACKEND_BPF : MEMCGSTAT_BACKEND_TEXT;
	snprintf(child, sizeof(child), "%s/alloc-child", cgroup);
	mkdir(cgroup, 0755);
	mkdir(child, 0755);
	if (deep_chain(cgroup, child, true))
		result("deep_fixture", 0, strerror(errno));
	ids[0] = stat(cgroup, &st) ? 0 : st.st_ino;
	ids[1] = stat(child, &st) ? 0 : st.st_ino;
	open_scenario();
	{
		struct memcgstat *h = NULL;

		syscall_path = !open_h(&h) && memcgstat_query(h) == MEMCGSTAT_QUERY_SYSCALL;
		memcgstat_close(h);
	}
	for (op = 0; op < NR_OPS; op++)
		scenario(op);
	deep_chain(cgroup, child, false);
	rmdir(child);
	rmdir(cgroup);
	return failed ? 1 : 0;
}
