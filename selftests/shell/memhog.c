// SPDX-License-Identifier: GPL-2.0
/*
 * memhog CGROUP_DIR ANON_MIB: join the cgroup, fault in ANON_MIB of anon
 * memory, print "ready" and sleep until killed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
	char path[4096];
	size_t len;
	FILE *f;
	char *p;

	if (argc != 3) {
		fprintf(stderr, "usage: memhog CGROUP_DIR ANON_MIB\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/cgroup.procs", argv[1]);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%d\n", getpid()) < 0 || fclose(f)) {
		perror(path);
		return 1;
	}
	len = strtoul(argv[2], NULL, 10) << 20;
	p = mmap(NULL, len ? len : 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	memset(p, 1, len);
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
