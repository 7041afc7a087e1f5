#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run in the test VM (patched kernel): on a quiescent tree of cgroups with
# real activity, the bpf and text backends give identical values for every
# stat the text files show, hierarchical, local (v1) and per node (v2); a
# large snapshot holds each cgroup once; a filtered snapshot holds exactly
# the chosen cgroups; the CLI's JSON equals what the library returns.
#
#   vm_backends.sh BUILD_DIR [NR_CGROUPS]
set -uo pipefail

out=${1:?usage: vm_backends.sh BUILD_DIR [NR_CGROUPS]}
big=${2:-2000}
bin=$out/user/memcgstat
n=0
pids=()
ok() { n=$((n + 1)); echo "#$n backends/$1:OK"; }
fail() { n=$((n + 1)); echo "#$n backends/$1:FAIL"; shift; [ $# -gt 0 ] && printf '  %s\n' "$@"; }

if [ -d /sys/fs/cgroup/memory ]; then ver=1 mnt=/sys/fs/cgroup/memory; else ver=2 mnt=/sys/fs/cgroup; fi
t=$mnt/memcgstat-backends
cleanup() {
	kill -9 "${pids[@]}" 2>/dev/null
	wait 2>/dev/null
	rm -f /tmp/memcgstat-shm-*
	[ -d "$t/big" ] && rmdir "$t"/big/c* "$t/big" 2>/dev/null
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
	coproc HOG { exec "$out/selftests/memhog" "$1" "$2"; }
	pids+=("$HOG_PID")
	read -r line <&"${HOG[0]}"
	[ "$line" = ready ] || { fail setup "memhog in $1 said '$line'"; exit 1; }
done
sh -c "echo \$\$ >$t/b/cgroup.procs; head -c 6291456 /dev/zero >/tmp/memcgstat-shm-b"
sh -c "echo \$\$ >$t/a/c/cgroup.procs; cat $out/user/memcgstat $out/selftests/test_progs >/dev/null"

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
		fail "$name" "text and bpf differ:" "$(diff <(tr ',' '\n' <<<"$a") <(tr ',' '\n' <<<"$b") | head -20)"
	fi
}
compare text_equals_bpf
if [ $ver = 1 ]; then
	compare text_equals_bpf_local --local
else
	compare text_equals_bpf_numa --numa
fi

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
MEMCGSTAT_BACKEND=bpf "$out/selftests/test_lib" "$t" | sed 's/lib\//backends\/lib_/'

# The example monitor embeds the library: bpf backend, the hog on top.
mon=$("$out/examples/topanon" -i 0.5 -n 2 -k 3 "$t" 2>&1)
if head -1 <<<"$mon" | grep -qx 'backend bpf' && grep -qE '^CGROUP +ANON +GROWTH/S$' <<<"$mon" &&
   [ "$(grep -cE '^/memcgstat-backends[^ ]* +[0-9]+ +-?[0-9]+$' <<<"$mon")" = 3 ]; then
	ok example_monitor
else
	fail example_monitor "$mon"
fi

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
