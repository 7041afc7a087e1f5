// SPDX-License-Identifier: GPL-2.0
/* Programs that misuse the memcg kfuncs are refused, with the right reason. */
#include <stdlib.h>
#include <bpf/libbpf.h>
#include "test_progs.h"
#include "memcg_fail.skel.h"

static const struct {
	const char *prog;
	const char *msg;
} cases[] = {
	{ "null_memcg_passed", "Possibly NULL pointer passed to trusted arg0" },
	{ "memcg_not_released", "Unreleased reference" },
	/* after the put the register holds a scalar, not a memcg */
	{ "use_after_put", "arg#0 pointer type STRUCT mem_cgroup must point to scalar" },
	{ "flush_not_sleepable", "program must be sleepable to call sleepable kfunc bpf_mem_cgroup_flush_stats" },
	{ "untrusted_memcg", "must be referenced or trusted" },
	/* bpf_get_root_mem_cgroup() is KF_ACQUIRE, as in Linux 7.0 */
	{ "root_memcg_not_released", "Unreleased reference" },
};

static void expect_refused(const char *prog_name, const char *msg)
{
	static char log[1 << 20];
	LIBBPF_OPTS(bpf_object_open_opts, opts);
	struct bpf_program *prog;
	struct memcg_fail *skel;
	int err;

	skel = memcg_fail__open_opts(&opts);
	if (!ASSERT_OK_PTR(skel, "memcg_fail__open"))
		return;
	prog = bpf_object__find_program_by_name(skel->obj, prog_name);
	if (!ASSERT_OK_PTR(prog, prog_name))
		goto out;
	bpf_program__set_autoload(prog, true);
	log[0] = '\0';
	bpf_program__set_log_buf(prog, log, sizeof(log));
	bpf_program__set_log_level(prog, 1);

	err = memcg_fail__load(skel);
	if (!ASSERT_ERR(err, "load must fail"))
		goto out;
	ASSERT_HAS_SUBSTR(log, msg, "verifier message");
	if (env_verbose)
		printf("%s", log);
out:
	memcg_fail__destroy(skel);
}

void test_memcg_verifier(void)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (!test__start_subtest(cases[i].prog))
			continue;
		expect_refused(cases[i].prog, cases[i].msg);
	}
}
