// SPDX-License-Identifier: GPL-2.0
/*
 * The kfuncs on cgroups that go away: an iterator link held on a removed
 * cgroup, and tree walks while cgroups are created and removed; the
 * library's snapshot iterator attached to a tree removed before it is read;
 * a cgroup held by a BPF map while it is removed and its memcg offlined and
 * freed; and cgroups removed while the library reads their ids, between the
 * batch program's lookup and its read, or an iterator's attach and its read
 * (windows no test can aim at: hit by many tries, and counted).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "test_progs.h"
#include "memcg_util.h"
#include "memcgstat.h"
#include "memcg_iter.h"
#include "memcg_iter.skel.h"
#include "memcg_items.skel.h"
#include "memcg_hold.skel.h"

#define MiB		(1ULL << 20)
#define PLAUSIBLE	(1ULL << 40)	/* no byte count of the VM gets here */
#define TRIES		300		/* cgroups removed under reads of their ids */

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
	char *cg;
	struct stat st;

	cg = cg_create_own("gone");
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
	char *cg;
	pthread_t thr;
	int i, fails = 0, walks = 0;
	__u32 most = 0;

	cg = cg_create_own("churn");
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

/* tmpfs page cache charged to the child's cgroup: it outlives the child */
static char tmpfile_name[64];

static int write_tmpfile(void *mib)
{
	static char buf[65536];
	size_t i, n = (unsigned long)mib * (MiB / sizeof(buf));
	FILE *f = fopen(tmpfile_name, "w");

	if (!f)
		return -errno;
	memset(buf, 3, sizeof(buf));
	for (i = 0; i < n; i++)
		if (fwrite(buf, sizeof(buf), 1, f) != 1)
			break;
	return fclose(f) || i < n ? -EIO : 0;
}

static struct memcgstat *open_bpf(enum memcgstat_query query)
{
	static const char *const some[] = { "anon", "file", "shmem", "usage", "pgfault" };

	return lib_open(MEMCGSTAT_BACKEND_BPF, query, some, ARRAY_SIZE(some));
}

/*
 * The library's snapshot program attached to a tree (with a task and
 * memory in its leaf) that is removed before the link is read: the read
 * works and records nothing.
 */
static void snapshot_link_removed(void)
{
	struct memcgstat *h = open_bpf(MEMCGSTAT_QUERY_AUTO);
	struct cg_child child = {};
	int link = -1;
	struct memcg_iter *skel;
	char *t = NULL, *a = NULL, *b = NULL;

	if (!h)
		return;
	skel = memcgstat__testing_skel(h);
	if (!ASSERT_OK_PTR(skel, "the library's skeleton"))
		goto out;
	t = cg_create_own("snaplink");
	if (!ASSERT_OK_PTR(t, "cg_create"))
		goto out;
	if (cg_is_v2())
		cg_write(t, "cgroup.subtree_control", "+memory");
	a = cg_create(t, "a");
	if (!ASSERT_OK_PTR(a, "cg_create a"))
		goto out;
	if (cg_is_v2())
		cg_write(a, "cgroup.subtree_control", "+memory");
	b = cg_create(a, "b");
	if (!ASSERT_OK_PTR(b, "cg_create b") ||
	    !ASSERT_OK(cg_run(b, touch_anon, (void *)2, &child), "a task with memory in b"))
		goto out;
	link = cg_iter_attach_fd(memcgstat__testing_prog_fd(h, "snapshot"), t,
				 BPF_CGROUP_ITER_DESCENDANTS_PRE);
	if (!ASSERT_GE(link, 0, "attach the snapshot program"))
		goto out;
	memset(&skel->bss->walk, 0, sizeof(skel->bss->walk));
	skel->bss->walk_flushed = false;
	skel->bss->filter_ids = false;
	skel->bss->want_names = false;
	if (!ASSERT_OK(cg_iter_read_fd(link), "read the live tree") ||
	    !ASSERT_EQ(skel->bss->walk.nr_records, 3, "the live tree's records"))
		goto out;

	cg_child_finish(&child);
	if (!ASSERT_OK(cg_destroy(t), "remove the tree under the link"))
		goto out;
	memset(&skel->bss->walk, 0, sizeof(skel->bss->walk));
	skel->bss->walk_flushed = false;
	ASSERT_OK(cg_iter_read_fd(link), "read the removed tree's link");
	ASSERT_EQ(skel->bss->walk.nr_seen, 0, "cgroups the walk of the removed tree kept");
	ASSERT_EQ(skel->bss->walk.nr_records, 0, "records of the removed tree");
out:
	if (link >= 0)
		close(link);
	cg_child_finish(&child);
	if (t)
		cg_destroy(t);
	free(t);
	free(a);
	free(b);
	memcgstat_close(h);
}

static int run_prog(struct bpf_program *prog)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	int err = bpf_prog_test_run_opts(bpf_program__fd(prog), &opts);

	return err ? -errno : (int)opts.retval;
}

/*
 * A BPF map holds the cgroup (a struct cgroup kptr) while the cgroup is
 * removed, its memcg offlined, and then freed once the page cache charged
 * to it is gone. Each run of read_held gets the memcg through the held
 * cgroup: the live one, then for a while the removed cgroup's dying memcg,
 * then none (bpf_get_mem_cgroup() NULL, bpf_memcgstat_read() -ENOENT).
 * KASAN, in the debug boot, watches every read.
 */
static void held_cgroup_offlined(void)
{
	struct memcg_hold *skel = memcg_hold__open_and_load();
	struct mcs_item usage = { .kind = MCS_USAGE };
	struct cg_child child = {};
	unsigned long runs = 0, dying_reads = 0;
	char *cg = NULL;
	double start;

	if (!ASSERT_OK_PTR(skel, "memcg_hold__open_and_load"))
		return;
	if (!cg_is_v2()) {
		test__skip("bpf_cgroup_from_id() finds cgroup v2 cgroups only");
		goto out;
	}
	snprintf(tmpfile_name, sizeof(tmpfile_name), "/tmp/memcgstat-held-%d", getpid());
	cg = cg_create_own("held");
	if (!ASSERT_OK_PTR(cg, "cg_create") ||
	    !ASSERT_OK(cg_run(cg, write_tmpfile, (void *)4, &child), "4 MiB of tmpfs in the cgroup"))
		goto out;
	skel->bss->hold_id = id_of(cg);
	skel->bss->kf_items[0] = items_kf_encode(&usage);
	skel->bss->kf_items[1] = items_kf_encode(&usage);
	if (!ASSERT_OK(run_prog(skel->progs.hold), "hold the cgroup") ||
	    !ASSERT_OK(run_prog(skel->progs.read_held), "read the held live cgroup"))
		goto out;
	ASSERT_TRUE(skel->bss->memcg_found && skel->bss->memcg_online, "the live memcg, online");
	ASSERT_GE(skel->bss->usage, 4 * MiB, "the live memcg's usage");
	if (skel->bss->kf_ret != -ENOSYS)
		ASSERT_EQ(skel->bss->kf_ret, 2, "bpf_memcgstat_read() of the live cgroup");

	cg_child_finish(&child);
	if (!ASSERT_OK(cg_destroy(cg), "remove the held cgroup"))
		goto out;
	/* offlining is asynchronous: read until the memcg is no longer there */
	for (start = now(); now() - start < 30; runs++) {
		if (!ASSERT_OK(run_prog(skel->progs.read_held), "read the held removed cgroup"))
			goto out;
		if (!skel->bss->memcg_found)
			break;
		dying_reads++;
		if (!ASSERT_TRUE(skel->bss->usage < PLAUSIBLE, "a dying memcg's usage"))
			goto out;
	}
	ASSERT_FALSE(skel->bss->memcg_found, "the memcg of the held cgroup offlined within 30 s");
	if (skel->bss->kf_ret != -ENOSYS)
		ASSERT_EQ(skel->bss->kf_ret, -ENOENT, "bpf_memcgstat_read() of the offlined memcg");
	/* the page cache goes: the dying memcg is freed; the cgroup is still held */
	unlink(tmpfile_name);
	cg_write("/proc/sys/vm", "drop_caches", "3");
	for (start = now(); now() - start < 2; runs++) {
		if (!ASSERT_OK(run_prog(skel->progs.read_held), "read the held cgroup after its memcg went") ||
		    !ASSERT_FALSE(skel->bss->memcg_found, "no memcg after offline"))
			goto out;
		usleep(20000);
	}
	ASSERT_OK(run_prog(skel->progs.drop), "drop the held cgroup");
	ASSERT_EQ(run_prog(skel->progs.hold), -ENOENT, "hold a removed cgroup by id");
	if (env_verbose)
		printf("  %lu runs on the held cgroup, %lu with its memcg after the rmdir\n",
		       runs, dying_reads);
out:
	cg_child_finish(&child);
	unlink(tmpfile_name);
	if (cg)
		cg_destroy(cg);
	free(cg);
	memcg_hold__destroy(skel);
}

struct id_race {
	struct memcgstat *h[2];		/* syscall path, iterator path */
	_Atomic uint64_t id;		/* the leaf being removed, 0: none */
	uint64_t busy_id;		/* a cgroup with memory, read first */
	atomic_bool stop;
	atomic_ulong reads;
	unsigned long ok[2], gone[2], nodata[2], bad[2];
	char first_bad[200];
};

/*
 * A batch of [busy, leaf] read while the leaf is removed: the leaf has no
 * task and no memory, so a row read for it must show usage 0, never the
 * busy cgroup's (a row left over from the read before), or be gone.
 */
static void *id_reader(void *arg)
{
	struct id_race *r = arg;
	struct memcgstat_result *res[2] = {
		memcgstat_result_new(r->h[0]), memcgstat_result_new(r->h[1]),
	};
	unsigned int turn = 0;

	while (res[0] && res[1] && !atomic_load(&r->stop)) {
		uint64_t ids[2] = { r->busy_id, atomic_load(&r->id) };
		int w = turn++ & 1, status;
		const uint64_t *v;

		if (!ids[1])
			continue;
		atomic_fetch_add(&r->reads, 1);
		if (memcgstat_read_ids_into(r->h[w], ids, 2, res[w])) {
			if (!r->bad[w]++)
				snprintf(r->first_bad, sizeof(r->first_bad), "read_ids: %s",
					 memcgstat_errmsg(r->h[w]));
			continue;
		}
		status = memcgstat_result_status(res[w], 1);
		v = memcgstat_result_values(res[w], 1);
		if (!status && v[3] == 0) {
			r->ok[w]++;
		} else if (status == -ENOENT || status == -ENODATA) {
			if (status == -ENOENT)
				r->gone[w]++;
			else
				r->nodata[w]++;
			if (v[3] != MEMCGSTAT_NA && !r->bad[w]++)
				snprintf(r->first_bad, sizeof(r->first_bad), "gone, usage %llu",
					 (unsigned long long)v[3]);
		} else if (!r->bad[w]++) {
			snprintf(r->first_bad, sizeof(r->first_bad),
				 "%s path: status %d, usage %llu of an empty cgroup",
				 w ? "iterator" : "syscall", status, (unsigned long long)v[3]);
		}
	}
	memcgstat_result_free(res[0]);
	memcgstat_result_free(res[1]);
	atomic_store(&r->stop, true);
	return NULL;
}

/* Until the reader has begun @n more reads, or stopped. */
static void wait_reads(struct id_race *r, unsigned long n)
{
	unsigned long before = atomic_load(&r->reads);

	while (atomic_load(&r->reads) < before + n && !atomic_load(&r->stop))
		;
}

static void ids_removed_while_read(void)
{
	struct id_race r = { .h = { open_bpf(MEMCGSTAT_QUERY_AUTO), open_bpf(MEMCGSTAT_QUERY_ITER) } };
	struct cg_child child = {};
	char *top = NULL, *busy = NULL, leaf[256];
	pthread_t thr;
	bool started = false;
	int i, w;

	if (!r.h[0] || !r.h[1])
		goto out;
	if (!cg_is_v2()) {
		test__skip("reads by id are cgroup v2 reads");
		goto out;
	}
	top = cg_create_own("idrace");
	if (!ASSERT_OK_PTR(top, "cg_create") ||
	    !ASSERT_OK(cg_write(top, "cgroup.subtree_control", "+memory"), "+memory"))
		goto out;
	busy = cg_create(top, "busy");
	if (!ASSERT_OK_PTR(busy, "cg_create busy") ||
	    !ASSERT_OK(cg_run(busy, touch_anon, (void *)4, &child), "4 MiB in busy"))
		goto out;
	r.busy_id = id_of(busy);
	if (!ASSERT_OK(pthread_create(&thr, NULL, id_reader, &r), "pthread_create"))
		goto out;
	started = true;
	for (i = 0; i < TRIES; i++) {
		snprintf(leaf, sizeof(leaf), "%s/l%d", top, i);
		if (!ASSERT_OK(mkdir(leaf, 0755), "mkdir"))
			break;
		/* removed as soon as a read of it has begun */
		atomic_store(&r.id, id_of(leaf));
		wait_reads(&r, 2);
		if (!ASSERT_OK(rmdir(leaf), "rmdir"))
			break;
		wait_reads(&r, 2);
	}
out:
	atomic_store(&r.stop, true);
	if (started)
		pthread_join(thr, NULL);
	for (w = 0; started && w < 2; w++)
		printf("  %s path: %lu read, %lu gone, %lu nodata (removed between lookup and read), %lu bad\n",
		       w ? "iterator" : "syscall", r.ok[w], r.gone[w], r.nodata[w], r.bad[w]);
	if (started && !ASSERT_EQ(r.bad[0] + r.bad[1], 0, "rows neither right nor cleanly gone"))
		printf("  first bad: %s\n", r.first_bad);
	if (started) {
		ASSERT_GT(r.ok[0] + r.ok[1], 0, "reads of the live leaves");
		ASSERT_GT(r.gone[0] + r.gone[1] + r.nodata[0] + r.nodata[1], 0,
			  "reads of the removed leaves");
	}
	cg_child_finish(&child);
	if (top)
		cg_destroy(top);
	free(top);
	free(busy);
	memcgstat_close(r.h[0]);
	memcgstat_close(r.h[1]);
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
	if (test__start_subtest("snapshot_link_removed"))
		snapshot_link_removed();
	if (test__start_subtest("held_cgroup_offlined"))
		held_cgroup_offlined();
	if (test__start_subtest("ids_removed_while_read"))
		ids_removed_while_read();
}
