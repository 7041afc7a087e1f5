// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_memcgstat_read(), memcgstat's reader of many counters in one call
 * (kernel/patches 0006), as the library uses it: where the kernel has it,
 * every counter of a busy cgroup's memory.stat, memory.events,
 * memory.numa_stat and memory.current (v1: memory.stat and
 * memory.usage_in_bytes) read with it equals the per-item kfuncs' value
 * and the text; the cgroup's css, its memcg's css and the root's read
 * alike, from sleepable and non-sleepable programs; and libmemcgstat reads
 * every item of its programs with it. Where the kernel lacks it (Linux
 * 7.0's set), programs that guard it with mcs_kfunc_exists() load and see
 * it absent. Bad items, sizes, a cgroup without a memcg and the verifier's
 * refusals are the kernel's selftest (kfuncs/prog_tests/memcgstat_kfuncs.c).
 * And the file that pass reads: /sys/kernel/btf/vmlinux mapped read-only
 * (kernel/patches 0008, both kernels here) as read() gives it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "test_progs.h"
#include "memcg_util.h"
#include "memcgstat.h"
#include "testing.h"
#include "memcg_iter.h"
#include "memcg_iter.skel.h"
#include "memcgstat_read.skel.h"

#define FILL	0xa5a5a5a5a5a5a5a5ULL

static bool kernel_has_read(void)
{
	const struct btf *btf = items_btf();

	return btf && btf__find_by_name_kind(btf, "bpf_memcgstat_read", BTF_KIND_FUNC) > 0;
}

/* Run @prog (a cgroup iterator) on @path once. */
static int run_on(struct bpf_program *prog, const char *path)
{
	return cg_iter_run(prog, path, BPF_CGROUP_ITER_SELF_ONLY);
}

/* @n items into the skeleton, sizes as given, vals[] filled with FILL. */
static void set_items(struct memcgstat_read *skel, const __u32 *items, int n,
		      __u32 items_sz, __u32 vals_sz)
{
	int i;

	for (i = 0; i < n; i++)
		skel->bss->items[i] = items[i];
	skel->bss->items_sz = items_sz;
	skel->bss->vals_sz = vals_sz;
	skel->bss->ret = skel->bss->ret2 = 1;
	for (i = 0; i < (int)ARRAY_SIZE(skel->bss->vals); i++)
		skel->bss->vals[i] = skel->bss->vals2[i] = FILL;
}

/* Anon, shmem and page cache in the cgroup: every view has something. */
static int busy(void *arg)
{
	char buf[65536];
	int fd, err, i;

	(void)arg;
	err = touch_anon((void *)8UL);
	if (!err)
		err = touch_memfd((void *)4UL);
	fd = open(getenv("MEMCGSTAT_DATAFILE") ?: "/proc/self/exe", O_RDONLY);
	if (fd < 0)
		return -1;
	for (i = 0; !err && i < 64; i++)
		if (read(fd, buf, sizeof(buf)) < 0)
			err = -1;
	return err;	/* fd stays open */
}

/*
 * check_view() reads every key of a view with the per-item kfuncs and holds
 * them against the text; items_run() reads the same items again with
 * bpf_memcgstat_read() and holds each against the per-item value.
 */
static void test_equals(struct memcgstat_read *skel)
{
	struct cg_child child = {};
	char *cg;
	int keys = 0;

	(void)skel;
	cg = cg_create_own("read");
	if (!ASSERT_OK_PTR(cg, "cg_create"))
		return;
	if (!ASSERT_OK(cg_run(cg, busy, NULL, &child), "activity"))
		goto out;
	items_kf_checked = 0;
	if (cg_is_v2()) {
		keys += check_view(cg, VIEW_STAT, NULL);
		keys += check_view(cg, VIEW_EVENTS, NULL);
		keys += check_view(cg, VIEW_NUMA, NULL);
	} else {
		keys += check_view(cg, VIEW_V1_STAT, NULL);
	}
	keys += check_view(cg, VIEW_USAGE, NULL);
	/* each view's items were all read in one call too, and held equal */
	ASSERT_GT(keys, 40, "keys compared");
	ASSERT_GT(items_kf_checked, 40, "values held equal to the per-item kfuncs'");
out:
	cg_child_finish(&child);
	ASSERT_OK(cg_destroy(cg), "cg_destroy");
	free(cg);
}

/* Every readable item of the stat table, for the css tests. */
static int all_items(__u32 *items, int max)
{
	const char *names[] = {
		"NR_ANON_MAPPED", "NR_FILE_PAGES", "NR_SHMEM", "NR_FILE_MAPPED",
		"MEMCG_KMEM", "NR_SLAB_UNRECLAIMABLE_B", "NR_KERNEL_STACK_KB",
	};
	const char *events[] = { "PGFAULT", "PGMAJFAULT" };
	int n = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names) && n < max; i++) {
		items[n++] = MCS_KF_ITEM(MCS_PAGE_STATE, 0, enum_val(names[i]));
		items[n++] = MCS_KF_ITEM(MCS_PAGE_STATE_LOCAL, 0, enum_val(names[i]));
	}
	for (i = 0; i < ARRAY_SIZE(events) && n < max; i++) {
		items[n++] = MCS_KF_ITEM(MCS_VM_EVENTS, 0, enum_val(events[i]));
		items[n++] = MCS_KF_ITEM(MCS_VM_EVENTS_LOCAL, 0, enum_val(events[i]));
	}
	items[n++] = MCS_KF_ITEM(MCS_NODE_PAGE_STATE, 0, enum_val("NR_FILE_PAGES"));
	items[n++] = MCS_KF_ITEM(MCS_MEMORY_EVENTS, 0, enum_val("MEMCG_MAX"));
	items[n++] = MCS_KF_ITEM(MCS_USAGE, 0, 0);
	return n;
}

static void test_css_kinds(struct memcgstat_read *skel)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	__u32 items[32];
	int n = all_items(items, 28), i, err;

	/* a cgroup's own css and its memcg's, in one flushed state */
	set_items(skel, items, n, n * 4, n * 8);
	if (ASSERT_OK(run_on(skel->progs.read_both, cg_root()), "read_both")) {
		ASSERT_EQ(skel->bss->ret, n, "through &cgrp->self");
		ASSERT_EQ(skel->bss->ret2, n, "through &memcg->css");
		for (i = 0; i < n; i++)
			if (!ASSERT_U64_EQ(skel->bss->vals[i], skel->bss->vals2[i], "same values"))
				break;
		ASSERT_U64_EQ(skel->bss->vals[n - 1], skel->bss->usage, "usage as bpf_mem_cgroup_usage()");
	}
	/* the root memcg from a syscall program */
	set_items(skel, items, n, n * 4, n * 8);
	err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.read_root), &topts);
	if (ASSERT_OK(err, "run read_root") && ASSERT_EQ(topts.retval, 0, "root memcg")) {
		ASSERT_EQ(skel->bss->ret, n, "through the root's css");
		ASSERT_U64_EQ(skel->bss->vals[n - 1], skel->bss->usage, "root usage");
	}
	/* and from a program that may not sleep */
	set_items(skel, items, n, n * 4, n * 8);
	if (ASSERT_OK(run_on(skel->progs.read_nonsleepable, cg_root()), "iter/cgroup"))
		ASSERT_EQ(skel->bss->ret, n, "not sleepable");
}

/* libmemcgstat's programs read every kfunc item of these stats in one call. */
static void test_library(bool has)
{
	struct memcgstat_opts opts = { .sz = sizeof(opts), .backend = MEMCGSTAT_BACKEND_BPF };
	struct memcg_iter *skel;
	struct memcgstat *h;

	if (cg_is_v2() && has)	/* per-node items too: memcgstat's kfuncs */
		opts.flags = MEMCGSTAT_NUMA;
	if (memcgstat_open(&opts, &h)) {
		PRINT_FAIL("memcgstat_open: %s\n", memcgstat_errmsg(h));
		memcgstat_close(h);
		return;
	}
	skel = memcgstat__testing_skel(h);
	if (ASSERT_OK_PTR(skel, "bpf backend")) {
		__u32 i, kf = 0;

		/*
		 * Every item of a kfunc's kind; the CO-RE fields (memory.max,
		 * memory.failcnt, ... in the default stats of v1) are read one
		 * by one, after them. The programs' list (items[], up to a kind
		 * 0) holds what bpf_memcgstat_read() does not read, sorted by
		 * kind, each with its own slot after the ones that call fills.
		 */
		__u32 n = skel->rodata->nr_items, fast = skel->rodata->nr_fast_items;
		bool seen[MCS_MAX_ITEMS] = {};
		int sorted = 1, bad_slot = 0;

		for (i = 0; i <= MCS_MAX_ITEMS && skel->rodata->items[i].kind; i++) {
			__u32 slot = skel->rodata->items[i].slot;

			kf += skel->rodata->items[i].kind < MCS_PC_USAGE;
			if (i && skel->rodata->items[i].kind < skel->rodata->items[i - 1].kind)
				sorted = 0;
			if (slot < fast || slot >= n || seen[slot])
				bad_slot++;
			else
				seen[slot] = true;
		}
		ASSERT_EQ(i + fast, n, "every item in the list or read by bpf_memcgstat_read()");
		ASSERT_EQ(sorted, 1, "the list sorted by kind");
		ASSERT_EQ(bad_slot, 0, "each slot once, after bpf_memcgstat_read()'s");
		if (has)
			ASSERT_EQ(kf, 0, "no kfunc item left to the list");
		kf += fast;
		ASSERT_GT(kf, 10, "kfunc items");
		ASSERT_EQ(fast, has ? kf : 0, "items read by bpf_memcgstat_read()");
		ASSERT_EQ(skel->rodata->has_read, has, "the programs told of bpf_memcgstat_read()");
		/* libbpf's own load is the fallback only: it reads vmlinux BTF in user space */
		if (!ASSERT_TRUE(!strcmp(memcgstat__testing_loader(h), "kernel"),
				 "loaded by the in-kernel loader"))
			printf("  loaded by %s\n", memcgstat__testing_loader(h));
		/*
		 * The snapshot program's kfuncs (4 or more) and its attach
		 * target, looked up from the library's pass, not the kernel's
		 */
		if (!ASSERT_GE(memcgstat__testing_answered(h), 5, "kfunc lookups answered"))
			printf("  %d answered\n", memcgstat__testing_answered(h));
		/*
		 * ... and the checks of their results dropped: each answer
		 * leaves a branch never taken and two that skip dead code
		 * (lib/loader.c)
		 */
		if (!ASSERT_GE(memcgstat__testing_folded(h), 3 * memcgstat__testing_answered(h),
			       "loader instructions folded"))
			printf("  %zu folded\n", memcgstat__testing_folded(h));
	}
	memcgstat_close(h);
}

/*
 * Sums whose parts are columns too read them once: pgscan and slab take
 * the items of pgscan_kswapd, _direct, _khugepaged and of slab_reclaimable,
 * slab_unreclaimable, where the programs read them one by one (no
 * bpf_memcgstat_read(): it reads them in one call, so there they stay).
 * The sums equal their parts in the same read, of a cgroup whose files
 * (inodes and dentries, slab charged to it) and page cache keep them
 * above 0.
 */
static int make_files(void *arg)
{
	char path[64];
	int i, fd;

	for (i = 0; i < (int)(long)arg; i++) {
		snprintf(path, sizeof(path), "/tmp/memcgstat-shared-%d-%d", getpid(), i);
		fd = open(path, O_CREAT | O_WRONLY, 0600);
		if (fd < 0 || write(fd, path, sizeof(path)) != sizeof(path)) {
			if (fd >= 0)
				close(fd);
			return -1;
		}
		close(fd);
	}
	return 0;
}

static void test_shared_runs(bool has)
{
	static const char *const stats[] = {
		"pgscan", "slab", "pgscan_kswapd", "pgscan_direct", "pgscan_khugepaged",
		"slab_reclaimable", "slab_unreclaimable",
	};
	struct memcgstat_opts opts = { .sz = sizeof(opts), .backend = MEMCGSTAT_BACKEND_BPF,
				       .stats = stats, .nr_stats = ARRAY_SIZE(stats) };
	struct memcgstat_result *res = NULL;
	struct cg_child child = {};
	struct memcgstat *h = NULL;
	char *cg = NULL, *cmdline = NULL;
	struct memcg_iter *skel;
	const uint64_t *v;

	if (!cg_is_v2()) {
		test__skip("pgscan and its parts: cgroup v2 stats");
		return;
	}
	cg = cg_create_own("shared");
	if (!ASSERT_OK_PTR(cg, "cg_create") ||
	    !ASSERT_OK(cg_run(cg, make_files, (void *)256L, &child), "256 files made in the cgroup"))
		goto out;
	if (!ASSERT_OK(memcgstat_open(&opts, &h), "memcgstat_open")) {
		printf("  %s\n", memcgstat_errmsg(h));
		goto out;
	}
	skel = memcgstat__testing_skel(h);
	if (!ASSERT_OK_PTR(skel, "bpf backend"))
		goto out;
	ASSERT_EQ(skel->rodata->nr_items, has ? 10 : 5, "items a record");
	if (!ASSERT_OK(memcgstat_read(h, cg, &res), memcgstat_errmsg(h)))
		goto out;
	v = memcgstat_result_values(res, 0);
	ASSERT_U64_EQ(v[0], v[2] + v[3] + v[4], "pgscan: its parts' sum");
	ASSERT_U64_EQ(v[1], v[5] + v[6], "slab: its parts' sum");
	/* cgroup.memory=nokmem charges no slab to a memcg: 0 is its value */
	cmdline = cg_read("/proc", "cmdline");
	if (ASSERT_OK_PTR(cmdline, "read /proc/cmdline") &&
	    !strstr(cmdline, "cgroup.memory=nokmem"))
		ASSERT_GT(v[1], 0, "slab of the cgroup's files");
out:
	free(cmdline);
	memcgstat_result_free(res);
	memcgstat_close(h);
	if (child.pid)
		cg_child_finish(&child);
	system("rm -f /tmp/memcgstat-shared-*");
	if (cg)
		cg_destroy(cg);
	free(cg);
}

/*
 * expected_reads below MEMCGSTAT_SYSCALL_PAYS_AFTER takes the iterator's
 * path and loads its program alone; from it, and with 0 (no end), the
 * syscall path where the kernel allows it, with the batch program.
 */
static void test_expected_reads(void)
{
	static const long reads[] = { 1, MEMCGSTAT_SYSCALL_PAYS_AFTER - 1,
				      MEMCGSTAT_SYSCALL_PAYS_AFTER, 0 };
	struct memcgstat_opts opts = { .sz = sizeof(opts), .backend = MEMCGSTAT_BACKEND_BPF };
	struct memcgstat *h = NULL;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(reads); i++) {
		bool few = reads[i] && reads[i] < MEMCGSTAT_SYSCALL_PAYS_AFTER;
		bool sys = !few && cg_is_v2();

		opts.expected_reads = reads[i];
		if (!ASSERT_OK(memcgstat_open(&opts, &h), "memcgstat_open")) {
			printf("  expected_reads %ld: %s\n", reads[i], memcgstat_errmsg(h));
			memcgstat_close(h);
			return;
		}
		ASSERT_EQ(memcgstat_query(h), sys ? MEMCGSTAT_QUERY_SYSCALL : MEMCGSTAT_QUERY_ITER,
			  "query path");
		ASSERT_EQ(memcgstat__testing_prog_fd(h, "batch") >= 0, sys, "batch program loaded");
		ASSERT_GE(memcgstat__testing_prog_fd(h, "snapshot"), 0, "snapshot program loaded");
		if (few && cg_is_v2())
			ASSERT_HAS_SUBSTR(memcgstat_query_reason(h) ? memcgstat_query_reason(h) : "",
					  "expected: the syscall program's load costs more", "reason");
		memcgstat_close(h);
		h = NULL;
	}
}

/*
 * /sys/kernel/btf/vmlinux mapped (kernel/patches 0008, as Linux 6.16 has
 * it): the bytes read() gives; never writable or executable, now or by
 * mprotect(); nothing past the section; and the library's pass over it
 * reads the mapping.
 */
static void test_btf_mapped(void)
{
	const char *path = "/sys/kernel/btf/vmlinux";
	struct memcgstat_opts opts = { .sz = sizeof(opts), .backend = MEMCGSTAT_BACKEND_BPF };
	long pg = sysconf(_SC_PAGESIZE);
	struct memcgstat *h = NULL;
	char *map = MAP_FAILED, *buf = NULL;
	size_t len = 0, got = 0, pages;
	struct stat st;
	ssize_t n;
	void *p;
	int fd;

	fd = open(path, O_RDONLY);
	if (!ASSERT_GE(fd, 0, "open") || !ASSERT_OK(fstat(fd, &st), "fstat"))
		goto out;
	len = st.st_size;
	pages = (len + pg - 1) / pg;
	map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (!ASSERT_TRUE(map != MAP_FAILED, "mapped read-only")) {
		printf("  mmap: %s\n", strerror(errno));
		goto out;
	}
	buf = malloc(len);
	while (buf && got < len && (n = pread(fd, buf + got, len - got, got)) > 0)
		got += n;
	if (ASSERT_EQ(got, len, "read() of the whole file"))
		ASSERT_TRUE(!memcmp(map, buf, len), "the mapping holds what read() gives");
	ASSERT_ERR(mprotect(map, pg, PROT_READ | PROT_WRITE), "mprotect() writable");
	p = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	ASSERT_TRUE(p == MAP_FAILED && errno == EACCES, "a writable mapping refused");
	if (p != MAP_FAILED)
		munmap(p, pg);
	p = mmap(NULL, pg, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	ASSERT_TRUE(p == MAP_FAILED, "an executable mapping refused");
	if (p != MAP_FAILED)
		munmap(p, pg);
	p = mmap(NULL, pg, PROT_READ, MAP_PRIVATE, fd, pages * pg);
	ASSERT_TRUE(p == MAP_FAILED && errno == EINVAL, "an offset past the section refused");
	if (p != MAP_FAILED)
		munmap(p, pg);
	p = mmap(NULL, (pages + 1) * pg, PROT_READ, MAP_PRIVATE, fd, 0);
	ASSERT_TRUE(p == MAP_FAILED && errno == EINVAL, "a length past the section refused");
	if (p != MAP_FAILED)
		munmap(p, (pages + 1) * pg);
	/* the last page alone: what is left of the section, zeros after it */
	p = mmap(NULL, pg, PROT_READ, MAP_PRIVATE, fd, (pages - 1) * pg);
	if (ASSERT_TRUE(p != MAP_FAILED, "the last page mapped alone")) {
		size_t tail = len - (pages - 1) * pg, i, nonzero = 0;

		ASSERT_TRUE(!memcmp(p, map + (pages - 1) * pg, tail), "its bytes at that offset");
		for (i = tail; i < (size_t)pg; i++)
			nonzero += ((char *)p)[i] != 0;
		ASSERT_EQ(nonzero, 0, "nothing but zeros after the section");
		munmap(p, pg);
	}
	if (ASSERT_OK(memcgstat_open(&opts, &h), "memcgstat_open"))
		ASSERT_EQ(memcgstat__testing_btf_mapped(h), 1, "the library's pass read the mapping");
	else
		printf("  %s\n", memcgstat_errmsg(h));
out:
	memcgstat_close(h);
	free(buf);
	if (map != MAP_FAILED)
		munmap(map, len);
	if (fd >= 0)
		close(fd);
}

void test_memcgstat_read(void)
{
	static const struct {
		const char *name;
		void (*fn)(struct memcgstat_read *skel);
	} subtests[] = {
		{ "equals_kfuncs_and_text", test_equals },
		{ "css_kinds", test_css_kinds },
	};
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	struct memcgstat_read *skel;
	bool has = kernel_has_read();
	size_t i;

	skel = memcgstat_read__open_and_load();
	if (!ASSERT_OK_PTR(skel, "memcgstat_read__open_and_load"))
		return;
	if (test__start_subtest("ksym_exists") &&
	    ASSERT_OK(bpf_prog_test_run_opts(bpf_program__fd(skel->progs.probe), &topts), "probe"))
		ASSERT_EQ(skel->bss->exists, has, "mcs_kfunc_exists() as vmlinux BTF has it");
	if (test__start_subtest("library"))
		test_library(has);
	if (test__start_subtest("shared_runs"))
		test_shared_runs(has);
	if (test__start_subtest("expected_reads"))
		test_expected_reads();
	if (test__start_subtest("btf_mapped"))
		test_btf_mapped();
	for (i = 0; i < ARRAY_SIZE(subtests); i++) {
		if (!test__start_subtest(subtests[i].name))
			continue;
		if (!has)
			test__skip("kernel lacks bpf_memcgstat_read (Linux 7.0's kfunc set only)");
		else
			subtests[i].fn(skel);
	}
	memcgstat_read__destroy(skel);
}
