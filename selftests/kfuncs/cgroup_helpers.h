/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The part of tools/testing/selftests/bpf/cgroup_helpers.h that the kfunc
 * selftests use, with the same names and prototypes, so that prog_tests/
 * here builds unchanged in the kernel's selftests. Cgroup v2 only: the
 * work directory sits under the cgroup2 mount at /sys/fs/cgroup, with the
 * memory controller enabled for its children.
 */
#ifndef __CGROUP_HELPERS_H
#define __CGROUP_HELPERS_H

int setup_cgroup_environment(void);
void cleanup_cgroup_environment(void);
/* Create the cgroup (under the work directory); an O_RDONLY fd or -1. */
int create_and_get_cgroup(const char *relative_path);
/*
 * Enable each of @controllers (names separated by spaces) for the children
 * of the cgroup: 0 or -1.
 */
int enable_controllers(const char *relative_path, const char *controllers);
/* Move the calling process into it: 0 or -1. */
int join_cgroup(const char *relative_path);
int join_root_cgroup(void);
/* An O_RDONLY fd of the root cgroup, or -1. */
int get_root_cgroup(void);
/* Its cgroup id (kernfs inode), or 0. */
unsigned long long get_cgroup_id(const char *relative_path);

#endif /* __CGROUP_HELPERS_H */
