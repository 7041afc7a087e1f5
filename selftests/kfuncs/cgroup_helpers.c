// SPDX-License-Identifier: GPL-2.0
/* See cgroup_helpers.h: a cgroup v2 work directory for the kfunc selftests. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include "cgroup_helpers.h"

#define CGROUP_MOUNT	"/sys/fs/cgroup"

static char work_dir[128];

static int path_of(char *buf, size_t size, const char *relative_path)
{
	int n = snprintf(buf, size, "%s%s%s", work_dir,
			 relative_path[0] == '/' ? "" : "/", relative_path);

	return n < 0 || (size_t)n >= size ? -1 : 0;
}

static int write_file(const char *dir, const char *file, const char *val)
{
	char path[512];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok ? 0 : -1;
}

int setup_cgroup_environment(void)
{
	struct statfs fs;

	if (statfs(CGROUP_MOUNT, &fs) || fs.f_type != CGROUP2_SUPER_MAGIC) {
		fprintf(stderr, "cgroup_helpers: %s is not a cgroup2 mount\n", CGROUP_MOUNT);
		return -1;
	}
	snprintf(work_dir, sizeof(work_dir), "%s/cgroup-test-work-dir%d",
		 CGROUP_MOUNT, getpid());
	if (mkdir(work_dir, 0755) && errno != EEXIST)
		return -1;
	return write_file(work_dir, "cgroup.subtree_control", "+memory");
}

static int remove_dir(const char *path, const struct stat *st, int type,
		      struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		rmdir(path);
	return 0;
}

void cleanup_cgroup_environment(void)
{
	if (!work_dir[0])
		return;
	join_root_cgroup();
	/* children first; the processes in them must be gone */
	nftw(work_dir, remove_dir, 16, FTW_DEPTH | FTW_PHYS);
	work_dir[0] = '\0';
}

int create_and_get_cgroup(const char *relative_path)
{
	char path[512];

	if (path_of(path, sizeof(path), relative_path))
		return -1;
	if (mkdir(path, 0755) && errno != EEXIST)
		return -1;
	return open(path, O_RDONLY | O_DIRECTORY);
}

int enable_controllers(const char *relative_path, const char *controllers)
{
	char path[512], buf[256], *name, *save;

	if (path_of(path, sizeof(path), relative_path) ||
	    snprintf(buf, sizeof(buf), "%s", controllers) >= (int)sizeof(buf))
		return -1;
	for (name = strtok_r(buf, " ", &save); name; name = strtok_r(NULL, " ", &save)) {
		char plus[64];

		snprintf(plus, sizeof(plus), "+%s", name);
		if (write_file(path, "cgroup.subtree_control", plus))
			return -1;
	}
	return 0;
}

static int join_dir(const char *dir)
{
	char pid[16];

	snprintf(pid, sizeof(pid), "%d", getpid());
	return write_file(dir, "cgroup.procs", pid);
}

int join_cgroup(const char *relative_path)
{
	char path[512];

	if (path_of(path, sizeof(path), relative_path))
		return -1;
	return join_dir(path);
}

int join_root_cgroup(void)
{
	return join_dir(CGROUP_MOUNT);
}

int get_root_cgroup(void)
{
	return open(CGROUP_MOUNT, O_RDONLY | O_DIRECTORY);
}

unsigned long long get_cgroup_id(const char *relative_path)
{
	char path[512];
	struct stat st;

	if (path_of(path, sizeof(path), relative_path) || stat(path, &st))
		return 0;
	return st.st_ino;
}
