// SPDX-License-Identifier: GPL-2.0
/* cgroup_iter links on a cgroup by path: see cg_iter.h. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "cg_iter.h"

struct bpf_link *cg_iter_attach(struct bpf_program *prog, const char *path, int order)
{
	LIBBPF_OPTS(bpf_iter_attach_opts, opts);
	union bpf_iter_link_info linfo = {};
	struct bpf_link *link;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err;

	if (fd < 0)
		return NULL;
	linfo.cgroup.cgroup_fd = fd;
	linfo.cgroup.order = order;
	opts.link_info = &linfo;
	opts.link_info_len = sizeof(linfo);
	link = bpf_program__attach_iter(prog, &opts);
	err = errno;
	close(fd);
	errno = err;
	return link;
}

int cg_iter_attach_fd(int prog_fd, const char *path, int order)
{
	union bpf_iter_link_info linfo = {};
	LIBBPF_OPTS(bpf_link_create_opts, opts, .iter_info = &linfo,
		    .iter_info_len = sizeof(linfo));
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), link, err;

	if (fd < 0)
		return -errno;
	linfo.cgroup.cgroup_fd = fd;
	linfo.cgroup.order = order;
	link = bpf_link_create(prog_fd, 0, BPF_TRACE_ITER, &opts);
	err = -errno;
	close(fd);
	return link < 0 ? err : link;
}

int cg_iter_read_fd(int link_fd)
{
	char buf[64];
	ssize_t n;
	int fd = bpf_iter_create(link_fd);

	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	close(fd);
	return n < 0 ? -errno : 0;
}

int cg_iter_read(struct bpf_link *link)
{
	return cg_iter_read_fd(bpf_link__fd(link));
}

int cg_iter_run(struct bpf_program *prog, const char *path, int order)
{
	struct bpf_link *link = cg_iter_attach(prog, path, order);
	int err;

	if (!link)
		return -errno;
	err = cg_iter_read(link);
	bpf_link__destroy(link);
	return err;
}

int cg_iter_run_fd(int prog_fd, const char *path, int order)
{
	int link = cg_iter_attach_fd(prog_fd, path, order), err;

	if (link < 0)
		return link;
	err = cg_iter_read_fd(link);
	close(link);
	return err;
}
