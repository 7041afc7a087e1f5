/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgroup_iter links: attach on a cgroup by path, read to the end. Plain
 * libbpf, no skeleton and no test_progs.h: the selftests (memcg_util.c)
 * and mcsbench both compile cg_iter.c in.
 */
#ifndef __CG_ITER_H
#define __CG_ITER_H

struct bpf_program;
struct bpf_link;

/*
 * A cgroup_iter link of @prog on the cgroup at @path, walked in @order
 * (enum bpf_cgroup_iter_order), or NULL with errno set.
 */
struct bpf_link *cg_iter_attach(struct bpf_program *prog, const char *path, int order);
/* The same on a program fd (a program libbpf did not load): a link fd, or -errno. */
int cg_iter_attach_fd(int prog_fd, const char *path, int order);
/* Create an iterator from the link and read it to the end: 0 or -errno. */
int cg_iter_read(struct bpf_link *link);
int cg_iter_read_fd(int link_fd);
/* Attach, read to the end, detach: 0 or -errno. */
int cg_iter_run(struct bpf_program *prog, const char *path, int order);
int cg_iter_run_fd(int prog_fd, const char *path, int order);

#endif /* __CG_ITER_H */
