#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Long runs: memcgstat-exporter under 50 concurrent scrapers and the CLI
# sampling every 0.1 s, both for SECONDS (default 60) while cgroups are
# made and removed under the tree they watch, some with memory in them.
# Once a second the RSS, open fds and threads of each are sampled from
# /proc. Asserted: every scrape a 200 with a whole exposition, every CLI
# line whole, no read error; RSS growth bounded after the warm-up, fds back
# to their baseline, threads flat; both still alive at the end, the
# exporter exits 0 on SIGTERM. Prints the figures as "  soak: ..." lines.
# Prints "#N soak/NAME:OK|FAIL|SKIP (why)".
#
#   soak.sh OUT [SECONDS [BACKEND]]
#
# OUT: the build directory (tools/, selftests/); BACKEND: auto (default),
# bpf or text, for both the exporter and the CLI (the host has no memcg
# kfuncs: text; the VM boots run it with bpf, and the backend the exporter
# says it uses is checked).
#
# SOAK_WARMUP (10) and RSS_SLACK_KIB (1024) change the RSS bound below;
# SOAK_SCRAPERS (50) is the number of concurrent scrapers, SOAK_CURL (10)
# how many of them are curl loops, the rest wrk connections; SOAK_RATE (10)
# the scrapes a second the run must see. The VM boot soaks the bpf backend
# with 10 scrapers, no curl, 2 a second: in the TCG guest on a busy host,
# 10 curl loops' parser processes (~11 s each) and 40 wrk connections
# starved the guest's 2 vCPUs until wrk's replies sat unread past
# --header-timeout;
# SOAK_KEEP=1 keeps the samples, bodies and logs in /tmp.
#
# The scrapers: wrk with 20 keep-alive connections (text format), wrk with
# 20 connections closed after each reply (OpenMetrics: every scrape a new
# socket, so a leaked fd shows), 10 curl loops asking for gzip in both
# formats. wrk checks every body in Lua (soak.lua), the curl loops in awk;
# every tenth curl body is also parsed strictly (promtool, and Python's
# prometheus_client OpenMetrics parser). A cgroup removed during a read is
# left out of that snapshot (the text backend's walk drops what is gone),
# so the churn may cost no scrape a 500, and none is allowed: only the
# watched cgroup itself gone fails a read (exporter.sh, read_failure_500).
#
# The bounds, and why:
# - RSS: samples of the first WARMUP (10) seconds are left out (glibc's
#   arenas, libmicrohttpd's connection pools and the response buffers find
#   their size then). The rest is cut in thirds; the mean of the last may
#   exceed the mean of the first by RSS_SLACK_KIB (1024), and the largest
#   sample of the last third may exceed that of the first by the same.
#   Measured here (2 shared cores, 250-350 scrapes/s, 30-40 reads/s):
#   +250 to +600 KiB between the means in 60-100 s runs, noise of bodies
#   that grow and shrink with the churn. The thirds' centres are 2/3 of
#   the run after the warm-up apart: 33 s in 60 s, so the bound catches a
#   leak of ~100 bytes per scrape or ~1 KiB per read there, and of ~10
#   bytes per scrape in 10 minutes. (It caught glibc's arenas growing by
#   4.5 MiB in 10 minutes with the live heap flat: see exporter.c's
#   mallopt().) Checked: an exporter leaking 128 bytes per request fails
#   it in 60 s (+1291 KiB between the means, 280 scrapes/s).
# - fds: the exporter's count once the load is over and its connections
#   are closed equals the count before the load, exactly; during the load
#   it stays within that plus the scrapers' 50 connections plus what a
#   read and connection turnover hold (30). The CLI has no connections: the
#   least of its last third equals the least of its first (a sample may
#   catch a read with its directories open), its most within 8 of it.
#   Checked: an exporter leaking an fd per 1,000 requests fails in 60 s
#   (24 fds after the load, 10 before).
# - threads: the exporter's --threads 2 pool, the reader, the sweeper and
#   main, at every sample; the CLI's one.
set -uo pipefail

out=${1:?usage: soak.sh OUT [SECONDS [BACKEND]]}
secs=${2:-60}
backend=${3:-auto}
warmup=${SOAK_WARMUP:-10}
slack=${RSS_SLACK_KIB:-1024}
nscr=${SOAK_SCRAPERS:-50}
ncurl=${SOAK_CURL:-10}
rate=${SOAK_RATE:-10}
exporter=$out/tools/memcgstat-exporter
cli=$out/tools/memcgstat
memhog=$out/selftests/memhog
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3	# Debian's, with python3-prometheus-client
SUITE=soak
. "$here/../lib.sh"
tmp=$(mktemp -d /tmp/memcgstat-soak.XXXXXX)
cg= pids=() churn=
cleanup() {
	[ -n "$churn" ] && kill -TERM "$churn" 2>/dev/null && wait "$churn" 2>/dev/null
	kill "${pids[@]}" 2>/dev/null
	wait 2>/dev/null
	rm_cgroups "$cg"
	[ -n "${SOAK_KEEP:-}" ] && echo "soak: kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT

tests="exporter_backend exporter_scrapes_complete exporter_rss_bounded exporter_fds_back_to_baseline exporter_threads_flat
       exporter_sigterm_exit_0 cli_samples_complete cli_rss_bounded cli_fds_flat cli_threads_flat"
skip_all() { for t in $tests; do skip "$t" "$1"; done; finish; }

[[ $secs =~ ^[0-9]+$ ]] && [ "$secs" -ge $((warmup + 15)) ] ||
	{ echo "soak: SECONDS '$secs': a whole number, at least the warm-up + 15 ($((warmup + 15)))" >&2; exit 2; }
[[ $nscr =~ ^[0-9]+$ ]] && [ "$nscr" -ge 2 ] || { echo "soak: SOAK_SCRAPERS '$nscr': 2 or more" >&2; exit 2; }
[[ $ncurl =~ ^[0-9]+$ ]] && [ "$ncurl" -le $((nscr - 2)) ] ||
	{ echo "soak: SOAK_CURL '$ncurl': 0 to SOAK_SCRAPERS - 2" >&2; exit 2; }
[[ $rate =~ ^[0-9]+$ ]] || { echo "soak: SOAK_RATE '$rate': a whole number" >&2; exit 2; }
nwrk=$(((nscr - ncurl) / 2))
[[ $backend =~ ^(auto|bpf|text)$ ]] || { echo "soak: BACKEND '$backend': auto, bpf or text" >&2; exit 2; }
for t in wrk curl promtool; do
	command -v $t >/dev/null || skip_all "no $t"
done
if [ -d /sys/fs/cgroup/memory ] && [ -f /sys/fs/cgroup/memory/memory.stat ]; then
	ver=1 mnt=/sys/fs/cgroup/memory
else
	ver=2 mnt=/sys/fs/cgroup
fi
[ -w "$mnt" ] && mkdir "$mnt/memcgstat-soak-$$" 2>/dev/null || skip_all "no writable memory cgroup hierarchy at $mnt"
cg=$mnt/memcgstat-soak-$$
rel=/memcgstat-soak-$$
# a steady part (16 MiB of anon in a) and a churned one
mkdir -p "$cg/a" "$cg/b/c" "$cg/churn"
if [ $ver = 2 ]; then
	echo +memory >"$cg/cgroup.subtree_control"
	echo +memory >"$cg/churn/cgroup.subtree_control"
fi
start_memhog "$tmp/memhog" "$cg/a" 16

# --- the exporter, idle: its baseline
"$exporter" --backend "$backend" --listen 127.0.0.1:0 "$rel" >"$tmp/exporter.log" 2>&1 &
epid=$!
pids+=($epid)
port=$(exporter_port "$tmp/exporter.log" $epid)
if [ -z "$port" ]; then
	fail exporter_starts "$(cat "$tmp/exporter.log")"
	finish
fi
url=http://127.0.0.1:$port/metrics
om_accept='application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5'
info=$(curl -s "$url" | grep '^memcgstat_exporter_backend_info{')
[ "$backend" = auto ] || grep -q "backend=\"$backend\"" <<<"$info"
check exporter_backend $? "asked for $backend: $info"
echo "  soak: $info"
sleep 0.5

# one line of a process: "RSS_KiB FDS THREADS"
# one line of a process: "RSS_KiB FDS THREADS", without starting a process
# (in the TCG guest three of them a sample took the sampler past its second)
proc_sample() {
	local k v rss=0 thr=0 fds

	while read -r k v _; do
		case $k in
		VmRSS:) rss=$v ;;
		Threads:) thr=$v ;;
		esac
	done </proc/$1/status 2>/dev/null
	fds=(/proc/$1/fd/*)
	[ -e "${fds[0]}" ] || fds=()
	echo "$rss ${#fds[@]} $thr"
}
read -r rss0 fds0 thr0 < <(proc_sample $epid)

# --- churn: 20 cgroups (4 of them with a child) made, 3 with a memhog of
# 4 MiB, then all removed again, until stopped; prints the rounds done
(
	rounds=0 stop=0
	trap 'stop=1' TERM
	while [ $stop = 0 ]; do
		mkdir "$cg"/churn/x{1..20} "$cg"/churn/x{1..4}/y 2>/dev/null
		hogs=()
		for i in 1 2 3; do
			"$memhog" "$cg/churn/x$i/y" 4 >/dev/null 2>&1 &
			hogs+=($!)
		done
		sleep 0.2
		kill "${hogs[@]}" 2>/dev/null
		wait "${hogs[@]}" 2>/dev/null
		rmdir "$cg"/churn/x{1..4}/y "$cg"/churn/x{1..20} 2>/dev/null
		rounds=$((rounds + 1))
	done
	echo "$rounds" >"$tmp/churn.rounds"
) &
churn=$!

# --- the CLI: every 0.1 s, the tree as CSV, until stopped
"$cli" --backend "$backend" -i 0.1 -r -o csv "$rel" >"$tmp/cli.csv" 2>"$tmp/cli.err" &
cpid=$!
pids+=($cpid)

# --- the scrapers: every body of every reply checked
cat >"$tmp/body.awk" <<'EOF'
# a whole exposition on stdin, text (om=0) or OpenMetrics (om=1): exit 0
/^#/ {
	if ($0 ~ /^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* ./ || (om && $0 ~ /^# UNIT /))
		next
	if (om && $0 == "# EOF" && !eof) { eof = 1; next }
	bad = 1; exit
}
/^[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? ([0-9.e+-]+|\+Inf)$/ { last = $0; next }
{ bad = 1; exit }
END {
	if (bad || (om && !eof) || (!om && last !~ /^memcgstat_exporter_build_info\{/))
		exit 1
}
EOF
strict() {	# om|text file: a strict parse
	if [ "$1" = om ]; then
		"$py" -c '
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
list(text_string_to_metric_families(open(sys.argv[1]).read()))' "$2" 2>&1
	else
		promtool check metrics <"$2" 2>&1
	fi
}
curl_loop() {	# k: until the deadline, gzip in both formats; "curl N bad N parsed N"
	local k=$1 n=0 bad=0 parsed=0 c f om body=$tmp/curl$1.body
	while [ "$EPOCHSECONDS" -lt "$deadline" ]; do
		if [ $((n % 2)) = 0 ]; then
			f=om
			om=(-H "Accept: $om_accept")
		else
			f=text
			om=()
		fi
		n=$((n + 1))
		c=$(curl -s --compressed --max-time 10 "${om[@]}" -o "$body" -w '%{http_code}' "$url")
		if [ "$c" != 200 ] || ! awk -v om=$([ $f = om ] && echo 1 || echo 0) -f "$tmp/body.awk" "$body"; then
			bad=$((bad + 1))
			echo "curl $k: scrape $n ($f): HTTP $c, $(tail -c 200 "$body" 2>/dev/null)" >>"$tmp/curl.bad"
			continue
		fi
		if [ $((n % 20)) -lt 2 ]; then
			parsed=$((parsed + 1))
			strict $f "$body" >"$tmp/strict$k" ||
				{ bad=$((bad + 1)); echo "curl $k: scrape $n ($f): $(head -3 "$tmp/strict$k")" >>"$tmp/curl.bad"; }
		fi
	done
	echo "curl $n bad $bad parsed $parsed"
}

start=$EPOCHSECONDS
deadline=$((start + secs))
wrk -t 1 -c $((nscr - ncurl - nwrk)) -d "${secs}s" --timeout 10s -s "$here/soak.lua" "$url" -- text >"$tmp/wrk.text" 2>&1 &
wrk1=$!
wrk -t 1 -c $nwrk -d "${secs}s" --timeout 10s -H "Accept: $om_accept" -H 'Connection: close' \
	-s "$here/soak.lua" "$url" -- om >"$tmp/wrk.om" 2>&1 &
wrk2=$!
loops=()
for k in $(seq "$ncurl"); do
	curl_loop $k >"$tmp/curl$k.out" 2>&1 &
	loops+=($!)
done

# --- the sampler: once a second, "SECOND RSS_KiB FDS THREADS" of each
# SECOND is the second of the run: a sample late for its second (a busy
# guest) skips to the next one ahead rather than running past the load
s=1 logged=0
while [ $s -le "$secs" ]; do
	while [ "$EPOCHSECONDS" -lt $((start + s)) ]; do sleep 0.05; done
	echo "$s $(proc_sample $epid)" >>"$tmp/exporter.samples"
	echo "$s $(proc_sample $cpid)" >>"$tmp/cli.samples"
	# the course of it in the log: every 10th second
	[ $((s / 10)) -gt $logged ] && logged=$((s / 10)) && echo "  soak: ${s}s: exporter RSS/fds/threads $(tail -1 "$tmp/exporter.samples" |
		cut -d' ' -f2- | tr ' ' /), cli $(tail -1 "$tmp/cli.samples" | cut -d' ' -f2- | tr ' ' /)"
	s=$((EPOCHSECONDS - start + 1))
done

kill -0 $cpid 2>/dev/null
cli_alive=$?
kill -TERM $cpid 2>/dev/null
wait $cpid 2>/dev/null
kill -TERM $churn
wait $churn
churn=
wait $wrk1 $wrk2 "${loops[@]}"
kill -0 $epid 2>/dev/null
exp_alive=$?

# --- the exporter: every scrape whole, no read error
last=$(curl -s "$url")
reads=$(sed -n 's/^memcgstat_exporter_reads_total //p' <<<"$last")
rerrs=$(sed -n 's/^memcgstat_exporter_read_errors_total //p' <<<"$last")
read -r _ _ w1 _ w1bad _ w1e1 w1e2 w1e3 w1e4 w1e5 _ w1why < <(grep '^soak: ' "$tmp/wrk.text")
read -r _ _ w2 _ w2bad _ w2e1 w2e2 w2e3 w2e4 w2e5 _ w2why < <(grep '^soak: ' "$tmp/wrk.om")
cn=0 cbad=0 cparsed=0
for k in $(seq "$ncurl"); do
	read -r _ n _ b _ p <"$tmp/curl$k.out"
	cn=$((cn + ${n:-0})) cbad=$((cbad + ${b:-1})) cparsed=$((cparsed + ${p:-0}))
done
w1errs=$((${w1e1:-1} + ${w1e2:-1} + ${w1e3:-1} + ${w1e4:-1} + ${w1e5:-1}))
w2errs=$((${w2e1:-1} + ${w2e2:-1} + ${w2e3:-1} + ${w2e4:-1} + ${w2e5:-1}))
scrapes=$((${w1:-0} + ${w2:-0} + cn))
failures=$((${w1bad:-1} + w1errs + ${w2bad:-1} + w2errs + cbad))
rounds=$(cat "$tmp/churn.rounds" 2>/dev/null)
# a scrape rate the 2 shared cores give easily: 10 a second (SOAK_RATE)
[ $exp_alive = 0 ] && [ $failures = 0 ] && [ "${rerrs:-1}" = 0 ] && [ $scrapes -ge $((secs * rate)) ] &&
	[ "${rounds:-0}" -gt 0 ]
check exporter_scrapes_complete $? "$failures of $scrapes scrapes failed, read_errors_total '$rerrs'," \
	"alive $((!exp_alive)), churn rounds '$rounds'" \
	"wrk text: $(tail -1 "$tmp/wrk.text")" "wrk om: $(tail -1 "$tmp/wrk.om")" \
	"$(head -5 "$tmp/curl.bad" 2>/dev/null)" "exporter log: $(tail -3 "$tmp/exporter.log")"
echo "  soak: ${secs}s, $scrapes scrapes ($w1 text keep-alive, $w2 OpenMetrics one connection each," \
	"$cn curl gzip, $cparsed of those parsed strictly), $failures failed; $reads reads," \
	"${rerrs:-?} read errors; $rounds churn rounds of 24 cgroups"

# rss_bounded NAME SAMPLES: the warm-up left out, first third against last
rss_bounded() {
	local name=$1 f=$2 r
	r=$(awk -v w="$warmup" -v slack="$slack" '
		$1 > w { rss[n++] = $2 }
		END {
			if (n < 3) { print "too few samples"; exit 1 }
			t = int(n / 3)
			for (i = 0; i < t; i++) {
				a += rss[i]; b += rss[n - t + i]
				if (rss[i] > ma) ma = rss[i]
				if (rss[n - t + i] > mb) mb = rss[n - t + i]
			}
			for (i = 0; i < n; i++) if (rss[i] > max) max = rss[i]
			a /= t; b /= t
			printf "RSS %d KiB after the warm-up, %d at the end, %d at most;", rss[0], rss[n - 1], max
			printf " mean of the first third %.0f, of the last %.0f (%+.0f KiB);", a, b, b - a
			printf " largest %d and %d (%+d KiB); bound +%d KiB\n", ma, mb, mb - ma, slack
			exit !(b - a <= slack && mb - ma <= slack)
		}' "$f")
	check "$name" $? "$r"
	echo "  soak: $name: $r"
}
rss_bounded exporter_rss_bounded "$tmp/exporter.samples"

# fds: back to the baseline once the connections are closed
for i in $(seq 50); do
	read -r rss1 fds1 thr1 < <(proc_sample $epid)
	[ "$fds1" = "$fds0" ] && break
	sleep 0.1
done
fmax=$(awk '$3 > m { m = $3 } END { print m + 0 }' "$tmp/exporter.samples")
[ "$fds1" = "$fds0" ] && [ "$fmax" -le $((fds0 + 80)) ]
check exporter_fds_back_to_baseline $? "fds $fds0 before the load, $fds1 after it, $fmax at most during it" \
	"(bound: $fds0 + 80)"
tset=$(awk '{ print $4 }' "$tmp/exporter.samples" | sort -u | tr '\n' ' ')
[ "$tset" = "$thr0 " ] && [ "$thr1" = "$thr0" ]
check exporter_threads_flat $? "threads $thr0 before the load, seen during it: $tset, after: $thr1"
echo "  soak: exporter: fds $fds0 idle, $fmax at most under load, $fds1 after; threads $thr0, during: $tset;" \
	"RSS $rss0 KiB idle before, $rss1 after"

kill -TERM $epid
wait $epid
erc=$?
check exporter_sigterm_exit_0 $erc "exit $erc after ${secs}s: $(tail -3 "$tmp/exporter.log")"

# --- the CLI: every line whole, as many samples as the interval allows
samples=$(awk -F, 'NR > 1 { print $1 }' "$tmp/cli.csv" | uniq | wc -l)
bad_lines=$(awk -F, -v rel="$rel" '
	NR == 1 { nf = NF; next }
	{ ok = NF == nf && $1 ~ /^[0-9]+\.[0-9]+$/ && index($2, rel) == 1 && $3 ~ /^[0-9]+$/
	  for (i = 4; ok && i <= NF; i++) ok = $i ~ /^([0-9]+(\.[0-9]+)?|\+Inf|)$/
	  if (!ok) print NR ": " substr($0, 1, 160) }' "$tmp/cli.csv")
# a SIGTERM may cut the last sample: a last line without its newline
if [ -n "$(tail -c 1 "$tmp/cli.csv")" ]; then
	bad_lines=$(grep -v "^$(wc -l <"$tmp/cli.csv" | awk '{ print $1 + 1 }'): " <<<"$bad_lines")
fi
lines=$(wc -l <"$tmp/cli.csv")
[ $cli_alive = 0 ] && [ ! -s "$tmp/cli.err" ] && [ -z "$bad_lines" ] && [ "$samples" -ge $((secs * 5)) ]
check cli_samples_complete $? "alive at the end $((!cli_alive)), $samples samples in ${secs}s (want >= $((secs * 5)))," \
	"stderr: $(head -3 "$tmp/cli.err")" "$(head -5 <<<"$bad_lines")"
echo "  soak: cli: $samples samples, $lines lines, $(grep -c . <<<"$bad_lines") incomplete"
rss_bounded cli_rss_bounded "$tmp/cli.samples"
r=$(awk -v w="$warmup" '
	$1 > w { f[n++] = $3 }
	END {
		t = int(n / 3); la = lb = 1e9
		for (i = 0; i < t; i++) {
			if (f[i] < la) la = f[i]
			if (f[n - t + i] < lb) lb = f[n - t + i]
		}
		for (i = 0; i < n; i++) if (f[i] > max) max = f[i]
		printf "fds: least of the first third %d, of the last %d, most %d\n", la, lb, max
		exit !(la == lb && max <= la + 8)
	}' "$tmp/cli.samples")
check cli_fds_flat $? "$r"
echo "  soak: cli: $r"
# (0: a sample taken as the CLI exited, its task gone)
tset=$(awk '$4 > 0 { print $4 }' "$tmp/cli.samples" | sort -u | tr '\n' ' ')
[ "$tset" = "1 " ]
check cli_threads_flat $? "threads seen: $tset"
finish
