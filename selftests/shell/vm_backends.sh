#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run in the test VM (patched kernel): on a quiescent tree of cgroups with
# real activity, the bpf and text backends give identical values for every
# stat the text files show, hierarchical, local (v1) and per node (v2); a
# large snapshot holds each cgroup once; a filtered snapshot holds exactly
# the chosen cgroups; the CLI's JSON equals what the library returns.
#
#   vm_backends.sh [--upstream] BUILD_DIR DATAFILE [NR_CGROUPS]
#
# --upstream: the kernel has Linux 7.0's kfunc set only (kernel/build.sh
# --upstream): the hierarchical values still equal, --local and --numa are
# refused with the missing kfunc's name. With MEMCGSTAT_BPF_SHA set, the
# library's BPF object must have that sha256 (the same object in every boot).
#
# DATAFILE is a large file no program here maps (the kernel's vmlinux): its
# page cache is charged to a test cgroup. Mapping the test's own binaries
# instead would move that cgroup's file_mapped whenever memcgstat runs.
set -uo pipefail

upstream=0
[ "${1:-}" = --upstream ] && { upstream=1; shift; }
out=${1:?usage: vm_backends.sh BUILD_DIR DATAFILE [NR_CGROUPS]}
data=${2:?usage: vm_backends.sh BUILD_DIR DATAFILE [NR_CGROUPS]}
big=${3:-10000}
bin=$out/tools/memcgstat
pids=()
SUITE=backends
. "$(dirname "$0")/../lib.sh"

if [ -d /sys/fs/cgroup/memory ]; then ver=1 mnt=/sys/fs/cgroup/memory; else ver=2 mnt=/sys/fs/cgroup; fi
t=$mnt/memcgstat-backends
cleanup() {
	kill -9 "${pids[@]}" 2>/dev/null
	wait 2>/dev/null
	rm -f /tmp/memcgstat-shm-*
	[ -d "$t/big" ] && rmdir "$t"/big/c[0-9]* "$t/big" 2>/dev/null
	rmdir "$t/a/c" "$t/a" "$t/b" "$t" 2>/dev/null
}
trap cleanup EXIT

mkdir -p "$t/a/c" "$t/b" || exit 1
if [ $ver = 2 ]; then
	echo +memory >"$t/cgroup.subtree_control"
	echo +memory >"$t/a/cgroup.subtree_control"
fi
# anon in a/c and b, shmem charged to b, file pages charged to a/c
for spec in "$t/a/c 24" "$t/b 8"; do
	set -- $spec
	log=/tmp/memhog.${#pids[@]}
	"$out/selftests/memhog" "$1" "$2" >"$log" 2>&1 &
	pids+=($!)
	for i in $(seq 100); do
		grep -q ready "$log" && break
		sleep 0.1
	done
	grep -q ready "$log" || { fail setup "memhog in $1: $(cat "$log")"; exit 1; }
done
sh -c "echo \$\$ >$t/b/cgroup.procs; head -c 6291456 /dev/zero >/tmp/memcgstat-shm-b"
sh -c "echo \$\$ >$t/a/c/cgroup.procs; dd if=$data of=/dev/null bs=1M skip=80 count=16 status=none"

# Both backends, all default stats, whole tree; retry while the tree moves.
compare() {	# name, extra args
	local name=$1 tries a b
	shift
	for tries in 1 2 3 4 5; do
		a=$("$bin" --backend text -r -o csv "$@" "$t" 2>&1 | cut -d, -f2-)
		b=$("$bin" --backend bpf -r -o csv "$@" "$t" 2>&1 | cut -d, -f2-)
		[ "$a" = "$b" ] && break
		sleep 0.2
	done
	if [ "$a" = "$b" ] && [ "$(wc -l <<<"$a")" = 5 ]; then
		ok "$name"
		echo "  $(head -1 <<<"$a" | tr ',' '\n' | wc -l) columns x 4 cgroups equal"
	else
		printf '%s\n' "$a" >/tmp/backends.text
		printf '%s\n' "$b" >/tmp/backends.bpf
		fail "$name" "text and bpf differ (cgroup column=text/bpf):" \
			"$(awk -F, 'NR == FNR { t[FNR] = $0; next }
				    FNR == 1 { n = split($0, h, ","); next }
				    { split(t[FNR], x, ","); for (i = 1; i <= NF; i++) if ($i != x[i]) printf "%s %s=%s/%s\n", $1, h[i], x[i], $i }' \
				/tmp/backends.text /tmp/backends.bpf | head -20)"
	fi
}
# The library's two builds of bpf/memcg_iter.bpf.c, hashed together.
bpf_sha() { (cd "$1/lib" && sha256sum memcg_iter.bpf.o memcg_iter.upstream.bpf.o) | sha256sum | cut -c1-64; }
if [ -n "${MEMCGSTAT_BPF_SHA:-}" ]; then
	sha=$(bpf_sha "$out")
	if [ "$sha" = "$MEMCGSTAT_BPF_SHA" ]; then
		ok bpf_objects_same
		echo "  memcg_iter{,.upstream}.bpf.o: sha256 $sha"
	else
		fail bpf_objects_same "memcg_iter{,.upstream}.bpf.o: sha256 $sha, want $MEMCGSTAT_BPF_SHA"
	fi
fi

# Which build the library loads: the one without memcgstat's additions on a
# kernel that lacks them.
want=linux-7.0+memcgstat
[ $upstream = 1 ] && want=linux-7.0
msg=$("$bin" -v --backend bpf -s anon "$t" 2>&1 >/dev/null)
if grep -qx "memcgstat: kfuncs $want" <<<"$msg"; then
	ok "kfuncs_$want"
else
	fail "kfuncs_$want" "$msg"
fi

# A view the kernel lacks a kfunc for: refused, naming the kfunc.
refused() {	# name, kfunc, args
	local name=$1 kfunc=$2 msg rc
	shift 2
	msg=$("$bin" --backend bpf -s anon "$@" "$t" 2>&1)
	rc=$?
	if [ $rc = 1 ] && grep -q "kernel lacks kfunc $kfunc" <<<"$msg"; then
		ok "$name"
	else
		fail "$name" "exit $rc: $msg"
	fi
}

compare text_equals_bpf

# memcgstat top -b: the same frame on both backends but for the backend's
# name (--totals --bytes: nothing rounded, no rates); then rates on bpf, a
# number for every cgroup in the second frame.
for tries in 1 2 3 4 5; do
	a=$("$bin" top -b -n 1 --totals --bytes --backend text "$t" 2>&1 | sed '1s/^[0-9:]* //; 1s/text backend/BACKEND/')
	b=$("$bin" top -b -n 1 --totals --bytes --backend bpf "$t" 2>&1 | sed '1s/^[0-9:]* //; 1s/bpf backend/BACKEND/')
	[ "$a" = "$b" ] && break
	sleep 0.2
done
[ "$a" = "$b" ] && [ "$(wc -l <<<"$a")" = 7 ] &&
	head -1 <<<"$a" | grep -q "^memcgstat top /memcgstat-backends: 4 cgroups, every 2s, BACKEND, cgroup v$ver$"
check top_text_equals_bpf $? "text:" "$a" "bpf:" "$b"
out2=$("$bin" top -b -n 2 -i 0.3 --backend bpf "$t" 2>&1 | awk 'BEGIN { RS = "" } NR == 2')
rates=$(awk '/CGROUP$/ { for (i = 1; i <= NF; i++) if ($i ~ /FLT\/s$/) c = i; next }
	     c && $c ~ /^[0-9.]+k?$/ { n++ } END { print n + 0 }' <<<"$out2")
[ "$rates" = 4 ] && head -1 <<<"$out2" | grep -q 'bpf backend'
check top_bpf_rates $? "$out2"
if [ $upstream = 1 ]; then
	refused local_refused_upstream bpf_memcgstat_page_state_local --local
	refused numa_refused_upstream bpf_memcgstat_node_page_state --numa
elif [ $ver = 1 ]; then
	compare text_equals_bpf_local --local
else
	compare text_equals_bpf_numa --numa
fi

# --backend auto takes text for a run of few cgroup reads (loading the bpf
# programs would cost more than the reads): a one-shot read of a cgroup, a
# snapshot of a small tree (4 cgroups: $t, a, a/c, b), top's frame of it;
# bpf for 2000 reads or more (big_tree_auto_bpf, below).
one=$("$bin" -v -s anon "$t/a/c" 2>&1 >/dev/null)
tree=$("$bin" -v -r -s anon "$t" 2>&1 >/dev/null)
frame=$("$bin" top -b -n 1 -v "$t" 2>&1 >/dev/null)
grep -q "^memcgstat: using the text backend: 1 cgroup reads cost less than loading the bpf backend" <<<"$one" &&
	grep -q "^memcgstat: backend text," <<<"$one" &&
	grep -q "^memcgstat: using the text backend: 4 cgroup reads cost less than loading the bpf backend" <<<"$tree" &&
	grep -q "^memcgstat: backend text," <<<"$tree" &&
	grep -q "^memcgstat top: using the text backend: 4 cgroup reads cost less" <<<"$frame" &&
	grep -q "^memcgstat top: backend text," <<<"$frame"
check auto_by_reads $? "one-shot: $one" "snapshot: $tree" "top: $frame"

# --list-stats -v: both backends read anon, usage and kernel here (v1: its
# kmem page counter, memory.kmem.usage_in_bytes).
list=$("$bin" --list-stats -v 2>&1)
want_kernel='yes +yes'
grep -qE '^anon +gauge +bytes +yes +yes$' <<<"$list" && grep -qE '^usage +gauge +bytes +yes +yes$' <<<"$list" &&
	grep -qE "^kernel +gauge +bytes +$want_kernel\$" <<<"$list"
check list_stats_backends $? "$(grep -E '^(STAT|anon|usage|kernel) ' <<<"$list")"

# The anon above must show, or the comparisons compared zeros.
anon=$("$bin" --backend bpf -o csv -s anon "$t/a/c" 2>/dev/null | tail -1 | cut -d, -f4)
if [ "${anon:-0}" -ge $((24 << 20)) ]; then ok activity_visible; else fail activity_visible "anon of a/c: $anon"; fi

# JSON from the CLI equals the library's values (test_lib -p prints them).
lib=$(MEMCGSTAT_BACKEND=bpf "$out/selftests/test_lib" "$t" -p | grep -v '^#' | cut -d, -f1-4)
json=$("$bin" --backend bpf -r -o json -s anon,file "$t" 2>/dev/null |
	grep -o '"path":"[^"]*","id":[0-9]*,"stats":{"anon":[0-9]*,"file":[0-9]*}' |
	sed 's/"path":"\([^"]*\)","id":\([0-9]*\),"stats":{"anon":\([0-9]*\),"file":\([0-9]*\)}/\1,\2,\3,\4/')
# test_lib prints every default column; anon and file are the first two
if [ -n "$json" ] && [ "$(sort <<<"$lib")" = "$(sort <<<"$json")" ]; then
	ok json_equals_library
else
	fail json_equals_library "library: $lib" "json: $json"
fi

# Library API on the tree: each cgroup once, exact filtered snapshot.
MEMCGSTAT_BACKEND=bpf "$out/selftests/test_lib" "$t" >/tmp/test_lib.out 2>&1
while read -r line; do
	case $line in
	"#"*:OK) name=${line#*lib/}; ok "lib_${name%:OK}" ;;
	"#"*:FAIL) name=${line#*lib/}; fail "lib_${name%:FAIL}" ;;
	*) echo "$line" ;;
	esac
done </tmp/test_lib.out

# The example monitor embeds the library: bpf backend, the hog on top.
mon=$("$out/examples/topanon" -i 0.5 -n 2 -k 3 "$t" 2>&1)
if head -1 <<<"$mon" | grep -qx 'backend bpf' && grep -qE '^CGROUP +ANON +GROWTH/S$' <<<"$mon" &&
   [ "$(grep -cE '^/memcgstat-backends[^ ]* +[0-9]+ +-?[0-9]+$' <<<"$mon")" = 3 ]; then
	ok example_monitor
else
	fail example_monitor "$mon"
fi

# Without CAP_BPF/CAP_PERFMON/CAP_SYS_ADMIN: bpf is refused with the
# reason, auto falls back to text and says why.
np=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all)
msg=$("${np[@]}" "$bin" --backend bpf -s anon "$t" 2>&1)
rc=$?
if [ $rc = 1 ] && grep -q "not permitted to load BPF: needs CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN" <<<"$msg"; then
	ok unprivileged_bpf_refused
else
	fail unprivileged_bpf_refused "exit $rc: $msg"
fi
# (500 samples of the 4 cgroups: reads enough for auto to want bpf)
msg=$("${np[@]}" "$bin" -v -r -i 0.001 -c 500 -o csv -s anon "$t" 2>&1)
rc=$?
if [ $rc = 0 ] && grep -q "using the text backend: not permitted to load BPF" <<<"$msg" &&
   grep -qE "^[0-9.]+,/memcgstat-backends/a/c,[0-9]+,[0-9.]*,[0-9]+$" <<<"$msg"; then
	ok unprivileged_auto_falls_back
else
	fail unprivileged_auto_falls_back "exit $rc: $msg"
fi

# memcgstat --pin: later runs open the pinned programs instead of loading
# them, so auto takes bpf for a one-shot read; the values still equal the
# text backend's; a process that may not open the pins (mode 0700) loads or
# falls back as before; --unpin removes them.
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
pdir=$("$bin" --pin 2>&1)
rc=$?
if [ $rc = 0 ] && [ "$pdir" = /sys/fs/bpf/memcgstat ] && [ -n "$(ls "$pdir" 2>/dev/null)" ] &&
   [ "$(stat -c %a "$pdir")" = 700 ]; then
	ok pin_prints_dir
else
	fail pin_prints_dir "exit $rc: $pdir"
fi
one=$("$bin" -v -s anon "$t/a/c" 2>&1 >/dev/null)
grep -q "^memcgstat: backend bpf," <<<"$one" && grep -qx "memcgstat: programs pinned at $pdir" <<<"$one"
check auto_takes_pins $? "$one"
# ... and for a snapshot of a small tree, in the CLI and in top
tree=$("$bin" -v -r -s anon "$t" 2>&1 >/dev/null)
frame=$("$bin" top -b -n 1 -v "$t" 2>&1 >/dev/null)
grep -q "^memcgstat: backend bpf," <<<"$tree" && grep -qx "memcgstat: programs pinned at $pdir" <<<"$tree" &&
	! grep -q "cost less" <<<"$tree" &&
	grep -q "^memcgstat top: backend bpf," <<<"$frame" &&
	grep -qx "memcgstat top: programs pinned at $pdir" <<<"$frame"
check auto_tree_takes_pins $? "snapshot: $tree" "top: $frame"
msg=$("$bin" -v --backend bpf -s anon "$t" 2>&1 >/dev/null)
grep -qx "memcgstat: programs pinned at $pdir" <<<"$msg"
check bpf_uses_pins $? "$msg"
compare text_equals_bpf_pinned
msg=$("$bin" -v --no-pins --backend bpf -s anon "$t" 2>&1 >/dev/null)
grep -q "^memcgstat: backend bpf," <<<"$msg" && ! grep -q "programs pinned" <<<"$msg"
check no_pins_loads $? "$msg"
msg=$("${np[@]}" "$bin" -v -o csv -s anon "$t/a/c" 2>&1)
rc=$?
[ $rc = 0 ] && grep -q "^memcgstat: backend text," <<<"$msg" &&
	grep -qE "^[0-9.]+,/memcgstat-backends/a/c,[0-9]+,[0-9]+$" <<<"$msg"
check unprivileged_without_pins $? "exit $rc: $msg"
msg=$("$bin" --unpin 2>&1)
rc=$?
[ $rc = 0 ] && [ ! -e "$pdir" ]
check unpin_removes $? "exit $rc: $msg; $(ls -la "$pdir" 2>&1)"
one=$("$bin" -v -s anon "$t/a/c" 2>&1 >/dev/null)
tree=$("$bin" -v -r -s anon "$t" 2>&1 >/dev/null)
grep -q "^memcgstat: backend text," <<<"$one" && grep -q "memcgstat --pin to pin it" <<<"$one" &&
	grep -q "^memcgstat: backend text," <<<"$tree" && grep -q "memcgstat --pin to pin it" <<<"$tree"
check auto_text_without_pins $? "$one" "$tree"
msg=$("$bin" --pin -s anon 2>&1)
rc=$?
[ $rc = 2 ] && grep -q "take no --stats" <<<"$msg"
check pin_usage_error $? "exit $rc: $msg"

# A large tree in one snapshot: each cgroup exactly once.
mkdir "$t/big" && [ $ver = 2 ] && echo +memory >"$t/big/cgroup.subtree_control"
eval "mkdir $t/big/c{1..$big}" || { fail big_tree "mkdir failed"; exit 1; }
rows=$("$bin" --backend bpf -r -o csv -s usage,anon "$t/big" 2>/dev/null | tail -n +2)
cnt=$(wc -l <<<"$rows")
uniq=$(cut -d, -f3 <<<"$rows" | sort -u | wc -l)
if [ "$cnt" = $((big + 1)) ] && [ "$uniq" = "$cnt" ]; then
	ok big_tree_each_once
	echo "  $cnt cgroups, $uniq distinct ids"
else
	fail big_tree_each_once "$cnt rows, $uniq distinct ids, want $((big + 1))"
fi
# --backend auto wants bpf for 2000 reads or more: two samples of the big
# tree (NR_CGROUPS is 1000 in the --upstream boot), two frames in top
msg=$("$bin" -v -r -i 0.01 -c 2 -o csv -s anon "$t/big" 2>&1 >/dev/null)
frame=$("$bin" top -b -n 2 -i 0.01 -v "$t/big" 2>&1 >/dev/null)
grep -qE "^memcgstat: the bpf backend where it can run: [0-9]+( or more)? cgroup reads pay for loading it$" <<<"$msg" &&
	grep -q "^memcgstat: backend bpf," <<<"$msg" &&
	grep -qE "^memcgstat top: the bpf backend where it can run: [0-9]+( or more)? cgroup reads pay for loading it$" <<<"$frame" &&
	grep -q "^memcgstat top: backend bpf," <<<"$frame"
check big_tree_auto_bpf $? "snapshot: $msg" "top: $frame"
# ... and in memcgstat top's frame: every row, none cut in batch mode
frame=$("$bin" top -b -n 1 --backend bpf --sort cgroup "$t/big" 2>&1)
head -1 <<<"$frame" | grep -q "memcgstat top /memcgstat-backends/big: $((big + 1)) cgroups" &&
	[ "$(grep -c " /memcgstat-backends/big/c[0-9]*$" <<<"$frame")" = "$big" ]
check top_big_tree $? "$(head -5 <<<"$frame")"

finish
