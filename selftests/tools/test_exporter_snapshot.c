// SPDX-License-Identifier: GPL-2.0
/*
 * test_exporter_snapshot CGROUP: memcgstat-exporter's snapshots and their
 * exposition through exporter_snapshot.h alone, without its HTTP server
 * (no libmicrohttpd linked): the exporter's own objects (the ASan/UBSan
 * build of make user-asan) and the library. Makes CGROUP with children a,
 * a/deep and b (and gone, removed again), charges a tmpfs file written by
 * a child moved into a to it, and checks each exposition exactly:
 *
 *   - the series of those four cgroups and no other, labelled with their
 *     paths, in both formats;
 *   - shmem and pgfault of each equal to what its memory.stat says
 *     (read before and after the snapshot, equal: nothing moves in
 *     cgroups without tasks), a's holding the file;
 *   - memcgstat_exporter_reads_total one more per read, replies_total one
 *     more per reply counted (exporter_count_reply()), and only in HTTP
 *     replies (with --listen), not in a textfile written beside them;
 *   - --max-depth, --include and --exclude: the cgroups exported, exactly;
 *   - a CGROUP removed: its read counted as failed, once per read, the
 *     other exported; every CGROUP removed: a failed read, counted;
 *   - the responses a snapshot was given freed once, by their owner's
 *     function, when the next one is installed.
 *
 * Prints "#N exporter_snapshot/NAME:OK|FAIL|SKIP".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include "common.h"
#include "exporter_cadvisor.h"
#include "exporter_snapshot.h"

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC	0x01021994
#endif

/* What the child writes to a tmpfs file from inside a: shmem charged to a. */
#define SHMEM_BYTES	(4 << 20)
#define SHM_DIR		"/dev/shm"

static int nr, failed;
static char why[1024];

/* @fmt formatted into why[]: the reason a subtest failed. */
__attribute__((format(printf, 1, 2)))
static bool fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return false;
}

static void result(const char *name, bool ok)
{
	printf("#%d exporter_snapshot/%s:%s\n", ++nr, name, ok ? "OK" : "FAIL");
	if (!ok)
		printf("  %s\n", why);
	failed += !ok;
	fflush(stdout);
}

static void skip(const char *name, const char *reason)
{
	printf("#%d exporter_snapshot/%s:SKIP (%s)\n", ++nr, name, reason);
	fflush(stdout);
}

static const char *cgroup;		/* CGROUP, as given */
static const char *label;		/* its path below the hierarchy's root */
static char dir_a[4096], dir_deep[4096], dir_b[4096], dir_gone[4096];
/* one name: a run that crashed leaves it to the next, which removes it */
static const char shm_file[] = SHM_DIR "/memcgstat-exporter-snapshot";
static const char *const cg_dirs[] = { dir_deep, dir_a, dir_b, dir_gone };

static void remove_tree(void)
{
	size_t i;

	unlink(shm_file);
	for (i = 0; i < ARRAY_SIZE(cg_dirs); i++)
		rmdir(cg_dirs[i]);
	rmdir(cgroup);
}

/* @len bytes of a tmpfs file, written by a child moved into @dir: NULL, or why not. */
static const char *charge(const char *dir, size_t len)
{
	char procs[4200], buf[65536];
	struct statfs sf;
	size_t off;
	pid_t pid;
	int st = -1;

	if (statfs(SHM_DIR, &sf) || sf.f_type != TMPFS_MAGIC)
		return SHM_DIR " is not a tmpfs";
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	memset(buf, 0x5a, sizeof(buf));
	pid = fork();
	if (pid < 0)
		return "fork failed";
	if (!pid) {
		FILE *f = fopen(procs, "w");
		int fd;

		if (!f || fprintf(f, "%d\n", getpid()) < 0 || fclose(f))
			_exit(2);
		fd = open(shm_file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		for (off = 0; fd >= 0 && off < len; off += sizeof(buf))
			if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
				_exit(3);
		_exit(fd < 0 || close(fd) ? 3 : 0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return WIFEXITED(st) && WEXITSTATUS(st) == 2 ? "cannot move a child into a" :
		       "the child could not write its tmpfs file";
	return NULL;
}

/* @key's value in memory.stat of @dir, or -1. */
static long long memory_stat(const char *dir, const char *key)
{
	char path[4200], buf[16384], *p;
	size_t n, kl = strlen(key);
	FILE *f;

	snprintf(path, sizeof(path), "%s/memory.stat", dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (p = buf; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, kl) && p[kl] == ' ')
			return strtoll(p + kl + 1, NULL, 10);
	return -1;
}

/* reads_total so far: each read adds one. */
static unsigned long long reads;

/*
 * A read of @ex installed as its current snapshot, and its exposition in
 * @f, as an HTTP reply's (@http) or a textfile's.
 */
static char *expose_as(struct exporter *ex, enum fmt f, bool http)
{
	struct snap s;
	char *buf = NULL;
	size_t len;

	read_snap(ex, &s);
	reads++;
	if (s.ok && snap_exposition(ex, &s, f, http, &buf, &len))
		buf = NULL;
	if (!s.ok)
		fail("the snapshot failed: %s", s.err);
	else if (!buf)
		fail("no exposition: out of memory");
	install_snap(ex, &s);
	return buf;
}

static char *expose(struct exporter *ex, enum fmt f)
{
	return expose_as(ex, f, ex->o.listen != NULL);
}

/* The value of sample @name{@labels} (the whole text between braces; NULL: none), or -1. */
static long long sample(const char *body, const char *name, const char *labels)
{
	char head[512];
	const char *p;
	size_t hl;

	hl = snprintf(head, sizeof(head), "%s%s%s%s ", name, labels ? "{" : "",
		      labels ? labels : "", labels ? "}" : "");
	for (p = body; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, head, hl))
			return strtoll(p + hl, NULL, 10);
	return -1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The cgroup of each sample of @name, sorted, comma-separated, in @out. */
static void labels_of(const char *body, const char *name, char *out, size_t size)
{
	char head[256], *found[64];
	const char *p, *end;
	size_t hl, o = 0, n = 0, i;

	hl = snprintf(head, sizeof(head), "%s{cgroup=\"", name);
	for (p = body; p && *p && n < ARRAY_SIZE(found); p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, head, hl) && (end = strstr(p + hl, "\"}")))
			found[n++] = strndup(p + hl, end - p - hl);
	qsort(found, n, sizeof(*found), cmp_str);
	*out = '\0';
	for (i = 0; i < n; i++) {
		o += snprintf(out + o, o < size ? size - o : 0, "%s%s", i ? "," : "",
			      found[i] ? found[i] : "?");
		free(found[i]);
	}
}

/* Whether @body's @name has samples of exactly the cgroups @want (comma-separated). */
static bool has_cgroups(const char *body, const char *name, const char *want)
{
	char got[4096];

	labels_of(body, name, got, sizeof(got));
	return !strcmp(got, want) ? true : fail("%s of cgroups '%s', not '%s'", name, got, want);
}

static bool has_count(const char *body, const char *name, const char *labels, long long want)
{
	long long got = sample(body, name, labels);

	return got == want ? true : fail("%s%s%s%s is %lld, not %lld", name, labels ? "{" : "",
					 labels ? labels : "", labels ? "}" : "", got, want);
}

/* "L,L/a,L/a/deep,L/b" for @rel "", "/a", "/a/deep" and "/b" with @mask's bits. */
static const char *cgroups_of(unsigned int mask)
{
	static const char *const rel[] = { "", "/a", "/a/deep", "/b" };
	static char buf[4096];
	size_t i, o = 0;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(rel); i++)
		if (mask & (1u << i))
			o += snprintf(buf + o, sizeof(buf) - o, "%s%s%s", o ? "," : "", label, rel[i]);
	return buf;
}

#define ALL	0xfu

static bool test_series(struct exporter *ex, enum fmt f)
{
	char *body = expose(ex, f);
	bool ok;

	if (!body)
		return false;
	ok = has_cgroups(body, "memcgstat_shmem_bytes", cgroups_of(ALL)) &&
	     has_cgroups(body, "memcgstat_pgfault_total", cgroups_of(ALL)) &&
	     has_count(body, "memcgstat_exporter_cgroups_seen", NULL, 4) &&
	     has_count(body, "memcgstat_exporter_cgroups_exported", NULL, 4) &&
	     has_count(body, "memcgstat_exporter_cgroups_failed", NULL, 0) &&
	     has_count(body, "memcgstat_exporter_reads_total", NULL, reads);
	if (ok && f == FMT_OPENMETRICS &&
	    (!strstr(body, "\n# UNIT memcgstat_shmem_bytes bytes\n") ||
	     !strstr(body, "\n# TYPE memcgstat_pgfault counter\n") ||
	     strcmp(body + strlen(body) - 6, "# EOF\n")))
		ok = fail("not OpenMetrics: no # UNIT of shmem, no counter family pgfault, or no # EOF");
	if (ok && f == FMT_TEXT && strstr(body, "# EOF"))
		ok = fail("# EOF in the text format");
	free(body);
	return ok;
}

/*
 * The exposition's shmem and pgfault of each cgroup against its
 * memory.stat, read before the snapshot and after: tried again if it
 * moved meanwhile.
 */
static bool test_memory_stat(struct exporter *ex)
{
	const char *dirs[] = { cgroup, dir_a, dir_deep, dir_b };
	const char *rel[] = { "", "/a", "/a/deep", "/b" };
	bool v1 = memcgstat_cgroup_version(ex->h) == 1;
	const char *keys[] = { v1 ? "total_shmem" : "shmem", v1 ? "total_pgfault" : "pgfault" };
	const char *names[] = { "memcgstat_shmem_bytes", "memcgstat_pgfault_total" };
	long long before[4][2], after[4][2];
	char lab[4200], *body = NULL;
	bool same = false;
	int t, i, k;

	for (t = 0; t < 5 && !same; t++) {
		for (i = 0; i < 4; i++)
			for (k = 0; k < 2; k++)
				before[i][k] = memory_stat(dirs[i], keys[k]);
		free(body);
		body = expose(ex, FMT_TEXT);
		if (!body)
			return false;
		for (i = 0; i < 4; i++)
			for (k = 0; k < 2; k++)
				after[i][k] = memory_stat(dirs[i], keys[k]);
		same = !memcmp(before, after, sizeof(before));
	}
	if (!same) {
		free(body);
		return fail("memory.stat moved during each of 5 snapshots");
	}
	for (i = 0; i < 4; i++) {
		for (k = 0; k < 2; k++) {
			snprintf(lab, sizeof(lab), "cgroup=\"%s%s\"", label, rel[i]);
			if (after[i][k] < 0 || !has_count(body, names[k], lab, after[i][k])) {
				if (after[i][k] < 0)
					fail("no %s in %s/memory.stat", keys[k], dirs[i]);
				free(body);
				return false;
			}
		}
	}
	free(body);
	/* the file is a's: at least what was written, and nothing of it in b */
	if (after[1][0] < SHMEM_BYTES || after[3][0] != 0)
		return fail("%s: a %lld bytes (the file is %d), b %lld", keys[0], after[1][0],
			    SHMEM_BYTES, after[3][0]);
	return true;
}

static bool test_reads(struct exporter *ex)
{
	char *body;
	int i;

	for (i = 0; i < 3; i++) {
		body = expose(ex, FMT_TEXT);
		if (!body)
			return false;
		if (!has_count(body, "memcgstat_exporter_reads_total", NULL, reads) ||
		    !has_count(body, "memcgstat_exporter_read_errors_total", NULL, 0) ||
		    !has_count(body, "memcgstat_exporter_cgroup_read_failures_total", NULL, 0)) {
			free(body);
			return false;
		}
		free(body);
	}
	return true;
}

static bool test_replies(struct exporter *ex)
{
	const char *id = "encoding=\"identity\"", *gz = "encoding=\"gzip\"";
	char *body;
	bool ok;

	body = expose(ex, FMT_TEXT);
	if (!body)
		return false;
	ok = !strstr(body, "memcgstat_exporter_replies_total") ? true :
	     fail("replies_total without --listen");
	free(body);
	if (!ok)
		return false;
	ex->o.listen = "127.0.0.1:0";	/* the family only; nothing listens */
	exporter_count_reply(ex, false);
	exporter_count_reply(ex, true);
	exporter_count_reply(ex, true);
	/* --textfile beside --listen: the textfile has no replies */
	body = expose_as(ex, FMT_TEXT, false);
	ok = body && !strstr(body, "memcgstat_exporter_replies_total") ? true :
	     fail("replies_total in a textfile beside --listen");
	free(body);
	body = ok ? expose(ex, FMT_OPENMETRICS) : NULL;
	ok = body && has_count(body, "memcgstat_exporter_replies_total", id, 1) &&
	     has_count(body, "memcgstat_exporter_replies_total", gz, 2);
	free(body);
	exporter_count_reply(ex, false);
	body = ok ? expose(ex, FMT_TEXT) : NULL;
	ok = body && has_count(body, "memcgstat_exporter_replies_total", id, 2) &&
	     has_count(body, "memcgstat_exporter_replies_total", gz, 2) &&
	     has_count(body, "memcgstat_exporter_reads_total", NULL, reads);
	free(body);
	ex->o.listen = NULL;
	return ok;
}

struct filter_case {
	const char *name;
	long max_depth;
	const char *include[2], *exclude[2];
	unsigned int want;		/* cgroups_of()'s bits */
};

static bool test_filter(struct exporter *ex, const struct filter_case *fc)
{
	char *inc[2], *exc[2], *body;
	bool ok;
	size_t i;

	ex->o.c.filter.max_depth = fc->max_depth;
	ex->o.c.filter.nr_include = ex->o.c.filter.nr_exclude = 0;
	for (i = 0; i < 2; i++) {
		if (fc->include[i])
			inc[ex->o.c.filter.nr_include++] = (char *)fc->include[i];
		if (fc->exclude[i])
			exc[ex->o.c.filter.nr_exclude++] = (char *)fc->exclude[i];
	}
	ex->o.c.filter.include = inc;
	ex->o.c.filter.exclude = exc;
	body = expose(ex, FMT_TEXT);
	ex->o.c.filter.max_depth = -1;
	ex->o.c.filter.include = ex->o.c.filter.exclude = NULL;
	ex->o.c.filter.nr_include = ex->o.c.filter.nr_exclude = 0;
	if (!body)
		return false;
	ok = has_cgroups(body, "memcgstat_shmem_bytes", cgroups_of(fc->want)) &&
	     has_count(body, "memcgstat_exporter_cgroups_seen", NULL, 4) &&
	     has_count(body, "memcgstat_exporter_cgroups_exported", NULL,
		       __builtin_popcount(fc->want)) &&
	     has_count(body, "memcgstat_exporter_reads_total", NULL, reads);
	free(body);
	return ok;
}

/*
 * An exporter of its own on @h (its CGROUPs @cgroups; the counts from
 * zero), for the CGROUPs that fail: CGROUP/a and CGROUP/gone, the one
 * exported, the other counted as failed; then CGROUP/gone alone, a read
 * that fails, and again once it is back.
 */
static bool test_failed(struct memcgstat *h)
{
	char *const two[] = { dir_a, dir_gone }, *const one[] = { dir_gone };
	struct exporter ex = { .o = { .cgroups = two, .nr_cgroups = 2, .c.filter = ROW_FILTER_INIT }, .h = h };
	char lab[4200], *body;
	bool ok = true;
	struct snap s;
	int i;

	if (snaps_init(&ex))
		return fail("snaps_init failed");
	for (i = 1; i <= 2 && ok; i++) {
		body = expose(&ex, FMT_TEXT);
		ok = body && has_cgroups(body, "memcgstat_shmem_bytes", cgroups_of(0x6)) &&
		     has_count(body, "memcgstat_exporter_cgroups_failed", NULL, 1) &&
		     has_count(body, "memcgstat_exporter_cgroup_read_failures_total", NULL, i) &&
		     has_count(body, "memcgstat_exporter_cgroups_seen", NULL, 2) &&
		     has_count(body, "memcgstat_exporter_read_errors_total", NULL, 0) &&
		     has_count(body, "memcgstat_exporter_reads_total", NULL, i);
		free(body);
	}
	snaps_fini(&ex);
	if (!ok)
		return false;

	ex = (struct exporter){ .o = { .cgroups = one, .nr_cgroups = 1, .c.filter = ROW_FILTER_INIT }, .h = h };
	if (snaps_init(&ex))
		return fail("snaps_init failed");
	read_snap(&ex, &s);
	if (s.ok || s.nr_failed != 1 || !strstr(s.err, "snapshot of ") ||
	    s.reads != 1 || s.read_errors != 1 || s.cgroup_failures != 1)
		ok = fail("every CGROUP gone: ok %d, %zu failed, reads %llu errors %llu failures %llu, '%s'",
			  s.ok, s.nr_failed, s.reads, s.read_errors, s.cgroup_failures, s.err);
	install_snap(&ex, &s);
	/* back: read, the failure still counted */
	if (ok && mkdir(dir_gone, 0755))
		ok = fail("cannot make %s again: %s", dir_gone, strerror(errno));
	body = ok ? expose(&ex, FMT_TEXT) : NULL;
	snprintf(lab, sizeof(lab), "%s/gone", label);
	ok = ok && body && has_cgroups(body, "memcgstat_shmem_bytes", lab) &&
	     has_count(body, "memcgstat_exporter_read_errors_total", NULL, 1) &&
	     has_count(body, "memcgstat_exporter_cgroup_read_failures_total", NULL, 1) &&
	     has_count(body, "memcgstat_exporter_cgroups_failed", NULL, 0) &&
	     has_count(body, "memcgstat_exporter_reads_total", NULL, 2);
	free(body);
	snaps_fini(&ex);
	rmdir(dir_gone);
	return ok;
}

static int freed[NR_RESP], bad_frees;
static char tokens[NR_RESP];

static void count_free(void *resp)
{
	char *t = resp;

	if (t >= tokens && t < tokens + NR_RESP)
		freed[t - tokens]++;
	else
		bad_frees++;
}

/* Responses given to the current snapshot: freed once each when it is replaced. */
static bool test_responses(struct exporter *ex)
{
	char *body;
	int k;

	pthread_mutex_lock(&ex->lock);
	for (k = 0; k < NR_RESP; k += 2)
		snap_add_response(&ex->snap, k, &tokens[k], count_free);
	pthread_mutex_unlock(&ex->lock);
	body = expose(ex, FMT_TEXT);
	if (!body)
		return false;
	free(body);
	for (k = 0; k < NR_RESP; k++)
		if (freed[k] != !(k % 2) || bad_frees)
			return fail("response %d freed %d times (%d frees of no response)",
				    k, freed[k], bad_frees);
	/* the new snapshot was given none: replacing it frees nothing more */
	body = expose(ex, FMT_TEXT);
	free(body);
	for (k = 0; k < NR_RESP; k++)
		if (freed[k] != !(k % 2) || bad_frees)
			return fail("after the next read: response %d freed %d times", k, freed[k]);
	return body ? true : false;
}

/* cgroup paths of both kubelet drivers, and what --compat cadvisor labels them */
static const struct k8s_case {
	const char *path, *uid, *cid;
} k8s_cases[] = {
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod01234567_89ab_cdef_0123_456789abcdef.slice/cri-containerd-abc123.scope",
	  "01234567-89ab-cdef-0123-456789abcdef", "abc123" },
	{ "/kubepods.slice/kubepods-pod0a_1b.slice/crio-ff00.scope", "0a-1b", "ff00" },
	{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod9_9.slice/docker-d0c.scope",
	  "9-9", "d0c" },
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1_2.slice", "1-2", "" },
	{ "/kubepods.slice/kubepods-burstable.slice", "", "" },
	{ "/kubepods/burstable/pod1-2-3/c0ffee", "1-2-3", "c0ffee" },
	{ "/kubepods/pod4-5/beef", "4-5", "beef" },
	{ "/kubepods/besteffort/pod6-7", "6-7", "" },
	{ "/kubepods/besteffort", "", "" },
	{ "/system.slice/containerd.service", "", "" },
	{ "/pod1/c", "", "" },	/* not below kubepods */
	{ "/", "", "" },
	/* CRI-O's conmon beside its container: not the container */
	{ "/kubepods.slice/kubepods-pod3_4.slice/crio-conmon-ab12.scope", "3-4", "" },
	{ "/kubepods/pod5-6/crio-conmon-cd34", "5-6", "" },	/* cgroupfs: no .scope */
	{ "/kubepods/pod5-6/crio-cd34", "5-6", "cd34" },
	/* too long for an ID: none, not a cut (which split the UTF-8 of é) */
	{ "/kubepods/podaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\xc3\xa9/c",
	  "", "c" },
	{ "/kubepods/pod7/docker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope",
	  "7", "" },
};

static bool test_k8s_ids(void)
{
	char uid[64], cid[128];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(k8s_cases); i++) {
		const struct k8s_case *k = &k8s_cases[i];

		cadvisor_k8s_ids(k->path, uid, sizeof(uid), cid, sizeof(cid));
		if (strcmp(uid, k->uid) || strcmp(cid, k->cid))
			return fail("%s: pod_uid '%s' container_id '%s', want '%s' '%s'", k->path,
				    uid, cid, k->uid, k->cid);
	}
	return true;
}

static const struct filter_case filters[] = {
	{ "max_depth_0", 0, {}, {}, 0x1 },
	{ "max_depth_1", 1, {}, {}, 0xb },
	{ "include", -1, { "*/a*" }, {}, 0x6 },
	{ "include_two", -1, { "*/b", "*/deep" }, {}, 0xc },
	{ "exclude", -1, {}, { "*/b" }, 0x7 },
	{ "exclude_wins", -1, { "*/a*" }, { "*/deep" }, 0x2 },
	{ "depth_and_include", 1, { "*/a*", "*/b" }, {}, 0xa },
};

int main(int argc, char **argv)
{
	struct memcgstat_opts opts = { .sz = sizeof(opts) };
	char stats[] = "shmem,pgfault,usage";
	char *const cgroups[] = { (char *)(argc > 1 ? argv[1] : "") };
	struct exporter ex = { .o = { .cgroups = cgroups, .nr_cgroups = 1, .c.filter = ROW_FILTER_INIT } };
	const char *root, *no_charge;
	char name[64];
	size_t i;

	prog_name = "test_exporter_snapshot";
	if (argc != 2) {
		fprintf(stderr, "usage: test_exporter_snapshot CGROUP\n");
		return 2;
	}
	cgroup = argv[1];
	snprintf(dir_a, sizeof(dir_a), "%s/a", cgroup);
	snprintf(dir_deep, sizeof(dir_deep), "%s/a/deep", cgroup);
	snprintf(dir_b, sizeof(dir_b), "%s/b", cgroup);
	snprintf(dir_gone, sizeof(dir_gone), "%s/gone", cgroup);
	remove_tree();
	if (mkdir(cgroup, 0755) || mkdir(dir_a, 0755) || mkdir(dir_deep, 0755) ||
	    mkdir(dir_b, 0755) || mkdir(dir_gone, 0755)) {
		snprintf(why, sizeof(why), "cannot make %s and its children: %s", cgroup,
			 strerror(errno));
		skip("setup", why);
		remove_tree();
		return 0;
	}
	rmdir(dir_gone);	/* a CGROUP that was there, and is not */
	no_charge = charge(dir_a, SHMEM_BYTES);
	set_libbpf_print(false, true);
	if (snaps_init(&ex) || open_handle(&opts, stats, false, false, &ex.h)) {
		result("setup", fail("cannot open a handle on %s", cgroup));
		memcgstat_close(ex.h);
		remove_tree();
		return 1;
	}
	root = memcgstat_root(ex.h);
	label = !strncmp(cgroup, root, strlen(root)) ? cgroup + strlen(root) : cgroup;
	printf("# %s backend, cgroup v%d, %s below %s\n",
	       memcgstat_backend_name(memcgstat_backend(ex.h)), memcgstat_cgroup_version(ex.h),
	       label, root);

	result("series_text", test_series(&ex, FMT_TEXT));
	result("series_openmetrics", test_series(&ex, FMT_OPENMETRICS));
	if (no_charge)
		skip("counters_match_memory_stat", no_charge);
	else
		result("counters_match_memory_stat", test_memory_stat(&ex));
	result("reads_counted", test_reads(&ex));
	result("replies_counted", test_replies(&ex));
	for (i = 0; i < ARRAY_SIZE(filters); i++) {
		snprintf(name, sizeof(name), "filter_%s", filters[i].name);
		result(name, test_filter(&ex, &filters[i]));
	}
	result("cgroup_failed", test_failed(ex.h));
	result("responses_freed", test_responses(&ex));
	result("cadvisor_k8s_ids", test_k8s_ids());

	snaps_fini(&ex);
	memcgstat_close(ex.h);
	remove_tree();
	return failed ? 1 : 0;
}
