#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make test's check that the benchmark still runs: mcsbench with one round
# of a millisecond per method on a few cgroups, the fault loop on 1 MiB, and
# the report. Asserts that every part prints its lines, never a time.
# Prints "#N bench/NAME:OK|FAIL|SKIP (why)" (bench-vm/NAME with --vm).
#
# The instruction counts: mcsbench runs with MCSBENCH_INSN=1 here, and every
# row must come with its two INSN lines (marker id -> row, method); the
# binary must hold all its markers. No plugin runs in make test's boots (it
# would need a TCG boot of its own), so the counting itself is checked by
# bench/insn/selftest.sh, and the report's instruction columns on counts
# made up from the INSN lines.
#
#   smoke.sh [--vm] BUILD   (BUILD: the build directory with bench/mcsbench)
#
# On the host (no kfuncs) the library's rows may say SKIP; with --vm, in the
# patched kernel's VM, they must run: the iterator and syscall reads, the
# snapshot, the dirty tree and the CLI.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
vm=0
if [ "${1:-}" = --vm ]; then
	vm=1
	shift
fi
build=${1:-$top/build}
bin=$build/bench/mcsbench
SUITE=bench
[ $vm = 1 ] && SUITE=bench-vm
. "$top/selftests/lib.sh"
tmp=$(mktemp -d /tmp/memcgstat-bench.XXXXXX)
# "ROW" lines for each id (tab-separated mcsbench output in $1)
has_rows() {
	local out=$1 id
	shift
	for id in "$@"; do
		grep -q "^ROW	$id	" <<<"$out" || return 1
	done
}
# every ROW of a compare() (unit us, not a CLI row) has an INSN line for A
# and for B, or a NOTE why not
has_insn() {
	awk -F'\t' '
	$1 == "ROW" && $4 == "us" && $2 !~ /^7\.cli\./ { rows[$2] = 1 }
	$1 == "INSN" { got[$3, $4] = 1 }
	$1 == "NOTE" && $3 ~ /^no instruction count/ { got[$2, "A"] = got[$2, "B"] = 1 }
	END {
		for (r in rows) if (!((r, "A") in got) || !((r, "B") in got)) { print "no INSN line for " r; bad = 1 }
		exit bad
	}' <<<"$1"
}
export MCSBENCH_ROUNDS=1 MCSBENCH_BATCH_MS=1
export MCSBENCH_INSN=1 MCSBENCH_INSN_OPS=1 MCSBENCH_INSN_PAUSE_MS=0 MCSBENCH_INSN_NEXT=$tmp/insn-next

root=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/mounts)
[ -n "$root" ] || root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
cg=$root/mcsbench-smoke.$$
trap '"$bin" rmtree "$cg" 2>/dev/null; rm -rf "$tmp"' EXIT

if [ ! -x "$bin" ]; then
	fail build "no $bin"
	finish
fi
if [ "$(id -u)" != 0 ] || [ -z "$root" ] || ! "$bin" mktree "$cg" 1 2>"$tmp/err"; then
	why="cannot create cgroups under ${root:-(no memory hierarchy)}: $(cat "$tmp/err" 2>/dev/null)"
	for t in single tree fault report; do skip $t "$why"; done
	finish
fi
# cgroup v2: the memory controller for the trees below
[ -f "$cg/cgroup.subtree_control" ] && echo +memory >"$cg/cgroup.subtree_control"
"$bin" mktree "$cg/batch" 51 && "$bin" mktree "$cg/t10" 10

# every comparison either ran (ROW) or says why not (SKIP); the floors run
# wherever cgroup_iter does
out=$("$bin" single "$cg/batch/c1" "$cg/batch" 2>&1 | tee "$tmp/single")
rc=$?
[ $rc = 0 ] && has_rows "$out" 3.bound.iter && ! grep -vqE $'^(ROW|SKIP|NOTE|INSN)\t' <<<"$out" &&
	has_insn "$out" &&
	{ [ $vm = 0 ] || has_rows "$out" 1.all.iter 1.kernel 1.all.sys 1.kernel.sys 3.sys.prog 1.b50.sys \
		1.all.into 1.b50.into; }
check single $? "exit $rc: $out"

out=$("$bin" tree "$cg/t10" 2>&1 | tee "$tmp/tree")
rc=$?
[ $rc = 0 ] && has_rows "$out" 3.walk.10 && grep -q $'^SCALE\t10\t' <<<"$out" && has_insn "$out" &&
	{ [ $vm = 0 ] || has_rows "$out" 2.tree.10 3.walk.prog.10 3.walk.lib.10 2.into.10 3.walk.into.10; }
check tree $? "exit $rc: $out"

if [ $vm = 1 ]; then
	out=$("$bin" dirty "$cg/t10" 1 2>&1)
	rc=$?
	[ $rc = 0 ] && has_rows "$out" 5.dirty.10 5.flush.10 5.text.10 && has_insn "$out"
	check dirty $? "exit $rc: $out"

	out=$("$bin" cli 1 "$build/tools/memcgstat" anon,file "$cg/t10" 2>&1)
	rc=$?
	[ $rc = 0 ] && has_rows "$out" 7.cli.wall 7.cli.cpu 7.cli.rss 7.cli.cpu1 7.cli.rss1 &&
		[ "$(grep -cE $'^INSN\t[0-9]+\t7\\.cli\\.(wall\t[AB]|cpu1\t[AB])\t' <<<"$out")" = 4 ]
	check cli $? "exit $rc: $out"

	out=$(MCSBENCH_STATS=anon,file "$bin" oneshot "$cg/batch/c1" "$build/tools/memcgstat" 2>&1 | tee "$tmp/oneshot")
	rc=$?
	[ $rc = 0 ] && has_rows "$out" 7.open.stats 7.open.all 7.open.once 7.proc 7.open.pinned 7.proc.pinned 7.proc.i10 \
		7.proc.i10.pinned &&
		has_insn "$out" && [ ! -e /sys/fs/bpf/memcgstat ]
	check oneshot $? "exit $rc: $out"

	out=$(MCSBENCH_STATS=anon,file "$bin" scrape "$cg/t10" "$build/tools/memcgstat-exporter" 2>&1)
	rc=$?
	[ $rc = 0 ] && has_rows "$out" 8.scrape.10 && has_insn "$out"
	check scrape $? "exit $rc: $out"
fi

# the markers: both kinds for each of the 512 ids of the dispatch, and the
# fault loop's two of each (ids 0 and 1), in the binary
if command -v objdump >/dev/null; then
	nb=$(objdump -d --no-show-raw-insn "$bin" | grep -c 'nopl   0x4d435342(%rax,%rax,1)')
	ne=$(objdump -d --no-show-raw-insn "$bin" | grep -c 'nopl   0x4d435345(%rax,%rax,1)')
	[ "$nb" = 514 ] && [ "$ne" = 514 ] && "$bin" insn-profile-id | grep -qx '[0-9]*'
	check markers $? "$nb begin and $ne end markers in $bin, 514 of each expected"
else
	skip markers "no objdump"
fi

out=$(TMPDIR=$tmp MCSBENCH_INSN=0 "$bin" fault 1 3 2>&1)
rc=$?
[ $rc = 0 ] && grep -qE $'^FAULT\t[0-9.]+\t' <<<"$out" && ! grep -q '^FAULTINSN' <<<"$out"
check fault $? "exit $rc: $out"
# with the markers on (as everywhere here): 1 MiB is 256 pages of 4 KiB, counted in 3 more rounds
out=$(TMPDIR=$tmp "$bin" fault 1 3 2>&1)
rc=$?
[ $rc = 0 ] && grep -qE $'^FAULT\t[0-9.]+\t' <<<"$out" && grep -qx $'FAULTINSN\t256\t3' <<<"$out"
check fault_insn $? "exit $rc: $out"

# the table and the plot from these lines
mkdir -p "$tmp/out"
where=host
[ $vm = 1 ] && where=vm
cat "$tmp/single" "$tmp/tree" | sed -E "s/^INSN\t/INSN\t1\t/; s/^/$where\t/" >"$tmp/out/results.tsv"
printf 'machine: smoke\ndate: now; took 0 min\nparameters: BENCH_ROUNDS=1 BENCH_INSN_OPS=1\n' >"$tmp/out/machine.txt"
# made-up plugin counts: 10 for the empty pair, 1010 for every other
awk -F'\t' '$2 == "INSN" { m = $5 == "-" ? 10 : 1010; printf "insn id=%s pairs=%s total=%d min=%d max=%d\n", $4, $8, m * $8, m, m }' \
	"$tmp/out/results.tsv" | sort -u >"$tmp/out/insn-1.txt"
out=$("$top/bench/report.sh" "$tmp/out" 2>&1)
rc=$?
if [ $vm = 1 ]; then
	insn_re='\*\*(100|1,000)\*\*'
else
	insn_re='host: times only'
fi
[ $rc = 0 ] && grep -q "^| 3.bound.iter | $where |" <<<"$out" && grep -q "^| 3.walk.10 | $where |" <<<"$out" &&
	grep "^| 3.bound.iter | $where |" <<<"$out" | grep -qE "$insn_re" &&
	{ ! command -v gnuplot >/dev/null || [ -s "$tmp/out/scaling.png" ]; }
check report $? "exit $rc: $out"
finish
