/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * memcgstat-exporter --compat cadvisor (exporter_cadvisor.c): cAdvisor's
 * memory families, rendered from the rows of the same snapshot as the
 * native memcgstat_* families.
 */
#ifndef __MEMCGSTAT_EXPORTER_CADVISOR_H
#define __MEMCGSTAT_EXPORTER_CADVISOR_H

#include <stddef.h>
#include <stdio.h>
#include "render.h"

/*
 * The Kubernetes pod UID and container ID of cgroup @path, as the kubelet's
 * systemd and cgroupfs drivers name them, into @uid and @cid ("" where the
 * path has none).
 */
void cadvisor_k8s_ids(const char *path, char *uid, size_t uid_size, char *cid,
		      size_t cid_size);

/* cAdvisor's memory families of @v's rows, in dialect @d. */
void cadvisor_families(FILE *f, enum om_dialect d, const struct render_view *v);

#endif /* __MEMCGSTAT_EXPORTER_CADVISOR_H */
