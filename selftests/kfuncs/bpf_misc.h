/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stands in, for the build here, for the kernel's
 * tools/testing/selftests/bpf/progs/bpf_misc.h, which the kernel's copy of
 * progs/ includes instead (kernel/patches/0003 does not carry this file).
 * Only the marks that progs/ here use, spelt as that header spells them:
 * BTF decl tags on the program, which RUN_TESTS() (test_progs.c here,
 * test_loader.c there) reads from the object's BTF.
 */
#ifndef __BPF_MISC_H__
#define __BPF_MISC_H__

#define __mcs_stringify(x)	#x
#define __mcs_expand(x)		__mcs_stringify(x)

/* The verifier must refuse the program. */
#define __failure	__attribute__((btf_decl_tag("comment:test_expect_failure")))

/*
 * Its log must hold @msg, after the match of the __msg before it. The
 * counter makes each tag unique, so that two equal messages stay two, and
 * orders them as they are written.
 */
#define __msg(msg)	__attribute__((btf_decl_tag("comment:test_expect_msg=" \
						    __mcs_expand(__COUNTER__) "=" msg)))

#endif /* __BPF_MISC_H__ */
