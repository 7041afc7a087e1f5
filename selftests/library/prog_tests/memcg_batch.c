// SPDX-License-Identifier: GPL-2.0
/*
 * libmemcgstat's syscall query path (cgroup v2): one BPF_PROG_TEST_RUN of
 * the batch program per read. On a quiescent tree with real activity it
 * must give what the iterator path and memory.stat give for every stat, for
 * single cgroups and batches up to the maximum; a larger batch is refused;
 * removed cgroups and cgroups without a memcg come back marked, not as
 * zeros; and the one flush lands on the batch's lowest common ancestor.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "test_progs.h"
#include "memcg_util.h"
#include "memcgstat.h"
#include "memcg_iter.h"
#include "memcg_iter.skel.h"
#include "testing.h"

#define MiB (1UL << 20)
#define LEAVES 150	/* per parent: 300 leaves, more than one batch */

enum { SYSCALL, ITER, TEXT, NR_HANDLES };
static const char *const handle_name[NR_HANDLES] = { "syscall", "iter", "text" };

static char *top, *parent[2], *leaf[2][LEAVES], *nomem;
static uint64_t leaf_id[2][LEAVES];

/* anon, and shmem through a tmpfs file, charged to the cgroup */
static int hog(void *arg)
{
	size_t mib = (unsigned long)arg, i;
	char name[64], *p;
	FILE *f;

	p = mmap(NULL, mib * MiB, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	for (i = 0; i < mib * MiB; i += 4096)
		p[i] = 1;
	snprintf(name, sizeof(name), "/tmp/memcg-batch-%d", getpid());
	f = fopen(name, "w");
	if (!f)
		return -1;
	for (i = 0; i < mib * 64; i++)
		fwrite(p, 1, 4096, f);
	return fclose(f) ? -1 : 0;
}

static int make_tree(void)
{
	char name[32];
	int p, i;

	top = cg_create(NULL, "memcg-batch");
	if (!top || cg_write(top, "cgroup.subtree_control", "+memory"))
		return -1;
	for (p = 0; p < 2; p++) {
		snprintf(name, sizeof(name), "p%d", p);
		parent[p] = cg_create(top, name);
		if (!parent[p] || cg_write(parent[p], "cgroup.subtree_control", "+memory"))
			return -1;
		for (i = 0; i < LEAVES; i++) {
			snprintf(name, sizeof(name), "c%d", i);
			leaf[p][i] = cg_create(parent[p], name);
			if (!leaf[p][i])
				return -1;
			leaf_id[p][i] = id_of(leaf[p][i]);
		}
	}
	/* nm has a memcg and does not pass the controller on: x has none */
	nomem = cg_create(top, "nm");
	free(nomem);
	nomem = cg_create(top, "nm/x");
	return nomem ? 0 : -1;
}

static struct memcgstat *open_handle(int which)
{
	struct memcgstat_opts opts = { .sz = sizeof(opts) };
	struct memcgstat *h;

	opts.backend = which == TEXT ? MEMCGSTAT_BACKEND_TEXT : MEMCGSTAT_BACKEND_BPF;
	if (which == SYSCALL)
		opts.query = MEMCGSTAT_QUERY_SYSCALL;
	else if (which == ITER)
		opts.query = MEMCGSTAT_QUERY_ITER;
	if (memcgstat_open(&opts, &h)) {
		PRINT_FAIL("open %s: %s\n", handle_name[which], memcgstat_errmsg(h));
		memcgstat_close(h);
		return NULL;
	}
	return h;
}

/* Columns where a and b differ, printed; 0 if none. */
static int diff_rows(struct memcgstat *h, const char *what, const uint64_t *a,
		     const uint64_t *b, bool print)
{
	size_t i;
	int n = 0;

	for (i = 0; i < memcgstat_nr_columns(h); i++) {
		if (a[i] == b[i])
			continue;
		if (print)
			printf("  %s %s: %llu != %llu\n", what, memcgstat_column_name(h, i),
			       (unsigned long long)a[i], (unsigned long long)b[i]);
		n++;
	}
	return n;
}

/*
 * ids[] read by @h with memcgstat_read_ids() against each cgroup's
 * memory.stat through the text handle, retried while the tree settles.
 */
static void check_ids(struct memcgstat **hs, int which, const uint64_t *ids,
		      char *const *paths, size_t n)
{
	struct memcgstat_result *got = NULL, *want;
	size_t i, ncol = memcgstat_nr_columns(hs[TEXT]);
	int try, bad = 0;

	for (try = 0; try < 5; try++) {
		memcgstat_result_free(got);
		if (!ASSERT_OK(memcgstat_read_ids(hs[which], ids, n, &got), memcgstat_errmsg(hs[which])))
			return;
		if (!ASSERT_EQ(memcgstat_result_count(got), n, "one row per id"))
			goto out;
		for (bad = 0, i = 0; i < n; i++) {
			if (!paths[i]) {
				bad += memcgstat_result_status(got, i) != -ENOENT;
				continue;
			}
			if (memcgstat_read(hs[TEXT], paths[i], &want)) {
				PRINT_FAIL("text read %s: %s\n", paths[i], memcgstat_errmsg(hs[TEXT]));
				goto out;
			}
			bad += memcgstat_result_status(got, i) != 0 ||
			       memcgstat_result_id(got, i) != ids[i] ||
			       diff_rows(hs[TEXT], paths[i], memcgstat_result_values(got, i),
					 memcgstat_result_values(want, 0), try == 4);
			memcgstat_result_free(want);
		}
		if (!bad)
			break;
		usleep(200000);
	}
	if (!ASSERT_EQ(bad, 0, handle_name[which]))
		goto out;
	for (i = 0; i < n; i++) {
		const uint64_t *v = memcgstat_result_values(got, i);
		size_t c;

		if (paths[i] || memcgstat_result_status(got, i) != -ENOENT)
			continue;
		for (c = 0; c < ncol; c++)
			if (!ASSERT_U64_EQ(v[c], MEMCGSTAT_NA, "a removed cgroup's values are NA"))
				goto out;
	}
	if (which == SYSCALL)
		ASSERT_EQ(memcgstat_last_query(hs[which]), MEMCGSTAT_QUERY_SYSCALL, "read with the syscall path");
	else
		ASSERT_EQ(memcgstat_last_query(hs[which]), MEMCGSTAT_QUERY_ITER, "read with the iterator");
out:
	memcgstat_result_free(got);
}

static void test_single(struct memcgstat **hs)
{
	const char *cgs[] = { leaf[0][0], leaf[1][3], leaf[0][7], parent[0], top };
	struct memcgstat_result *r[NR_HANDLES] = {};
	size_t i;
	int w, try, bad = 0;

	for (i = 0; i < sizeof(cgs) / sizeof(cgs[0]); i++) {
		for (try = 0; try < 5; try++) {
			for (w = 0; w < NR_HANDLES; w++) {
				memcgstat_result_free(r[w]);
				r[w] = NULL;
				if (!ASSERT_OK(memcgstat_read(hs[w], cgs[i], &r[w]), memcgstat_errmsg(hs[w])))
					goto out;
			}
			bad = diff_rows(hs[TEXT], "syscall/text", memcgstat_result_values(r[SYSCALL], 0),
					memcgstat_result_values(r[TEXT], 0), try == 4) +
			      diff_rows(hs[TEXT], "iter/text", memcgstat_result_values(r[ITER], 0),
					memcgstat_result_values(r[TEXT], 0), try == 4);
			if (!bad)
				break;
			usleep(200000);
		}
		if (!ASSERT_EQ(bad, 0, cgs[i]))
			break;
		ASSERT_U64_EQ(memcgstat_result_id(r[SYSCALL], 0), id_of(cgs[i]), "row id");
		ASSERT_EQ(memcgstat_last_query(hs[SYSCALL]), MEMCGSTAT_QUERY_SYSCALL, "syscall path");
	}
	printf("  %zu cgroups x %zu stats equal on the syscall path, the iterator and memory.stat\n",
	       i, memcgstat_nr_columns(hs[TEXT]));
out:
	for (w = 0; w < NR_HANDLES; w++)
		memcgstat_result_free(r[w]);
}

static void test_batches(struct memcgstat **hs)
{
	static uint64_t ids[MEMCGSTAT_MAX_BATCH + 1];
	static char *paths[MEMCGSTAT_MAX_BATCH + 1];
	struct memcgstat_result *res = (void *)1;
	char max[32];
	size_t n;
	int p, i, w;

	/*
	 * The largest batch: leaves of both parents, busy ones first, and
	 * again from the start (an id may come twice) until it is full.
	 */
	for (n = 0; n < MEMCGSTAT_MAX_BATCH + 1; n++) {
		i = n / 2 % LEAVES;
		p = n % 2;
		ids[n] = leaf_id[p][i];
		paths[n] = leaf[p][i];
	}
	snprintf(max, sizeof(max), "at most %d", MEMCGSTAT_MAX_BATCH);
	for (w = SYSCALL; w <= ITER; w++) {
		check_ids(hs, w, ids, paths, 1);
		check_ids(hs, w, ids, paths, 50);
		check_ids(hs, w, ids, paths, MEMCGSTAT_MAX_BATCH);
		if (!ASSERT_EQ(memcgstat_read_ids(hs[w], ids, MEMCGSTAT_MAX_BATCH + 1, &res), -E2BIG,
			       "a batch above the maximum is refused"))
			continue;
		ASSERT_TRUE(res == NULL, "nothing returned for a refused batch");
		ASSERT_HAS_SUBSTR(memcgstat_errmsg(hs[w]), max, "the error names the maximum");
	}
	printf("  batches of 1, 50 and %d ids equal memory.stat on both paths; %d refused\n",
	       MEMCGSTAT_MAX_BATCH, MEMCGSTAT_MAX_BATCH + 1);
}

static void test_gone(struct memcgstat **hs)
{
	uint64_t ids[8];
	char *paths[8];
	int i, w;

	/* idle leaves of p1, removed */
	ids[0] = leaf_id[0][0];
	paths[0] = leaf[0][0];
	for (i = 1; i <= 4; i++) {
		ids[i] = leaf_id[1][LEAVES - i];
		paths[i] = NULL;
		if (!ASSERT_OK(rmdir(leaf[1][LEAVES - i]), "rmdir"))
			return;
	}
	ids[5] = 0xfffffffff0ULL;	/* never a cgroup */
	paths[5] = NULL;
	ids[6] = leaf_id[1][3];
	paths[6] = leaf[1][3];
	ids[7] = ids[1];		/* the same removed id twice */
	paths[7] = NULL;
	for (w = SYSCALL; w <= ITER; w++)
		check_ids(hs, w, ids, paths, 8);
}

static void test_no_memcg(struct memcgstat **hs)
{
	struct memcgstat_result *res;
	uint64_t id = id_of(nomem);
	int w;

	/* text too: its read by id said -ENOENT, as if the cgroup were gone */
	for (w = SYSCALL; w <= TEXT; w++) {
		if (!ASSERT_OK(memcgstat_read_ids(hs[w], &id, 1, &res), memcgstat_errmsg(hs[w])))
			continue;
		ASSERT_EQ(memcgstat_result_status(res, 0), -ENODATA, "no memcg: -ENODATA");
		ASSERT_U64_EQ(memcgstat_result_values(res, 0)[0], MEMCGSTAT_NA, "no memcg: NA");
		memcgstat_result_free(res);
		ASSERT_EQ(memcgstat_read(hs[w], nomem, &res), -ENODATA, "read by path: -ENODATA");
		ASSERT_HAS_SUBSTR(memcgstat_errmsg(hs[w]), "no memory controller", "message");
	}
}

/*
 * The root: a value on one backend where the other has none (NA) is one
 * the kernel does not give for it. Only which columns are NA is compared:
 * the root's values move between two reads. Before, bpf gave the v2
 * root's usage (its page counter: the children's charges summed) and a
 * working_set made of it, where the root has no memory.current.
 */
static void test_root_na(struct memcgstat **hs)
{
	struct memcgstat_result *r[NR_HANDLES + 1] = {};
	size_t i, n = memcgstat_nr_columns(hs[TEXT]);
	int w, bad;

	for (w = 0; w < NR_HANDLES; w++)
		if (!ASSERT_OK(memcgstat_read(hs[w], "/", &r[w]), memcgstat_errmsg(hs[w])))
			goto out;
	/* and the root's row of a snapshot of the whole hierarchy, in its place */
	if (!ASSERT_OK(memcgstat_snapshot(hs[ITER], "/", NULL, 0, &r[NR_HANDLES]),
		       memcgstat_errmsg(hs[ITER])) ||
	    !ASSERT_U64_EQ(memcgstat_result_id(r[NR_HANDLES], 0), 1, "the snapshot's first row: the root's"))
		goto out;
	for (w = SYSCALL; w <= NR_HANDLES; w++) {
		const uint64_t *a = memcgstat_result_values(r[w], 0);
		const uint64_t *t = memcgstat_result_values(r[TEXT], 0);

		if (w == TEXT)
			continue;
		for (i = bad = 0; i < n; i++) {
			if ((a[i] == MEMCGSTAT_NA) == (t[i] == MEMCGSTAT_NA))
				continue;
			PRINT_FAIL("root, %s: %s %llu on bpf, %llu on text (NA %llu)\n",
				   w == NR_HANDLES ? "snapshot" : handle_name[w],
				   memcgstat_column_name(hs[TEXT], i), (unsigned long long)a[i],
				   (unsigned long long)t[i], (unsigned long long)MEMCGSTAT_NA);
			bad++;
		}
		ASSERT_EQ(bad, 0, "the root's NA columns as text's");
	}
out:
	for (w = 0; w <= NR_HANDLES; w++)
		memcgstat_result_free(r[w]);
}

/* Rows @a and @b the same cgroups with the same values; differences printed. */
static int diff_results(struct memcgstat *h, const struct memcgstat_result *a,
			const struct memcgstat_result *b, bool print)
{
	size_t i, n = memcgstat_result_count(a);
	int bad = n != memcgstat_result_count(b);

	for (i = 0; !bad && i < n; i++) {
		const char *pa = memcgstat_result_path(a, i), *pb = memcgstat_result_path(b, i);

		bad += memcgstat_result_id(a, i) != memcgstat_result_id(b, i) ||
		       memcgstat_result_status(a, i) != memcgstat_result_status(b, i) ||
		       !pa != !pb || (pa && strcmp(pa, pb));
		bad += diff_rows(h, pa ? pa : "(id)", memcgstat_result_values(a, i),
				 memcgstat_result_values(b, i), print);
	}
	if (bad && print)
		printf("  %zu rows against %zu\n", n, memcgstat_result_count(b));
	return bad;
}

/*
 * Reads into a kept result (memcgstat_*_into()): what a fresh result of the
 * same read holds, rows of unchanged cgroups in the memory they had, nothing
 * left of an earlier read (a removed cgroup's row has status and NA values,
 * not its last ones), a failed read leaves no rows and a result of another
 * handle's columns is refused.
 */
static void test_into(struct memcgstat **hs)
{
	struct memcgstat_result *res = NULL, *fresh = NULL, *other_res = NULL;
	struct memcgstat_opts opts = { .sz = sizeof(opts) };
	const char *anon = "anon", *path0;
	const uint64_t *vals0;
	struct memcgstat *other = NULL;
	uint64_t ids[2];
	char *gone = NULL;
	size_t c;
	int w, try, bad;

	for (w = 0; w < NR_HANDLES; w++) {
		res = memcgstat_result_new(hs[w]);
		if (!ASSERT_OK_PTR(res, "memcgstat_result_new"))
			return;
		for (try = 0, bad = 1; bad && try < 5; try++) {
			memcgstat_result_free(fresh);
			fresh = NULL;
			if (!ASSERT_OK(memcgstat_snapshot_into(hs[w], parent[0], NULL, 0, res),
				       memcgstat_errmsg(hs[w])) ||
			    !ASSERT_OK(memcgstat_snapshot(hs[w], parent[0], NULL, 0, &fresh),
				       memcgstat_errmsg(hs[w])))
				goto out;
			bad = diff_results(hs[w], res, fresh, try == 4);
			if (bad)
				usleep(200000);
		}
		if (!ASSERT_EQ(bad, 0, "snapshot_into equals snapshot") ||
		    !ASSERT_EQ(memcgstat_result_count(res), 1 + LEAVES, "parent and its leaves"))
			goto out;
		path0 = memcgstat_result_path(res, LEAVES);
		vals0 = memcgstat_result_values(res, LEAVES);
		if (!ASSERT_OK(memcgstat_snapshot_into(hs[w], parent[0], NULL, 0, res),
			       memcgstat_errmsg(hs[w])))
			goto out;
		ASSERT_TRUE(memcgstat_result_path(res, LEAVES) == path0 &&
			    memcgstat_result_values(res, LEAVES) == vals0,
			    "an unchanged row keeps its memory");

		/* a failed read: no rows, and the result still takes the next */
		ASSERT_EQ(memcgstat_read_into(hs[w], "memcg-batch-none", res), -ENOENT,
			  "read_into of a missing cgroup");
		ASSERT_EQ(memcgstat_result_count(res), 0, "no rows after a failure");
		if (!ASSERT_OK(memcgstat_read_into(hs[w], leaf[0][0], res), memcgstat_errmsg(hs[w])))
			goto out;
		ASSERT_EQ(memcgstat_result_count(res), 1, "one row");
		ASSERT_U64_EQ(memcgstat_result_id(res, 0), leaf_id[0][0], "its id");

		/* a cgroup read, removed, read again into the same row */
		gone = cg_create(top, "into-gone");
		if (!ASSERT_OK_PTR(gone, "create into-gone"))
			goto out;
		ids[0] = id_of(gone);
		ids[1] = leaf_id[1][3];
		if (!ASSERT_OK(memcgstat_read_ids_into(hs[w], ids, 2, res), memcgstat_errmsg(hs[w])))
			goto out;
		ASSERT_EQ(memcgstat_result_status(res, 0), 0, "read while there");
		ASSERT_TRUE(memcgstat_result_values(res, 0)[0] != MEMCGSTAT_NA, "a value while there");
		if (!ASSERT_OK(rmdir(gone), "rmdir into-gone"))
			goto out;
		free(gone);
		gone = NULL;
		if (!ASSERT_OK(memcgstat_read_ids_into(hs[w], ids, 2, res), memcgstat_errmsg(hs[w])))
			goto out;
		ASSERT_EQ(memcgstat_result_status(res, 0), -ENOENT, "removed: -ENOENT");
		for (c = 0; c < memcgstat_nr_columns(hs[w]); c++)
			if (!ASSERT_U64_EQ(memcgstat_result_values(res, 0)[c], MEMCGSTAT_NA,
					   "removed: NA, not the last values"))
				break;
		ASSERT_EQ(memcgstat_result_status(res, 1), 0, "the other row read");
		memcgstat_result_free(res);
		res = NULL;
	}

	/* a result made for other columns */
	opts.backend = MEMCGSTAT_BACKEND_TEXT;
	opts.stats = &anon;
	opts.nr_stats = 1;
	if (!ASSERT_OK(memcgstat_open(&opts, &other), memcgstat_errmsg(other)))
		goto out;
	other_res = memcgstat_result_new(other);
	ASSERT_EQ(memcgstat_read_ids_into(hs[SYSCALL], ids + 1, 1, other_res), -EINVAL,
		  "a result of other columns is refused");
	ASSERT_HAS_SUBSTR(memcgstat_errmsg(hs[SYSCALL]), "another handle", "and the message says why");
	printf("  snapshot_into/read_into/read_ids_into equal fresh reads on %d handles\n", NR_HANDLES);
out:
	if (gone)
		rmdir(gone);
	free(gone);
	memcgstat_result_free(res);
	memcgstat_result_free(fresh);
	memcgstat_result_free(other_res);
	memcgstat_close(other);
}

/* The path of the row of cgroup @id in @res, or NULL. */
static const char *path_in(const struct memcgstat_result *res, uint64_t id)
{
	size_t i;

	for (i = 0; i < memcgstat_result_count(res); i++)
		if (memcgstat_result_id(res, i) == id)
			return memcgstat_result_path(res, i);
	return NULL;
}

/* Rows of @got whose path is not the text backend's for @dir, printed. */
static size_t paths_differ(struct memcgstat **hs, const char *dir,
			   const struct memcgstat_result *got, const char *what)
{
	struct memcgstat_result *want = NULL;
	size_t i, bad = 0;

	if (!ASSERT_OK(memcgstat_snapshot(hs[TEXT], dir, NULL, 0, &want),
		       memcgstat_errmsg(hs[TEXT])))
		return 1;
	if (!ASSERT_EQ(memcgstat_result_count(got), memcgstat_result_count(want), what))
		bad = 1;
	for (i = 0; i < memcgstat_result_count(got); i++) {
		const char *p = memcgstat_result_path(got, i);
		const char *q = path_in(want, memcgstat_result_id(got, i));

		if (!p || !q || strcmp(p, q)) {
			if (bad++ < 5)
				printf("  %s: '%s', text: '%s'\n", what, p ? p : "(null)",
				       q ? q : "(null)");
		}
	}
	memcgstat_result_free(want);
	return bad;
}

/*
 * Below names/a/b: a chain of CHAIN_LEVELS cgroups "d", deeper than the
 * library's lineage of parents (32), with a sibling "s" at each of
 * SIDE_LEVELS: the parents of its rows come from the lineage, from the
 * cache past its depth, and back up the chain.
 */
#define CHAIN_LEVELS	40
#define NAMED_DIRS	(4 + CHAIN_LEVELS + 4)

/* names/a/b's chain, in made[4] on: 0 or -1 */
static int make_chain(char **made)
{
	static const int side[] = { 5, 31, 33, 39 };
	char rel[256] = "names/a/b";
	const char *up = made[2];
	size_t n = 4, s = 0, len;
	int k;

	for (k = 1; k <= CHAIN_LEVELS; k++) {
		if (cg_write(up, "cgroup.subtree_control", "+memory"))
			return -1;
		len = strlen(rel);
		if (s < ARRAY_SIZE(side) && side[s] == k) {
			strcpy(rel + len, "/s");
			made[n] = cg_create(top, rel);
			if (!made[n++])
				return -1;
			s++;
		}
		strcpy(rel + len, "/d");
		made[n] = cg_create(top, rel);
		if (!made[n++])
			return -1;
		up = made[n - 1];
	}
	return 0;
}

/*
 * Snapshot paths from the names the snapshot program records: a first
 * snapshot on a new handle, and cgroups made after the handle's cache was
 * filled (a walk again with names), short, nested, deep and too long to
 * be recorded (a scan then): each row's path is the text backend's.
 */
static void test_names(struct memcgstat **hs)
{
	static const char *const dirs[] = { "names", "names/a", "names/a/b" };
	struct memcgstat_result *got = NULL, *want = NULL;
	struct memcgstat *fresh = NULL;
	char lng[200], *made[NAMED_DIRS] = {};
	size_t i, bad = 0;
	int w, k;

	for (k = 0; k < 3; k++) {
		made[k] = cg_create(top, dirs[k]);
		if (!ASSERT_OK_PTR(made[k], dirs[k]) ||
		    (k < 2 && !ASSERT_OK(cg_write(made[k], "cgroup.subtree_control", "+memory"),
					 "+memory")))
			goto out;
	}
	if (!ASSERT_OK(make_chain(made), "a chain of 40 below names/a/b"))
		goto out;
	/* every name recorded: a new handle's first snapshot in one pass */
	fresh = open_handle(SYSCALL);
	if (!fresh || !ASSERT_OK(memcgstat_snapshot(fresh, top, NULL, 0, &got),
				 memcgstat_errmsg(fresh)))
		goto out;
	bad += paths_differ(hs, top, got, "first snapshot, names all recorded");
	memcgstat_close(fresh);
	fresh = NULL;
	memcgstat_result_free(got);
	got = NULL;
	memset(lng, 'l', 150);
	lng[150] = '\0';
	memcpy(lng, "names/a/", 8);
	made[3] = cg_create(top, lng);
	if (!ASSERT_OK_PTR(made[3], "a 142-byte name"))
		goto out;
	fresh = open_handle(SYSCALL);
	if (!fresh)
		goto out;
	if (!ASSERT_OK(memcgstat_snapshot(hs[TEXT], top, NULL, 0, &want), memcgstat_errmsg(hs[TEXT])))
		goto out;
	for (w = 0; w < 3; w++) {
		struct memcgstat *h = w == 0 ? fresh : hs[w == 1 ? SYSCALL : ITER];

		memcgstat_result_free(got);
		got = NULL;
		if (!ASSERT_OK(memcgstat_snapshot(h, top, NULL, 0, &got), memcgstat_errmsg(h)))
			goto out;
		/* a result outlives its handle: its paths are the cache's, lent */
		if (h == fresh) {
			memcgstat_close(fresh);
			fresh = NULL;
		}
		if (!ASSERT_EQ(memcgstat_result_count(got), memcgstat_result_count(want), "rows"))
			goto out;
		for (i = 0; i < memcgstat_result_count(got); i++) {
			const char *p = memcgstat_result_path(got, i);
			const char *q = path_in(want, memcgstat_result_id(got, i));

			if (!p || !q || strcmp(p, q)) {
				if (bad++ < 5)
					printf("  %s: '%s', text: '%s'\n", w ? "known handle" : "first snapshot",
					       p ? p : "(null)", q ? q : "(null)");
			}
		}
	}
	ASSERT_EQ(bad, 0, "paths equal the text backend's");
	ASSERT_TRUE(path_in(got, id_of(made[3])) != NULL, "the long name found by a scan");
	ASSERT_TRUE(path_in(got, id_of(made[NAMED_DIRS - 1])) != NULL, "the chain's end");
out:
	memcgstat_result_free(got);
	memcgstat_result_free(want);
	memcgstat_close(fresh);
	for (k = NAMED_DIRS - 1; k >= 0; k--) {
		if (made[k])
			rmdir(made[k]);
		free(made[k]);
	}
}

/*
 * What the snapshot program recorded in @h's last walk, which wanted
 * names: each record's name is the last component of its path in @want,
 * and its level is @top_level for the first record (the walk's top), one
 * more for the others. The records that differ.
 */
static size_t names_differ(struct memcgstat *h, const struct memcgstat_result *want,
			   uint32_t top_level)
{
	int fd_rec = memcgstat__testing_map_fd(h, "records");
	int fd_names = memcgstat__testing_map_fd(h, "names");
	struct memcg_iter *skel = memcgstat__testing_skel(h);
	struct mcs_record *rec = calloc(1, sizeof(*rec));
	size_t i, len, n, bad = 0;
	struct mcs_name nm;
	const char *path;
	bool ok;

	if (!ASSERT_OK_PTR(skel, "the library's skeleton") || !ASSERT_GE(fd_rec, 0, "records") ||
	    !ASSERT_GE(fd_names, 0, "names") || !ASSERT_OK_PTR(rec, "calloc")) {
		free(rec);
		return 1;
	}
	n = skel->bss->walk.nr_records;
	for (i = 0; i < n; i++) {
		uint32_t key = i;

		/* the records map's values are shorter than struct mcs_record */
		if (bpf_map_lookup_elem(fd_rec, &key, rec) ||
		    bpf_map_lookup_elem(fd_names, &key, &nm)) {
			bad++;
			continue;
		}
		path = path_in(want, rec->id);
		len = strnlen(nm.name, sizeof(nm.name));
		ok = path && len < sizeof(nm.name) && !strcmp(nm.name, strrchr(path, '/') + 1) &&
		     nm.level == top_level + (i ? 1 : 0);
		if (!ok && bad++ < 5)
			printf("  record %zu: '%.*s' level %u, text: '%s'\n", i, (int)len, nm.name,
			       nm.level, path ? path : "(null)");
	}
	free(rec);
	return bad;
}

/*
 * Names as the snapshot program records them: every length from 1 to 110
 * bytes (what the names map's 112 hold), and bytes that are not text
 * (0x01, 0x7f, 0x80, 0xff, UTF-8): a new handle's first snapshot names
 * each row as the text backend does, and each record holds its name and
 * level. Then names of 111 to 120 bytes, not recorded: a scan finds them.
 * One name not recorded sends the whole snapshot to the scan, so the
 * first snapshot is taken before they exist.
 */
static void test_name_bytes(struct memcgstat **hs)
{
	static const char *const odd[] = {
		"\x01", "\x01\x01\x01\x01\x01\x01\x01", "\x01\x01\x01\x01\x01\x01\x01\x01",
		"\x7f\x80\xff", "\xff\xff\xff\xff\xff\xff\xff\xff\xff",
		"\xc3\xa9t\xc3\xa9", "a\x01" "b\x80" "c\xff" "d",
	};
	enum { NR_LENS = 120, RECORDED = 110, NR_ODD = sizeof(odd) / sizeof(odd[0]) };
	struct memcgstat_result *got = NULL, *want = NULL;
	struct memcgstat *fresh = NULL;
	char *dir, *made[NR_LENS + NR_ODD] = {}, name[NR_LENS + 1];
	size_t bad = 0;
	int k, round;

	dir = cg_create(top, "bytes");
	if (!ASSERT_OK_PTR(dir, "bytes") ||
	    !ASSERT_OK(cg_write(dir, "cgroup.subtree_control", "+memory"), "+memory"))
		goto out;
	for (round = 0; round < 2; round++) {
		for (k = 0; k < NR_LENS + NR_ODD; k++) {
			if ((k < RECORDED || k >= NR_LENS) == (round == 1))
				continue;	/* the long ones in round 1 */
			if (k < NR_LENS) {
				memset(name, 'a' + k % 26, k + 1);
				name[k + 1] = '\0';
			} else {
				snprintf(name, sizeof(name), "%s", odd[k - NR_LENS]);
			}
			made[k] = cg_create(dir, name);
			if (!ASSERT_OK_PTR(made[k], "a name of the kind"))
				goto out;
		}
		fresh = open_handle(SYSCALL);
		if (!fresh || !ASSERT_OK(memcgstat_snapshot(fresh, dir, NULL, 0, &got),
					 memcgstat_errmsg(fresh)))
			goto out;
		ASSERT_EQ(memcgstat_result_count(got),
			  (size_t)(round ? NR_LENS : RECORDED) + NR_ODD + 1, "rows");
		bad += paths_differ(hs, dir, got, round ? "names not recorded" : "names recorded");
		/* what the program recorded, against the names in cgroupfs */
		if (!round && ASSERT_OK(memcgstat_snapshot(hs[TEXT], dir, NULL, 0, &want),
					memcgstat_errmsg(hs[TEXT])))
			bad += names_differ(fresh, want, 2);	/* below /memcg-batch */
		memcgstat_result_free(want);
		want = NULL;
		memcgstat_result_free(got);
		got = NULL;
		memcgstat_close(fresh);
		fresh = NULL;
	}
	ASSERT_EQ(bad, 0, "paths equal the text backend's");
out:
	memcgstat_result_free(got);
	memcgstat_result_free(want);
	memcgstat_close(fresh);
	for (k = NR_LENS + NR_ODD - 1; k >= 0; k--) {
		if (made[k])
			rmdir(made[k]);
		free(made[k]);
	}
	if (dir)
		rmdir(dir);
	free(dir);
}

/*
 * A kept result's paths, lent by its handle's cache: read into again
 * after a cgroup whose name is too long to be recorded made the cache
 * anew (a scan: its rows then come from two of the cache's pools), and
 * read after its handle is closed.
 */
static void test_lent(struct memcgstat **hs)
{
	static const char *const what[] = { "first", "after a scan", "handle closed" };
	struct memcgstat *h = open_handle(SYSCALL);
	struct memcgstat_result *kept = h ? memcgstat_result_new(h) : NULL;
	char lng[200], *made = NULL;
	size_t bad = 0;
	int round;

	if (!ASSERT_OK_PTR(kept, "a kept result"))
		goto out;
	for (round = 0; round < 3; round++) {
		if (round == 1) {
			memset(lng, 'l', 150);
			lng[150] = '\0';
			memcpy(lng, "lent-", 5);
			made = cg_create(top, lng);
			if (!ASSERT_OK_PTR(made, "a 150-byte name"))
				goto out;
		}
		if (round < 2 && !ASSERT_OK(memcgstat_snapshot_into(h, top, NULL, 0, kept),
					    memcgstat_errmsg(h)))
			goto out;
		if (round == 2) {
			memcgstat_close(h);
			h = NULL;
		}
		bad += paths_differ(hs, top, kept, what[round]);
	}
	ASSERT_EQ(bad, 0, "paths equal the text backend's");
out:
	memcgstat_result_free(kept);
	memcgstat_close(h);
	if (made)
		rmdir(made);
	free(made);
}

/*
 * Round @r: @n cgroups gR_0 .. below @dir, round r - 1's removed, and a
 * snapshot of @dir into @res. Rows whose path is not the top's, stay's or
 * one of this round's cgroups (by path and id) count in *bad. The rows, or
 * -1.
 */
static int cache_round(struct memcgstat *h, struct memcgstat_result *res, const char *dir,
		       int r, int n, size_t *bad)
{
	size_t rl = strlen(cg_root()), dl = strlen(dir) - rl, i;
	const char *rel = dir + rl;
	char name[512], *made;
	int k, gr, gk, end;

	for (k = 0; r > 0 && k < n; k++) {
		snprintf(name, sizeof(name), "%s/g%d_%d", dir, r - 1, k);
		rmdir(name);
	}
	for (k = 0; k < n; k++) {
		snprintf(name, sizeof(name), "g%d_%d", r, k);
		made = cg_create(dir, name);
		if (!made)
			return -1;
		free(made);
	}
	if (memcgstat_snapshot_into(h, dir, NULL, 0, res)) {
		PRINT_FAIL("snapshot of %s: %s\n", dir, memcgstat_errmsg(h));
		return -1;
	}
	for (i = 0; i < memcgstat_result_count(res); i++) {
		const char *p = memcgstat_result_path(res, i), *leaf;

		if (p && !strcmp(p, rel))
			continue;
		end = 0;
		if (!p || strncmp(p, rel, dl) || p[dl] != '/') {
			(*bad)++;
			continue;
		}
		leaf = p + dl + 1;
		snprintf(name, sizeof(name), "%s%s", cg_root(), p);
		if ((strcmp(leaf, "stay") &&
		     (sscanf(leaf, "g%d_%d%n", &gr, &gk, &end) != 2 || leaf[end] || gr != r)) ||
		    id_of(name) != memcgstat_result_id(res, i))
			(*bad)++;
	}
	return memcgstat_result_count(res);
}

/*
 * The id -> path cache of a monitor on a churning tree: cgroup ids are not
 * reused, so without eviction it holds every cgroup the handle ever saw.
 * 120 rounds of 25 new cgroups replacing the last 25 put 3,000 and more ids
 * through one handle; the cache must stay within twice the cgroups of its
 * last 17 reads (it keeps those of the last 16), and every path must be
 * right, also of a cgroup reused unchanged for 30 reads before a wave of
 * new ones makes the cache grow (and drop what those reads did not find).
 */
static void test_path_cache(struct memcgstat **hs __attribute__((unused)))
{
	struct memcgstat_result *res = NULL;
	struct memcgstat *h = open_handle(SYSCALL);
	char *dir = cg_create(top, "cache"), *stay = NULL, path[512];
	const char *got;
	size_t bad = 0, n;
	int r, rows = 0, k;

	if (!h || !ASSERT_OK_PTR(dir, "cg_create cache") ||
	    !ASSERT_OK(cg_write(dir, "cgroup.subtree_control", "+memory"), "+memory"))
		goto out;
	stay = cg_create(dir, "stay");
	res = memcgstat_result_new(h);
	if (!ASSERT_OK_PTR(stay, "cg_create stay") || !ASSERT_OK_PTR(res, "result"))
		goto out;
	for (r = 0; r < 120 && rows >= 0; r++)
		rows = cache_round(h, res, dir, r, 25, &bad);
	if (!ASSERT_EQ(rows, 27, "rows: the top, stay and 25 new"))
		goto out;
	n = memcgstat__testing_nr_paths(h);
	ASSERT_TRUE(n <= 2 * 17 * 27, "cache entries after 3,000 cgroups came and went");
	if (n > 2 * 17 * 27)
		printf("  %zu cache entries, at most %d expected\n", n, 2 * 17 * 27);
	if (env_verbose)
		printf("  %zu cache entries after %d rounds\n", n, r);
	/* 30 reads of a steady tree, then 600 new cgroups at once */
	for (k = 0; k < 30; k++)
		if (!ASSERT_OK(memcgstat_snapshot_into(h, dir, NULL, 0, res), memcgstat_errmsg(h)))
			goto out;
	rows = cache_round(h, res, dir, r, 600, &bad);
	ASSERT_EQ(rows, 602, "rows: the top, stay and 600 new");
	snprintf(path, sizeof(path), "%s", stay + strlen(cg_root()));
	got = NULL;
	for (n = 0; n < memcgstat_result_count(res); n++)
		if (memcgstat_result_id(res, n) == id_of(stay))
			got = memcgstat_result_path(res, n);
	ASSERT_TRUE(got && !strcmp(got, path), "stay's path after the wave");
	ASSERT_EQ(bad, 0, "rows at another cgroup's path");
	for (k = 0; k < 600; k++) {
		snprintf(path, sizeof(path), "%s/g%d_%d", dir, r, k);
		rmdir(path);
	}
	for (k = 0; k < 25; k++) {
		snprintf(path, sizeof(path), "%s/g%d_%d", dir, r - 1, k);
		rmdir(path);
	}
out:
	memcgstat_result_free(res);
	memcgstat_close(h);
	if (stay)
		rmdir(stay);
	if (dir)
		rmdir(dir);
	free(stay);
	free(dir);
}

/* The batch program itself: which cgroup did it flush? */
static void test_lca(struct memcgstat **hs __attribute__((unused)))
{
	struct mcs_batch req = {};
	struct memcg_iter *skel;
	char *other = cg_create(NULL, "memcg-batch-other");
	uint64_t root_id = id_of(cg_root());
	struct {
		const char *name;
		int n;
		uint64_t ids[4];
		uint64_t want;
	} cases[] = {
		{ "one id: itself", 1, { leaf_id[0][1] }, leaf_id[0][1] },
		{ "siblings: their parent", 2, { leaf_id[0][1], leaf_id[0][2] }, id_of(parent[0]) },
		{ "cousins: the grandparent", 2, { leaf_id[0][1], leaf_id[1][1] }, id_of(top) },
		{ "a cgroup and its ancestor", 2, { leaf_id[0][1], id_of(parent[0]) }, id_of(parent[0]) },
		{ "different depths", 3, { leaf_id[0][1], id_of(nomem), leaf_id[1][2] }, id_of(top) },
		{ "gone ids do not count", 2, { leaf_id[0][1], 0xfffffffff0ULL }, leaf_id[0][1] },
		{ "another top-level cgroup: the root", 2, { leaf_id[0][1], id_of(other) }, root_id },
		{ "no live id: no flush", 1, { 0xfffffffff0ULL }, 0 },
	};
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	size_t i;
	int err;

	skel = memcg_iter__open();
	if (!ASSERT_OK_PTR(skel, "open") || !ASSERT_OK_PTR(other, "mkdir"))
		goto out;
	skel->rodata->nr_items = 1;
	((struct mcs_item *)skel->rodata->items)[0].kind = MCS_USAGE;
	bpf_map__set_value_size(skel->maps.records, MCS_RECORD_SIZE(1));
	bpf_map__set_max_entries(skel->maps.records, MCS_MAX_BATCH);
	if (!ASSERT_OK(memcg_iter__load(skel), "load"))
		goto out;
	topts.ctx_in = &req;
	topts.ctx_size_in = sizeof(req);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		req.nr_ids = cases[i].n;
		memcpy(skel->bss->batch_ids, cases[i].ids, sizeof(cases[i].ids));
		err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.batch), &topts);
		if (!ASSERT_OK(err, "run") || !ASSERT_EQ(topts.retval, 0, "retval"))
			break;
		ASSERT_U64_EQ(skel->bss->batch_flushed, cases[i].want, cases[i].name);
	}
	req.nr_ids = MCS_MAX_BATCH + 1;
	err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.batch), &topts);
	ASSERT_OK(err, "run");
	ASSERT_EQ((int)topts.retval, -E2BIG, "the program refuses a batch above the maximum");
	/* the context must hold the count */
	topts.ctx_size_in = 2;
	ASSERT_ERR(bpf_prog_test_run_opts(bpf_program__fd(skel->progs.batch), &topts),
		   "a short context is refused");
out:
	memcg_iter__destroy(skel);
	if (other)
		rmdir(other);
	free(other);
}

/* After "setup", on its handles (the last two open their own). */
static const struct {
	const char *name;
	void (*run)(struct memcgstat **hs);
} subtests[] = {
	{ "single", test_single },
	{ "batches", test_batches },
	{ "gone", test_gone },
	{ "no_memcg", test_no_memcg },
	{ "root_na", test_root_na },
	{ "into", test_into },
	{ "names", test_names },
	{ "name_bytes", test_name_bytes },
	{ "lent_paths", test_lent },
	{ "flush_at_lca", test_lca },
	{ "path_cache_churn", test_path_cache },
};

void test_memcg_batch(void)
{
	struct memcgstat *hs[NR_HANDLES] = {};
	struct cg_child kids[2] = {};
	int w, p, i;

	if (!cg_is_v2()) {
		test__start_subtest("setup");
		test__skip("cgroup v1: cgroup ids name cgroup v2 cgroups only");
		return;
	}
	if (!test__start_subtest("setup"))
		return;
	if (!ASSERT_OK(make_tree(), "make the tree") ||
	    !ASSERT_OK(cg_run(leaf[0][0], hog, (void *)8UL, &kids[0]), "activity in p0/c0") ||
	    !ASSERT_OK(cg_run(leaf[1][3], hog, (void *)4UL, &kids[1]), "activity in p1/c3"))
		goto out;
	for (w = 0; w < NR_HANDLES; w++) {
		hs[w] = open_handle(w);
		if (!hs[w])
			goto out;
	}
	ASSERT_EQ(memcgstat_query(hs[SYSCALL]), MEMCGSTAT_QUERY_SYSCALL, "syscall path chosen");
	ASSERT_EQ(memcgstat_query(hs[ITER]), MEMCGSTAT_QUERY_ITER, "iter path chosen");

	for (i = 0; i < (int)ARRAY_SIZE(subtests); i++)
		if (test__start_subtest(subtests[i].name))
			subtests[i].run(hs);
out:
	for (w = 0; w < NR_HANDLES; w++)
		memcgstat_close(hs[w]);
	for (i = 0; i < 2; i++)
		if (kids[i].pid)
			cg_child_finish(&kids[i]);
	system("rm -f /tmp/memcg-batch-*");
	if (top)
		cg_destroy(top);
	for (p = 0; p < 2; p++) {
		free(parent[p]);
		for (i = 0; i < LEAVES; i++)
			free(leaf[p][i]);
	}
	free(nomem);
	free(top);
}
