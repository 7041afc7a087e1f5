#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The stats of files of their own (limits, peaks, failures, swap and memsw,
# memory.oom.group, memory.events and memory.events.local, cgroup.stat; on
# v1 memory.oom_control, memory.kmem.usage_in_bytes, the soft limit and
# memory.stat's hierarchical limits) and the derived working_set, the limit
# that applies (v2) and nr_descendants (v1: the directories counted),
# against those files, exactly: on a quiescent
# tree of real cgroups with limits written to them, anon charged by memhog,
# page cache, an OOM kill, (v2) a dying descendant and, with PSI, seconds
# of memory stalls. Each stat of this
# hierarchy is compared for every test cgroup on each backend that can run
# here; the bpf backend's values must equal the text backend's and the
# files'. On the host (no kfuncs) that is the text backend; in the VM both.
#
#   files.sh BUILD_DIR [DATAFILE]
#
# DATAFILE: a large file whose page cache is charged to a test cgroup (the
# VM passes the kernel's vmlinux); default: the memcgstat binary.
set -uo pipefail

out=${1:?usage: files.sh BUILD_DIR [DATAFILE]}
bin=$out/tools/memcgstat
memhog=$out/selftests/memhog
data=${2:-$bin}
SUITE=files
. "$(dirname "$0")/../lib.sh"
pids=()
shm=/dev/shm
[ -d $shm ] || shm=/tmp
log=/tmp/memcgstat-files-memhog.$$

if [ -d /sys/fs/cgroup/memory ]; then ver=1 mnt=/sys/fs/cgroup/memory; else ver=2 mnt=/sys/fs/cgroup; fi
if [ ! -w "$mnt" ] || { [ $ver = 2 ] && ! grep -qw memory "$mnt/cgroup.controllers" 2>/dev/null; }; then
	skip files "no writable memory cgroup hierarchy at $mnt"
	finish
fi
t=$mnt/memcgstat-files-$$
cleanup() {
	kill -9 "${pids[@]}" 2>/dev/null
	wait 2>/dev/null
	rm -f $shm/memcgstat-files-$$ "$log" /tmp/memcgstat-files.want /tmp/memcgstat-files.got
	rm_cgroups "$t"
}
trap cleanup EXIT

# stat, its file on this version, its key there ("-": one value; "=":
# derived)
avgs=
if [ $ver = 2 ]; then
	stats="memory_min memory.min -
memory_low memory.low -
memory_high memory.high -
memory_max memory.max -
memory_peak memory.peak -
swap_current memory.swap.current -
swap_high memory.swap.high -
swap_max memory.swap.max -
swap_peak memory.swap.peak -
oom_group memory.oom.group -
nr_descendants cgroup.stat nr_descendants
nr_dying_descendants cgroup.stat nr_dying_descendants
nr_procs cgroup.procs =lines
memory_max_effective = =max
working_set = ="
	for k in low high max oom oom_kill oom_group_kill; do
		stats+=$'\n'"events_$k memory.events $k"$'\n'"events_local_$k memory.events.local $k"
	done
	# memory.pressure needs CONFIG_PSI (and not psi=0); its averages are
	# checked apart (below)
	if [ -f "$mnt/memory.pressure" ]; then
		for l in some full; do
			stats+=$'\n'"pressure_$l memory.pressure psi:$l:total"
			for a in 10 60 300; do
				avgs+="${avgs:+$'\n'}pressure_${l}_avg$a memory.pressure psi:$l:avg$a"
			done
		done
	fi
else
	stats="memory_max memory.limit_in_bytes -
memory_peak memory.max_usage_in_bytes -
memory_failcnt memory.failcnt -
memsw_usage memory.memsw.usage_in_bytes -
memsw_max memory.memsw.limit_in_bytes -
memsw_peak memory.memsw.max_usage_in_bytes -
memsw_failcnt memory.memsw.failcnt -
memory_soft_limit memory.soft_limit_in_bytes -
memory_max_effective memory.stat hierarchical_memory_limit
events_oom_kill memory.oom_control oom_kill
under_oom memory.oom_control under_oom
kernel memory.kmem.usage_in_bytes -
nr_descendants = =count
nr_procs cgroup.procs =lines
working_set = ="
	[ -f "$mnt/memory.memsw.limit_in_bytes" ] &&
		stats+=$'\n'"memsw_max_effective memory.stat hierarchical_memsw_limit"
	# v1 has no memory.pressure: the root's is the system's, and no test
	# cgroup has one (checked apart, below)
	[ -f /proc/pressure/memory ] && stats+=$'\n'"pressure_some /proc/pressure/memory psi:some:total"
fi
ps=$(getconf PAGESIZE)
nolimit=$(( (0x7fffffffffffffff / ps) * ps ))	# v1: PAGE_COUNTER_MAX pages

# The tree: a (limits, oom.group), a/b (memhog, 8 MiB of anon), a/c (an
# OOM kill: 24 MiB of anon against a limit of 16 MiB), a/f (page cache),
# p/k/l (a child and grandchild of a 100 MiB parent: the limit that applies
# to them is p's).
mkdir -p "$t/a/b" "$t/a/c" "$t/a/f" "$t/p/k/l" || { fail setup "mkdir $t"; finish; }
w() { echo "$2" >"$1" || fail setup "echo $2 >$1"; }
if [ $ver = 2 ]; then
	w "$t/cgroup.subtree_control" +memory
	w "$t/a/cgroup.subtree_control" +memory
	w "$t/a/memory.min" 4194304
	w "$t/a/memory.low" 8388608
	w "$t/a/memory.high" 201326592
	w "$t/a/memory.max" 268435456
	w "$t/a/memory.oom.group" 1
	w "$t/a/c/memory.max" 16777216
	w "$t/p/cgroup.subtree_control" +memory
	w "$t/p/k/cgroup.subtree_control" +memory
	w "$t/p/memory.max" 104857600
	w "$t/p/k/l/memory.max" 209715200
	[ -f "$t/a/memory.swap.max" ] && w "$t/a/memory.swap.max" 0 && w "$t/a/memory.swap.high" 0
else
	w "$t/a/memory.limit_in_bytes" 268435456
	w "$t/a/c/memory.limit_in_bytes" 16777216
	w "$t/p/memory.limit_in_bytes" 104857600
	w "$t/p/k/l/memory.limit_in_bytes" 209715200
	w "$t/a/b/memory.soft_limit_in_bytes" 52428800
	if [ -f "$t/a/memory.memsw.limit_in_bytes" ]; then
		w "$t/a/memory.memsw.limit_in_bytes" 536870912
		# a/s: memory + swap, charged first, fails first (24 MiB in 16)
		mkdir "$t/a/s"
		w "$t/a/s/memory.limit_in_bytes" 16777216
		w "$t/a/s/memory.memsw.limit_in_bytes" 16777216
	fi
fi
start_memhog "$log" "$t/a/b" 8 || { fail setup "memhog in a/b: $(cat "$log")"; finish; }
# the OOM kill (v2 with oom.group set on a: the group killed is c's, the
# cgroup whose limit was hit)
rc=$(timeout 20 "$memhog" "$t/a/c" 24 >/dev/null 2>&1; echo $?)
sh -c "echo \$\$ >$t/a/f/cgroup.procs; exec cat $data >/dev/null"
# a dying descendant, held by its shmem
mkdir "$t/a/d"
if [ $ver = 2 ]; then procs=cgroup.procs; else procs=tasks; fi
sh -c "echo \$\$ >$t/a/d/$procs; exec head -c 4194304 /dev/zero >$shm/memcgstat-files-$$"
rmdir "$t/a/d"

cgs="$t $t/a $t/a/b $t/a/c $t/a/f $t/p $t/p/k $t/p/k/l"
# v2 with PSI: a/h stalls on memory for seconds, throttled over its
# memory.high (32 MiB of anon against 8), so that the averages are not 0
if [ $ver = 2 ] && [ -f "$mnt/memory.pressure" ]; then
	mkdir "$t/a/h" && w "$t/a/h/memory.high" 8388608
	timeout 6 "$memhog" "$t/a/h" 32 >/dev/null 2>&1
	cgs+=" $t/a/h"
	p=$(awk '{ print $2, $NF }' "$t/a/h/memory.pressure" | paste -sd' ')
	grep -qE '^avg10=[0-9.]+ total=[1-9][0-9]* avg10=[0-9.]+ total=[1-9][0-9]*$' <<<"$p" &&
		! grep -q '^avg10=0.00 ' <<<"$p"
	check pressure_activity $? "a/h memory.pressure after 6 s over memory.high: $p"
fi
if [ -d "$t/a/s" ]; then
	rs=$(timeout 20 "$memhog" "$t/a/s" 24 >/dev/null 2>&1; echo $?)
	cgs+=" $t/a/s"
fi
nr_cgs=$(wc -w <<<"$cgs")

# A stat's value in its file, as memcgstat's CSV prints it: +Inf for no
# limit, empty where the cgroup has no such file.
fileval() {	# cgroup, stat, file, key
	local v u i
	case $4 in
	-)	[ -f "$1/$3" ] || return 0
		v=$(cat "$1/$3")
		case $2 in
		memory_max|memsw_max|memory_soft_limit) [ "$v" = "$nolimit" ] && v=max ;;
		esac
		[ "$v" = max ] && v=+Inf
		echo "$v" ;;
	=max)	# v2: the lowest memory.max of the cgroup and its ancestors
		v=max i=$1
		while [ -f "$i/memory.max" ]; do
			u=$(cat "$i/memory.max")
			[ "$u" != max ] && { [ $v = max ] || [ "$u" -lt $v ]; } && v=$u
			i=$i/..
		done
		[ $v = max ] && v=+Inf
		echo $v ;;
	=lines)	# cgroup.procs' entries: the cgroup's own processes
		wc -l <"$1/$3" ;;
	=count)	# v1: the directories below
		find "$1" -mindepth 1 -type d 2>/dev/null | wc -l ;;
	=)	if [ $ver = 2 ]; then u=$(cat "$1/memory.current"); k=inactive_file
		else u=$(cat "$1/memory.usage_in_bytes"); k=total_inactive_file; fi
		i=$(awk -v k=$k '$1 == k { print $2 }' "$1/memory.stat")
		echo $(( u > i ? u - i : 0 )) ;;
	psi:*)	# "some avg10=1.23 ... total=N": an average in hundredths (123)
		# v1: /proc/pressure/memory, the root's only
		if [ "${3:0:1}" = / ]; then [ "$1" = "$mnt" ] || return 0; pf=$3; else pf=$1/$3; fi
		IFS=: read -r _ l k <<<"$4"
		awk -v l="$l" -v k="$k" '$1 == l { for (i = 2; i <= NF; i++) {
			split($i, kv, "="); if (kv[1] != k) continue
			if (k == "total") print kv[2]; else { sub(/\./, "", kv[2]); print kv[2] + 0 } } }' "$pf" ;;
	*)	[ -f "$1/$3" ] || return 0
		v=$(awk -v k="$4" '$1 == k { print $2 }' "$1/$3")
		case $4 in
		hierarchical_*_limit) [ "$v" = "$nolimit" ] && v=+Inf ;;
		esac
		echo "$v" ;;
	esac
}

# Every stat of the table this hierarchy has, for every test cgroup: the
# files' values, and each backend's.
names=$(cut -d' ' -f1 <<<"$stats" | paste -sd,)
files_csv() {
	local cg line
	for cg in $cgs; do
		line=${cg#"$mnt"}
		while read -r s f k; do
			line+=,$(fileval "$cg" "$s" "$f" "$k")
		done <<<"$stats"
		echo "$line"
	done
}
# bpf: each cgroup by the default query path (syscall on v2), by an
# iterator each, and the tree in one snapshot
backends=text
"$bin" --backend bpf -s anon >/dev/null 2>&1 && backends="text bpf bpf_iter bpf_tree"
read_as() {	# backend
	case $1 in
	text|bpf) "$bin" --backend "$1" -o csv -s "$names" $cgs ;;
	bpf_iter) "$bin" --backend bpf --query iter -o csv -s "$names" $cgs ;;
	bpf_tree) "$bin" --backend bpf -r -o csv -s "$names" "$t" ;;
	esac 2>&1 | tail -n +2 | cut -d, -f2,4- | sort
}
for be in $backends; do
	for try in 1 2 3 4 5; do
		want=$(files_csv | sort)
		got=$(read_as "$be")
		[ "$want" = "$got" ] && break
		sleep 0.3
	done
	printf '%s\n' "$want" >/tmp/memcgstat-files.want
	printf '%s\n' "$got" >/tmp/memcgstat-files.got
	col=2
	while read -r s f k; do
		diffs=$(paste -d'|' /tmp/memcgstat-files.want /tmp/memcgstat-files.got |
			awk -F'|' -v c=$col '{ split($1, w, ","); split($2, g, ",");
				if (w[c] != g[c]) printf "%s: file %s, memcgstat %s\n", w[1], w[c], g[c] }')
		if [ -z "$diffs" ] && [ "$(wc -l </tmp/memcgstat-files.got)" = "$nr_cgs" ]; then
			ok "${s}_$be"
		else
			fail "${s}_$be" "$f${k:+ $k}:" "${diffs:-$(head -3 /tmp/memcgstat-files.got)}"
		fi
		col=$((col + 1))
	done <<<"$stats"
done
# The PSI averages move on their own (the kernel recomputes them every 2 s
# as they decay), so no two reads need agree: each backend's must lie
# between the file's read just before and just after it, for every test
# cgroup, while nothing stalls.
if [ -n "$avgs" ]; then
	anames=$(cut -d' ' -f1 <<<"$avgs" | paste -sd,)
	for be in $backends; do
		before=$(stats=$avgs files_csv | sort)
		got=$(names=$anames read_as "$be")
		after=$(stats=$avgs files_csv | sort)
		diffs=$(paste -d'|' <(echo "$before") <(echo "$got") <(echo "$after") |
			awk -F'|' '{ n = split($1, b, ","); split($2, g, ","); split($3, a, ",")
				if (b[1] != g[1] || g[1] != a[1]) { print "rows differ: " $0; next }
				for (i = 2; i <= n; i++) if (g[i] == "" || g[i] + 0 > b[i] + 0 || g[i] + 0 < a[i] + 0)
					printf "%s column %d: file %s before, memcgstat %s, file %s after\n", b[1], i - 1, b[i], g[i], a[i] }')
		[ -z "$diffs" ] && [ "$(wc -l <<<"$got")" = "$nr_cgs" ]
		check "pressure_averages_$be" $? "$anames:" "$diffs" "$got"
	done
fi
[ $ver = 2 ] && [ ! -f "$mnt/memory.pressure" ] &&
	skip pressure "no memory.pressure in this kernel (CONFIG_PSI off, or psi=0)"
[ "$backends" = text ] && skip files_bpf "the bpf backend cannot run here: $("$bin" --backend bpf -s anon 2>&1 | head -1)"

# The comparisons compared what the test did, not zeros and defaults.
v() { "$bin" --backend text -o csv -s "$2" "$1" 2>/dev/null | tail -1 | cut -d, -f4; }
oom_seen() { [ "$rc" = 137 ] || [ "$rc" = 0 ]; }	# killed, or (with swap) survived
if [ $ver = 2 ]; then
	[ "$(v "$t/a" memory_min)" = 4194304 ] && [ "$(v "$t/a" memory_high)" = 201326592 ] &&
		[ "$(v "$t/a" memory_max)" = 268435456 ] && [ "$(v "$t/a/b" memory_max)" = +Inf ] &&
		[ "$(v "$t/a" oom_group)" = 1 ] && [ "$(v "$t/a" nr_descendants)" -ge 3 ] &&
		[ "$(v "$t/a" nr_dying_descendants)" -ge 1 ] &&
		[ "$(v "$t/a/c" events_local_max)" -gt 0 ] && [ "$(v "$t/a" events_max)" -gt 0 ] &&
		[ "$(v "$t/a" events_local_max)" = 0 ] &&
		[ "$(v "$t/a/b" memory_peak)" -ge 8388608 ] && [ "$(v "$t/a/b" working_set)" -ge 8388608 ]
	check activity_visible $? "memhog in a/c exited $rc; a: $("$bin" --backend text -s memory_min,memory_high,memory_max,oom_group,nr_descendants,nr_dying_descendants,events_max,events_local_max -o csv "$t/a" 2>&1 | tail -1)"
	if [ -d "$t/a/h" ]; then
		[ "$(v "$t/a/h" pressure_some)" -gt 0 ] && [ "$(v "$t/a/h" pressure_full)" -gt 0 ] &&
			[ "$(v "$t/a/h" pressure_some_avg300)" -gt 0 ] && [ "$(v "$t/a/h" events_local_high)" -gt 0 ]
		check pressure_visible $? "a/h: $("$bin" --backend text -o csv -s pressure_some,pressure_full,pressure_some_avg300,pressure_full_avg300,events_local_high "$t/a/h" 2>&1 | tail -1)"
	fi
	if [ "$rc" = 137 ]; then
		[ "$(v "$t/a/c" events_local_oom_kill)" -ge 1 ] && [ "$(v "$t/a" events_oom_kill)" -ge 1 ]
		check oom_kill_counted $? "events of a/c: $("$bin" --backend text -o csv -s events_local_oom_kill,events_oom_kill "$t/a/c" 2>&1 | tail -1)"
	else
		skip oom_kill_counted "memhog 24 MiB in 16 MiB exited $rc, not killed (swap?)"
	fi
else
	[ "$(v "$t/a" memory_max)" = 268435456 ] && [ "$(v "$t/a/b" memory_max)" = +Inf ] &&
		[ "$(v "$t/a/c" memory_failcnt)" -gt 0 ] && [ "$(v "$t/a/b" memory_peak)" -ge 8388608 ] &&
		[ "$(v "$t/a/b" working_set)" -ge 8388608 ]
	check activity_visible $? "memhog in a/c exited $rc; $("$bin" --backend text -o csv -s memory_max,memory_failcnt,memory_peak,working_set $cgs 2>&1)"
	# Linux 6.12 counts memsw failures (36 here); the host's 6.18 counts
	# none (its memory.memsw.failcnt stays 0 through this OOM kill): some
	# are required on 6.12 and before only, the kernels between untried
	kv=$(uname -r | awk -F. '{ print $1 * 100 + $2 }')
	if [ -d "$t/a/s" ]; then
		{ [ "$kv" -gt 612 ] || [ "$(v "$t/a/s" memsw_failcnt)" -gt 0 ]; } &&
			[ "$(v "$t/a/s" memsw_max)" = 16777216 ] && [ "$(v "$t/a/s" memsw_peak)" = 16777216 ]
		check memsw_activity_visible $? "memhog in a/s exited $rs; $("$bin" --backend text -o csv -s memsw_max,memsw_failcnt,memsw_peak "$t/a/s" 2>&1)"
	else
		skip memsw_activity_visible "no memory.memsw.* files (swap accounting off)"
	fi
fi
oom_seen || fail memhog_oom "memhog 24 MiB in 16 MiB exited $rc"

# The limit that applies, exactly: p's 100 MiB for p/k (no limit of its
# own) and p/k/l (200 MiB of its own), a's 256 MiB for a/b.
[ "$(v "$t/p/k" memory_max)" = +Inf ] && [ "$(v "$t/p/k" memory_max_effective)" = 104857600 ] &&
	[ "$(v "$t/p/k/l" memory_max_effective)" = 104857600 ] &&
	[ "$(v "$t/p" memory_max_effective)" = 104857600 ] &&
	[ "$(v "$t/a/b" memory_max_effective)" = 268435456 ]
check max_effective $? "$("$bin" --backend text -o csv -s memory_max,memory_max_effective "$t/p" "$t/p/k" "$t/p/k/l" "$t/a/b" 2>&1)"
# nr_descendants, exactly: the fixture's live cgroups below $t (v2: not
# the dying a/d)
nd=7
for x in a/s a/h; do [ -d "$t/$x" ] && nd=$((nd + 1)); done
[ "$(v "$t" nr_descendants)" = $nd ] && [ "$(v "$t/p" nr_descendants)" = 2 ] &&
	[ "$(v "$t/p/k/l" nr_descendants)" = 0 ]
check nr_descendants_exact $? "want $nd, 2, 0: $("$bin" --backend text -o csv -s nr_descendants "$t" "$t/p" "$t/p/k/l" 2>&1)"
if [ $ver = 1 ]; then
	# memory.oom_control: a/c's one OOM kill counts in a/c alone on v1
	if [ "$rc" = 137 ]; then
		[ "$(v "$t/a/c" events_oom_kill)" = 1 ] && [ "$(v "$t/a" events_oom_kill)" = 0 ] &&
			[ "$(v "$t/a/c" under_oom)" = 0 ]
		check oom_kill_exact $? "events_oom_kill of a/c (want 1), a (want 0), under_oom: $("$bin" --backend text -o csv -s events_oom_kill,under_oom "$t/a/c" "$t/a" 2>&1)"
	else
		skip oom_kill_exact "memhog 24 MiB in 16 MiB exited $rc, not killed (swap?)"
	fi
	# the soft limit written (Linux 6.12.117 ignores the write and prints
	# max: then that); kernel memory charged to a/b (memhog's page tables
	# and stack at least)
	sl=$(cat "$t/a/b/memory.soft_limit_in_bytes")
	[ "$sl" = "$nolimit" ] && sl=+Inf && echo "  (this kernel ignores soft limit writes: a/b's reads max)"
	{ [ "$sl" = 52428800 ] || [ "$sl" = +Inf ]; } && [ "$(v "$t/a/b" memory_soft_limit)" = "$sl" ] &&
		[ "$(v "$t/a" memory_soft_limit)" = +Inf ] && [ "$(v "$t/a/b" kernel)" -gt 0 ]
	check v1_limits_kmem $? "want $sl for a/b: $("$bin" --backend text -o csv -s memory_soft_limit,kernel "$t/a/b" "$t/a" 2>&1)"
	# The root's dying cgroups (v1 has no cgroup.stat): /proc/cgroups'
	# memory cgroups less the root and the live ones, a/d's at least; read
	# again while other cgroups come and go on this machine
	for be in $backends; do
		case $be in text|bpf) ;; *) continue ;; esac
		still=0
		for try in $(seq 30); do
			n1=$(awk '$1 == "memory" { print $3 }' /proc/cgroups)
			live=$(find "$mnt" -mindepth 1 -type d 2>/dev/null | wc -l)
			got=$("$bin" --backend $be -o csv -s nr_dying_descendants / "$t/a" 2>&1 | tail -n +2 | cut -d, -f4 | paste -sd,)
			n2=$(awk '$1 == "memory" { print $3 }' /proc/cgroups)
			want=$((n1 - 1 - live)),
			[ "$n1" = "$n2" ] && still=1 && [ "$got" = "$want" ] && break
			sleep 0.5
		done
		if [ $still = 0 ]; then
			skip "dying_root_$be" "the machine's cgroups never held still for a read (/proc/cgroups $n1 .. $n2)"
			continue
		fi
		[ "$got" = "$want" ] && [ "${got%,}" -ge 1 ]
		check "dying_root_$be" $? "/ and a (none: the root's only): memcgstat $got, /proc/cgroups $n1 .. $n2 less 1 and $live live: $want"
	done
	# The root's pressure is the system's (/proc/pressure/memory): the
	# totals only grow, so each backend's lies between the file's just
	# before and just after it
	if [ -f /proc/pressure/memory ]; then
		tot() { awk '{ sub(/.*total=/, ""); printf "%s%s", s, $0; s = "," } END { print "" }' /proc/pressure/memory; }
		for be in $backends; do
			case $be in text|bpf) ;; *) continue ;; esac
			before=$(tot)
			got=$("$bin" --backend $be -o csv -s pressure_some,pressure_full / 2>&1 | tail -1 | cut -d, -f4-)
			after=$(tot)
			awk -F, -v b="$before" -v g="$got" -v a="$after" 'BEGIN {
				split(b, x); split(g, y); split(a, z)
				exit !(y[1] != "" && y[2] != "" && x[1] <= y[1] && y[1] <= z[1] && x[2] <= y[2] && y[2] <= z[2]) }'
			check "root_pressure_$be" $? "some,full: file $before before, memcgstat $got, file $after after"
		done
	else
		skip root_pressure "no /proc/pressure/memory (CONFIG_PSI off, or psi=0)"
	fi
fi


# A reset of the peak (v1: a write to max_usage_in_bytes) shows at once:
# a/c peaked at its limit, 16 MiB, and holds little since the OOM kill.
if [ $ver = 1 ]; then
	echo 0 >"$t/a/c/memory.max_usage_in_bytes"
	p=$(v "$t/a/c" memory_peak)
	[ "$p" = "$(cat "$t/a/c/memory.max_usage_in_bytes")" ] && [ "$p" -lt 16777216 ]
	check peak_reset $? "memory_peak $p after the reset, file $(cat "$t/a/c/memory.max_usage_in_bytes")"
fi

# No limit: the word "max" in the table; never a string in a numeric field:
# +Inf in CSV (a number to python, pandas, awk) and OpenMetrics (which the
# strict parser takes as infinity), null in JSON with the stat in the
# cgroup's "unlimited" list.
out=$("$bin" -s memory_max "$t/a/b" 2>&1)
tail -1 <<<"$out" | grep -qE '^/.*/a/b +max$'
check max_table $? "$out"
out=$("$bin" -o csv -s memory_max "$t/a/b" 2>&1)
tail -1 <<<"$out" | grep -qE ',\+Inf$'
check max_csv $? "$out"
out=$("$bin" -o json -s memory_max,usage "$t/a/b" 2>&1)
/usr/bin/python3 -c 'import json, sys
c = json.loads(sys.argv[1])["cgroups"][0]
s = c["stats"]
sys.exit(0 if s["memory_max"] is None and c["unlimited"] == ["memory_max"] and
         isinstance(s["usage"], int) else 1)' "$out"
check max_json $? "$out"
out=$("$bin" -o openmetrics -s memory_max "$t/a/b" "$t/a" 2>&1)
/usr/bin/python3 -c 'import math, sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
v = {s.labels["cgroup"]: s.value for f in text_string_to_metric_families(sys.argv[1]) for s in f.samples}
sys.exit(0 if sorted(v.values()) == [268435456, math.inf] else 1)' "$out"
check max_openmetrics_inf $? "$out"

# Stats of the other hierarchy are refused by name.
if [ $ver = 2 ]; then other=memsw_max; else other=memory_min; fi
expect other_version_refused 2 "stat '$other' is cgroup v[12]'s only" -- -s $other "$t"
finish
