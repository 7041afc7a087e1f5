#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# memcgstat-exporter on the host, against this machine's memory hierarchy:
# usage errors; a real Prometheus server scraping it stores exactly the
# memory.stat values of a quiescent test cgroup; promtool and a strict
# OpenMetrics parser accept both formats; 50 concurrent scrapers get only
# complete 200s with bounded RSS; bad requests (404, 405, oversized headers,
# malformed Accept); cgroups removed during scrapes; a failed read is a 500
# and the server lives on; the textfile is replaced atomically and
# node_exporter reads it; SIGTERM and SIGINT exit 0.
# Prints "#N exporter/NAME:OK|FAIL|SKIP (why)".
#
#   exporter.sh EXPORTER MEMHOG [asan]
#
# With "asan" (an ASan/UBSan build) the RSS bound is not checked: ASan's
# quarantine holds freed memory on purpose.
set -uo pipefail

bin=${1:?usage: exporter.sh EXPORTER MEMHOG [asan]}
memhog=${2:?usage: exporter.sh EXPORTER MEMHOG [asan]}
asan=${3:-}
py=/usr/bin/python3	# Debian's, with python3-prometheus-client
SUITE=exporter
. "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d /tmp/memcgstat-exporter.XXXXXX)
cg= pids=()
# No SIGCONT after the SIGTERM: an ASan exporter that exits runs
# LeakSanitizer, which ptrace-attaches to its threads and waits for the
# SIGSTOP that the attach queues; a SIGCONT discards that pending SIGSTOP,
# and LeakSanitizer then waits forever (seen: make test hung here, the
# exporter spinning in sched_yield, its tracer in wait4).
cleanup() {
	stop_pids
	rm_cgroups "$cg"
	rm -rf "$tmp" /dev/shm/memcgstat-exporter-$$
}
trap cleanup EXIT

expect help 0 '^Usage: memcgstat-exporter' -- --help
expect version 0 '^memcgstat-exporter [0-9]+\.[0-9]+\.[0-9]+$' -- --version
expect unknown_option 2 'Usage' -- --bogus
expect listen_no_port 2 "--listen: '127.0.0.1' is not ADDR:PORT" -- --listen 127.0.0.1
expect listen_bad_port 2 "--listen port: '70000' is not a whole number in \[0, 65535\]" -- --listen 127.0.0.1:70000
expect listen_bad_addr 2 "--listen: '999.1.1.1'" -- --listen 999.1.1.1:9743
expect bad_min_interval 2 "--min-interval: '-1'" -- --min-interval -1
expect bad_max_depth 2 "--max-depth: 'x'" -- --max-depth x
expect once_needs_textfile 2 "apply to --textfile" -- --once
expect once_no_listen 2 "no --listen" -- --once --textfile "$tmp/x.prom" --listen 127.0.0.1:0
expect cgroups_same_twice 2 "CGROUP / is inside /: its cgroups would be exported twice" -- / /
expect bad_backend 2 "unknown backend 'gpu'" -- --backend gpu
expect unknown_stat 2 "unknown stat 'anno' \(did you mean anon\?\)" -- -s anno --textfile "$tmp/x.prom" --once
expect empty_stats 2 "empty list" -- -s ,

# --textfile replaces only a regular file: a device (/dev/full's numbers,
# made here: a failing exporter must not wreck the real one), FIFO, directory or
# (without --textfile-follow-symlinks) symbolic link there is refused with
# exit 1 before anything is read, and left as it was with nothing beside it
tfr=$tmp/refuse
mkdir "$tfr" "$tfr/dir"
mknod "$tfr/chr" c 1 7 2>/dev/null
mkfifo "$tfr/fifo"
echo outside >"$tmp/outside"
ln -s "$tmp/outside" "$tfr/link"
before=$(cd "$tfr" && ls -l --time-style=+ | sha256sum)
bad=
for t in "$tfr/chr" "$tfr/fifo" "$tfr/dir" "$tfr/link" "$tfr/"; do
	[ "$t" = "$tfr/chr" ] && [ ! -c "$t" ] && continue	# no mknod here
	kind=$(stat -c %F "$t")
	out=$(timeout 10 "$bin" -s anon --textfile "$t" --once 2>&1)
	rc=$?
	[ $rc = 1 ] && grep -qE -- "--textfile $t: .*(not replaced|not a file name)" <<<"$out" &&
		[ "$(stat -c %F "$t")" = "$kind" ] || bad+="$t: exit $rc, now $(stat -c %F "$t"): $out; "
done
[ "$(cat "$tmp/outside")" = outside ] || bad+="the link's target was written; "
[ "$(cd "$tfr" && ls -l --time-style=+ | sha256sum)" = "$before" ] || bad+="files now: $(ls -A "$tfr"); "
check textfile_only_regular "$([ -z "$bad" ]; echo $?)" "$bad"
out=$(timeout 10 "$bin" -s anon --textfile "$tfr/link" --textfile-follow-symlinks --once 2>&1)
rc=$?
want="dir fifo link "
[ -c "$tfr/chr" ] && want="chr $want"
[ $rc = 0 ] && [ -L "$tfr/link" ] && grep -q '^memcgstat_anon_bytes{cgroup="/"} [0-9]' "$tmp/outside" &&
	[ "$(ls -A "$tfr" | sort | tr '\n' ' ')" = "$want" ]
check textfile_follow_symlinks $? "exit $rc: $out; link $(stat -c %F "$tfr/link"); target: $(head -c 200 "$tmp/outside")"
# a link whose target is not there yet (into /run, after a boot): the
# rename makes it, relative to the link's directory or absolute
mkdir "$tmp/run"
ln -s ../run/rel.prom "$tfr/dangling_rel"
ln -s "$tmp/run/abs.prom" "$tfr/dangling_abs"
bad=
for l in rel abs; do
	out=$(timeout 10 "$bin" -s anon --textfile "$tfr/dangling_$l" --textfile-follow-symlinks --once 2>&1)
	rc=$?
	[ $rc = 0 ] && [ -L "$tfr/dangling_$l" ] && grep -q '^memcgstat_anon_bytes{cgroup="/"} [0-9]' "$tmp/run/$l.prom" ||
		bad+="$l: exit $rc: $out; $(ls -A "$tmp/run"); "
done
[ "$(ls -A "$tmp/run" | tr '\n' ' ')" = "abs.prom rel.prom " ] || bad+="$tmp/run: $(ls -A "$tmp/run")"
rm -f "$tfr/dangling_rel" "$tfr/dangling_abs"
check textfile_follow_dangling $([ -z "$bad" ]; echo $?) "$bad"
expect textfile_no_directory 1 "--textfile $tmp/none/x.prom: its directory: No such file or directory" -- \
	-s anon --textfile "$tmp/none/x.prom" --once
expect follow_needs_textfile 2 "apply to --textfile" -- --textfile-follow-symlinks

# --- a test tree on this host's memory hierarchy
if [ -d /sys/fs/cgroup/memory ] && [ -f /sys/fs/cgroup/memory/memory.stat ]; then
	ver=1 mnt=/sys/fs/cgroup/memory
else
	ver=2 mnt=/sys/fs/cgroup
fi
if [ ! -w "$mnt" ] || ! mkdir "$mnt/memcgstat-exp-$$" 2>/dev/null; then
	echo "exporter: no writable memory cgroup hierarchy at $mnt"
	for t in scrape_text values_equal_memory_stat openmetrics label_escaping cgroup_filters \
		 accept_negotiation gzip_encoding gzip_size_10000 deep_chain_scrape slow_clients exporter_local \
		 exporter_numa_refused_v1 ipv6_single_thread min_interval http_errors absolute_form_target read_failure_500 \
		 read_failure_500_min_interval cgroup_refused_at_start \
		 cgroups_inside_refused partial_exposition partial_all_failed_500 partial_textfile unreadable_cgroup \
		 cgroups_removed_while_scraping \
		 concurrent_50 concurrent_scrapes_share_reads rss_bounded prometheus_stores_memory_stat \
		 prometheus_keeps_lookalikes \
		 textfile_atomic textfile_keeps_last_on_failure node_exporter_textfile sigterm_exit_0 \
		 port_in_use; do
		skip $t "no writable memory cgroup hierarchy"
	done
	finish
fi
cg=$mnt/memcgstat-exp-$$
rel=/memcgstat-exp-$$
mkdir "$cg/a" "$cg/b" "$cg/a/c"
if [ $ver = 2 ]; then
	echo +memory >"$cg/cgroup.subtree_control"
	echo +memory >"$cg/a/cgroup.subtree_control"
	echo +memory >"$cg/b/cgroup.subtree_control"	# b's hostile names
fi
# 16 MiB of anon in a (memhog, then idle in pause()); 8 MiB of shmem
# charged to a by a shell that has exited
start_memhog "$tmp/memhog" "$cg/a" 16
sh -c "echo \$\$ >$cg/a/cgroup.procs && head -c 8388608 /dev/zero >/dev/shm/memcgstat-exporter-$$"
# a name with a quote and a backslash, and one with a newline if cgroupfs takes it
mkdir "$cg/b/we\"ird\\name"
nl_name=$'new\nline'
mkdir "$cg/b/$nl_name" 2>/dev/null || nl_name=
# and one that is not valid UTF-8: its 0xff is printed as \xff
mkdir "$cg/b/bad"$'\xff'
# the hostile names of every fixture (cli.sh, top.sh): control bytes, and
# the two look-alikes, the bytes ff fe and the eight characters \xff\xfe
for n in $'esc\e]0;PWNED\aX' $'cr\rZZZZ' $'tab\tT' $'\xff\xfe' '\xff\xfe'; do mkdir "$cg/b/$n"; done
# b's cgroups, as the exposition's label values have them (escaped by the
# man page's rule, then \ and " escaped again by the exposition's)
b_labels=("$rel"'/b/we\"ird\\\\name' "$rel"'/b/bad\\xff' "$rel"'/b/esc\\x1b]0;PWNED\\x07X'
	  "$rel"'/b/cr\\x0dZZZZ' "$rel"'/b/tab\\x09T' "$rel"'/b/\\xff\\xfe' "$rel"'/b/\\\\xff\\\\xfe')
[ -n "$nl_name" ] && b_labels+=("$rel"'/b/new\\x0aline')

# memory.stat key of a stat, hierarchical, in bytes as the library gives it
key() { if [ $ver = 2 ]; then echo "$1"; else case $1 in anon) echo total_rss ;; file) echo total_cache ;; *) echo "total_$1" ;; esac; fi; }
stat_of() {	# cgroup-dir stat
	if [ "$2" = usage ]; then
		cat "$1/$([ $ver = 2 ] && echo memory.current || echo memory.usage_in_bytes)"
	else
		awk -v k="$(key "$2")" '$1 == k { print $2 }' "$1/memory.stat"
	fi
}
STATS=anon,file,shmem,pgfault,usage

om_accept='application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'
omcheck() {	# strict OpenMetrics parse of stdin; prints the sample count
	"$py" -c '
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
print(sum(len(f.samples) for f in text_string_to_metric_families(sys.stdin.read())))'
}

start_exporter main -s $STATS "$rel"
if [ -z "$eport" ]; then
	fail exporter_starts "$(cat "$tmp/main.log")"
	finish
fi
main_pid=$epid main_port=$eport
url=http://127.0.0.1:$main_port/metrics

# --- text format 0.0.4
curl -s -D "$tmp/h" -o "$tmp/body" "$url"
ctype=$(tr -d '\r' <"$tmp/h" | sed -n 's/^Content-Type: //Ip')
lint=$(promtool check metrics <"$tmp/body" 2>&1)
prc=$?
[ "$ctype" = "text/plain; version=0.0.4; charset=utf-8" ] && [ $prc = 0 ] &&
	grep -qx '# TYPE memcgstat_pgfault_total counter' "$tmp/body" &&
	grep -qx '# TYPE memcgstat_anon_bytes gauge' "$tmp/body" &&
	! grep -q '^# EOF' "$tmp/body" &&
	[ "$(grep -c '^# TYPE ' "$tmp/body")" = "$(grep '^# TYPE ' "$tmp/body" | sort -u | wc -l)" ]
check scrape_text $? "content type '$ctype', promtool $prc: $lint" "$(head -20 "$tmp/body")"

# --- every exported value of the quiescent cgroup a equals memory.stat
compare_values() {	# body-file; prints mismatches
	local s name v want
	for s in ${STATS//,/ }; do
		case $s in pgfault) name=memcgstat_${s}_total ;; *) name=memcgstat_${s}_bytes ;; esac
		v=$(awk -v m="$name{cgroup=\"$rel/a\"}" '$1 == m { print $2 }' "$1")
		want=$(stat_of "$cg/a" $s)
		[ -n "$v" ] && [ "$v" = "$want" ] || echo "$s: exported '$v', memory.stat '$want'"
	done
}
for try in 1 2 3; do
	curl -s -o "$tmp/body" "$url"
	diffs=$(compare_values "$tmp/body")
	[ -z "$diffs" ] && break
	sleep 0.5
done
anon=$(awk -v m="memcgstat_anon_bytes{cgroup=\"$rel/a\"}" '$1 == m { print $2 }' "$tmp/body")
[ -z "$diffs" ] && [ "${anon:-0}" -ge $((16 << 20)) ]
check values_equal_memory_stat $? "$diffs" "anon $anon"

# --- OpenMetrics when Accept prefers it (Prometheus's own header)
curl -s -H "Accept: $om_accept" -D "$tmp/h" -o "$tmp/om" "$url"
ctype=$(tr -d '\r' <"$tmp/h" | sed -n 's/^Content-Type: //Ip')
samples=$(omcheck <"$tmp/om" 2>&1)
orc=$?
[ "$ctype" = "application/openmetrics-text; version=1.0.0; charset=utf-8" ] && [ $orc = 0 ] &&
	[ "$(tail -1 "$tmp/om")" = "# EOF" ] &&
	grep -qx '# TYPE memcgstat_pgfault counter' "$tmp/om" &&
	grep -qx '# UNIT memcgstat_anon_bytes bytes' "$tmp/om" &&
	grep -qE "^memcgstat_pgfault_total\{cgroup=\"$rel/a\"\} [0-9]+$" "$tmp/om"
check openmetrics $? "content type '$ctype', parser $orc: $(tail -3 <<<"$samples")" "$(tail -5 "$tmp/om")"

# --- label values: the path escaped (a backslash doubled, a control byte,
# a newline too, and invalid UTF-8 as \xHH), then the exposition's \ and "
bad_b=
for l in "${b_labels[@]}"; do
	for f in "$tmp/body" "$tmp/om"; do
		[ "$(grep -cF "memcgstat_anon_bytes{cgroup=\"$l\"} " "$f")" = 1 ] || bad_b+="$l in $f; "
	done
done
[ -z "$bad_b" ] && ! LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$tmp/body" "$tmp/om" &&
	promtool check metrics <"$tmp/body" >/dev/null 2>&1 && omcheck <"$tmp/om" >/dev/null 2>&1
check label_escaping $? "missing or twice: $bad_b; newline name: '${nl_name:+made}'" \
	"$(grep -F 'anon_bytes{cgroup="'"$rel/b" "$tmp/body" | cat -A)"
[ -z "$nl_name" ] && echo "  (cgroupfs refused a name with a newline)"

# --- the cgroup set follows --max-depth, --include, --exclude
labels() { curl -s "$1" | sed -n 's/^memcgstat_usage_bytes{cgroup="\(.*\)"} [0-9]*$/\1/p' | sort | tr '\n' ' '; }
start_exporter filter1 -s usage --max-depth 1 --exclude '*/b' "$rel"
got1=$(labels "http://127.0.0.1:$eport/metrics")
kill $epid
start_exporter filter2 -s usage --include "$rel/a*" --exclude '*/c' "$rel"
got2=$(labels "http://127.0.0.1:$eport/metrics")
kill $epid
[ "$got1" = "$rel $rel/a " ] && [ "$got2" = "$rel/a " ]
check cgroup_filters $? "--max-depth 1 --exclude '*/b': '$got1'" "--include '$rel/a*' --exclude '*/c': '$got2'"

# --- content negotiation: which Accept headers get OpenMetrics (om) or text
neg_bad=
while IFS='|' read -r want accept; do
	ct=$(curl -s -H "Accept: $accept" -D - -o /dev/null "$url" | tr -d '\r' | sed -n 's/^Content-Type: //Ip')
	case $ct in
	"application/openmetrics-text; version=1.0.0; charset=utf-8") got=om ;;
	"text/plain; version=0.0.4; charset=utf-8") got=text ;;
	*) got="'$ct'" ;;
	esac
	[ "$got" = "$want" ] || neg_bad+="'$accept': $got, want $want; "
done <<'EOF'
om|application/openmetrics-text
om|Application/OpenMetrics-Text; Version="1.0.0"
om|text/plain;q=0.5, application/openmetrics-text;q=0.6
om|application/openmetrics-text;version=0.0.1;q=0.9,application/openmetrics-text;version=1.0.0;q=0.8,*/*;q=0.1
text|application/openmetrics-text;q=0
text|application/openmetrics-text;version=0.0.1
text|text/plain;q=1, application/openmetrics-text;q=1
text|application/json
text|
EOF
[ -z "$neg_bad" ]
check accept_negotiation $? "$neg_bad"

# --- gzip when Accept-Encoding asks for it (Prometheus does): the same
# exposition compressed, Content-Encoding and Vary set; plain otherwise
gz_bad=
while IFS='|' read -r want ae; do
	curl -s -H "Accept-Encoding: $ae" -D "$tmp/gzh" -o "$tmp/gzb" "$url"
	ce=$(tr -d '\r' <"$tmp/gzh" | sed -n 's/^Content-Encoding: //Ip')
	vary=$(tr -d '\r' <"$tmp/gzh" | sed -n 's/^Vary: //Ip')
	case $ce in
	gzip) got=gzip; gunzip -c <"$tmp/gzb" >"$tmp/gzplain" 2>/dev/null || got=bad-gzip ;;
	"") got=plain; cp "$tmp/gzb" "$tmp/gzplain" ;;
	*) got="'$ce'" ;;
	esac
	promtool check metrics <"$tmp/gzplain" >/dev/null 2>&1 || got+=",lint"
	[ "$vary" = "Accept, Accept-Encoding" ] || got+=",vary '$vary'"
	[ "$got" = "$want" ] || gz_bad+="'$ae': $got, want $want; "
done <<'EOF'
gzip|gzip
gzip|gzip, deflate, br
gzip|deflate;q=1, GZIP;q=0.5
gzip|*
gzip|x-gzip
plain|gzip;q=0
plain|deflate
plain|*;q=0
plain|gzip;q=0, *
plain|
EOF
[ -z "$gz_bad" ]
check gzip_encoding $? "$gz_bad"

# --- what gzip saves on a tree of 10,001 cgroups: the same samples, and
# the body at most a fifth of the plain one
mkdir "$cg/big" && eval "mkdir $cg/big/c{1..10000}"
[ $ver = 2 ] && echo +memory >"$cg/big/cgroup.subtree_control"
# (--min-interval: both scrapes get the one snapshot; read twice, the big
# cgroup's usage moved between them, and the test with it, now and then)
start_exporter big -s $STATS --min-interval 600 "$rel/big"
if [ -z "$eport" ]; then
	fail gzip_size_10000 "$(cat "$tmp/big.log")"
else
	curl -s -o "$tmp/big.plain" "http://127.0.0.1:$eport/metrics"
	curl -s -H 'Accept-Encoding: gzip' -o "$tmp/big.gz" "http://127.0.0.1:$eport/metrics"
	gunzip -c <"$tmp/big.gz" >"$tmp/big.unz" 2>/dev/null
	grep -v '^memcgstat_exporter_' "$tmp/big.plain" >"$tmp/big.p"
	grep -v '^memcgstat_exporter_' "$tmp/big.unz" >"$tmp/big.u"
	psize=$(stat -c %s "$tmp/big.plain") zsize=$(stat -c %s "$tmp/big.gz")
	samples=$(grep -c '^memcgstat_[a-z_]*{cgroup=' "$tmp/big.u")
	cmp -s "$tmp/big.p" "$tmp/big.u" && [ "$samples" -ge 50005 ] && [ $((zsize * 5)) -le "$psize" ]
	check gzip_size_10000 $? "$samples samples; plain $psize bytes, gzip $zsize" \
		"$(diff "$tmp/big.p" "$tmp/big.u" | head -5)"
	echo "  10,001 cgroups, $samples samples: $psize bytes plain, $zsize gzip ($((psize / (zsize ? zsize : 1)))x smaller)"
	kill -TERM "$epid"
	wait "$epid" 2>/dev/null
fi
rm_cgroups "$cg/big"

# --- the deep fixture (a chain of 40 cgroups of 250-byte names below deep,
# paths past 10,000 bytes): one scrape is a 200 with every cgroup of it
mkdir "$cg/deep" && mk_deep "$cg/deep"
start_exporter deep -s usage "$rel/deep"
if [ -z "$eport" ]; then
	fail deep_chain_scrape "$(cat "$tmp/deep.log")"
else
	dc=$(curl -s -o "$tmp/deep" -w '%{http_code}' "http://127.0.0.1:$eport/metrics")
	got=$(sed -n 's/^memcgstat_usage_bytes{cgroup="\(.*\)"} [0-9]*$/\1/p' "$tmp/deep")
	want=$(for i in $(seq 0 $DEEP_LEVELS); do deep_path "$rel/deep" $i; done)
	[ "$dc" = 200 ] && [ "$(sort <<<"$got")" = "$(sort <<<"$want")" ]
	check deep_chain_scrape $? "status $dc, $(grep -c . <<<"$got") cgroups of $((DEEP_LEVELS + 1)): $(head -c 300 "$tmp/deep")"
	kill -TERM "$epid"
	wait "$epid" 2>/dev/null
fi
rm_cgroups "$cg/deep"

# --- --local: the cgroup's own values as memcgstat_local_*, equal to v1's
# memory.stat lines without total_ (the text backend has them on v1 only);
# --numa needs bpf on v1: refused with the reason, exit 1
if [ $ver = 1 ]; then
	out=$("$bin" --local -s anon,file --textfile "$tmp/local.prom" --once "$rel/a" 2>&1)
	lrc=$?
	diffs=
	for try in 1 2 3; do
		diffs=
		"$bin" --local -s anon,file --textfile "$tmp/local.prom" --once "$rel/a" >/dev/null 2>&1
		for s in anon file; do
			k=$([ $s = anon ] && echo rss || echo cache)
			want=$(awk -v k=$k '$1 == k { print $2 }' "$cg/a/memory.stat")
			got=$(grep -F "memcgstat_local_${s}_bytes{cgroup=\"$rel/a\"} " "$tmp/local.prom" | awk '{ print $2 }')
			[ "$got" = "$want" ] || diffs+="$s: exported '$got', memory.stat $k '$want'; "
		done
		[ -z "$diffs" ] && break
		sleep 0.2
	done
	[ $lrc = 0 ] && [ -z "$diffs" ] && ! grep -q '^memcgstat_anon_bytes' "$tmp/local.prom" &&
		grep -q '^# HELP memcgstat_local_anon_bytes .*without its descendants' "$tmp/local.prom" &&
		promtool check metrics <"$tmp/local.prom" >/dev/null 2>&1
	check exporter_local $? "exit $lrc: $out; $diffs" "$(head -5 "$tmp/local.prom")"
	# where bpf cannot run, the reason, and no advice to take text
	expect exporter_numa_refused_v1 1 "^memcgstat-exporter: per-node values need the bpf backend, which cannot run here: .*; on cgroup v1 the text backend has no per-node values either \(v1 memory.numa_stat has a few page counts only\)\$" -- \
		--numa -s anon --textfile "$tmp/numa.prom" --once "$rel/a"
	expect exporter_local_numa 2 'cannot be combined' -- --local --numa
else
	skip exporter_local "cgroup v2 host: local values need the bpf backend (vm_exporter.sh)"
	skip exporter_numa_refused_v1 "cgroup v2 host"
fi

# --- IPv6 and a single HTTP thread (no pool)
"$bin" --listen '[::1]:0' --threads 1 -s usage "$rel" >"$tmp/v6.log" 2>&1 &
v6pid=$!
pids+=($v6pid)
for i in $(seq 50); do grep -q 'listening on' "$tmp/v6.log" && break; sleep 0.1; done
v6port=$(sed -n 's/^memcgstat-exporter: listening on \[::1\]:\([0-9]*\)$/\1/p' "$tmp/v6.log")
if [ -z "$v6port" ] && grep -q 'Cannot assign requested address\|Address family not supported' "$tmp/v6.log"; then
	kill $v6pid 2>/dev/null
	skip ipv6_single_thread "no IPv6 loopback: $(tail -1 "$tmp/v6.log")"
else
	c=$(curl -s -g -o "$tmp/v6" -w '%{http_code}' "http://[::1]:$v6port/metrics")
	kill -TERM $v6pid
	wait $v6pid
	rc=$?
	[ "$c" = 200 ] && grep -q "^memcgstat_usage_bytes{cgroup=\"$rel\"} " "$tmp/v6" && [ $rc = 0 ] &&
		! grep -qi warning "$tmp/v6.log"
	check ipv6_single_thread $? "GET $c, exit $rc: $(cat "$tmp/v6.log")"
fi

# --- --min-interval: scrapes within it share one read; without it each reads
reads() { curl -s "$1" | sed -n 's/^memcgstat_exporter_reads_total //p'; }
start_exporter minint -s usage --min-interval 30 "$rel"
m1=$(reads "http://127.0.0.1:$eport/metrics")
m2=$(reads "http://127.0.0.1:$eport/metrics")
m3=$(curl -s -H "Accept: $om_accept" "http://127.0.0.1:$eport/metrics" | sed -n 's/^memcgstat_exporter_reads_total //p')
kill $epid
r1=$(reads "$url")
r2=$(reads "$url")
[ "$m1" = 1 ] && [ "$m2" = 1 ] && [ "$m3" = 1 ] && [ -n "$r1" ] && [ "$r2" = $((r1 + 1)) ]
check min_interval $? "--min-interval 30: reads_total $m1, $m2, $m3 (want 1, 1, 1); without: $r1 then $r2"

# --- bad requests
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
big=$(head -c 65536 /dev/zero | tr '\0' x)
c404=$(code "http://127.0.0.1:$main_port/nope")
c405=$(code -X POST -d x "$url")
allow=$(curl -s -D - -o /dev/null -X DELETE "$url" | tr -d '\r' | sed -n 's/^Allow: //Ip')
# HEAD over HTTP/1.0: the server closes after the reply; nothing after the headers
head_raw=$(exec 3<>/dev/tcp/127.0.0.1/$main_port && printf 'HEAD /metrics HTTP/1.0\r\n\r\n' >&3 && timeout 5 cat <&3)
head_out=$(head -1 <<<"$head_raw" | tr -d '\r')
head_body=$(sed '1,/^\r\?$/d' <<<"$head_raw" | wc -c)
cbig=$(code -H "X-Big: $big" "$url")
cbody=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 -X POST --data-binary @<(head -c 10000000 /dev/zero) "$url")
bad_accept=0
for a in 'garbage' ';;;,,,' 'application/openmetrics-text;q=abc' 'application/openmetrics-text;q=2' \
	 'application/openmetrics-text;version=9.9' '*/*;q=1,application/openmetrics-text;q=0.5'; do
	ct=$(curl -s -H "Accept: $a" -D - -o "$tmp/ba" "$url" | tr -d '\r' | sed -n 's/^Content-Type: //Ip')
	[ "$ct" = "text/plain; version=0.0.4; charset=utf-8" ] && promtool check metrics <"$tmp/ba" >/dev/null 2>&1 ||
		{ bad_accept=1; echo "  Accept '$a': '$ct'"; }
done
alive=$(code "$url")
[ "$c404" = 404 ] && [ "$c405" = 405 ] && [ "$allow" = "GET, HEAD" ] &&
	[ "$head_out" = "HTTP/1.1 200 OK" ] && [ "$head_body" = 0 ] &&
	{ [ "$cbig" = 431 ] || [ "$cbig" = 413 ]; } && [ "$cbody" = 405 ] && [ $bad_accept = 0 ] &&
	[ "$alive" = 200 ] && kill -0 $main_pid
check http_errors $? "unknown path $c404, POST $c405 (Allow '$allow'), HEAD '$head_out' body $head_body bytes," \
	"64 KiB header $cbig, 10 MB POST body $cbody, malformed Accept ok=$((!bad_accept)), then GET $alive"
# the absolute form of a request target (RFC 9112 3.2.2: what a proxy sends)
cabs=$(curl -s --request-target "http://127.0.0.1:$main_port/metrics" -o "$tmp/abs" -w '%{http_code}' "$url")
cabsq=$(code --request-target "HTTP://scraper.example/metrics?x=1" "$url")
cabsi=$(code --request-target "http://127.0.0.1:$main_port" "$url")
cabsn=$(code --request-target "http://127.0.0.1:$main_port/nope" "$url")
[ "$cabs" = 200 ] && grep -q '^memcgstat_anon_bytes{' "$tmp/abs" && [ "$cabsq" = 200 ] &&
	[ "$cabsi" = 200 ] && [ "$cabsn" = 404 ]
check absolute_form_target $? "GET http://HOST/metrics $cabs, HTTP://.../metrics?x=1 $cabsq, http://HOST $cabsi (the index), http://HOST/nope $cabsn"

# --- a failed read: 500 with the reason, then recovery
mkdir "$cg/gone"
start_exporter gone -s usage "$rel/gone"
c1=$(code "http://127.0.0.1:$eport/metrics")
rmdir "$cg/gone"
c2=$(curl -s -o "$tmp/500" -w '%{http_code}' "http://127.0.0.1:$eport/metrics")
mkdir "$cg/gone"
curl -s -o "$tmp/after" "http://127.0.0.1:$eport/metrics"
errs=$(sed -n 's/^memcgstat_exporter_read_errors_total //p' "$tmp/after")
[ "$c1" = 200 ] && [ "$c2" = 500 ] && grep -q "snapshot of $rel/gone failed: .*No such file or directory" "$tmp/500" &&
	[ "$errs" = 1 ] && grep -q "^memcgstat_usage_bytes{cgroup=\"$rel/gone\"} " "$tmp/after"
check read_failure_500 $? "before $c1, removed $c2: $(cat "$tmp/500")" "recreated: read_errors_total '$errs'"
kill $epid
# ... and within --min-interval too: a failed read is not served again
start_exporter gonemin -s usage --min-interval 2 "$rel/gone"
rmdir "$cg/gone"
sleep 2.5
c1=$(code "http://127.0.0.1:$eport/metrics")
mkdir "$cg/gone"
c2=$(code "http://127.0.0.1:$eport/metrics")
[ "$c1" = 500 ] && [ "$c2" = 200 ]
check read_failure_500_min_interval $? "--min-interval 2: removed $c1 (want 500), recreated at once $c2 (want 200)"
kill $epid
rmdir "$cg/gone"

# --- a CGROUP that cannot be read at the start is refused there, exit 1
# with the reason, not a 500 on every scrape (on v1 '..' would read as a
# directory with no memcg in it)
refused=0
for arg in .. "$rel/absent-$$"; do
	timeout 60 "$bin" --listen 127.0.0.1:0 -s usage "$arg" >"$tmp/refused" 2>&1
	rc=$?
	case $arg in
	..) want="\.\.: not in the memory hierarchy (mounted at " ;;
	*) want="cgroup $arg: No such file or directory" ;;
	esac
	[ $rc = 1 ] && grep -q "^memcgstat-exporter: $want" "$tmp/refused" &&
		! grep -q "listening on" "$tmp/refused" ||
		{ refused=1; echo "  CGROUP '$arg': exit $rc: $(cat "$tmp/refused")"; }
done
check cgroup_refused_at_start $refused "outside the hierarchy and absent: exit 1 with the reason"

# --- several CGROUPs: one inside another is refused (its cgroups would be
# exported twice), as is one of them absent
"$bin" --listen 127.0.0.1:0 -s usage "$rel/a" "$rel/b" "$rel/a/c" >"$tmp/inside" 2>&1
irc=$?
"$bin" --listen 127.0.0.1:0 -s usage "$rel/a" "$rel/absent-$$" >"$tmp/absent2" 2>&1
arc=$?
[ $irc = 2 ] && grep -q "^memcgstat-exporter: CGROUP $rel/a/c is inside $rel/a: its cgroups would be exported twice" "$tmp/inside" &&
	[ $arc = 1 ] && grep -q "^memcgstat-exporter: cgroup $rel/absent-$$: No such file or directory" "$tmp/absent2" &&
	! grep -q "listening on" "$tmp/inside" "$tmp/absent2"
check cgroups_inside_refused $? "inside: exit $irc: $(cat "$tmp/inside")" "one absent: exit $arc: $(cat "$tmp/absent2")"

# --- partial exposition: of three CGROUPs, one removed between scrapes:
# the other two exported (200), the failure counted per scrape and in
# total; all three gone: a 500 naming each
mkdir -p "$cg/p1/q" "$cg/p2" "$cg/p3"
start_exporter partial -s usage "$rel/p1" "$rel/p2" "$rel/p3"
purl=http://127.0.0.1:$eport/metrics
pmetric() { sed -n "s/^memcgstat_exporter_$1 //p" "$2"; }
plabels() { sed -n 's/^memcgstat_usage_bytes{cgroup="\(.*\)"} [0-9]*$/\1/p' "$1" | tr '\n' ' '; }
pc1=$(curl -s -o "$tmp/p1" -w '%{http_code}' "$purl")
rmdir "$cg/p2"
pc2=$(curl -s -o "$tmp/p2" -w '%{http_code}' "$purl")
pc3=$(curl -s -o "$tmp/p3" -w '%{http_code}' "$purl")
want="$rel/p1 $rel/p1/q $rel/p3 "
[ "$pc1" = 200 ] && [ "$(plabels "$tmp/p1")" = "$rel/p1 $rel/p1/q $rel/p2 $rel/p3 " ] &&
	[ "$(pmetric cgroup_read_failures_total "$tmp/p1")" = 0 ] && [ "$(pmetric cgroups_failed "$tmp/p1")" = 0 ] &&
	[ "$pc2" = 200 ] && [ "$(plabels "$tmp/p2")" = "$want" ] &&
	[ "$(pmetric cgroup_read_failures_total "$tmp/p2")" = 1 ] && [ "$(pmetric cgroups_failed "$tmp/p2")" = 1 ] &&
	[ "$(pmetric read_errors_total "$tmp/p2")" = 0 ] && [ "$(pmetric cgroups_seen "$tmp/p2")" = 3 ] &&
	[ "$pc3" = 200 ] && [ "$(pmetric cgroup_read_failures_total "$tmp/p3")" = 2 ] &&
	grep -q "snapshot of $rel/p2 failed: .*No such file or directory" "$tmp/partial.log" &&
	promtool check metrics <"$tmp/p2" >/dev/null 2>&1
check partial_exposition $? "before: $pc1 '$(plabels "$tmp/p1")'; p2 removed: $pc2 '$(plabels "$tmp/p2")'" \
	"(want '$want'), failures_total $(pmetric cgroup_read_failures_total "$tmp/p2"), then $pc3 $(pmetric cgroup_read_failures_total "$tmp/p3")" \
	"log: $(tail -2 "$tmp/partial.log")"
rmdir "$cg/p1/q" "$cg/p1" "$cg/p3"
pc4=$(curl -s -o "$tmp/p4" -w '%{http_code}' "$purl")
mkdir "$cg/p3"
curl -s -o "$tmp/p5" "$purl"
[ "$pc4" = 500 ] && grep -q "snapshot of $rel/p1 failed: .*; snapshot of $rel/p2 failed: .*; snapshot of $rel/p3 failed: .*No such file" "$tmp/p4" &&
	[ "$(plabels "$tmp/p5")" = "$rel/p3 " ] && [ "$(pmetric read_errors_total "$tmp/p5")" = 1 ] &&
	[ "$(pmetric cgroup_read_failures_total "$tmp/p5")" = 7 ]
check partial_all_failed_500 $? "all removed: $pc4 $(cat "$tmp/p4")" \
	"p3 back: '$(plabels "$tmp/p5")', read_errors_total $(pmetric read_errors_total "$tmp/p5"), failures_total $(pmetric cgroup_read_failures_total "$tmp/p5") (want 1, 7)"
kill $epid
# the textfile too: written with the CGROUPs that could be read
mkdir "$cg/p2"
"$bin" -s usage --textfile "$tmp/partial.prom" --interval 0.1 "$rel/p2" "$rel/p3" >"$tmp/ptf.log" 2>&1 &
ptf=$!
pids+=($ptf)
for i in $(seq 100); do [ -s "$tmp/partial.prom" ] && break; sleep 0.1; done
rmdir "$cg/p2"
for i in $(seq 100); do
	[ "$(pmetric cgroups_failed "$tmp/partial.prom")" = 1 ] && break
	sleep 0.1
done
kill -TERM $ptf
wait $ptf
[ "$(pmetric cgroups_failed "$tmp/partial.prom")" = 1 ] && [ "$(plabels "$tmp/partial.prom")" = "$rel/p3 " ]
check partial_textfile $? "after p2 removed: '$(plabels "$tmp/partial.prom")', cgroups_failed $(pmetric cgroups_failed "$tmp/partial.prom")"
rmdir "$cg/p3"

# --- a cgroup below the CGROUP whose files the exporter (here: nobody)
# cannot read: its own series left out and counted, the rest a 200
if ! nobody_runs_bin; then
	skip unreadable_cgroup "cannot run $bin as nobody (no setpriv, no user nobody, or a directory on the way closed to it)"
else
	mkdir -p "$cg/u/a" "$cg/u/b"
	chmod 000 "$cg"/u/b/memory.*
	# setpriv itself, not as_nobody: $! is the exporter's pid
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
		"$bin" --listen 127.0.0.1:0 -s usage,anon "$rel/u" >"$tmp/unr.log" 2>&1 &
	epid=$!
	pids+=($epid)
	eport=$(exporter_port "$tmp/unr.log" $epid)
	uc=$(curl -s -o "$tmp/unr" -w '%{http_code}' "http://127.0.0.1:$eport/metrics")
	[ "$uc" = 200 ] && [ "$(plabels "$tmp/unr")" = "$rel/u $rel/u/a " ] &&
		[ "$(pmetric cgroups_unreadable "$tmp/unr")" = 1 ] && [ "$(pmetric cgroups_seen "$tmp/unr")" = 3 ] &&
		[ "$(pmetric cgroups_failed "$tmp/unr")" = 0 ] && ! grep -q "$rel/u/b" "$tmp/unr" &&
		promtool check metrics <"$tmp/unr" >/dev/null 2>&1
	check unreadable_cgroup $? "$uc: '$(plabels "$tmp/unr")' (want '$rel/u $rel/u/a '), unreadable $(pmetric cgroups_unreadable "$tmp/unr")" \
		"log: $(tail -2 "$tmp/unr.log")"
	kill $epid
	wait $epid 2>/dev/null
	# ... not counted where --exclude leaves it out (a textfile, once, in a
	# directory nobody may write: $tmp is root's alone)
	ud=$(mktemp -d /tmp/memcgstat-exporter-nobody.XXXXXX) && chmod 777 "$ud"
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
		"$bin" --textfile "$ud/m.prom" --once -s usage,anon --exclude '*/b' "$rel/u" >"$tmp/unr.log" 2>&1
	rc=$?
	[ $rc = 0 ] && [ "$(pmetric cgroups_unreadable "$ud/m.prom")" = 0 ] &&
		[ "$(plabels "$ud/m.prom")" = "$rel/u $rel/u/a " ]
	check unreadable_cgroup_excluded $? "exit $rc, unreadable $(pmetric cgroups_unreadable "$ud/m.prom")," \
		"'$(plabels "$ud/m.prom")'; log: $(tail -2 "$tmp/unr.log")"
	rm -rf "$ud"
	rmdir "$cg/u/a" "$cg/u/b" "$cg/u"
fi

# --- cgroups created and removed while scraping: every scrape a complete 200
mkdir "$cg/churn"
[ $ver = 2 ] && echo +memory >"$cg/cgroup.subtree_control"
(
	while :; do
		mkdir "$cg"/churn/x{1..40} 2>/dev/null
		rmdir "$cg"/churn/x{1..40} 2>/dev/null
	done
) &
churn=$!
bad=0 seen=0
for total in $(seq 30); do
	c=$(curl -s -o "$tmp/churn" -w '%{http_code}' "$url")
	s=$(awk '/^memcgstat_exporter_cgroups_seen/ { print $2 }' "$tmp/churn")
	[ "${s:-0}" -gt $seen ] && seen=$s
	if [ "$c" != 200 ] || [ "$(tail -1 "$tmp/churn" | cut -d'{' -f1)" != memcgstat_exporter_build_info ]; then
		bad=$((bad + 1))
		echo "  scrape $total: $c $(head -c 200 "$tmp/churn")"
	fi
done
kill $churn
wait $churn 2>/dev/null
rmdir "$cg"/churn/x* "$cg/churn" 2>/dev/null
[ $bad = 0 ] && kill -0 $main_pid
check cgroups_removed_while_scraping $? "$bad of $total scrapes bad; exporter log: $(grep -v listening "$tmp/main.log" | tail -3)"
echo "  30 scrapes while 40 cgroups came and went (at most $seen cgroups in one scrape)"

# --- slow clients: 300 connections from 127.0.0.1 that send a byte of
# their headers every second (never idle) cannot starve a scraper from
# 127.0.0.2: each address has 64 connections at most, and a request must
# arrive whole within --header-timeout (5 s); a request that takes 2 s is
# still answered
"$bin" --listen 0.0.0.0:0 -s usage "$rel" >"$tmp/slow.log" 2>&1 &
epid=$!
pids+=($epid)
eport=$(exporter_port "$tmp/slow.log" $epid 0.0.0.0)
if [ -z "$eport" ]; then
	fail slow_clients "$(cat "$tmp/slow.log")"
else
	"$py" - "$eport" 300 12 >"$tmp/trickle.out" 2>&1 <<'PY' &
import socket, sys, time
port, n, dur = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
socks = []
for i in range(n):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=2)
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
        s.setblocking(False)
        socks.append(s)
    except OSError:
        pass
opened, t0 = len(socks), time.time()
while time.time() < t0 + dur and socks:
    for s in list(socks):
        try:
            if s.recv(4096) == b"":
                socks.remove(s)
                continue
        except BlockingIOError:
            pass
        except OSError:
            socks.remove(s)
            continue
        try:
            s.send(b"X")
        except OSError:
            socks.remove(s)
    time.sleep(1)
print(opened, len(socks))
PY
	tpid=$!
	sleep 2
	codes=
	for i in $(seq 10); do
		codes+="$(curl -s --interface 127.0.0.2 --max-time 3 -o /dev/null -w '%{http_code}' \
			"http://127.0.0.2:$eport/metrics") "
		sleep 0.3
	done
	slow_ok=$("$py" - "$eport" 2>&1 <<'PY'
import socket, sys, time
s = socket.create_connection(("127.0.0.2", int(sys.argv[1])), timeout=10,
                             source_address=("127.0.0.2", 0))
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
time.sleep(2)
s.sendall(b"Connection: close\r\n\r\n")
print(s.recv(64).split(b"\r\n")[0].decode())
PY
)
	wait $tpid
	read -r opened left <"$tmp/trickle.out"
	[ "$codes" = "$(printf '200 %.0s' $(seq 10))" ] && [ "$slow_ok" = "HTTP/1.1 200 OK" ] &&
		[ "$opened" = 300 ] && [ "$left" = 0 ]
	check slow_clients $? "scrapes from 127.0.0.2: $codes; a 2 s request: '$slow_ok';" \
		"tricklers opened, left after 12 s: $(cat "$tmp/trickle.out")"
	kill -TERM "$epid"
	wait "$epid" 2>/dev/null
fi

# --- 50 concurrent scrapers for 5 s: no failed request, complete bodies, bounded RSS
hwm() { awk '/^VmHWM/ { print $2 }' /proc/$1/status; }
for i in $(seq 20); do curl -s -o /dev/null "$url"; curl -s -o /dev/null -H "Accept: $om_accept" "$url"; done
hwm0=$(hwm $main_pid)
(
	for k in $(seq 5); do
		(
			for j in $(seq 10); do
				if [ $((j % 2)) = 0 ]; then
					curl -sf -H "Accept: $om_accept" -o "$tmp/c$k.om" "$url" || echo "curl $?"
					[ "$(tail -1 "$tmp/c$k.om")" = "# EOF" ] || echo "om body $k/$j incomplete"
				else
					curl -sf -o "$tmp/c$k.txt" "$url" || echo "curl $?"
					[ "$(tail -1 "$tmp/c$k.txt" | cut -d'{' -f1)" = memcgstat_exporter_build_info ] ||
						echo "text body $k/$j incomplete"
				fi
			done
			omcheck <"$tmp/c$k.om" >/dev/null || echo "om body $k does not parse"
			promtool check metrics <"$tmp/c$k.txt" >/dev/null 2>&1 || echo "text body $k does not lint"
		) &
	done
	wait
) >"$tmp/curls" 2>&1 &
curls=$!
wrk -t 2 -c 50 -d 5s --latency "$url" >"$tmp/wrk" 2>&1
wrc=$?
wait $curls
wrk -t 2 -c 50 -d 3s -H 'Connection: close' "$url" >"$tmp/wrk2" 2>&1
wrc2=$?
hwm1=$(hwm $main_pid)
reads_after=$(reads "$url")
reqs=$(awk '/requests in/ { print $1 }' "$tmp/wrk")
reqs2=$(awk '/requests in/ { print $1 }' "$tmp/wrk2")
errs=$(cat "$tmp/wrk" "$tmp/wrk2" | grep -E 'Socket errors|Non-2xx')
[ $wrc = 0 ] && [ $wrc2 = 0 ] && [ -z "$errs" ] && [ "${reqs:-0}" -gt 0 ] && [ "${reqs2:-0}" -gt 0 ] &&
	[ ! -s "$tmp/curls" ] && kill -0 $main_pid
check concurrent_50 $? "wrk $wrc/$wrc2: $errs" "$(head -5 "$tmp/curls")"
echo "  keep-alive: $reqs requests in 5 s, $(awk '/Requests\/sec/ { print $2 }' "$tmp/wrk") req/s," \
	"latency p50 $(awk '$1 == "50%" { print $2 }' "$tmp/wrk") p99 $(awk '$1 == "99%" { print $2 }' "$tmp/wrk");" \
	"Connection: close: $reqs2 requests in 3 s; 50 curl bodies checked"
echo "  VmHWM $hwm0 kB before, $hwm1 kB after"
served=$((reads_after - r2)) requests=$((reqs + reqs2 + 50))
[ $served -gt 0 ] && [ $((served * 2)) -lt $requests ]
check concurrent_scrapes_share_reads $? "$served reads for $requests requests"
if [ "$asan" = asan ]; then
	skip rss_bounded "ASan build: its quarantine keeps freed memory"
else
	[ -n "$hwm0" ] && [ -n "$hwm1" ] && [ $((hwm1 - hwm0)) -lt 8192 ]
	check rss_bounded $? "VmHWM grew from $hwm0 kB to $hwm1 kB (bound: +8 MiB)"
fi

# --- a real Prometheus scrapes it; its stored values equal memory.stat
if ! command -v prometheus >/dev/null; then
	skip prometheus_stores_memory_stat "no prometheus binary (Debian package prometheus)"
	skip prometheus_keeps_lookalikes "no prometheus binary (Debian package prometheus)"
else
	prometheus_scrapes <<-EOF
	  - job_name: memcgstat
	    static_configs:
	      - targets: ['127.0.0.1:$main_port']
	EOF
	start_prometheus
	# The memory.stat values now; then wait for a sample scraped after now.
	# The memory.stat values now; a sample Prometheus scraped after now; the
	# values again. A cgroup that moved meanwhile (v1 usage moves when a
	# per-cpu charge stock is drained) is tried again, up to 5 times.
	declare -A want
	for try in 1 2 3 4 5; do
		t0=$(date +%s.%N)
		for s in ${STATS//,/ }; do want[$s]=$(stat_of "$cg/a" $s); done
		for i in $(seq 60); do
			ts=$(curl -s --get "$api/query" --data-urlencode "query=timestamp(memcgstat_usage_bytes{cgroup=\"$rel/a\"})" |
				"$py" -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)' 2>/dev/null)
			[ -n "$ts" ] && "$py" -c "import sys; sys.exit(0 if float('$ts') > $t0 else 1)" && break
			sleep 0.5
		done
		diffs= moved=
		for s in ${STATS//,/ }; do
			case $s in pgfault) name=memcgstat_${s}_total ;; *) name=memcgstat_${s}_bytes ;; esac
			got=$(promq "$name{cgroup=\"$rel/a\"}")
			now=$(stat_of "$cg/a" $s)
			[ "$now" = "${want[$s]}" ] || moved+="$s "
			[ "$got" = "${want[$s]}" ] || diffs+="$s: prometheus '$got', memory.stat '${want[$s]}' then '$now'; "
		done
		[ -z "$moved" ] && break
		echo "  try $try: $moved moved during the check"
	done
	[ -z "$moved" ] || diffs+="never quiescent: $moved"
	up=$(promq 'up{job="memcgstat"}')
	meta=$(curl -s "$api/metadata?metric=memcgstat_pgfault" | "$py" -c '
import json, sys; print(json.load(sys.stdin)["data"]["memcgstat_pgfault"][0]["type"])' 2>/dev/null)
	[ -z "$diffs" ] && [ "$up" = 1 ]
	check prometheus_stores_memory_stat $? "$diffs" "up '$up'; prometheus log: $(tail -3 "$tmp/prometheus.log")"
	echo "  anon ${want[anon]} file ${want[file]} shmem ${want[shmem]} pgfault ${want[pgfault]} usage ${want[usage]}" \
		"(metadata type of memcgstat_pgfault: '$meta', i.e. the OpenMetrics family was parsed)"
	# b's cgroups, the two look-alikes among them: as many series as the
	# exposition has, one per cgroup, under the exposition's label values
	curl -s -o "$tmp/b_body" "$url"
	served=$(grep -cF "memcgstat_usage_bytes{cgroup=\"$rel/b/" "$tmp/b_body")
	stored=$(promq "count(memcgstat_usage_bytes{cgroup=~\"$rel/b/.+\"})")
	got=$(curl -s --get "$api/series" --data-urlencode "match[]=memcgstat_usage_bytes{cgroup=~\"$rel/b/.+\"}" |
		"$py" -c 'import json, sys
for s in json.load(sys.stdin)["data"]: print(s["cgroup"])' | sort)
	want_b=$(printf '%s\n' "${b_labels[@]}" | sed 's/\\\(.\)/\1/g' | sort)
	[ "$served" = ${#b_labels[@]} ] && [ "$stored" = ${#b_labels[@]} ] && [ "$got" = "$want_b" ]
	check prometheus_keeps_lookalikes $? "b: ${#b_labels[@]} cgroups, $served series served, '$stored' stored" \
		"stored: $got" "want: $want_b"
	stop_prometheus
fi

# --once as cron runs it: nothing on stderr without -v (no backend line,
# whatever the backend); with -v, the backend (and why, where auto fell back)
out=$("$bin" -s anon --textfile "$tmp/quiet.prom" --once "$rel" 2>&1 >/dev/null)
rc=$?
vout=$("$bin" -v -s anon --textfile "$tmp/quiet.prom" --once "$rel" 2>&1 >/dev/null)
vrc=$?
[ $rc = 0 ] && [ -z "$out" ] && [ $vrc = 0 ] &&
	grep -qE "^memcgstat-exporter: backend (text|bpf), cgroup v$ver at $mnt, 1 stat$" <<<"$vout" &&
	grep -q "^memcgstat_anon_bytes{cgroup=\"$rel\"} [0-9]" "$tmp/quiet.prom"
check once_quiet_without_v $? "exit $rc: $out" "-v: exit $vrc: $vout"
rm -f "$tmp/quiet.prom"

# --- --textfile: complete at every moment, promtool-clean, no leftovers
tf=$tmp/textfile/memcgstat.prom
mkdir "$tmp/textfile"
out=$("$bin" -s $STATS --textfile "$tf" --once "$rel" 2>&1)
orc=$?
mode=$(stat -c %a "$tf" 2>/dev/null)
lint=$(promtool check metrics <"$tf" 2>&1)
lrc=$?
[ $orc = 0 ] && [ "$mode" = 644 ] && [ $lrc = 0 ] && [ "$(ls "$tmp/textfile")" = memcgstat.prom ] &&
	[ -z "$(compare_values "$tf")" ]
once_rc=$?
"$bin" -s $STATS --textfile "$tf" --interval 0.02 "$rel" 2>"$tmp/tf.log" &
tfpid=$!
pids+=($tfpid)
# Each read sees one whole file, the old or the new, never a part: read
# it 1000 times and until the writer has replaced it 3 times meanwhile.
# (20,000 reads, or 60 s at most when a slow build, ASan's, has not
# replaced it 3 times by then)
ino=$(stat -c %i "$tf") replaced=0 reads=0 bad=0 deadline=$((SECONDS + 60))
while [ $reads -lt 1000 ] || [ $replaced -lt 3 ]; do
	[ $reads -ge 20000 ] && [ $SECONDS -ge $deadline ] && break
	b=$(awk -v f="$tf" 'BEGIN {
		for (i = 0; i < 200; i++) {
			last = ""
			while ((getline line < f) > 0)
				last = line
			close(f)
			if (last !~ /^memcgstat_exporter_build_info\{/)
				bad++
		}
		print bad + 0
	}')
	bad=$((bad + b)) reads=$((reads + 200))
	i=$(stat -c %i "$tf")
	[ "$i" != "$ino" ] && replaced=$((replaced + 1)) ino=$i
done
kill -TERM $tfpid
wait $tfpid
trc=$?
left=$(ls -A "$tmp/textfile" | grep -vx memcgstat.prom)
[ $once_rc = 0 ] && [ $bad = 0 ] && [ $trc = 0 ] && [ -z "$left" ] && [ $replaced -ge 3 ]
check textfile_atomic $? "--once exit $orc ($out), mode $mode, promtool $lrc: $lint" \
	"$bad of $reads reads saw a partial file (replaced $replaced times meanwhile); loop exit $trc; leftovers: $left"

# a CGROUP that is not there is refused before the file is touched; one
# removed later leaves the last file alone, said in the log, and the loop
# goes on
cp "$tf" "$tmp/tf.before"
out=$("$bin" -s $STATS --textfile "$tf" --once "$rel/no-such-cgroup" 2>&1)
rc=$?
mkdir "$cg/tfgone"
"$bin" -s usage --textfile "$tmp/textfile/gone.prom" --interval 0.1 "$rel/tfgone" >"$tmp/tfgone.log" 2>&1 &
tfpid=$!
pids+=($tfpid)
for i in $(seq 100); do [ -s "$tmp/textfile/gone.prom" ] && break; sleep 0.1; done
rmdir "$cg/tfgone"
# the file as the failures found it, then again after two more: the same
# (a copy taken before the rmdir could be a write older than the last one)
failures() { grep -c "snapshot of $rel/tfgone failed: .*No such file or directory" "$tmp/tfgone.log"; }
for i in $(seq 100); do [ "$(failures)" -ge 1 ] && break; sleep 0.1; done
cp "$tmp/textfile/gone.prom" "$tmp/gone.before"
n0=$(failures)
for i in $(seq 100); do
	[ "$(failures)" -ge $((n0 + 2)) ] && break
	sleep 0.1
done
kill -0 $tfpid
alive=$?
kill -TERM $tfpid
wait $tfpid
grc=$?
cmp -s "$tmp/textfile/gone.prom" "$tmp/gone.before"
kept=$?
rm -f "$tmp/textfile/gone.prom"
[ $rc = 1 ] && grep -q "cgroup $rel/no-such-cgroup: No such file or directory" <<<"$out" &&
	cmp -s "$tf" "$tmp/tf.before" && [ $i -lt 100 ] && [ $alive = 0 ] && [ $grc = 0 ] &&
	grep -q "^memcgstat_usage_bytes{cgroup=\"$rel/tfgone\"} " "$tmp/gone.before" && [ $kept = 0 ] &&
	[ "$(ls -A "$tmp/textfile")" = memcgstat.prom ]
check textfile_keeps_last_on_failure $? "absent at start: exit $rc: $out;" \
	"removed later: alive $alive, exit $grc, file kept $((!kept)), log: $(cat "$tmp/tfgone.log");" \
	"files: $(ls -A "$tmp/textfile" | tr '\n' ' ')"

# node_exporter's textfile collector reads it
if ! command -v prometheus-node-exporter >/dev/null; then
	skip node_exporter_textfile "no prometheus-node-exporter (Debian package)"
else
	nport=$(freeport)
	prometheus-node-exporter --web.listen-address=127.0.0.1:$nport --collector.disable-defaults \
		--collector.textfile --collector.textfile.directory="$tmp/textfile" >"$tmp/ne.log" 2>&1 &
	nepid=$!
	pids+=($nepid)
	for i in $(seq 50); do curl -s -o "$tmp/ne" "http://127.0.0.1:$nport/metrics" && break; sleep 0.1; done
	kill $nepid
	v=$(awk -v m="memcgstat_anon_bytes{cgroup=\"$rel/a\"}" '$1 == m { print $2 }' "$tmp/ne")
	w=$(awk -v m="memcgstat_anon_bytes{cgroup=\"$rel/a\"}" '$1 == m { print $2 }' "$tf")
	grep -qx 'node_textfile_scrape_error 0' "$tmp/ne" && [ -n "$v" ] && [ "$(printf '%.0f' "$v")" = "$w" ]
	check node_exporter_textfile $? "node_exporter: anon '$v', file '$w'; $(grep textfile_scrape_error "$tmp/ne")" \
		"$(tail -3 "$tmp/ne.log")"
fi

# --- SIGTERM (under 50 scrapers, some suspended for a read) and SIGINT: exit 0
wrk -t 2 -c 50 -d 3s "$url" >/dev/null 2>&1 &
wrkpid=$!
sleep 1
kill -TERM $main_pid
for i in $(seq 50); do kill -0 $main_pid 2>/dev/null || break; sleep 0.1; done
wait $main_pid
rc_term=$?
wait $wrkpid
start_exporter sigint -s usage "$rel"
kill -INT $epid
for i in $(seq 50); do kill -0 $epid 2>/dev/null || break; sleep 0.1; done
wait $epid
rc_int=$?
[ $rc_term = 0 ] && [ $rc_int = 0 ]
check sigterm_exit_0 $? "SIGTERM: exit $rc_term, SIGINT: exit $rc_int" "$(tail -3 "$tmp/main.log")"

# --- a busy port: exit 1 with the reason
start_exporter busy -s usage "$rel"
out=$(timeout 10 "$bin" --listen 127.0.0.1:$eport -s usage 2>&1)
rc=$?
kill $epid
wait $epid
[ $rc = 1 ] && grep -q "cannot listen on 127.0.0.1:$eport: Address already in use" <<<"$out"
check port_in_use $? "exit $rc: $out"

finish
