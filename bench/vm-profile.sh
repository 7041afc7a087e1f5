#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where a snapshot's time goes, with perf's cpu-clock sampling (no PMU under
# TCG) in the guest. Not part of make bench; run it by hand:
#
#   selftests/vmtest.sh -- bench/vm-profile.sh BUILD [SIZE [SNAPSHOTS [READS]]]
#
# Profiles (1) the memcgstat CLI reading a tree of SIZE (10000) cgroups,
# start to end, and (2) SNAPSHOTS (30) library snapshots of that tree, the
# whole system, (3) READS (20000) single reads of every counter of one
# cgroup (the default query path), the whole system; prints the top symbols
# of each.
set -eu

build=$1 size=${2:-10000} n=${3:-30} reads=${4:-20000}
bin=$build/bench/mcsbench
cg=/sys/fs/cgroup/mcsprof
top() { perf report -i "$1" --stdio --no-children --sort "$2" 2>/dev/null | grep -E '^ +[0-9]' | head -"$3"; }

command -v perf >/dev/null || { echo "vm-profile: no perf" >&2; exit 1; }
cd /tmp
echo 0 >/proc/sys/kernel/kptr_restrict
echo -1 >/proc/sys/kernel/perf_event_paranoid
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
"$bin" mktree $cg "$size"

echo "== memcgstat --backend bpf -r on $size cgroups (whole process)"
perf record -q -e cpu-clock -F 2000 -o /tmp/cli.data -- \
	"$build/tools/memcgstat" --backend bpf -r -s anon,file,shmem,pgfault -o csv $cg >/dev/null
top /tmp/cli.data dso,sym 30

echo "== $n x memcgstat_snapshot on $size cgroups (system-wide)"
perf record -q -e cpu-clock -F 2000 -a -o /tmp/snap.data -- "$bin" snaploop $cg "$n"
top /tmp/snap.data dso,sym 40

echo "== $reads x memcgstat_read of one cgroup, every counter (system-wide)"
perf record -q -e cpu-clock -F 2000 -a -o /tmp/read.data -- "$bin" readloop $cg/c1 "$reads"
top /tmp/read.data dso,sym 40
