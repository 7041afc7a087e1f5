// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_get_root_mem_cgroup() from a syscall program: get, flush, read, put
 * (KF_ACQUIRE, as in Linux 7.0) reads what the iterator reads for the root
 * cgroup. read_root reads items of every kind from .bss, so its load shows
 * that every reader accepts the root memcg.
 */
#include <stdlib.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "test_progs.h"
#include "memcg_util.h"
#include "memcg_items.skel.h"

void test_memcg_root(void)
{
	static const char *const names[] = {
		"NR_FILE_PAGES", "NR_ANON_MAPPED", "NR_SHMEM", "NR_INACTIVE_FILE",
		"NR_ACTIVE_FILE",
	};
	const int n = sizeof(names) / sizeof(names[0]);
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	struct mcs_item items[MCS_MAX_ITEMS] = {};
	__u64 by_iter[MCS_MAX_ITEMS], by_root[MCS_MAX_ITEMS];
	struct memcg_items *skel;
	int i, try, err;

	if (!test__start_subtest("root_get_read_put"))
		return;
	skel = items_open();
	if (!ASSERT_OK_PTR(skel, "items_open"))
		return;
	for (i = 0; i < n; i++) {
		items[i].kind = MCS_PAGE_STATE;
		items[i].idx = enum_val(names[i]);
	}
	for (try = 0; try < 20; try++) {
		err = items_run(skel, cg_root(), items, n, by_iter);
		if (!ASSERT_OK(err, "read the root by iterator"))
			return;
		/* items_run left items and nr_items in place */
		err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.read_root), &topts);
		if (!ASSERT_OK(err, "run read_root") ||
		    !ASSERT_EQ(topts.retval, 0, "read_root found the root memcg"))
			return;
		memcpy(by_root, skel->bss->values, n * sizeof(__u64));
		if (!memcmp(by_iter, by_root, n * sizeof(__u64)))
			break;
	}
	ASSERT_TRUE(try < 20, "root memcg reads equal the root cgroup's");
	ASSERT_GT(by_root[0], 0, "root file pages");
}
