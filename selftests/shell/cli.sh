#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# memcgstat CLI on the host: option parsing and error paths, every output
# format, and the text backend against this machine's memory hierarchy.
# Prints "#N cli/NAME:OK|FAIL|SKIP (why)".
set -uo pipefail

bin=${1:?usage: cli.sh path/to/memcgstat}
SUITE=cli
. "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d /tmp/memcgstat-cli.XXXXXX)
cg=
cleanup() {
	rm_cgroups "$cg"
	rm -rf "$tmp" /dev/shm/memcgstat-cli-$$ /dev/shm/memcgstat-cli-deep-$$
}
trap cleanup EXIT

expect help 0 '^Usage: memcgstat' -- --help
expect version 0 '^memcgstat [0-9]+\.[0-9]+\.[0-9]+$' -- --version
expect list_stats 0 '^pgmajfault$' -- --list-stats
# with -v: kind, unit, and which backend reads each stat here
out=$("$bin" --list-stats -v 2>/dev/null)
[ "$(head -1 <<<"$out")" = "STAT                         KIND     UNIT         TEXT BPF" ] &&
	grep -qE '^anon +gauge +bytes +yes +(yes|-)$' <<<"$out" &&
	grep -qE '^pgfault +counter +- +yes +(yes|-)$' <<<"$out" &&
	[ "$(wc -l <<<"$out")" = $(( $("$bin" --list-stats | wc -l) + 1 )) ]
check list_stats_table $? "$(head -5 <<<"$out")"
expect unknown_option 2 'Usage' -- --bogus
# --pin: a run of its own, of every stat; on a kernel without the kfuncs a
# plain error (exit 1, naming the kfunc); --unpin with nothing pinned: 0
expect pin_takes_no_stats 2 'take no --stats' -- --pin -s anon
expect pin_not_with_list 2 'each a run of their own' -- --pin --list-stats
if [ -e /sys/kernel/btf/vmlinux ] && ! grep -qw bpf_get_mem_cgroup /proc/kallsyms 2>/dev/null; then
	expect pin_without_kfuncs 1 'kernel lacks kfunc bpf_get_mem_cgroup' -- --pin
else
	skip pin_without_kfuncs "this kernel has the memcg kfuncs (the VM tests pin)"
fi
expect unpin_nothing_pinned 0 '^$' -- --unpin
expect unknown_stat_suggests 2 "unknown stat 'anno' \(did you mean anon\?\)" -- -s anno
expect unknown_stat_no_hint 2 "unknown stat 'zzzzzzzzzz' \(--list-stats" -- -s zzzzzzzzzz
expect duplicate_stat 2 "given twice" -- -s anon,anon
expect empty_stats 2 "empty list" -- -s ,
expect bad_interval 2 "--interval: 'x'" -- -i x
expect zero_interval 2 "--interval: '0'" -- -i 0
expect bad_count 2 "--count: '0'" -- -c 0
expect count_needs_interval 2 "needs --interval" -- -c 3
expect local_numa_conflict 2 "cannot be combined" -- --local --numa
expect human_needs_table 2 "table output only" -- -H -o json
expect bad_output 2 "unknown format 'xml'" -- -o xml
expect bad_backend 2 "unknown backend 'gpu'" -- --backend gpu
expect bad_query 2 "unknown query path 'fast'" -- --query fast
expect query_needs_bpf 2 "applies to the bpf backend only" -- --backend text --query iter
expect bad_top 2 "--top: '-1'" -- --top -1
expect sort_not_chosen 2 "not one of the chosen stats" -- -s anon --sort file
expect json_error_is_json 2 '^\{"error":"unknown stat' -- -o json -s anno
# ... wherever -o json stands: an option error before it is JSON too
expect json_error_before_o 2 '^\{"error":"--top: ' -- --top x -o json
expect json_error_after_o 2 '^\{"error":"--top: ' -- -ojson --top x
expect no_such_cgroup 1 "No such file or directory" -- /memcgstat-no-such-cgroup
expect file_is_not_cgroup 1 "is not a cgroup" -- memory.stat
expect quiet_and_verbose 2 "-v and -q cannot be combined" -- -q -v
# a cgroup v1 key suggests its v2 name
expect v1_name_suggests_v2 2 "unknown stat 'rss' \(did you mean anon\?" -- -s rss
expect v1_name_cache 2 "unknown stat 'cache' \(did you mean file\?" -- -s cache
# per-node values on v1, or local ones on v2, need bpf: with --backend text
# that is a usage error
if [ -d /sys/fs/cgroup/memory ]; then
	expect numa_text_v1_usage 2 "per-node values need the bpf backend on cgroup v1" -- \
		--numa --backend text -s anon
else
	expect local_text_v2_usage 2 "local values need the bpf backend on cgroup v2" -- \
		--local --backend text -s anon
fi
# The table: in a pipe one line per cgroup however many stats (a layout
# that does not change with the data); on a terminal, wide when it fits,
# else a paragraph per cgroup; with -i, each sample's time first.
eight=anon,file,shmem,pgfault,usage,file_mapped,pgmajfault,unevictable
out=$("$bin" -s $eight 2>&1)
[ "$(wc -l <<<"$out")" = 2 ] && head -1 <<<"$out" | grep -qE '^CGROUP +anon +file .* unevictable$'
check table_batch_wide $? "$out"
out=$(script -qc "stty cols 80; $bin -s $eight" /dev/null 2>&1 | tr -d '\r')
[ "$(head -1 <<<"$out")" = "/" ] && grep -qE '^  unevictable +[0-9]+$' <<<"$out"
check table_tty_long $? "$out"
out=$(script -qc "stty cols 200; $bin -s $eight" /dev/null 2>&1 | tr -d '\r')
[ "$(wc -l <<<"$out")" = 2 ] && head -1 <<<"$out" | grep -q '^CGROUP '
check table_tty_wide $? "$out"
out=$("$bin" -i 0.1 -c 2 -s anon 2>&1)
head -1 <<<"$out" | grep -qE '^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3} \(totals; rates from the next sample\)$' &&
	sed -n 5p <<<"$out" | grep -qE '^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}$'
check table_sample_time $? "$out"

# -s given again adds to the list; a stat named twice is refused
expect stats_add_up 0 "^time,cgroup,id,anon,file,usage$" -- -o csv -s anon -s file,usage
expect stats_twice 2 "stat 'anon' given twice" -- -s anon -s anon

# A write that fails (a full disk, here /dev/full) is an error: exit 1 with
# the reason, for the output itself, --list-stats, --version and JSON.
for args in "-s anon" "--list-stats" "--version" "-o json -s anon"; do
	# shellcheck disable=SC2086 # the arguments are words
	out=$("$bin" $args 2>&1 >/dev/full)
	rc=$?
	[ $rc = 1 ] && grep -q "cannot write standard output: No space left on device" <<<"$out"
	check "write_error_${args// /_}" $? "exit $rc: $out"
done

# One version: the CLI's, the library's it is linked with, the man pages'.
v=$("$bin" --version)
[[ $v =~ ^memcgstat\ [0-9]+\.[0-9]+\.[0-9]+$ ]] &&
	grep -q "MEMCGSTAT_VERSION \"${v#memcgstat }\"" "$(dirname "$0")/../../lib/memcgstat.h"
check version_is_the_library_s $? "$v"

# --backend bpf where the kernel lacks the kfuncs names the missing one.
if grep -q bpf_mem_cgroup_page_state /proc/kallsyms 2>/dev/null; then
	skip bpf_backend_missing_kfunc "this kernel has the memcg kfuncs"
else
	expect bpf_backend_missing_kfunc 1 "kernel lacks kfunc bpf_[a-z_]+.*--backend text" -- --backend bpf -s anon
	# a run without an end (-i, no -c) wants bpf; here auto falls back and says why
	out=$(timeout 0.5 "$bin" -v -r -i 0.05 -s anon 2>&1 >/dev/null)
	grep -q "^memcgstat: the bpf backend where it can run: a run without an end pays for loading it$" <<<"$out" &&
		grep -q "^memcgstat: using the text backend: kernel lacks kfunc" <<<"$out"
	check auto_says_text $? "$out"
	# without -v, auto falls back quietly: stdout is the output, stderr empty
	err=$("$bin" -s anon 2>&1 >/dev/null)
	check auto_quiet_without_v $? "stderr: $err"
	[ -z "$err" ] || fail auto_quiet_without_v_stderr "stderr: $err"
	expect query_forces_bpf 1 "kernel lacks kfunc bpf_[a-z_]+.*; without --query the text backend can read it" -- --query syscall -s anon
	# ... and that hint works
	expect query_hint_works 0 "^/ +[0-9]+$" -- -s anon
fi

# The text backend against this host's hierarchy: a cgroup with 8 MiB of
# shmem charged to it and nothing running in it; and the deep fixture, a
# chain of 40 cgroups of 250-byte names below deep (paths of 10,000 bytes
# and more), 4 MiB of shmem charged to the deepest: 45 cgroups in all.
root=$("$bin" -v -s anon 2>&1 >/dev/null | sed -n 's/.*cgroup v\([12]\) at \([^,]*\),.*/\1 \2/p')
ver=${root%% *} mnt=${root#* }
if [ -z "$root" ] || [ ! -w "$mnt" ]; then
	for t in text_matches_memory_stat text_local recursive_once auto_tree_text json_equals_csv openmetrics interval_rates; do
		skip $t "no writable memory cgroup hierarchy"
	done
	finish
fi
cg=$mnt/memcgstat-cli-$$
mkdir "$cg" "$cg/a" "$cg/b" "$cg/a/c" "$cg/deep"
sh -c "echo \$\$ > $cg/a/cgroup.procs && head -c 8388608 /dev/zero > /dev/shm/memcgstat-cli-$$"
mk_deep "$cg/deep" || { fail deep_fixture "cannot make the chain below $cg/deep"; finish; }
deep_do "$cg/deep" $DEEP_LEVELS sh -c "echo \$\$ > cgroup.procs && head -c 4194304 /dev/zero > /dev/shm/memcgstat-cli-deep-$$"

# memory.stat key of a stat name, hierarchical, for this version
key() { if [ "$ver" = 2 ]; then echo "$1"; else echo "total_$2"; fi; }
text() { awk -v k="$2" '$1 == k { print $2 }' "$1/memory.stat"; }
vals=$("$bin" -o csv -s shmem,file,anon "$cg/a" 2>/dev/null | tail -1 | cut -d, -f4-)
want="$(text "$cg/a" "$(key shmem shmem)"),$(text "$cg/a" "$(key file cache)"),$(text "$cg/a" "$(key anon rss)")"
if [ "$vals" = "$want" ] && [ "${vals%%,*}" -ge 8388608 ]; then
	ok text_matches_memory_stat
else
	fail text_matches_memory_stat "memcgstat $vals, memory.stat $want"
fi

if [ "$ver" = 1 ]; then
	vals=$("$bin" -o csv --local -s shmem,file "$cg" 2>/dev/null | tail -1 | cut -d, -f4-)
	want="$(text "$cg" shmem),$(text "$cg" cache)"
	if [ "$vals" = "$want" ]; then ok text_local; else fail text_local "memcgstat $vals, memory.stat $want"; fi
else
	expect text_local 1 "local values need the bpf backend" -- --backend text --local -s shmem "$cg"
fi

out=$("$bin" -r -o csv -s shmem "$cg" 2>/dev/null)
rows=$(tail -n +2 <<<"$out" | wc -l)
ids=$(tail -n +2 <<<"$out" | cut -d, -f3 | sort -u | wc -l)
paths=$(tail -n +2 <<<"$out" | cut -d, -f2 | sort | tr '\n' ' ')
rel=${cg#"$mnt"}
deep=$(deep_path "$rel/deep")
# the chain's paths in walk order: deep, then each level below it
chain=$(for i in $(seq 0 $DEEP_LEVELS); do deep_path "$rel/deep" $i; done)
tree=$(printf '%s\n' "$rel" "$rel/a" "$rel/a/c" "$rel/b" "$chain" | sort)

if [ "$rows" = 45 ] && [ "$ids" = 45 ] && [ "$paths" = "$(tr '\n' ' ' <<<"$tree")" ]; then
	ok recursive_once
else
	fail recursive_once "rows $rows ids $ids paths '$paths'"
fi

# --backend auto counts a snapshot's reads: -c samples of each tree's
# cgroups (45 here, 3 in a and b). Fewer than 2000 take the text backend
# (bpf's loading would cost more), 2000 or more want bpf; a tree that cannot
# be counted keeps bpf. -v says which and why, with the count, even where
# bpf cannot run. (Pinned programs, which a small tree takes: vm_backends.sh.)
auto() { "$bin" -v -s anon "$@" 2>&1 >/dev/null; }
out=$(auto -r "$cg")
grep -q "^memcgstat: using the text backend: 45 cgroup reads cost less than loading the bpf backend (--backend bpf to use it, memcgstat --pin to pin it)$" <<<"$out" &&
	grep -q "^memcgstat: backend text," <<<"$out" && ! grep -q "where it can run" <<<"$out"
check auto_tree_text $? "$out"
out=$(auto -r -i 0.001 -c 3 "$rel")
grep -q "^memcgstat: using the text backend: 135 cgroup reads cost less" <<<"$out"
check auto_tree_samples $? "$out"
out=$(auto -r "$rel/a" "$rel/b")
grep -q "^memcgstat: using the text backend: 3 cgroup reads cost less" <<<"$out"
check auto_trees_add_up $? "$out"
out=$(auto -r -i 0.001 -c 500 "$cg")
rc=$?
[ $rc = 0 ] && grep -qE "^memcgstat: the bpf backend where it can run: 2000( or more)? cgroup reads pay for loading it$" <<<"$out" &&
	! grep -q "cost less" <<<"$out"
check auto_tree_many_bpf $? "exit $rc: $out"
out=$(auto -r /memcgstat-no-such-cgroup)
rc=$?
[ $rc = 1 ] && grep -q "^memcgstat: the bpf backend where it can run: cannot count the cgroups of /memcgstat-no-such-cgroup: No such file or directory$" <<<"$out"
check auto_tree_uncounted $? "exit $rc: $out"

# Paths are normalised: one cgroup, one label, one row, however it is
# spelled and however often; leaving the hierarchy is refused.
out=$("$bin" -o csv -s anon "$rel/./a" "/$rel//a/" "${rel#/}/a/c/.." "$cg/a" 2>&1)
one=$(tail -n +2 <<<"$out")
[ "$(wc -l <<<"$one")" = 1 ] && [ "$(cut -d, -f2 <<<"$one")" = "$rel/a" ]
check paths_normalised_once $? "$out"
out=$("$bin" -o csv -r -s anon "$rel" "$rel/a" 2>&1 | tail -n +2 | cut -d, -f2 | sort)
[ "$out" = "$tree" ]
check overlapping_trees_once $? "$out"
# A cgroup name that is not valid UTF-8: its byte printed as \xff, the same
# in every format, and the JSON and OpenMetrics still parse, strictly.
mkdir "$cg/b/bad"$'\xff'
py=/usr/bin/python3
j=$("$bin" -r -o json -s anon "$cg/b" 2>&1)
om=$("$bin" -r -o openmetrics -s anon "$cg/b" 2>&1)
csv=$("$bin" -r -o csv -s anon "$cg/b" 2>&1)
"$py" -c 'import json, sys
paths = [c["path"] for c in json.loads(sys.argv[1])["cgroups"]]
sys.exit(0 if any(p.endswith("/bad\\xff") for p in paths) else 1)' "$j" &&
	"$py" -c 'import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
labels = [s.labels["cgroup"] for f in text_string_to_metric_families(sys.argv[1]) for s in f.samples]
sys.exit(0 if any(l.endswith("/bad\\xff") for l in labels) else 1)' "$om" &&
	grep -qF "$rel/b/bad\xff," <<<"$csv"
check invalid_utf8_name $? "json: $j" "openmetrics: $om" "csv: $csv"
rmdir "$cg/b/bad"$'\xff'

# A CGROUP that is ".", "..", or starts with "./" or "../" is taken from the
# working directory; an absolute path inside the mount as it is; "/x" below
# the mount if it is there, else where the file system leads (a symlink
# into the mount); one that does not lead into the hierarchy is refused,
# naming the mount. Plain names ("a/c") stay below the mount.
row_path() { "$bin" -o csv -s anon "$@" 2>&1 | tail -n +2 | cut -d, -f2; }
out=$(cd "$cg/a" && row_path .)
check path_dot $([ "$out" = "$rel/a" ]; echo $?) "in $cg/a: memcgstat . read '$out'"
out=$(cd "$cg/a/c" && row_path ..)
check path_dotdot $([ "$out" = "$rel/a" ]; echo $?) "in $cg/a/c: memcgstat .. read '$out'"
out=$(cd "$cg/a" && row_path ../b ./c)
check path_dotdot_x $([ "$out" = "$rel/b"$'\n'"$rel/a/c" ]; echo $?) "in $cg/a: ../b ./c read '$out'"
out=$(cd "$cg/a" && row_path "${rel#/}/b")
check path_plain_below_mount $([ "$out" = "$rel/b" ]; echo $?) "in $cg/a: '${rel#/}/b' read '$out'"
out=$(row_path "$cg/a/c" "$rel/b")
check path_absolute $([ "$out" = "$rel/a/c"$'\n'"$rel/b" ]; echo $?) "read '$out'"
ln -s "$cg/b" "$tmp/link"
out=$(row_path "$tmp/link")
check path_symlink_into_mount $([ "$out" = "$rel/b" ]; echo $?) "$tmp/link -> $cg/b read '$out'"
outside=/sys/fs/cgroup/cpu
[ -d "$outside" ] && [ "$outside" != "$mnt" ] || outside=$tmp
expect path_outside 2 "^memcgstat: $outside: not in the memory hierarchy \(mounted at $mnt\)$" -- -s anon "$outside"
expect path_outside_symlink 2 "^memcgstat: $tmp/up: not in the memory hierarchy \(mounted at $mnt\)$" -- \
	-s anon "$(ln -s / "$tmp/up"; echo "$tmp/up")"
cd "$tmp" || exit 1
expect outside_dot 2 "^memcgstat: \.: not in the memory hierarchy \(mounted at $mnt\)$" -- -s anon .
expect outside_dotdot 2 "^memcgstat: \.\.: not in the memory hierarchy \(mounted at $mnt\)$" -- -s anon ..
expect outside_tmp 2 "^memcgstat: \.\./\.\./tmp: not in the memory hierarchy" -- -s anon ../../tmp
cd - >/dev/null || exit 1
expect outside_absolute 2 "^memcgstat: $rel/\.\./\.\./\.\.: not in the memory hierarchy" -- -s anon "$rel/../../.."
expect outside_relative 2 "^memcgstat: a/\.\./\.\./\.\.: not in the memory hierarchy" -- -s anon "a/../../.."

# The deep fixture, whole: every cgroup of the chain once, in walk order,
# under its whole path, by -r in CSV and in the table, by top's batch
# frame; the deepest read by its path, its absolute path and from its
# directory, its anon and shmem equal to its memory.stat (read there).
deep_stat() { deep_do "$cg/deep" $DEEP_LEVELS awk -v k="$1" '$1 == k { print $2 }' memory.stat; }
want="$(deep_stat "$(key anon rss)"),$(deep_stat "$(key shmem shmem)")"
out=$("$bin" -r -o csv -s anon,shmem "$rel/deep" 2>&1)
rc=$?
[ $rc = 0 ] && [ "$(tail -n +2 <<<"$out" | cut -d, -f2)" = "$chain" ] &&
	[ "$(tail -1 <<<"$out" | cut -d, -f4-)" = "$want" ] && [ "${want#*,}" -ge 4194304 ]
check deep_recursive $? "exit $rc, memory.stat anon,shmem $want, $(tail -n +2 <<<"$out" | wc -l) rows: $(head -c 300 <<<"$out")"
out=$("$bin" -r -s anon "$rel" 2>&1)
rc=$?
[ $rc = 0 ] && [ "$(awk '{ print $1 }' <<<"$out" | grep -c "^$rel/deep")" = 41 ] &&
	grep -qE "^$deep +[0-9]+$" <<<"$out"
check deep_table $? "exit $rc: $(head -c 300 <<<"$out")"
out=$("$bin" top -b -n 1 "$rel" 2>&1)
rc=$?
[ $rc = 0 ] && [ "$(grep -c " $rel/deep" <<<"$out")" = 41 ] && grep -qE " $deep$" <<<"$out" &&
	head -1 <<<"$out" | grep -q "memcgstat top $rel: 45 cgroups"
check deep_top_batch $? "exit $rc: $(head -c 300 <<<"$out")"
out=$("$bin" top -b -n 1 "$deep" 2>&1)
rc=$?
[ $rc = 0 ] && head -1 <<<"$out" | grep -qF "memcgstat top $deep: 1 cgroups," && grep -qE " $deep$" <<<"$out"
check deep_top_of_deepest $? "exit $rc: $(head -c 300 <<<"$out")"
out=$(deep_do "$cg/deep" $DEEP_LEVELS "$bin" -o csv -s anon,shmem . 2>&1)
rc=$?
[ $rc = 0 ] && [ "$(tail -1 <<<"$out" | cut -d, -f2,4-)" = "$deep,$want" ]
check deep_from_its_directory $? "exit $rc, want $want: $(head -c 300 <<<"$out")"
bad=0
for spelling in "$deep" "$mnt$deep" "${deep#/}"; do
	out=$("$bin" -o csv -s anon,shmem "$spelling" 2>&1)
	rc=$?
	[ $rc = 0 ] && [ "$(tail -1 <<<"$out" | cut -d, -f2,4-)" = "$deep,$want" ] || { bad=1; break; }
done
check deep_direct $bad "exit $rc, want $want: $(head -c 300 <<<"$out")"

j=$("$bin" -r -o json -s shmem,file "$cg" 2>/dev/null)
c=$("$bin" -r -o csv -s shmem,file "$cg" 2>/dev/null)
jv=$(grep -o '"path":"[^"]*","id":[0-9]*,"stats":{"shmem":[0-9]*,"file":[0-9]*}' <<<"$j" |
	sed 's/"path":"\([^"]*\)","id":\([0-9]*\),"stats":{"shmem":\([0-9]*\),"file":\([0-9]*\)}/\1,\2,\3,\4/' | sort)
cv=$(tail -n +2 <<<"$c" | cut -d, -f2- | sort)
if [ -n "$jv" ] && [ "$jv" = "$cv" ]; then ok json_equals_csv; else fail json_equals_csv "json: $jv csv: $cv"; fi

om=$("$bin" -r -o openmetrics -s shmem,pgfault "$cg" 2>/dev/null)
if [ "$(tail -1 <<<"$om")" = "# EOF" ] &&
   grep -qx '# TYPE memcgstat_shmem_bytes gauge' <<<"$om" &&
   grep -qx '# TYPE memcgstat_pgfault counter' <<<"$om" &&
   grep -qE "^memcgstat_shmem_bytes\{cgroup=\"$rel/a\"\} [0-9]+$" <<<"$om" &&
   grep -qE "^memcgstat_pgfault_total\{cgroup=\"$rel\"\} [0-9]+$" <<<"$om"; then
	ok openmetrics
else
	fail openmetrics "$(head -20 <<<"$om")"
fi

# With -i, totals stay totals under their names; rates have their own:
# JSON "rates" (null in the first sample), CSV NAME_per_s and an interval.
out=$("$bin" -o json -i 0.1 -c 3 -s shmem,pgfault "$cg" 2>/dev/null)
if [ "$(wc -l <<<"$out")" = 3 ] && head -1 <<<"$out" | grep -q '"interval":null' &&
   head -1 <<<"$out" | grep -qE '"stats":\{"shmem":[0-9]+,"pgfault":[0-9]+\},"rates":\{"pgfault":null\}' &&
   tail -1 <<<"$out" | grep -qE '"interval":0\.[0-9]+,.*"stats":\{"shmem":[0-9]+,"pgfault":[0-9]+\},"rates":\{"pgfault":[0-9]+\.[0-9]+\}'; then
	ok interval_rates
else
	fail interval_rates "$out"
fi
out=$("$bin" -o csv -i 0.1 -c 2 -s shmem,pgfault "$cg" 2>/dev/null)
head -1 <<<"$out" | grep -qx 'time,cgroup,id,interval,shmem,pgfault,pgfault_per_s' &&
	sed -n 2p <<<"$out" | grep -qE '^[0-9.]+,[^,]+,[0-9]+,,[0-9]+,[0-9]+,$' &&
	sed -n 3p <<<"$out" | grep -qE '^[0-9.]+,[^,]+,[0-9]+,0\.[0-9]+,[0-9]+,[0-9]+,[0-9]+\.[0-9]+$'
check interval_rates_csv $? "$out"

# --sort with -i orders by what is shown: the busy cgroup's rate tops the
# idle one that faulted more in the past.
mkdir "$cg/x" "$cg/y"
sh -c "echo \$\$ > $cg/x/cgroup.procs; exec /usr/bin/python3 -c 'b = bytearray(256 << 20)
for i in range(0, len(b), 4096): b[i] = 1'"
sh -c "echo \$\$ > $cg/y/cgroup.procs; while :; do /bin/true; done" &
busy=$!
out=$("$bin" -o csv --sort pgfault --top 1 -i 0.3 -c 2 -s pgfault "$rel/x" "$rel/y" 2>&1)
kill $busy
wait $busy 2>/dev/null
[ "$(sed -n 2p <<<"$out" | cut -d, -f2)" = "$rel/x" ] && [ "$(sed -n 3p <<<"$out" | cut -d, -f2)" = "$rel/y" ]
check sort_by_rate $? "$out"
rmdir "$cg/x" "$cg/y" 2>/dev/null

# A cgroup in a tree whose files cannot be read (by nobody, here): its row
# NA and a line on stderr saying why, the others read; at the top of the
# tree, the read fails (exit 1)
if ! nobody_runs_bin; then
	skip unreadable_row "cannot run $bin as nobody (no setpriv, no user nobody, or a directory on the way closed to it)"
else
	mkdir -p "$cg/u/a" "$cg/u/b"
	chmod 000 "$cg"/u/b/memory.*
	out=$(as_nobody --backend text -r -o csv -s anon "$rel/u" 2>"$tmp/unr.err")
	rc=$? err=$(cat "$tmp/unr.err")
	as_nobody --backend text -o csv -s anon "$rel/u/b" >/dev/null 2>&1
	rc_top=$?
	[ $rc = 0 ] && [ "$(tail -n +2 <<<"$out" | cut -d, -f2,4 | tr '\n' ' ')" = "$rel/u,0 $rel/u/a,0 $rel/u/b, " ] &&
		[ "$err" = "memcgstat: cannot read cgroup $rel/u/b: Permission denied" ] && [ $rc_top = 1 ]
	check unreadable_row $? "exit $rc: $out" "stderr: $err; the unreadable cgroup alone: exit $rc_top"
	rm -f "$tmp/unr.err"
	rmdir "$cg/u/a" "$cg/u/b" "$cg/u"
fi
finish
