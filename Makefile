# SPDX-License-Identifier: GPL-2.0
# memcgstat: read memcg counters through BPF kfuncs instead of memory.stat.
#
#   make run         memcgstat on this machine (auto backend)
#   make vm-run      memcgstat in the patched kernel's VM (bpf backend)
#   make test        every test: host tests, kernel build (cached), VM tests
#   make test-debug  the VM tests on a KASAN + lockdep kernel
#   make kernel      build (or reuse) the patched kernel
#   make kernel-upstream  the series without memcgstat's additions (7.0's kfuncs)
#   make vm-shell    a shell in the test VM
#   make fuzz        libFuzzer on the text parsers (FUZZ_SECONDS per target)
#   make soak        the exporter under 50 scrapers and the CLI at -i 0.1, with
#                    cgroup churn, for SOAK_SECONDS (default 600): RSS, fds
#                    and threads bounded, every scrape whole (make test: 60 s)
#   make install     the CLI, the exporter, libmemcgstat (.a, .so), header,
#                    pkg-config, man pages, bash completion, systemd unit
#   make bench       every benchmark, host and VM: one markdown table, build/bench/
#   make deb         Debian binary packages (debian/) in build/deb/, lintian-checked
#   make deps        install the Debian packages the build needs (root)

TOP	:= $(abspath .)
OUT	:= $(TOP)/build
MAKEFLAGS += --no-print-directory

# Debian packages: build tools, the kernel source, qemu; libmicrohttpd,
# GnuTLS, libyaml and libxcrypt for the exporter (TLS, its web configuration,
# bcrypt), and what its tests run against (Prometheus, promtool,
# node_exporter, wrk, curl, openssl for test certificates, a strict
# OpenMetrics parser, systemd-analyze, bash-completion and man to check what
# make install puts in place; python3-git for checkpatch.pl's SPDX check;
# tmux, the terminal memcgstat top's tests drive).
DEPS	:= build-essential clang-19 llvm-19 libbpf-dev bpftool dwarves \
	   libelf-dev zlib1g-dev bc bison flex libssl-dev cpio \
	   linux-source-6.12 qemu-system-x86 python3-ply libclang-rt-19-dev pkgconf \
	   libmicrohttpd-dev libgnutls28-dev libyaml-dev libcrypt-dev \
	   prometheus prometheus-node-exporter wrk curl openssl \
	   python3-prometheus-client systemd bash-completion man-db gnuplot-nox \
	   python3-git tmux
# make deb's (and so make test's, whose deb suite runs it) on top of those
DEB_DEPS := debhelper lintian

.PHONY: all deps deb-deps deb kernel kernel-debug kernel-upstream kernel-unpatched lib tools user user-asan \
	install selftests run vm-run test \
	test-debug vm-shell fuzz soak bench clean

all: user

# $(call install_missing,PACKAGES): apt-get install those not installed
install_missing = missing=$$(for p in $(1); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	done); \
	if [ -n "$$missing" ]; then \
		echo "deps: installing" $$missing; \
		[ "$$(id -u)" = 0 ] || { echo "deps: need root to install packages" >&2; exit 1; }; \
		DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null || exit 1; \
	fi

deps:
	@$(call install_missing,$(DEPS))
deb-deps: deps
	@$(call install_missing,$(DEB_DEPS))

kernel: deps
	@timeout 1800 kernel/build.sh >/dev/null

kernel-debug: deps
	@timeout 3600 kernel/build.sh --debug >/dev/null

# the series without memcgstat's additions: Linux 7.0's kfunc set only
kernel-upstream: deps
	@timeout 1800 kernel/build.sh --upstream >/dev/null

# the same config without the series: make bench's write-side baseline
kernel-unpatched: deps
	@timeout 1800 kernel/build.sh --unpatched >/dev/null

# libmemcgstat and the programs on it: no root, no test-only packages
lib:
	@$(MAKE) -C lib OUT=$(OUT)/lib
tools: lib
	@$(MAKE) -C tools OUT=$(OUT)/tools LIB_OUT=$(OUT)/lib
user: tools

# PREFIX (default /usr/local) and DESTDIR as usual
install: user
	@$(MAKE) -C lib OUT=$(OUT)/lib install
	@$(MAKE) -C tools OUT=$(OUT)/tools LIB_OUT=$(OUT)/lib install

# the same under AddressSanitizer and UndefinedBehaviorSanitizer
user-asan:
	@$(MAKE) -C lib OUT=$(OUT)/asan/lib SAN=1
	@$(MAKE) -C tools OUT=$(OUT)/asan/tools LIB_OUT=$(OUT)/asan/lib SAN=1

# the tests compiled: no root, no package step, no kernel build (the
# packages of make deps must be there; make test installs them)
selftests: user user-asan
	@$(MAKE) -C selftests OUT=$(OUT)/selftests LIB_OUT=$(OUT)/lib
	@$(MAKE) -C bench OUT=$(OUT)/bench LIB_OUT=$(OUT)/lib
	@$(MAKE) -C examples OUT=$(OUT)/examples LIB_OUT=$(OUT)/lib

# libFuzzer on the text parsers, FUZZ_SECONDS (default 60) per target
fuzz: deps
	@$(MAKE) -C selftests/fuzz OUT=$(OUT)/fuzz run

# selftests/shell/soak.sh for SOAK_SECONDS; the figures in its log
SOAK_SECONDS ?= 600
soak: deps user
	@$(MAKE) -C selftests OUT=$(OUT)/selftests LIB_OUT=$(OUT)/lib $(OUT)/selftests/memhog
	@mkdir -p $(OUT)/test-logs
	@bash -c 'set -o pipefail; selftests/shell/soak.sh $(OUT) $(SOAK_SECONDS) 2>&1 | \
		tee $(OUT)/test-logs/soak-$(SOAK_SECONDS)s.log'

run: deps user
	@$(OUT)/tools/memcgstat -H

vm-run: deps kernel selftests
	@selftests/vmtest.sh -q -n 2 -- $(OUT)/tools/memcgstat -v -H -s anon,file,kernel,shmem,pgfault,usage --numa

# Sizes and repetitions: BENCH_SIZES, BENCH_ROUNDS, ... (see bench/run.sh);
# BENCH_REPEAT boots of the VM part count instructions (1 vCPU, the insncount
# plugin), BENCH_PROFILE=ROW profiles one row. Not a test: nothing asserts a
# time or a count.
export BENCH_SIZES BENCH_HOST_SIZES BENCH_ROUNDS BENCH_BIG_ROUNDS BENCH_BATCH_MS BENCH_STATS \
	BENCH_DIRTY BENCH_DIRTY_PAGES BENCH_CLI_SIZE BENCH_CLI_RUNS BENCH_FAULT_BOOTS \
	BENCH_FAULT_MB BENCH_FAULT_ROUNDS BENCH_FAULT_CPUS BENCH_VM_MEM BENCH_SKIP \
	BENCH_REPEAT BENCH_PROFILE BENCH_INSN_OPS
bench: deps kernel kernel-unpatched user
	@$(MAKE) -C bench OUT=$(OUT)/bench LIB_OUT=$(OUT)/lib
	@bench/run.sh $(OUT)/bench

# the debug kernel: built by run-tests.sh while the first suites run
test: deps deb-deps kernel kernel-upstream selftests
	@selftests/run-tests.sh

test-debug: deps kernel-debug selftests
	@selftests/run-tests.sh --debug

# Debian binary packages of this tree (tracked and untracked files, not
# build/ nor kernel/) built by dpkg-buildpackage -b in a copy under
# build/deb/src, with no network and with /sys/kernel/btf hidden (a mount
# namespace, as root): the BPF objects come from bpf/kernel_types.h alone.
# The .debs, .changes, build.log and lintian.txt in build/deb/; lintian's
# errors fail it. debian/changelog's version must be lib/memcgstat.h's.
DEB_OUT	:= $(OUT)/deb
DEB_VERSION := $(shell sed -n '1s/^memcgstat (\([^-)]*\).*/\1/p' debian/changelog)
MCS_VERSION := $(shell sed -n 's/^\#define MEMCGSTAT_VERSION "\(.*\)"/\1/p' lib/memcgstat.h)
deb: deb-deps
	@[ "$(DEB_VERSION)" = "$(MCS_VERSION)" ] || { echo "deb: debian/changelog is" \
		"$(DEB_VERSION), lib/memcgstat.h $(MCS_VERSION)" >&2; exit 1; }
	@rm -rf $(DEB_OUT) && mkdir -p $(DEB_OUT)/src/memcgstat-$(MCS_VERSION)
	@tar -C $(TOP) --exclude=./build --exclude=./kernel --exclude=./.git -cf - . | \
		tar -C $(DEB_OUT)/src/memcgstat-$(MCS_VERSION) -xf -
	@echo "  DEB      $(DEB_OUT) (log: $(DEB_OUT)/build.log)"
	@cd $(DEB_OUT)/src/memcgstat-$(MCS_VERSION) && \
	isolate() { unshare -n -m sh -c '{ [ ! -e /sys/kernel/btf ] || \
		mount -t tmpfs -o ro,mode=0 none /sys/kernel/btf; } && exec "$$0" "$$@"' "$$@"; }; \
	if [ "$$(id -u)" = 0 ] && unshare -n true 2>/dev/null; then iso=isolate; else iso=; \
		echo "deb: not root: the build sees the network and /sys/kernel/btf"; fi; \
	$$iso nice dpkg-buildpackage -b -us -uc >$(DEB_OUT)/build.log 2>&1 || \
		{ tail -40 $(DEB_OUT)/build.log >&2; exit 1; }
	@mv $(DEB_OUT)/src/*.deb $(DEB_OUT)/src/*.changes $(DEB_OUT)/src/*.buildinfo $(DEB_OUT)/
	@cd $(DEB_OUT) && lintian --fail-on error *.changes >lintian.txt 2>&1; rc=$$?; \
	cat lintian.txt; ls *.deb; exit $$rc

vm-shell: kernel
	@selftests/vmtest.sh -s

clean:
	rm -rf $(OUT)
