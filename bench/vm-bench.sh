#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest's half of make bench (run.sh boots the VM with this script).
#
#   vm-bench.sh read BUILD SIZES DIRTY DIRTY_PAGES CLI_SIZE CLI_RUNS
#       measures 1-5 and 7 on cgroup v2: one cgroup, a batch of 50, trees of
#       each size in SIZES (flat: a parent and N-1 children), the tree of
#       DIRTY cgroups made dirty, the CLI on the tree of CLI_SIZE; trees of
#       more than 10,000 cgroups get MCSBENCH_BIG_ROUNDS (3) rounds
#   vm-bench.sh fault BUILD MB ROUNDS
#       measure 6: the page-fault loop, in a memory cgroup of its own
#
# BUILD is the build directory (bench/mcsbench, tools/memcgstat). Prints
# mcsbench's ROW/SKIP/NOTE/SCALE lines; progress goes to stderr.
#
# With MCSBENCH_INSN=1 (a boot under selftests/vmtest.sh -I), the
# INSN lines too: mcsbench's marker ids, distinct over the whole boot, and
# for the profile's user symbols "INSNBIN FILE BASE" for each program and
# library that runs (address space randomisation is off for that, which
# also keeps the counts from depending on where things land).
set -eu

mode=$1 build=$2
bin=$build/bench/mcsbench
cg=/sys/fs/cgroup/mcsbench
log() { printf "vm-bench: %(%T)T %s\n" -1 "$*" >&2; }

mkdir -p $cg
echo +memory >$cg/cgroup.subtree_control
insn=${MCSBENCH_INSN:-0}
if [ "$insn" != 0 ]; then
	echo 0 >/proc/sys/kernel/randomize_va_space
	export MCSBENCH_INSN_NEXT=/tmp/mcsbench-insn-next
	rm -f $MCSBENCH_INSN_NEXT
fi

# INSNBIN lines: mcsbench is static and non-PIE; a PIE program without
# randomisation loads at 0x555555554000, and ld.so says where its libraries go
insn_bins() {
	local cli=$1
	printf 'INSNBIN\t%s\t0\n' "$bin"
	printf 'INSNBIN\t%s\t0x555555554000\n' "$cli"
	LD_TRACE_LOADED_OBJECTS=1 "$cli" 2>/dev/null |
		awk -v OFS='\t' '$(NF - 1) ~ /^\// && $NF ~ /^\(0x/ { print "INSNBIN", $(NF - 1), substr($NF, 2, length($NF) - 2) }'
}

case $mode in
read)
	sizes=$3 dirty=$4 pages=$5 cli_size=$6 cli_runs=$7
	log "$(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ { print $2 / 1024 " MiB" }' /proc/meminfo)"
	# an idle cgroup for the single reads, 50 siblings for the batches
	$bin mktree $cg/batch 51
	[ "$insn" = 0 ] || insn_bins "$build/tools/memcgstat"
	log "single cgroup"
	$bin single $cg/batch/c1 $cg/batch
	log "fixed costs: memcgstat_open, one CLI process"
	$bin oneshot $cg/batch/c1 "$build/tools/memcgstat"
	for n in $sizes; do
		log "tree of $n: creating"
		$bin mktree $cg/t$n "$n"
		log "tree of $n: measuring"
		if [ "$n" -gt 10000 ]; then
			# a text read of such a tree takes seconds under TCG
			MCSBENCH_ROUNDS=${MCSBENCH_BIG_ROUNDS:-3} $bin tree $cg/t$n
		else
			$bin tree $cg/t$n
		fi
		if [ "$n" -ge 1000 ] && [ "$n" -le 10000 ]; then
			log "tree of $n: exporter scrapes"
			$bin scrape $cg/t$n "$build/tools/memcgstat-exporter"
		fi
	done
	[ -d $cg/t$dirty ] || $bin mktree $cg/t$dirty "$dirty"
	log "dirty tree of $dirty"
	$bin dirty $cg/t$dirty "$pages"
	[ -d $cg/t$cli_size ] || $bin mktree $cg/t$cli_size "$cli_size"
	log "CLI on the tree of $cli_size"
	$bin cli "$cli_runs" "$build/tools/memcgstat" "${MCSBENCH_STATS:-anon,file,shmem,pgfault}" $cg/t$cli_size
	$bin openprof $cg/t$cli_size
	log "vmlinux BTF: $(stat -c %s /sys/kernel/btf/vmlinux) bytes"
	;;
fault)
	mb=$3 rounds=$4
	mkdir -p $cg/fault
	echo $$ >$cg/fault/cgroup.procs
	log "$(uname -r): page faults on $mb MiB, $rounds rounds"
	"$bin" fault "$mb" "$rounds"
	;;
*)
	echo "vm-bench: unknown mode '$mode'" >&2
	exit 2
	;;
esac
