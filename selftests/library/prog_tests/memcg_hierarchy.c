// SPDX-License-Identifier: GPL-2.0
/*
 * A parent's hierarchical value of every counter equals its local value
 * plus its children's hierarchical values.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <unistd.h>
#include "test_progs.h"
#include "memcg_util.h"

struct counter {
	const char *name;
	int hier_kind, local_kind, idx;
};

static int collect(struct counter *c, int max)
{
	const struct btf *btf = items_btf();
	size_t i;
	int n = 0;

	for (i = 0; i < mcs_nr_stat_defs && n < max; i++) {
		const struct mcs_stat_def *def = &mcs_stat_defs[i];
		int val;

		if (def->parts[1] || !def->parts[0] ||
		    mcs_btf_enum_value(btf, def->parts[0], &val))
			continue;	/* derived, usage, or not in this kernel */
		if (def->src == MCS_SRC_PAGE_STATE) {
			c[n].hier_kind = MCS_PAGE_STATE;
			c[n].local_kind = MCS_PAGE_STATE_LOCAL;
		} else if (def->src == MCS_SRC_VM_EVENT) {
			c[n].hier_kind = MCS_VM_EVENTS;
			c[n].local_kind = MCS_VM_EVENTS_LOCAL;
		} else {
			continue;
		}
		c[n].name = def->name;
		c[n].idx = val;
		n++;
	}
	return n;
}

/* values: [0,n) P hier, [n,2n) P local, [2n,3n) A hier, [3n,4n) B hier */
static int read_all(struct memcg_items *skel, char *cg[3],
		    const struct counter *c, int n, __u64 *v)
{
	struct mcs_item items[MCS_MAX_ITEMS] = {};
	int i, err;

	for (i = 0; i < n; i++) {
		items[i].kind = c[i].hier_kind;
		items[i].idx = c[i].idx;
		items[n + i].kind = c[i].local_kind;
		items[n + i].idx = c[i].idx;
	}
	err = items_run(skel, cg[0], items, 2 * n, v);
	if (!err)
		err = items_run(skel, cg[1], items, n, v + 2 * n);
	if (!err)
		err = items_run(skel, cg[2], items, n, v + 3 * n);
	return err;
}

void test_memcg_hierarchy(void)
{
	struct cg_child ca = {}, cb = {}, cp = {};
	struct counter c[MCS_MAX_ITEMS / 2];
	__u64 v1[2 * MCS_MAX_ITEMS], v2[2 * MCS_MAX_ITEMS];
	struct memcg_items *skel;
	char *cg[3] = {};
	int n, i, try, bad = 0, nonzero = 0;

	if (!test__start_subtest("parent_is_local_plus_children"))
		return;
	skel = items_open();
	if (!ASSERT_OK_PTR(skel, "items_open"))
		return;
	n = collect(c, MCS_MAX_ITEMS / 2);
	if (!ASSERT_GT(n, 20, "counters to compare"))
		return;

	cg[0] = cg_create_own("hier");
	if (!ASSERT_OK_PTR(cg[0], "create parent"))
		return;
	if (cg_is_v2() &&
	    !ASSERT_OK(cg_write(cg[0], "cgroup.subtree_control", "+memory"),
		       "enable memory for the children"))
		goto out;
	cg[1] = cg_create(cg[0], "a");
	cg[2] = cg_create(cg[0], "b");
	if (!ASSERT_OK_PTR(cg[1], "create a") || !ASSERT_OK_PTR(cg[2], "create b"))
		goto out;
	if (!ASSERT_OK(cg_run(cg[1], touch_anon, (void *)8, &ca), "anon in a") ||
	    !ASSERT_OK(cg_run(cg[2], touch_memfd, (void *)4, &cb), "shmem in b"))
		goto out;
	/* v1 allows processes in inner cgroups: give the parent its own. */
	if (!cg_is_v2() &&
	    !ASSERT_OK(cg_run(cg[0], touch_anon, (void *)2, &cp), "anon in parent"))
		goto out;

	for (try = 0; try < 20; try++) {
		if (!ASSERT_OK(read_all(skel, cg, c, n, v1), "read") ||
		    !ASSERT_OK(read_all(skel, cg, c, n, v2), "read again"))
			goto out;
		if (memcmp(v1, v2, 4 * n * sizeof(__u64)))
			continue;	/* something moved between the reads */
		bad = nonzero = 0;
		for (i = 0; i < n; i++) {
			__u64 hier = v1[i], local = v1[n + i];
			__u64 a = v1[2 * n + i], b = v1[3 * n + i];

			if (hier == MCS_INVALID)
				continue;	/* not tracked by memcgs */
			nonzero += hier != 0;
			if (hier != local + a + b) {
				bad++;
				printf("  %s: parent %llu != local %llu + a %llu + b %llu\n",
				       c[i].name, (unsigned long long)hier,
				       (unsigned long long)local,
				       (unsigned long long)a, (unsigned long long)b);
			}
		}
		if (!bad)
			break;
	}
	ASSERT_EQ(bad, 0, "counters where parent != local + children");
	ASSERT_TRUE(try < 20, "two identical reads in a row");
	ASSERT_GT(nonzero, 5, "counters with activity");
	if (env_verbose)
		printf("  %d counters, %d non-zero, agreed after %d tries\n", n, nonzero, try + 1);
out:
	cg_child_finish(&ca);
	cg_child_finish(&cb);
	cg_child_finish(&cp);
	if (cg[0])
		ASSERT_OK(cg_destroy(cg[0]), "cg_destroy");
	for (i = 0; i < 3; i++)
		free(cg[i]);
}
