// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * cAdvisor's memory families (--compat cadvisor), each a row of one table:
 * the memcgstat stat that holds cAdvisor's value on cgroup v1 and on v2
 * (NULL: cAdvisor's value cannot be had the same way there, the series is
 * left out; memcgstat-exporter(1) says why), and how the value is turned
 * into cAdvisor's. Names, types and help are cAdvisor's
 * (google/cadvisor metrics/prometheus.go); the values follow:
 *
 *   google/cadvisor container/libcontainer/handler.go, setMemoryStats():
 *     usage, max usage, failcnt and kernel usage from the page counters;
 *     v1: cache, rss, swap, mapped_file from memory.stat's total_* lines
 *     (memory.use_hierarchy is 1), v2: file, anon, swap current,
 *     file_mapped; working set = usage - (total_)inactive_file, >= 0;
 *     (total_)active_file and inactive_file as they are; pgfault and
 *     pgmajfault from memory.stat's own (v1: not total_) lines, for both
 *     scopes.
 *   opencontainers/cgroups fs/memory.go (v1): memory.usage_in_bytes,
 *     .max_usage_in_bytes, .failcnt, memory.kmem.usage_in_bytes;
 *     fs2/memory.go (v2): memory.current, memory.peak, no failcnt and no
 *     kernel usage (cAdvisor reports 0), memory.swap.current (cAdvisor's
 *     swap is mem+swap less mem).
 *   google/cadvisor container/common/helpers.go, getSpecInternal(): limit,
 *     reservation and swap limit from memory.limit_in_bytes,
 *     .soft_limit_in_bytes, .memsw.limit_in_bytes (v1) and memory.max,
 *     .min, .swap.max (v2); metrics/prometheus.go specMemoryValue(): a
 *     limit above 2^62 ("max") is 0. container/raw/handler.go: the root's
 *     limits are the machine's, not a cgroup's: left out.
 *   google/cadvisor manager/manager.go, watchForNewOoms(): OOM kills of the
 *     kernel log, counted against the victim's cgroup; here the kernel's
 *     own count of them in that cgroup alone (v1 memory.oom_control
 *     oom_kill, v2 memory.events.local oom_kill).
 *   metrics/prometheus.go: memory pressure totals, microseconds as seconds.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <string.h>
#include "exporter_cadvisor.h"

enum cadv_conv {
	CADV_AS_IS,
	CADV_SPEC,		/* specMemoryValue(): above 2^62 (no limit) is 0 */
	CADV_USEC,		/* microseconds as seconds */
};

struct cadv_family {
	const char *name;
	enum om_type type;
	const char *help;
	const char *v1, *v2;	/* the stat; NULL: left out on that version */
	enum cadv_conv conv;
	bool not_root;		/* the root's value is not a cgroup's */
	bool not_v2_root;	/* nor on v2, where the root has no page counter files */
	/* failure_type and scope of container_memory_failures_total */
	const char *failure_type, *scope;
};

/* a family of cAdvisor's, from stat @s1 on v1 and @s2 on v2 */
#define FAM(n, t, h, s1, s2) { .name = n, .type = t, .help = h, .v1 = s1, .v2 = s2 }
/*
 * the v2 root's made up by opencontainers/cgroups fs2/memory.go
 * rootStatsFromMeminfo(): usage anon + file, swap from /proc/meminfo, no
 * peak; memcgstat has none there (NA)
 */
#define FAM_V2NR(n, t, h, s1, s2) { .name = n, .type = t, .help = h, .v1 = s1, .v2 = s2, \
				    .not_v2_root = true }
/* a limit of the spec: not the root's */
#define SPEC(n, h, s1, s2) { .name = n, .type = OM_GAUGE, .help = h, .v1 = s1, .v2 = s2, \
			     .conv = CADV_SPEC, .not_root = true }
/* v1: cAdvisor's are memory.stat's pgfault, the cgroup's own, not total_ */
#define FAIL(t, sc) { .name = "container_memory_failures_total", .type = OM_COUNTER, \
		      .help = "Cumulative count of memory allocation failures.", .v2 = t, \
		      .failure_type = t, .scope = sc }
#define PSI(n, h, s2) { .name = n, .type = OM_COUNTER, .help = h, .v2 = s2, .conv = CADV_USEC }

static const struct cadv_family families[] = {
	FAM("container_memory_cache", OM_GAUGE, "Number of bytes of page cache memory.",
	    "file", "file"),
	FAM("container_memory_rss", OM_GAUGE, "Size of RSS in bytes.", "anon", "anon"),
	FAM("container_memory_kernel_usage", OM_GAUGE, "Size of kernel memory allocated in bytes.",
	    "kernel", NULL),
	FAM("container_memory_mapped_file", OM_GAUGE, "Size of memory mapped files in bytes.",
	    "file_mapped", "file_mapped"),
	FAM_V2NR("container_memory_swap", OM_GAUGE, "Container swap usage in bytes.",
	    "swap", "swap_current"),
	FAM("container_memory_failcnt", OM_COUNTER, "Number of memory usage hits limits",
	    "memory_failcnt", NULL),
	FAM_V2NR("container_memory_usage_bytes", OM_GAUGE,
	    "Current memory usage in bytes, including all memory regardless of when it was accessed",
	    "usage", "usage"),
	FAM_V2NR("container_memory_max_usage_bytes", OM_GAUGE, "Maximum memory usage recorded in bytes",
	    "memory_peak", "memory_peak"),
	FAM_V2NR("container_memory_working_set_bytes", OM_GAUGE, "Current working set in bytes.",
	    "working_set", "working_set"),
	FAM("container_memory_total_active_file_bytes", OM_GAUGE,
	    "Current total active file in bytes.", "active_file", "active_file"),
	FAM("container_memory_total_inactive_file_bytes", OM_GAUGE,
	    "Current total inactive file in bytes.", "inactive_file", "inactive_file"),
	FAIL("pgfault", "container"),
	FAIL("pgmajfault", "container"),
	FAIL("pgfault", "hierarchy"),
	FAIL("pgmajfault", "hierarchy"),
	FAM("container_oom_events_total", OM_COUNTER,
	    "Count of out of memory events observed for the container",
	    "events_oom_kill", "events_local_oom_kill"),
	PSI("container_pressure_memory_stalled_seconds_total",
	    "Total time duration no tasks in the container could make progress due to memory congestion.",
	    "pressure_full"),
	PSI("container_pressure_memory_waiting_seconds_total",
	    "Total time duration tasks in the container have waited due to memory congestion.",
	    "pressure_some"),
	SPEC("container_spec_memory_limit_bytes", "Memory limit for the container.",
	     "memory_max", "memory_max"),
	SPEC("container_spec_memory_swap_limit_bytes", "Memory swap limit for the container.",
	     "memsw_max", "swap_max"),
	SPEC("container_spec_memory_reservation_limit_bytes",
	     "Memory reservation limit for the container.", "memory_soft_limit", "memory_min"),
};

/* @s without @prefix, or NULL. */
static const char *after(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(s, prefix, n) ? s + n : NULL;
}

/*
 * @s's @len bytes into @dst, the systemd driver's underscores as dashes
 * (@unescape); nothing where they do not fit: longer than any pod UID or
 * container ID, and a cut could split a UTF-8 sequence, which makes the
 * whole exposition one Prometheus refuses.
 */
static void copy_id(char *dst, size_t size, const char *s, size_t len, bool unescape)
{
	size_t i;

	if (len >= size)
		len = 0;
	for (i = 0; i < len; i++)
		dst[i] = unescape && s[i] == '_' ? '-' : s[i];
	dst[len] = '\0';
}

/*
 * The kubelet names a pod's cgroup kubepods[-QOS]-pod<UID>.slice (systemd
 * driver: the UID's dashes as underscores) or pod<UID> (cgroupfs), and the
 * container's below it <runtime>-<ID>.scope (cri-containerd-, crio-,
 * docker-), <ID> or, CRI-O's with cgroupfs, crio-<ID>. CRI-O's monitor of a
 * container beside it (conmon_cgroup = "pod"), crio-conmon-<ID>[.scope],
 * is not the container: no ID.
 */
void cadvisor_k8s_ids(const char *path, char *uid, size_t uid_size, char *cid,
		      size_t cid_size)
{
	const char *s = path, *e, *p, *dash;
	bool kube = false, pod = false;
	size_t len;

	*uid = *cid = '\0';
	for (; *s; s = *e ? e + 1 : e) {
		while (*s == '/')
			s++;
		e = strchrnul(s, '/');
		len = e - s;
		if (!len)
			break;
		if (pod) {	/* the container, below its pod */
			if (len > 6 && !memcmp(e - 6, ".scope", 6))
				len -= 6;
			dash = memrchr(s, '-', len);	/* an ID has none */
			p = dash ? dash + 1 : s;
			if (p - s < 7 || memcmp(p - 7, "conmon-", 7))
				copy_id(cid, cid_size, p, s + len - p, false);
			return;
		}
		if (after(s, len, "kubepods")) {
			kube = true;
			if (len > 6 && !memcmp(e - 6, ".slice", 6) &&
			    (p = memmem(s, len, "-pod", 4))) {
				p += 4;
				copy_id(uid, uid_size, p, e - 6 - p, true);
				pod = true;
			}
		} else if (kube && (p = after(s, len, "pod")) && p < e) {
			copy_id(uid, uid_size, p, e - p, false);
			pod = true;
		}
	}
}

/* One family's samples: a sample per row that has the value. */
static void family_samples(FILE *f, const struct render_view *v, const struct cadv_family *fam,
			   int col, int version)
{
	bool skip_root = fam->not_root || (fam->not_v2_root && version == 2);
	struct om_label labels[5];
	char uid[64], cid[128];
	size_t i, n;

	for (i = 0; i < v->nr_rows; i++) {
		const struct render_row *r = &v->rows[i];
		uint64_t val = r->vals[col];

		if (val == MEMCGSTAT_NA || (skip_root && !strcmp(r->path, "/")))
			continue;
		n = 0;
		labels[n++] = (struct om_label){ "id", r->path };
		cadvisor_k8s_ids(r->path, uid, sizeof(uid), cid, sizeof(cid));
		if (*uid)
			labels[n++] = (struct om_label){ "pod_uid", uid };
		if (*cid)
			labels[n++] = (struct om_label){ "container_id", cid };
		if (fam->failure_type) {
			labels[n++] = (struct om_label){ "failure_type", fam->failure_type };
			labels[n++] = (struct om_label){ "scope", fam->scope };
		}
		if (fam->conv == CADV_SPEC && (val == MEMCGSTAT_MAX || val > (1ULL << 62)))
			val = 0;
		if (fam->conv == CADV_USEC)
			om_sample(f, fam->name, labels, n, "%.6f", val / 1e6);
		else
			om_sample(f, fam->name, labels, n, "%" PRIu64, val);
	}
}

void cadvisor_families(FILE *f, enum om_dialect d, const struct render_view *v)
{
	int version = memcgstat_cgroup_version(v->h), col;
	const char *prev = "";
	size_t i;

	for (i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		const struct cadv_family *fam = &families[i];
		const char *stat = version == 1 ? fam->v1 : fam->v2;

		/* a stat -s left out, or none on this version */
		col = stat ? memcgstat_column_index(v->h, stat, -1) : -ENOENT;
		if (col < 0)
			continue;
		/* no # UNIT: as cAdvisor, whose names do not all end in theirs */
		if (strcmp(prev, fam->name))
			om_family(f, d, fam->name, fam->type, NULL, fam->help);
		prev = fam->name;
		family_samples(f, v, fam, col, version);
	}
}
