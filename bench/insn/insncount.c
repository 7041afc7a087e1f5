// SPDX-License-Identifier: GPL-2.0
/*
 * insncount: a QEMU (7.2, TCG) plugin that counts the guest instructions a
 * benchmark executes between two marker instructions: a deterministic cost
 * model that needs no PMU and no timer.
 *
 * Build (gcc, no QEMU headers needed: the few API declarations we use are
 * below, for plugin API version 1 as QEMU 7.2 has it):
 *
 *   make -C bench/insn                 # -> build/insn/insncount.so
 *
 * Run (system emulation, TCG, ONE vCPU):
 *
 *   qemu-system-x86_64 -accel tcg -smp 1 ... \
 *     -plugin build/insn/insncount.so,outfile=/tmp/insn.txt[,profile=on]
 *
 * or selftests/vmtest.sh -I, which boots the project's test VM with the
 * plugin (and forces TCG and 1 vCPU; -P adds plugin arguments):
 *
 *   selftests/vmtest.sh -I /tmp/insn.txt -- build/insn/selftest
 *   cat /tmp/insn.txt
 *
 * Plugin arguments (name=value, comma separated after the file name):
 *   outfile=PATH     where the results go at exit (default: qemu_plugin_outs,
 *                    i.e. QEMU's log: add -d plugin [-D FILE])
 *   profile=on|off   also count, between markers, the instructions of every
 *                    translation block by its guest virtual start address
 *   profile_top=N    write the N hottest addresses (default 200, 0: all)
 *   profile_id=ID    profile only while marker ID is open (default: any)
 *
 * Marker encoding (guest side: marker.h). A marker is two 8-byte NOPs of the
 * "nopl disp32(base,index,scale)" form (0F 1F /0, ModRM 0x84, a SIB byte and
 * a 32-bit displacement). NOPs never access memory, so the address is never
 * computed and the pair is harmless on real hardware; compilers pad with
 * displacement 0 only, so the magic values below do not occur in normal code.
 *
 *   head:  0F 1F 84 00 <magic le32>   nopl MAGIC(%rax,%rax,1)
 *          magic 0x4d435342 "BSCM" = BEGIN, 0x4d435345 "ESCM" = END
 *   tail:  0F 1F 84 40 <id le32>      nopl ID(%rax,%rax,2), right after head
 *
 * The marker takes effect at its tail: the head's callback leaves its kind
 * pending, the tail's completes it. Normally both are in one translation
 * block; a block can end after the head (size or TCG op limits, an
 * instruction that ends the block, as the self-test forces with a load of
 * SS, or a tail that crosses a page boundary: QEMU then drops the tail,
 * which the plugin was already shown, from the block), and the tail, first
 * in the next block, completes it the same way ("split" in the summary).
 *
 * What is counted: every instruction the vCPU executes, kernel and user, of
 * every guest context, through an inline 64-bit add before each instruction.
 * For marker id X, a pair BEGIN(X) .. END(X) adds to X the instructions
 * executed strictly between the two markers: the markers' own four NOPs are
 * not counted, so an empty pair counts 0. Output, one line per id, by id:
 *
 *   insn id=<id> pairs=<n> total=<insns> min=<insns> max=<insns>
 *
 * (min and max: of a single pair) and one summary line
 *
 *   insn-summary vcpu_insns=<all> markers=<n> split=<n> unmatched_end=<n>
 *                rebegin=<n> open=<n>
 *
 * and with profile=on, "prof total=<insns> tbs=<n>" then one line per
 * address, hottest first: "prof addr=0x<vaddr> insns=<n>" (each block's
 * instructions by exact counter differences between consecutive blocks;
 * bench/insn/symbolize.py maps them to kernel and user symbols).
 *
 * Known limits:
 *   - 1 vCPU only (the plugin refuses more): counters are plain globals.
 *   - Everything the vCPU runs between markers counts: interrupts (the
 *     timer tick, virtio completions), softirqs, other tasks and kernel
 *     threads scheduled in between, page faults. Under TCG without -icount,
 *     interrupts arrive by host time, so long regions vary by a few
 *     thousand instructions per tick (HZ); per-pair min is the clean value.
 *   - An instruction that faults and is restarted counts once per attempt
 *     (and the fault handler's instructions count: a first store to a
 *     fresh anonymous page costs about 6200 on the project's kernel); a
 *     REP string instruction counts once per iteration (TCG re-executes
 *     it: rep movsb of 1000 bytes counts 1000); idle time counts nothing.
 *   - The marker id is a compile-time constant (an immediate in the code).
 *   - Profile addresses are virtual: user code of different processes at
 *     the same address is merged; build user programs non-PIE (or without
 *     ASLR) to symbolize them.
 *   - Only tried without -icount, and with QEMU 7.2's plugin API (version
 *     1); later QEMUs raised the API version and reworked inline ops
 *     (per-vCPU scoreboards): check the declarations below before porting.
 *
 * Cost (2-core host, QEMU 7.2): the test VM's boot and run take about 1.3x
 * the time without the plugin; syscall-heavy guest code about 1.25x, tight
 * user loops about 2x; profile=on about 1.5x on the syscall loop.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The QEMU plugin API, version 1 (QEMU 7.2's include/qemu/qemu-plugin.h):
 * only what this plugin uses, declared here since Debian ships no header.
 * Debian's qemu-system-x86_64 7.2 exports each of these functions and
 * hands qemu_plugin_install() version.min 0, version.cur 1 (it refuses a
 * plugin that declares version 2).
 */
#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))
#define MCS_PLUGIN_API_VERSION 1

typedef uint64_t qemu_plugin_id_t;

typedef struct qemu_info_t {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;

struct qemu_plugin_tb;
struct qemu_plugin_insn;

enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};

enum qemu_plugin_op {
	QEMU_PLUGIN_INLINE_ADD_U64,
};

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
					    void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags,
					  void *userdata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *userdata);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
						enum qemu_plugin_op op,
						void *ptr, uint64_t imm);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata);
void qemu_plugin_outs(const char *string);
bool qemu_plugin_bool_parse(const char *name, const char *val, bool *ret);

QEMU_PLUGIN_EXPORT int qemu_plugin_version = MCS_PLUGIN_API_VERSION;
QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv);

/* The marker encoding; marker.h emits the same bytes. */
#define MARK_LEN	8
#define MAGIC_BEGIN	0x4d435342u
#define MAGIC_END	0x4d435345u
static const uint8_t head_op[4] = { 0x0f, 0x1f, 0x84, 0x00 };
static const uint8_t tail_op[4] = { 0x0f, 0x1f, 0x84, 0x40 };

enum mark_kind { MARK_NONE = 0, MARK_BEGIN = 1, MARK_END = 2 };

/*
 * A marker callback's udata: for a head its kind in bits 32-33; for a
 * tail its id in bits 0-31 and in bit 34 whether it is first in its block.
 */
#define UD(kind, id)	((void *)(uintptr_t)(((uint64_t)(kind) << 32) | (uint32_t)(id)))
#define UD_TAIL(id, first) ((void *)(uintptr_t)((uint64_t)!!(first) << 34 | (uint32_t)(id)))
#define UD_KIND(ud)	((enum mark_kind)(((uintptr_t)(ud) >> 32) & 3))
#define UD_ID(ud)	((uint32_t)(uintptr_t)(ud))
#define UD_FIRST(ud)	((((uintptr_t)(ud)) >> 34) & 1)

/* Every instruction adds 1 here, inline. */
static uint64_t insns;

/*
 * A small open-addressing table of records by uint64_t key (ids, block
 * addresses). Records are allocated one by one and never move: blocks'
 * callbacks hold pointers to theirs. One vCPU, so no locking.
 */
struct rec {
	uint64_t key;
	/* for ids */
	bool open;
	uint64_t start, pairs, total, min, max;
	/* for profile blocks */
	uint64_t prof;
};

struct table {
	struct rec **s;
	size_t cap, n;
};

static size_t hash64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p) {
		fprintf(stderr, "insncount: out of memory\n");
		abort();
	}
	return p;
}

static struct rec *table_get(struct table *t, uint64_t key)
{
	size_t i, mask;

	if ((t->n + 1) * 2 > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct rec **s = xcalloc(cap, sizeof(*s));

		for (i = 0; i < t->cap; i++) {
			size_t j;

			if (!t->s[i])
				continue;
			for (j = hash64(t->s[i]->key) & (cap - 1); s[j]; j = (j + 1) & (cap - 1))
				;
			s[j] = t->s[i];
		}
		free(t->s);
		t->s = s;
		t->cap = cap;
	}
	mask = t->cap - 1;
	for (i = hash64(key) & mask; t->s[i]; i = (i + 1) & mask)
		if (t->s[i]->key == key)
			return t->s[i];
	t->s[i] = xcalloc(1, sizeof(struct rec));
	t->s[i]->key = key;
	t->n++;
	return t->s[i];
}

static struct table ids, blocks;

static const char *outfile;
static bool profile;
static unsigned long profile_top = 200;
static bool profile_one;
static struct rec *profile_rec;	/* profile_id's */

/* statistics */
static uint64_t n_markers, n_split, n_unmatched, n_rebegin;
static unsigned int n_open;

/* the head ran, its tail comes next (in this block or the next one) */
static enum mark_kind pending;

/* profile: the block that runs now, since when, and whether we profile */
static struct rec *cur_block;
static uint64_t cur_start;
static bool profiling;

static void profile_flush(uint64_t now)
{
	if (profiling && cur_block)
		cur_block->prof += now - cur_start;
	cur_start = now;
}

static void profile_update(void)
{
	profiling = profile_one ? profile_rec->open : n_open > 0;
}

static void tb_exec(unsigned int vcpu, void *udata)
{
	uint64_t now = insns;

	(void)vcpu;
	profile_flush(now);
	cur_block = udata;
}

/*
 * The two marker instructions that the counter difference of a pair spans
 * beyond its body: the BEGIN tail and the END head (or, if callbacks ran
 * after the inline add, the END head and tail: the same number).
 */
#define MARK_SPAN	2

static void marker(enum mark_kind kind, uint32_t id)
{
	uint64_t now = insns;
	struct rec *s = table_get(&ids, id);

	n_markers++;
	if (profile)
		profile_flush(now);
	if (kind == MARK_BEGIN) {
		if (s->open)
			n_rebegin++;
		else
			n_open++;
		s->open = true;
		s->start = now;
	} else if (!s->open) {
		n_unmatched++;
	} else {
		uint64_t d = now - s->start - MARK_SPAN;

		s->open = false;
		n_open--;
		if (!s->pairs || d < s->min)
			s->min = d;
		if (d > s->max)
			s->max = d;
		s->pairs++;
		s->total += d;
	}
	if (profile)
		profile_update();
}

/* a marker head: its kind is pending until the tail */
static void head_exec(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	pending = UD_KIND(udata);
}

/* a marker tail: a marker only if its head just ran */
static void tail_exec(unsigned int vcpu, void *udata)
{
	enum mark_kind kind = pending;

	(void)vcpu;
	if (kind == MARK_NONE)
		return;
	pending = MARK_NONE;
	if (UD_FIRST(udata))
		n_split++;
	marker(kind, UD_ID(udata));
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* MARK_BEGIN or MARK_END for a marker head, else MARK_NONE */
static enum mark_kind head_kind(struct qemu_plugin_insn *insn)
{
	const uint8_t *b = qemu_plugin_insn_data(insn);
	uint32_t m;

	if (qemu_plugin_insn_size(insn) != MARK_LEN || memcmp(b, head_op, 4))
		return MARK_NONE;
	m = le32(b + 4);
	return m == MAGIC_BEGIN ? MARK_BEGIN : m == MAGIC_END ? MARK_END : MARK_NONE;
}

/* a marker tail: its id */
static bool is_tail(struct qemu_plugin_insn *insn, uint32_t *id)
{
	const uint8_t *b = qemu_plugin_insn_data(insn);

	if (qemu_plugin_insn_size(insn) != MARK_LEN || memcmp(b, tail_op, 4))
		return false;
	*id = le32(b + 4);
	return true;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;

	(void)id;
	if (profile)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS,
						     table_get(&blocks, qemu_plugin_tb_vaddr(tb)));
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		enum mark_kind kind;
		uint32_t mid;

		qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
							   &insns, 1);
		/*
		 * Callbacks on both halves, never one on the tail alone: a tail
		 * that the block shows may still be dropped from it (a page
		 * crossing), and then only the head's callback runs here.
		 */
		kind = head_kind(insn);
		if (kind != MARK_NONE)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, head_exec, QEMU_PLUGIN_CB_NO_REGS,
							       UD(kind, 0));
		else if (is_tail(insn, &mid))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, tail_exec, QEMU_PLUGIN_CB_NO_REGS,
							       UD_TAIL(mid, i == 0));
	}
}

static int cmp_id(const void *a, const void *b)
{
	const struct rec *x = *(struct rec *const *)a, *y = *(struct rec *const *)b;

	return x->key < y->key ? -1 : x->key > y->key;
}

static int cmp_prof(const void *a, const void *b)
{
	const struct rec *x = *(struct rec *const *)a, *y = *(struct rec *const *)b;

	if (x->prof != y->prof)
		return x->prof > y->prof ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* the records of t, sorted */
static struct rec **table_sorted(struct table *t, int (*cmp)(const void *, const void *),
				  size_t *n)
{
	struct rec **v = calloc(t->n ? t->n : 1, sizeof(*v));
	size_t i, k = 0;

	if (!v)
		return NULL;
	for (i = 0; i < t->cap; i++)
		if (t->s[i])
			v[k++] = t->s[i];
	qsort(v, k, sizeof(*v), cmp);
	*n = k;
	return v;
}

static void emit(FILE *f, const char *line)
{
	if (f)
		fputs(line, f);
	else
		qemu_plugin_outs(line);
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	struct rec **v;
	FILE *f = NULL;
	char line[256];
	size_t n, i;

	(void)id;
	(void)udata;
	if (outfile) {
		f = fopen(outfile, "w");
		if (!f)
			fprintf(stderr, "insncount: cannot write %s, using the log\n", outfile);
	}
	v = table_sorted(&ids, cmp_id, &n);
	for (i = 0; v && i < n; i++) {
		/* profile_id may have made an entry that never ran */
		if (!v[i]->pairs && !v[i]->open)
			continue;
		snprintf(line, sizeof(line),
			 "insn id=%" PRIu64 " pairs=%" PRIu64 " total=%" PRIu64
			 " min=%" PRIu64 " max=%" PRIu64 "\n", v[i]->key, v[i]->pairs,
			 v[i]->total, v[i]->pairs ? v[i]->min : 0, v[i]->max);
		emit(f, line);
	}
	free(v);
	snprintf(line, sizeof(line),
		 "insn-summary vcpu_insns=%" PRIu64 " markers=%" PRIu64 " split=%" PRIu64
		 " unmatched_end=%" PRIu64 " rebegin=%" PRIu64 " open=%u\n",
		 insns, n_markers, n_split, n_unmatched, n_rebegin, n_open);
	emit(f, line);
	if (profile) {
		uint64_t sum = 0;
		size_t hot = 0;

		v = table_sorted(&blocks, cmp_prof, &n);
		for (i = 0; v && i < n; i++) {
			sum += v[i]->prof;
			hot += v[i]->prof > 0;
		}
		snprintf(line, sizeof(line), "prof total=%" PRIu64 " tbs=%zu\n", sum, hot);
		emit(f, line);
		for (i = 0; v && i < hot && (!profile_top || i < profile_top); i++) {
			snprintf(line, sizeof(line), "prof addr=0x%016" PRIx64 " insns=%" PRIu64 "\n",
				 v[i]->key, v[i]->prof);
			emit(f, line);
		}
		free(v);
	}
	if (f && fclose(f))
		fprintf(stderr, "insncount: error writing %s\n", outfile);
}

static bool parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-')
		return false;
	v = strtoull(s, &end, 0);
	if (*end || v > max)
		return false;
	*out = v;
	return true;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	if (info->version.cur < MCS_PLUGIN_API_VERSION ||
	    info->version.min > MCS_PLUGIN_API_VERSION) {
		fprintf(stderr, "insncount: needs plugin API %d, QEMU has %d..%d\n",
			MCS_PLUGIN_API_VERSION, info->version.min, info->version.cur);
		return -1;
	}
	if (strcmp(info->target_name, "x86_64")) {
		fprintf(stderr, "insncount: x86_64 guests only, not %s\n", info->target_name);
		return -1;
	}
	if (info->system_emulation && info->system.max_vcpus > 1) {
		fprintf(stderr, "insncount: 1 vCPU only (-smp 1), not %d (max %d)\n",
			info->system.smp_vcpus, info->system.max_vcpus);
		return -1;
	}
	for (i = 0; i < argc; i++) {
		char *a = argv[i], *eq = strchr(a, '=');
		uint64_t v;

		if (!eq)
			goto bad;
		*eq = 0;
		if (!strcmp(a, "outfile") && eq[1]) {
			outfile = eq + 1;
		} else if (!strcmp(a, "profile")) {
			if (!qemu_plugin_bool_parse(a, eq + 1, &profile))
				goto bad_restore;
		} else if (!strcmp(a, "profile_top")) {
			if (!parse_u64(eq + 1, ~0ul, &v))
				goto bad_restore;
			profile_top = v;
		} else if (!strcmp(a, "profile_id")) {
			if (!parse_u64(eq + 1, UINT32_MAX, &v))
				goto bad_restore;
			profile_one = true;
			profile_rec = table_get(&ids, v);
		} else {
			goto bad_restore;
		}
		*eq = '=';
		continue;
bad_restore:
		*eq = '=';
bad:
		fprintf(stderr, "insncount: bad argument '%s' (outfile=PATH, profile=on|off, "
			"profile_top=N, profile_id=ID)\n", a);
		return -1;
	}
	if (profile_one && !profile)
		fprintf(stderr, "insncount: profile_id without profile=on: ignored\n");
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
