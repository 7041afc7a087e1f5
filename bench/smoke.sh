#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make test's check that the benchmark still runs: mcsbench with one round
# of a millisecond per method on a few host cgroups, the fault loop on 1 MiB,
# and the report. Asserts that every part prints its lines, never a time.
# Prints "#N bench/NAME:OK|FAIL|SKIP (why)".
#
#   smoke.sh BUILD      (BUILD: the build directory with bench/mcsbench)
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
bin=$build/bench/mcsbench
tmp=$(mktemp -d /tmp/memcgstat-bench.XXXXXX)
n=0
res() {	# name, 0|1|skip, why
	n=$((n + 1))
	case $2 in
	0) echo "#$n bench/$1:OK" ;;
	skip) echo "#$n bench/$1:SKIP ($3)" ;;
	*) echo "#$n bench/$1:FAIL"; printf '  %s\n' "$3" | head -20 ;;
	esac
}
export MCSBENCH_ROUNDS=1 MCSBENCH_BATCH_MS=1

root=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/mounts)
[ -n "$root" ] || root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
cg=$root/mcsbench-smoke.$$
trap '"$bin" rmtree "$cg" 2>/dev/null; rm -rf "$tmp"' EXIT

if [ ! -x "$bin" ]; then
	res build 1 "no $bin"
	exit 0
fi
if [ "$(id -u)" != 0 ] || [ -z "$root" ] || ! "$bin" mktree "$cg" 1 2>"$tmp/err"; then
	why="cannot create cgroups under ${root:-(no memory hierarchy)}: $(cat "$tmp/err" 2>/dev/null)"
	for t in single tree fault report; do res $t skip "$why"; done
	exit 0
fi
"$bin" mktree "$cg/batch" 51 && "$bin" mktree "$cg/t10" 10

# every comparison either ran (ROW) or says why not (SKIP); the floors run
# wherever cgroup_iter does
out=$("$bin" single "$cg/batch/c1" "$cg/batch" 2>&1 | tee "$tmp/single")
rc=$?
[ $rc = 0 ] && grep -q $'^ROW\t3.bound.iter\t' <<<"$out" && ! grep -vqE $'^(ROW|SKIP|NOTE)\t' <<<"$out"
res single $? "exit $rc: $out"

out=$("$bin" tree "$cg/t10" 2>&1 | tee "$tmp/tree")
rc=$?
[ $rc = 0 ] && grep -q $'^ROW\t3.walk.10\t' <<<"$out" && grep -q $'^SCALE\t10\t' <<<"$out"
res tree $? "exit $rc: $out"

out=$(TMPDIR=$tmp "$bin" fault 1 3 2>&1)
rc=$?
[ $rc = 0 ] && grep -qE $'^FAULT\t[0-9.]+\t' <<<"$out"
res fault $? "exit $rc: $out"

# the table and the plot from these lines
mkdir -p "$tmp/out"
cat "$tmp/single" "$tmp/tree" | sed 's/^/host\t/' >"$tmp/out/results.tsv"
printf 'machine: smoke\ndate: now; took 0 min\nparameters: BENCH_ROUNDS=1\n' >"$tmp/out/machine.txt"
out=$("$top/bench/report.sh" "$tmp/out" 2>&1)
rc=$?
[ $rc = 0 ] && grep -q '^| 3.bound.iter | host |' <<<"$out" && grep -q '^| 3.walk.10 | host |' <<<"$out" &&
	{ ! command -v gnuplot >/dev/null || [ -s "$tmp/out/scaling.png" ]; }
res report $? "exit $rc: $out"
