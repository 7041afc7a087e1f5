// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The bpf backend's in-kernel loader: libbpf's gen_loader program, its
 * kfunc lookups answered from the library's own pass over vmlinux BTF, the
 * dead code that leaves folded away, loaded and run.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <bpf/skel_internal.h>
#include "loader.h"

int mcs_loader_prog(const struct gen_loader_opts *gen, int *map_fd)
{
	LIBBPF_OPTS(bpf_prog_load_opts, popts, .prog_flags = BPF_F_SLEEPABLE);
	int fd, key = 0, err;

	*map_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "__loader.map", 4, gen->data_sz, 1, NULL);
	if (*map_fd < 0)
		return -errno;
	if (bpf_map_update_elem(*map_fd, &key, gen->data, 0)) {
		err = -errno;
		close(*map_fd);
		return err;
	}
	popts.fd_array = map_fd;
	fd = bpf_prog_load(BPF_PROG_TYPE_SYSCALL, "__loader.prog", "Dual BSD/GPL",
			   (const struct bpf_insn *)gen->insns,
			   gen->insns_sz / sizeof(struct bpf_insn), &popts);
	if (fd < 0) {
		err = -errno;
		close(*map_fd);
		return err;
	}
	return fd;
}

int mcs_loader_run(const struct gen_loader_opts *gen, void *ctx, size_t size)
{
	LIBBPF_OPTS(bpf_test_run_opts, ropts, .ctx_in = ctx, .ctx_size_in = size);
	int map_fd, prog_fd, err;

	((struct bpf_loader_ctx *)ctx)->sz = size;
	prog_fd = mcs_loader_prog(gen, &map_fd);
	if (prog_fd < 0)
		return prog_fd;
	err = bpf_prog_test_run_opts(prog_fd, &ropts) ? -errno : (int)ropts.retval;
	close(prog_fd);
	close(map_fd);
	return err;
}

size_t mcs_loader_answer(struct bpf_insn *insn, size_t nr, const char *data, size_t data_sz,
			 const char *const *names, const int *ids, size_t nr_names,
			 size_t *sites)
{
	const struct bpf_insn *ld, *len, *kind, *flags;
	size_t i, k, n = 0;
	const char *name;

	for (i = 5; i < nr; i++) {
		if (insn[i].code != (BPF_JMP | BPF_CALL) || insn[i].src_reg ||
		    insn[i].imm != BPF_FUNC_btf_find_by_name_kind)
			continue;
		ld = &insn[i - 5];
		len = &insn[i - 3];
		kind = &insn[i - 2];
		flags = &insn[i - 1];
		if (ld->code != (BPF_LD | BPF_DW | BPF_IMM) || ld->dst_reg != BPF_REG_1 ||
		    ld->src_reg != BPF_PSEUDO_MAP_IDX_VALUE || ld->imm ||
		    len->code != (BPF_ALU64 | BPF_MOV | BPF_K) || len->dst_reg != BPF_REG_2 ||
		    kind->code != (BPF_ALU64 | BPF_MOV | BPF_K) || kind->dst_reg != BPF_REG_3 ||
		    kind->imm != BTF_KIND_FUNC ||
		    flags->code != (BPF_ALU64 | BPF_MOV | BPF_K) || flags->dst_reg != BPF_REG_4 ||
		    flags->imm)
			continue;
		/* the name: a NUL-terminated string of r2 bytes at the ld's offset */
		if (insn[i - 4].imm < 0 || len->imm <= 0 ||
		    (size_t)insn[i - 4].imm + len->imm > data_sz ||
		    data[insn[i - 4].imm + len->imm - 1])
			continue;
		name = data + insn[i - 4].imm;
		for (k = 0; k < nr_names; k++) {
			if (ids[k] > 0 && !strcmp(name, names[k])) {
				insn[i] = (struct bpf_insn){
					.code = BPF_ALU64 | BPF_MOV | BPF_K,
					.dst_reg = BPF_REG_0,
					.imm = ids[k],
				};
				sites[n++] = i;
				break;
			}
		}
	}
	return n;
}

/*
 * mcs_fold_known(): the dead code of the loader once its lookups are
 * answered, dropped before the kernel sees it. The in-kernel loader's kfunc lookups become r0 = the type id
 * (mcs_loader_answer() above); the gen_loader's checks of the
 * helper's result after each (an error, a module BTF's fd in the upper
 * half) then test a constant. 6.12's verifier finds the branches they skip
 * dead and removes each run of dead instructions and each branch it hard-
 * wires with a call of its own, every one moving the rest of the program
 * and its per-instruction data and walking every jump: five removals a
 * lookup, 65 for 13 lookups in a 1,200-instruction loader, which cost more
 * than the rest of its verification (bench/insn profile of make bench's
 * 7.open.stats: memmove 3.4 M and bpf_adj_branches 1.4 M guest instructions
 * of 27 M; kprobes on bpf_remove_insns counted the calls). Here the same
 * code goes in one pass.
 *
 * What is folded: from each such r0 = constant, the straight run of
 * instructions that only it leads to (each with one way in), following
 * moves and shifts of known registers, stores, and branches on a known
 * register against an immediate, which are decided: taken ones become
 * jumps, the others no-ops. Then the instructions no path reaches and the
 * no-ops go, every jump and call offset moved with them: the program the
 * verifier would have made of it (selftests: the host kernel's translation
 * of both is the same). Anything it does not know, it leaves.
 */
static bool is_ld_imm64(const struct bpf_insn *in)
{
	return in->code == (BPF_LD | BPF_DW | BPF_IMM);
}

static bool is_jmp(const struct bpf_insn *in)
{
	return BPF_CLASS(in->code) == BPF_JMP || BPF_CLASS(in->code) == BPF_JMP32;
}

/* ja +0, what the verifier drops as a no-op */
static bool is_nop(const struct bpf_insn *in)
{
	return in->code == (BPF_JMP | BPF_JA) && !in->dst_reg && !in->src_reg && !in->off &&
	       !in->imm;
}

/* A call of another function of the program: its offset in imm. */
static bool is_pseudo_call(const struct bpf_insn *in)
{
	return in->code == (BPF_JMP | BPF_CALL) && in->src_reg == BPF_PSEUDO_CALL;
}

/* Where the jump (or pseudo call) at @i goes. */
static long target_of(const struct bpf_insn *insn, size_t i)
{
	return (long)i + 1 + (is_pseudo_call(&insn[i]) ? insn[i].imm : insn[i].off);
}

/* A jump with an offset in off: not a call, exit or JMP32's long ja. */
static bool has_off(const struct bpf_insn *in)
{
	uint8_t op = BPF_OP(in->code);

	return is_jmp(in) && op != BPF_CALL && op != BPF_EXIT;
}

/* Where control can go after @i: its next and its target, -1 for none. */
static void succ(const struct bpf_insn *insn, size_t i, long *next, long *jump)
{
	const struct bpf_insn *in = &insn[i];
	uint8_t op = BPF_OP(in->code);

	*next = (long)i + (is_ld_imm64(in) ? 2 : 1);
	*jump = -1;
	if (!is_jmp(in))
		return;
	if (op == BPF_EXIT)
		*next = -1;
	else if (op == BPF_CALL)
		*jump = is_pseudo_call(in) ? target_of(insn, i) : -1;
	else if (op == BPF_JA)
		*next = -1, *jump = target_of(insn, i);
	else
		*jump = target_of(insn, i);
}

/* The outcome of conditional jump @op on @v against @k, or -1. */
static int decide(uint8_t op, uint64_t v, int32_t imm)
{
	uint64_t k = (uint64_t)(int64_t)imm;

	switch (op) {
	case BPF_JEQ:	return v == k;
	case BPF_JNE:	return v != k;
	case BPF_JGT:	return v > k;
	case BPF_JGE:	return v >= k;
	case BPF_JLT:	return v < k;
	case BPF_JLE:	return v <= k;
	case BPF_JSET:	return !!(v & k);
	case BPF_JSGT:	return (int64_t)v > (int64_t)k;
	case BPF_JSGE:	return (int64_t)v >= (int64_t)k;
	case BPF_JSLT:	return (int64_t)v < (int64_t)k;
	case BPF_JSLE:	return (int64_t)v <= (int64_t)k;
	}
	return -1;
}

/* A branch fold_run() decided, and what it was. */
struct decided {
	size_t at;
	struct bpf_insn was;
	bool taken;
};

/*
 * Follow the run from @start (r0 known: the instruction before it set it)
 * while each instruction has one way in, the one just followed; decided
 * branches rewritten in place and recorded in @d (room for @nr).
 */
static void fold_run(struct bpf_insn *insn, size_t nr, const uint8_t *preds, size_t start,
		     struct decided *d, size_t *nr_d)
{
	bool known[MAX_BPF_REG] = { [BPF_REG_0] = true };
	uint64_t val[MAX_BPF_REG] = { [BPF_REG_0] = (uint64_t)(int64_t)insn[start - 1].imm };
	size_t i = start;

	while (i < nr && preds[i] == 1) {
		struct bpf_insn *in = &insn[i];
		uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code), r = in->dst_reg;
		int t;

		if (r >= MAX_BPF_REG || in->src_reg >= MAX_BPF_REG)
			return;
		if (cls == BPF_ALU64 && BPF_SRC(in->code) == BPF_K &&
		    (op == BPF_MOV || known[r]) && !in->off) {
			uint64_t k = (uint64_t)(int64_t)in->imm;

			known[r] = true;
			switch (op) {
			case BPF_MOV: val[r] = k; break;
			case BPF_ADD: val[r] += k; break;
			case BPF_AND: val[r] &= k; break;
			case BPF_RSH: if (k > 63) return; val[r] >>= k; break;
			case BPF_LSH: if (k > 63) return; val[r] <<= k; break;
			default: known[r] = false;
			}
		} else if (in->code == (BPF_ALU64 | BPF_MOV | BPF_X) && !in->off) {
			known[r] = known[in->src_reg];
			val[r] = val[in->src_reg];
		} else if (cls == BPF_ALU || cls == BPF_ALU64 || cls == BPF_LDX) {
			known[r] = false;
		} else if (is_ld_imm64(in)) {
			known[r] = false;
			i += 2;
			continue;
		} else if (cls == BPF_ST || (cls == BPF_STX && BPF_MODE(in->code) == BPF_MEM)) {
			/* memory only */
		} else if (in->code == (BPF_JMP | BPF_JA)) {
			i = target_of(insn, i);
			continue;
		} else if (cls == BPF_JMP && BPF_SRC(in->code) == BPF_K && op != BPF_CALL &&
			   op != BPF_EXIT && known[r] && (t = decide(op, val[r], in->imm)) >= 0) {
			long to = target_of(insn, i);

			if (to < 0 || (size_t)to >= nr)
				return;
			d[*nr_d] = (struct decided){ .at = i, .was = *in, .taken = t };
			(*nr_d)++;
			/* a taken branch jumps; one never taken is a no-op */
			*in = (struct bpf_insn){ .code = BPF_JMP | BPF_JA, .off = t ? in->off : 0 };
			i = t ? (size_t)to : i + 1;
			continue;
		} else {
			return;	/* a call, an exit, a branch not known, ... */
		}
		i++;
	}
}

/* What any path from the first instruction reaches, into @live. */
static void reach(const struct bpf_insn *insn, size_t nr, uint8_t *live, size_t *stack)
{
	size_t sp = 0, i;
	long next, jump;

	memset(live, 0, nr);
	stack[sp++] = 0;
	live[0] = 1;
	while (sp) {
		i = stack[--sp];
		succ(insn, i, &next, &jump);
		if (next >= 0 && (size_t)next < nr && !live[next])
			live[next] = 1, stack[sp++] = next;
		if (jump >= 0 && (size_t)jump < nr && !live[jump])
			live[jump] = 1, stack[sp++] = jump;
	}
}

/*
 * The instructions @live marks (the second half of an ld_imm64 goes with
 * the first) without the no-ops, moved down in place, every jump and call
 * offset moved with them; @at has room for @nr + 1. Returns how many are
 * left, or 0 if an offset would not fit.
 */
static size_t compact(struct bpf_insn *insn, size_t nr, uint8_t *live, size_t *at)
{
	size_t i, out;

	for (i = 0, out = 0; i < nr; i++) {
		at[i] = out;
		if (live[i] && is_ld_imm64(&insn[i]) && i + 1 < nr) {
			live[++i] = 1;
			at[i] = ++out;
			out++;
		} else if (live[i] && !is_nop(&insn[i])) {
			out++;
		} else {
			live[i] = 0;
		}
	}
	at[nr] = out;
	for (i = 0; i < nr; i++) {
		struct bpf_insn in = insn[i];
		long d;

		if (!live[i])
			continue;
		if (has_off(&in) || is_pseudo_call(&in)) {
			d = (long)at[target_of(insn, i)] - (long)at[i] - 1;
			if (is_pseudo_call(&in))
				in.imm = d;
			else if (d < INT16_MIN || d > INT16_MAX)
				return 0;
			else
				in.off = d;
		}
		insn[at[i]] = in;
	}
	return out;
}

size_t mcs_fold_known(struct bpf_insn *insn, size_t nr, const size_t *sets_r0, size_t nr_sets)
{
	uint8_t *preds = calloc(nr + 1, 1), *live = calloc(nr + 1, 1);
	size_t *stack = malloc((nr + 1) * sizeof(*stack)), *at = malloc((nr + 1) * sizeof(*at));
	struct decided *d = malloc((nr + 1) * sizeof(*d));
	struct bpf_insn *copy = malloc((nr + 1) * sizeof(*copy));
	size_t i, k, nr_d = 0, n = nr, was;
	long next, jump;

	if (!preds || !live || !stack || !at || !d || !copy || !nr)
		goto keep;
	memcpy(copy, insn, nr * sizeof(*insn));
	/* the ways into each instruction (two: more than one) */
	for (i = 0; i < nr; i += is_ld_imm64(&insn[i]) ? 2 : 1) {
		if ((BPF_CLASS(insn[i].code) == BPF_JMP32 && BPF_OP(insn[i].code) == BPF_JA) ||
		    (is_ld_imm64(&insn[i]) && i + 1 >= nr))
			goto keep;	/* gotol, a cut ld_imm64: not here */
		succ(insn, i, &next, &jump);
		if (jump >= 0 && (size_t)jump >= nr)
			goto keep;
		if (next >= 0 && (size_t)next <= nr && preds[next] < 2)
			preds[next]++;
		if (jump >= 0 && preds[jump] < 2)
			preds[jump]++;
	}
	for (k = 0; k < nr_sets; k++)
		if (sets_r0[k] + 1 < nr &&
		    insn[sets_r0[k]].code == (BPF_ALU64 | BPF_MOV | BPF_K) &&
		    insn[sets_r0[k]].dst_reg == BPF_REG_0)
			fold_run(insn, nr, preds, sets_r0[k] + 1, d, &nr_d);
	/*
	 * As the verifier does it: a branch stays where the way it does not
	 * take is still reached from elsewhere (its check is then the
	 * verifier's, which prunes it alike); else the way not taken is dead.
	 */
	reach(insn, nr, live, stack);
	for (k = 0; k < nr_d; k++)
		if (live[d[k].taken ? d[k].at + 1 : d[k].at + 1 + d[k].was.off])
			insn[d[k].at] = d[k].was;
	/* then the dead code goes, and the no-ops, the new ones too */
	do {
		was = n;
		n = compact(insn, n, live, at);
		if (!n)
			goto keep;
		reach(insn, n, live, stack);
	} while (n < was);
	free(copy);
	copy = NULL;
	nr = n;
keep:
	if (copy)
		memcpy(insn, copy, nr * sizeof(*insn));
	free(preds);
	free(live);
	free(stack);
	free(at);
	free(d);
	free(copy);
	return nr;
}
