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
#include <bpf/btf.h>
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
static const struct test_def all_tests[] = {
#include "tests.h"
};
#undef DEFINE_TEST

/*
 * The harness's own test, the only one with MEMCGSTAT_HARNESS_SELFTEST
 * set (boot_map.sh checks its lines): a skip before the first subtest, a
 * subtest that passes, one that skips. Expected: "#1 harness/runs:OK",
 * "#2 harness/skips:SKIP (a subtest's skip)", "#3 harness:SKIP (a skip
 * outside the subtests)", "Summary: 1 passed, 0 failed, 2 skipped".
 */
static void test_harness(void)
{
	test__skip("a skip outside the subtests");
	if (test__start_subtest("runs"))
		ASSERT_EQ(1, 1, "one");
	if (test__start_subtest("skips"))
		test__skip("a subtest's skip");
}

static const struct test_def harness_tests[] = { { "harness", test_harness } };

static const struct test_def *tests = all_tests;
static size_t nr_tests = sizeof(all_tests) / sizeof(all_tests[0]);
static const char *cur_test;
static char cur_name[256];
static bool in_subtest, cur_failed, cur_skipped;
static bool test_failed;	/* an ASSERT failed outside any subtest */
static bool test_skipped;	/* test__skip() outside any subtest */
static char test_skip_reason[256];
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
	if (in_subtest) {
		vsnprintf(skip_reason, sizeof(skip_reason), fmt, ap);
		cur_skipped = true;
	} else {
		/* the test's own: its subtests, before or after, keep theirs */
		vsnprintf(test_skip_reason, sizeof(test_skip_reason), fmt, ap);
		test_skipped = true;
	}
	va_end(ap);
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

/*
 * RUN_TESTS(). The marks are BTF decl tags on a program's FUNC, spelt as the
 * kernel's bpf_misc.h spells them (kfuncs/bpf_misc.h here): __failure is
 * "comment:test_expect_failure", __msg(text) "comment:test_expect_msg=N=text"
 * with N from __COUNTER__, which keeps two equal messages apart and gives
 * their order in the source (the compiler may emit the tags in any order).
 */
#define TAG_PFX		"comment:test_"
#define TAG_FAILURE	TAG_PFX "expect_failure"
#define TAG_MSG		TAG_PFX "expect_msg="
#define MAX_MSGS	16

struct expect_msg {
	long order;
	const char *text;
};

struct expect {
	bool failure;
	int nr_msgs;
	struct expect_msg msgs[MAX_MSGS];
	const char *bad_tag;	/* a test mark this harness does not know */
};

static int msg_cmp(const void *a, const void *b)
{
	const struct expect_msg *x = a, *y = b;

	return (x->order > y->order) - (x->order < y->order);
}

/* The marks of program @name in @btf; false if it has none. */
static bool read_marks(const struct btf *btf, const char *name, struct expect *e)
{
	const struct btf_type *t;
	bool any = false;
	__u32 i, n;
	int func;

	memset(e, 0, sizeof(*e));
	func = btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);
	if (func < 0)
		return false;
	n = btf__type_cnt(btf);
	for (i = 1; i < n; i++) {
		const char *tag, *text;
		char *end;

		t = btf__type_by_id(btf, i);
		if (!btf_is_decl_tag(t) || t->type != (__u32)func ||
		    btf_decl_tag(t)->component_idx != -1)
			continue;
		tag = btf__name_by_offset(btf, t->name_off);
		if (!tag || strncmp(tag, TAG_PFX, strlen(TAG_PFX)))
			continue;	/* some other decl tag: not a test mark */
		any = true;
		if (!strcmp(tag, TAG_FAILURE)) {
			e->failure = true;
		} else if (!strncmp(tag, TAG_MSG, strlen(TAG_MSG))) {
			text = tag + strlen(TAG_MSG);
			if (e->nr_msgs == MAX_MSGS) {
				e->bad_tag = "more __msg than the harness takes";
				continue;
			}
			e->msgs[e->nr_msgs].order = strtol(text, &end, 10);
			if (end == text || *end != '=') {
				e->bad_tag = tag;
				continue;
			}
			e->msgs[e->nr_msgs++].text = end + 1;
		} else {
			e->bad_tag = tag;
		}
	}
	qsort(e->msgs, e->nr_msgs, sizeof(e->msgs[0]), msg_cmp);
	return any;
}

/* Load @name alone from a fresh open of the ELF: it must fail as @e says. */
static void run_failure(const void *elf, size_t sz, const char *skel_name,
			const char *name, const struct expect *e)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = skel_name);
	static char log[1 << 20];
	struct bpf_program *prog, *target = NULL;
	const char *from;
	struct bpf_object *obj;
	int i, err;

	if (e->bad_tag) {
		PRINT_FAIL("%s: %s: a mark RUN_TESTS() here does not take\n", name, e->bad_tag);
		return;
	}
	if (!e->failure) {
		PRINT_FAIL("%s: __msg without __failure: RUN_TESTS() here runs refusals only\n",
			   name);
		return;
	}
	obj = bpf_object__open_mem(elf, sz, &opts);
	if (!ASSERT_OK_PTR(obj, "bpf_object__open_mem"))
		return;
	bpf_object__for_each_program(prog, obj) {
		bool it = !strcmp(bpf_program__name(prog), name);

		bpf_program__set_autoload(prog, it);
		if (it)
			target = prog;
	}
	if (!ASSERT_OK_PTR(target, name))
		goto out;
	log[0] = '\0';
	bpf_program__set_log_buf(target, log, sizeof(log));
	bpf_program__set_log_level(target, 1);
	err = bpf_object__load(obj);
	if (!err) {
		PRINT_FAIL("%s: loaded; the verifier must refuse it\n", name);
		goto out;
	}
	for (i = 0, from = log; i < e->nr_msgs; i++) {
		const char *at = strstr(from, e->msgs[i].text);

		if (!at) {
			PRINT_FAIL("%s: '%s' not in the verifier log%s:\n%s\n", name,
				   e->msgs[i].text, i ? " after the messages before it" : "", log);
			goto out;
		}
		from = at + strlen(e->msgs[i].text);
	}
	if (env_verbose)
		printf("%s: refused (%d), the log:\n%s\n", name, err, log);
out:
	bpf_object__close(obj);
}

void test__run_tests(const char *skel_name, test__elf_bytes_fn elf_bytes)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = skel_name);
	struct bpf_program *prog;
	struct bpf_object *obj;
	const struct btf *btf;
	struct expect e;
	const void *elf;
	size_t sz = 0;
	int marked = 0;

	end_subtest();	/* a failure here is no earlier subtest's */
	elf = elf_bytes(&sz);
	obj = bpf_object__open_mem(elf, sz, &opts);
	if (!ASSERT_OK_PTR(obj, skel_name))
		return;
	btf = bpf_object__btf(obj);
	if (!ASSERT_OK_PTR(btf, "the object's BTF"))
		goto out;
	bpf_object__for_each_program(prog, obj) {
		const char *name = bpf_program__name(prog);

		if (!read_marks(btf, name, &e))
			continue;
		marked++;
		if (test__start_subtest(name))
			run_failure(elf, sz, skel_name, name, &e);
	}
	end_subtest();
	/* marks lost on the way (a compiler without btf_decl_tag) test nothing */
	if (!marked)
		PRINT_FAIL("%s: no program carries a test mark\n", skel_name);
out:
	bpf_object__close(obj);
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

	if (getenv("MEMCGSTAT_HARNESS_SELFTEST")) {
		tests = harness_tests;
		nr_tests = 1;
	}
	while ((opt = getopt(argc, argv, "lvt:")) != -1) {
		switch (opt) {
		case 'l':	/* the tests there are, one a line (run-tests.sh's boot map) */
			for (i = 0; i < nr_tests; i++)
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

	for (i = 0; i < nr_tests; i++) {
		cur_test = tests[i].name;
		if (!test_selected(cur_test))
			continue;
		snprintf(cur_name, sizeof(cur_name), "%s", cur_test);
		test_failed = test_skipped = cur_skipped = false;
		nr_started = 0;
		whole = test_selected_whole(cur_test);
		tests[i].fn();
		end_subtest();
		/* a failure or a skip outside the subtests counts as one of its own */
		if (test_failed) {
			nr_fail++;
			printf("#%d %s:FAIL\n", ++nr_seq, cur_test);
		} else if (test_skipped) {
			nr_skip++;
			printf("#%d %s:SKIP (%s)\n", ++nr_seq, cur_test, test_skip_reason);
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
