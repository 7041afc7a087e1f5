// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The floors mcsbench measures the library against: programs that do
 * nothing, run the way the library runs its own.
 *  - empty_iter: a cgroup_iter program returning 0, sleepable like the
 *    library's query and snapshot programs. Attached SELF_ONLY it is the
 *    cost of one iterator create/read/close; DESCENDANTS_PRE, of a walk.
 *  - empty_syscall: a BPF_PROG_TYPE_SYSCALL program returning 0, run with
 *    BPF_PROG_TEST_RUN: the floor of a syscall-program query.
 * No kfuncs: this object loads on any kernel with cgroup_iter (the host too).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "Dual BSD/GPL";

SEC("iter.s/cgroup")
int empty_iter(struct bpf_iter__cgroup *ctx)
{
	(void)ctx;
	return 0;
}

SEC("syscall")
int empty_syscall(void *ctx)
{
	(void)ctx;
	return 0;
}
