/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The bpf backend's in-kernel loader (loader.c): libbpf's gen_loader
 * program with its kfunc lookups answered and the dead code that leaves
 * dropped, then loaded and run.
 */
#ifndef __MCS_LOADER_H
#define __MCS_LOADER_H

#include <stddef.h>
#include <linux/bpf.h>
#include <bpf/libbpf.h>

/*
 * Each bpf_btf_find_by_name_kind() call of the loader in @insn (@nr
 * instructions; @data, @data_sz its data) for a BTF_KIND_FUNC of vmlinux
 * named in @names, of type id @ids[k] > 0 there, becomes r0 = the id: what
 * the helper returns for vmlinux (the upper half, a module BTF's fd, 0).
 * 6.12 searches vmlinux BTF linearly for each, some 1.1 M guest
 * instructions a call. Calls of another shape or name stay the kernel's.
 * Returns how many it answered, their indices in @sites (room for @nr / 6).
 */
size_t mcs_loader_answer(struct bpf_insn *insn, size_t nr, const char *data, size_t data_sz,
			 const char *const *names, const int *ids, size_t nr_names,
			 size_t *sites);
/*
 * Fold the branches that the constants set into r0 at @sets_r0[0 ..
 * @nr_sets - 1] (each a mov r0, imm) decide, then drop what no path
 * reaches and the no-ops, in place. Returns the new instruction count:
 * @nr if nothing changed or the program has what this does not handle
 * (then it is left as it was), or cannot be allocated for.
 */
size_t mcs_fold_known(struct bpf_insn *insn, size_t nr, const size_t *sets_r0, size_t nr_sets);
/*
 * The loader program of @gen loaded, its data in a map of its own (*map_fd,
 * for the caller to close with the program): the program's fd, or -errno.
 */
int mcs_loader_prog(const struct gen_loader_opts *gen, int *map_fd);
/*
 * Load and run it with @ctx (a struct bpf_loader_ctx and the descriptors
 * of the maps and programs after it, @size bytes in all): it loads the
 * object's BTF, makes the maps, looks up what is left of the kfuncs and
 * loads the programs, in the kernel, which does the CO-RE relocations too;
 * the fds come back in @ctx. What bpf_load_and_run() (skel_internal.h)
 * does, with libbpf's wrappers. 0 or -errno (the loader's own too).
 */
int mcs_loader_run(const struct gen_loader_opts *gen, void *ctx, size_t size);

#endif /* __MCS_LOADER_H */
