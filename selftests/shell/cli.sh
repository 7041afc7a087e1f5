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
# ... as JSON and CSV, the same stats and kinds as the table, for scripts
# (before, -o json printed the plain names and anything else was ignored)
json=$("$bin" --list-stats -o json 2>/dev/null)
csv=$("$bin" --list-stats -o csv 2>/dev/null)
/usr/bin/python3 -c 'import csv, json, sys
j = json.loads(sys.argv[1])["stats"]
c = list(csv.DictReader(sys.argv[2].splitlines()))
t = [l.split() for l in sys.argv[3].splitlines()[1:]]
assert [s["name"] for s in j] == [r["stat"] for r in c] == [r[0] for r in t], "names"
for s, r, l in zip(j, c, t):
    assert s["kind"] == r["kind"] == l[1], s
    assert (s["unit"] or "") == r["unit"] == (l[2] if l[2] != "-" else ""), s
    for k, col in (("text", 3), ("bpf", 4)):
        want = {"yes": True, "no": False, "-": None}[l[col]]
        assert s[k] == want and r[k] == ("" if want is None else l[col]), (s, r, l)
' "$json" "$csv" "$out"
check list_stats_json_csv $? "$(head -c 300 <<<"$json")" "$(head -3 <<<"$csv")"
expect list_stats_no_cgroup 2 "--list-stats takes no CGROUP" -- --list-stats /
expect list_stats_no_read_option 2 "--list-stats takes no CGROUP, no option of a read" -- --list-stats -r
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
# at least a millisecond, as the exporter's (1e-300 made a loop of 1 ns steps)
expect tiny_interval 2 "--interval: '1e-300' is not a number of seconds in \[0.001, 86400\]" -- -i 1e-300
expect zero_interval 2 "--interval: '0'" -- -i 0
expect bad_count 2 "--count: '0'" -- -c 0
expect count_needs_interval 2 "needs --interval" -- -c 3
expect local_numa_conflict 2 "cannot be combined" -- --local --numa
# the flags getopt_long() sets from the table reach the checks as the
# others do, take no value, and the shared options (common.h) stand last:
# an abbreviation lists its candidates in table order
expect unpin_takes_no_pins 2 'take no --stats, --local, --numa, --no-pins' -- --unpin --no-pins
expect pin_takes_no_numa 2 'take no --stats, --local, --numa' -- --pin --numa
expect list_stats_alone 2 'each a run of their own' -- --list-stats --unpin
expect flag_takes_no_value 2 "option '--local' doesn't allow an argument" -- --local=1
expect long_quiet_and_verbose 2 "-v and -q cannot be combined" -- --quiet --verbose
expect ambiguous_abbrev 2 "option '--ver' is ambiguous; possibilities: '--verbose' '--version'" -- --ver
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
# ... getopt's refusals too (before, its message on stderr alone)
expect json_unknown_option 2 '^\{"error":"unrecognized option .--bogus."\}$' -- -o json --bogus
expect json_option_needs_value 2 '^\{"error":"option requires an argument -- .s."\}$' -- -o json -s
# getopt's words for the other refusals: ':' (the option string's own
# first character), a long-only option without its value (abbreviated too),
# a flag given one
expect dash_colon 2 "^memcgstat: invalid option -- ':'$" -- -:
expect json_dash_colon 2 '^\{"error":"invalid option -- .:."\}$' -- -o json -:
expect long_only_needs_value 2 "^memcgstat: option '--sort' requires an argument$" -- -r --sort
expect long_only_abbrev_needs_value 2 "^memcgstat: option '--sort' requires an argument$" -- -r --so
expect long_flag_takes_no_value 2 "^memcgstat: option '--list-stats' doesn't allow an argument$" -- --list-stats=x
expect no_such_cgroup 1 "No such file or directory" -- /memcgstat-no-such-cgroup
expect file_is_not_cgroup 1 "is not a cgroup" -- memory.stat
expect quiet_and_verbose 2 "-v and -q cannot be combined" -- -q -v
# a cgroup v1 key suggests its v2 name
expect v1_name_suggests_v2 2 "unknown stat 'rss' \(did you mean anon\?" -- -s rss
expect v1_name_cache 2 "unknown stat 'cache' \(did you mean file\?" -- -s cache
# per-node values on v1, or local ones on v2, need bpf: with --backend text
# that is a usage error. Where the kernel lacks the kfuncs neither backend
# has them: each says so, the same words, and none sends to the other.
if [ -d /sys/fs/cgroup/memory ]; then
	fl=--numa v=1 what="per-node values" files="v1 memory.numa_stat has a few page counts only"
else
	fl=--local v=2 what="local values" files="memory.stat has hierarchical values only"
fi
if [ -e /sys/kernel/btf/vmlinux ] && ! grep -qw bpf_get_mem_cgroup /proc/kallsyms 2>/dev/null; then
	want="memcgstat: $what need the bpf backend, which cannot run here: kernel lacks kfunc bpf_get_mem_cgroup (memcg stat kfuncs: Linux 7.0, or 6.12 with memcgstat's kernel/patches); on cgroup v$v the text backend has no $what either ($files)"
	for b in text bpf auto; do
		out=$("$bin" $fl --backend $b -s anon 2>&1)
		rc=$?
		[ $rc = "$([ $b = text ] && echo 2 || echo 1)" ] && [ "$out" = "$want" ]
		check "${fl#--}_neither_backend_$b" $? "exit $rc: $out" "want: $want"
	done
	# --backend bpf where the text backend can: the hint, and it works
	[ $v = 1 ] && fl=--local || fl=--numa
	expect "${fl#--}_bpf_hint_text" 1 "^memcgstat: kernel lacks kfunc bpf_get_mem_cgroup \(memcg stat kfuncs: Linux 7\.0, or 6\.12 with memcgstat's kernel/patches\); use --backend text$" -- \
		$fl --backend bpf -s anon
	expect "${fl#--}_bpf_hint_works" 0 "^/ +[0-9]+$" -- $fl --backend text -s anon
elif [ $v = 1 ]; then
	expect numa_text_v1_usage 2 "per-node values need the bpf backend on cgroup v1" -- \
		--numa --backend text -s anon
else
	expect local_text_v2_usage 2 "local values need the bpf backend on cgroup v2" -- \
		--local --backend text -s anon
fi
# a count beyond a long is too large, not "not a whole number"
expect count_too_large 2 "^memcgstat: --count: '99999999999999999999' is too large \(at most 9223372036854775807\) \(see memcgstat --help\)$" -- \
	-i 1 -c 99999999999999999999
expect top_too_large 2 "^memcgstat top: --iterations: '99999999999999999999' is too large \(at most 9223372036854775807\)" -- \
	top -b -n 99999999999999999999
# The table: in a pipe one line per cgroup however many stats (a layout
# that does not change with the data); on a terminal, for one cgroup a line
# per stat (lines), for more wide when it fits, else a paragraph per cgroup
# (below, on the test's cgroups); with -i, each sample's time first.
# --layout wide and lines choose, anywhere; auto is the default.
eight=anon,file,shmem,pgfault,usage,file_mapped,pgmajfault,unevictable
out=$("$bin" -s $eight 2>&1)
[ "$(wc -l <<<"$out")" = 2 ] && head -1 <<<"$out" | grep -qE '^CGROUP +anon +file .* unevictable$'
check table_batch_wide $? "$out"
for cols in 80 200; do
	out=$(script -qec "stty cols $cols; $bin -s $eight" /dev/null 2>&1 | tr -d '\r')
	[ "$(head -1 <<<"$out")" = "/" ] && [ "$(wc -l <<<"$out")" = 9 ] &&
		grep -qE '^  unevictable +[0-9]+ bytes$' <<<"$out" && grep -qE '^  pgfault +[0-9]+$' <<<"$out"
	check "table_tty_lines_$cols" $? "$out"
done
out=$(script -qec "stty cols 200; $bin --layout wide -s $eight" /dev/null 2>&1 | tr -d '\r')
[ "$(wc -l <<<"$out")" = 2 ] && head -1 <<<"$out" | grep -q '^CGROUP '
check table_tty_layout_wide $? "$out"
out=$("$bin" --layout lines -s $eight 2>&1)
[ "$(head -1 <<<"$out")" = "/" ] && [ "$(wc -l <<<"$out")" = 9 ] &&
	[ "$(tail -n +2 <<<"$out" | awk '{ print $1 }' | tr '\n' ,)" = "$eight," ]
check table_pipe_layout_lines $? "$out"
expect bad_layout 2 "--layout: unknown layout 'tall' \(auto, wide, lines\)" -- --layout tall
expect layout_needs_table 2 "--layout applies to table output only" -- --layout lines -o csv
expect layout_auto_any_output 0 '^time,cgroup,id,anon$' -- --layout auto -o csv -s anon
expect layout_in_help 0 '--layout NAME +the table.s layout: wide' -- --help
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
	for t in text_matches_memory_stat text_local recursive_once auto_tree_text json_equals_csv openmetrics interval_rates \
		partial_args_table partial_args_csv partial_args_json interval_gone_and_back interval_tree_gone_and_back \
		interval_symlink_leaves \
		top_gone_and_back table_rate_labels table_lines_rates interval_skip_said interval_cadence \
		filter_max_depth filter_max_depth_0 filter_include_exclude filter_include_any filter_printed_path \
		filter_depth_of_each_cgroup filter_needs_r filter_bad_depth; do
		skip $t "no writable memory cgroup hierarchy"
	done
	finish
fi
cg=$mnt/memcgstat-cli-$$
# n/: hostile names, in every run: control bytes (a title-setting escape,
# a CR, a tab) and two look-alikes, the bytes ff fe and the eight
# characters \xff\xfe; and one printed as it is, of wide characters and a
# combining accent (5 columns in 10 bytes); each as every format prints it
# (the man page's escape) in shown[]
names=($'esc\e]0;PWNED\aX' $'cr\rZZZZ' $'tab\tT' $'\xff\xfe' '\xff\xfe' $'\xe6\x97\xa5\xe6\x9c\xace\xcc\x81')
shown=('esc\x1b]0;PWNED\x07X' 'cr\x0dZZZZ' 'tab\x09T' '\xff\xfe' '\\xff\\xfe' $'\xe6\x97\xa5\xe6\x9c\xace\xcc\x81')
mkdir "$cg" "$cg/a" "$cg/b" "$cg/a/c" "$cg/n" "$cg/deep"
for n in "${names[@]}"; do mkdir "$cg/n/$n"; done
sh -c "echo \$\$ > $cg/a/cgroup.procs && head -c 8388608 /dev/zero > /dev/shm/memcgstat-cli-$$"
mk_deep "$cg/deep" || { fail deep_fixture "cannot make the chain below $cg/deep"; finish; }
deep_do "$cg/deep" $DEEP_LEVELS sh -c "echo \$\$ > cgroup.procs && head -c 4194304 /dev/zero > /dev/shm/memcgstat-cli-deep-$$"

# A reader that stops reading (head -1): exit 1 as documented, without a
# word, not death by SIGPIPE (141); a one-shot read, an -i run, top -b. The
# reader is gone before memcgstat writes.
for run in "one:-r -s anon" "interval:-r -i 0.01 -c 500 -s anon" "top:top -b -n 500 -i 0.01"; do
	# shellcheck disable=SC2086 # the arguments are words
	(sleep 0.3; exec "$bin" ${run#*:} "$cg" 2>"$tmp/pipe.err") | true
	rc=${PIPESTATUS[0]}
	[ "$rc" = 1 ] && [ ! -s "$tmp/pipe.err" ]
	check "closed_pipe_${run%%:*}" $? "exit $rc: $(cat "$tmp/pipe.err")"
done
rm -f "$tmp/pipe.err"

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
tree=$(printf '%s\n' "$rel" "$rel/a" "$rel/a/c" "$rel/b" "$chain" "$rel/n" "${shown[@]/#/$rel/n/}" | sort)

if [ "$rows" = 52 ] && [ "$ids" = 52 ] && [ "$paths" = "$(tr '\n' ' ' <<<"$tree")" ]; then
	ok recursive_once
else
	fail recursive_once "rows $rows ids $ids paths '$paths'"
fi

# -r's tree filters, the exporter's (tools/filter.c): exactly the rows
# each keeps, in walk order; they refuse a run without -r and a bad depth.
paths_of() { "$bin" -r -o csv -s shmem "$@" 2>/dev/null | tail -n +2 | cut -d, -f2 | tr '\n' ' '; }
got=$(paths_of --max-depth 1 "$rel/a" "$rel/b")
[ "$got" = "$rel/a $rel/a/c $rel/b " ]
check filter_max_depth $? "got '$got'"
got=$(paths_of --max-depth 0 "$rel")
[ "$got" = "$rel " ]
check filter_max_depth_0 $? "got '$got'"
got=$(paths_of --include "$rel/[ab]*" --exclude '*/c' "$rel")
[ "$got" = "$rel/a $rel/b " ]
check filter_include_exclude $? "got '$got'"
got=$(paths_of --include '*/a' --include '*/b' "$rel")
[ "$got" = "$rel/a $rel/b " ]
check filter_include_any $? "got '$got'"
# the path as printed: a tab in a name is \x09 there, and matched so (a
# glob writes the backslash doubled); the raw tab matches nothing
mkdir "$cg/t" "$cg/t/tab"$'\t'"x" "$cg/t/plain"
got=$(paths_of --include '*/tab\\x09x' "$rel/t")
got_raw=$(paths_of --include "*/tab"$'\t'"x" "$rel/t")
got_ex=$(paths_of --exclude '*\\x09*' "$rel/t")
rmdir "$cg/t/tab"$'\t'"x" "$cg/t/plain" "$cg/t"
[ "$got" = "$rel/t/tab\x09x " ] && [ -z "$got_raw" ] && [ "$got_ex" = "$rel/t $rel/t/plain " ]
check filter_printed_path $? "--include '*/tab\\\\x09x': '$got'; a raw tab: '$got_raw'; --exclude '*\\\\x09*': '$got_ex'"
# depth below each CGROUP: deep's chain cut after 2 levels
got=$(paths_of --max-depth 2 "$rel/deep" | wc -w)
[ "$got" = 3 ]
check filter_depth_of_each_cgroup $? "got $got rows"
expect filter_needs_r 2 "apply to -r" -- --max-depth 1 "$rel"
expect filter_bad_depth 2 "--max-depth: 'x' is not a whole number" -- -r --max-depth x "$rel"

# --backend auto is the library's choice by the reads (expected_reads: -c
# samples of each CGROUP), weighed at the first read: that many times the
# cgroups it covers (52 in the tree, 2 in a's, 1 in b's). Fewer than
# MEMCGSTAT_BPF_PAYS_AFTER (200) take the text backend (bpf's loading would
# cost more), more want bpf. -v says which and why, with the count; where
# bpf cannot run here at all, that is the reason, with no advice to take
# bpf or pin it. (Pinned programs, which a small tree takes: vm_backends.sh;
# the library's reasons themselves: test_lib's auto_*.)
auto() { "$bin" -v -s anon "$@" 2>&1 >/dev/null; }
if [ -e /sys/kernel/btf/vmlinux ] && ! grep -qw bpf_get_mem_cgroup /proc/kallsyms 2>/dev/null; then
	lacks="memcgstat: using the text backend: kernel lacks kfunc bpf_get_mem_cgroup (memcg stat kfuncs: Linux 7.0, or 6.12 with memcgstat's kernel/patches)"
	out=$(auto "$cg/a")
	[ "$out" = "$lacks
memcgstat: backend text, cgroup v$ver at $mnt, 1 column" ]
	check auto_one_says_no_kfuncs $? "$out"
	out=$(auto -r "$cg")
	[ "$out" = "$lacks
memcgstat: backend text, cgroup v$ver at $mnt, 1 column" ]
	check auto_tree_says_no_kfuncs $? "$out"
	# few reads or many, and no end: the same reason, no advice
	for run in "-r -i 0.001 -c 3" "-r -i 0.001 -c 500"; do
		out=$(auto $run "$cg" | grep -v "^memcgstat: sample [0-9]* took ")
		[ "$out" = "$lacks
memcgstat: backend text, cgroup v$ver at $mnt, 1 column" ]
		check "auto_says_no_kfuncs_${run##* }" $? "$out"
	done
	out=$(timeout 0.5 "$bin" -v -r -i 0.05 -s anon 2>&1 >/dev/null)
	grep -qx "$lacks" <<<"$out" && ! grep -q -- "--pin\|pays\|cost less" <<<"$out"
	check auto_unbounded_says_no_kfuncs $? "$out"
	# top's columns: 10 (TASKS among them), and swap accounting's (MEMSW on v1, SWAP on v2)
	n=10
	[ -e "$cg/memory.memsw.usage_in_bytes" ] || [ -e "$cg/memory.swap.current" ] && n=11
	out=$("$bin" top -b -n 1 -v "$cg" 2>&1 >/dev/null)
	[ "$out" = "${lacks/memcgstat:/memcgstat top:}
memcgstat top: backend text, cgroup v$ver at $mnt, $n columns" ]
	check top_says_no_kfuncs $? "$out"
else
	out=$(auto -r "$cg")
	grep -q "^memcgstat: using the text backend: 52 cgroup reads cost less than loading the bpf backend (--backend bpf to use it, memcgstat --pin to pin it)$" <<<"$out" &&
		grep -q "^memcgstat: backend text," <<<"$out" && ! grep -q "pay for" <<<"$out"
	check auto_tree_text $? "$out"
	out=$(auto "$cg/a")
	grep -q "^memcgstat: using the text backend: 1 cgroup read costs less than loading" <<<"$out" &&
		grep -q "^memcgstat: backend text, .*, 1 column$" <<<"$out"
	check auto_one_singular $? "$out"
	out=$(auto -r -i 0.001 -c 3 "$rel")
	grep -q "^memcgstat: using the text backend: 156 cgroup reads cost less" <<<"$out"
	check auto_tree_samples $? "$out"
	# 1 sample of 2 trees: 2 reads, each taken as a's 2 cgroups
	out=$(auto -r "$rel/a" "$rel/b")
	grep -q "^memcgstat: using the text backend: 4 cgroup reads cost less" <<<"$out"
	check auto_first_read_weighs $? "$out"
	out=$(auto -r -i 0.001 -c 500 "$cg")
	rc=$?
	[ $rc = 0 ] && grep -qE "^memcgstat: using the bpf backend: (26000|500 or more) cgroup reads pay for loading the bpf backend$" <<<"$out" &&
		grep -q "^memcgstat: backend bpf," <<<"$out" && ! grep -q "cost less" <<<"$out"
	check auto_tree_many_bpf $? "exit $rc: $out"
fi
# a CGROUP that is not there: the read's own error, whichever backend
out=$(auto -r /memcgstat-no-such-cgroup)
rc=$?
[ $rc = 1 ] && grep -q "^memcgstat: cgroup /memcgstat-no-such-cgroup: No such file or directory" <<<"$out"
check auto_tree_missing $? "exit $rc: $out"

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

# The hostile names of n/ in every format: a row each (the look-alikes two
# rows, two paths), nothing raw of them on the terminal (no control byte
# but the newlines, valid UTF-8), each path the man page's escape of its
# name; the table's columns aligned, python's csv module reading a row of 5
# fields each, the JSON parsing, prometheus_client's OpenMetrics parser
# taking the exposition. And a message that quotes such a name escapes it.
want=$(printf '%s\n' "$rel/n" "${shown[@]/#/$rel/n/}")
for o in table csv json openmetrics; do
	"$bin" -r -o $o -s anon,pgfault "$rel/n" >"$tmp/names.$o" 2>&1
	rc=$?
	"$py" - "$o" "$tmp/names.$o" "$want" <<'EOF' >"$tmp/names.why" 2>&1
import csv, io, json, sys
fmt, out, want = sys.argv[1], open(sys.argv[2], "rb").read(), sys.argv[3].split("\n")
bad = [b for b in out if (b < 0x20 and b != 0x0a) or b == 0x7f]
if bad:
    sys.exit("raw control bytes %s" % sorted(set(bad)))
text = out.decode("utf-8")      # raises if not valid UTF-8
if any(0x80 <= ord(c) <= 0x9f for c in text):
    sys.exit("a raw C1 control")
if fmt == "table":
    import unicodedata
    def width(l):       # the columns a terminal gives it
        return sum(0 if unicodedata.combining(c) else
                   2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in l)
    lines = text.splitlines()
    rows = [l.split() for l in lines[1:]]
    paths = [r[0] for r in rows]
    if any(len(r) != 3 for r in rows) or len({width(l) for l in lines}) != 1:
        sys.exit("rows not aligned: %r" % lines)
elif fmt == "csv":
    rows = list(csv.reader(io.StringIO(text, newline="")))
    if rows[0] != ["time", "cgroup", "id", "anon", "pgfault"] or any(len(r) != 5 for r in rows):
        sys.exit("csv rows %r" % rows)
    paths = [r[1] for r in rows[1:]]
elif fmt == "json":
    paths = [c["path"] for c in json.loads(text)["cgroups"]]
else:
    from prometheus_client.openmetrics.parser import text_string_to_metric_families
    fams = {f.name: f for f in text_string_to_metric_families(text)}
    paths = [s.labels["cgroup"] for s in fams["memcgstat_anon_bytes"].samples]
if sorted(paths) != sorted(want):
    sys.exit("paths %r, want %r" % (sorted(paths), sorted(want)))
EOF
	check "hostile_names_$o" $(( rc || $? )) "exit $rc: $(cat "$tmp/names.why")" "$(cat -A "$tmp/names.$o" | head -12)"
done
out=$("$bin" -s anon "$rel/n/"$'\e]0;PWNED\a-no-such' 2>&1)
rc=$?
j=$("$bin" -o json -s anon "$rel/n/"$'\e]0;PWNED\a-no-such' 2>/dev/null)
[ $rc = 1 ] && grep -qF "cgroup $rel/n/\x1b]0;PWNED\x07-no-such: No such file or directory" <<<"$out" &&
	! LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' <<<"$out$j" &&
	"$py" -c 'import json, sys
sys.exit(0 if json.loads(sys.argv[1])["errors"][0]["error"].startswith(sys.argv[2]) else 1)' "$j" "cgroup $rel/n/\\x1b]0;PWNED\\x07-no-such:"
check hostile_name_in_error $? "exit $rc: $(cat -A <<<"$out")" "json: $j"
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
# a file outside it is bad usage as a directory there is (before: "is not
# a cgroup", exit 1, as for memory.stat inside it)
expect outside_file 2 "^memcgstat: /etc/passwd: not in the memory hierarchy \(mounted at $mnt\)$" -- -s anon /etc/passwd

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
	head -1 <<<"$out" | grep -q "memcgstat top $rel: 52 cgroups"
check deep_top_batch $? "exit $rc: $(head -c 300 <<<"$out")"
out=$("$bin" top -b -n 1 "$deep" 2>&1)
rc=$?
[ $rc = 0 ] && head -1 <<<"$out" | grep -qF "memcgstat top $deep: 1 cgroup," && grep -qE " $deep$" <<<"$out"
check deep_top_of_deepest $? "exit $rc: $(head -c 300 <<<"$out")"
out=$(deep_do "$cg/deep" $DEEP_LEVELS "$bin" -o csv -s anon,shmem . 2>&1)
rc=$?
[ $rc = 0 ] && [ "$(tail -1 <<<"$out" | cut -d, -f2,4-)" = "$deep,$want" ]
check deep_from_its_directory $? "exit $rc, want $want: $(head -c 300 <<<"$out")"
# a cgroup missing at the chain's end: its message whole, the path twice
# (before, the library's message ended at 1,023 bytes, before the reason)
out=$("$bin" -o json -s anon "$deep/no-such" 2>/dev/null)
rc=$?
/usr/bin/python3 -c 'import json, sys
e = json.loads(sys.argv[1])["errors"][0]["error"]
assert e.startswith("cgroup " + sys.argv[2] + ": No such file or directory (") and e.endswith(sys.argv[2] + ")"), e[-200:]
' "$out" "$deep/no-such" && [ $rc = 1 ]
check deep_missing_message_whole $? "exit $rc: $(tail -c 300 <<<"$out")"
# ... and top's, of a CGROUP at the chain's end removed after the first
# frame: the second line of a later frame (the 3rd at the latest) and
# stderr whole (before: cut at 511 bytes, before the reason)
deep_do "$cg/deep" $DEEP_LEVELS mkdir x
"$bin" top -b -n 3 -i 0.5 "$deep/x" >"$tmp/dt.out" 2>"$tmp/dt.err" &
pid=$!
wait_lines "$tmp/dt.out" '^[0-9:]* memcgstat top ' 1 && deep_do "$cg/deep" $DEEP_LEVELS rmdir x
wait $pid
rc=$? err=$(cat "$tmp/dt.err")
why="cgroup $deep/x: No such file or directory ($mnt$deep/x)"
[ $rc = 1 ] && [ "$err" = "memcgstat top: $why" ] &&
	grep -qxF -- "sort: USAGE, largest first - cannot read: $why" "$tmp/dt.out"
check deep_top_gone_message_whole $? "exit $rc, stderr $(tail -c 200 <<<"$err")" "$(tail -c 300 "$tmp/dt.out")"
bad=0
for spelling in "$deep" "$mnt$deep" "${deep#/}"; do
	out=$("$bin" -o csv -s anon,shmem "$spelling" 2>&1)
	rc=$?
	[ $rc = 0 ] && [ "$(tail -1 <<<"$out" | cut -d, -f2,4-)" = "$deep,$want" ] || { bad=1; break; }
done
check deep_direct $bad "exit $rc, want $want: $(head -c 300 <<<"$out")"

"$bin" -r -o json -s shmem,file "$cg" >"$tmp/eq.json" 2>/dev/null
"$bin" -r -o csv -s shmem,file "$cg" >"$tmp/eq.csv" 2>/dev/null
# (parsed, each by python's own module: a path's backslashes are JSON's \\;
# from files: the deep fixture's paths are past what one argument may hold)
jv=$("$py" -c 'import json, sys
for c in json.load(open(sys.argv[1]))["cgroups"]:
    print(c["path"], c["id"], c["stats"]["shmem"], c["stats"]["file"], sep=",")' "$tmp/eq.json" | sort)
cv=$("$py" -c 'import csv, sys
for r in list(csv.reader(open(sys.argv[1], newline="")))[1:]:
    print(*r[1:], sep=",")' "$tmp/eq.csv" | sort)
if [ "$(wc -l <<<"$jv")" = 52 ] && [ "$jv" = "$cv" ]; then ok json_equals_csv; else fail json_equals_csv "json: $jv csv: $cv"; fi

# Numbers stay numbers: a limit of 19 digits (a page below the largest the
# kernel takes), one of 1073737728 bytes (4 KiB under 1 GiB), none on $cg
# (v1 default, v2 "max"). JSON: a number, or null with the stat named in
# "unlimited"; CSV: +Inf. The table widens its column to the 19 digits,
# exact; -H rounds 1073737728 to 1.0G, not 1024.0M.
lim=$([ "$ver" = 2 ] && echo memory.max || echo memory.limit_in_bytes)
big=9223372036854767616
echo $big >"$cg/b/$lim" && echo 1073737728 >"$cg/a/c/$lim"
got_big=$(cat "$cg/b/$lim") got_g=$(cat "$cg/a/c/$lim")
j=$("$bin" -o json -s memory_max,anon "$cg" "$cg/b" "$cg/a/c" 2>&1)
/usr/bin/python3 -c 'import json, sys
c = {x["path"]: x for x in json.loads(sys.argv[1])["cgroups"]}
r, b, g = (c[sys.argv[2] + p] for p in ("", "/b", "/a/c"))
ok = (r["stats"]["memory_max"] is None and r["unlimited"] == ["memory_max"] and
      b["stats"]["memory_max"] == int(sys.argv[3]) and b["unlimited"] == [] and
      g["stats"]["memory_max"] == 1073737728 and
      all(isinstance(x["stats"]["anon"], int) for x in c.values()))
sys.exit(0 if ok else 1)' "$j" "$rel" "$got_big"
check json_numbers_or_null $? "$j" "limits: $got_big $got_g"
out=$("$bin" -o csv -s memory_max,anon "$cg" "$cg/b" 2>&1)
/usr/bin/python3 -c 'import csv, io, math, sys
rows = list(csv.DictReader(io.StringIO(sys.argv[1])))
v = [float(r["memory_max"]) for r in rows]
sys.exit(0 if v[0] == math.inf and int(rows[1]["memory_max"]) == int(sys.argv[2]) and
         all(float(r["anon"]) >= 0 for r in rows) else 1)' "$out" "$got_big"
check csv_numbers_inf $? "$out"
out=$("$bin" -s memory_max,anon "$cg" "$cg/b" 2>&1)
widths=$(awk '{ print length($0) }' <<<"$out" | sort -u | wc -l)
[ "$widths" = 1 ] && [ "$(awk -v p="$rel/b" '$1 == p { print $2 }' <<<"$out")" = "$got_big" ] &&
	head -1 <<<"$out" | grep -qE '^CGROUP +memory_max +anon$' && [ "$(awk -v p="$rel" '$1 == p { print $2 }' <<<"$out")" = max ]
check table_widens_19_digits $? "$out"
# two cgroups on a terminal too narrow for them: a paragraph each, the
# lines layout; "max" has no unit
out=$(script -qec "stty cols 30; $bin -s memory_max $cg/b $cg" /dev/null 2>&1 | tr -d '\r')
grep -qxE "  memory_max +$got_big bytes" <<<"$out" && grep -qxE "  memory_max +max" <<<"$out" &&
	[ "$(grep -c '^/' <<<"$out")" = 2 ] && [ "$(wc -l <<<"$out")" = 5 ]
check table_lines_19_digits $? "$out"
out=$("$bin" -H -s memory_max "$cg/a/c" "$cg/b" "$cg" 2>&1)
[ "$(awk -v p="$rel/a/c" '$1 == p { print $2 }' <<<"$out")" = 1.0G ] &&
	[ "$(awk -v p="$rel/b" '$1 == p { print $2 }' <<<"$out")" = 8.0E ] &&
	[ "$(awk -v p="$rel" '$1 == p { print $2 }' <<<"$out")" = max ]
check human_rounds_up_a_unit $? "$out" "limits: $got_g $got_big"
echo max >"$cg/b/$lim" 2>/dev/null || echo -1 >"$cg/b/$lim"
echo max >"$cg/a/c/$lim" 2>/dev/null || echo -1 >"$cg/a/c/$lim"

# The table's lines layout (--layout lines; auto's for one cgroup a sample
# on a terminal): the path, then a line per column in the columns' order
# (-s LIST's, CSV's; without -s the stats this hierarchy has, in
# --list-stats' order), each value the wide table's and CSV's, as NAME=VALUE
# (CSV's +Inf is "max", its empty field "-"). Values that hold still: b's
# limit, set here, a's 8 MiB of shmem, counts of cgroups where nothing runs.
echo 1073737728 >"$cg/b/$lim"
lines_vals() { "$bin" --layout lines "$@" 2>/dev/null | awk 'NR > 1 { printf "%s=%s ", $1, $2 }'; }
csv_vals() {
	"$bin" -o csv "$@" 2>/dev/null | awk -F, 'NR == 1 { for (i = 4; i <= NF; i++) h[i] = $i }
		NR == 2 { for (i = 4; i <= NF; i++) printf "%s=%s ", h[i], $i == "+Inf" ? "max" : $i == "" ? "-" : $i }'
}
wide_vals() {
	"$bin" --layout wide "$@" 2>/dev/null | awk 'NR == 1 { for (i = 2; i <= NF; i++) h[i] = $i }
		NR == 2 { for (i = 2; i <= NF; i++) printf "%s=%s ", h[i], $i }'
}
list=shmem,memory_max,pgfault,pgmajfault,anon,memory_failcnt
out=$("$bin" --layout lines -s $list "$cg/b" 2>&1)
[ "$(head -1 <<<"$out")" = "$rel/b" ] && [ "$(tail -n +2 <<<"$out" | awk '{ print $1 }' | tr '\n' ,)" = "$list," ]
check lines_names_of_list $? "$out"
for c in a b; do
	l=$(lines_vals -s $list "$cg/$c") v=$(csv_vals -s $list "$cg/$c") w=$(wide_vals -s $list "$cg/$c")
	[ -n "$l" ] && [ "$l" = "$v" ] && [ "$l" = "$w" ]
	check "lines_values_$c" $? "lines: $l" "csv:   $v" "wide:  $w"
done
# every stat of b (nothing runs in it): the same names, order and values
l=$(lines_vals "$cg/b") v=$(csv_vals "$cg/b")
names=$(tr ' ' '\n' <<<"$l" | sed -n 's/=.*//p')
known=$("$bin" --list-stats | grep -nxFf <(cat <<<"$names") | cut -d: -f1 | tr '\n' ' ')
[ "$(wc -l <<<"$names")" -gt 20 ] && [ "$l" = "$v" ] && [ "$known" = "$(printf '%s\n' $known | sort -n | tr '\n' ' ')" ] &&
	[ "$(wc -w <<<"$known")" = "$(wc -l <<<"$names")" ]
check lines_every_stat $? "lines: $l" "csv:   $v" "--list-stats lines: $known"
out=$("$bin" --layout lines -s shmem,pgfault,memory_max "$cg/a" "$cg/b" 2>&1)
[ "$(grep -cxE '  shmem +[0-9]+ bytes' <<<"$out")" = 2 ] && [ "$(grep -cxE '  pgfault +[0-9]+' <<<"$out")" = 2 ] &&
	grep -qxE '  memory_max +1073737728 bytes' <<<"$out" && grep -qxE '  memory_max +max' <<<"$out" &&
	[ "$(sed -n 5p <<<"$out")" = "" ] && [ "$(sed -n 6p <<<"$out")" = "$rel/b" ]
check lines_units_paragraphs $? "$out"
out=$("$bin" --layout lines -H -s memory_max,pgfault "$cg/b" 2>&1)
grep -qxE '  memory_max +1\.0G bytes' <<<"$out" && grep -qxE '  pgfault +[0-9]+' <<<"$out"
check lines_human $? "$out"
# a CGROUP that cannot be read: the same message and exit status as wide
for lay in lines wide; do
	"$bin" --layout $lay -s shmem "$cg/a" /memcgstat-no-such-cgroup >"$tmp/$lay.out" 2>"$tmp/$lay.err"
	echo $? >>"$tmp/$lay.err"
done
[ "$(cat "$tmp/lines.err")" = "$(cat "$tmp/wide.err")" ] && [ "$(tail -1 "$tmp/lines.err")" = 1 ] &&
	[ "$(head -1 "$tmp/lines.out")" = "$rel/a" ] && [ "$(wc -l <"$tmp/lines.out")" = 2 ]
check lines_errors_as_wide $? "$(cat "$tmp/lines.out" "$tmp/lines.err")" "wide: $(cat "$tmp/wide.err")"
rm -f "$tmp"/{lines,wide}.{out,err}
# --local: said in the heading, the values the wide table's
if "$bin" --local -s shmem "$cg" >/dev/null 2>&1; then
	out=$("$bin" --layout lines --local -s shmem,pgfault "$cg" 2>&1)
	[ "$(head -1 <<<"$out")" = "$rel (local: without its descendants)" ] &&
		[ "$(lines_vals --local -s shmem,pgfault "$cg")" = "$(wide_vals --local -s shmem,pgfault "$cg")" ]
	check lines_local $? "$out"
else
	skip lines_local "--local cannot be read here: $("$bin" --local -s shmem "$cg" 2>&1 | head -1)"
fi
# --numa: a line per node as the wide table has a column per node, anon:N0 ...
if "$bin" --numa -s anon "$cg" >/dev/null 2>&1; then
	l=$(lines_vals --numa -s anon,pgfault "$cg/b") v=$(csv_vals --numa -s anon,pgfault "$cg/b")
	[ "$l" = "$v" ] && grep -q 'anon:N0=' <<<"$l"
	check lines_numa $? "lines: $l" "csv:   $v"
else
	skip lines_numa "--numa cannot be read here: $("$bin" --numa -s anon "$cg" 2>&1 | head -1)"
fi
# auto, on a terminal (script(1)'s pty): lines where each sample has one
# row (one CGROUP; -r with --max-depth 0; --top 1), in every sample of a
# run; wide for two CGROUPs or a tree; in a pipe wide, byte for byte
# what --layout wide prints.
pty() { script -qec "stty cols 200; $*" /dev/null 2>&1 | tr -d '\r'; }
for run in "one:$cg/a" "depth0:-r --max-depth 0 $cg" "top1:-r --sort shmem --top 1 $cg"; do
	out=$(pty "$bin" -s shmem,memory_max ${run#*:})
	[ "$(wc -l <<<"$out")" = 3 ] && [ "${out:0:1}" = / ] && grep -qxE '  shmem +[0-9]+ bytes' <<<"$out"
	check "auto_tty_lines_${run%%:*}" $? "$out"
done
for run in "two:$cg/a $cg/b" "tree:-r $cg/a"; do
	out=$(pty "$bin" -s shmem,memory_max ${run#*:})
	[ "$(wc -l <<<"$out")" = 3 ] && grep -qE '^CGROUP +shmem +memory_max$' <<<"$out"
	check "auto_tty_wide_${run%%:*}" $? "$out"
done
out=$(pty "$bin" -i 0.1 -c 3 -s shmem "$cg/a")
[ "$(grep -cxE '  shmem +[0-9]+ bytes' <<<"$out")" = 3 ] && [ "$(grep -cx "$rel/a" <<<"$out")" = 3 ] &&
	! grep -q CGROUP <<<"$out" && [ "$(wc -l <<<"$out")" = 11 ]
check auto_tty_lines_every_sample $? "$out"
a=$("$bin" -s $list "$cg/a" 2>&1) w=$("$bin" --layout wide -s $list "$cg/a" 2>&1)
u=$("$bin" --layout auto -s $list "$cg/a" | cat)
[ "$a" = "$w" ] && [ "$u" = "$w" ] && [ "$(wc -l <<<"$a")" = 2 ] && grep -q '^CGROUP ' <<<"$a"
check auto_pipe_wide $? "$a" "wide: $w" "auto | cat: $u"
echo max >"$cg/b/$lim" 2>/dev/null || echo -1 >"$cg/b/$lim"

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
# tree, the read fails (exit 1). Its name has a byte that is not UTF-8:
# escaped once (\xff), in the row and in the message alike.
if ! nobody_runs_bin; then
	skip unreadable_row "cannot run $bin as nobody (no setpriv, no user nobody, or a directory on the way closed to it)"
else
	ub=$'b\xff' pb='b\xff'
	mkdir -p "$cg/u/a" "$cg/u/$ub"
	chmod 000 "$cg/u/$ub"/memory.*
	out=$(as_nobody --backend text -r -o csv -s anon "$rel/u" 2>"$tmp/unr.err")
	rc=$? err=$(cat "$tmp/unr.err")
	as_nobody --backend text -o csv -s anon "$rel/u/$ub" >/dev/null 2>&1
	rc_top=$?
	[ $rc = 1 ] && [ "$(tail -n +2 <<<"$out" | cut -d, -f2,4 | sort | tr '\n' ' ')" = "$rel/u,0 $rel/u/a,0 $rel/u/$pb, " ] &&
		[ "$err" = "memcgstat: cannot read cgroup $rel/u/$pb: Permission denied" ] && [ $rc_top = 1 ]
	check unreadable_row $? "exit $rc: $out" "stderr: $err; the unreadable cgroup alone: exit $rc_top"
	# with -i: said once on stderr, in JSON every sample's "errors"
	out=$(as_nobody --backend text -r -o json -i 0.05 -c 3 -s anon "$rel/u" 2>"$tmp/unr.err")
	rc=$? err=$(cat "$tmp/unr.err")
	/usr/bin/python3 -c 'import json, sys
rel = sys.argv[2]
s = [json.loads(l) for l in sys.argv[1].splitlines()]
assert len(s) == 3, len(s)
b = rel + "/b\\xff"
for x in s:
    assert sorted(c["path"] for c in x["cgroups"]) == [rel, rel + "/a", b], x
    assert [c["stats"]["anon"] for c in x["cgroups"] if c["path"] == b] == [None], x
    assert x["errors"] == [{"cgroup": b, "error": "cannot read cgroup %s: Permission denied" % b}], x
' "$out" "$rel/u" && [ $rc = 1 ] && [ "$err" = "memcgstat: cannot read cgroup $rel/u/$pb: Permission denied" ]
	check unreadable_row_interval $? "exit $rc: $out" "stderr: $err"
	# a row the filters leave out is neither said nor a failure
	bad=
	for f in "--exclude=*/b*" "--max-depth=0" "--include=$rel/u/a"; do
		out=$(as_nobody --backend text -r -o csv -s anon "$f" "$rel/u" 2>"$tmp/unr.err")
		rc=$?
		[ $rc = 0 ] && [ ! -s "$tmp/unr.err" ] && ! grep -q '/b' <<<"$out" ||
			bad+="$f: exit $rc, $(cat "$tmp/unr.err") $out; "
	done
	[ -z "$bad" ]
	check unreadable_row_filtered_out $? "$bad"
	# a directory below that it may not even open (mode 0): its row, said
	# why; what is below it unseen; the rest of the tree printed
	mkdir "$cg/u/c" "$cg/u/c/d"
	chmod 000 "$cg/u/c"
	out=$(as_nobody --backend text -r -o csv -s anon "$rel/u" 2>"$tmp/unr.err")
	rc=$? err=$(cat "$tmp/unr.err")
	chmod 755 "$cg/u/c"
	rmdir "$cg/u/c/d" "$cg/u/c"
	[ $rc = 1 ] && [ "$(tail -n +2 <<<"$out" | cut -d, -f2,4 | sort | tr '\n' ' ')" = "$rel/u,0 $rel/u/a,0 $rel/u/$pb, $rel/u/c, " ] &&
		grep -qx "memcgstat: cannot read cgroup $rel/u/c: Permission denied" <<<"$err"
	check unreadable_dir_row $? "exit $rc: $out" "stderr: $err"
	rm -f "$tmp/unr.err"
	rmdir "$cg/u/a" "$cg/u/$ub" "$cg/u"
fi

# One CGROUP that cannot be read costs its own row, not the others': they
# print, their values memory.stat's; one line on stderr names the missing
# one; exit 1 at the end. In JSON an entry of "errors" for it.
no=$rel/no-such-$$
row() { echo "$rel/$1,$(text "$cg/$1" "$(key shmem shmem)"),$(text "$cg/$1" "$(key anon rss)")"; }
want="$(row a)"$'\n'"$(row b)"
for o in table csv json; do
	out=$("$bin" -o $o -s shmem,anon "$rel/a" "$no" "$rel/b" 2>"$tmp/err")
	rc=$? err=$(cat "$tmp/err")
	case $o in
	table) got=$(tail -n +2 <<<"$out" | awk '{ print $1 "," $2 "," $3 }') ;;
	csv) got=$(tail -n +2 <<<"$out" | cut -d, -f2,4,5) ;;
	json) got=$(/usr/bin/python3 -c 'import json, sys
d = json.loads(sys.argv[1])
assert len(d["errors"]) == 1 and d["errors"][0]["cgroup"] == sys.argv[2], d
assert "No such file or directory" in d["errors"][0]["error"], d
for c in d["cgroups"]:
    print("%s,%d,%d" % (c["path"], c["stats"]["shmem"], c["stats"]["anon"]))' "$out" "$no") ;;
	esac
	[ $rc = 1 ] && [ "$got" = "$want" ] && [ "$(wc -l <<<"$err")" = 1 ] &&
		grep -qF "$no" <<<"$err" && grep -q "No such file or directory" <<<"$err"
	check "partial_args_$o" $? "exit $rc, rows:" "$got" "want:" "$want" "stdout: $out" "stderr: $err"
done

# A cgroup removed while -i runs (a service restarted) drops out of the
# samples while it is gone and comes back when it is made again at its
# path; the stream goes on for every cgroup. z is removed after the 2nd of
# 6 samples and made again after the 4th: y in all six, z in 1, 2, 5 and 6
# (with -r its child too), an "errors" entry for z in 3 and 4; no rate
# below 0 (a new cgroup's are null); one line on stderr; exit 1.
gone_and_back() {	# NAME ARGS...
	local name=$1 pid rc err
	shift
	mkdir -p "$cg/y" "$cg/z/w"
	"$bin" "$@" -o json -i 0.5 -c 6 -s anon,pgfault "$rel/y" "$rel/z" >"$tmp/g.out" 2>"$tmp/g.err" &
	pid=$!
	wait_lines "$tmp/g.out" . 2 && rmdir "$cg/z/w" "$cg/z"
	wait_lines "$tmp/g.out" . 4 && mkdir "$cg/z" "$cg/z/w"
	wait $pid
	rc=$? err=$(cat "$tmp/g.err")
	/usr/bin/python3 -c 'import json, sys
rel, tree = sys.argv[2], sys.argv[3] == "1"
s = [json.loads(l) for l in open(sys.argv[1])]
assert len(s) == 6, "%d samples" % len(s)
y = [rel + "/y"]
z = [rel + "/z"] + ([rel + "/z/w"] if tree else [])
for k, x in enumerate(s):
    paths = [c["path"] for c in x["cgroups"]]
    if k in (2, 3):
        assert paths == y, (k + 1, paths)
        e = x["errors"]
        assert len(e) == 1 and e[0]["cgroup"] == rel + "/z" and "No such file" in e[0]["error"], (k + 1, e)
    else:
        assert paths == y + z, (k + 1, paths)
        assert "errors" not in x, (k + 1, x["errors"])
    for c in x["cgroups"]:
        r = c["rates"]["pgfault"]
        assert r is None or r >= 0, (k + 1, c)
        if k == 4 and c["path"] in z:
            assert r is None, (k + 1, c)
' "$tmp/g.out" "$rel" "$([[ " $* " = *" -r "* ]] && echo 1)" &&
		[ $rc = 1 ] && [ "$(wc -l <<<"$err")" = 1 ] && grep -qF "$rel/z" <<<"$err"
	check "$name" $? "exit $rc" "$(cat "$tmp/g.out")" "stderr: $err"
	rm_cgroups "$cg/y"
	rm_cgroups "$cg/z"
}
gone_and_back interval_gone_and_back
gone_and_back interval_tree_gone_and_back -r

# A CGROUP given through a symlink that leads out of the hierarchy once
# the 2nd of 4 samples is out: its rows drop out and the others go on, an
# "errors" entry in each sample after (at least the 4th, however late the
# switch), one line on stderr; exit 1 (before, the run ended there with
# exit 2, bad usage).
mkdir -p "$cg/y" "$cg/z"
ln -sfn "$cg/z" "$tmp/zlink"
"$bin" -o json -i 0.5 -c 4 -s anon "$tmp/zlink" "$rel/y" >"$tmp/l.out" 2>"$tmp/l.err" &
pid=$!
wait_lines "$tmp/l.out" . 2 && ln -sfn "$tmp" "$tmp/zlink"
wait $pid
rc=$? err=$(cat "$tmp/l.err")
/usr/bin/python3 -c 'import json, sys
rel = sys.argv[2]
s = [json.loads(l) for l in open(sys.argv[1])]
assert len(s) == 4, "%d samples" % len(s)
gone = [k for k, x in enumerate(s) if "errors" in x]
assert gone and gone[0] >= 2 and gone == list(range(gone[0], 4)), gone
for k, x in enumerate(s):
    paths = [c["path"] for c in x["cgroups"]]
    assert paths == ([] if k in gone else [rel + "/z"]) + [rel + "/y"], (k + 1, paths)
' "$tmp/l.out" "$rel" && [ $rc = 1 ] && [ "$(wc -l <<<"$err")" = 1 ] && grep -q "not in the memory hierarchy" <<<"$err"
check interval_symlink_leaves $? "exit $rc" "$(cat "$tmp/l.out")" "stderr: $err"
rm -f "$tmp/zlink"
rmdir "$cg/y" "$cg/z"

# The same in top: CGROUP removed after the 2nd of 6 frames, made again
# after the 4th; frames 3 and 4 have no rows and say why, the tree is back
# in 5 and 6; one line on stderr; exit 1.
mkdir -p "$cg/z/w"
"$bin" top -b -n 6 -i 0.5 "$rel/z" >"$tmp/t.out" 2>"$tmp/t.err" &
pid=$!
wait_lines "$tmp/t.out" '^[0-9:]* memcgstat top ' 2 && rmdir "$cg/z/w" "$cg/z"
wait_lines "$tmp/t.out" '^[0-9:]* memcgstat top ' 4 && mkdir "$cg/z" "$cg/z/w"
wait $pid
rc=$? err=$(cat "$tmp/t.err")
frames=$(awk -v rel="$rel" 'BEGIN { RS = "" } {
	n = split($0, l, "\n"); rows = 0
	for (i = 4; i <= n; i++) if (l[i] ~ (" " rel "/z(/w)?$")) rows++
	printf "%s %d %d\n", (l[1] ~ / 0 cgroups,/ ? "none" : l[1] ~ / 2 cgroups,/ ? "two" : "?"), rows, l[2] ~ /cannot read: .*No such file/
}' "$tmp/t.out" | tr '\n' ' ')
[ "$frames" = "two 2 0 two 2 0 none 0 1 none 0 1 two 2 0 two 2 0 " ] && [ $rc = 1 ] &&
	[ "$(wc -l <<<"$err")" = 1 ] && grep -qF "$rel/z" <<<"$err"
check top_gone_and_back $? "exit $rc, frames: $frames" "$(cat "$tmp/t.out")" "stderr: $err"
rm_cgroups "$cg/z"

# With -i, every frame of the table heads its rate columns NAME/s (sizes
# keep their names), the first (totals) NAME. The lines layout (one cgroup
# on a terminal) keeps the names and has a counter's total in every
# sample, its rate after the first: NAME TOTAL [UNIT] RATE/s.
out=$("$bin" -i 0.1 -c 3 -s anon,pgfault "$cg" 2>&1)
heads=$(grep '^CGROUP' <<<"$out" | awk '{ print $2 "," $3 }' | tr '\n' ' ')
[ "$heads" = "anon,pgfault anon,pgfault/s anon,pgfault/s " ]
check table_rate_labels $? "$out"
out=$(script -qec "stty cols 60; $bin -i 0.1 -c 2 -s $eight $cg" /dev/null 2>&1 | tr -d '\r')
[ "$(grep -cxE '  pgfault +[0-9]+' <<<"$out")" = 1 ] && [ "$(grep -cxE '  pgfault +[0-9]+ +[0-9]+\.[0-9]/s' <<<"$out")" = 1 ] &&
	[ "$(grep -cxE '  pgmajfault +[0-9]+ +[0-9]+\.[0-9]/s' <<<"$out")" = 1 ] &&
	[ "$(grep -cxE '  anon +[0-9]+ bytes' <<<"$out")" = 2 ] && [ "$(grep -cx "$rel" <<<"$out")" = 2 ] &&
	! grep -q '^  [a-z_]*/s' <<<"$out" && [ "$(sed -n 11p <<<"$out")" = "" ]
check table_lines_rates $? "$out"

# The schedule of -i: sample k at the first's time plus k intervals, on a
# tree whose read takes a while (300 cgroups); cadence() in lib.sh.
mkdir "$cg/big" && eval "mkdir $cg/big/c{1..300}"
cadence "" json -s anon,file,pgfault "$rel/big"
rm_cgroups "$cg/big"
finish
