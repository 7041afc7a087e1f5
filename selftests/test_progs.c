// SPDX-License-Identifier: GPL-2.0
/*
 * Runs the memcgstat BPF selftests. Prints one line per subtest, and per
 * test that has none,
 *   #N test/subtest:OK | :FAIL | :SKIP (reason)
 * and at the end "Summary: N passed, N failed, N skipped". Exit status is 1
 * if any failed, a test outside its subtests too, or a -t selected nothing
 * (a misspelt name runs no test; it does not pass).
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
static bool *filter_used;	/* a filter that selects nothing is an error */
static int nr_filters;
static int nr_started;		/* the current test's subtests run */

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
		if (!fnmatch(filters[i], name, 0) ||
		    (!strchr(filters[i], '/') &&
		     !strncmp(filters[i], name, strlen(filters[i])) &&
		     name[strlen(filters[i])] == '/')) {
			filter_used[i] = true;
			return true;
		}
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

/*
 * Whether a filter names @test itself, not only subtests of it (which then
 * counts as used): a test without subtests passes under it.
 */
static bool test_selected_whole(const char *test)
{
	bool any = !nr_filters;
	int i;

	for (i = 0; i < nr_filters; i++)
		if (!strchr(filters[i], '/') && !fnmatch(filters[i], test, 0))
			any = filter_used[i] = true;
	return any;
}

bool test__start_subtest(const char *name)
{
	char full[256];

	end_subtest();
	snprintf(full, sizeof(full), "%s/%s", cur_test, name);
	if (!selected(full))
		return false;
	snprintf(cur_name, sizeof(cur_name), "%s", full);
	nr_started++;
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
	bool whole;
	size_t i;
	int opt;

	while ((opt = getopt(argc, argv, "lvt:")) != -1) {
		switch (opt) {
		case 'l':	/* the tests there are, one a line (run-tests.sh's boot map) */
			for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
				printf("%s\n", tests[i].name);
			return 0;
		case 'v':
			env_verbose = 1;
			break;
		case 't':
			filters = realloc(filters, sizeof(*filters) * (nr_filters + 1));
			filter_used = realloc(filter_used, sizeof(*filter_used) * (nr_filters + 1));
			if (!filters || !filter_used)
				return 1;
			filter_used[nr_filters] = false;
			filters[nr_filters++] = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-l] [-v] [-t TEST[/SUBTEST]]...\n", argv[0]);
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
		test_failed = cur_skipped = false;
		nr_started = 0;
		whole = test_selected_whole(cur_test);
		tests[i].fn();
		end_subtest();
		/* a failure outside the subtests counts as one of its own */
		if (test_failed) {
			nr_fail++;
			printf("#%d %s:FAIL\n", ++nr_seq, cur_test);
		} else if (!nr_started && cur_skipped) {
			nr_skip++;
			printf("#%d %s:SKIP (%s)\n", ++nr_seq, cur_test, skip_reason);
		} else if (!nr_started && whole) {
			/* a test without subtests is a test too */
			nr_pass++;
			printf("#%d %s:OK\n", ++nr_seq, cur_test);
		}
	}
	for (i = 0; i < (size_t)nr_filters; i++) {
		if (filter_used[i])
			continue;
		nr_fail++;
		printf("#%d -t %s:FAIL (selects no test or subtest here)\n", ++nr_seq, filters[i]);
	}
	printf("Summary: %d passed, %d failed, %d skipped\n", nr_pass, nr_fail, nr_skip);
	return nr_fail ? 1 : 0;
}
