/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small test_progs: tests are functions test_NAME() in prog_tests/NAME.c,
 * each runs subtests with test__start_subtest(); ASSERT_* macros print the
 * actual and the expected value and mark the running subtest failed.
 */
#ifndef __TEST_PROGS_H
#define __TEST_PROGS_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <linux/types.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(x) (sizeof(x) / sizeof((x)[0]))	/* as bpf_util.h */
#endif

extern int env_verbose;

bool test__start_subtest(const char *name);
void test__fail(void);
void test__skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *test__name(void);

/*
 * RUN_TESTS(skel): the programs of skeleton @skel (its ELF, skel__elf_bytes)
 * that bpf_misc.h marks __failure, each loaded alone with a verifier log:
 * the load must fail and the log hold every __msg, in their order. One
 * subtest per program, named after it. Programs without such a mark are
 * left alone: a test of its own loads and runs those.
 */
typedef const void *(*test__elf_bytes_fn)(size_t *sz);
void test__run_tests(const char *skel_name, test__elf_bytes_fn elf_bytes);
#define RUN_TESTS(skel) test__run_tests(#skel, skel##__elf_bytes)

#define PRINT_FAIL(fmt, ...) ({						\
	test__fail();							\
	fprintf(stdout, "%s:FAIL:%d " fmt, test__name(), __LINE__,	\
		##__VA_ARGS__);						\
})

#define ASSERT_TRUE(cond, name) ({					\
	bool ___ok = (cond);						\
	if (!___ok)							\
		PRINT_FAIL("%s: unexpected false\n", (name));		\
	___ok;								\
})

#define ASSERT_FALSE(cond, name) ASSERT_TRUE(!(cond), name)

/*
 * @a @op @b, both of @type, else "NAME: actual A @fails B": the
 * comparisons below (the kernel's test_progs.h writes each out).
 */
#define ___ASSERT_CMP(type, fmt, a, op, fails, b, name) ({		\
	type ___a = (a);						\
	type ___b = (b);						\
	bool ___ok = ___a op ___b;					\
	if (!___ok)							\
		PRINT_FAIL("%s: actual " fmt " " fails " " fmt "\n",	\
			   (name), ___a, ___b);				\
	___ok;								\
})

#define ASSERT_EQ(actual, expected, name)				\
	___ASSERT_CMP(long long, "%lld", (long long)(actual), ==,	\
		      "!= expected", (long long)(expected), name)
#define ASSERT_NEQ(actual, expected, name)				\
	___ASSERT_CMP(long long, "%lld", (long long)(actual), !=,	\
		      "== expected", (long long)(expected), name)
#define ASSERT_U64_EQ(actual, expected, name)				\
	___ASSERT_CMP(unsigned long long, "%llu", actual, ==,		\
		      "!= expected", expected, name)
#define ASSERT_GT(actual, bound, name)					\
	___ASSERT_CMP(long long, "%lld", (long long)(actual), >,	\
		      "<= bound", (long long)(bound), name)
#define ASSERT_GE(actual, bound, name)					\
	___ASSERT_CMP(long long, "%lld", (long long)(actual), >=,	\
		      "< bound", (long long)(bound), name)

#define ASSERT_OK(res, name) ({						\
	long long ___r = (long long)(res);				\
	bool ___ok = ___r == 0;						\
	if (!___ok)							\
		PRINT_FAIL("%s: unexpected error %lld (errno %d: %s)\n",\
			   (name), ___r, errno, strerror(errno));	\
	___ok;								\
})

#define ASSERT_ERR(res, name) ({					\
	long long ___r = (long long)(res);				\
	bool ___ok = ___r < 0;						\
	if (!___ok)							\
		PRINT_FAIL("%s: unexpected success %lld\n", (name), ___r);\
	___ok;								\
})

#define ASSERT_OK_PTR(ptr, name) ({					\
	const void *___p = (ptr);					\
	bool ___ok = ___p != NULL;					\
	if (!___ok)							\
		PRINT_FAIL("%s: unexpected NULL (errno %d: %s)\n",	\
			   (name), errno, strerror(errno));		\
	___ok;								\
})

#define ASSERT_HAS_SUBSTR(str, substr, name) ({				\
	const char *___s = (str), *___sub = (substr);			\
	bool ___ok = ___s && strstr(___s, ___sub);			\
	if (!___ok)							\
		PRINT_FAIL("%s: '%s' not found in:\n%s\n", (name),	\
			   ___sub, ___s ? ___s : "(null)");		\
	___ok;								\
})

#endif /* __TEST_PROGS_H */
