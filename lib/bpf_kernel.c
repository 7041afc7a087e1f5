// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The bpf backend's view of the kernel: which of the memcg kfuncs and
 * enumerators vmlinux BTF has (one pass over it, vmlinux.c), and whether
 * this process may load programs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include "bpf_backend.h"
#include "cgroup_files.h"
#include "hierarchy.h"
#include "testing.h"

const char *const mcs_bpf_func_names[NR_FUNCS] = {
	"bpf_get_mem_cgroup", "bpf_put_mem_cgroup", "bpf_mem_cgroup_flush_stats",
	"bpf_mem_cgroup_page_state", "bpf_mem_cgroup_vm_events",
	"bpf_mem_cgroup_memory_events", "bpf_mem_cgroup_usage",
	"bpf_memcgstat_page_state_local", "bpf_memcgstat_vm_events_local",
	"bpf_memcgstat_node_page_state", "bpf_memcgstat_read",
	"bpf_cgroup_from_id", "bpf_cgroup_ancestor",
	"bpf_cgroup_release", "bpf_rdonly_cast", "bpf_iter_cgroup",
};

static bool has_cap(int cap)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = {};

	if (syscall(SYS_capget, &hdr, data))
		return false;
	return data[cap / 32].effective & (1U << (cap % 32));
}

/* What the kernel must have; fills b->vmlinux, b->upstream_only, b->has_ids, b->has_read. */
int mcs_bpf_probe_kernel(struct memcgstat *h, struct mcs_bpf *b)
{
	struct mcs_btf_name f[NR_FUNCS] = {};
	bool local, node;
	size_t i;
	int err;

	if (!b->vmlinux) {
		err = mcs_vmlinux_load(mcs_bpf_func_names, NR_FUNCS, &b->vmlinux);
		if (err == -ENOENT)
			return mcs_set_err(h, -EOPNOTSUPP,
					   "kernel has no BTF (/sys/kernel/btf/vmlinux): the bpf backend needs CONFIG_DEBUG_INFO_BTF");
		if (err)
			return mcs_set_err(h, err == -ENOMEM ? err : -EOPNOTSUPP,
					   "cannot read /sys/kernel/btf/vmlinux: %s",
					   err == -EPROTO ? "not BTF as this library reads it" : strerror(-err));
	}
	for (i = 0; i < NR_FUNCS; i++) {
		f[i].name = mcs_bpf_func_names[i];
		f[i].func = true;
	}
	mcs_vmlinux_lookup(b->vmlinux, f, NR_FUNCS);
	for (i = 0; i < NR_FUNCS; i++)
		b->func_ids[i] = f[i].found ? f[i].val : 0;
	for (i = 0; i < NR_NEEDED; i++)
		if (!f[i].found)
			return mcs_set_err(h, -EOPNOTSUPP,
					   "kernel lacks kfunc %s (memcg stat kfuncs: Linux 7.0, or 6.12 with memcgstat's kernel/patches)",
					   mcs_bpf_func_names[i]);
	local = f[F_LOCAL_STATE].found && f[F_LOCAL_EVENTS].found;
	node = f[F_NODE_STATE].found;
	b->upstream_only = !local || !node;
	b->has_ids = f[F_CGROUP_FROM_ID].found && f[F_CGROUP_ANCESTOR].found;
	/* and only where it takes the items as the library encodes them */
	b->has_read = !b->upstream_only && f[F_READ].found &&
		      mcs_vmlinux_kf_layout_ok(b->vmlinux);
	/* what this kernel has, said: Linux 7.0's set is a kernel of its own */
	if ((h->flags & MEMCGSTAT_LOCAL) && !local)
		return mcs_set_err(h, -EOPNOTSUPP,
				   "local values need memcgstat's kernel additions (kfunc %s, kernel/patches): this kernel %s",
				   mcs_bpf_func_names[f[F_LOCAL_STATE].found ? F_LOCAL_EVENTS : F_LOCAL_STATE],
				   node ? "lacks it" : "has Linux 7.0's memcg kfuncs only");
	if ((h->flags & MEMCGSTAT_NUMA) && !node)
		return mcs_set_err(h, -EOPNOTSUPP,
				   "per-node values need memcgstat's kernel additions (kfunc bpf_memcgstat_node_page_state, kernel/patches): this kernel %s",
				   local ? "lacks it" : "has Linux 7.0's memcg kfuncs only");
	return 0;
}

static bool may_load(void)
{
	return has_cap(CAP_SYS_ADMIN) || (has_cap(CAP_BPF) && has_cap(CAP_PERFMON));
}

int mcs_bpf_permitted(struct memcgstat *h)
{
	if (may_load())
		return 0;
	return mcs_set_err(h, -EPERM,
			   "not permitted to load BPF: needs CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN");
}

int mcs_bpf_check(struct memcgstat *h, char *why, size_t size)
{
	struct mcs_bpf *b = calloc(1, sizeof(*b));
	char saved[sizeof(h->err)], *saved_long;
	int err;

	if (!b) {
		snprintf(why, size, "out of memory");
		return -ENOMEM;
	}
	memcpy(saved, h->err, sizeof(saved));
	saved_long = h->err_long;
	h->err_long = NULL;
	h->err[0] = '\0';
	err = mcs_bpf_probe_kernel(h, b);
	if (!err)
		err = mcs_bpf_permitted(h);
	snprintf(why, size, "%s", err ? h->err : "");
	memcpy(h->err, saved, sizeof(saved));
	free(h->err_long);
	h->err_long = saved_long;
	mcs_vmlinux_free(b->vmlinux);
	free(b);
	return err;
}

int mcs_bpf_may_load(struct memcgstat *h)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		return mcs_set_err(h, errno == ENOENT ? -EOPNOTSUPP : -errno,
				   errno == ENOENT ? "kernel has no BTF (/sys/kernel/btf/vmlinux): the bpf backend needs CONFIG_DEBUG_INFO_BTF" :
				   "cannot read /sys/kernel/btf/vmlinux: %s", strerror(errno));
	return mcs_bpf_permitted(h);
}

/*
 * Whether the kernel has every enumerator @def is read with: from the
 * probe's pass over vmlinux BTF, or (pins) a pass made for the first such
 * question and kept until the handle closes.
 */
int mcs_bpf_has_stat(struct memcgstat *h, const struct mcs_stat_def *def)
{
	struct mcs_btf_name parts[MCS_MAX_PARTS] = {};
	struct mcs_bpf *b = bpf_of(h);
	int p, n = 0, err;

	/* a field: where this hierarchy's files have it (swap accounting, v1 or v2) */
	if (mcs_def_is_field(def))
		return mcs_files_have(h, def);
	for (p = 0; p < MCS_MAX_PARTS && def->parts[p]; p++)
		parts[n++].name = def->parts[p];
	if (!n)
		return 1;	/* usage: the page counter */
	if (!b->vmlinux) {
		err = mcs_vmlinux_load(mcs_bpf_func_names, NR_FUNCS, &b->vmlinux);
		if (err)
			return mcs_set_err(h, err == -ENOMEM ? err : -EOPNOTSUPP,
					   "cannot read /sys/kernel/btf/vmlinux: %s", strerror(-err));
	}
	mcs_vmlinux_lookup(b->vmlinux, parts, n);
	for (p = 0; p < n; p++)
		if (!parts[p].found)
			return 0;
	return 1;
}

const char *const *memcgstat__testing_func_names(size_t *nr)
{
	*nr = NR_FUNCS;
	return mcs_bpf_func_names;
}
