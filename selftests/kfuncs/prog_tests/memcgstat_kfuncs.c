// SPDX-License-Identifier: GPL-2.0
/*
 * memcgstat's memcg kfuncs (mm/bpf_memcgstat.c) against the kernel's own
 * files and each other: in a parent cgroup whose one child holds anon,
 * shmem and the faults that made them, bpf_memcgstat_node_page_state()
 * equals memory.numa_stat on every node with memory and sums to
 * bpf_mem_cgroup_page_state(), reads -1 for a node without; the local
 * readers give the child its whole value and the parent none of it; and
 * bpf_memcgstat_read() reads every one of those counters as its own
 * kfunc does. Bad indices, node ids, item encodings and sizes are refused
 * (-1 values, errors with nothing written), a cgroup without a memcg is
 * -ENOENT, and the verifier refuses the programs of
 * progs/memcgstat_kfuncs_fail.c (RUN_TESTS: each with its message).
 * Item encodings are taken from the kernel's BTF (enum
 * bpf_memcgstat_item_field and enum bpf_memcgstat_kind), as a program
 * would take them by CO-RE.
 */
#define _GNU_SOURCE
#include <test_progs.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "cgroup_helpers.h"
#include "memcgstat_kfuncs.skel.h"
#include "memcgstat_kfuncs_fail.skel.h"

#define PARENT	"memcgstat_kfuncs"
#define CHILD	PARENT "/child"
#define NO_MEMCG PARENT "/nomem/x"
#define ANON_MB	8
#define SHMEM_MB 4

/* As in progs/memcgstat_kfuncs.c */
#define NR_STATS	3
#define NR_EVENTS	2
#define NR_NODES	4
#define NR_MAX		4096

#define FILL	0xa5a5a5a5a5a5a5a5ULL
#define BAD	((__u64)-1)

static const char *const stat_enum[NR_STATS] = {
	"NR_ANON_MAPPED", "NR_SHMEM", "NR_FILE_PAGES"
};

/* their memory.numa_stat keys */
static const char *const stat_key[NR_STATS] = { "anon", "shmem", "file" };
static const char *const event_enum[NR_EVENTS] = { "PGFAULT", "PGMAJFAULT" };

static struct btf *vmlinux_btf;

/* The value of enumerator @name of enum @type in vmlinux BTF, or -1. */
static long long enum_val(const char *type, const char *name)
{
	const struct btf_type *t;
	const struct btf_enum *e;
	int id, i;

	id = btf__find_by_name_kind(vmlinux_btf, type, BTF_KIND_ENUM);
	if (id < 0)
		return -1;
	t = btf__type_by_id(vmlinux_btf, id);
	for (i = 0, e = btf_enum(t); i < btf_vlen(t); i++, e++)
		if (!strcmp(btf__name_by_offset(vmlinux_btf, e->name_off), name))
			return e->val;
	return -1;
}

/* A node stat, vm event or memory event by name; 0 (and a failure) if none. */
static __u32 idx_of(const char *name)
{
	static const char *const types[] = {
		"node_stat_item", "memcg_stat_item", "vm_event_item", "memcg_memory_event",
	};
	long long v;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		v = enum_val(types[i], name);
		if (v >= 0)
			return v;
	}
	PRINT_FAIL("%s: no such enumerator in vmlinux BTF\n", name);
	return 0;
}

/* Where each field of an item sits, from enum bpf_memcgstat_item_field. */
static struct { int kind, nid, idx; } shift;

static int read_layout(void)
{
	shift.kind = enum_val("bpf_memcgstat_item_field", "BPF_MEMCGSTAT_KIND_SHIFT");
	shift.nid = enum_val("bpf_memcgstat_item_field", "BPF_MEMCGSTAT_NID_SHIFT");
	shift.idx = enum_val("bpf_memcgstat_item_field", "BPF_MEMCGSTAT_IDX_SHIFT");
	return shift.kind > 0 && shift.nid > 0 && shift.idx >= 0 ? 0 : -1;
}

/* An item: @kind an enumerator of enum bpf_memcgstat_kind (or a number). */
static __u32 item(const char *kind, __u32 nid, __u32 idx)
{
	__u32 k = kind ? enum_val("bpf_memcgstat_kind", kind) : 0;

	return k << shift.kind | nid << shift.nid | idx << shift.idx;
}

#define ITEM(kind, nid, idx)	item("BPF_MEMCGSTAT_" #kind, nid, idx)

/*
 * The items of read_cgroup(), in an order whose values the program also
 * reads one by one; @expect gets those values, from the skeleton.
 */
static int cgroup_items(struct memcgstat_kfuncs *skel, __u64 *expect)
{
	struct memcgstat_kfuncs__bss *b = skel->bss;
	int i, n, nr = 0;

	for (i = 0; i < NR_STATS; i++) {
		__u32 idx = idx_of(stat_enum[i]);

		expect[nr] = b->total[i];
		b->items[nr++] = ITEM(PAGE_STATE, 0, idx);
		expect[nr] = b->local[i];
		b->items[nr++] = ITEM(PAGE_STATE_LOCAL, 0, idx);
		for (n = 0; n < NR_NODES; n++) {
			expect[nr] = b->node[i][n];
			b->items[nr++] = ITEM(NODE_PAGE_STATE, n, idx);
		}
	}
	for (i = 0; i < NR_EVENTS; i++) {
		__u32 idx = idx_of(event_enum[i]);

		expect[nr] = b->events[i];
		b->items[nr++] = ITEM(VM_EVENTS, 0, idx);
		expect[nr] = b->events_local[i];
		b->items[nr++] = ITEM(VM_EVENTS_LOCAL, 0, idx);
	}
	expect[nr] = b->usage;
	b->items[nr++] = ITEM(USAGE, 0, 0);
	b->nr_items = nr;
	return nr;
}

static int read_iter(struct bpf_program *prog, int cg_fd)
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
	link = bpf_program__attach_iter(prog, &opts);
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

/*
 * memory.numa_stat's value of @key on node @nid: bytes, or -1 where the
 * file lists no such node (it lists nodes with memory only).
 */
static long long read_numa_stat(int cg_fd, const char *key, int nid)
{
	char buf[16384], want[16], *p, *end;
	size_t klen = strlen(key);
	ssize_t len;
	int fd;

	fd = openat(cg_fd, "memory.numa_stat", O_RDONLY);
	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = 0;
	snprintf(want, sizeof(want), " N%d=", nid);
	for (p = buf; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, klen) || p[klen] != ' ')
			continue;
		end = strchr(p, '\n');
		p = strstr(p, want);
		if (!p || (end && p > end))
			return -1;
		return strtoll(p + strlen(want), NULL, 10);
	}
	return -1;
}

/* A child in CHILD with anon and shmem; it waits to be killed. */
static pid_t start_child(void)
{
	int fds[2];
	char c = 0;
	pid_t pid;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		size_t anon = ANON_MB << 20, shm = SHMEM_MB << 20;
		int memfd;
		char *a;

		if (join_cgroup(CHILD))
			_exit(1);
		a = mmap(NULL, anon, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		memfd = memfd_create(PARENT, 0);
		if (a == MAP_FAILED || memfd < 0 || ftruncate(memfd, shm))
			_exit(1);
		/* a fault per base page, with THP on or off */
		madvise(a, anon, MADV_NOHUGEPAGE);
		memset(a, 1, anon);
		if (fallocate(memfd, 0, 0, shm) || write(fds[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(fds[1]);
	if (pid > 0 && read(fds[0], &c, 1) != 1) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(fds[0]);
	return pid;
}

struct reading {
	__u64 total[NR_STATS], local[NR_STATS], node[NR_STATS][NR_NODES];
	__u64 events[NR_EVENTS], events_local[NR_EVENTS];
	long long text[NR_STATS][NR_NODES];
	int nr, ret, bad;	/* items, bpf_memcgstat_read()'s return, mismatches */
};

/* Run read_cgroup() on @cg_fd; hold bpf_memcgstat_read() to the kfuncs. */
static int take(struct memcgstat_kfuncs *skel, int cg_fd, struct reading *r)
{
	__u64 expect[64];
	int i, n;

	/* the items are the same every run; the values come after the run */
	r->nr = cgroup_items(skel, expect);
	if (read_iter(skel->progs.read_cgroup, cg_fd))
		return -1;
	cgroup_items(skel, expect);
	memcpy(r->total, skel->bss->total, sizeof(r->total));
	memcpy(r->local, skel->bss->local, sizeof(r->local));
	memcpy(r->node, skel->bss->node, sizeof(r->node));
	memcpy(r->events, skel->bss->events, sizeof(r->events));
	memcpy(r->events_local, skel->bss->events_local, sizeof(r->events_local));
	for (i = 0; i < NR_STATS; i++)
		for (n = 0; n < NR_NODES; n++)
			r->text[i][n] = read_numa_stat(cg_fd, stat_key[i], n);
	r->ret = skel->bss->ret;
	for (r->bad = i = 0; i < r->nr; i++)
		r->bad += skel->bss->vals[i] != expect[i];
	return 0;
}

/* Whether @r agrees with itself: nodes with the text and the total. */
static bool nodes_agree(const struct reading *r)
{
	int i, n;

	for (i = 0; i < NR_STATS; i++) {
		__u64 sum = 0;

		for (n = 0; n < NR_NODES; n++) {
			if (r->text[i][n] < 0 ? r->node[i][n] != BAD :
			    r->node[i][n] != (__u64)r->text[i][n])
				return false;
			sum += r->node[i][n] == BAD ? 0 : r->node[i][n];
		}
		if (sum != r->total[i])
			return false;
	}
	return true;
}

static void check_nodes(const struct reading *r, const char *who)
{
	int i, n, nodes = 0;

	for (i = 0; i < NR_STATS; i++) {
		__u64 sum = 0;

		for (n = 0; n < NR_NODES; n++) {
			if (r->text[i][n] < 0) {
				ASSERT_EQ(r->node[i][n], BAD, "a node memory.numa_stat lacks");
				continue;
			}
			nodes += !i;
			ASSERT_EQ(r->node[i][n], r->text[i][n], stat_key[i]);
			sum += r->node[i][n];
		}
		if (!ASSERT_EQ(sum, r->total[i], "nodes sum to the total"))
			printf("  %s: %s\n", who, stat_key[i]);
	}
	ASSERT_GE(nodes, 1, "nodes in memory.numa_stat");
}

static void test_cgroup_values(struct memcgstat_kfuncs *skel)
{
	struct reading p = {}, c = {};
	int p_fd = -1, c_fd = -1, i, try;
	pid_t pid = -1;

	p_fd = create_and_get_cgroup(PARENT);
	if (!ASSERT_GE(p_fd, 0, "create " PARENT) ||
	    !ASSERT_OK(enable_controllers(PARENT, "memory"), "memory for children"))
		goto out;
	c_fd = create_and_get_cgroup(CHILD);
	if (!ASSERT_GE(c_fd, 0, "create " CHILD))
		goto out;
	pid = start_child();
	if (!ASSERT_GT(pid, 0, "child with memory in " CHILD))
		goto out;

	/* the child is idle: counters settle, both cgroups read one state */
	for (try = 0; try < 20; try++) {
		if (!ASSERT_OK(take(skel, c_fd, &c), "read " CHILD) ||
		    !ASSERT_OK(take(skel, p_fd, &p), "read " PARENT))
			goto out;
		if (!c.bad && !p.bad && nodes_agree(&c) && nodes_agree(&p) &&
		    !memcmp(c.total, p.total, sizeof(c.total)) &&
		    !memcmp(c.events, p.events, sizeof(c.events)))
			break;
	}
	ASSERT_EQ(skel->bss->cgroup_id, get_cgroup_id(PARENT), "cgroup id");
	ASSERT_EQ(c.ret, c.nr, "bpf_memcgstat_read(): a value per item");
	ASSERT_EQ(p.ret, p.nr, "bpf_memcgstat_read() on the parent");
	ASSERT_EQ(c.bad, 0, "bpf_memcgstat_read() equals each item's kfunc");
	ASSERT_EQ(p.bad, 0, "bpf_memcgstat_read() equals each item's kfunc (parent)");
	check_nodes(&c, CHILD);
	check_nodes(&p, PARENT);
	for (i = 0; i < NR_STATS; i++) {
		ASSERT_EQ(c.local[i], c.total[i], "the child's own is all of it");
		ASSERT_EQ(p.local[i], 0, "the parent has none of its own");
		ASSERT_EQ(p.total[i], c.total[i], "the parent's total is the child's");
	}
	for (i = 0; i < NR_EVENTS; i++) {
		ASSERT_EQ(c.events_local[i], c.events[i], "the child's own events");
		ASSERT_EQ(p.events_local[i], 0, "no task ever ran in the parent");
		ASSERT_EQ(p.events[i], c.events[i], "the parent's events are the child's");
	}
	ASSERT_GE(c.total[0], ANON_MB << 20, "anon");
	ASSERT_GE(c.total[1], SHMEM_MB << 20, "shmem");
	ASSERT_GE(c.events[0], (ANON_MB << 20) / getpagesize(), "a fault per anon page");
out:
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	if (c_fd >= 0)
		close(c_fd);
	if (p_fd >= 0)
		close(p_fd);
}

/* Items bpf_memcgstat_read() must read as -1, between ones it must read. */
static void test_bad_input(struct memcgstat_kfuncs *skel)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	const struct {
		const char *what;
		__u32 item;
		bool valid;
	} c[] = {
		{ "usage", ITEM(USAGE, 0, 0), true },
		{ "page_state", ITEM(PAGE_STATE, 0, idx_of("NR_FILE_PAGES")), true },
		{ "kind 0", item(NULL, 0, idx_of("NR_FILE_PAGES")), false },
		{ "kind 8", 8U << shift.kind | idx_of("NR_FILE_PAGES"), false },
		{ "kind 15", 15U << shift.kind | idx_of("NR_FILE_PAGES"), false },
		{ "page_state MEMCG_NR_STAT", ITEM(PAGE_STATE, 0, idx_of("MEMCG_NR_STAT")), false },
		{ "page_state 0xffff", ITEM(PAGE_STATE, 0, 0xffff), false },
		{ "page_state untracked", ITEM(PAGE_STATE, 0, idx_of("NR_VMSCAN_WRITE")), false },
		{ "page_state_local untracked",
		  ITEM(PAGE_STATE_LOCAL, 0, idx_of("NR_ISOLATED_ANON")), false },
		{ "node_page_state nid 0xfff",
		  ITEM(NODE_PAGE_STATE, 0xfff, idx_of("NR_ANON_MAPPED")), false },
		{ "node_page_state nid 64",
		  ITEM(NODE_PAGE_STATE, 64, idx_of("NR_ANON_MAPPED")), false },
		{ "node_page_state memcg item",
		  ITEM(NODE_PAGE_STATE, 0, idx_of("MEMCG_KMEM")), false },
		{ "vm_events NR_VM_EVENT_ITEMS",
		  ITEM(VM_EVENTS, 0, idx_of("NR_VM_EVENT_ITEMS")), false },
		{ "vm_events untracked PGFREE", ITEM(VM_EVENTS, 0, idx_of("PGFREE")), false },
		{ "vm_events_local 0xffff", ITEM(VM_EVENTS_LOCAL, 0, 0xffff), false },
		{ "memory_events MEMCG_NR_MEMORY_EVENTS",
		  ITEM(MEMORY_EVENTS, 0, idx_of("MEMCG_NR_MEMORY_EVENTS")), false },
		/* a field the kind does not use, set: reserved */
		{ "page_state nid 1", ITEM(PAGE_STATE, 1, idx_of("NR_FILE_PAGES")), false },
		{ "page_state_local nid 1",
		  ITEM(PAGE_STATE_LOCAL, 1, idx_of("NR_FILE_PAGES")), false },
		{ "vm_events nid 0xfff", ITEM(VM_EVENTS, 0xfff, idx_of("PGFAULT")), false },
		{ "vm_events_local nid 1", ITEM(VM_EVENTS_LOCAL, 1, idx_of("PGFAULT")), false },
		{ "memory_events nid 1", ITEM(MEMORY_EVENTS, 1, idx_of("MEMCG_OOM_KILL")), false },
		{ "usage idx 1", ITEM(USAGE, 0, 1), false },
		{ "usage nid 1", ITEM(USAGE, 1, 0), false },
		/* valid neighbours: the same call still reads them */
		{ "node_page_state node 0",
		  ITEM(NODE_PAGE_STATE, 0, idx_of("NR_FILE_PAGES")), true },
		{ "vm_events PGFAULT", ITEM(VM_EVENTS, 0, idx_of("PGFAULT")), true },
		{ "memory_events MEMCG_OOM_KILL",
		  ITEM(MEMORY_EVENTS, 0, idx_of("MEMCG_OOM_KILL")), true },
	};
	struct memcgstat_kfuncs__bss *b = skel->bss;
	int i, err;

	for (i = 0; i < (int)ARRAY_SIZE(c); i++) {
		b->items[i] = c[i].item;
		b->vals[i] = FILL;
	}
	b->nr_items = ARRAY_SIZE(c);
	for (i = 0; i < (int)ARRAY_SIZE(b->err_vals); i++)
		b->err_vals[i] = FILL;
	for (i = 0; i <= NR_MAX; i++) {
		b->big_items[i] = ITEM(USAGE, 0, 1);	/* reserved: -1 */
		b->big_vals[i] = FILL;
	}
	err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.read_bad), &topts);
	if (!ASSERT_OK(err, "run read_bad") || !ASSERT_EQ(topts.retval, 0, "root memcg"))
		return;
	for (i = 0; i < (int)ARRAY_SIZE(b->bad); i++)
		ASSERT_EQ(b->bad[i], BAD, "a per-item kfunc refuses with -1");
	ASSERT_EQ(b->ret, ARRAY_SIZE(c), "values written");
	for (i = 0; i < (int)ARRAY_SIZE(c); i++) {
		if (c[i].valid)
			ASSERT_NEQ(b->vals[i], BAD, c[i].what);
		else
			ASSERT_EQ(b->vals[i], BAD, c[i].what);
	}
	ASSERT_EQ(b->ret_half_item, -EINVAL, "half an item");
	ASSERT_EQ(b->ret_half_val, -EINVAL, "half a value");
	ASSERT_EQ(b->ret_short, -EINVAL, "room for 1 value of 2");
	for (i = 0; i < (int)ARRAY_SIZE(b->err_vals); i++)
		ASSERT_EQ(b->err_vals[i], FILL, "nothing written on -EINVAL");
	ASSERT_EQ(b->ret_big, -E2BIG, "4097 items");
	ASSERT_EQ(b->big_vals[NR_MAX], FILL, "nothing written on -E2BIG");
	ASSERT_EQ(b->ret_max, NR_MAX, "4096 items");
	ASSERT_EQ(b->big_vals[NR_MAX - 1], BAD, "the last of 4096");
}

/* A cgroup whose parent does not enable the memory controller for it. */
static void test_no_memcg(struct memcgstat_kfuncs *skel)
{
	int fd, x_fd = -1, p_fd = create_and_get_cgroup(PARENT);

	if (!ASSERT_GE(p_fd, 0, "create " PARENT) ||
	    !ASSERT_OK(enable_controllers(PARENT, "memory"), "memory for children"))
		goto out_parent;
	fd = create_and_get_cgroup(PARENT "/nomem");
	if (!ASSERT_GE(fd, 0, "create " PARENT "/nomem"))
		goto out_parent;
	x_fd = create_and_get_cgroup(NO_MEMCG);
	if (!ASSERT_GE(x_fd, 0, "create " NO_MEMCG))
		goto out;
	skel->bss->items[0] = ITEM(USAGE, 0, 0);
	skel->bss->nr_items = 1;
	skel->bss->vals[0] = FILL;
	if (!ASSERT_OK(read_iter(skel->progs.read_only, x_fd), "read " NO_MEMCG))
		goto out;
	ASSERT_EQ(skel->bss->ret, -ENOENT, "no memcg");
	ASSERT_EQ(skel->bss->vals[0], FILL, "nothing written");
	/* its parent has a memcg */
	if (ASSERT_OK(read_iter(skel->progs.read_only, fd), "read " PARENT "/nomem"))
		ASSERT_EQ(skel->bss->ret, 1, "the parent's memcg");
out:
	if (x_fd >= 0)
		close(x_fd);
	close(fd);
out_parent:
	if (p_fd >= 0)
		close(p_fd);
}

void test_memcgstat_kfuncs(void)
{
	struct memcgstat_kfuncs *skel = NULL;

	vmlinux_btf = btf__load_vmlinux_btf();
	if (!ASSERT_OK_PTR(vmlinux_btf, "vmlinux BTF") ||
	    !ASSERT_OK(read_layout(), "enum bpf_memcgstat_item_field in BTF"))
		goto out_btf;
	if (!ASSERT_OK(setup_cgroup_environment(), "setup_cgroup_environment"))
		goto out_btf;
	skel = memcgstat_kfuncs__open_and_load();
	if (!ASSERT_OK_PTR(skel, "memcgstat_kfuncs__open_and_load"))
		goto out;
	if (test__start_subtest("cgroup_values"))
		test_cgroup_values(skel);
	if (test__start_subtest("bad_input"))
		test_bad_input(skel);
	if (test__start_subtest("no_memcg"))
		test_no_memcg(skel);
	memcgstat_kfuncs__destroy(skel);
out:
	cleanup_cgroup_environment();
	/* progs/memcgstat_kfuncs_fail.c: one subtest per program */
	RUN_TESTS(memcgstat_kfuncs_fail);
out_btf:
	btf__free(vmlinux_btf);
}
