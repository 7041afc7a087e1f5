// SPDX-License-Identifier: GPL-2.0
/*
 * libmemcgstat's pinned programs (memcgstat_pin(), MEMCGSTAT_PINNED): what
 * may be pinned and where, a handle on the pins reads what a handle that
 * loaded its own programs reads (by path, by id, a tree), handles of
 * several processes on the same pins never see each other's records, a
 * tree larger than the pinned maps is still read whole, and pins that are
 * gone or not this library's are refused with a reason.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include "test_progs.h"
#include "memcg_util.h"
#include "memcgstat.h"

#define PIN_DIR		"/sys/fs/bpf/memcgstat-selftest"
#define KIDS		4
#define ROUNDS		100
#define BIG		1100	/* cgroups: more than the pinned records map holds */

static const char *const some[] = { "anon", "file", "pgfault", "usage" };
static char *top, *kid[KIDS], *big;

static struct memcgstat *open_pin(unsigned int flags, const char *const *stats, size_t nr,
				  int *err)
{
	struct memcgstat_opts opts = {
		.sz = sizeof(opts), .backend = MEMCGSTAT_BACKEND_BPF, .flags = flags,
		.stats = stats, .nr_stats = nr, .pin_dir = PIN_DIR,
	};
	struct memcgstat *h = NULL;

	*err = memcgstat_open(&opts, &h);
	return h;
}

/* Rows of @a and @b: the same cgroups with the same values. */
static int diff(const struct memcgstat_result *a, const struct memcgstat_result *b,
		size_t ncol, bool print)
{
	size_t i, c, n = memcgstat_result_count(a);
	int bad = n != memcgstat_result_count(b);

	for (i = 0; !bad && i < n; i++) {
		const uint64_t *x = memcgstat_result_values(a, i), *y = memcgstat_result_values(b, i);

		bad += memcgstat_result_id(a, i) != memcgstat_result_id(b, i);
		for (c = 0; c < ncol; c++) {
			if (x[c] == y[c])
				continue;
			if (print)
				printf("  row %zu col %zu: %llu != %llu\n", i, c,
				       (unsigned long long)x[c], (unsigned long long)y[c]);
			bad++;
		}
	}
	if (bad && print)
		printf("  %zu rows against %zu\n", n, memcgstat_result_count(b));
	return bad;
}

static int make_tree(void)
{
	return cg_create_tree("memcg-pin", "k", KIDS, &top, kid);
}

static void test_refusals(void)
{
	struct memcgstat_opts topts = { .sz = sizeof(topts), .backend = MEMCGSTAT_BACKEND_TEXT,
					.pin_dir = PIN_DIR };
	struct memcgstat *h, *t = NULL;
	int err;

	h = open_pin(0, some, 1, &err);
	if (ASSERT_OK(err, memcgstat_errmsg(h))) {
		ASSERT_EQ(memcgstat_pin(h), -EINVAL, "a handle of some stats is not pinned");
		ASSERT_HAS_SUBSTR(memcgstat_errmsg(h), "every stat", "and the message says why");
	}
	memcgstat_close(h);
	if (ASSERT_OK(memcgstat_open(&topts, &t), memcgstat_errmsg(t)))
		ASSERT_EQ(memcgstat_pin(t), -EOPNOTSUPP, "a text handle is not pinned");
	memcgstat_close(t);

	h = open_pin(MEMCGSTAT_PINNED | MEMCGSTAT_PIN_REQUIRED, NULL, 0, &err);
	ASSERT_EQ(err, -ENOENT, "no pins: a handle that requires them fails");
	ASSERT_HAS_SUBSTR(memcgstat_errmsg(h), "memcgstat --pin", "and says how to pin");
	memcgstat_close(h);
	h = open_pin(MEMCGSTAT_PINNED, NULL, 0, &err);
	ASSERT_OK(err, "no pins: a handle that may use them loads its own");
	ASSERT_EQ(memcgstat_pinned(h), 0, "and reads without pins");
	memcgstat_close(h);
}

/* Read @cg by path, its tree, and its id on @h and @ref: equal. */
static void check_equal(struct memcgstat *h, struct memcgstat *ref, const char *what)
{
	struct memcgstat_result *a = NULL, *b = NULL;
	uint64_t ids[KIDS];
	size_t ncol = memcgstat_nr_columns(ref);
	int try, bad = 1, i;

	for (i = 0; i < KIDS; i++)
		ids[i] = id_of(kid[i]);
	for (try = 0; bad && try < 5; try++) {
		if (try)
			usleep(200000);
		memcgstat_result_free(a);
		memcgstat_result_free(b);
		a = b = NULL;
		bad = 0;
		if (!ASSERT_OK(memcgstat_snapshot(h, top, NULL, 0, &a), memcgstat_errmsg(h)) ||
		    !ASSERT_OK(memcgstat_snapshot(ref, top, NULL, 0, &b), memcgstat_errmsg(ref)))
			goto out;
		bad += diff(a, b, ncol, try == 4);
		memcgstat_result_free(a);
		memcgstat_result_free(b);
		a = b = NULL;
		if (!ASSERT_OK(memcgstat_read(h, kid[1], &a), memcgstat_errmsg(h)) ||
		    !ASSERT_OK(memcgstat_read(ref, kid[1], &b), memcgstat_errmsg(ref)))
			goto out;
		bad += diff(a, b, ncol, try == 4);
		memcgstat_result_free(a);
		memcgstat_result_free(b);
		a = b = NULL;
		if (!ASSERT_OK(memcgstat_read_ids(h, ids, KIDS, &a), memcgstat_errmsg(h)) ||
		    !ASSERT_OK(memcgstat_read_ids(ref, ids, KIDS, &b), memcgstat_errmsg(ref)))
			goto out;
		bad += diff(a, b, ncol, try == 4);
	}
	ASSERT_EQ(bad, 0, what);
out:
	memcgstat_result_free(a);
	memcgstat_result_free(b);
}

/*
 * KIDS processes on the same pins, each reading its own cgroup's tree and
 * id ROUNDS times: every result is of its own cgroup. Without the lock a
 * read would find another process's records in the shared maps.
 */
static void test_concurrent(void)
{
	pid_t pids[KIDS];
	int i, status, bad = 0;

	for (i = 0; i < KIDS; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			struct memcgstat_result *res = NULL;
			uint64_t id = id_of(kid[i]);
			struct memcgstat *h;
			int err, r, wrong = 0;

			h = open_pin(MEMCGSTAT_PINNED | MEMCGSTAT_PIN_REQUIRED, some, 4, &err);
			if (err)
				_exit(100);
			res = memcgstat_result_new(h);
			for (r = 0; r < ROUNDS && !wrong; r++) {
				if (memcgstat_snapshot_into(h, kid[i], NULL, 0, res) ||
				    memcgstat_result_count(res) != 1 ||
				    memcgstat_result_id(res, 0) != id)
					wrong = 1;
				if (!wrong && (memcgstat_read_ids_into(h, &id, 1, res) ||
					       memcgstat_result_status(res, 0) ||
					       memcgstat_result_id(res, 0) != id))
					wrong = 2;
			}
			memcgstat_result_free(res);
			memcgstat_close(h);
			_exit(wrong);
		}
	}
	for (i = 0; i < KIDS; i++) {
		if (pids[i] < 0 || waitpid(pids[i], &status, 0) != pids[i]) {
			bad++;
			continue;
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			printf("  process %d: exit %d\n", i, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
			bad++;
		}
	}
	ASSERT_EQ(bad, 0, "every process read its own cgroups only");
	printf("  %d processes x %d rounds of a tree and an id on the same pins\n", KIDS, ROUNDS);
}

/* A tree of BIG cgroups, more than the pinned records map holds: whole. */
static void test_outgrow(struct memcgstat *ref)
{
	struct memcgstat_result *a = NULL, *b = NULL;
	struct memcgstat *h;
	char name[32];
	int err, i;

	big = cg_create(top, "big");
	if (!ASSERT_OK_PTR(big, "big") ||
	    (cg_is_v2() && !ASSERT_OK(cg_write(big, "cgroup.subtree_control", "+memory"), "+memory")))
		return;
	for (i = 0; i < BIG; i++) {
		snprintf(name, sizeof(name), "big/c%d", i);
		free(cg_create(top, name));
	}
	h = open_pin(MEMCGSTAT_PINNED | MEMCGSTAT_PIN_REQUIRED, some, 4, &err);
	if (!ASSERT_OK(err, memcgstat_errmsg(h)))
		goto out;
	if (ASSERT_OK(memcgstat_snapshot(h, big, NULL, 0, &a), memcgstat_errmsg(h)) &&
	    ASSERT_OK(memcgstat_snapshot(ref, big, NULL, 0, &b), memcgstat_errmsg(ref))) {
		ASSERT_EQ(memcgstat_result_count(a), BIG + 1, "every cgroup of the big tree");
		ASSERT_EQ(diff(a, b, 0, true), 0, "the same cgroups as a handle of its own programs");
	}
	ASSERT_EQ(memcgstat_pinned(h), 0, "the handle loaded bigger maps of its own");
out:
	memcgstat_result_free(a);
	memcgstat_result_free(b);
	memcgstat_close(h);
}

/* Pins of this build's name that are not this library's: refused. */
static void test_foreign(void)
{
	char dir[512] = "", meta[600];
	struct memcgstat *h;
	struct dirent *de;
	char junk[64] = "junk";
	__u32 key = 0;
	DIR *d;
	int fd, err;

	d = opendir(PIN_DIR);
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.')
			snprintf(dir, sizeof(dir), "%s/%s", PIN_DIR, de->d_name);
	if (d)
		closedir(d);
	if (!ASSERT_TRUE(dir[0] != 0, "the pins' directory"))
		return;
	h = open_pin(MEMCGSTAT_PINNED, NULL, 0, &err);
	if (!ASSERT_OK(err, memcgstat_errmsg(h)) ||
	    !ASSERT_OK(memcgstat_unpin(h), memcgstat_errmsg(h))) {
		memcgstat_close(h);
		return;
	}
	ASSERT_EQ(access(PIN_DIR, F_OK), -1, "unpin removed the pin directory");
	ASSERT_OK(mkdir(PIN_DIR, 0700), "mkdir");
	ASSERT_OK(mkdir(dir, 0700), "mkdir");
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "junk", 4, sizeof(junk), 1, NULL);
	snprintf(meta, sizeof(meta), "%s/meta", dir);
	if (ASSERT_GE(fd, 0, "a map of junk") &&
	    ASSERT_OK(bpf_map_update_elem(fd, &key, junk, 0), "update") &&
	    ASSERT_OK(bpf_obj_pin(fd, meta), "pin it as the meta map")) {
		struct memcgstat *f = open_pin(MEMCGSTAT_PINNED | MEMCGSTAT_PIN_REQUIRED, NULL, 0, &err);

		ASSERT_TRUE(err < 0, "foreign pins refused");
		ASSERT_HAS_SUBSTR(memcgstat_errmsg(f), "not usable", "with the reason");
		memcgstat_close(f);
	}
	if (fd >= 0)
		close(fd);
	ASSERT_OK(memcgstat_unpin(h), memcgstat_errmsg(h));
	memcgstat_close(h);
}

void test_memcg_pin(void)
{
	struct memcgstat *pinner = NULL, *pinned = NULL, *ref = NULL;
	struct statfs fs;
	int err, i;

	if (!test__start_subtest("setup"))
		return;
	if ((statfs("/sys/fs/bpf", &fs) || fs.f_type != 0xcafe4a11) &&
	    !ASSERT_OK(mount("bpf", "/sys/fs/bpf", "bpf", 0, NULL), "mount bpffs"))
		return;
	if (!ASSERT_OK(make_tree(), "make the tree"))
		goto out;
	pinner = open_pin(0, NULL, 0, &err);
	ref = open_pin(0, some, 4, &err);
	if (!ASSERT_OK(err, memcgstat_errmsg(ref)) || !ASSERT_OK_PTR(pinner, "pinner"))
		goto out;
	memcgstat_unpin(pinner);	/* of an earlier run */

	if (test__start_subtest("refusals"))
		test_refusals();
	if (test__start_subtest("pin")) {
		if (ASSERT_OK(memcgstat_pin(pinner), memcgstat_errmsg(pinner))) {
			ASSERT_EQ(memcgstat_pinned(pinner), 1, "the pinning handle locks the pins too");
			ASSERT_OK(memcgstat_pin(pinner), "pinning twice: already pinned");
		}
		pinned = open_pin(MEMCGSTAT_PINNED | MEMCGSTAT_PIN_REQUIRED, some, 4, &err);
		if (ASSERT_OK(err, memcgstat_errmsg(pinned))) {
			ASSERT_EQ(memcgstat_pinned(pinned), 1, "a handle on the pins");
		} else {
			memcgstat_close(pinned);
			pinned = NULL;
		}
	}
	if (pinned && test__start_subtest("equal")) {
		check_equal(pinned, ref, "on the pins: the values of a handle of its own programs");
		ASSERT_TRUE(!strcmp(memcgstat_kfuncs(pinned), memcgstat_kfuncs(ref)), "the same kfunc set");
		ASSERT_EQ(memcgstat_query(pinned), memcgstat_query(ref), "the same query path");
	}
	if (pinned && test__start_subtest("concurrent"))
		test_concurrent();
	if (pinned && test__start_subtest("outgrow"))
		test_outgrow(ref);
	if (pinned && test__start_subtest("foreign"))
		test_foreign();
	if (pinned && test__start_subtest("after_unpin"))
		check_equal(pinned, ref, "a handle on removed pins reads on");
out:
	memcgstat_close(pinned);
	memcgstat_close(pinner);
	memcgstat_close(ref);
	rmdir(PIN_DIR);
	if (top)
		cg_destroy(top);
	for (i = 0; i < KIDS; i++)
		free(kid[i]);
	free(big);
	free(top);
}
