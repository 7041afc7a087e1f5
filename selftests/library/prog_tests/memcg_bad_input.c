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
 * The nodes with memory (N_MEMORY), from /sys/devices/system/node/has_memory
 * ("0-1,3"): the nodes the node kfunc reads, memory.numa_stat's. Marks
 * them in @has[MCS_KF_NID_MAX + 1]; 0, or -1 if the list cannot be read.
 */
static int nodes_with_memory(bool *has)
{
	char buf[4096], *p, *end;
	long lo, hi;
	FILE *f;

	memset(has, 0, (MCS_KF_NID_MAX + 1) * sizeof(*has));
	f = fopen("/sys/devices/system/node/has_memory", "r");
	if (!f)
		return -1;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (!p)
		return -1;
	while (*p && *p != '\n') {
		lo = hi = strtol(p, &end, 10);
		if (end == p || lo < 0)
			return -1;
		if (*end == '-') {
			p = end + 1;
			hi = strtol(p, &end, 10);
			if (end == p || hi < lo)
				return -1;
		}
		for (; lo <= hi && lo <= MCS_KF_NID_MAX; lo++)
			has[lo] = true;
		p = *end == ',' ? end + 1 : end;
	}
	return 0;
}

/*
 * 10^6 kfunc calls, each kind in turn, with indices (half from [-64, 1024),
 * where the valid ones are, half any int), nodes in [-4, 8) and items for
 * bpf_memcgstat_read() from xorshift64 seeded 42: an index outside its
 * enum, or a node without memory, must read -1; bpf_memcgstat_read() must
 * return its count or an error, and -1 for an item of a kind it does not
 * know and for one of a kind it knows whose index (its low 16 bits: any
 * value, mostly past every enum) or node (bits 27-16) is out of range;
 * nothing in the kernel log.
 */
#define RANDOM_CALLS	1000000

/* The end of the enum an index of @kind must be below (per-item kinds). */
static int index_bound(__u32 kind, int nr_stat, int nr_events, int nr_memory_events,
		       int nr_node_stat)
{
	switch (kind) {
	case MCS_VM_EVENTS:
	case MCS_VM_EVENTS_LOCAL:
		return nr_events;
	case MCS_MEMORY_EVENTS:
		return nr_memory_events;
	case MCS_NODE_PAGE_STATE:
		return nr_node_stat;
	default:
		return nr_stat;
	}
}

static void random_indices(void)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	static const __u32 kinds[] = {
		MCS_PAGE_STATE, MCS_VM_EVENTS, MCS_MEMORY_EVENTS, MCS_PAGE_STATE_LOCAL,
		MCS_VM_EVENTS_LOCAL, MCS_NODE_PAGE_STATE, MCS_USAGE + 1,
	};
	struct memcg_random *skel = memcg_random__open_and_load();
	unsigned long long calls = 0, minus1 = 0, values = 0, bad = 0, absent = 0, kf = 0, kf_err = 0;
	/* calls to the node kfunc, those with a node without memory */
	unsigned long long node_calls = 0, node_out = 0;
	/* bpf_memcgstat_read() items of a known kind out of range, of them by node */
	unsigned long long kf_out = 0, kf_node_out = 0;
	static bool has_mem[MCS_KF_NID_MAX + 1];
	uint64_t s = 42, r;
	int fd, n, i, bound;
	bool invalid;
	char *log;

	/* the enums' ends in the running kernel (vmlinux BTF) */
	int nr_stat = enum_val("MEMCG_NR_STAT"), nr_events = enum_val("NR_VM_EVENT_ITEMS");
	int nr_memory_events = enum_val("MEMCG_NR_MEMORY_EVENTS");
	int nr_node_stat = enum_val("NR_VM_NODE_STAT_ITEMS");

	if (!ASSERT_OK_PTR(skel, "memcg_random open and load"))
		return;
	if (!ASSERT_OK(nodes_with_memory(has_mem), "/sys/devices/system/node/has_memory"))
		goto out;
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
				__u32 it = b->kf_items[i], k = it >> MCS_KF_KIND_SHIFT;
				int kidx = it & MCS_KF_IDX_MAX;
				int knid = (it >> MCS_KF_NID_SHIFT) & MCS_KF_NID_MAX;
				bool node_bad = k == MCS_NODE_PAGE_STATE && !has_mem[knid];

				if (!k || k > MCS_USAGE) {
					invalid = true;
				} else if (k == MCS_USAGE) {
					invalid = false;	/* it takes no index */
				} else {
					bound = index_bound(k, nr_stat, nr_events, nr_memory_events,
							    nr_node_stat);
					invalid = kidx >= bound || node_bad;
					kf_out += invalid;
					kf_node_out += node_bad && kidx < bound;
				}
				bad += invalid && b->kf_vals[i] != MCS_INVALID;
			}
			continue;
		}
		bound = index_bound(b->kind, nr_stat, nr_events, nr_memory_events, nr_node_stat);
		invalid = b->idx < 0 || b->idx >= bound;
		if (b->kind == MCS_NODE_PAGE_STATE) {
			bool node_bad = b->nid < 0 || b->nid > MCS_KF_NID_MAX || !has_mem[b->nid];

			node_calls++;
			node_out += node_bad;
			invalid |= node_bad;
		}
		calls++;
		minus1 += b->value == MCS_INVALID;
		values += b->value != MCS_INVALID;
		bad += invalid && b->value != MCS_INVALID;
	}
	printf("  seed 42: %llu per-item calls (%llu -1, %llu values), %llu bpf_memcgstat_read (%llu errors), %llu to absent kfuncs\n",
	       calls, minus1, values, kf, kf_err, absent);
	ASSERT_EQ(calls + kf + absent, RANDOM_CALLS, "every call ran");
	printf("  node kfunc: %llu calls, %llu on a node without memory; bpf_memcgstat_read: %llu\n"
	       "  items of a known kind out of range, %llu by their node alone\n",
	       node_calls, node_out, kf_out, kf_node_out);
	ASSERT_EQ(bad, 0, "an index outside its enum, a node without memory or an unknown kind reads -1");
	ASSERT_TRUE(minus1 > 0 && values > 0, "both valid and invalid indices drawn");
	/* where the kfuncs exist, the draws reached the checks above */
	if (node_calls)
		ASSERT_TRUE(node_out > 0 && node_out < node_calls,
			    "nodes with and without memory drawn");
	if (kf) {
		ASSERT_GT(kf_out, 0, "bpf_memcgstat_read items of a known kind out of range");
		ASSERT_GT(kf_node_out, 0, "... and by their node alone");
	}
	log = kernel_log();
	if (ASSERT_OK_PTR(log, "klogctl")) {
		ASSERT_FALSE(strstr(log, "WARNING:"), "no WARNING in the kernel log");
		ASSERT_FALSE(strstr(log, "BUG:"), "no BUG in the kernel log");
	}
	free(log);
out:
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
	char *cg = NULL, *log;
	int i, n;

	if (test__start_subtest("random_indices"))
		random_indices();
	if (!test__start_subtest("invalid_indices"))
		return;
	cg = items_setup(&skel, "bad");
	if (!cg)
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
