/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kernel types libmemcgstat's programs (memcg_iter.bpf.c and the
 * headers it includes) use, in place of a vmlinux.h dumped from the build
 * host's kernel: an object compiled against that carries the host's
 * layouts in its BTF, so two build hosts made two objects, and two pin IDs
 * (lib/Makefile), of one source. Compiled against this header, the objects
 * depend on the tree alone, and the library builds without a kernel's BTF.
 *
 * Every struct is __attribute__((preserve_access_index)): libbpf relocates
 * each access at load time against the running kernel's BTF, by name, so
 * the layouts here need not match any kernel's, only the names and the
 * kinds of the types and fields (a struct, a pointer, an integer) and the
 * sizes of what is read: a load, bpf_core_read() and an array's element
 * size take their width from the type declared here.
 *
 * Only what the programs use is here. A field, type or enumerator added to
 * the programs must be added here, or they do not build. The selftests'
 * programs (selftests/kfuncs/progs, selftests/library/progs) keep using
 * the generated vmlinux.h, as the kernel's selftests do, and include the
 * same memcg_kfuncs.h and memcg_read.bpf.h after it: neither of those
 * includes this header.
 */
#ifndef __MCS_KERNEL_TYPES_H
#define __MCS_KERNEL_TYPES_H

/* What the libbpf headers (bpf_helpers.h, bpf_core_read.h) and the programs need. */
typedef unsigned char __u8;
typedef signed char __s8;
typedef unsigned short __u16;
typedef short __s16;
typedef unsigned int __u32;
typedef int __s32;
typedef unsigned long long __u64;
typedef long long __s64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;

typedef _Bool bool;
enum {
	false = 0,
	true = 1,
};

/*
 * UAPI (include/uapi/linux/bpf.h): the map types and flags the programs'
 * maps name. Not relocated: these values are the ABI.
 */
enum bpf_map_type {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
};

enum {
	BPF_F_NO_PREALLOC = 1U << 0,
	BPF_F_MMAPABLE = 1U << 10,
};

/*
 * The kfuncs' enum arguments (memcg_kfuncs.h). The programs name no
 * enumerator: the library reads each value it asks for from the running
 * kernel's BTF (lib/vmlinux.c) and passes it in items[].idx. C wants one
 * enumerator; each enum has its first, 0 in every kernel. A program that
 * comes to name another takes it with bpf_core_enum_value(), never as a
 * constant: the value written here is not the kernel's.
 */
enum vm_event_item {
	PGPGIN,
};

enum memcg_memory_event {
	MEMCG_LOW,
};

/* include/linux/types.h: atomic64_t, which atomic_long_t is on 64-bit */
typedef struct {
	long counter;
} atomic_long_t;

struct cgroup;
struct bpf_iter_meta;

/* include/linux/kernfs.h: a cgroup's directory */
struct kernfs_node {
	const char *name;	/* record_name() */
	__u64 id;		/* the cgroup id: cgroup_id_of() */
} __attribute__((preserve_access_index));

/* include/linux/cgroup-defs.h */
struct cgroup_subsys_state {
	struct cgroup *cgroup;
	struct cgroup_subsys_state *parent;
} __attribute__((preserve_access_index));

struct cgroup {
	struct cgroup_subsys_state self;
	int level;
	int nr_descendants;		/* MCS_NR_DESCENDANTS */
	int nr_dying_descendants;	/* MCS_NR_DYING_DESCENDANTS */
	struct kernfs_node *kn;
} __attribute__((preserve_access_index));

/* include/linux/page_counter.h: the MCS_PC_* kinds */
struct page_counter {
	atomic_long_t usage;
	unsigned long failcnt;
	unsigned long watermark;
	unsigned long min;
	unsigned long low;
	unsigned long high;
	unsigned long max;
	struct page_counter *parent;
} __attribute__((preserve_access_index));

/*
 * include/linux/memcontrol.h. swap and memsw share a union in the kernel;
 * CO-RE matches a field by its name through anonymous members, so they
 * need none here.
 */
struct mem_cgroup {
	struct cgroup_subsys_state css;
	struct page_counter memory;
	struct page_counter swap;	/* cgroup v2 */
	struct page_counter memsw;	/* cgroup v1 */
	struct page_counter kmem;	/* cgroup v1, CONFIG_MEMCG_V1 */
	bool oom_group;
	int under_oom;			/* CONFIG_MEMCG_V1 */
	/*
	 * MEMCG_NR_MEMORY_EVENTS long in the kernel: the programs take the
	 * running kernel's length with bpf_core_field_size()
	 */
	atomic_long_t memory_events_local[1];	/* last: a variable index */
} __attribute__((preserve_access_index));

/* include/linux/bpf.h, DEFINE_BPF_ITER_FUNC(cgroup, ...): snapshot's context */
struct bpf_iter__cgroup {
	struct bpf_iter_meta *meta;
	struct cgroup *cgroup;
} __attribute__((preserve_access_index));

#endif /* __MCS_KERNEL_TYPES_H */
