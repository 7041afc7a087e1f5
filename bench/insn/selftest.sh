#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Self-test of the insncount plugin: builds it and the guest program
# bench/insn/selftest.c, boots the test VM (TCG, 1 vCPU) with the plugin,
# runs the program and checks the plugin's counts on the host:
#   - regions of known length count exactly (the per-pair minimum: a pair
#     that an interrupt hits counts more), and the pair counts are right;
#   - markers split across translation blocks count the same;
#   - two runs of the same getpid() loop agree within 1 %, in one boot
#     and across two boots;
#   - profile=on attributes exactly the region's instructions, and
#     symbolize.py finds getpid's kernel and user code in it;
#   - without the plugin the program runs the same (markers are NOPs).
# Prints "#N insn/NAME:OK|FAIL|SKIP (why)", the numbers measured, and a
# closing "N passed, N failed, N skipped"; exits 1 on any FAIL.
#
#   bench/insn/selftest.sh [-k KDIR] [-t SECS] [-o DIR]
#
#   -k DIR   kernel directory with bzImage (default: kernel/build.sh's)
#   -t SECS  time limit of each of the three VM boots (default: 300)
#   -o DIR   keep the runs' files in DIR (default: a temporary directory)
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${OUT:-$top/build/insn}
kdir='' tmo=300 keep=''

while getopts "k:t:o:h" opt; do
	case $opt in
	k) kdir=$OPTARG ;;
	t) tmo=$OPTARG ;;
	o) keep=$OPTARG ;;
	*) sed -n '3,/^set /p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
if [ -n "$keep" ]; then
	work=$keep
	mkdir -p "$work"
else
	work=$(mktemp -d /tmp/insn-selftest.XXXXXX)
	trap 'rm -rf "$work"' EXIT
fi
work=$(cd "$work" && pwd)

SUITE=insn
. "$top/selftests/lib.sh"

# field FILE ID KEY: KEY's value on the plugin's "insn id=ID" line
field() { awk -v id="$2" -v k="$3" '$1 == "insn" && $2 == "id=" id {
	for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) print kv[2] } }' "$1"; }
# summary FILE KEY
summary() { awk -v k="$2" '$1 == "insn-summary" {
	for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) print kv[2] } }' "$1"; }
# kv LINE KEY: a key=value of a guest line
kv() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
# within A B PCT: |A - B| <= PCT % of the smaller
within() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN {
	d = a - b; if (d < 0) d = -d; m = a < b ? a : b; exit !(m > 0 && d * 100 <= p * m) }'; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; m = a < b ? a : b;
	printf "%.3f", m ? 100 * d / m : 0 }'; }

# -- build
if timeout 300 make -s -C "$here" OUT="$out" >"$work/build.log" 2>&1; then
	ok build
else
	fail build "$(tail -5 "$work/build.log")"
	finish
fi

vmargs=(-q -m 1G -t "$tmo")
[ -n "$kdir" ] && vmargs+=(-k "$kdir")
# boot NAME VMTEST-ARGS...: one VM run of the guest program into
# $work/NAME (vmtest.sh's files, and time: qemu start to exit, seconds)
boot() {
	local name=$1 t0 rc
	shift
	mkdir -p "$work/$name"
	t0=$(date +%s.%N)
	"$top/selftests/vmtest.sh" "${vmargs[@]}" -o "$work/$name" "$@" -- "$out/selftest" \
		>"$work/$name.out" 2>"$work/$name.err"
	rc=$?
	awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f\n", b - a }' >"$work/$name/time"
	return $rc
}

# -- boot 1: the plugin, counts only
if ! boot plain -I "$work/plain/insn.txt"; then
	fail boot "$(tail -8 "$work/plain.err")"
	finish
fi
res=$work/plain/insn.txt
if [ ! -s "$res" ] || [ -z "$(summary "$res" vcpu_insns)" ]; then
	fail boot "the plugin wrote no results to $res"
	finish
fi
ok boot

# -- the regions the guest says it ran, with their exact counts
while read -r line; do
	id=$(kv "$line" id) name=$(kv "$line" name) pairs=$(kv "$line" pairs) want=$(kv "$line" min)
	got_pairs=$(field "$res" "$id" pairs) got=$(field "$res" "$id" min) max=$(field "$res" "$id" max)
	if [ "$got_pairs" != "$pairs" ]; then
		fail "$name" "id $id: ${got_pairs:-no} pairs counted, $pairs run"
	elif [ "$got" != "$want" ]; then
		fail "$name" "id $id: $got instructions (min of $pairs pairs), $want by construction"
	else
		ok "$name"
		[ "$max" = "$want" ] || echo "  $name: $want exactly; the largest pair $max (an interrupt in it)"
	fi
done < <(grep '^insn-expect ' "$work/plain.out")

splits=$(summary "$res" split) want=$(kv "$(grep '^insn-split ' "$work/plain.out")" markers)
if [ -z "$want" ]; then
	fail split_path "the guest made no split markers"
elif [ "${splits:-0}" -ge "$want" ]; then
	ok split_path
else
	skip split_path "QEMU did not end a block after the marker head: $splits of $want split"
fi

unm=$(summary "$res" unmatched_end) reb=$(summary "$res" rebegin) open=$(summary "$res" open)
check balance "$([ "$unm$reb$open" = 000 ]; echo $?)" \
	"unmatched ends $unm, begins of open ids $reb, ids left open $open"

# -- getpid
once=$(field "$res" 10 min) once_pairs=$(field "$res" 10 pairs) once_total=$(field "$res" 10 total)
if [ -n "$once" ] && [ "$once" -gt 2 ] && [ "$once_pairs" -gt 0 ]; then
	ok getpid_once
	echo "  getpid: $once instructions a call, user and kernel (min of $once_pairs pairs;" \
		"mean $(awk -v t="$once_total" -v p="$once_pairs" 'BEGIN { printf "%.1f", t / p }'))"
else
	fail getpid_once "id 10: min '${once:-none}' over '${once_pairs:-no}' pairs"
fi

agree=$(grep '^insn-agree ' "$work/plain.out")
a=$(field "$res" "$(kv "$agree" id)" total) b=$(field "$res" "$(kv "$agree" id2)" total)
p=$(kv "$agree" pct) calls=$(kv "$(grep '^insn-report id=11 ' "$work/plain.out")" calls)
if [ -n "$a" ] && [ -n "$b" ] && within "$a" "$b" "$p"; then
	ok getpid_repeat
else
	fail getpid_repeat "two runs of $calls getpid() calls: ${a:-none} and ${b:-none}, more than $p % apart"
fi
[ -n "$a" ] && [ -n "$b" ] && echo "  getpid loop, $calls calls: $a and $b instructions" \
	"($(pct "$a" "$b") % apart; $(awk -v a="$a" -v c="$calls" 'BEGIN { printf "%.2f", a / c }') a call)"

# -- boot 2: profile mode, only while id 11 (the first getpid loop) is open
if boot prof -I "$work/prof/insn.txt" -P profile=on,profile_top=0,profile_id=11 && [ -s "$work/prof/insn.txt" ]; then
	ok profile_boot
	pres=$work/prof/insn.txt
	a2=$(field "$pres" 11 total)
	if [ -n "$a" ] && [ -n "$a2" ] && within "$a" "$a2" 1; then
		ok getpid_across_boots
	else
		fail getpid_across_boots "id 11 in two boots: ${a:-none} and ${a2:-none}, more than 1 % apart"
	fi
	echo "  getpid loop in two boots: $a and $a2 ($(pct "${a:-0}" "${a2:-0}") % apart)"
	# the profile spans the same instructions as the pair, plus the two
	# marker instructions its counter difference includes
	ptotal=$(awk '$1 == "prof" && $2 ~ /^total=/ { sub("total=", "", $2); print $2 }' "$pres")
	check profile_total "$([ -n "$a2" ] && [ "$ptotal" = $((a2 + 2)) ]; echo $?)" \
		"profile total ${ptotal:-none}, id 11 total ${a2:-none} (+2 expected)"
	# every symbol: on the debug kernel lockdep and KASAN push getpid's own
	# code out of the first 15 (make test-debug)
	if "$here/symbolize.py" ${kdir:+--vmlinux "$kdir/vmlinux"} --bin "$out/selftest" \
		--top 0 "$pres" >"$work/symbols.txt" 2>&1 &&
		grep -qE 'sys_getpid.*\[vmlinux\]' "$work/symbols.txt" &&
		grep -qE 'getpid.*\[selftest\]' "$work/symbols.txt"; then
		ok symbolize
		sed 's/^/  /' "$work/symbols.txt" | head -12
	else
		fail symbolize "$(head -20 "$work/symbols.txt")"
	fi
else
	fail profile_boot "$(tail -8 "$work/prof.err")"
fi

# -- boot 3: no plugin, for the program's own results and the timing
if boot noplug -T -p 1; then
	ok no_plugin
	t1=$(cat "$work/plain/time") t0=$(cat "$work/noplug/time")
	g1=$(kv "$(grep 'name=fixed_regions' "$work/plain.out")" ms)
	g0=$(kv "$(grep 'name=fixed_regions' "$work/noplug.out")" ms)
	l1=$(kv "$(grep 'name=getpid_loop' "$work/plain.out")" ms)
	l0=$(kv "$(grep 'name=getpid_loop' "$work/noplug.out")" ms)
	echo "  wall time, plugin vs none: VM boot+run ${t1}s vs ${t0}s;" \
		"fixed regions ${g1}ms vs ${g0}ms; getpid loop ${l1}ms vs ${l0}ms"
	echo "  guest instructions of boot 1, boot to power-off: $(summary "$res" vcpu_insns)"
else
	fail no_plugin "$(tail -8 "$work/noplug.err")"
fi
finish
