// SPDX-License-Identifier: GPL-2.0
/*
 * The memcg stat kfuncs against the kernel's own files: a cgroup with anon,
 * shmem and page cache in it, read by a cgroup iterator, equals memory.stat,
 * memory.events and memory.current; the root memcg is got, read and put
 * from a syscall program; invalid indices read (unsigned long)-1; and the
 * verifier refuses programs that leak, skip the NULL check, use a memcg
 * after putting it, pass one it cannot trust, or flush where they may not
 * sleep.
 */
#define _GNU_SOURCE
#include <test_progs.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "cgroup_helpers.h"
#include "memcg_stat_kfuncs.skel.h"

#define CG "memcg_stat_kfuncs"
#define ANON_MB 8
#define SHMEM_MB 4

enum memcg_val {
	VAL_ANON, VAL_FILE, VAL_SHMEM, VAL_FILE_MAPPED, VAL_KERNEL, VAL_PGFAULT,
	VAL_PGMAJFAULT, VAL_MAX, VAL_OOM, VAL_USAGE, NR_VALS
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

/* A child in the cgroup with anon, shmem and page cache; it then waits. */
static pid_t start_child(int *ctl)
{
	int up[2], down[2];
	pid_t pid;

	if (pipe(up) || pipe(down))
		return -1;
	pid = fork();
	if (pid == 0) {
		size_t anon = ANON_MB << 20, shm = SHMEM_MB << 20;
		char *a, c = 0;
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
	if (pid < 0 || read(up[0], ctl, 1) != 1) {
		close(up[0]);
		close(down[1]);
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
	ASSERT_GE(skel->bss->vals[VAL_PGFAULT], ANON_MB << 8, "a fault per anon page");
out:
	if (ctl >= 0)
		close(ctl);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	close(cg_fd);
}

/*
 * The root's memory.stat counters agree, read by a syscall program (get,
 * read, put), by an iterator on the root cgroup and from the root's
 * memory.stat.
 */
static void test_root(struct memcg_stat_kfuncs *skel)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	__u64 by_root[NR_VALS];
	long long text[NR_VALS];
	int err, root_fd, i, try, same = 0;

	root_fd = get_root_cgroup();
	if (!ASSERT_GE(root_fd, 0, "open the root cgroup"))
		return;
	for (try = 0; try < 20 && !same; try++) {
		err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.read_root), &topts);
		if (!ASSERT_OK(err, "run read_root") ||
		    !ASSERT_EQ(topts.retval, 0, "bpf_get_root_mem_cgroup"))
			goto out;
		memcpy(by_root, skel->bss->vals, sizeof(by_root));
		for (i = 0; i <= VAL_PGMAJFAULT; i++)
			text[i] = read_text(root_fd, text_of[i].file, text_of[i].key);
		if (!ASSERT_OK(read_iter(skel, root_fd), "iterator on the root"))
			goto out;
		for (same = 1, i = 0; i <= VAL_PGMAJFAULT; i++)
			same &= by_root[i] == skel->bss->vals[i] &&
				(long long)by_root[i] == text[i];
	}
	ASSERT_EQ(skel->bss->cgroup_id, 1, "root cgroup id");
	for (i = 0; i <= VAL_PGMAJFAULT; i++) {
		ASSERT_EQ(by_root[i], skel->bss->vals[i], text_of[i].key);
		ASSERT_EQ((long long)by_root[i], text[i], text_of[i].key);
	}
	ASSERT_GT(by_root[VAL_FILE], 0, "root file");
	/* what the root's descendants use: 0 when none holds memory */
	ASSERT_TRUE(by_root[VAL_USAGE] != (__u64)-1, "root usage read");
out:
	close(root_fd);
}

static void test_bad_indices(struct memcg_stat_kfuncs *skel)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	int i, err;

	err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.read_bad), &topts);
	if (!ASSERT_OK(err, "run read_bad") || !ASSERT_EQ(topts.retval, 0, "root memcg"))
		return;
	for (i = 0; i < (int)ARRAY_SIZE(skel->bss->bad); i++)
		ASSERT_EQ(skel->bss->bad[i], (__u64)-1, "invalid index reads -1");
}

static const struct {
	const char *prog;
	const char *msg;
} refused[] = {
	{ "root_not_put", "Unreleased reference" },
	{ "root_not_null_checked", "Possibly NULL pointer passed to trusted arg0" },
	{ "memcg_not_put", "Unreleased reference" },
	{ "memcg_not_null_checked", "Possibly NULL pointer passed to trusted arg0" },
	/* after the put the register holds a scalar, not a memcg */
	{ "use_after_put", "arg#0 pointer type STRUCT mem_cgroup must point to scalar" },
	{ "untrusted_memcg", "must be referenced or trusted" },
	{ "flush_not_sleepable",
	  "program must be sleepable to call sleepable kfunc bpf_mem_cgroup_flush_stats" },
};

static void test_refused(const char *name, const char *msg)
{
	static char log[1 << 18];
	struct memcg_stat_kfuncs *skel;
	struct bpf_program *prog;

	skel = memcg_stat_kfuncs__open();
	if (!ASSERT_OK_PTR(skel, "open"))
		return;
	prog = bpf_object__find_program_by_name(skel->obj, name);
	if (!ASSERT_OK_PTR(prog, name))
		goto out;
	bpf_program__set_autoload(prog, true);
	bpf_program__set_log_buf(prog, log, sizeof(log));
	bpf_program__set_log_level(prog, 1);
	log[0] = '\0';
	if (ASSERT_ERR(memcg_stat_kfuncs__load(skel), "load must fail"))
		ASSERT_HAS_SUBSTR(log, msg, "verifier message");
out:
	memcg_stat_kfuncs__destroy(skel);
}

void test_memcg_stat_kfuncs(void)
{
	struct memcg_stat_kfuncs *skel;
	size_t i;

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
	for (i = 0; i < ARRAY_SIZE(refused); i++) {
		char name[64];

		snprintf(name, sizeof(name), "refused_%s", refused[i].prog);
		if (test__start_subtest(name))
			test_refused(refused[i].prog, refused[i].msg);
	}
	memcg_stat_kfuncs__destroy(skel);
out:
	cleanup_cgroup_environment();
}
