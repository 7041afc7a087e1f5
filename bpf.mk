# SPDX-License-Identifier: GPL-2.0
# Included by every Makefile of the tree: the tools, quiet output (make V=1
# prints the commands), the BPF target architecture from this machine, and
# the vmlinux.h the selftests' and the benchmarks' BPF programs are
# compiled against.
#
# vmlinux.h comes from this machine's kernel BTF when it has one, else from
# the kernel kernel/build.sh builds; CO-RE relocates either at load time, so
# the same objects load on the host and in the test VM. The library's
# programs (lib/Makefile, bpf_cc) do not use it: they are compiled against
# bpf/kernel_types.h, so that their objects, and the pin ID hashed from
# them, are the same on any build host, and make user on a host without
# /sys/kernel/btf/vmlinux needs no kernel build.

# expanded once, here: a later include would make "lastword" another file
ifeq ($(origin TOP),undefined)
TOP	:= $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
endif
BUILD	?= $(TOP)/build
CLANG	?= clang-19
BPFTOOL	?= bpftool
CC	?= gcc

ARCH	?= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' \
		-e 's/ppc64le/powerpc/' -e 's/s390x/s390/' -e 's/riscv64/riscv/')
VMLINUX_BTF ?= $(firstword $(wildcard /sys/kernel/btf/vmlinux) \
		$(shell $(TOP)/kernel/build.sh --print-dir)/vmlinux)
VMLINUX_H := $(BUILD)/vmlinux.h

# bpf_cc's flags see the tree alone; the others $(BUILD)'s vmlinux.h too
BPF_CFLAGS_TREE := -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_$(ARCH) -I$(TOP)/bpf
BPF_CFLAGS := $(BPF_CFLAGS_TREE) -I$(BUILD)
BPF_HDRS := $(wildcard $(TOP)/bpf/*.h)
LLVM_STRIP ?= llvm-strip-19

# $(call bpf_cc,SOURCE,OBJECT[,FLAGS]): an object that is the same wherever
# the tree and the build directory are, whatever kernel the build host runs:
# the source named from the tree's top, "." for the compilation directory,
# no DWARF (its paths are absolute), and no vmlinux.h on the include path
# (the source includes kernel_types.h); the BTF and its line info, all that
# libbpf and the verifier read, stay. A build's pin name (lib/Makefile)
# hashes these objects.
bpf_cc = cd $(TOP) && $(CLANG) $(BPF_CFLAGS_TREE) $(3) -fdebug-compilation-dir=. \
	 -c $(patsubst $(TOP)/%,%,$(1)) -o $(2) && $(LLVM_STRIP) -g $(2)

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(patsubst $(TOP)/%,%,$(2))";
endif

.DEFAULT_GOAL := all
.DELETE_ON_ERROR:
.SECONDARY:

$(VMLINUX_H):
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@.tmp && mv $@.tmp $@
