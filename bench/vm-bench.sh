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
set -eu

mode=$1 build=$2
bin=$build/bench/mcsbench
cg=/sys/fs/cgroup/mcsbench
log() { printf "vm-bench: %(%T)T %s\n" -1 "$*" >&2; }

mkdir -p $cg
echo +memory >$cg/cgroup.subtree_control

case $mode in
read)
	sizes=$3 dirty=$4 pages=$5 cli_size=$6 cli_runs=$7
	log "$(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ { print $2 / 1024 " MiB" }' /proc/meminfo)"
	# an idle cgroup for the single reads, 50 siblings for the batches
	$bin mktree $cg/batch 51
	log "single cgroup"
	$bin single $cg/batch/c1 $cg/batch
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
