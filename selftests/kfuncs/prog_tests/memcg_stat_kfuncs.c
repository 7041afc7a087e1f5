// SPDX-License-Identifier: GPL-2.0
/*
 * The memcg stat kfuncs against the kernel's own files: a cgroup with anon,
 * shmem and page cache in it, and a child OOM-killed at its memory.max,
 * read by a cgroup iterator, equals memory.stat, memory.events and
 * memory.current; the root memcg is got, read and put from a syscall
 * program, and its usage holds the cgroup's; invalid indices read
 * (unsigned long)-1; and the verifier refuses the programs of
 * progs/memcg_stat_kfuncs_fail.c (RUN_TESTS: each with its message).
 */
#define _GNU_SOURCE
#include <test_progs.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "cgroup_helpers.h"
#include "memcg_stat_kfuncs.skel.h"
#include "memcg_stat_kfuncs_fail.skel.h"

#define CG "memcg_stat_kfuncs"
#define ANON_MB 8
#define SHMEM_MB 4
/* memory.max for the child that is OOM-killed, and what it tries to use */
#define MAX_MB 8
#define OOM_MB 64

enum memcg_val {
	VAL_ANON, VAL_FILE, VAL_SHMEM, VAL_FILE_MAPPED, VAL_KERNEL, VAL_PGFAULT,
	VAL_PGMAJFAULT, VAL_MAX, VAL_OOM, VAL_OOM_KILL, VAL_USAGE, NR_VALS
};

/* The file and key each value is printed under. */
static const struct {
	const char *file;
	const char *key;	/* NULL: the file holds one number */
} text_of[NR_VALS] = {
	[VAL_ANON]	  = { "memory.stat", "anon" },
	[VAL_FILE]	  = { "memory.stat", "file" },
	[VAL_SHMEM]	  = { "memory.stat", "shmem" },
	[VAL_FILE_MAPPED] = { "memory.stat", "file_mapped" },
	[VAL_KERNEL]	  = { "memory.stat", "kernel" },
	[VAL_PGFAULT]	  = { "memory.stat", "pgfault" },
	[VAL_PGMAJFAULT]  = { "memory.stat", "pgmajfault" },
	[VAL_MAX]	  = { "memory.events", "max" },
	[VAL_OOM]	  = { "memory.events", "oom" },
	[VAL_OOM_KILL]	  = { "memory.events", "oom_kill" },
	[VAL_USAGE]	  = { "memory.current", NULL },
};

/* The value of @key (or the only number) in cgroup file @file; -1 if none. */
static long long read_text(int cg_fd, const char *file, const char *key)
{
	char buf[8192], *p;
	size_t klen;
	ssize_t n;
	int fd;

	fd = openat(cg_fd, file, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (!key)
		return strtoll(buf, NULL, 10);
	klen = strlen(key);
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, key, klen) && p[klen] == ' ')
			return strtoll(p + klen + 1, NULL, 10);
	}
	return -1;
}

/* Write @text to cgroup file @file: 0, or -1 with errno set. */
static int write_text(int cg_fd, const char *file, const char *text)
{
	ssize_t n;
	int fd;

	fd = openat(cg_fd, file, O_WRONLY);
	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/*
 * A child in the cgroup that touches OOM_MB of anon under a memory.max of
 * MAX_MB, with no swap to move it to: each charge that fails at the limit
 * counts a max event, reclaim finds nothing to take, the charge goes OOM
 * and the OOM killer kills the child, the one task there. Then memory.max
 * is lifted again. 0 once the child died of SIGKILL.
 */
static int oom_child(int cg_fd)
{
	char max[32];
	int status;
	pid_t pid;

	snprintf(max, sizeof(max), "%d", MAX_MB << 20);
	if (!ASSERT_OK(write_text(cg_fd, "memory.max", max), "memory.max"))
		return -1;
	/* without swap accounting there is no such file, and no swap to fear */
	if (write_text(cg_fd, "memory.swap.max", "0") && errno != ENOENT) {
		PRINT_FAIL("memory.swap.max: %s\n", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		size_t len = (size_t)OOM_MB << 20;
		char *a;

		if (join_cgroup(CG))
			_exit(1);
		a = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (a == MAP_FAILED)
			_exit(1);
		memset(a, 1, len);
		_exit(0);	/* not killed: the test fails */
	}
	if (!ASSERT_GT(pid, 0, "fork") ||
	    !ASSERT_EQ(waitpid(pid, &status, 0), pid, "waitpid"))
		return -1;
	if (!ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
			 "child OOM-killed at memory.max"))
		return -1;
	if (!ASSERT_OK(write_text(cg_fd, "memory.max", "max"), "lift memory.max"))
		return -1;
	return 0;
}

/* A child in the cgroup with anon, shmem and page cache; it then waits. */
static pid_t start_child(int *ctl)
{
	int up[2], down[2];
	char c = 0;
	pid_t pid;

	if (pipe(up))
		return -1;
	if (pipe(down)) {
		close(up[0]);
		close(up[1]);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		size_t anon = ANON_MB << 20, shm = SHMEM_MB << 20;
		char *a;
		int memfd;

		close(up[0]);
		close(down[1]);
		if (join_cgroup(CG))
			_exit(1);
		a = mmap(NULL, anon, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		memfd = memfd_create("memcg_stat_kfuncs", 0);
		if (a == MAP_FAILED || memfd < 0 || ftruncate(memfd, shm))
			_exit(1);
		/* a fault per base page, with THP on or off (EINVAL without THP) */
		madvise(a, anon, MADV_NOHUGEPAGE);
		memset(a, 1, anon);
		if (fallocate(memfd, 0, 0, shm))
			_exit(1);
		if (write(up[1], &c, 1) != 1)
			_exit(1);
		/* hold it all until the parent closes its end */
		if (read(down[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(up[1]);
	close(down[0]);
	if (pid < 0 || read(up[0], &c, 1) != 1) {
		close(up[0]);
		close(down[1]);
		if (pid > 0)	/* it failed before it signalled: reap it */
			waitpid(pid, NULL, 0);
		return -1;
	}
	close(up[0]);
	*ctl = down[1];
	return pid;
}

static int read_iter(struct memcg_stat_kfuncs *skel, int cg_fd)
{
	DECLARE_LIBBPF_OPTS(bpf_iter_attach_opts, opts);
	union bpf_iter_link_info linfo = {};
	struct bpf_link *link;
	char buf[16];
	int fd, n;

	linfo.cgroup.cgroup_fd = cg_fd;
	linfo.cgroup.order = BPF_CGROUP_ITER_SELF_ONLY;
	opts.link_info = &linfo;
	opts.link_info_len = sizeof(linfo);
	link = bpf_program__attach_iter(skel->progs.read_cgroup, &opts);
	if (!link)
		return -1;
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0) {
		bpf_link__destroy(link);
		return -1;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	close(fd);
	bpf_link__destroy(link);
	return n;
}

static void test_cgroup_values(struct memcg_stat_kfuncs *skel)
{
	long long text[NR_VALS];
	int cg_fd, ctl = -1, i, try, same = 0;
	pid_t pid;

	cg_fd = create_and_get_cgroup(CG);
	if (!ASSERT_GE(cg_fd, 0, "create_and_get_cgroup"))
		return;
	/* memory.events moves: max, oom and oom_kill (0 in a new cgroup) */
	pid = -1;
	if (oom_child(cg_fd))
		goto out;
	pid = start_child(&ctl);
	if (!ASSERT_GT(pid, 0, "child with memory in " CG))
		goto out;

	/* The text and the kfuncs agree once both read one flushed state. */
	for (try = 0; try < 20 && !same; try++) {
		if (!ASSERT_OK(read_iter(skel, cg_fd), "read iterator"))
			goto out;
		for (i = 0; i < NR_VALS; i++)
			text[i] = read_text(cg_fd, text_of[i].file, text_of[i].key);
		for (same = 1, i = 0; i < NR_VALS; i++)
			same &= (long long)skel->bss->vals[i] == text[i];
	}
	ASSERT_EQ(skel->bss->cgroup_id, get_cgroup_id(CG), "cgroup id");
	for (i = 0; i < NR_VALS; i++)
		ASSERT_EQ((long long)skel->bss->vals[i], text[i],
			  text_of[i].key ?: text_of[i].file);
	ASSERT_GE(skel->bss->vals[VAL_ANON], ANON_MB << 20, "anon");
	ASSERT_GE(skel->bss->vals[VAL_SHMEM], SHMEM_MB << 20, "shmem");
	ASSERT_GE(skel->bss->vals[VAL_FILE], SHMEM_MB << 20, "file includes shmem");
	ASSERT_GE(skel->bss->vals[VAL_PGFAULT], (ANON_MB << 20) / getpagesize(),
		  "a fault per anon page");
	/* the one kill; each OOM follows a charge that failed at max */
	ASSERT_EQ(skel->bss->vals[VAL_OOM_KILL], 1, "oom_kill");
	ASSERT_GE(skel->bss->vals[VAL_OOM], 1, "oom");
	ASSERT_GE(skel->bss->vals[VAL_MAX], skel->bss->vals[VAL_OOM],
		  "max events, one per oom at least");
out:
	if (ctl >= 0)
		close(ctl);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	close(cg_fd);
}

/*
 * Whether the root's counter @i agrees across the readers of one try: the
 * file before, the syscall program, the iterator, the file after. The
 * counters are system-wide, so a busy machine may move them between the
 * reads: the events, which only grow, must appear in the order of the
 * reads, and a size no further outside the two file values than an
 * eighth of the larger; a wrong index, unit or memcg is still caught.
 */
static bool root_val_in_bounds(int i, long long before, __u64 prog, __u64 iter,
			       long long after)
{
	long long lo = before < after ? before : after;
	long long hi = before < after ? after : before;

	if (i == VAL_PGFAULT || i == VAL_PGMAJFAULT)
		return before >= 0 && before <= (long long)prog && prog <= iter &&
		       (long long)iter <= after;
	lo -= hi / 8;
	hi += hi / 8;
	return lo <= (long long)prog && (long long)prog <= hi &&
	       lo <= (long long)iter && (long long)iter <= hi;
}

/*
 * The root's memory.stat counters agree, read by a syscall program (get,
 * read, put), by an iterator on the root cgroup and from the root's
 * memory.stat: equal in one of 20 tries, or within root_val_in_bounds().
 * The root has no memory.current: its usage, what its descendants have
 * charged, holds at least what a child keeps charged in a cgroup of its
 * own.
 */
static void test_root(struct memcg_stat_kfuncs *skel)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	__u64 by_root[NR_VALS], by_iter[NR_VALS], cg_usage;
	long long before[NR_VALS], after[NR_VALS];
	bool exact[NR_VALS] = {};
	int err, root_fd, cg_fd, ctl = -1, i, try, same = 0;
	pid_t pid = -1;

	root_fd = get_root_cgroup();
	if (!ASSERT_GE(root_fd, 0, "open the root cgroup"))
		return;
	cg_fd = create_and_get_cgroup(CG);
	if (!ASSERT_GE(cg_fd, 0, "create_and_get_cgroup"))
		goto out;
	pid = start_child(&ctl);
	if (!ASSERT_GT(pid, 0, "child with memory in " CG))
		goto out;
	for (try = 0; try < 20 && !same; try++) {
		for (i = 0; i <= VAL_PGMAJFAULT; i++)
			before[i] = read_text(root_fd, text_of[i].file, text_of[i].key);
		err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.read_root), &topts);
		if (!ASSERT_OK(err, "run read_root") ||
		    !ASSERT_EQ(topts.retval, 0, "bpf_get_root_mem_cgroup"))
			goto out;
		memcpy(by_root, skel->bss->vals, sizeof(by_root));
		if (!ASSERT_OK(read_iter(skel, root_fd), "iterator on the root"))
			goto out;
		memcpy(by_iter, skel->bss->vals, sizeof(by_iter));
		for (i = 0; i <= VAL_PGMAJFAULT; i++)
			after[i] = read_text(root_fd, text_of[i].file, text_of[i].key);
		for (same = 1, i = 0; i <= VAL_PGMAJFAULT; i++) {
			exact[i] |= by_root[i] == by_iter[i] &&
				    (long long)by_root[i] == before[i] && before[i] == after[i];
			same &= exact[i];
		}
	}
	ASSERT_EQ(skel->bss->cgroup_id, 1, "root cgroup id");
	for (i = 0; i <= VAL_PGMAJFAULT; i++)
		ASSERT_TRUE(exact[i] || root_val_in_bounds(i, before[i], by_root[i],
							   by_iter[i], after[i]),
			    text_of[i].key);
	ASSERT_GT(by_root[VAL_FILE], 0, "root file");
	/*
	 * The cgroup's usage, read the same way, after the root's: the child
	 * charges nothing more while it waits, so the cgroup's usage can only
	 * have dropped since the root's was read, and the root's counter is
	 * charged with every charge to the cgroup.
	 */
	if (!ASSERT_OK(read_iter(skel, cg_fd), "iterator on " CG))
		goto out;
	cg_usage = skel->bss->vals[VAL_USAGE];
	ASSERT_GE(cg_usage, (ANON_MB + SHMEM_MB) << 20, "usage of " CG);
	ASSERT_GE(by_root[VAL_USAGE], cg_usage, "root usage holds " CG "'s");
out:
	if (ctl >= 0)
		close(ctl);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	if (cg_fd >= 0)
		close(cg_fd);
	close(root_fd);
}

/* include/linux/syslog.h */
#define SYSLOG_ACTION_READ_ALL		3
#define SYSLOG_ACTION_SIZE_BUFFER	10

/* WARNINGs in the kernel log, -1 if it cannot be read */
static int kernel_warnings(void)
{
	int size = klogctl(SYSLOG_ACTION_SIZE_BUFFER, NULL, 0), len, n = 0;
	char *log, *p;

	if (size <= 0)
		return -1;
	log = malloc(size + 1);
	if (!log)
		return -1;
	len = klogctl(SYSLOG_ACTION_READ_ALL, log, size);
	if (len < 0) {
		free(log);
		return -1;
	}
	log[len] = 0;
	for (p = log; (p = strstr(p, "WARNING:")); p++)
		n++;
	free(log);
	return n;
}

/*
 * Invalid indices read -1, and without the "missing stat item" WARN of the
 * readers they would reach unchecked.
 */
static void test_bad_indices(struct memcg_stat_kfuncs *skel)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	int i, err, warnings = kernel_warnings();

	ASSERT_GE(warnings, 0, "read the kernel log");
	err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.read_bad), &topts);
	if (!ASSERT_OK(err, "run read_bad") || !ASSERT_EQ(topts.retval, 0, "root memcg"))
		return;
	for (i = 0; i < (int)ARRAY_SIZE(skel->bss->bad); i++)
		ASSERT_EQ(skel->bss->bad[i], (__u64)-1, "invalid index reads -1");
	ASSERT_EQ(kernel_warnings(), warnings, "no WARNING in the kernel log");
}

void test_memcg_stat_kfuncs(void)
{
	struct memcg_stat_kfuncs *skel;

	if (!ASSERT_OK(setup_cgroup_environment(), "setup_cgroup_environment"))
		return;
	skel = memcg_stat_kfuncs__open_and_load();
	if (!ASSERT_OK_PTR(skel, "memcg_stat_kfuncs__open_and_load"))
		goto out;
	if (test__start_subtest("cgroup_values"))
		test_cgroup_values(skel);
	if (test__start_subtest("root_get_read_put"))
		test_root(skel);
	if (test__start_subtest("bad_indices"))
		test_bad_indices(skel);
	memcg_stat_kfuncs__destroy(skel);
out:
	cleanup_cgroup_environment();
	/* progs/memcg_stat_kfuncs_fail.c: one subtest per program */
	RUN_TESTS(memcg_stat_kfuncs_fail);
}
