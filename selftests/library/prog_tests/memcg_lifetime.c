// SPDX-License-Identifier: GPL-2.0
/*
 * The kfuncs on cgroups that go away: an iterator link held on a removed
 * cgroup, and tree walks while cgroups are created and removed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "test_progs.h"
#include "memcg_util.h"
#include "memcg_items.skel.h"

static void set_items(struct memcg_items *skel)
{
	static const char *const names[] = {
		"NR_ANON_MAPPED", "NR_FILE_PAGES", "NR_SHMEM", "MEMCG_KMEM",
	};
	size_t i;

	for (i = 0; i < 4; i++) {
		skel->bss->items[i].kind = MCS_PAGE_STATE;
		skel->bss->items[i].idx = enum_val(names[i]);
	}
	skel->bss->items[4].kind = MCS_USAGE;
	skel->bss->items[5].kind = MCS_VM_EVENTS;
	skel->bss->items[5].idx = enum_val("PGFAULT");
	skel->bss->nr_items = 6;
}

static void removed_cgroup(struct memcg_items *skel)
{
	struct cg_child child = {};
	struct bpf_link *link = NULL;
	char name[64], *cg;
	struct stat st;

	snprintf(name, sizeof(name), "memcgstat_gone_%d", getpid());
	cg = cg_create(NULL, name);
	if (!ASSERT_OK_PTR(cg, "cg_create"))
		return;
	if (!ASSERT_OK(stat(cg, &st), "stat") ||
	    !ASSERT_OK(cg_run(cg, touch_memfd, (void *)4, &child), "shmem"))
		goto out;
	link = cg_iter_attach(skel->progs.read_one, cg, BPF_CGROUP_ITER_SELF_ONLY);
	if (!ASSERT_OK_PTR(link, "attach"))
		goto out;
	set_items(skel);
	skel->bss->cgroup_id = 0;
	if (!ASSERT_OK(cg_iter_read(link), "read the live cgroup") ||
	    !ASSERT_U64_EQ(skel->bss->cgroup_id, st.st_ino, "the iterator saw the cgroup"))
		goto out;

	cg_child_finish(&child);
	if (!ASSERT_OK(cg_destroy(cg), "remove the cgroup under the link"))
		goto out;
	/* cgroup_iter skips a dead cgroup: the read works and shows nothing */
	skel->bss->cgroup_id = 0;
	ASSERT_OK(cg_iter_read(link), "read the removed cgroup's iterator");
	ASSERT_U64_EQ(skel->bss->cgroup_id, 0, "the removed cgroup was skipped");
out:
	bpf_link__destroy(link);
	cg_child_finish(&child);
	cg_destroy(cg);
	free(cg);
}

struct churn {
	const char *root;
	atomic_int stop;
	atomic_int changes;	/* cgroups created or removed */
};

static void *churn_thread(void *arg)
{
	struct churn *c = arg;
	char path[256];
	int i;

	for (i = 0; !atomic_load(&c->stop); i++) {
		snprintf(path, sizeof(path), "%s/c%d", c->root, i % 32);
		if (!mkdir(path, 0755))
			atomic_fetch_add(&c->changes, 1);
		snprintf(path, sizeof(path), "%s/c%d", c->root, (i + 16) % 32);
		if (!rmdir(path))
			atomic_fetch_add(&c->changes, 1);
	}
	return NULL;
}

static void concurrent_walk(struct memcg_items *skel)
{
	struct churn c = {};
	struct bpf_link *link = NULL;
	char name[64], *cg;
	pthread_t thr;
	int i, fails = 0, walks = 0;
	__u32 most = 0;

	snprintf(name, sizeof(name), "memcgstat_churn_%d", getpid());
	cg = cg_create(NULL, name);
	if (!ASSERT_OK_PTR(cg, "cg_create"))
		return;
	if (cg_is_v2())
		cg_write(cg, "cgroup.subtree_control", "+memory");
	link = cg_iter_attach(skel->progs.walk, cg, BPF_CGROUP_ITER_DESCENDANTS_PRE);
	if (!ASSERT_OK_PTR(link, "attach"))
		goto out;
	set_items(skel);
	c.root = cg;
	if (!ASSERT_OK(pthread_create(&thr, NULL, churn_thread, &c), "pthread_create"))
		goto out;
	/* Walk until the tree changed a few hundred times under the walks. */
	for (i = 0; i < 20000 && (atomic_load(&c.changes) < 400 || walks < 50); i++) {
		skel->bss->visited = 0;
		if (cg_iter_read(link))
			fails++;
		walks++;
		if (skel->bss->visited > most)
			most = skel->bss->visited;
	}
	atomic_store(&c.stop, 1);
	pthread_join(thr, NULL);
	ASSERT_EQ(fails, 0, "failed walks");
	ASSERT_GT(atomic_load(&c.changes), 399, "cgroups created and removed during the walks");
	ASSERT_GT(most, 1, "a walk saw children");
	if (env_verbose)
		printf("  %d walks, %d cgroups created or removed, at most %u seen\n",
		       walks, atomic_load(&c.changes), most);
out:
	bpf_link__destroy(link);
	ASSERT_OK(cg_destroy(cg), "cg_destroy");
	free(cg);
}

void test_memcg_lifetime(void)
{
	struct memcg_items *skel = NULL;

	if (test__start_subtest("removed_cgroup_link")) {
		skel = items_open();
		if (ASSERT_OK_PTR(skel, "items_open"))
			removed_cgroup(skel);
	}
	if (test__start_subtest("walk_while_churning")) {
		skel = items_open();
		if (ASSERT_OK_PTR(skel, "items_open"))
			concurrent_walk(skel);
	}
}
