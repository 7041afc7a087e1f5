// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of libmemcgstat's pure parts: the text parsers and the stat
 * table. Prints "#N user/NAME:OK|FAIL" per test.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include <linux/types.h>
#include "memcgstat.h"
#include "testing.h"
#include "handle.h"
#include "loader.h"
#include "path_cache.h"
#include "memcg_iter.h"
#include "memcg_iter.skel.h"

static int nr, failed;

static void result(const char *name, int ok)
{
	printf("#%d user/%s:%s\n", ++nr, name, ok ? "OK" : "FAIL");
	failed += !ok;
}

struct got {
	char keys[16][64];
	int nids[16];
	unsigned long long vals[16];
	int n;
};

static int collect(const char *key, size_t keylen, int nid,
		   unsigned long long val, void *arg)
{
	struct got *g = arg;

	if (g->n >= 16 || keylen >= 64)
		return -E2BIG;
	memcpy(g->keys[g->n], key, keylen);
	g->keys[g->n][keylen] = '\0';
	g->nids[g->n] = nid;
	g->vals[g->n++] = val;
	return 0;
}

typedef int (*parser)(const char *buf, size_t len, mcs_text_cb cb, void *arg, int *bad_line);

/* @s by @parse into @g, the number of a malformed line into @line. */
static int parse(parser p, const char *s, struct got *g, int *line)
{
	memset(g, 0, sizeof(*g));
	*line = 0;
	return p(s, strlen(s), collect, g, line);
}

static int flat(const char *s, struct got *g, int *line)
{
	return parse(mcs_parse_flat, s, g, line);
}

static int numa(const char *s, struct got *g, int *line)
{
	return parse(mcs_parse_numa, s, g, line);
}

static int psi(const char *s, struct got *g, int *line)
{
	return parse(mcs_parse_psi, s, g, line);
}

/* Malformed input: its parser returns -EINVAL, and the bad line's number. */
static const struct refused {
	parser parse;
	const char *name, *in;
	int line;
} refused[] = {
	{ mcs_parse_flat, "flat_overflow_rejected", "anon 1\npgfault 18446744073709551616\n", 2 },
	{ mcs_parse_flat, "flat_missing_value", "anon 1\nfile\n", 2 },
	{ mcs_parse_flat, "flat_double_space", "anon  1\n", 1 },
	{ mcs_parse_flat, "flat_negative", "anon -1\n", 1 },
	{ mcs_parse_flat, "flat_trailing_garbage", "anon 1x\n", 1 },
	{ mcs_parse_flat, "flat_bad_key_char", "Anon 1\n", 1 },
	{ mcs_parse_flat, "flat_empty_line", "anon 1\n\nfile 2\n", 2 },
	{ mcs_parse_flat, "flat_empty_key", " 1\n", 1 },
	{ mcs_parse_numa, "numa_missing_value", "anon N0=1 N1\n", 1 },
	{ mcs_parse_numa, "numa_bad_node", "anon N0=1 X1=2\n", 1 },
	{ mcs_parse_numa, "numa_no_nodes", "anon\n", 1 },
	{ mcs_parse_numa, "numa_trailing_space", "anon N0=1 \n", 1 },
	{ mcs_parse_numa, "numa_huge_node", "anon N99999999999=1\n", 1 },
	{ mcs_parse_numa, "numa_overflow", "anon N0=18446744073709551616\n", 1 },
};

/* Each of refused[] that @p parses, in order. */
static void test_refused(parser p)
{
	struct got g;
	size_t i;
	int line;

	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (refused[i].parse == p)
			result(refused[i].name, parse(p, refused[i].in, &g, &line) == -EINVAL &&
			       line == refused[i].line);
}

static void test_flat(void)
{
	struct got g;
	int line, err;

	err = flat("anon 4096\nfile 0\npgfault 18446744073709551615\n", &g, &line);
	result("flat_valid", !err && g.n == 3 && !strcmp(g.keys[0], "anon") &&
	       g.vals[0] == 4096 && g.vals[2] == ULLONG_MAX && g.nids[0] == -1);

	err = flat("anon 4096\nfile 12", &g, &line);
	result("flat_no_final_newline", !err && g.n == 2 && g.vals[1] == 12);

	err = flat("", &g, &line);
	result("flat_empty", !err && g.n == 0);

	test_refused(mcs_parse_flat);
}

static void test_numa(void)
{
	struct got g;
	int line, err;

	err = numa("anon N0=4096 N1=8192\nfile N0=0 N1=1\n", &g, &line);
	result("numa_valid", !err && g.n == 4 && g.nids[1] == 1 &&
	       g.vals[1] == 8192 && !strcmp(g.keys[2], "file") && g.nids[2] == 0);

	test_refused(mcs_parse_numa);
}

static void test_value(void)
{
	unsigned long long v = 0;

	result("value_valid", !mcs_parse_value("123\n", 4, &v) && v == 123);
	result("value_no_newline", !mcs_parse_value("7", 1, &v) && v == 7);
	result("value_word_rejected", mcs_parse_value("max\n", 4, &v) == -EINVAL);
	result("value_empty", mcs_parse_value("\n", 1, &v) == -EINVAL);
	result("limit_max", !mcs_parse_limit("max\n", 4, &v) && v == MEMCGSTAT_MAX);
	result("limit_value", !mcs_parse_limit("16777216\n", 9, &v) && v == 16777216);
	result("limit_other_word_rejected", mcs_parse_limit("maxi\n", 5, &v) == -EINVAL);
	result("limit_sentinel_value_rejected",
	       mcs_parse_limit("18446744073709551614\n", 21, &v) == -EINVAL);
}

/* A real pressure file: 8 values, the totals as printed. */
static void psi_real(const char *path, const char *name)
{
	unsigned long long some, full;
	char buf[4096];
	struct got g;
	size_t len;
	int line, err;
	FILE *f = fopen(path, "r");

	if (!f) {
		printf("#%d user/%s:SKIP (%s: %s)\n", ++nr, name, path, strerror(errno));
		return;
	}
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	err = psi(buf, &g, &line);
	result(name, !err && g.n == 8 &&
	       sscanf(buf, "some avg10=%*s avg60=%*s avg300=%*s total=%llu\n"
			   "full avg10=%*s avg60=%*s avg300=%*s total=%llu", &some, &full) == 2 &&
	       !strcmp(g.keys[3], "some_total") && g.vals[3] == some &&
	       !strcmp(g.keys[7], "full_total") && g.vals[7] == full);
}

static void test_psi(void)
{
	struct got g;
	int line, err;

	err = psi("some avg10=1.23 avg60=0.05 avg300=100.00 total=123456\n"
		  "full avg10=0.00 avg60=0.00 avg300=0.00 total=7\n", &g, &line);
	result("psi_values", !err && g.n == 8 && !strcmp(g.keys[0], "some_avg10") &&
	       g.vals[0] == 123 && g.vals[1] == 5 && g.vals[2] == 10000 &&
	       !strcmp(g.keys[3], "some_total") && g.vals[3] == 123456 &&
	       !strcmp(g.keys[4], "full_avg10") && g.vals[4] == 0 &&
	       !strcmp(g.keys[7], "full_total") && g.vals[7] == 7);
	result("psi_one_decimal_rejected", psi("some avg10=1.2 total=1\n", &g, &line) == -EINVAL);
	result("psi_total_decimal_rejected", psi("some total=1.00\n", &g, &line) == -EINVAL);
	result("psi_empty_value_rejected", psi("some avg10= total=1\n", &g, &line) == -EINVAL);
	result("psi_bad_line_number",
	       psi("some avg10=0.00 total=1\nfull avg10=x total=1\n", &g, &line) == -EINVAL &&
	       line == 2);
	/* what this kernel prints: system-wide, and a cgroup v2 root's if mounted */
	psi_real("/proc/pressure/memory", "psi_real_proc_pressure_memory");
	psi_real(getenv("MEMCGSTAT_PSI_FILE") ?: "/sys/fs/cgroup/unified/memory.pressure",
		 "psi_real_cgroup_memory_pressure");
}

static void test_table(void)
{
	size_t i, j;
	int dup = 0, v1dup = 0, bad = 0, twins = 0, badtwin = 0;

	for (i = 0; i < mcs_nr_stat_defs; i++) {
		const struct mcs_stat_def *d = &mcs_stat_defs[i];

		/*
		 * a v1 twin follows its v2 row, v1 finds it and v2 the row; a
		 * file on v1 only
		 */
		if (d->v1_twin) {
			twins++;
			if (!i || strcmp(d[-1].name, d->name) || d[-1].v1_twin ||
			    mcs_stat_def_for(d->name, 1) != d || mcs_stat_def_for(d->name, 2) != d - 1 ||
			    d->file || !d->v1_file || d->unit != d[-1].unit)
				badtwin++;
			continue;
		}
		if (mcs_stat_def_find(d->name) != d || mcs_stat_def_for(d->name, 1) != d + (d + 1 < mcs_stat_defs + mcs_nr_stat_defs && d[1].v1_twin))
			dup++;
		if (d->v1_name && mcs_stat_def_find_v1(d->v1_name) != d)
			v1dup++;
		for (j = 0; j < MCS_MAX_PARTS; j++)
			if (d->parts[j] && strncmp(d->parts[j], "NR_", 3) &&
			    strncmp(d->parts[j], "MEMCG_", 6) &&
			    strncmp(d->parts[j], "WORKINGSET_", 11) &&
			    strncmp(d->parts[j], "PG", 2) &&
			    strncmp(d->parts[j], "THP_", 4) &&
			    strncmp(d->parts[j], "SWP", 3) &&
			    strncmp(d->parts[j], "ZSWP", 4) &&
			    strncmp(d->parts[j], "NUMA_", 5))
				bad++;
		/* each kernel counter has its enumerator; fields and files have none */
		if ((d->src == MCS_SRC_PAGE_STATE || d->src == MCS_SRC_VM_EVENT ||
		     d->src == MCS_SRC_MEMORY_EVENT || d->src == MCS_SRC_MEMORY_EVENT_LOCAL ||
		     d->src == MCS_SRC_WORKING_SET) && !d->parts[0])
			bad++;
	}
	result("table_names_unique", !dup);
	result("table_v1_twins", !badtwin && twins && mcs_nr_named_stats() == mcs_nr_stat_defs - twins);
	result("table_v1_names_unique", !v1dup);
	result("table_parts_are_enumerators", !bad);
	result("table_lookup_miss", !mcs_stat_def_find("nope") && !mcs_stat_def_find_v1("anon"));
}

static int count(const char *key, size_t keylen, int nid,
		 unsigned long long val, void *arg)
{
	(void)key;
	(void)keylen;
	(void)nid;
	(void)val;
	++*(int *)arg;
	return 0;
}

/* Every real file kept as a fuzzing seed parses, every line of it. */
static void test_real_files(const char *seeds, const char *kind, bool numa)
{
	char dir[512], path[1024], buf[65536], name[300];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/%s", seeds, kind);
	d = opendir(dir);
	if (!d) {
		result("real_files_present", 0);
		return;
	}
	while ((de = readdir(d))) {
		int n = 0, lines = 0, line = 0, err;
		size_t len, i;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "r");
		len = f ? fread(buf, 1, sizeof(buf), f) : 0;
		if (f)
			fclose(f);
		for (i = 0; i < len; i++)
			lines += buf[i] == '\n';
		err = numa ? mcs_parse_numa(buf, len, count, &n, &line) :
			     mcs_parse_flat(buf, len, count, &n, &line);
		snprintf(name, sizeof(name), "real_file_%s", de->d_name);
		/* numa_stat lines hold one value per node */
		result(name, len > 0 && !err && (numa ? n >= lines : n == lines));
	}
	closedir(d);
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

/*
 * mcs_vmlinux_kf_layout_ok() on raw BTF written here, read by the same
 * scanner as vmlinux: patch 6's enums, the same with a field moved or a
 * kind renumbered (bpf_memcgstat_read() must not be used), and a kernel
 * without the field enum (the layout memcg_items.h was written for).
 * 1 or 0, -1 if the BTF could not be made.
 */
static int layout_ok(int nid_shift, int usage, bool fields)
{
	static const char *const kinds[] = {
		"BPF_MEMCGSTAT_PAGE_STATE", "BPF_MEMCGSTAT_PAGE_STATE_LOCAL",
		"BPF_MEMCGSTAT_NODE_PAGE_STATE", "BPF_MEMCGSTAT_VM_EVENTS",
		"BPF_MEMCGSTAT_VM_EVENTS_LOCAL", "BPF_MEMCGSTAT_MEMORY_EVENTS",
	};
	char tmp[] = "/tmp/memcgstat-layout.XXXXXX";
	struct btf *btf = btf__new_empty();
	struct mcs_vmlinux *v = NULL;
	const void *raw;
	__u32 size, i;
	int fd = -1, ret = -1;

	if (!btf || btf__add_enum(btf, "bpf_memcgstat_kind", 4) < 0)
		goto out;
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (btf__add_enum_value(btf, kinds[i], i + 1))
			goto out;
	if (btf__add_enum_value(btf, "BPF_MEMCGSTAT_USAGE", usage))
		goto out;
	if (fields && (btf__add_enum(btf, "bpf_memcgstat_item_field", 4) < 0 ||
		       btf__add_enum_value(btf, "BPF_MEMCGSTAT_IDX_SHIFT", 0) ||
		       btf__add_enum_value(btf, "BPF_MEMCGSTAT_IDX_BITS", 16) ||
		       btf__add_enum_value(btf, "BPF_MEMCGSTAT_NID_SHIFT", nid_shift) ||
		       btf__add_enum_value(btf, "BPF_MEMCGSTAT_NID_BITS", 12) ||
		       btf__add_enum_value(btf, "BPF_MEMCGSTAT_KIND_SHIFT", 28) ||
		       btf__add_enum_value(btf, "BPF_MEMCGSTAT_KIND_BITS", 4)))
		goto out;
	raw = btf__raw_data(btf, &size);
	fd = mkstemp(tmp);
	if (!raw || fd < 0 || write(fd, raw, size) != (ssize_t)size ||
	    mcs_vmlinux_load_file(tmp, NULL, 0, true, &v))
		goto out;
	ret = mcs_vmlinux_kf_layout_ok(v);
out:
	mcs_vmlinux_free(v);
	if (fd >= 0) {
		close(fd);
		unlink(tmp);
	}
	btf__free(btf);
	return ret;
}

static void test_kf_layout(void)
{
	int same = layout_ok(16, 7, true), moved = layout_ok(17, 7, true);
	int renumbered = layout_ok(16, 8, true), older = layout_ok(16, 7, false);

	printf("  patch 6's layout %d, node field moved %d, usage renumbered %d, "
	       "no field enum %d\n", same, moved, renumbered, older);
	result("kf_item_layout", same == 1 && moved == 0 && renumbered == 0 && older == 1);
}

/*
 * A type larger than the chunk the file is read through (an enum of 9,000
 * enumerators, 72 KB; a DATASEC of many variables could be one), mapped
 * and read: found whole, with a function after it, either way.
 */
static void test_big_type(void)
{
	static const char *const fn[] = { "bpf_after_the_big_enum" };
	char tmp[] = "/tmp/memcgstat-big.XXXXXX", name[32];
	struct btf *btf = btf__new_empty();
	struct mcs_btf_name want[3] = {
		{ .name = "BIG_0" }, { .name = "BIG_8999" }, { .name = fn[0], .func = true },
	};
	int fd = -1, i, m, proto, ok = btf != NULL;
	const void *raw = NULL;
	__u32 size;

	ok = ok && btf__add_enum(btf, "vm_event_item", 4) > 0;
	for (i = 0; ok && i < 9000; i++) {
		snprintf(name, sizeof(name), "BIG_%d", i);
		ok = !btf__add_enum_value(btf, name, i * 3);
	}
	proto = ok ? btf__add_func_proto(btf, 0) : -1;
	ok = ok && proto > 0 && btf__add_func(btf, fn[0], BTF_FUNC_GLOBAL, proto) > 0;
	raw = ok ? btf__raw_data(btf, &size) : NULL;
	fd = raw ? mkstemp(tmp) : -1;
	ok = fd >= 0 && write(fd, raw, size) == (ssize_t)size;
	for (m = 0; ok && m < 2; m++) {
		struct mcs_vmlinux *v = NULL;
		int err = mcs_vmlinux_load_file(tmp, fn, 1, !m, &v);

		if (err) {
			printf("  %s: %d\n", m ? "read" : "mapped", err);
			ok = 0;
			continue;
		}
		mcs_vmlinux_lookup(v, want, 3);
		/* ids: 1 the enum, 2 the prototype, 3 the function */
		ok = want[0].found && want[0].val == 0 && want[1].found && want[1].val == 26997 &&
		     want[2].found && want[2].val == 3;
		if (!ok)
			printf("  %s: BIG_0 %d/%d, BIG_8999 %d/%d, function %d/%d\n", m ? "read" : "mapped",
			       want[0].found, want[0].val, want[1].found, want[1].val, want[2].found,
			       want[2].val);
		mcs_vmlinux_free(v);
	}
	printf("  BTF of %u bytes, its enum %u\n", raw ? size : 0, 9000 * 8 + 12);
	result("vmlinux_scan_big_type", ok);
	if (fd >= 0) {
		close(fd);
		unlink(tmp);
	}
	btf__free(btf);
}

/*
 * The library's one pass over raw vmlinux BTF (lib/vmlinux.c) against
 * libbpf's parse of the same file: every bpf_* function and every
 * enumerator of the stat table's enums found alike, with the same values
 * (a function's: the type id of the first of its name, which the library
 * gives the in-kernel loader for the kernel's lookup);
 * names that are in neither, not found; and each cut of the file refused
 * with -EPROTO, not read past.
 */
/*
 * The first @len bytes of @raw as the file @tmp (open at @fd): refused as
 * not BTF (-EPROTO), mapped and read, never read past its end.
 */
static bool btf_refused(int fd, const char *tmp, const char *raw, long len, const char **fnames,
		    size_t nr_fnames, const char *what)
{
	bool ok = true;
	int m, err;

	if (ftruncate(fd, 0) || pwrite(fd, raw, len, 0) != len)
		return false;
	for (m = 0; m < 2; m++) {
		struct mcs_vmlinux *w = NULL;

		err = mcs_vmlinux_load_file(tmp, fnames, nr_fnames, !m, &w);
		if (err != -EPROTO) {
			printf("  %s (%ld bytes), %s: %d, not -EPROTO\n", what, len,
			       m ? "read" : "mapped", err);
			ok = false;
		}
		mcs_vmlinux_free(w);
	}
	return ok;
}

static void test_vmlinux(void)
{
	const char *path = "/sys/kernel/btf/vmlinux";
	struct mcs_btf_name one[2] = {
		{ .name = "bpf_no_such_function_here", .func = true },
		{ .name = "NR_NO_SUCH_ENUMERATOR" },
	};
	size_t nr_names = 0, funcs = 0, enums = 0, bad = 0, i, cut;
	struct mcs_btf_name *want = NULL, *got = NULL;
	const char **fnames = NULL;
	size_t nr_fnames = 0;
	char tmp[] = "/tmp/memcgstat-btf.XXXXXX", *raw = NULL;
	struct mcs_vmlinux *v = NULL;
	/* struct btf_header's type_len and str_len, made longer */
	static const struct {
		int off, by;
		const char *what;
	} longer[] = {
		{ 12, 7, "type section 7 bytes into the strings" },
		{ 20, 1, "string section 1 byte past the end" },
	};
	bool mapped = false, read_mapped = true;
	void *map;
	int m;
	libbpf_print_fn_t old;
	struct btf *btf;
	__u32 id, n;
	long size;
	FILE *f;
	int fd, err, cuts_ok = 1;

	if (access(path, R_OK)) {
		printf("#%d user/vmlinux_scan:SKIP (no %s)\n", ++nr, path);
		return;
	}
	old = libbpf_set_print(quiet);
	btf = btf__load_vmlinux_btf();
	libbpf_set_print(old);
	if (!btf) {
		result("vmlinux_scan", 0);
		printf("  libbpf cannot parse %s\n", path);
		goto out;
	}
	n = btf__type_cnt(btf);
	want = calloc(n, sizeof(*want));
	got = calloc(n, sizeof(*got));
	fnames = calloc(n + 1, sizeof(*fnames));
	for (id = 1; want && got && id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name = btf__name_by_offset(btf, t->name_off);
		const struct btf_enum *e;
		__u16 j;

		if (btf_is_func(t) && !strncmp(name, "bpf_", 4)) {
			want[nr_names].name = name;
			/* the first of the name, as the kernel's lookup finds it */
			want[nr_names].val = btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);
			want[nr_names++].func = true;
			funcs++;
		}
		if (!btf_is_enum(t) || !mcs_wanted_enum(name))
			continue;
		for (j = 0, e = btf_enum(t); j < btf_vlen(t) && nr_names < n; j++, e++) {
			want[nr_names].name = btf__name_by_offset(btf, e->name_off);
			want[nr_names].val = e->val;
			want[nr_names++].found = true;	/* as libbpf has it */
			enums++;
		}
	}
	if (!want || !got || !fnames) {
		result("vmlinux_scan", 0);
		goto out;
	}
	/* every bpf_* function looked for, and one that is in no kernel */
	for (i = 0; i < nr_names; i++)
		if (want[i].func)
			fnames[nr_fnames++] = want[i].name;
	fnames[nr_fnames++] = one[0].name;
	/*
	 * Mapped where the kernel lets the file be (Linux 6.16 and later, 6.12
	 * with kernel/patches' backport), then read in chunks: the same answers
	 */
	for (m = 0; m < 2; m++) {
		const char *name = m ? "vmlinux_scan_read" : "vmlinux_scan";

		mcs_vmlinux_free(v);
		err = mcs_vmlinux_load_file(path, fnames, nr_fnames, !m, &v);
		if (err) {
			result(name, 0);
			printf("  the library's scan: %d\n", err);
			goto out;
		}
		for (i = 0; i < nr_names; i++) {
			got[i].name = want[i].name;
			got[i].func = want[i].func;
		}
		mcs_vmlinux_lookup(v, got, nr_names);
		for (i = 0, bad = 0; i < nr_names; i++) {
			if (got[i].found && got[i].val == want[i].val)
				continue;
			if (bad++ < 5)
				printf("  %s %s: found %d, value %d, libbpf's %d\n",
				       want[i].func ? "function" : "enumerator", want[i].name,
				       got[i].found, got[i].val, want[i].val);
		}
		one[0].found = one[1].found = false;
		mcs_vmlinux_lookup(v, one, 2);
		result(name, !bad && funcs > 100 && enums > 100 && !one[0].found && !one[1].found);
		printf("  %zu bpf_* functions, %zu enumerators of the stat table's enums, %s\n",
		       funcs, enums, mcs_vmlinux_mapped(v) ? "mapped" : "read");
		if (!m)
			mapped = mcs_vmlinux_mapped(v);
		else
			read_mapped = mcs_vmlinux_mapped(v);
	}
	/* the mapping taken exactly where this kernel allows one */
	fd = open(path, O_RDONLY);
	map = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	result("vmlinux_scan_maps_where_it_can", mapped == (map != MAP_FAILED) && !read_mapped);
	printf("  this kernel %s /sys/kernel/btf/vmlinux be mapped\n",
	       map != MAP_FAILED ? "lets" : "does not let");
	if (map != MAP_FAILED)
		munmap(map, 4096);
	if (fd >= 0)
		close(fd);

	/* the file cut short, at a few places: refused, never read past */
	f = fopen(path, "r");
	raw = malloc(8 << 20);
	size = f && raw ? (long)fread(raw, 1, 8 << 20, f) : 0;
	if (f)
		fclose(f);
	fd = mkstemp(tmp);
	/* a file cut short at a few places, then whole but with a section past its end */
	for (cut = 1; size > 0 && fd >= 0 && cut < 8; cut++)
		cuts_ok &= btf_refused(fd, tmp, raw, cut == 1 ? 10 : size / 8 * (cut - 1) + 3,
				   fnames, nr_fnames, "cut short");
	for (i = 0; size > 24 && fd >= 0 && i < sizeof(longer) / sizeof(longer[0]); i++) {
		__u32 len;

		memcpy(&len, raw + longer[i].off, 4);
		len += longer[i].by;
		memcpy(raw + longer[i].off, &len, 4);
		cuts_ok &= btf_refused(fd, tmp, raw, size, fnames, nr_fnames, longer[i].what);
		len -= longer[i].by;
		memcpy(raw + longer[i].off, &len, 4);
	}
	result("vmlinux_scan_cut_file", size > 0 && fd >= 0 && cuts_ok);
	if (fd >= 0) {
		close(fd);
		unlink(tmp);
	}
out:
	free(raw);
	free(fnames);
	free(want);
	free(got);
	mcs_vmlinux_free(v);
	btf__free(btf);
}

/* @fd's translated instructions, map ids left out; NULL if it cannot say. */
static struct bpf_insn *xlated(int fd, size_t *nr)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), i;
	struct bpf_insn *insn;

	if (bpf_obj_get_info_by_fd(fd, &info, &len) || !info.xlated_prog_len)
		return NULL;
	*nr = info.xlated_prog_len / sizeof(*insn);
	insn = calloc(*nr, sizeof(*insn));
	len = info.xlated_prog_len;
	memset(&info, 0, sizeof(info));
	info.xlated_prog_len = len;
	info.xlated_prog_insns = (__u64)(unsigned long)insn;
	len = sizeof(info);
	if (!insn || bpf_obj_get_info_by_fd(fd, &info, &len)) {
		free(insn);
		return NULL;
	}
	for (i = 0; i < *nr; i++)	/* each load made a data map of its own */
		if (insn[i].code == (BPF_LD | BPF_DW | BPF_IMM) && insn[i].src_reg)
			insn[i].imm = 0;
	return insn;
}

/*
 * The in-kernel loader of the library's programs as the bpf backend makes
 * it (snapshot_fast and batch_fast), its kfunc lookups answered with this
 * kernel's vmlinux BTF ids (lib/loader.c): folded by mcs_fold_known(), it
 * is the very program this kernel's verifier makes of it unfolded. Both
 * loaded here, not run, and their translations compared instruction by
 * instruction; the folded one came shorter by what the verifier dropped.
 */
static void test_loader_fold(void)
{
	LIBBPF_OPTS(gen_loader_opts, gen);
	size_t nr_names;
	const char *const *names = memcgstat__testing_func_names(&nr_names);
	int *ids = calloc(nr_names, sizeof(*ids)), fd[2] = { -1, -1 }, map_fd[2] = { -1, -1 }, k;
	size_t n, folded, answered, nx[2] = {}, *sites = NULL, i;
	struct bpf_insn *insn[2] = {}, *x[2] = {};
	struct memcg_iter *sk = NULL;
	struct btf *vm = NULL;
	struct bpf_program *p;
	libbpf_print_fn_t old = libbpf_set_print(NULL);
	bool ok = false;

	vm = btf__load_vmlinux_btf();
	sk = memcg_iter__open();
	if (!vm || !sk || !ids) {
		printf("#%d user/loader_fold:SKIP (no vmlinux BTF or object: %s)\n", ++nr,
		       strerror(errno));
		goto out;
	}
	bpf_object__for_each_program(p, sk->obj)
		bpf_program__set_autoload(p, p == sk->progs.snapshot_fast || p == sk->progs.batch_fast);
	/* what the library looks up (bpf_backend.c's func_names), by their ids here */
	for (i = 0; i < nr_names; i++) {
		k = btf__find_by_name_kind(vm, names[i], BTF_KIND_FUNC);
		ids[i] = k > 0 ? k : 0;
	}
	if (bpf_object__gen_loader(sk->obj, &gen) || bpf_object__load(sk->obj)) {
		printf("#%d user/loader_fold:FAIL (no loader generated: %s)\n", ++nr, strerror(errno));
		failed++;
		goto out;
	}
	n = gen.insns_sz / sizeof(struct bpf_insn);
	insn[0] = malloc(gen.insns_sz);
	insn[1] = malloc(gen.insns_sz);
	sites = malloc((n / 6 + 1) * sizeof(*sites));
	if (!insn[0] || !insn[1] || !sites)
		goto out;
	memcpy(insn[0], gen.insns, gen.insns_sz);
	answered = mcs_loader_answer(insn[0], n, gen.data, gen.data_sz, names, ids, nr_names,
				     sites);
	memcpy(insn[1], insn[0], gen.insns_sz);
	folded = mcs_fold_known(insn[1], n, sites, answered);
	for (k = 0; k < 2; k++) {
		struct gen_loader_opts g = gen;

		g.insns = (const char *)insn[k];
		g.insns_sz = (k ? folded : n) * sizeof(struct bpf_insn);
		fd[k] = mcs_loader_prog(&g, &map_fd[k]);
		if (fd[k] < 0) {
			printf("#%d user/loader_fold:SKIP (the loader does not load here: %s)\n", ++nr,
			       strerror(-fd[k]));
			goto out;
		}
		x[k] = xlated(fd[k], &nx[k]);
	}
	ok = answered > 0 && folded < n && x[0] && x[1] && nx[0] == nx[1] &&
	     !memcmp(x[0], x[1], nx[0] * sizeof(*x[0]));
	printf("  %zu lookups answered (%zu names); %zu instructions, %zu folded away; "
	       "translated: %zu and %zu\n", answered, nr_names, n, n - folded, nx[0], nx[1]);
	for (i = 0; !ok && x[0] && x[1] && i < nx[0] && i < nx[1]; i++)
		if (memcmp(&x[0][i], &x[1][i], sizeof(x[0][i]))) {
			printf("  first difference at %zu: %02x/%d/%d/%d/%d against %02x/%d/%d/%d/%d\n",
			       i, x[0][i].code, x[0][i].dst_reg, x[0][i].src_reg, x[0][i].off,
			       x[0][i].imm, x[1][i].code, x[1][i].dst_reg, x[1][i].src_reg,
			       x[1][i].off, x[1][i].imm);
			break;
		}
	result("loader_fold", ok);
out:
	for (k = 0; k < 2; k++) {
		if (fd[k] >= 0)
			close(fd[k]);
		if (map_fd[k] >= 0)
			close(map_fd[k]);
		free(insn[k]);
		free(x[k]);
	}
	free(sites);
	free(ids);
	memcg_iter__destroy(sk);
	btf__free(vm);
	libbpf_set_print(old);
}

/*
 * A first snapshot's pass (mcs_path_add_walk()) reads names and copies
 * paths a word at a time, up to 7 bytes past each string. Here its first
 * path ends exactly at the end of the pool's newest chunk, and 1 to 24
 * bytes short of it, and the next record is that path's child (its
 * parent's last word is read there); then names of 1 to 110 bytes, each
 * with a child, in the bytes of a names map's record with the bytes after
 * the NUL set. Every path must be exact, found again by id, and under
 * ASan (test_text_asan) no byte read or written outside the pool's
 * allocations: with the chunks' slack taken away it reports one.
 */
static void test_path_walk(void)
{
	enum { KIDS = 110, N = 3 + 2 * KIDS };
	static struct mcs_name names[N];
	static uint64_t ids[N];
	const char *paths[N];
	char want[N][3 * MCS_NAME_LEN];
	struct mcs_walk_layout l = {
		.ids = ids, .ids_stride = sizeof(ids[0]),
		.names = names, .names_stride = sizeof(names[0]),
		.level_off = offsetof(struct mcs_name, level),
		.name_off = offsetof(struct mcs_name, name),
		.name_size = sizeof(names[0].name),
	};
	char bad[256] = "";
	size_t i, k, len;
	int err;

	for (k = 0; k <= 24 && !bad[0]; k++) {
		struct memcgstat *h = calloc(1, sizeof(*h));
		struct mcs_chunk *c;
		const char *top;

		if (!h) {
			snprintf(bad, sizeof(bad), "out of memory");
			break;
		}
		/* the walk's top, cached as "/t"; then k bytes left in its chunk */
		top = mcs_path_add(h, 1, "", 0, "t", &len, &err);
		c = h->path_pool ? h->path_pool->chunks : NULL;
		if (!top || !c || c->cap - c->used < k + 1 ||
		    !mcs_strpool_alloc(h->path_pool, c->cap - c->used - k - 1) ||
		    c->cap - c->used != k) {
			snprintf(bad, sizeof(bad), "room %zu: no pool to fill", k);
			mcs_free_paths(h);
			free(h);
			break;
		}
		/* records: the top; a child and its child of 1 byte; then names of 1-110 bytes */
		for (i = 0; i < N; i++) {
			size_t nl = i < 3 ? 1 : (i - 3) / 2 + 1;
			struct mcs_name *n = &names[i];

			memset(n, 0xa5, sizeof(*n));
			ids[i] = i + 1;
			n->level = i == 0 ? 7 : i == 2 || (i > 2 && i % 2 == 0) ? 9 : 8;
			memset(n->name, i % 2 ? 'a' + i % 26 : 'A' + i % 26, nl);
			n->name[nl] = '\0';
			if (!i)
				snprintf(want[i], sizeof(want[i]), "/t");
			else if (n->level == 8)
				snprintf(want[i], sizeof(want[i]), "/t/%s", n->name);
			else {
				len = strlen(want[i - 1]);
				memcpy(want[i], want[i - 1], len);
				snprintf(want[i] + len, sizeof(want[i]) - len, "/%s", n->name);
			}
		}
		err = mcs_path_add_walk(h, N, &l, paths);
		for (i = 0; i < N && !bad[0]; i++) {
			const char *again = mcs_path_find(h, ids[i]);

			if (err || !paths[i] || strcmp(paths[i], want[i]) || !again ||
			    strcmp(again, want[i]))
				snprintf(bad, sizeof(bad), "room %zu, record %zu: err %d, %.40s, again %.40s, want %.40s",
					 k, i, err, paths[i] ? paths[i] : "(null)",
					 again ? again : "(null)", want[i]);
		}
		if (!bad[0] && memcgstat__testing_nr_paths(h) != N)
			snprintf(bad, sizeof(bad), "room %zu: %zu paths cached, want %d", k,
				 memcgstat__testing_nr_paths(h), N);
		mcs_free_paths(h);
		free(h);
	}
	result("path_walk_words", !bad[0]);
	if (bad[0])
		printf("  %s\n", bad);
}

int main(int argc, char **argv)
{
	test_flat();
	test_numa();
	test_value();
	test_psi();
	test_table();
	test_vmlinux();
	test_big_type();
	test_kf_layout();
	test_loader_fold();
	test_path_walk();
	if (argc > 1) {
		test_real_files(argv[1], "flat", false);
		test_real_files(argv[1], "numa", true);
	}
	return failed ? 1 : 0;
}
