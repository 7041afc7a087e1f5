// SPDX-License-Identifier: GPL-2.0
/*
 * Booted with cgroup.memory=nokmem: memcgs are never charged for kernel
 * memory. The kfuncs return the kmem counters as they are, 0, which is what
 * memory.stat prints (as Linux 7.0 does: they are still valid stats), and
 * every other counter still equals memory.stat.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <unistd.h>
#include "test_progs.h"
#include "memcg_util.h"

/* kmem items and their memory.stat keys (NULL: memory.stat omits it here) */
static const struct {
	const char *item;
	const char *key;
} kmem_items[] = {
	{ "MEMCG_KMEM", "kernel" },
	{ "NR_KERNEL_STACK_KB", "kernel_stack" },
	{ "NR_PAGETABLE", "pagetables" },
	{ "NR_SECONDARY_PAGETABLE", "sec_pagetables" },
	{ "MEMCG_PERCPU_B", "percpu" },
	{ "NR_SLAB_RECLAIMABLE_B", "slab_reclaimable" },
	{ "NR_SLAB_UNRECLAIMABLE_B", "slab_unreclaimable" },
	{ "MEMCG_VMALLOC", NULL },
	{ "MEMCG_ZSWAP_B", NULL },
	{ "MEMCG_ZSWAPPED", NULL },
};

void test_memcg_nokmem(void)
{
	const int nk = sizeof(kmem_items) / sizeof(kmem_items[0]);
	struct mcs_item items[MCS_MAX_ITEMS] = {};
	__u64 values[MCS_MAX_ITEMS];
	struct cg_child child = {};
	struct memcg_items *skel;
	char *cg, *cmdline, *stat = NULL;
	int i, n = 0;

	if (!test__start_subtest("kmem_items_read_as_memory_stat"))
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
	cg = items_setup(&skel, "nokmem");
	if (!cg)
		return;
	if (!ASSERT_OK(cg_run(cg, touch_anon, (void *)8, &child), "anon"))
		goto out;

	/* Every memory.stat counter, kmem ones included, equals its kfunc. */
	ASSERT_GT(check_view(cg, VIEW_STAT, &stat), 40, "memory.stat equals the kfuncs");
	if (!ASSERT_OK_PTR(stat, "memory.stat"))
		goto out;
	for (i = 0; i < nk; i++) {
		int idx = enum_val(kmem_items[i].item);

		items[n++] = (struct mcs_item){ .kind = MCS_PAGE_STATE, .idx = idx };
		items[n++] = (struct mcs_item){ .kind = MCS_PAGE_STATE_LOCAL, .idx = idx };
	}
	if (!ASSERT_OK(items_run(skel, cg, items, n, values), "items_run"))
		goto out;
	/* Nothing is charged: 0 in the kernel's file and 0 from the kfuncs. */
	for (i = 0; i < nk; i++) {
		if (kmem_items[i].key)
			ASSERT_U64_EQ(kv_get(stat, kmem_items[i].key), 0, kmem_items[i].key);
		ASSERT_U64_EQ(values[2 * i], 0, kmem_items[i].item);
		ASSERT_U64_EQ(values[2 * i + 1], 0, kmem_items[i].item);
	}
out:
	free(stat);
	cg_child_finish(&child);
	ASSERT_OK(cg_destroy(cg), "cg_destroy");
	free(cg);
}
