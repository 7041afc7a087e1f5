// SPDX-License-Identifier: GPL-2.0
/*
 * The insncount plugin's self-test, guest side: regions whose instruction
 * counts are known by construction, and getpid() regions to compare. Run it
 * in the VM under the plugin (bench/insn/selftest.sh does); it prints what
 * the host must find in the plugin's output:
 *
 *   insn-expect id=ID name=NAME pairs=P min=INSNS   the region's count
 *   insn-report id=ID name=NAME pairs=P             a count to report
 *   insn-agree id=ID id2=ID2 name=NAME pct=PCT      totals within PCT %
 *   insn-split markers=N                            split markers made
 *   insn-time name=NAME ms=MS                       guest wall time
 *
 * Only min is exact: an interrupt (the timer tick) that falls inside a pair
 * adds its instructions to that pair, so some pairs count more.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "marker.h"

#define STR_(x) #x
#define STR(x) STR_(x)

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * A counted loop of K instructions an iteration (K - 2 NOPs, dec, jnz),
 * N iterations, after one mov: 1 + N * K instructions between the markers.
 */
#define LOOP(id, n, k)							\
	do {								\
		mcs_insn_begin(id);					\
		__asm__ __volatile__("mov $" STR(n) ", %%ecx\n\t"	\
				     "1:\n\t"				\
				     ".rept " STR(k) " - 2\n\tnop\n\t.endr\n\t" \
				     "dec %%ecx\n\t"			\
				     "jnz 1b"				\
				     : : : "ecx", "cc", "memory");	\
		mcs_insn_end(id);					\
	} while (0)

static void expect(unsigned int id, const char *name, int pairs, unsigned long min)
{
	printf("insn-expect id=%u name=%s pairs=%d min=%lu\n", id, name, pairs, min);
}

static void loops(int reps)
{
	int i;

	for (i = 0; i < reps; i++)
		LOOP(2, 1000, 2);
	expect(2, "loop2x1000", reps, 1 + 1000 * 2);
	for (i = 0; i < reps; i++)
		LOOP(3, 1000, 5);
	expect(3, "loop5x1000", reps, 1 + 1000 * 5);
	for (i = 0; i < reps; i++)
		LOOP(4, 10000, 10);
	expect(4, "loop10x10000", reps, 1 + 10000 * 10);
}

/* straight-line code longer than a translation block (TCG: 512 insns) */
static void straight(int reps)
{
	int i;

	for (i = 0; i < reps; i++) {
		mcs_insn_begin(5);
		__asm__ __volatile__(".rept 1500\n\tnop\n\t.endr" : : : "memory");
		mcs_insn_end(5);
	}
	expect(5, "straight1500", reps, 1500);
}

/*
 * Markers whose head ends a translation block, so that the plugin must
 * join head and tail across blocks (its "split" path). A block can end
 * after any instruction (size and TCG op limits), so force it: loading SS
 * ends the block, and the next block, which starts with interrupts
 * inhibited for one instruction, holds one instruction only (QEMU 7.2's
 * i386 translator): the head. Loading SS with its own value is allowed in
 * user mode and changes nothing.
 */
#define END_TB_AFTER_NEXT "mov %%ss, %%eax\n\tmov %%eax, %%ss\n\t"

static void split(int reps)
{
	int i;

	for (i = 0; i < reps; i++) {
		__asm__ __volatile__(END_TB_AFTER_NEXT
				     MCS_INSN_MARK_ASM(0x4d435342, "6")
				     ".rept 5\n\tnop\n\t.endr\n\t"
				     MCS_INSN_MARK_ASM(0x4d435345, "6")
				     : : : "eax", "memory");
		__asm__ __volatile__(MCS_INSN_MARK_ASM(0x4d435342, "7")
				     ".rept 5\n\tnop\n\t.endr\n\t"
				     END_TB_AFTER_NEXT
				     MCS_INSN_MARK_ASM(0x4d435345, "7")
				     : : : "eax", "memory");
	}
	expect(6, "split_begin", reps, 5);
	expect(7, "split_end", reps, 5 + 2);
	printf("insn-split markers=%d\n", 2 * reps);
}

/*
 * A marker half that crosses a page boundary, not first in its block: QEMU
 * shows the plugin the whole block, then drops the crossing instruction
 * from it and starts the next block with it. PAD bytes of int3 (jumped
 * over) put four NOPs, the head and the tail at the page's end so that the
 * tail (id 8) or the head (id 9) straddles the boundary.
 */
#define CROSS(id, pad)							\
	__asm__ __volatile__("jmp 2f\n\t"					\
			     ".balign 4096\n\t"				\
			     ".fill " #pad ", 1, 0xcc\n"			\
			     "2:\n\t"						\
			     ".rept 4\n\tnop\n\t.endr\n\t"			\
			     MCS_INSN_MARK_ASM(0x4d435342, #id)			\
			     ".rept 5\n\tnop\n\t.endr\n\t"			\
			     MCS_INSN_MARK_ASM(0x4d435345, #id)			\
			     : : : "memory")

static void page_cross(int reps)
{
	int i;

	for (i = 0; i < reps; i++) {
		CROSS(8, 4096 - 4 - 8 - 4);	/* the tail at page end - 4 */
		CROSS(9, 4096 - 4 - 4);		/* the head at page end - 4 */
	}
	expect(8, "page_cross_tail", reps, 5);
	expect(9, "page_cross_head", reps, 5);
}

static long raw_getpid(void)
{
	long ret;

	__asm__ __volatile__("syscall" : "=a" (ret) : "0" (39L)
			     : "rcx", "r11", "memory");
	return ret;
}

static char outbuf[1 << 16];

/* let deferred work (kworkers, RCU, the output's reader) run first */
static void quiesce(void)
{
	usleep(50 * 1000);
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 100;
	int calls = argc > 2 ? atoi(argv[2]) : 20000;
	double t0, t;
	long sum = 0;
	int i;

	if (reps < 1 || calls < 1) {
		fprintf(stderr, "usage: selftest [REPS [GETPID_CALLS]]\n");
		return 2;
	}
	/*
	 * Print at exit only: a line written now would wake the reader of our
	 * output (vm-init.sh's tee), and with one vCPU its work lands inside
	 * the next region.
	 */
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	t0 = now_ms();

	/* an empty pair: the markers' own overhead (0 by definition) */
	for (i = 0; i < reps * 10; i++) {
		mcs_insn_begin(1);
		mcs_insn_end(1);
	}
	expect(1, "empty", reps * 10, 0);
	/* the largest id: the id is a full 32-bit field */
	mcs_insn_begin(0xffffffffu);
	mcs_insn_end(0xffffffffu);
	expect(0xffffffffu, "id_max", 1, 0);

	loops(reps);
	straight(reps);
	split(reps);
	page_cross(reps);

	/* one getpid system call a pair: user (2 insns) + kernel */
	for (i = 0; i < reps * 10; i++) {
		mcs_insn_begin(10);
		sum += raw_getpid();
		mcs_insn_end(10);
	}
	printf("insn-report id=10 name=getpid_once pairs=%d\n", reps * 10);
	printf("insn-time name=fixed_regions ms=%.1f\n", now_ms() - t0);

	/* the same glibc getpid() loop twice: the totals must agree */
	quiesce();
	t = now_ms();
	mcs_insn_begin(11);
	for (i = 0; i < calls; i++)
		sum += getpid();
	mcs_insn_end(11);
	t = now_ms() - t;
	quiesce();
	mcs_insn_begin(12);
	for (i = 0; i < calls; i++)
		sum += getpid();
	mcs_insn_end(12);
	printf("insn-time name=getpid_loop ms=%.1f\n", t);
	printf("insn-report id=11 name=getpid_loop_a pairs=1 calls=%d\n", calls);
	printf("insn-report id=12 name=getpid_loop_b pairs=1 calls=%d\n", calls);
	printf("insn-agree id=11 id2=12 name=getpid_repeat pct=1\n");
	return sum == 0;
}
