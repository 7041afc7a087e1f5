// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/klog.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "memcg_util.h"
#include "testing.h"
#include "memcg_items.skel.h"
#include "test_progs.h"

bool cg_is_v2(void)
{
	struct statfs sfs;

	return !statfs("/sys/fs/cgroup", &sfs) && sfs.f_type == CGROUP2_SUPER_MAGIC;
}

const char *cg_root(void)
{
	return cg_is_v2() ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory";
}

char *cg_create(const char *parent, const char *name)
{
	char *path;

	if (asprintf(&path, "%s/%s", parent ? parent : cg_root(), name) < 0)
		return NULL;
	if (mkdir(path, 0755) && errno != EEXIST) {
		free(path);
		return NULL;
	}
	return path;
}

char *cg_create_own(const char *what)
{
	char name[64];

	snprintf(name, sizeof(name), "memcgstat_%s_%d", what, getpid());
	return cg_create(NULL, name);
}

int cg_create_tree(const char *name, const char *kid, int nr, char **top, char **kids)
{
	char kname[64];
	int i;

	*top = cg_create(NULL, name);
	if (!*top || (cg_is_v2() && cg_write(*top, "cgroup.subtree_control", "+memory")))
		return -1;
	for (i = 0; i < nr; i++) {
		snprintf(kname, sizeof(kname), "%s%d", kid, i);
		kids[i] = cg_create(*top, kname);
		if (!kids[i])
			return -1;
	}
	return 0;
}

int cg_write(const char *path, const char *file, const char *val)
{
	char name[PATH_MAX];
	ssize_t len = strlen(val);
	int fd, err = 0;

	snprintf(name, sizeof(name), "%s/%s", path, file);
	fd = open(name, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, val, len) != len)
		err = -errno;
	close(fd);
	return err;
}

char *cg_read(const char *path, const char *file)
{
	char name[PATH_MAX];
	size_t size = 65536, len = 0;
	char *buf = malloc(size);
	ssize_t n;
	int fd;

	snprintf(name, sizeof(name), "%s/%s", path, file);
	fd = open(name, O_RDONLY);
	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((n = read(fd, buf + len, size - len - 1)) > 0)
		len += n;
	close(fd);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

uint64_t id_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : st.st_ino;
}

static void kill_procs(const char *path)
{
	char *procs = cg_read(path, "cgroup.procs"), *s, *end;

	for (s = procs; s && *s; s = end) {
		pid_t pid = strtol(s, &end, 10);

		if (end == s)
			break;
		kill(pid, SIGKILL);
		while (*end == '\n')
			end++;
	}
	free(procs);
}

int cg_destroy(const char *path)
{
	char sub[PATH_MAX];
	struct dirent *de;
	int i, err = 0;
	DIR *dir;

	dir = opendir(path);
	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(dir))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		cg_destroy(sub);
	}
	closedir(dir);

	/* Processes take a moment to leave after SIGKILL. */
	for (i = 0; i < 1000; i++) {
		kill_procs(path);
		if (!rmdir(path) || errno == ENOENT)
			return 0;
		err = -errno;
		if (errno != EBUSY)
			break;
		usleep(1000);
	}
	return err;
}

int cg_run(const char *path, int (*fn)(void *), void *arg,
	   struct cg_child *child)
{
	int up[2];
	char c = 0;
	pid_t pid;

	if (pipe(up))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		char buf[32];
		int ret;

		close(up[0]);
		snprintf(buf, sizeof(buf), "%d", getpid());
		ret = cg_write(path, "cgroup.procs", buf);
		if (!ret)
			ret = fn(arg);
		c = ret ? 1 : 0;
		if (write(up[1], &c, 1) != 1)
			_exit(2);
		close(up[1]);
		/* Stay, holding what fn charged, until cg_child_finish(). */
		for (;;)
			pause();
	}
	close(up[1]);
	child->pid = pid;
	if (read(up[0], &c, 1) != 1)
		c = 2;	/* died before reporting: killed, e.g. by the OOM killer */
	close(up[0]);
	return c == 2 ? -ECHILD : c ? -EIO : 0;
}

int cg_child_finish(struct cg_child *child)
{
	int status = -1;

	if (child->pid <= 0)
		return -1;
	kill(child->pid, SIGKILL);
	waitpid(child->pid, &status, 0);
	child->pid = 0;
	return status;
}

struct kv_fill {
	struct kv *kv;
	int n, max;
};

/* memory.numa_stat keys become "name:nid" */
static int kv_add(const char *key, size_t keylen, int nid,
		  unsigned long long val, void *arg)
{
	struct kv_fill *f = arg;
	struct kv *kv = &f->kv[f->n];

	if (f->n >= f->max || keylen >= sizeof(kv->key) - 8)
		return -E2BIG;
	/* kv_same() compares whole entries: no bytes of an earlier key */
	memset(kv, 0, sizeof(*kv));
	memcpy(kv->key, key, keylen);
	kv->key[keylen] = '\0';
	if (nid >= 0)
		snprintf(kv->key + keylen, sizeof(kv->key) - keylen, ":%d", nid);
	kv->val = val;
	f->n++;
	return 0;
}

int kv_parse(const char *text, struct kv *kv, int max)
{
	struct kv_fill f = { kv, 0, max };
	int err = mcs_parse_flat(text, strlen(text), kv_add, &f, NULL);

	return err ? err : f.n;
}

static struct memcg_items *the_skel;
static struct btf *the_btf;

struct memcg_items *items_open(void)
{
	if (!the_skel)
		the_skel = memcg_items__open_and_load();
	return the_skel;
}

char *items_setup(struct memcg_items **skel, const char *what)
{
	char *cg;

	*skel = items_open();
	if (!ASSERT_OK_PTR(*skel, "items_open"))
		return NULL;
	cg = cg_create_own(what);
	if (!ASSERT_OK_PTR(cg, "cg_create"))
		return NULL;
	return cg;
}

const struct btf *items_btf(void)
{
	if (!the_btf)
		the_btf = btf__load_vmlinux_btf();
	return the_btf;
}

int enum_val(const char *name)
{
	const struct btf *btf = items_btf();
	int val = -1;

	if (!btf || mcs_btf_enum_value(btf, name, &val))
		PRINT_FAIL("kernel has no enumerator %s\n", name);
	return val;
}

unsigned long items_kf_checked;

/*
 * @it for bpf_memcgstat_read(); an item whose fields do not fit the
 * encoding as a kind the kfunc does not know (it reads -1: so must the
 * per-item kfunc, for such an index or node is out of range for every one).
 */
__u32 items_kf_encode(const struct mcs_item *it)
{
	if (it->kind < MCS_PAGE_STATE || it->kind > MCS_USAGE ||
	    it->idx < 0 || it->idx > MCS_KF_IDX_MAX || it->nid < 0 || it->nid > MCS_KF_NID_MAX)
		return MCS_KF_ITEM(0, 0, 0);
	return MCS_KF_ITEM(it->kind, it->nid, it->idx);
}

/*
 * Where the kernel has bpf_memcgstat_read(), read_one read @n items with it
 * too: each value must equal the per-item kfunc's. -EAGAIN if one differs
 * (the caller may read again: a periodic flush may have run in between).
 */
static int items_kf_check(struct memcg_items *skel, const struct mcs_item *items, int n)
{
	int i, bad = 0;

	if (!skel->bss->kf_exists)
		return 0;
	if (skel->bss->kf_ret != n) {
		PRINT_FAIL("bpf_memcgstat_read: returned %d for %d items\n", skel->bss->kf_ret, n);
		return -EIO;
	}
	for (i = 0; i < n; i++) {
		bool known = items[i].kind >= MCS_PAGE_STATE && items[i].kind <= MCS_USAGE;
		__u64 want = known ? skel->bss->values[i] : MCS_INVALID;

		if (skel->bss->kf_values[i] == want)
			continue;
		if (bad++ < 4 || env_verbose)
			printf("  item %d (kind %u idx %d nid %d): bpf_memcgstat_read %llu, per-item kfunc %llu\n",
			       i, items[i].kind, items[i].idx, items[i].nid,
			       (unsigned long long)skel->bss->kf_values[i], (unsigned long long)want);
	}
	if (bad)
		return -EAGAIN;
	items_kf_checked += n;
	return 0;
}

int items_run(struct memcg_items *skel, const char *path,
	      const struct mcs_item *items, int n, __u64 *values)
{
	int err, i;

	if (n > MCS_MAX_ITEMS)
		return -E2BIG;
	memcpy(skel->bss->items, items, n * sizeof(*items));
	skel->bss->nr_items = n;
	skel->bss->no_memcg = 0;
	memset(skel->bss->values, 0xaa, sizeof(skel->bss->values));
	for (i = 0; i < n; i++)
		skel->bss->kf_items[i] = items_kf_encode(&items[i]);
	skel->bss->nr_kf_items = n;
	skel->bss->kf_ret = -1;
	memset(skel->bss->kf_values, 0xaa, sizeof(skel->bss->kf_values));

	err = cg_iter_run(skel->progs.read_one, path, BPF_CGROUP_ITER_SELF_ONLY);
	if (!err && skel->bss->no_memcg)
		err = -ENODATA;
	if (!err)
		err = items_kf_check(skel, items, n);
	if (!err)
		memcpy(values, skel->bss->values, n * sizeof(*values));
	return err;
}

int touch_anon(void *mib)
{
	size_t len = (size_t)(unsigned long)mib << 20;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -errno;
	memset(p, 1, len);
	return 0;	/* kept mapped: the child stays until told to exit */
}

int touch_memfd(void *mib)
{
	size_t len = (size_t)(unsigned long)mib << 20;
	int fd = memfd_create("memcgstat", 0);
	char *p;

	if (fd < 0 || ftruncate(fd, len))
		return -errno;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	memset(p, 2, len);
	munmap(p, len);
	return 0;	/* fd kept open: the pages stay */
}

unsigned long long kv_get(const char *text, const char *key)
{
	struct kv kv[KV_MAX];
	int i, n = kv_parse(text, kv, KV_MAX);

	for (i = 0; i < n; i++)
		if (!strcmp(kv[i].key, key))
			return kv[i].val;
	return -1ULL;
}

static const char *view_file(enum view view)
{
	switch (view) {
	case VIEW_STAT:
	case VIEW_V1_STAT:
		return "memory.stat";
	case VIEW_EVENTS:
		return "memory.events";
	case VIEW_NUMA:
		return "memory.numa_stat";
	case VIEW_USAGE:
		return cg_is_v2() ? "memory.current" : "memory.usage_in_bytes";
	}
	return NULL;
}

static int numa_parse(const char *text, struct kv *kv, int max)
{
	struct kv_fill f = { kv, 0, max };
	int err = mcs_parse_numa(text, strlen(text), kv_add, &f, NULL);

	return err ? err : f.n;
}

static int view_parse(enum view view, const char *text, struct kv *kv)
{
	if (view == VIEW_NUMA)
		return numa_parse(text, kv, KV_MAX);
	if (view == VIEW_USAGE) {
		strcpy(kv[0].key, "usage");
		return mcs_parse_value(text, strlen(text), &kv[0].val) ? -EINVAL : 1;
	}
	return kv_parse(text, kv, KV_MAX);
}

struct cmp_key {
	int first, nparts;	/* items[first .. first + nparts) are summed */
};

/* Items for one text key; 0 to skip the key, <0 on failure. */
static int key_items(enum view view, const char *key, struct mcs_item *items,
		     int *nr, struct cmp_key *ck)
{
	const struct mcs_stat_def *def;
	bool local = false;
	int nid = 0, kind, i;
	char name[64];

	ck->first = ck->nparts = 0;	/* a key skipped sums nothing */
	memcpy(name, key, strnlen(key, sizeof(name) - 1));
	name[strnlen(key, sizeof(name) - 1)] = '\0';
	switch (view) {
	case VIEW_V1_STAT:
		if (!strncmp(name, "hierarchical_", 13))
			return 0;	/* limits, not counters */
		if (!strncmp(name, "total_", 6))
			def = mcs_stat_def_find_v1(name + 6);
		else {
			def = mcs_stat_def_find_v1(name);
			local = true;
		}
		break;
	case VIEW_EVENTS:
		/* "max" in memory.events is the stat events_max */
		def = mcs_stat_def_find_key("memory.events", name);
		break;
	case VIEW_NUMA:
		*strchr(name, ':') = '\0';
		nid = atoi(strchr(key, ':') + 1);
		/* fall through */
	default:
		def = mcs_stat_def_find(name);
		break;
	}
	if (!def) {
		PRINT_FAIL("%s key '%s' has no entry in the stat table\n",
			   view_file(view), key);
		return -ENOENT;
	}
	switch (def->src) {
	case MCS_SRC_PAGE_STATE:
		kind = view == VIEW_NUMA ? MCS_NODE_PAGE_STATE :
		       local ? MCS_PAGE_STATE_LOCAL : MCS_PAGE_STATE;
		break;
	case MCS_SRC_VM_EVENT:
		kind = local ? MCS_VM_EVENTS_LOCAL : MCS_VM_EVENTS;
		break;
	case MCS_SRC_MEMORY_EVENT:
		kind = MCS_MEMORY_EVENTS;
		break;
	default:
		kind = MCS_USAGE;
		break;
	}
	ck->first = *nr;
	ck->nparts = 0;
	for (i = 0; i < MCS_MAX_PARTS && (def->parts[i] || !i); i++) {
		struct mcs_item *it = &items[*nr];

		if (*nr >= MCS_MAX_ITEMS)
			return -E2BIG;
		memset(it, 0, sizeof(*it));
		it->kind = kind;
		it->nid = nid;
		it->idx = def->parts[i] ? enum_val(def->parts[i]) : 0;
		(*nr)++;
		ck->nparts++;
		if (!def->parts[i])
			break;
	}
	return 1;
}

static bool kv_same(const struct kv *a, int na, const struct kv *b, int nb)
{
	return na == nb && !memcmp(a, b, na * sizeof(*a));
}

int check_view(const char *path, enum view view, char **text_out)
{
	static struct kv t1[KV_MAX], t2[KV_MAX];
	struct mcs_item items[MCS_MAX_ITEMS];
	struct cmp_key ck[KV_MAX];
	__u64 values[MCS_MAX_ITEMS];
	struct memcg_items *skel = items_open();
	int n1, n2, nr, i, try, bad = 0, err;
	char *text = NULL, *text2 = NULL;

	if (!ASSERT_OK_PTR(skel, "memcg_items__open_and_load"))
		return 0;
	for (try = 0; try < 20; try++) {
		free(text);
		free(text2);
		text2 = NULL;
		text = cg_read(path, view_file(view));
		if (!ASSERT_OK_PTR(text, view_file(view)))
			return 0;
		n1 = view_parse(view, text, t1);
		if (!ASSERT_GT(n1, 0, "parse text"))
			goto fail;
		for (i = nr = 0; i < n1; i++) {
			if (key_items(view, t1[i].key, items, &nr, &ck[i]) < 0)
				goto fail;
		}
		err = items_run(skel, path, items, nr, values);
		if (err == -EAGAIN && try < 19)
			continue;	/* bpf_memcgstat_read() and the kfuncs differ: again */
		if (err == -EAGAIN) {
			PRINT_FAIL("%s %s: bpf_memcgstat_read() and the per-item kfuncs differ (above)\n",
				   path, view_file(view));
			goto fail;
		}
		if (!ASSERT_OK(err, "items_run"))
			goto fail;
		text2 = cg_read(path, view_file(view));
		if (!ASSERT_OK_PTR(text2, view_file(view)))
			goto fail;
		n2 = view_parse(view, text2, t2);
		if (!kv_same(t1, n1, t2, n2))
			continue;	/* changed while we read: again */

		bad = 0;
		for (i = 0; i < n1; i++) {
			unsigned long long sum = 0;
			int p;

			if (!ck[i].nparts)
				continue;
			for (p = 0; p < ck[i].nparts; p++)
				sum += values[ck[i].first + p];
			if (sum != t1[i].val) {
				bad++;
				if (try == 19 || env_verbose)
					printf("  %s %s: kfunc %llu != text %llu\n",
					       path, t1[i].key, sum, t1[i].val);
			}
		}
		if (!bad) {
			if (env_verbose) {
				printf("  %s/%s: %d counters, kfunc == text\n",
				       path, view_file(view), n1);
				for (i = 0; i < n1; i++)
					printf("    %-28s %llu\n", t1[i].key, t1[i].val);
			}
			if (text_out)
				*text_out = text;
			else
				free(text);
			free(text2);
			return n1;
		}
		usleep(10000);
	}
	PRINT_FAIL("%s %s: %d counters differ from the kfuncs, or the file never held still\n",
		   path, view_file(view), bad);
fail:
	free(text);
	free(text2);
	return 0;
}

char *kernel_log(void)
{
	int size = klogctl(10, NULL, 0);	/* SYSLOG_ACTION_SIZE_BUFFER */
	char *buf;
	int n;

	if (size <= 0)
		return NULL;
	buf = calloc(1, size + 1);
	n = buf ? klogctl(3, buf, size) : -1;	/* SYSLOG_ACTION_READ_ALL */
	if (n < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct memcgstat *lib_open(enum memcgstat_backend backend, enum memcgstat_query query,
			   const char *const *stats, size_t nr)
{
	struct memcgstat_opts opts = {
		.sz = sizeof(opts), .backend = backend, .query = query,
		.stats = stats, .nr_stats = nr,
	};
	struct memcgstat *h;

	if (memcgstat_open(&opts, &h)) {
		PRINT_FAIL("memcgstat_open: %s\n", memcgstat_errmsg(h));
		memcgstat_close(h);
		return NULL;
	}
	return h;
}
