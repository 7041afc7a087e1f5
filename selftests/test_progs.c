// SPDX-License-Identifier: GPL-2.0
/*
 * Runs the memcgstat BPF selftests. Prints one line per subtest,
 *   #N test/subtest:OK | :FAIL | :SKIP (reason)
 * and at the end "Summary: N passed, N failed, N skipped". Exit status is 1
 * if any subtest failed.
 *
 *   test_progs [-v] [-t TEST[/SUBTEST]]...
 */
#include <fnmatch.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <bpf/libbpf.h>
#include "test_progs.h"

int env_verbose;

struct test_def {
	const char *name;
	void (*fn)(void);
};

#define DEFINE_TEST(name) extern void test_##name(void);
#include "tests.h"
#undef DEFINE_TEST
#define DEFINE_TEST(name) { #name, test_##name },
static const struct test_def tests[] = {
#include "tests.h"
};
#undef DEFINE_TEST

static const char *cur_test;
static char cur_name[256];
static bool in_subtest, cur_failed, cur_skipped;
static bool test_failed;	/* an ASSERT failed outside any subtest */
static char skip_reason[256];
static int nr_pass, nr_fail, nr_skip, nr_seq;
static char **filters;
static int nr_filters;

const char *test__name(void)
{
	return cur_name;
}

void test__fail(void)
{
	if (in_subtest)
		cur_failed = true;
	else
		test_failed = true;
}

void test__skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(skip_reason, sizeof(skip_reason), fmt, ap);
	va_end(ap);
	cur_skipped = true;
}

static void end_subtest(void)
{
	if (!in_subtest)
		return;
	in_subtest = false;
	nr_seq++;
	if (cur_failed) {
		nr_fail++;
		printf("#%d %s:FAIL\n", nr_seq, cur_name);
	} else if (cur_skipped) {
		nr_skip++;
		printf("#%d %s:SKIP (%s)\n", nr_seq, cur_name, skip_reason);
	} else {
		nr_pass++;
		printf("#%d %s:OK\n", nr_seq, cur_name);
	}
	fflush(stdout);
	snprintf(cur_name, sizeof(cur_name), "%s", cur_test);
}

static bool selected(const char *name)
{
	int i;

	if (!nr_filters)
		return true;
	for (i = 0; i < nr_filters; i++) {
		/* "test" selects all of its subtests, "test/sub*" some */
		if (!fnmatch(filters[i], name, 0))
			return true;
		if (!strchr(filters[i], '/') &&
		    !strncmp(filters[i], name, strlen(filters[i])) &&
		    name[strlen(filters[i])] == '/')
			return true;
	}
	return false;
}

/* Whether any filter selects @test or some of its subtests. */
static bool test_selected(const char *test)
{
	char pat[256], *slash;
	int i;

	if (!nr_filters)
		return true;
	for (i = 0; i < nr_filters; i++) {
		snprintf(pat, sizeof(pat), "%s", filters[i]);
		slash = strchr(pat, '/');
		if (slash)
			*slash = '\0';
		if (!fnmatch(pat, test, 0))
			return true;
	}
	return false;
}

bool test__start_subtest(const char *name)
{
	char full[256];

	end_subtest();
	snprintf(full, sizeof(full), "%s/%s", cur_test, name);
	if (!selected(full))
		return false;
	snprintf(cur_name, sizeof(cur_name), "%s", full);
	in_subtest = true;
	cur_failed = cur_skipped = false;
	return true;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list args)
{
	if (level == LIBBPF_DEBUG && !env_verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

int main(int argc, char **argv)
{
	size_t i;
	int opt;

	while ((opt = getopt(argc, argv, "vt:")) != -1) {
		switch (opt) {
		case 'v':
			env_verbose = 1;
			break;
		case 't':
			filters = realloc(filters, sizeof(*filters) * (nr_filters + 1));
			if (!filters)
				return 1;
			filters[nr_filters++] = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-v] [-t TEST[/SUBTEST]]...\n", argv[0]);
			return 2;
		}
	}
	libbpf_set_print(libbpf_print);
	setvbuf(stdout, NULL, _IOLBF, 0);

	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		cur_test = tests[i].name;
		if (!test_selected(cur_test))
			continue;
		snprintf(cur_name, sizeof(cur_name), "%s", cur_test);
		test_failed = false;
		tests[i].fn();
		end_subtest();
		/* a failure outside the subtests counts as one of its own */
		if (test_failed) {
			nr_fail++;
			printf("#%d %s:FAIL\n", ++nr_seq, cur_test);
		}
	}
	printf("Summary: %d passed, %d failed, %d skipped\n", nr_pass, nr_fail, nr_skip);
	return nr_fail ? 1 : 0;
}
