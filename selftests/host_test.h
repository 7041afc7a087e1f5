/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the host suites in C that report a reason with a failure share
 * (test_alloc, test_lib, test_exporter_alloc): their result lines, "#N
 * SUITE/NAME:OK" or ":FAIL" and the reason below it, SUITE being the
 * RESULT_SUITE the including file defines first (main() exits with
 * failed != 0); the cgroup fixtures' helpers. Included after
 * _GNU_SOURCE (program_invocation_short_name).
 */
#ifndef __MEMCGSTAT_HOST_TEST_H
#define __MEMCGSTAT_HOST_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef RESULT_SUITE
#error "define RESULT_SUITE, the suite's name in its result lines, before host_test.h"
#endif

static int nr, failed;

/* Flushed: a test that then crashes or hangs still shows the lines before it. */
static inline void result(const char *name, bool ok, const char *why)
{
	printf("#%d " RESULT_SUITE "/%s:%s\n", ++nr, name, ok ? "OK" : "FAIL");
	if (!ok && why)
		printf("  %s\n", why);
	failed += !ok;
	fflush(stdout);
}

/*
 * The last line, "# SUITE: N results, M failed", for a runner to hold
 * against the result lines it read (vm_backends.sh: a run cut short, or
 * lines lost, fails); main()'s exit status.
 */
static inline int results_done(void)
{
	printf("# " RESULT_SUITE ": %d results, %d failed\n", nr, failed);
	fflush(stdout);
	return failed ? 1 : 0;
}

/* On cgroup v2, the memory controller handed down from the directory @fd. */
static inline void hand_down(int fd)
{
	int c = openat(fd, "cgroup.subtree_control", O_WRONLY | O_CLOEXEC);

	if (c >= 0) {
		if (write(c, "+memory", 7) != 7)
			fprintf(stderr, "%s: cannot enable the memory controller: %s\n",
				program_invocation_short_name, strerror(errno));
		close(c);
	}
}

#endif /* __MEMCGSTAT_HOST_TEST_H */
