# SPDX-License-Identifier: GPL-2.0
# Included by every Makefile of the tree: the tools, quiet output (make V=1
# prints the commands), the BPF target architecture from this machine, and
# the one vmlinux.h every BPF program here is compiled against.
#
# vmlinux.h comes from this machine's kernel BTF when it has one, else from
# the kernel kernel/build.sh builds; CO-RE relocates either at load time, so
# the same objects load on the host and in the test VM.

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

BPF_CFLAGS := -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_$(ARCH) \
	      -I$(BUILD) -I$(TOP)/bpf
BPF_HDRS := $(wildcard $(TOP)/bpf/*.h)
LLVM_STRIP ?= llvm-strip-19

# $(call bpf_cc,SOURCE,OBJECT[,FLAGS]): an object that is the same wherever
# the tree and the build directory are: the source named from the tree's
# top, "." for the compilation directory, and no DWARF (its paths are
# absolute); the BTF and its line info, all that libbpf and the verifier
# read, stay. A build's pin name (lib/Makefile) hashes these objects.
bpf_cc = cd $(TOP) && $(CLANG) $(BPF_CFLAGS) $(3) -fdebug-compilation-dir=. \
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
