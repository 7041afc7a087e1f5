// SPDX-License-Identifier: GPL-2.0
/*
 * Every invalid index class returns -1, reads nothing out of bounds and
 * leaves no WARN in the kernel log; and so do 10^6 kfunc calls with indices,
 * nodes and items from a seeded generator (progs/memcg_random.c).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "test_progs.h"
#include "memcg_util.h"
#include "memcg_random.skel.h"

struct bad_case {
	const char *what;
	int kind;
	const char *idx_enum;	/* index from an enumerator, or */
	int idx;		/* a raw index */
	int nid;
};

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * 10^6 kfunc calls, each kind in turn, with indices (half from [-64, 1024),
 * where the valid ones are, half any int), nodes in [-4, 8) and items for
 * bpf_memcgstat_read() from xorshift64 seeded 42: an index outside its enum
 * must read -1, bpf_memcgstat_read() must return its count or an error and
 * -1 for an item of a kind it does not know; nothing in the kernel log.
 */
#define RANDOM_CALLS	1000000

static void random_indices(void)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	static const __u32 kinds[] = {
		MCS_PAGE_STATE, MCS_VM_EVENTS, MCS_MEMORY_EVENTS, MCS_PAGE_STATE_LOCAL,
		MCS_VM_EVENTS_LOCAL, MCS_NODE_PAGE_STATE, MCS_USAGE + 1,
	};
	struct memcg_random *skel = memcg_random__open_and_load();
	unsigned long long calls = 0, minus1 = 0, values = 0, bad = 0, absent = 0, kf = 0, kf_err = 0;
	uint64_t s = 42, r;
	int fd, n, i, bound;
	char *log;

	/* the enums' ends in the running kernel (vmlinux BTF) */
	int nr_stat = enum_val("MEMCG_NR_STAT"), nr_events = enum_val("NR_VM_EVENT_ITEMS");
	int nr_memory_events = enum_val("MEMCG_NR_MEMORY_EVENTS");
	int nr_node_stat = enum_val("NR_VM_NODE_STAT_ITEMS");

	if (!ASSERT_OK_PTR(skel, "memcg_random open and load"))
		return;
	fd = bpf_program__fd(skel->progs.random_read);
	for (n = 0; n < RANDOM_CALLS; n++) {
		struct memcg_random__bss *b = skel->bss;

		r = xorshift(&s);
		b->kind = kinds[n % 7];
		b->idx = r & 1 ? (int)(r >> 32) : (int)((r >> 8) % 1088) - 64;
		b->nid = (int)((r >> 40) % 12) - 4;
		for (i = 0; b->kind > MCS_USAGE && i < 8; i++)
			b->kf_items[i] = (__u32)xorshift(&s);
		b->value = 0;
		if (bpf_prog_test_run_opts(fd, &opts) || opts.retval) {
			bad++;
			break;
		}
		if (b->absent) {
			absent++;
			continue;
		}
		if (b->kind > MCS_USAGE) {
			kf++;
			if (b->kf_ret < 0) {
				kf_err++;
				continue;
			}
			bad += b->kf_ret != 8;
			for (i = 0; i < 8; i++) {
				__u32 k = b->kf_items[i] >> MCS_KF_KIND_SHIFT;

				bad += (!k || k > MCS_USAGE) && b->kf_vals[i] != MCS_INVALID;
			}
			continue;
		}
		bound = b->kind == MCS_VM_EVENTS || b->kind == MCS_VM_EVENTS_LOCAL ? nr_events :
			b->kind == MCS_MEMORY_EVENTS ? nr_memory_events :
			b->kind == MCS_NODE_PAGE_STATE ? nr_node_stat : nr_stat;
		calls++;
		minus1 += b->value == MCS_INVALID;
		values += b->value != MCS_INVALID;
		bad += (b->idx < 0 || b->idx >= bound) && b->value != MCS_INVALID;
	}
	printf("  seed 42: %llu per-item calls (%llu -1, %llu values), %llu bpf_memcgstat_read (%llu errors), %llu to absent kfuncs\n",
	       calls, minus1, values, kf, kf_err, absent);
	ASSERT_EQ(calls + kf + absent, RANDOM_CALLS, "every call ran");
	ASSERT_EQ(bad, 0, "an index outside its enum, or an unknown kind, read -1");
	ASSERT_TRUE(minus1 > 0 && values > 0, "both valid and invalid indices drawn");
	log = kernel_log();
	if (ASSERT_OK_PTR(log, "klogctl")) {
		ASSERT_FALSE(strstr(log, "WARNING:"), "no WARNING in the kernel log");
		ASSERT_FALSE(strstr(log, "BUG:"), "no BUG in the kernel log");
	}
	free(log);
	memcg_random__destroy(skel);
}

void test_memcg_bad_input(void)
{
	const struct bad_case cases[] = {
		{ .what = "page_state -1", .kind = MCS_PAGE_STATE, .idx = -1 },
		{ .what = "page_state INT_MIN", .kind = MCS_PAGE_STATE, .idx = INT_MIN },
		{ .what = "page_state MEMCG_NR_STAT", .kind = MCS_PAGE_STATE, .idx_enum = "MEMCG_NR_STAT" },
		{ .what = "page_state INT_MAX", .kind = MCS_PAGE_STATE, .idx = INT_MAX },
		{ .what = "page_state untracked NR_VMSCAN_WRITE", .kind = MCS_PAGE_STATE, .idx_enum = "NR_VMSCAN_WRITE" },
		{ .what = "page_state untracked NR_ISOLATED_ANON", .kind = MCS_PAGE_STATE, .idx_enum = "NR_ISOLATED_ANON" },
		{ .what = "page_state_local -1", .kind = MCS_PAGE_STATE_LOCAL, .idx = -1 },
		{ .what = "page_state_local MEMCG_NR_STAT", .kind = MCS_PAGE_STATE_LOCAL, .idx_enum = "MEMCG_NR_STAT" },
		{ .what = "page_state_local INT_MAX", .kind = MCS_PAGE_STATE_LOCAL, .idx = INT_MAX },
		{ .what = "page_state_local untracked", .kind = MCS_PAGE_STATE_LOCAL, .idx_enum = "NR_VMSCAN_WRITE" },
		{ .what = "node_page_state nid -1", .kind = MCS_NODE_PAGE_STATE, .idx_enum = "NR_ANON_MAPPED", .nid = -1 },
		{ .what = "node_page_state nid INT_MAX", .kind = MCS_NODE_PAGE_STATE, .idx_enum = "NR_ANON_MAPPED", .nid = INT_MAX },
		{ .what = "node_page_state nid 4096", .kind = MCS_NODE_PAGE_STATE, .idx_enum = "NR_ANON_MAPPED", .nid = 4096 },
		{ .what = "node_page_state memcg item", .kind = MCS_NODE_PAGE_STATE, .idx_enum = "MEMCG_KMEM" },
		{ .what = "node_page_state idx -1", .kind = MCS_NODE_PAGE_STATE, .idx = -1 },
		{ .what = "node_page_state untracked", .kind = MCS_NODE_PAGE_STATE, .idx_enum = "NR_VMSCAN_WRITE" },
		{ .what = "vm_events -1", .kind = MCS_VM_EVENTS, .idx = -1 },
		{ .what = "vm_events NR_VM_EVENT_ITEMS", .kind = MCS_VM_EVENTS, .idx_enum = "NR_VM_EVENT_ITEMS" },
		{ .what = "vm_events INT_MAX", .kind = MCS_VM_EVENTS, .idx = INT_MAX },
		{ .what = "vm_events untracked PGFREE", .kind = MCS_VM_EVENTS, .idx_enum = "PGFREE" },
		{ .what = "vm_events untracked ALLOCSTALL_NORMAL", .kind = MCS_VM_EVENTS, .idx_enum = "ALLOCSTALL_NORMAL" },
		{ .what = "vm_events_local -1", .kind = MCS_VM_EVENTS_LOCAL, .idx = -1 },
		{ .what = "vm_events_local NR_VM_EVENT_ITEMS", .kind = MCS_VM_EVENTS_LOCAL, .idx_enum = "NR_VM_EVENT_ITEMS" },
		{ .what = "vm_events_local untracked", .kind = MCS_VM_EVENTS_LOCAL, .idx_enum = "PGFREE" },
		{ .what = "memory_events -1", .kind = MCS_MEMORY_EVENTS, .idx = -1 },
		{ .what = "memory_events INT_MIN", .kind = MCS_MEMORY_EVENTS, .idx = INT_MIN },
		{ .what = "memory_events MEMCG_NR_MEMORY_EVENTS", .kind = MCS_MEMORY_EVENTS, .idx_enum = "MEMCG_NR_MEMORY_EVENTS" },
		{ .what = "memory_events INT_MAX", .kind = MCS_MEMORY_EVENTS, .idx = INT_MAX },
	};
	const int nr = sizeof(cases) / sizeof(cases[0]);
	struct mcs_item items[MCS_MAX_ITEMS] = {};
	__u64 values[MCS_MAX_ITEMS];
	struct memcg_items *skel;
	char name[64], *cg = NULL, *log;
	int i, n;

	if (test__start_subtest("random_indices"))
		random_indices();
	if (!test__start_subtest("invalid_indices"))
		return;
	skel = items_open();
	if (!ASSERT_OK_PTR(skel, "items_open"))
		return;
	snprintf(name, sizeof(name), "memcgstat_bad_%d", getpid());
	cg = cg_create(NULL, name);
	if (!ASSERT_OK_PTR(cg, "cg_create"))
		return;

	for (i = 0; i < nr; i++) {
		items[i].kind = cases[i].kind;
		items[i].idx = cases[i].idx_enum ? enum_val(cases[i].idx_enum) : cases[i].idx;
		items[i].nid = cases[i].nid;
	}
	/* Valid neighbours: the same run must still read real values. */
	n = nr;
	items[n++] = (struct mcs_item){ .kind = MCS_PAGE_STATE, .idx = enum_val("NR_FILE_PAGES") };
	items[n++] = (struct mcs_item){ .kind = MCS_NODE_PAGE_STATE, .idx = enum_val("NR_FILE_PAGES") };
	items[n++] = (struct mcs_item){ .kind = MCS_VM_EVENTS, .idx = enum_val("PGFAULT") };
	items[n++] = (struct mcs_item){ .kind = MCS_MEMORY_EVENTS, .idx = enum_val("MEMCG_OOM_KILL") };

	if (!ASSERT_OK(items_run(skel, cg, items, n, values), "items_run"))
		goto out;
	for (i = 0; i < nr; i++)
		ASSERT_U64_EQ(values[i], MCS_INVALID, cases[i].what);
	for (; i < n; i++)
		ASSERT_TRUE(values[i] != MCS_INVALID, "valid index next to bad ones");

	log = kernel_log();
	if (ASSERT_OK_PTR(log, "klogctl")) {
		ASSERT_FALSE(strstr(log, "missing stat item"), "no 'missing stat item' WARN");
		ASSERT_FALSE(strstr(log, "WARNING:"), "no WARNING in the kernel log");
		ASSERT_FALSE(strstr(log, "BUG:"), "no BUG in the kernel log");
	}
	free(log);
out:
	ASSERT_OK(cg_destroy(cg), "cg_destroy");
	free(cg);
}
