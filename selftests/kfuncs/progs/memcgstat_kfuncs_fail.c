// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_memcgstat_read() misused in ways the verifier must refuse, each
 * program with the message it must refuse it with (RUN_TESTS() in
 * prog_tests/memcgstat_kfuncs.c loads them one at a time): read-only
 * buffers, sizes past the end or unbounded, and css pointers it cannot
 * trust.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "bpf_misc.h"

char _license[] SEC("license") = "GPL";

__u32 items[16];
__u32 items_sz;		/* unbounded: the verifier knows nothing of it */
__u64 vals[16];
int ret;
/* in .rodata, which libbpf freezes: the program may only read it */
const __u32 ro_items[4] = { 1 };

/* The items in a read-only map (the kfunc may write there). */
SEC("iter.s/cgroup")
__failure __msg("write into map forbidden")
int rodata_items(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;

	if (cgrp)
		ret = bpf_memcgstat_read(&cgrp->self, (const __u32 *)ro_items,
					 sizeof(ro_items), vals, 4 * sizeof(__u64));
	return 0;
}

/*
 * A size past the end of the memory (.bss holds all the globals above:
 * past the last of them).
 */
SEC("iter.s/cgroup")
__failure __msg("invalid access to map value")
int size_past_end(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;

	if (cgrp)
		ret = bpf_memcgstat_read(&cgrp->self, items, sizeof(items),
					 vals, 1 << 20);
	return 0;
}

/* A size the verifier cannot bound. */
SEC("iter.s/cgroup")
__failure __msg("unbounded memory access")
int size_unbounded(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;

	if (cgrp)
		ret = bpf_memcgstat_read(&cgrp->self, items, items_sz, vals, sizeof(vals));
	return 0;
}

/* A css the verifier cannot vouch for. */
SEC("iter.s/cgroup")
__failure __msg("R1 must be a rcu pointer")
int untrusted_css(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;
	struct cgroup_subsys_state *css;

	if (!cgrp)
		return 0;
	css = bpf_rdonly_cast(cgrp, bpf_core_type_id_kernel(struct cgroup_subsys_state));
	ret = bpf_memcgstat_read(css, items, 4, vals, 8);
	return 0;
}

/* The css of a memcg that may be NULL. */
SEC("iter.s/cgroup")
__failure __msg("null-check it first")
int css_not_null_checked(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;
	struct mem_cgroup *memcg;

	if (!cgrp)
		return 0;
	memcg = bpf_get_mem_cgroup(&cgrp->self);
	ret = bpf_memcgstat_read(&memcg->css, items, 4, vals, 8);
	if (memcg)
		bpf_put_mem_cgroup(memcg);
	return 0;
}

/* The output in read-only memory. */
SEC("iter.s/cgroup")
__failure __msg("write into map forbidden")
int rodata_vals(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;

	if (cgrp)
		ret = bpf_memcgstat_read(&cgrp->self, items, 4,
					 (__u64 *)ro_items, sizeof(ro_items));
	return 0;
}
