# SPDX-License-Identifier: GPL-2.0
# Sourced by every shell suite: their one way to report and to exit.
#
#   SUITE=name; . "$top/selftests/lib.sh"
#   ok NAME                    passed
#   fail NAME [DETAIL...]      failed; each DETAIL on a line of its own below
#   skip NAME WHY              could not run, and why (never a pass)
#   check NAME STATUS [DETAIL...]   ok if STATUS is 0, else fail
#   expect NAME EXIT PATTERN -- ARGS...
#                              "$bin" ARGS exits EXIT and prints PATTERN
#                              (grep -E) on stdout or stderr, within 10 s
#   rm_cgroups DIR             remove the cgroup DIR and all below it, if there
#                              (paths longer than PATH_MAX too)
#   DEEP_NAME, DEEP_LEVELS     the deep fixture: a chain of DEEP_LEVELS (40)
#                              cgroups named DEEP_NAME (250 bytes), each in
#                              the one before: paths past 10,000 bytes
#   mk_deep DIR                make that chain below the cgroup DIR, each
#                              level from the one above (no path is too
#                              long for mkdir), on v2 with the memory
#                              controller in each: 0, else 1
#   deep_path PREFIX [N]       print PREFIX and N (DEEP_LEVELS) levels of it
#   deep_do DIR N CMD...       run CMD in level N of the chain below DIR,
#                              reached by cd level by level
#   start_memhog LOG CGROUP MIB  "$memhog" in CGROUP with MIB MiB of anon,
#                              its output in LOG, its pid added to pids;
#                              waits for its "ready" (10 s at most): 0 once
#                              it is, else 1
#   as_nobody ARGS...          "$bin" ARGS as the user nobody (setpriv); not
#                              for "&": $! would be a subshell's
#   nobody_runs_bin            whether as_nobody can run "$bin": setpriv and
#                              the user nobody there, each directory on the
#                              way open to it
#   start_exporter NAME ARGS...  "$bin" (an exporter) on 127.0.0.1, a free
#                              port, logging to $tmp/NAME.log; sets epid
#                              (added to pids) and eport (empty: it did not
#                              start)
#   exporter_port LOG PID [ADDR]  print the port the exporter PID says in LOG
#                              it listens on at ADDR (default 127.0.0.1),
#                              once it does; nothing if it exits or 10 s pass
#   cadence SUFFIX FORMAT ARGS...  the schedule of "$bin" -v -r -i ARGS
#                              (-o FORMAT, json or csv): checks
#                              interval_skip_said$SUFFIX and
#                              interval_cadence$SUFFIX (see the function)
#   wait_lines FILE PATTERN COUNT [SECS]
#                              until FILE has COUNT lines matching PATTERN
#                              (grep), SECS (default 10) at most: 0, else 1
#   freeport                   print a TCP port that is free on 127.0.0.1
#   stop_pids                  kill every process of pids (the suite's in
#                              the background) and wait for them
#   prometheus_scrapes         write $tmp/prometheus.yml: a scrape every
#                              second (timeout 1 s) of the scrape_configs
#                              entries on stdin
#   start_prometheus           prometheus with $tmp/prometheus.yml on a free
#                              port, its data in $tmp/tsdb, logging to
#                              $tmp/prometheus.log; sets ppid_ (added to pids)
#                              and api (the URL of its HTTP API)
#   stop_prometheus            stop it and wait for it
#   promq QUERY                the value of the one result of QUERY on $api,
#                              or nothing
#   finish                     exit 1 if anything failed, else 0
#
# Each test prints one line, "#N SUITE/NAME:OK", ":FAIL" or ":SKIP (why)",
# which run-tests.sh counts; a suite that exits non-zero without a FAIL
# line, or reports nothing, fails there as a whole.

_t_n=0
_t_failed=0

ok() {
	_t_n=$((_t_n + 1))
	echo "#$_t_n $SUITE/$1:OK"
}

fail() {
	_t_n=$((_t_n + 1))
	_t_failed=1
	echo "#$_t_n $SUITE/$1:FAIL"
	shift
	[ $# -gt 0 ] && printf '  %s\n' "$@"
	return 0
}

wait_lines() {
	local i

	for i in $(seq $(( ${4:-10} * 50 ))); do
		[ "$(grep -c -- "$2" "$1")" -ge "$3" ] && return 0
		sleep 0.02
	done
	return 1
}

skip() {
	_t_n=$((_t_n + 1))
	echo "#$_t_n $SUITE/$1:SKIP ($2)"
}

check() {
	local name=$1 rc=$2

	shift 2
	if [ "$rc" = 0 ]; then ok "$name"; else fail "$name" "$@"; fi
}

expect() {
	local name=$1 want=$2 pat=$3 out rc

	shift 4
	out=$(timeout 10 "$bin" "$@" 2>&1)
	rc=$?
	[ "$rc" = "$want" ] && grep -qE -- "$pat" <<<"$out"
	check "$name" $? "exit $rc (want $want), output: $(head -c 400 <<<"$out")"
}

rm_cgroups() {	# cgroupfs takes rmdir only, deepest first
	[ -n "$1" ] && [ -d "$1" ] && find "$1" -depth -type d -exec rmdir {} \; 2>/dev/null
	# what find left: below PATH_MAX's reach (rmdir of a long path fails)
	[ -n "$1" ] && [ -d "$1" ] && (cd "$1" && _rm_below) && rmdir "$1" 2>/dev/null
	return 0
}

_rm_below() {	# the directories below ., by relative names
	local d

	for d in */; do
		[ -d "$d" ] || continue
		(cd "$d" && _rm_below)
		rmdir "$d" 2>/dev/null
	done
	return 0
}

DEEP_LEVELS=40
DEEP_NAME=$(printf 'D%.0s' $(seq 250))

mk_deep() {	# on cgroup v2 each level hands the memory controller down
	(cd "$1" && for _ in $(seq $DEEP_LEVELS); do
		if [ -f cgroup.subtree_control ]; then
			echo +memory >cgroup.subtree_control || exit 1
		fi
		mkdir "$DEEP_NAME" && cd "$DEEP_NAME" || exit 1
	done)
}

deep_path() {
	local p=$1 i

	for i in $(seq "${2:-$DEEP_LEVELS}"); do p=$p/$DEEP_NAME; done
	printf '%s\n' "$p"
}

deep_do() {
	local dir=$1 n=$2

	shift 2
	(cd "$dir" && for _ in $(seq "$n"); do cd "$DEEP_NAME" || exit 1; done && "$@")
}

start_memhog() {
	local log=$1 i

	"$memhog" "$2" "$3" >"$log" 2>&1 &
	pids+=($!)
	for i in $(seq 100); do
		grep -qs ready "$log" && return 0
		sleep 0.1
	done
	return 1
}

as_nobody() {
	setpriv --reuid=nobody --regid="$(id -g nobody 2>/dev/null)" --clear-groups "$bin" "$@"
}

nobody_runs_bin() {
	command -v setpriv >/dev/null && id nobody >/dev/null 2>&1 && as_nobody --version >/dev/null 2>&1
}

exporter_port() {
	local log=$1 pid=$2 addr=${3:-127.0.0.1} port i

	for i in $(seq 100); do
		port=$(sed -n "s/^memcgstat-exporter: listening on ${addr//./\\.}:\([0-9]*\)\$/\1/p" "$log")
		[ -n "$port" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "$port"
}

start_exporter() {
	local log=$tmp/$1.log
	shift
	"$bin" --listen 127.0.0.1:0 "$@" >"$log" 2>&1 &
	epid=$!
	pids+=($epid)
	eport=$(exporter_port "$log" $epid)
}

# (freeport and promq run "$py", the suite's python3)
freeport() {
	"$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

stop_pids() {
	kill "${pids[@]}" 2>/dev/null
	wait 2>/dev/null
}

prometheus_scrapes() {
	{
		printf 'global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n'
		cat
	} >"$tmp/prometheus.yml"
}

start_prometheus() {
	local port

	port=$(freeport)
	prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
		--web.listen-address=127.0.0.1:$port >"$tmp/prometheus.log" 2>&1 &
	ppid_=$!
	pids+=($ppid_)
	api=http://127.0.0.1:$port/api/v1
}

stop_prometheus() {
	kill $ppid_
	wait $ppid_ 2>/dev/null
}

promq() {
	curl -s --get "$api/query" --data-urlencode "query=$1" | "$py" -c '
import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if len(r) == 1 else "")' 2>/dev/null
}

# The schedule of -i: a read slower than the interval skips the ticks it
# overran, and -v says so with the time it took; then 11 samples at a few
# times the read time (4 times the slowest, 0.2 s at least): each within
# 40 % of an interval of its tick (the read time no longer adds up), the
# last 10 ticks after the first plus those skipped. ARGS end with the
# cgroup; a tree whose read takes a while.
cadence() {	# suffix, format (json or csv), args...
	local sfx=$1 fmt=$2 err took iv rc skipped py=python3 out
	shift 2
	[ -x /usr/bin/python3 ] && py=/usr/bin/python3
	out=$(mktemp /tmp/memcgstat-cadence.XXXXXX)
	err=$("$bin" -v -r -i 0.001 -c 3 -o "$fmt" "$@" 2>&1 >/dev/null)
	took=$(sed -n 's/^memcgstat: sample [12] took \([0-9.]*\) s, skipped [0-9]* ticks\{0,1\} of 0.001 s$/\1/p' <<<"$err")
	[ "$(wc -l <<<"$took")" = 2 ] && ! grep -q 'sample 3 took' <<<"$err"
	check "interval_skip_said$sfx" $? "$err"
	iv=$(printf '%s\n' 0.05 $took | sort -g | tail -1 |
	     awk '{ x = 4 * $1; printf "%.1f", x < 0.2 ? 0.2 : x + 0.05 }')
	err=$("$bin" -v -r -i "$iv" -c 11 -o "$fmt" "$@" 2>&1 >"$out")
	rc=$?
	skipped=$(sed -n 's/^memcgstat: sample [0-9]* took [0-9.]* s, skipped \([0-9]*\) ticks\{0,1\} .*/\1/p' <<<"$err" |
		  awk '{ n += $1 } END { print n + 0 }')
	"$py" -c 'import json, sys
path, fmt, iv, skipped = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
lines = list(open(path))
if fmt == "json":
    t = [json.loads(l)["time"] for l in lines]
else:
    t = sorted(set(float(l.split(",")[0]) for l in lines[1:]))
assert len(t) == 11, len(t)
d = [x - t[0] for x in t]
m = [round(x / iv) for x in d]
off = max(abs(x - k * iv) for x, k in zip(d, m))
print("  interval %g s, ticks %s, farthest from its tick %.3f s, %d skipped" % (iv, m, off, skipped))
assert off < 0.4 * iv, off
assert m[-1] == 10 + skipped, (m, skipped)
' "$out" "$fmt" "$iv" "$skipped" && [ $rc = 0 ]
	check "interval_cadence$sfx" $? "exit $rc, interval $iv" "stderr: $err"
	rm -f "$out"
}

finish() {
	exit $_t_failed
}
