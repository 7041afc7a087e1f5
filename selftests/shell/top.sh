#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# memcgstat top on the host (the text backend here): options and errors;
# batch frames (-b) against the cgroups' own files, exactly; and the live
# view in a detached tmux session of a fixed size, on real cgroups with
# real memory: the header, the rows, values equal to the files, the order
# after each sort key, a rate after the second refresh, the "N more" line
# after a resize, and q, ^C and SIGTERM leaving the terminal as it was.
# Prints "#N top/NAME:OK|FAIL|SKIP (why)".
#
#   top.sh path/to/memcgstat path/to/memhog
set -uo pipefail

bin=${1:?usage: top.sh path/to/memcgstat path/to/memhog}
memhog=${2:?usage: top.sh path/to/memcgstat path/to/memhog}
SUITE=top
. "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d /tmp/memcgstat-top.XXXXXX)
T=(tmux -S "$tmp/tmux.socket" -f /dev/null)	# removed with $tmp
cg='' pids=()
cleanup() {
	"${T[@]}" kill-server 2>/dev/null
	[ ${#pids[@]} -gt 0 ] && kill -9 "${pids[@]}" 2>/dev/null
	wait 2>/dev/null
	for _ in 1 2 3 4 5; do
		rm_cgroups "$cg"
		[ -n "$cg" ] && [ -d "$cg" ] || break
		sleep 0.2
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

# Options and errors, before any cgroup of ours.
expect help 0 '^Usage: memcgstat top \[OPTION\]\.\.\. \[CGROUP\]' -- top --help
expect main_help_names_top 0 '^       memcgstat top \[OPTION\]\.\.\. \[CGROUP\] +\(a live view' -- --help
expect unknown_option 2 'Usage: memcgstat top' -- top --bogus
expect not_a_tty 2 '^memcgstat top: standard output is not a terminal: use -b for plain frames' -- top
out=$(timeout 10 script -qc "$bin top </dev/null" /dev/null 2>&1 | tr -d '\r')
grep -q 'standard input is not a terminal (keys are read from it): use -b' <<<"$out"
check stdin_not_a_tty $? "$out"
expect bad_interval 2 "--interval: '0' is not a number of seconds" -- top -b -i 0
expect bad_iterations 2 "--iterations: 'x' is not a whole number >= 1" -- top -b -n x
expect zero_iterations 2 "--iterations: '0'" -- top -b -n 0
expect bad_sort 2 "--sort: 'bogus' is not a column of top \(usage, working_set, .*, cgroup\)" -- \
	top -b --sort bogus
expect bad_backend 2 "--backend: unknown backend 'gpu'" -- top -b --backend gpu
expect two_cgroups 2 'one CGROUP at most' -- top -b / /
expect quiet_and_verbose 2 '-v and -q cannot be combined' -- top -b -v -q
# the shared options (common.h) last in top's table: an abbreviation lists
# its candidates in table order; the flags getopt_long() sets take no value
expect long_quiet_and_verbose 2 '-v and -q cannot be combined' -- top -b --verbose --quiet
expect ambiguous_abbrev 2 "option '--b' is ambiguous; possibilities: '--batch' '--bytes' '--backend'" -- top -b --b
expect flag_takes_no_value 2 "option '--totals' doesn't allow an argument" -- top -b --totals=1
expect no_such_cgroup 1 'No such file or directory' -- top -b -n 1 /memcgstat-no-such-cgroup
expect outside_hierarchy 2 '^memcgstat top: \.\.: not in the memory hierarchy \(mounted at ' -- top -b -n 1 ..
if grep -qw bpf_get_mem_cgroup /proc/kallsyms 2>/dev/null; then
	skip bpf_missing_kfunc "this kernel has the memcg kfuncs"
else
	expect bpf_missing_kfunc 1 'kernel lacks kfunc bpf_[a-z_]+.*; use --backend text' -- \
		top -b -n 1 --backend bpf
fi
# a cgroup named top is still a cgroup: ./top
expect cgroup_named_top 1 "cgroup ./top|No such file" -- ./top

# The memory hierarchy, found as run-tests.sh finds it.
mnt=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/mounts) ver=1
[ -n "$mnt" ] || { mnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts); ver=2; }
if [ -z "$mnt" ] || [ ! -w "$mnt" ] || [ ! -x "$memhog" ]; then
	skip cgroups "no writable memory cgroup hierarchy, or no memhog at $memhog"
	finish
fi
if [ $ver = 1 ]; then
	expect sort_column_absent 2 '--sort: memory_high has no column here: the text backend on cgroup v1' -- \
		top -b --sort memory_high
else
	expect sort_column_absent 2 '--sort: memory_failcnt has no column here' -- \
		top -b --sort memory_failcnt
fi

# Our tree: a (64 MiB of anon, limit 256 MiB), b (16 MiB, 512 MiB), c (a
# shell that forks and execs /bin/true 30 times a second or so: page faults
# every second, without taking a CPU), twelve d01..d12 with no limit,
# empty but for d01's three sleeping processes (TASKS 3), and n with
# hostile names below it (as in cli.sh: a title-setting escape, a CR, a
# tab, the bytes ff fe and the eight characters \xff\xfe;
# shown[] as top prints them, in tree order): 22 cgroups.
rel=/memcgstat-top-$$ cg=$mnt/memcgstat-top-$$
mkdir "$cg" "$cg/a" "$cg/b" "$cg/c" "$cg/n" || { fail setup "mkdir $cg"; finish; }
for i in $(seq -w 1 12); do mkdir "$cg/d$i"; done
names=('\xff\xfe' $'\xff\xfe' $'cr\rZZZZ' $'esc\e]0;PWNED\aX' $'tab\tT')
shown=('\\xff\\xfe' '\xff\xfe' 'cr\x0dZZZZ' 'esc\x1b]0;PWNED\x07X' 'tab\x09T')
for n in "${names[@]}"; do mkdir "$cg/n/$n"; done
if [ $ver = 1 ]; then
	limit=memory.limit_in_bytes
else
	limit=memory.max
	echo +memory >"$cg/cgroup.subtree_control"
	echo +memory >"$cg/n/cgroup.subtree_control"
	echo 201326592 >"$cg/a/memory.high"
fi
echo 268435456 >"$cg/a/$limit"
echo 536870912 >"$cg/b/$limit"
for spec in "a 64" "b 16"; do
	set -- $spec
	start_memhog "$tmp/memhog.$1" "$cg/$1" "$2" ||
		{ fail setup "memhog in $cg/$1: $(cat "$tmp/memhog.$1")"; finish; }
done
sh -c "echo \$\$ >$cg/c/cgroup.procs; while :; do /bin/true; sleep 0.02; done" &
pids+=($!)
for i in 1 2 3; do
	sh -c "echo \$\$ >$cg/d01/cgroup.procs && exec sleep 600" &
	pids+=($!)
done
for i in $(seq 50); do
	[ "$(wc -l <"$cg/d01/cgroup.procs")" = 3 ] && break
	sleep 0.1
done
[ "$(wc -l <"$cg/d01/cgroup.procs")" = 3 ] || { fail setup "d01's 3 sleepers: $(cat "$cg/d01/cgroup.procs")"; finish; }
paths=("$rel" "$rel/a" "$rel/b" "$rel/c")
for i in $(seq -w 1 12); do paths+=("$rel/d$i"); done
paths+=("$rel/n" "${shown[@]/#/$rel/n/}")
tree="${paths[*]} "

# swap accounting adds SWAP (v2) or MEMSW (v1) after FILE
if [ $ver = 1 ]; then
	swap=; [ -e "$cg/memory.memsw.usage_in_bytes" ] && swap=' MEMSW'
	cols="*USAGE WSET ANON FILE$swap MAX TASKS FLT/s MAJFLT/s OOMKILL/s FAILCNT/s CGROUP"
	anon=total_rss pgfault=total_pgfault
else
	swap=; [ -e "$cg/a/memory.swap.current" ] && swap=' SWAP'
	cols="*USAGE WSET ANON FILE$swap HIGH MAX TASKS FLT/s MAJFLT/s HIGHEV/s MAXEV/s OOMKILL/s CGROUP"
	anon=anon pgfault=pgfault
fi
stat() { awk -v k="$2" '$1 == k { print $2 }' "$cg/$1/memory.stat"; }
# frame N of batch output (frames are paragraphs)
frame() { awk -v n="$2" 'BEGIN { RS = "" } NR == n' <<<"$1"; }
# the cell of column LABEL (without * and with /s) in PATH's row
val() {
	awk -v want="$2" -v path="$3" '
		/CGROUP$/ { for (i = 1; i <= NF; i++) { l = $i; sub(/^\*/, "", l); col[l] = i }; next }
		$NF == path && (want in col) { print $col[want]; exit }' <<<"$1"
}
# the rows of a screen whose path (the last field) is PATH
rows_of() {
	local line n=0

	while IFS= read -r line; do
		[ "${line##* }" = "$2" ] && n=$((n + 1))
	done <<<"$1"
	echo $n
}
# each hostile name's row once, and nothing raw of a name (a control byte)
hostile_rows() {
	local p

	for p in "${shown[@]}"; do
		[ "$(rows_of "$1" "$rel/n/$p")" = 1 ] || return 1
	done
	! LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' <<<"$1"
}
# the rows' paths, top to bottom
order() { awk '/CGROUP$/ { on = 1; next } on && NF > 1 && $1 != "--" { print $NF }' <<<"$1" | tr '\n' ' '; }
# a size as top prints it without --bytes (render_human)
human() {
	awk -v v="$1" 'BEGIN { u = 0; while (v >= 1024 && u < 6) { v /= 1024; u++ }
		if (u) printf "%.1f%s\n", v, substr("BKMGTPE", u + 1, 1); else printf "%.0f\n", v }'
}

# Batch mode: two frames half a second apart, sizes in bytes.
out=$(timeout 20 "$bin" top -b -n 2 -i 0.5 --bytes "$rel" 2>&1)
rc=$?
f1=$(frame "$out" 1) f2=$(frame "$out" 2)
[ $rc = 0 ] && [ "$(frame "$out" 3)" = "" ] &&
	sed -n 1p <<<"$f1" | grep -qE "^[0-9]{2}:[0-9]{2}:[0-9]{2} memcgstat top $rel: 22 cgroups, every 0.5s, text backend, cgroup v$ver; rates from the next refresh$" &&
	sed -n 1p <<<"$f2" | grep -qE "^[0-9]{2}:[0-9]{2}:[0-9]{2} memcgstat top $rel: 22 cgroups, every 0.5s, text backend, cgroup v$ver$" &&
	[ "$(sed -n 2p <<<"$f1")" = "sort: USAGE, largest first" ] &&
	[ "$(sed -n 3p <<<"$f1" | tr -s ' ' | sed 's/^ //')" = "$cols" ] &&
	[ "$(wc -l <<<"$f1")" = 25 ]
check batch_frames $? "exit $rc" "$out"
# every cgroup once; the parent (the sum), then a, then b
[ "$(order "$f1" | tr ' ' '\n' | sort | tr '\n' ' ')" = "$(printf '%s\n' "${paths[@]}" | sort | tr '\n' ' ')" ] &&
	[[ "$(order "$f1")" == "$rel $rel/a $rel/b "* ]]
check batch_rows $? "order: $(order "$f1")"
# the hostile names: a row each, the look-alikes two, nothing raw
hostile_rows "$f1" && hostile_rows "$f2"
check batch_hostile_names $? "$(cat -A <<<"$f1")"
# values of files that stay put: the limits, the idle memhogs' anon
want="268435456 536870912 max max $(stat a $anon) $(stat b $anon)"
got="$(val "$f1" MAX "$rel/a") $(val "$f1" MAX "$rel/b") $(val "$f1" MAX "$rel/d01") $(val "$f1" MAX "$rel")"
got+=" $(val "$f1" ANON "$rel/a") $(val "$f1" ANON "$rel/b")"
[ "$got" = "$want" ] && [ "$(val "$f1" ANON "$rel/a")" -ge 67108864 ]
check batch_values_equal_files $? "top: $got" "files: $want"
# TASKS: each cgroup's own processes (cgroup.procs' entries), not its
# descendants': d01's 3 sleepers, a's and b's memhog, none in $rel itself
want="3 1 1 0 0 $(wc -l <"$cg/d01/cgroup.procs") $(wc -l <"$cg/a/cgroup.procs")"
got="$(val "$f1" TASKS "$rel/d01") $(val "$f1" TASKS "$rel/a") $(val "$f1" TASKS "$rel/b")"
got+=" $(val "$f1" TASKS "$rel") $(val "$f1" TASKS "$rel/d02") $(val "$f2" TASKS "$rel/d01") $(val "$f2" TASKS "$rel/a")"
[ "$got" = "$want" ]
check batch_tasks_equal_procs $? "top: $got" "want: $want"
if [ $ver = 2 ]; then
	[ "$(val "$f1" HIGH "$rel/a")" = 201326592 ] && [ "$(val "$f1" HIGH "$rel/b")" = max ]
	check batch_memory_high $? "$f1"
fi
# swap accounting's column: v2's swap (nothing swapped out: the file's 0
# exactly), v1's memory and swap together (at least the anon)
if [ "$swap" = ' SWAP' ]; then
	[ "$(val "$f1" SWAP "$rel/a")" = "$(cat "$cg/a/memory.swap.current")" ]
	check batch_swap_column $? "file $(cat "$cg/a/memory.swap.current")" "$f1"
elif [ "$swap" = ' MEMSW' ]; then
	[ "$(val "$f1" MEMSW "$rel/a")" -ge "$(val "$f1" ANON "$rel/a")" ] &&
		[ "$(val "$f1" MEMSW "$rel/a")" -ge 67108864 ]
	check batch_memsw_column $? "$f1"
else
	skip batch_swap_column "no swap accounting in this hierarchy"
fi
# rates: "-" in the first frame, numbers in the second; c faults all the time
dashes=$(for p in "${paths[@]}"; do val "$f1" FLT/s "$p"; val "$f1" MAJFLT/s "$p"; done | sort -u | tr '\n' ' ')
c2=$(val "$f2" FLT/s "$rel/c")
[ "$dashes" = "- " ] && [[ $c2 =~ ^[0-9]+(\.[0-9])?k?$ ]] && [ "$c2" != 0.0 ] &&
	[ "$(val "$f2" MAJFLT/s "$rel/a")" = 0.0 ]
check batch_rates_second_frame $? "first frame's rates: '$dashes', c's FLT/s in the second: '$c2'"
# --totals: the counters as the files have them (a's memhog sleeps)
out=$(timeout 10 "$bin" top -b -n 1 --totals "$rel" 2>&1)
want=$(stat a $pgfault)
[ "$(val "$out" FLT "$rel/a")" = "$want" ] && ! grep -q '/s ' <<<"$out" &&
	! grep -q 'rates from the next' <<<"$out"
check batch_totals $? "want FLT $want" "$out"
if [ $ver = 1 ]; then
	[ "$(val "$out" FAILCNT "$rel/a")" = "$(cat "$cg/a/memory.failcnt")" ]
	check batch_failcnt_equals_file $? "file $(cat "$cg/a/memory.failcnt")" "$out"
fi
# sort orders, exactly: "max" above every size, ties in tree order;
# --reverse: smallest first; cgroup: tree order, and back
maxes="$rel $rel/c $(printf "$rel/d%s " $(seq -w 1 12))$(printf '%s ' "$rel/n" "${shown[@]/#/$rel/n/}")"
o=$(order "$(timeout 10 "$bin" top -b -n 1 --sort memory_max "$rel")")
[ "$o" = "$maxes$rel/b $rel/a " ]
check batch_sort_max $? "$o"
o=$(order "$(timeout 10 "$bin" top -b -n 1 --sort memory_max --reverse "$rel")")
[ "$o" = "$rel/a $rel/b $maxes" ]
check batch_sort_max_reverse $? "$o"
o=$(order "$(timeout 10 "$bin" top -b -n 1 --sort cgroup "$rel")")
[ "$o" = "$tree" ]
check batch_sort_cgroup $? "$o"
o=$(order "$(timeout 10 "$bin" top -b -n 1 --sort cgroup --reverse "$rel")")
[ "$o" = "$(printf '%s\n' "${paths[@]}" | tac | tr '\n' ' ')" ]
check batch_sort_cgroup_reverse $? "$o"
# the CLI's tree filters: depth 1 is the tree but n's children; the header
# says the depth
out=$(timeout 10 "$bin" top -b -n 1 --sort cgroup --max-depth 1 "$rel")
[ "$(order "$out")" = "$(printf '%s ' "${paths[@]:0:17}")" ] &&
	head -1 <<<"$out" | grep -q ": 17 cgroups (depth 1), every"
check batch_max_depth $? "$out"
o=$(order "$(timeout 10 "$bin" top -b -n 1 --sort cgroup --include "$rel/d*" --exclude '*1' "$rel")")
[ "$o" = "$rel/d02 $rel/d03 $rel/d04 $rel/d05 $rel/d06 $rel/d07 $rel/d08 $rel/d09 $rel/d10 $rel/d12 " ]
check batch_include_exclude $? "$o"
# NAME: the rows of a batch frame of top OPTIONS... "$rel", in the order WANT
order_is() {	# NAME WANT OPTIONS...
	local name=$1 want=$2 o

	shift 2
	o=$(order "$(timeout 10 "$bin" top -b -n 1 "$@" "$rel")")
	[ "$o" = "$want" ]
	check "$name" $? "$o"
}
# --filter, the rule of the key /: a substring of the path, or with * ? [
# a glob of the whole path; said in the header; with the tree filters, all
# of them keep a row
out=$(timeout 10 "$bin" top -b -n 1 --sort cgroup --filter /d1 "$rel")
[ "$(order "$out")" = "$rel/d10 $rel/d11 $rel/d12 " ] &&
	head -1 <<<"$out" | grep -q ": 3 cgroups (filter \"/d1\"), every"
check batch_filter_substring $? "$out"
out=$(timeout 10 "$bin" top -b -n 1 --sort cgroup --filter "$rel/d0[13]" "$rel")
[ "$(order "$out")" = "$rel/d01 $rel/d03 " ] &&
	head -1 <<<"$out" | grep -qF ": 2 cgroups (glob \"$rel/d0[13]\"), every"
check batch_filter_glob $? "$out"
order_is batch_filter_glob_whole_path "" --sort cgroup --filter 'd?[0-9]'
order_is batch_filter_and_exclude "$rel/d10 $rel/d11 " --sort cgroup --filter /d1 --exclude '*2'
out=$(timeout 10 "$bin" top -b -n 1 --sort cgroup --filter /n --max-depth 1 "$rel")
[ "$(order "$out")" = "$rel/n " ] && head -1 <<<"$out" | grep -q ": 1 cgroup (depth 1, filter \"/n\"), every"
check batch_filter_and_depth $? "$out"
order_is batch_filter_empty "$tree" --sort cgroup --filter ''
expect filter_too_long 2 "--filter: longer than 255 bytes" -- top -b -n 1 --filter "$(printf 'x%.0s' $(seq 256))" "$rel"

# -s: the columns of exactly its stats, in its order: top's own with their
# labels, any other headed by its name in capitals; sizes as sizes, plain
# numbers as numbers, counters per second; the values the CLI's
# -s prints for the same stats
out=$(timeout 10 "$bin" top -b -n 1 -s memory_max,nr_descendants,shmem,pgfault "$rel" 2>&1)
[ "$(sed -n 3p <<<"$out" | tr -s ' ' | sed 's/^ //')" = "*MAX NR_DESCENDANTS SHMEM FLT/s CGROUP" ] &&
	[ "$(val "$out" MAX "$rel/a") $(val "$out" MAX "$rel/b") $(val "$out" MAX "$rel/d01")" = "256.0M 512.0M max" ] &&
	[ "$(val "$out" FLT/s "$rel/c")" = - ]
check stats_columns $? "$out"
cli=$(timeout 10 "$bin" -s memory_max,nr_descendants "$rel" "$rel/a" "$rel/b" "$rel/n" "$rel/d01" 2>&1)
out=$(timeout 10 "$bin" top -b -n 1 --bytes -s memory_max,nr_descendants "$rel" 2>&1)
want=$(awk 'NR > 1 { print $1, $2, $3 }' <<<"$cli")
got=$(for p in "$rel" "$rel/a" "$rel/b" "$rel/n" "$rel/d01"; do
	echo "$p $(val "$out" MAX "$p") $(val "$out" NR_DESCENDANTS "$p")"; done)
[ "$got" = "$want" ] && [ "$(val "$out" NR_DESCENDANTS "$rel")" = 21 ] &&
	[ "$(val "$out" MAX "$rel/a")" = 268435456 ]
check stats_values_equal_cli $? "top: $got" "cli: $want"
# a stat without a key sorts by --sort: largest first, ties in tree order
order_is stats_sort_without_key \
	"$rel $rel/n $rel/a $rel/b $rel/c $(printf "$rel/d%s " $(seq -w 1 12))$(printf '%s ' "${shown[@]/#/$rel/n/}")" \
	-s memory_max,nr_descendants --sort nr_descendants
out=$(timeout 10 "$bin" top -b -n 1 --totals -s pgfault,anon "$rel")
[ "$(sed -n 3p <<<"$out" | tr -s ' ' | sed 's/^ //')" = "*FLT ANON CGROUP" ] &&
	[ "$(val "$out" FLT "$rel/a")" = "$(stat a $pgfault)" ] && head -2 <<<"$out" | grep -q '^sort: FLT, largest first$'
check stats_first_column_sorts $? "$out"
# -s nr_procs: top's TASKS column, its key, sorting (d01's 3 first)
out=$(timeout 10 "$bin" top -b -n 1 -s nr_procs,anon "$rel")
[ "$(sed -n 3p <<<"$out" | tr -s ' ' | sed 's/^ //')" = "*TASKS ANON CGROUP" ] &&
	head -2 <<<"$out" | grep -q '^sort: TASKS, largest first$' &&
	[[ "$(order "$out")" == "$rel/d01 "* ]] && [ "$(val "$out" TASKS "$rel/d01")" = 3 ] &&
	[ "$(val "$out" TASKS "$rel/d01") $(val "$out" TASKS "$rel/n")" = "3 0" ]
check stats_nr_procs_tasks $? "$out"
# the CLI's checks and messages, word for word
for s in bogus anon,anon; do
	cli=$("$bin" -s "$s" / 2>&1 >/dev/null)
	out=$("$bin" top -b -n 1 -s "$s" / 2>&1 >/dev/null)
	rc=$?
	[ $rc = 2 ] && [ -n "$cli" ] && [ "${out#memcgstat top: }" = "${cli#memcgstat: }" ]
	check "stats_error_${s//,/_}" $? "exit $rc: $out" "cli: $cli"
done
expect stats_unknown 2 "^memcgstat top: unknown stat 'bogus'" -- top -b -n 1 -s anon -s bogus /
expect stats_empty 2 '^memcgstat top: --stats: empty list' -- top -b -n 1 -s , /
absent=memory_high; [ $ver = 2 ] && absent=memory_failcnt
cli=$("$bin" -s $absent / 2>&1 >/dev/null)
out=$("$bin" top -b -n 1 -s anon,$absent / 2>&1 >/dev/null)
rc=$?
[ $rc = 2 ] && [ "${out#memcgstat top: }" = "${cli#memcgstat: }" ] && grep -q "'$absent' is cgroup v" <<<"$out"
check stats_absent_in_hierarchy $? "exit $rc: $out" "cli: $cli"
expect stats_sort_not_shown 2 "--sort: 'usage' is not a column of top \(anon, cgroup\)" -- \
	top -b -n 1 -s anon --sort usage /
# a pipe that closes: exit 1 and why, not a hang
out=$(timeout 10 "$bin" top -b -i 0.1 "$rel" 2>&1 >/dev/full)
rc=$?
[ $rc = 1 ] && grep -q 'cannot write standard output: No space left on device' <<<"$out"
check batch_write_error $? "exit $rc: $out"
# a cgroup whose files cannot be read (nobody's run, as the CLI's test):
# its row "-", counted on the second line, said once on standard error,
# exit 1, as the CLI's -r; not when --exclude leaves it out
if ! nobody_runs_bin; then
	skip batch_unreadable_row "cannot run $bin as nobody (no setpriv, no user nobody, or a directory on the way closed to it)"
else
	ub=$'z\xff' pb='z\xff'
	mkdir "$cg/unr"
	[ $ver = 2 ] && echo +memory >"$cg/unr/cgroup.subtree_control"
	mkdir "$cg/unr/a" "$cg/unr/$ub"
	chmod 000 "$cg/unr/$ub"/memory.*
	out=$(as_nobody top -b -n 3 -i 0.1 --backend text "$rel/unr" 2>"$tmp/unr.err")
	rc=$? err=$(cat "$tmp/unr.err") dash=0
	while read -r line; do
		[[ $line == "- "* && $line == *" $rel/unr/$pb" ]] && dash=$((dash + 1))
	done <<<"$out"
	[ $rc = 1 ] && [ "$err" = "memcgstat top: cannot read cgroup $rel/unr/$pb: Permission denied" ] &&
		[ "$(grep -c '^sort: .*, 1 cgroup cannot be read$' <<<"$out")" = 3 ] && [ $dash = 3 ]
	check batch_unreadable_row $? "exit $rc, stderr: $err" "$out"
	out=$(as_nobody top -b -n 2 -i 0.1 --backend text --exclude '*/z*' "$rel/unr" 2>&1)
	rc=$?
	[ $rc = 0 ] && ! grep -q 'cannot' <<<"$out" && grep -q "^sort: USAGE, largest first\$" <<<"$out"
	check batch_unreadable_row_excluded $? "exit $rc: $out"
	rm -f "$tmp/unr.err"
	rmdir "$cg/unr/a" "$cg/unr/$ub" "$cg/unr"
fi
# CGROUP given by its absolute path, with a byte to escape, removed after
# the first frame: the later frames' header names it as the first did
# (not as typed), and their reason line escapes it once, as stdout does
gb=$'g\xff' gp='g\xff'
mkdir "$cg/$gb"
"$bin" top -b -n 3 -i 0.5 "$cg/$gb" >"$tmp/gone.out" 2>&1 &
gpid=$!
for _ in $(seq 100); do grep -q 'memcgstat top' "$tmp/gone.out" && break; sleep 0.1; done
rmdir "$cg/$gb"
wait $gpid
rc=$?
heads=$(grep -cF " memcgstat top $rel/$gp: " "$tmp/gone.out")
gone=$(grep -cF " - cannot read: cgroup $cg/$gp: No such file or directory" "$tmp/gone.out")
[ $rc = 1 ] && [ "$heads" = 3 ] && [ "$gone" -ge 1 ] && ! grep -qF '\\x' "$tmp/gone.out"
check batch_gone_header_and_reason $? "exit $rc, $heads headers naming $rel/$gp, $gone reasons:" "$(cat -A "$tmp/gone.out")"
# --backend auto is the library's choice by the reads, -n frames of the
# tree's 22 cgroups, at the first frame: fewer than 200 take the text
# backend, 200 or more want bpf, as does a run without -n; -v says which and
# why, with the count; where bpf cannot run at all, that is the reason, and
# no advice to take it or pin it. (Pinned programs, which a small tree
# takes: vm_backends.sh.)
out=$(timeout 10 "$bin" top -b -n 1 -v "$rel" 2>&1 >/dev/null)
if [ -e /sys/kernel/btf/vmlinux ] && ! grep -qw bpf_get_mem_cgroup /proc/kallsyms 2>/dev/null; then
	lacks="memcgstat top: using the text backend: kernel lacks kfunc bpf_get_mem_cgroup (memcg stat kfuncs: Linux 7.0, or 6.12 with memcgstat's kernel/patches)"
	grep -qx "$lacks" <<<"$out" && grep -q "^memcgstat top: backend text," <<<"$out" &&
		! grep -q -- "pay for\|cost less\|--pin\|pinned" <<<"$out"
	check auto_one_frame_text $? "$out"
	for run in "-n 9" "-n 10" ""; do
		out=$(timeout 2 "$bin" top -b $run -i 0.001 -v "$rel" 2>&1 >/dev/null)
		grep -qx "$lacks" <<<"$out" && ! grep -q -- "pay for\|cost less\|--pin" <<<"$out"
		check "auto_frames_no_kfuncs${run:+_${run#-n }}" $? "$out"
	done
else
	grep -q "^memcgstat top: using the text backend: 22 cgroup reads cost less than loading the bpf backend (--backend bpf to use it, memcgstat --pin to pin it)$" <<<"$out" &&
		grep -q "^memcgstat top: backend text," <<<"$out" && ! grep -q "pay for" <<<"$out"
	check auto_one_frame_text $? "$out"
	out=$(timeout 10 "$bin" top -b -n 9 -i 0.001 -v "$rel" 2>&1 >/dev/null)
	grep -q "^memcgstat top: using the text backend: 198 cgroup reads cost less" <<<"$out"
	check auto_frames_count $? "$out"
	out=$(timeout 20 "$bin" top -b -n 10 -i 0.001 -v "$rel" 2>&1 >/dev/null)
	rc=$?
	[ $rc = 0 ] && grep -qE "^memcgstat top: using the bpf backend: (220|200 or more) cgroup reads pay for loading the bpf backend$" <<<"$out" &&
		grep -q "^memcgstat top: backend bpf," <<<"$out" && ! grep -q "cost less" <<<"$out"
	check auto_many_frames_bpf $? "exit $rc: $out"
	out=$(timeout 2 "$bin" top -b -i 0.05 -v "$rel" 2>&1 >/dev/null)
	grep -q "^memcgstat top: using the bpf backend: no end of reads known (expected_reads 0)$" <<<"$out"
	check auto_unbounded_bpf $? "$out"
fi

# The live view, in a tmux window of 132 x 40 (the default columns and the
# longest hostile path side by side).
if ! command -v tmux >/dev/null; then
	skip tmux "tmux is not installed (make deps)"
	finish
fi
# -J: a shell line longer than the window in one piece (the path of $bin
# in a CI checkout made "top -i 3 ..." wrap); -J keeps trailing blanks: cut
pane() { "${T[@]}" capture-pane -p -J -t top 2>/dev/null | sed 's/ *$//'; }
# until the pane shows PATTERN (grep -E), at most SECONDS (10); the pane in $screen
wait_for() {
	local i again

	for ((i = 0; i < ${2:-10} * 10; i++)); do
		screen=$(pane)
		if grep -qE -- "$1" <<<"$screen"; then
			# a frame tmux has taken in whole: the same on a second look
			# (a capture between two reads of one frame's bytes showed the
			# new header over the frame before's rows)
			sleep 0.2
			again=$(pane)
			[ "$again" = "$screen" ] && return 0
		fi
		sleep 0.1
	done
	return 1
}
# a shell without rc files, its prompt "$ "
"${T[@]}" new-session -d -s top -x 132 -y 40 "env -i PATH=$PATH TERM=screen PS1='$ ' bash --norc --noprofile"
wait_for '^\$' || { fail tmux_shell "$screen"; finish; }
title() { "${T[@]}" display -p -t top '#{pane_title}'; }
title0=$(title)
# -i 3: time for a look at the first screen before the second
"${T[@]}" send-keys -t top "stty -g >$tmp/stty.0; $bin top -i 3 $rel; echo rc=\$?; stty -g >$tmp/stty.1" Enter
wait_for "memcgstat top $rel: 22 cgroups"
first=$screen
head -1 <<<"$first" | grep -qE "^[0-9]{2}:[0-9]{2}:[0-9]{2} memcgstat top $rel: 22 cgroups, every 3s, text backend, cgroup v$ver; rates from the next refresh$" &&
	sed -n 2p <<<"$first" | grep -qE '^sort: USAGE \(u\), largest first - u w a f .*m T p j .*n < > sort, r reverse, t totals, b bytes, / filter, q quit$' &&
	[ "$(sed -n 3p <<<"$first" | tr -s ' ' | sed 's/^ //')" = "$cols" ]
check tmux_header $? "$first"
[ "$(order "$first" | tr ' ' '\n' | sort | tr '\n' ' ')" = "$(printf '%s\n' "${paths[@]}" | sort | tr '\n' ' ')" ] &&
	[[ "$(order "$first")" == "$rel $rel/a $rel/b "* ]] && ! grep -q -- '^-- ' <<<"$first"
check tmux_rows $? "$first"
# a name's escape sequence does not set the pane's title, a CR or a tab
# does not move the cursor: each hostile row whole, its path last
hostile_rows "$first" && [ "$(title)" = "$title0" ]
check tmux_hostile_names $? "title '$(title)', was '$title0'" "$first"
want="256.0M 512.0M max $(human "$(stat a $anon)") $(human "$(stat b $anon)")"
got="$(val "$first" MAX "$rel/a") $(val "$first" MAX "$rel/b") $(val "$first" MAX "$rel/d07")"
got+=" $(val "$first" ANON "$rel/a") $(val "$first" ANON "$rel/b")"
[ "$got" = "$want" ]
check tmux_values_equal_files $? "top: $got" "files: $want"
got="$(val "$first" TASKS "$rel/d01") $(val "$first" TASKS "$rel/a") $(val "$first" TASKS "$rel")"
[ "$got" = "3 1 0" ]
check tmux_tasks_column $? "TASKS of d01, a, $rel: $got (want 3 1 0)" "$first"
[ "$(val "$first" FLT/s "$rel/c")" = - ] && [ "$(val "$first" FLT/s "$rel/a")" = - ]
check tmux_first_screen_no_rates $? "$first"
wait_for "memcgstat top $rel: 22 cgroups, every 3s, text backend, cgroup v$ver$" 10
c2=$(val "$screen" FLT/s "$rel/c")
[[ $c2 =~ ^[0-9]+(\.[0-9])?k?$ ]] && [ "$c2" != 0.0 ]
check tmux_rate_after_second_refresh $? "c's FLT/s '$c2'" "$screen"

# a cgroup made during the run: a row at the next refresh, "-" for its
# rates in that one (no refresh before had it); gone when removed
mkdir "$cg/new"
wait_for "memcgstat top $rel: 23 cgroups" 8 && [ "$(val "$screen" FLT/s "$rel/new")" = - ] &&
	[ "$(val "$screen" MAX "$rel/new")" = max ]
check tmux_new_cgroup_appears $? "$screen"
rmdir "$cg/new"
wait_for "memcgstat top $rel: 22 cgroups" 8 && ! grep -q "$rel/new$" <<<"$screen"
check tmux_removed_cgroup_goes $? "$screen"

# each sort key, and the order it gives
"${T[@]}" send-keys -t top m
wait_for '^sort: MAX \(m\), largest first' 5 && [ "$(order "$screen")" = "$maxes$rel/b $rel/a " ] &&
	[ "$(sed -n 3p <<<"$screen" | grep -o '\*[A-Z/s]*')" = '*MAX' ]
check tmux_key_sorts_max $? "$screen"
"${T[@]}" send-keys -t top m
wait_for '^sort: MAX \(m\), smallest first' 5 && [ "$(order "$screen")" = "$rel/a $rel/b $maxes" ]
check tmux_key_again_reverses $? "$screen"
"${T[@]}" send-keys -t top n
wait_for '^sort: CGROUP \(n\), tree order' 5 && [ "$(order "$screen")" = "$tree" ]
check tmux_key_sorts_cgroup $? "$screen"
"${T[@]}" send-keys -t top r
wait_for '^sort: CGROUP \(n\), reverse tree order' 5 &&
	[ "$(order "$screen")" = "$(printf '%s\n' "${paths[@]}" | tac | tr '\n' ' ')" ]
check tmux_key_r_reverses $? "$screen"
"${T[@]}" send-keys -t top T
wait_for '^sort: TASKS \(T\), largest first' 5 && [[ "$(order "$screen")" == "$rel/d01 "* ]] &&
	[ "$(sed -n 3p <<<"$screen" | grep -o '\*[A-Z/s]*')" = '*TASKS' ]
check tmux_key_sorts_tasks $? "$screen"
"${T[@]}" send-keys -t top a
wait_for '^sort: ANON \(a\), largest first' 5 && [[ "$(order "$screen")" == "$rel $rel/a $rel/b "* ]]
check tmux_key_sorts_anon $? "$screen"
"${T[@]}" send-keys -t top '<'
wait_for '^sort: WSET \(w\), largest first' 5
check tmux_key_left_moves $? "$screen"
"${T[@]}" send-keys -t top z
wait_for '^sort: WSET \(w\), largest first - key 122 \(z\) does nothing$' 5
check tmux_unknown_key_said $? "$screen"
if [ $ver = 1 ]; then
	"${T[@]}" send-keys -t top h
	wait_for '^sort: WSET \(w\), largest first - no HIGH column here \(memory_high\)$' 5
	check tmux_absent_column_key $? "$screen"
fi
"${T[@]}" send-keys -t top t
wait_for '^sort: WSET \(w\), largest first - u w .* t rates,' 5 &&
	[ "$(val "$screen" FLT "$rel/a")" = "$(stat a $pgfault)" ]
check tmux_key_t_totals $? "$screen"
"${T[@]}" send-keys -t top t b
wait_for ' t totals, b K/M/G, / filter, q quit' 5 && [ "$(val "$screen" MAX "$rel/a")" = 268435456 ]
check tmux_key_b_bytes $? "$screen"
"${T[@]}" send-keys -t top b u

# A window of 10 lines: 3 of header, 6 rows, "-- 16 more" on the last.
"${T[@]}" resize-window -t top -x 132 -y 10
wait_for '^-- 16 more cgroups \(22 in all\) --$' 5 &&
	[ "$(wc -l <<<"$screen")" = 10 ] && [ "$(order "$screen" | wc -w)" = 6 ] &&
	[[ "$(order "$screen")" == "$rel $rel/a $rel/b "* ]]
check tmux_resize_says_n_more $? "$screen"
# Scrolling the 6 rows over the 22, in tree order (n): a key each way, a
# page, the ends; the last line counts the rows above and below.
rows_of() { printf '%s ' "${paths[@]:$1:6}"; }
scroll() {	# name, key, first row shown (0-based), the last line wanted
	"${T[@]}" send-keys -t top "$2"
	wait_for "^$4\$" 5 && [ "$(order "$screen")" = "$(rows_of "$3")" ]
	check "tmux_scroll_$1" $? "$screen"
}
"${T[@]}" send-keys -t top n
wait_for '^sort: CGROUP \(n\), tree order' 5
scroll pgdn NPage 6 '-- 6 above, 10 more cgroups \(22 in all\) --'
scroll down Down 7 '-- 7 above, 9 more cgroups \(22 in all\) --'
scroll end End 16 '-- 16 above \(22 in all\) --'
scroll down_at_end Down 16 '-- 16 above \(22 in all\) --'
scroll up Up 15 '-- 15 above, 1 more cgroups \(22 in all\) --'
scroll pgup PPage 9 '-- 9 above, 7 more cgroups \(22 in all\) --'
scroll home Home 0 '-- 16 more cgroups \(22 in all\) --'
scroll up_at_home Up 0 '-- 16 more cgroups \(22 in all\) --'
# a filter that leaves fewer rows than the window has room for, scrolled to
# the end: the scroll clamps, every row shown; cleared, the rows from the top
"${T[@]}" send-keys -t top End
wait_for '^-- 16 above \(22 in all\) --$' 5
"${T[@]}" send-keys -t top / && "${T[@]}" send-keys -t top -l /d1 && "${T[@]}" send-keys -t top Enter
wait_for "memcgstat top $rel: 3 cgroups \(filter \"/d1\"\)" 5 &&
	[ "$(order "$screen")" = "$rel/d10 $rel/d11 $rel/d12 " ] && ! grep -q -- '^-- ' <<<"$screen"
check tmux_filter_clamps_scroll $? "$screen"
"${T[@]}" send-keys -t top / Enter
wait_for '^-- 16 more cgroups \(22 in all\) --$' 5 && [ "$(order "$screen")" = "$(rows_of 0)" ]
check tmux_filter_cleared_from_top $? "$screen"
"${T[@]}" send-keys -t top u
# 60 columns: paths cut from the left with "...", columns that do not fit
# counted, no line wider than the window
"${T[@]}" resize-window -t top -x 60 -y 10
wait_for '^-- 16 more cgroups \(22 in all\), [0-9]+ columns? hidden --$' 5 &&
	[ "$(awk 'length > 60' <<<"$screen" | wc -l)" = 0 ] && grep -qE '\.\.\.[^ ]*/a$' <<<"$screen"
check tmux_narrow_says_columns_hidden $? "$screen"
# 60 x 40: every row, and the columns left out still said
"${T[@]}" resize-window -t top -x 60 -y 40
wait_for '^-- [0-9]+ columns? hidden --$' 5 && [ "$(order "$screen" | wc -w)" = 22 ]
check tmux_narrow_all_rows $? "$screen"
"${T[@]}" resize-window -t top -x 132 -y 40
wait_for "^ +[0-9.]+[KMG]? .*$rel/d12$" 5 && ! grep -q -- '^-- ' <<<"$screen"
check tmux_resize_back $? "$screen"
# - and +: the depth below CGROUP one level less or more, said in the
# header; past the deepest row, every row again
"${T[@]}" send-keys -t top -
wait_for "memcgstat top $rel: 17 cgroups \(depth 1\)," 5 && ! grep -q " $rel/n/" <<<"$screen"
check tmux_key_minus_depth $? "$screen"
"${T[@]}" send-keys -t top -
wait_for "memcgstat top $rel: 1 cgroup \(depth 0\)," 5 && [ "$(order "$screen")" = "$rel " ]
check tmux_key_minus_depth_0 $? "$screen"
"${T[@]}" send-keys -t top + +
wait_for "memcgstat top $rel: 22 cgroups, every" 5
check tmux_key_plus_all $? "$screen"
# /: a filter typed on the second line, q and the sort keys its text there;
# Backspace edits, Enter applies (said in the header), Esc cancels (the
# filter as it was), an empty one shows every row again
"${T[@]}" send-keys -t top /
wait_for '^filter: _ - Enter applies \(empty: none\), Esc cancels; \* \? \[ make a glob$' 5
check tmux_slash_opens_prompt $? "$screen"
"${T[@]}" send-keys -t top -l /d1x && "${T[@]}" send-keys -t top BSpace
wait_for '^filter: /d1_ - Enter applies' 5
check tmux_prompt_backspace $? "$screen"
"${T[@]}" send-keys -t top Enter
wait_for "memcgstat top $rel: 3 cgroups \(filter \"/d1\"\), every" 5 &&
	[ "$(order "$screen")" = "$rel/d10 $rel/d11 $rel/d12 " ] && grep -q ' / filter, q quit$' <<<"$screen"
check tmux_filter_substring $? "$screen"
"${T[@]}" send-keys -t top / && "${T[@]}" send-keys -t top -l 'qum'
wait_for '^filter: qum_ - Enter applies' 5
check tmux_prompt_takes_keys $? "$screen"
"${T[@]}" send-keys -t top Escape
wait_for '^sort: USAGE \(u\), largest first - u w .* / filter, q quit$' 5 &&
	grep -q "memcgstat top $rel: 3 cgroups (filter \"/d1\"), every" <<<"$screen" &&
	[ "$(order "$screen")" = "$rel/d10 $rel/d11 $rel/d12 " ]
check tmux_filter_esc_cancels $? "$screen"
"${T[@]}" send-keys -t top / && "${T[@]}" send-keys -t top -l '*/d0[12]' && "${T[@]}" send-keys -t top Enter
wait_for "memcgstat top $rel: 2 cgroups \(glob \"\*/d0\[12\]\"\), every" 5 &&
	[ "$(order "$screen")" = "$rel/d01 $rel/d02 " ]
check tmux_filter_glob $? "$screen"
"${T[@]}" send-keys -t top / Enter
wait_for "memcgstat top $rel: 22 cgroups, every" 5 && [ "$(order "$screen" | wc -w)" = 22 ]
check tmux_filter_cleared $? "$screen"

# q: the shell's screen back, exit 0, the terminal's mode as before
"${T[@]}" send-keys -t top q
wait_for '^rc=0$' 5 && ! grep -q "memcgstat top $rel:" <<<"$screen" &&
	grep -q "top -i 3 $rel; echo rc" <<<"$screen"
check tmux_q_exits_0 $? "$screen"
sleep 0.3
[ -s "$tmp/stty.0" ] && cmp -s "$tmp/stty.0" "$tmp/stty.1"
check tmux_q_restores_terminal $? "before: $(cat "$tmp/stty.0" 2>&1)" "after: $(cat "$tmp/stty.1" 2>&1)"

# ^C is a key that quits (exit 0); SIGTERM and SIGINT from outside end it
# with the signal's status; the terminal restored each time. Under sh -c:
# an interactive bash would drop the rest of the line after a child that
# SIGINT killed.
top_pid() {
	local sh

	sh=$(ps -o pid= --ppid "$("${T[@]}" display -p -t top '#{pane_pid}')" | tr -d ' ')
	ps -o pid= --ppid "$sh" | tr -d ' '
}
for how in C-c TERM INT; do
	"${T[@]}" send-keys -t top clear Enter
	"${T[@]}" send-keys -t top "sh -c '$bin top -i 2 $rel; echo rc=\$?'; stty -g >$tmp/stty.$how" Enter
	if ! wait_for "memcgstat top $rel: 22 cgroups"; then
		fail "tmux_quit_$how" "did not start" "$screen"
		continue
	fi
	case $how in
	C-c) want=0; "${T[@]}" send-keys -t top C-c ;;
	TERM) want=143; kill -TERM "$(top_pid)" ;;
	INT) want=130; kill -INT "$(top_pid)" ;;
	esac
	# not anchored at the line's start: on a busy host the shell may not
	# have echoed the command's newline yet when top saves the cursor, and
	# "rc=" then follows the command on its line
	wait_for "rc=$want$" 5 && ! grep -q "memcgstat top $rel:" <<<"$screen"
	check "tmux_quit_$how" $? "$screen"
	sleep 0.3
	cmp -s "$tmp/stty.0" "$tmp/stty.$how"
	check "tmux_quit_${how}_restores_terminal" $? "before: $(cat "$tmp/stty.0")" "after: $(cat "$tmp/stty.$how" 2>&1)"
done

# -s live: its columns in its order, the keys of top's own only; < and >
# reach a column without a key; a key whose column -s left out says so
"${T[@]}" send-keys -t top clear Enter
"${T[@]}" send-keys -t top "$bin top -i 3 -s nr_descendants,anon $rel; echo rc=\$?" Enter
wait_for '^sort: NR_DESCENDANTS, largest first - a n < > sort, r reverse' &&
	[ "$(sed -n 3p <<<"$screen" | tr -s ' ' | sed 's/^ //')" = "*NR_DESCENDANTS ANON CGROUP" ] &&
	[ "$(val "$screen" NR_DESCENDANTS "$rel")" = 21 ]
check tmux_stats_columns $? "$screen"
"${T[@]}" send-keys -t top '>'
wait_for '^sort: ANON \(a\), largest first' 5
check tmux_stats_right_moves $? "$screen"
"${T[@]}" send-keys -t top '<'
wait_for '^sort: NR_DESCENDANTS, largest first - a n' 5 && [ "$(order "$screen" | cut -d' ' -f1-2)" = "$rel $rel/n" ]
check tmux_stats_left_to_keyless $? "$screen"
"${T[@]}" send-keys -t top u
wait_for '^sort: NR_DESCENDANTS, largest first - no USAGE column here \(usage\)$' 5
check tmux_stats_key_left_out $? "$screen"
"${T[@]}" send-keys -t top q
wait_for '^rc=0$' 5
check tmux_stats_q $? "$screen"

# CGROUP removed while the view runs (a service restarted): a frame of no
# rows that says why on its second line; the tree back, and the keys, when
# it is made again; q then exits 1 (a refresh could not read it).
mkdir "$cg/gone"
"${T[@]}" send-keys -t top clear Enter
"${T[@]}" send-keys -t top "$bin top -i 0.5 $rel/gone; echo rc=\$?" Enter
wait_for "memcgstat top $rel/gone: 1 cgroup" && rmdir "$cg/gone" &&
	wait_for "memcgstat top $rel/gone: 0 cgroups" 5 &&
	grep -qE "^sort: USAGE \(u\), largest first - cannot read: .*No such file or directory" <<<"$screen"
check tmux_cgroup_gone $? "$screen"
mkdir "$cg/gone"
wait_for "memcgstat top $rel/gone: 1 cgroup" 5 && grep -q ' / filter, q quit$' <<<"$screen"
check tmux_cgroup_back $? "$screen"
"${T[@]}" send-keys -t top q
wait_for '^rc=1$' 5
check tmux_q_after_gone_exits_1 $? "$screen"
rmdir "$cg/gone"
finish
