// SPDX-License-Identifier: GPL-2.0
/*
 * Booted with cgroup.memory=nokmem: memcgs are never charged for kernel
 * memory, so the kmem items read -1 (unavailable), not a 0 that looks
 * measured, while the other items still read real values.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <unistd.h>
#include "test_progs.h"
#include "memcg_util.h"

static const char *const kmem_items[] = {
	"MEMCG_KMEM", "NR_KERNEL_STACK_KB", "NR_PAGETABLE",
	"NR_SECONDARY_PAGETABLE", "MEMCG_PERCPU_B", "MEMCG_VMALLOC",
	"MEMCG_ZSWAP_B", "MEMCG_ZSWAPPED", "NR_SLAB_RECLAIMABLE_B",
	"NR_SLAB_UNRECLAIMABLE_B",
};

static const char *const other_items[] = {
	"NR_ANON_MAPPED", "NR_FILE_PAGES", "NR_SHMEM", "MEMCG_SOCK",
};

void test_memcg_nokmem(void)
{
	const int nk = sizeof(kmem_items) / sizeof(kmem_items[0]);
	const int no = sizeof(other_items) / sizeof(other_items[0]);
	struct mcs_item items[MCS_MAX_ITEMS] = {};
	__u64 values[MCS_MAX_ITEMS];
	struct cg_child child = {};
	struct memcg_query *skel;
	char name[64], *cg, *cmdline, *stat;
	int i, n = 0;

	if (!test__start_subtest("kmem_items_unavailable"))
		return;
	cmdline = cg_read("/proc", "cmdline");
	if (!ASSERT_OK_PTR(cmdline, "read /proc/cmdline"))
		return;
	if (!ASSERT_OK_PTR(strstr(cmdline, "cgroup.memory=nokmem"),
			   "booted with cgroup.memory=nokmem")) {
		free(cmdline);
		return;
	}
	free(cmdline);
	skel = query_open();
	if (!ASSERT_OK_PTR(skel, "query_open"))
		return;
	snprintf(name, sizeof(name), "memcgstat_nokmem_%d", getpid());
	cg = cg_create(NULL, name);
	if (!ASSERT_OK_PTR(cg, "cg_create"))
		return;
	if (!ASSERT_OK(cg_run(cg, touch_anon, (void *)8, &child), "anon"))
		goto out;

	for (i = 0; i < nk; i++) {
		int idx = enum_val(kmem_items[i]);

		items[n++] = (struct mcs_item){ .kind = MCS_PAGE_STATE, .idx = idx };
		items[n++] = (struct mcs_item){ .kind = MCS_PAGE_STATE_LOCAL, .idx = idx };
	}
	for (i = 0; i < no; i++)
		items[n++] = (struct mcs_item){ .kind = MCS_PAGE_STATE,
						.idx = enum_val(other_items[i]) };
	if (!ASSERT_OK(query_run(skel, cg, items, n, values), "query_run"))
		goto out;
	for (i = 0; i < 2 * nk; i++)
		ASSERT_U64_EQ(values[i], MCS_INVALID, kmem_items[i / 2]);
	for (i = 0; i < no; i++)
		ASSERT_TRUE(values[2 * nk + i] != MCS_INVALID, other_items[i]);
	ASSERT_GT(values[2 * nk], (8 << 20) - 1, "anon read while kmem is off");

	/* What the kernel itself shows: no kernel memory charged at all. */
	stat = cg_read(cg, "memory.stat");
	if (ASSERT_OK_PTR(stat, "memory.stat")) {
		ASSERT_EQ(kv_get(stat, "kernel"), 0, "memory.stat kernel");
		ASSERT_EQ(kv_get(stat, "pagetables"), 0, "memory.stat pagetables");
	}
	free(stat);
out:
	cg_child_finish(&child);
	ASSERT_OK(cg_destroy(cg), "cg_destroy");
	free(cg);
}
