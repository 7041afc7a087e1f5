/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Instruction-count markers for guest benchmark programs (x86-64, gcc or
 * clang). Under the insncount QEMU plugin (bench/insn/insncount.c) the
 * instructions the vCPU executes between mcs_insn_begin(ID) and
 * mcs_insn_end(ID) -- kernel and user, every context -- are added to ID;
 * elsewhere (real hardware, KVM, TCG without the plugin) a marker is two
 * multi-byte NOPs and costs nothing else.
 *
 *   #include "marker.h"
 *   mcs_insn_begin(7);
 *   work();
 *   mcs_insn_end(7);
 *
 * ID must be an integer constant expression in 0 .. 2^32-1 (it is an
 * immediate in the instruction stream: the "i" constraint); a program that
 * picks ids at run time switches over a few constants.
 *
 * Encoding (the plugin matches these exact bytes), 16 bytes a marker:
 *   0F 1F 84 00 <magic le32>   nopl MAGIC(%rax,%rax,1)
 *                              MAGIC 0x4d435342 = begin, 0x4d435345 = end
 *   0F 1F 84 40 <id le32>      nopl ID(%rax,%rax,2)
 * The plugin counts neither marker's NOPs: an empty pair counts 0.
 *
 * Each marker is an asm volatile with a "memory" clobber: a compiler
 * barrier, so memory accesses are not moved across it, and markers keep
 * their order with respect to each other and to other volatile asm and
 * calls. Register-only computations may still move across a marker; put
 * the measured work in a function the compiler cannot see into (noinline,
 * another unit) or make its results escape to memory.
 */
#ifndef MCS_INSN_MARKER_H
#define MCS_INSN_MARKER_H

#define MCS_INSN_MAGIC_BEGIN	0x4d435342
#define MCS_INSN_MAGIC_END	0x4d435345

/* the marker as assembler text, for use inside larger asm statements:
 * MAGIC a literal, ID an asm operand or literal text */
#define MCS_INSN_MARK_ASM(magic, id)				\
	".byte 0x0f, 0x1f, 0x84, 0x00\n\t"			\
	".long " #magic "\n\t"					\
	".byte 0x0f, 0x1f, 0x84, 0x40\n\t"			\
	".long " id "\n\t"

#define mcs_insn_mark__(magic, id)					\
	__asm__ __volatile__(MCS_INSN_MARK_ASM(magic, "%c0")		\
			     : : "i" ((unsigned int)(id)) : "memory")

#define mcs_insn_begin(id)	mcs_insn_mark__(0x4d435342, id)
#define mcs_insn_end(id)	mcs_insn_mark__(0x4d435345, id)

#endif
