// SPDX-License-Identifier: GPL-2.0
/*
 * One object for 6.12 and 7.0 (doc/kernel.md, "One object for 6.12 and
 * 7.0"): progs/memcg_portable.c names enumerators only 7.0 has under
 * bpf_core_enum_value_exists() and loads on a kernel that lacks them,
 * reading -1 for them and the counters both kernels have by the values
 * of the running kernel; without the guard, a kernel that lacks the
 * enumerator refuses the program, and with it the object (libbpf poisons
 * the relocated instruction, the verifier rejects the call it became).
 */
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "test_progs.h"
#include "memcg_util.h"
#include "memcg_portable.skel.h"

/* In the order of progs/memcg_portable.c's probes */
static const struct {
	const char *type, *name;
	bool counted_by_memcg_here;	/* both kernels keep it per memcg */
} probes[] = {
	{ "node_stat_item", "NR_FILE_MAPPED", true },
	{ "node_stat_item", "PGDEMOTE_PROACTIVE", false },
	{ "node_stat_item", "NR_HUGETLB", false },
	{ "vm_event_item", "PGFAULT", true },
	{ "vm_event_item", "PGSTEAL_PROACTIVE", false },
	{ "vm_event_item", "PGSCAN_PROACTIVE", false },
};

/* The enumerator @name of enum @type in the running kernel's BTF: 0 if it has it. */
static int kernel_enum_value(const char *type, const char *name, __u64 *val)
{
	const struct btf *btf = items_btf();
	const struct btf_type *t;
	const struct btf_enum *e;
	int id, i;

	if (!btf)
		return -ENOENT;
	id = btf__find_by_name_kind(btf, type, BTF_KIND_ENUM);
	if (id < 0)
		return id;
	t = btf__type_by_id(btf, id);
	e = btf_enum(t);
	for (i = 0; i < btf_vlen(t); i++, e++) {
		if (!strcmp(btf__name_by_offset(btf, e->name_off), name)) {
			*val = e->val;
			return 0;
		}
	}
	return -ENOENT;
}

static void guarded(void)
{
	const int n = sizeof(probes) / sizeof(probes[0]);
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	struct memcg_portable *skel;
	int i, absent = 0, err;

	skel = memcg_portable__open_and_load();
	if (!ASSERT_OK_PTR(skel, "the guarded object loads"))
		return;
	err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.read_guarded), &topts);
	if (!ASSERT_OK(err, "run read_guarded") ||
	    !ASSERT_EQ(topts.retval, 0, "read_guarded found the root memcg"))
		goto out;
	for (i = 0; i < n; i++) {
		const char *name = probes[i].name;
		__u64 want;
		bool has = !kernel_enum_value(probes[i].type, name, &want);

		ASSERT_EQ(skel->bss->exists[i], has, name);
		if (!has) {
			absent++;
			ASSERT_U64_EQ(skel->bss->val[i], (__u64)-1, name);
			continue;
		}
		ASSERT_U64_EQ(skel->bss->idx[i], want, name);
		if (probes[i].counted_by_memcg_here)
			ASSERT_TRUE(skel->bss->val[i] != (__u64)-1, name);
	}
	/* PGFAULT of the root: every process of this test took faults */
	ASSERT_GT(skel->bss->val[3], 0, "root pgfault");
	if (!absent)
		printf("%s: this kernel has every 7.0-only enumerator probed: the guards' "
		       "false branch was not taken\n", __func__);
out:
	memcg_portable__destroy(skel);
}

static void unguarded(void)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	struct memcg_portable *skel;
	static char log[64 * 1024];
	__u64 want;
	bool has;
	int err;

	has = !kernel_enum_value("node_stat_item", "NR_HUGETLB", &want);
	skel = memcg_portable__open();
	if (!ASSERT_OK_PTR(skel, "open"))
		return;
	bpf_program__set_autoload(skel->progs.read_guarded, false);
	bpf_program__set_autoload(skel->progs.read_unguarded, true);
	bpf_program__set_log_buf(skel->progs.read_unguarded, log, sizeof(log));
	bpf_program__set_log_level(skel->progs.read_unguarded, 1);
	err = memcg_portable__load(skel);
	if (has) {
		/* a kernel with NR_HUGETLB (7.0) takes it as it is */
		if (!ASSERT_OK(err, "unguarded load where the kernel has NR_HUGETLB"))
			goto out;
		err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.read_unguarded), &topts);
		ASSERT_OK(err, "run read_unguarded");
		ASSERT_EQ(topts.retval, 0, "read_unguarded found the root memcg");
		goto out;
	}
	if (!ASSERT_ERR(err, "unguarded load without NR_HUGETLB fails"))
		goto out;
	/*
	 * libbpf poisons the instruction (a call to helper 0xbad2310) and, when
	 * the verifier refuses that call, rewrites the log line to name the
	 * relocation that failed.
	 */
	ASSERT_HAS_SUBSTR(log, "failed to resolve CO-RE relocation <enumval_value>",
			  "the verifier refused the poisoned read");
	ASSERT_HAS_SUBSTR(log, "NR_HUGETLB___v70", "the log names the enumerator");
out:
	memcg_portable__destroy(skel);
}

void test_memcg_portable(void)
{
	if (test__start_subtest("guarded_7_0_enumerators"))
		guarded();
	if (test__start_subtest("unguarded_7_0_enumerator"))
		unguarded();
}
