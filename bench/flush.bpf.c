// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * flush_only: what the library's programs do before reading any counter,
 * and nothing else. Attached SELF_ONLY to the top of a tree it flushes the
 * whole tree's memcg statistics once, so its time on a dirty tree against a
 * snapshot's is the flush's share. Needs the memcg kfuncs (patched kernel).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "memcg_kfuncs.h"
#include "memcg_read.bpf.h"

char _license[] SEC("license") = "Dual BSD/GPL";

/* the library's own flush (mcs_flush_cgroup()) of the cgroup walked */
SEC("iter.s/cgroup")
int flush_only(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;

	if (cgrp)
		mcs_flush_cgroup(cgrp);
	return 0;
}
