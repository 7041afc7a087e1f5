#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run in the test VM (patched kernel): on a quiescent tree of cgroups with
# real activity, the bpf and text backends give identical values for every
# stat the text files show, hierarchical, local (v1) and per node (v2); a
# large snapshot holds each cgroup once; a filtered snapshot holds exactly
# the chosen cgroups; the CLI's JSON equals what the library returns. The
# tree holds the deep fixture: a chain of 40 cgroups of 250-byte names below
# deep (paths past 10,000 bytes), shmem charged to the deepest.
#
#   vm_backends.sh [--upstream] BUILD_DIR DATAFILE [NR_CGROUPS]
#
# --upstream: the kernel has Linux 7.0's kfunc set only (kernel/build.sh
# --upstream): the hierarchical values still equal; --local is refused by
# every backend and --numa by bpf, each saying what this kernel has and
# naming the missing kfunc, and --numa's text backend reads. With MEMCGSTAT_BPF_SHA set, the
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
# the fixture of asan_names() below
rm_names() { [ -d "$t/names" ] && rmdir "$t"/names/d*/x* "$t"/names/d* "$t"/names/x* "$t/names" 2>/dev/null; }
cleanup() {
	kill -9 "${pids[@]}" 2>/dev/null
	wait 2>/dev/null
	rm -f /tmp/memcgstat-shm-*
	[ -d "$t/big" ] && rmdir "$t"/big/c[0-9]* "$t/big" 2>/dev/null
	rmdir "$t/z/w" "$t/z" "$t/y" 2>/dev/null
	[ -d "$t/cad" ] && rmdir "$t"/cad/c[0-9]* "$t/cad" 2>/dev/null
	[ -d "$t/n" ] && rmdir "$t"/n/* "$t/n" 2>/dev/null
	rm_cgroups "$t/deep"
	rm_names
	rmdir "$t/a/c" "$t/a" "$t/b" "$t" 2>/dev/null
}
trap cleanup EXIT

mkdir -p "$t/a/c" "$t/b" "$t/n" "$t/deep" || exit 1
if [ $ver = 2 ]; then
	echo +memory >"$t/cgroup.subtree_control"
	echo +memory >"$t/a/cgroup.subtree_control"
	echo +memory >"$t/n/cgroup.subtree_control"
fi
# n/: the hostile names of every fixture (cli.sh, top.sh): a title-setting
# escape, a CR, a tab, the bytes ff fe and the eight characters \xff\xfe.
# Both backends must name them alike; 51 cgroups in all with the deep fixture. (On v2 after n's
# +memory: without it its children have no memory files, and no rows.)
for n in $'esc\e]0;PWNED\aX' $'cr\rZZZZ' $'tab\tT' $'\xff\xfe' '\xff\xfe'; do
	mkdir "$t/n/$n" || exit 1
done
mk_deep "$t/deep" || { fail setup "cannot make the chain below $t/deep"; exit 1; }
deep=$(deep_path /memcgstat-backends/deep)
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
deep_do "$t/deep" $DEEP_LEVELS sh -c 'echo $$ >cgroup.procs; head -c 4194304 /dev/zero >/tmp/memcgstat-shm-deep'

# The hostile names in CSV (the cgroup column first): each once, as the man
# page's escape prints it, and nothing raw.
hostile_once() {
	local p

	for p in 'esc\x1b]0;PWNED\x07X' 'cr\x0dZZZZ' 'tab\x09T' '\xff\xfe' '\\xff\\xfe'; do
		[ "$(grep -cxF -- "/memcgstat-backends/n/$p" <<<"$(cut -d, -f1 <<<"$1")")" = 1 ] || return 1
	done
	! LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' <<<"$1"
}
# CSV: the header, then the rows sorted
sorted() { LC_ALL=C awk 'NR == 1 { print; next } { print | "sort" }'; }
# Both backends, all default stats, whole tree; retry while the tree moves.
compare() {	# name, extra args
	local name=$1 tries a b
	shift
	for tries in 1 2 3 4 5; do
		# in the same order: the text backend walks in readdir's
		# order (kernfs: by name hash), bpf in the kernel's (creation)
		a=$("$bin" --backend text -r -o csv "$@" "$t" 2>&1 | cut -d, -f2- | sorted)
		b=$("$bin" --backend bpf -r -o csv "$@" "$t" 2>&1 | cut -d, -f2- | sorted)
		[ "$a" = "$b" ] && break
		sleep 0.2
	done
	if [ "$a" = "$b" ] && [ "$(wc -l <<<"$a")" = 52 ] && hostile_once "$a"; then
		ok "$name"
		echo "  $(head -1 <<<"$a" | tr ',' '\n' | wc -l) columns x 51 cgroups equal"
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
[ "$a" = "$b" ] && [ "$(wc -l <<<"$a")" = 54 ] && grep -q " $deep$" <<<"$a" &&
	head -1 <<<"$a" | grep -q "^memcgstat top /memcgstat-backends: 51 cgroups, every 2s, BACKEND, cgroup v$ver$" &&
	hostile_once "$(awk 'NR > 3 { print $NF }' <<<"$b")"
check top_text_equals_bpf $? "text:" "$a" "bpf:" "$b"
out2=$("$bin" top -b -n 2 -i 0.3 --backend bpf "$t" 2>&1 | awk 'BEGIN { RS = "" } NR == 2')
rates=$(awk '/CGROUP$/ { for (i = 1; i <= NF; i++) if ($i ~ /FLT\/s$/) c = i; next }
	     c && $c ~ /^[0-9.]+k?$/ { n++ } END { print n + 0 }' <<<"$out2")
[ "$rates" = 51 ] && head -1 <<<"$out2" | grep -q 'bpf backend'
check top_bpf_rates $? "$out2"
# One CGROUP that cannot be read costs its own row (bpf as the text
# backend): the others equal the text backend's, one line on stderr, exit 1;
# JSON has an "errors" entry for it.
no=${t#"$mnt"}/no-such-cgroup
for tries in 1 2 3 4 5; do
	a=$("$bin" --backend text -o csv -s anon,file "$t/a/c" "$no" "$t/b" 2>/dev/null | cut -d, -f2-)
	b=$("$bin" --backend bpf -o csv -s anon,file "$t/a/c" "$no" "$t/b" 2>"/tmp/partial.err" | cut -d, -f2-)
	[ "$a" = "$b" ] && break
	sleep 0.2
done
rc=$("$bin" --backend bpf -o csv -s anon "$t/a/c" "$no" "$t/b" >/dev/null 2>&1; echo $?)
err=$(cat /tmp/partial.err)
j=$("$bin" --backend bpf -o json -s anon "$t/a/c" "$no" "$t/b" 2>/dev/null)
[ "$a" = "$b" ] && [ "$(wc -l <<<"$b")" = 3 ] && [ $rc = 1 ] && [ "$(wc -l <<<"$err")" = 1 ] &&
	grep -qF "$no" <<<"$err" && grep -q "No such file or directory" <<<"$err" &&
	python3 -c 'import json, sys
d = json.loads(sys.argv[1])
assert len(d["cgroups"]) == 2 and [e["cgroup"] for e in d["errors"]] == [sys.argv[2]], d' "$j" "$no"
check partial_args_bpf $? "exit $rc" "text:" "$a" "bpf:" "$b" "stderr: $err" "json: $j"

# A cgroup removed while -i runs drops out of the samples and is back when
# made again at its path, on bpf (cli.sh has the text backend's, on the
# exact samples): z removed after the 2nd of 8 samples a second apart and
# made again 2 samples later. Under TCG a removal takes a while to show, so
# which samples lack z is what the run shows, in one run of them: z in the
# first 2 at least, then absent (an "errors" entry each), then back; no
# rate below 0, null in the first sample back; stderr once; exit 1.
mkz() {
	mkdir -p "$t/z/w"
	[ $ver = 2 ] && echo +memory >"$t/z/cgroup.subtree_control"
	return 0
}
# the samples so far (lines of FILE matching PATTERN)
nr_of() { grep -c -- "$2" "$1"; }
gone_and_back() {	# NAME ARGS...
	local name=$1 pid rc err tree= n
	shift
	[[ " $* " = *" -r "* ]] && tree=1
	mkdir -p "$t/y" && mkz
	"$bin" --backend bpf "$@" -o json -i 1 -c 8 -s anon,pgfault "$t/y" "$t/z" >/tmp/g.out 2>/tmp/g.err &
	pid=$!
	wait_lines /tmp/g.out . 2 60 && rmdir "$t/z/w" "$t/z"
	n=$(nr_of /tmp/g.out .)
	wait_lines /tmp/g.out . $((n + 2)) 60 && mkz
	wait $pid
	rc=$? err=$(cat /tmp/g.err)
	python3 -c 'import json, sys
rel, tree = sys.argv[2], sys.argv[3] == "1"
s = [json.loads(l) for l in open(sys.argv[1])]
assert len(s) == 8, "%d samples" % len(s)
y, z = [rel + "/y"], [rel + "/z"] + ([rel + "/z/w"] if tree else [])
seen = ""
for k, x in enumerate(s):
    assert x["backend"] == "bpf", x
    paths = [c["path"] for c in x["cgroups"]]
    if paths == y:
        e = x["errors"]
        assert len(e) == 1 and e[0]["cgroup"] == sys.argv[4], (k + 1, e)
        seen += "-"
    else:
        assert paths == y + z and "errors" not in x, (k + 1, x)
        seen += "z"
    for c in x["cgroups"]:
        r = c["rates"]["pgfault"]
        assert r is None or r >= 0, (k + 1, c)
        if c["path"] in z and seen[-2:] == "-z":
            assert r is None, (k + 1, c)
print("  z in the samples: " + seen)
assert seen.startswith("zz") and seen.strip("z").strip("-") == "" and "-" in seen and seen.endswith("z"), seen
' /tmp/g.out "${t#"$mnt"}" "$tree" "$t/z" && [ $rc = 1 ] && [ "$(wc -l <<<"$err")" = 1 ]
	check "$name" $? "exit $rc" "$(cat /tmp/g.out)" "stderr: $err"
	rmdir "$t/z/w" "$t/z" "$t/y" 2>/dev/null
}
gone_and_back interval_gone_and_back_bpf
gone_and_back interval_tree_gone_and_back_bpf -r
# ... and in top -b: the frames while it is gone without rows, saying why;
# the tree back after
mkz
head='^[0-9:]* memcgstat top '
"$bin" top -b -n 8 -i 1 --backend bpf "$t/z" >/tmp/t.out 2>/tmp/t.err &
pid=$!
wait_lines /tmp/t.out "$head" 2 60 && rmdir "$t/z/w" "$t/z"
n=$(nr_of /tmp/t.out "$head")
wait_lines /tmp/t.out "$head" $((n + 2)) 60 && mkz
wait $pid
rc=$? err=$(cat /tmp/t.err)
frames=$(awk 'BEGIN { RS = "" } { split($0, l, "\n")
	printf "%s", (l[1] ~ / 0 cgroups,/ && l[2] ~ /cannot read:/ ? "-" : l[1] ~ / 2 cgroups, .*bpf backend/ && l[2] !~ /cannot/ ? "z" : "?") }' /tmp/t.out)
[[ $frames =~ ^zz+-+z+$ ]] && [ ${#frames} = 8 ] && [ $rc = 1 ] && [ "$(wc -l <<<"$err")" = 1 ]
check top_gone_and_back_bpf $? "exit $rc, frames: $frames" "$(cat /tmp/t.out)" "stderr: $err"
echo "  z in the frames: $frames"
rmdir "$t/z/w" "$t/z" 2>/dev/null

# what_fails NAME EXIT MESSAGE ARGS...: stderr is exactly "memcgstat: MESSAGE"
what_fails() {
	local name=$1 want=$2 want_msg="memcgstat: $3" msg rc
	shift 3
	msg=$("$bin" -s anon "$@" "$t" 2>&1 >/dev/null)
	rc=$?
	[ $rc = "$want" ] && [ "$msg" = "$want_msg" ]
	check "$name" $? "exit $rc (want $want): $msg" "want: $want_msg"
}
if [ $upstream = 1 ]; then
	# Linux 7.0's kfuncs only: what this kernel can do, said the same way by
	# every backend, and no advice that leads back (bpf <-> text)
	lw="local values need memcgstat's kernel additions (kfunc bpf_memcgstat_page_state_local, kernel/patches): this kernel has Linux 7.0's memcg kfuncs only; on cgroup v2 the text backend has no local values either (memory.stat has hierarchical values only)"
	nw="per-node values need memcgstat's kernel additions (kfunc bpf_memcgstat_node_page_state, kernel/patches): this kernel has Linux 7.0's memcg kfuncs only"
	what_fails local_bpf_upstream 1 "$lw" --backend bpf --local
	what_fails local_text_upstream 2 "$lw" --backend text --local
	what_fails local_auto_upstream 1 "$lw" --local
	# per-node values on v2: the text backend has them (memory.numa_stat)
	what_fails numa_bpf_upstream 1 "$nw; use --backend text" --backend bpf --numa
	msg=$("$bin" -v --numa -o csv -s anon "$t" 2>&1)
	rc=$?
	[ $rc = 0 ] && grep -qx "memcgstat: using the text backend: $nw" <<<"$msg" &&
		grep -q '^memcgstat: backend text,' <<<"$msg" &&
		grep -qE "^[0-9.]+,/memcgstat-backends,[0-9]+,[0-9]+,[0-9]+" <<<"$msg" &&
		[ "$("$bin" --backend text --numa -o csv -s anon "$t" 2>&1 | tail -1 | cut -d, -f2)" = /memcgstat-backends ]
	check numa_text_upstream $? "exit $rc: $msg"
elif [ $ver = 1 ]; then
	compare text_equals_bpf_local --local
	# the text backend's limit on v1, and where bpf is the way
	what_fails numa_text_v1_says_bpf 2 "per-node values need the bpf backend on cgroup v1 (--backend bpf): v1 memory.numa_stat has a few page counts only" --backend text --numa
else
	compare text_equals_bpf_numa --numa
	what_fails local_text_v2_says_bpf 2 "local values need the bpf backend on cgroup v2 (--backend bpf): memory.stat has hierarchical values only" --backend text --local
fi

# --backend auto takes text for a run of few cgroup reads (loading the bpf
# programs would cost more than the reads): a one-shot read of a cgroup, a
# snapshot of a small tree (51 cgroups: $t, a, a/c, b, n and its 5, the
# deep fixture), top's frame of it;
# bpf for 200 reads or more (big_tree_auto_bpf, below).
one=$("$bin" -v -s anon "$t/a/c" 2>&1 >/dev/null)
tree=$("$bin" -v -r -s anon "$t" 2>&1 >/dev/null)
frame=$("$bin" top -b -n 1 -v "$t" 2>&1 >/dev/null)
grep -q "^memcgstat: using the text backend: 1 cgroup read costs less than loading the bpf backend (--backend bpf to use it, memcgstat --pin to pin it)$" <<<"$one" &&
	grep -q "^memcgstat: backend text, cgroup v$ver at [^,]*, 1 column$" <<<"$one" &&
	grep -q "^memcgstat: using the text backend: 51 cgroup reads cost less than loading the bpf backend (--backend bpf to use it, memcgstat --pin to pin it)$" <<<"$tree" &&
	grep -q "^memcgstat: backend text," <<<"$tree" &&
	grep -q "^memcgstat top: using the text backend: 51 cgroup reads cost less" <<<"$frame" &&
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
lib=$(MEMCGSTAT_BACKEND=bpf "$out/selftests/test_lib" "$t" -p | grep -av '^#' | cut -d, -f1-4)
# (the library's paths are the names' bytes; the JSON's, decoded, their
# escape, undone here by the man page's rule)
json=$("$bin" --backend bpf -r -o json -s anon,file "$t" 2>/dev/null | python3 -c '
import json, re, sys
for c in json.load(sys.stdin)["cgroups"]:
    p = re.sub(rb"\\(\\|x[0-9a-f]{2})", lambda m: b"\\" if m[1] == b"\\" else bytes.fromhex(m[1][1:].decode()),
               c["path"].encode())
    sys.stdout.buffer.write(b"%s,%d,%d,%d\n" % (p, c["id"], c["stats"]["anon"], c["stats"]["file"]))')
# test_lib prints every default column; anon and file are the first two
if [ -n "$json" ] && [ "$(sort <<<"$lib")" = "$(sort <<<"$json")" ]; then
	ok json_equals_library
else
	fail json_equals_library "library: $lib" "json: $json"
fi

# Library API on the tree: each cgroup once, exact filtered snapshot; on a
# chain of its own deeper than PATH_MAX (test_lib --deep); auto's choice;
# a cgroup removed while it is read (--gone), one renamed, v1 (--rename),
# one made again under a removed one's name, read by the old id (--reuse;
# on the text backend too, as lib_text_*: the host's suite runs it on v1,
# where a scan's miss is never remembered as a removed cgroup)
# A run that exits non-zero with no FAIL line of its own (a crash), runs
# no test at all, or whose last line ("# lib: N results, M failed") is
# missing or counts other lines than were read, fails as test_lib_ARG.
test_lib() {	# ARGS: test_lib's lines as this suite's; $TL_BACKEND, default bpf
	local rc n=0 bad=0 what=${1#--} said be=${TL_BACKEND:-bpf} pre=lib_
	[ "$what" = "$1" ] && what=tree
	[ "$be" = bpf ] || pre=lib_${be}_
	MEMCGSTAT_BACKEND=$be timeout 600 "$out/selftests/test_lib" "$@" >/tmp/test_lib.out 2>&1
	rc=$?
	while read -r line; do
		case $line in
		"#"*:OK) name=${line#*lib/}; ok "$pre${name%:OK}"; n=$((n + 1)) ;;
		"#"*:FAIL) name=${line#*lib/}; fail "$pre${name%:FAIL}"; n=$((n + 1)); bad=1 ;;
		"#"*:SKIP*)
			name=${line#*lib/} why=${line#*:SKIP (}
			skip "$pre${name%%:SKIP*}" "${why%)}"
			n=$((n + 1)) ;;
		*) echo "$line" ;;
		esac
	done </tmp/test_lib.out
	said=$(sed -n 's/^# lib: \([0-9]*\) results, [0-9]* failed$/\1/p' /tmp/test_lib.out)
	if [ "$n" = 0 ] || { [ "$rc" != 0 ] && [ "$bad" = 0 ]; } || [ "$said" != "$n" ]; then
		fail "test_${pre}$what" "exit $rc after $n tests (it said ${said:-none}):" \
		     "$(tail -3 /tmp/test_lib.out)"
	fi
}
test_lib "$t"
test_lib --deep "$t"
test_lib --auto "$t"
test_lib --gone "$t"
test_lib --rename "$t"
test_lib --reuse "$t"
TL_BACKEND=text test_lib --reuse "$t"

# The deepest cgroup of the fixture read by its path on bpf, each query
# path: anon and shmem equal to its memory.stat, read there (cd level by
# level); the whole chain in the snapshot, in walk order
deep_stat() { deep_do "$t/deep" $DEEP_LEVELS awk -v k="$1" '$1 == k { print $2 }' memory.stat; }
if [ $ver = 2 ]; then
	want="$(deep_stat anon),$(deep_stat shmem)"
	queries="syscall iter"
else
	want="$(deep_stat total_rss),$(deep_stat total_shmem)"
	queries=iter
fi
bad=
for q in $queries; do
	got=$("$bin" --backend bpf --query $q -o csv -s anon,shmem "$deep" 2>&1)
	[ "$(tail -1 <<<"$got" | cut -d, -f2,4-)" = "$deep,$want" ] || bad="$bad $q: $(head -c 300 <<<"$got")"
done
chain=$(for i in $(seq 0 $DEEP_LEVELS); do deep_path /memcgstat-backends/deep $i; done)
got=$("$bin" --backend bpf -r -o csv -s anon,shmem "$t/deep" 2>&1)
[ "$(tail -n +2 <<<"$got" | cut -d, -f2)" = "$chain" ] && [ "$(tail -1 <<<"$got" | cut -d, -f4-)" = "$want" ] ||
	bad="$bad snapshot: $(head -c 300 <<<"$got")"
[ -z "$bad" ] && [ "${want#*,}" -ge 4194304 ]
check deep_bpf_exact $? "memory.stat anon,shmem $want;$bad"

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
# (40 samples of the 51 cgroups, 2040 reads: enough for auto to want bpf)
msg=$("${np[@]}" "$bin" -v -r -i 0.001 -c 40 -o csv -s anon "$t" 2>&1)
rc=$?
if [ $rc = 0 ] && grep -q "using the text backend: not permitted to load BPF" <<<"$msg" &&
   grep -qE "^[0-9.]+,/memcgstat-backends/a/c,[0-9]+,[0-9.]*,[0-9]+$" <<<"$msg"; then
	ok unprivileged_auto_falls_back
else
	fail unprivileged_auto_falls_back "exit $rc: $msg"
fi
# ... and a read few enough for text by its cost: the reason bpf cannot run
# here, and no advice to take it (--backend bpf) or pin it
msg=$("${np[@]}" "$bin" -v -s anon "$t/a/c" 2>&1 >/dev/null)
grep -qx "memcgstat: using the text backend: not permitted to load BPF: needs CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN" <<<"$msg" &&
	! grep -q -- "--backend bpf\|--pin\|pinned" <<<"$msg"
check unprivileged_small_no_advice $? "$msg"

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
why="using the bpf backend: memcgstat_pin()'s programs cost less to open than the text backend"
grep -q "^memcgstat: backend bpf," <<<"$tree" && grep -qx "memcgstat: programs pinned at $pdir" <<<"$tree" &&
	grep -qxF "memcgstat: $why" <<<"$tree" && ! grep -q "reads\? cost" <<<"$tree" &&
	grep -q "^memcgstat top: backend bpf," <<<"$frame" &&
	grep -qxF "memcgstat top: $why" <<<"$frame" &&
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

# A first snapshot by the ASan/UBSan build of the CLI on bpf, of names of
# every length a names-map record holds (1 to 110 bytes) and longer ones
# (found by a scan), at two depths: lib/path_cache.c reads the names and
# copies the paths a word at a time, past the ends of both. Its paths and
# ids equal the text backend's.
asan_names() {
	local abin=$out/asan/tools/memcgstat d=$t/names/ddddddd l a b
	[ -x "$abin" ] || { skip asan_first_snapshot_names "no $abin (make user-asan)"; return; }
	mkdir -p "$d" || { fail asan_first_snapshot_names "mkdir $d"; return; }
	[ $ver = 2 ] && echo +memory >"$t/names/cgroup.subtree_control" &&
		echo +memory >"$d/cgroup.subtree_control"
	for l in $(seq 1 120); do
		mkdir "$t/names/$(printf "%${l}s" | tr ' ' x)" "$d/$(printf "%${l}s" | tr ' ' x)" ||
			{ fail asan_first_snapshot_names "mkdir of a $l-byte name"; return; }
	done
	a=$("$bin" --backend text -r -s anon -o csv "$t/names" 2>&1 | cut -d, -f2,3 | sorted)
	b=$("$abin" --backend bpf -r -s anon -o csv "$t/names" 2>&1 | cut -d, -f2,3 | sorted)
	if [ "$a" = "$b" ] && [ "$(wc -l <<<"$b")" = 243 ]; then
		ok asan_first_snapshot_names
		echo "  242 cgroups, names of 1 to 120 bytes: paths and ids equal"
	else
		fail asan_first_snapshot_names "$(diff <(printf '%s\n' "$a") <(printf '%s\n' "$b") | head -10)"
	fi
	rm_names
}
asan_names

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
# --backend auto wants bpf for 200 reads or more: two samples of the big
# tree (NR_CGROUPS is 1000 in the --upstream boot), two frames in top
msg=$("$bin" -v -r -i 0.01 -c 2 -o csv -s anon "$t/big" 2>&1 >/dev/null)
frame=$("$bin" top -b -n 2 -i 0.01 -v "$t/big" 2>&1 >/dev/null)
grep -qE "^memcgstat: using the bpf backend: [0-9]+( or more)? cgroup reads pay for loading the bpf backend$" <<<"$msg" &&
	grep -q "^memcgstat: backend bpf," <<<"$msg" &&
	grep -qE "^memcgstat top: using the bpf backend: [0-9]+( or more)? cgroup reads pay for loading the bpf backend$" <<<"$frame" &&
	grep -q "^memcgstat top: backend bpf," <<<"$frame"
check big_tree_auto_bpf $? "snapshot: $msg" "top: $frame"
# ... and in memcgstat top's frame: every row, none cut in batch mode
frame=$("$bin" top -b -n 1 --backend bpf --sort cgroup "$t/big" 2>&1)
head -1 <<<"$frame" | grep -q "memcgstat top /memcgstat-backends/big: $((big + 1)) cgroups" &&
	[ "$(grep -c " /memcgstat-backends/big/c[0-9]*$" <<<"$frame")" = "$big" ]
check top_big_tree $? "$(head -5 <<<"$frame")"

# The schedule of -i on bpf, on a tree of 1,000 cgroups (cli.sh has the
# text backend's; the big tree's reads would make the intervals long): a
# read slower than the interval skips ticks and -v says so; then 11 samples
# at a few times the read time, each within 40 % of an interval of its
# tick, the last 10 ticks after the first plus those skipped.
mkdir "$t/cad" && [ $ver = 2 ] && echo +memory >"$t/cad/cgroup.subtree_control"
eval "mkdir $t/cad/c{1..1000}"
cadence _bpf csv --backend bpf -s anon "$t/cad"
rmdir "$t"/cad/c[0-9]* "$t/cad"

finish
