#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run in the test VM (patched kernel, cgroup v2): memcgstat-exporter on the
# bpf backend. One scrape of each format passes promtool and the strict
# OpenMetrics parser, the values of a quiescent test cgroup equal its
# memory.stat and memory.current, and hostile cgroup names are a series
# each, escaped; then the same as an unprivileged user
# holding only CAP_BPF and CAP_PERFMON, as the systemd unit runs it: still
# the bpf backend, so CAP_SYS_ADMIN is not needed.
#
#   vm_exporter.sh BUILD_DIR
set -uo pipefail

out=${1:?usage: vm_exporter.sh BUILD_DIR}
bin=$out/tools/memcgstat-exporter
py=/usr/bin/python3
pids=()
SUITE=exporter-vm
. "$(dirname "$0")/../lib.sh"

mnt=/sys/fs/cgroup
t=$mnt/memcgstat-exp
cleanup() {
	kill "${pids[@]}" 2>/dev/null
	wait 2>/dev/null
	rm -f /tmp/memcgstat-exp-shm
	[ -d "$t/n" ] && rmdir "$t"/n/* "$t/n" 2>/dev/null
	rmdir "$t/a" "$t" 2>/dev/null
}
trap cleanup EXIT
[ -f $mnt/cgroup.controllers ] || { fail setup "no cgroup v2 at $mnt"; exit 1; }
mkdir -p "$t/a" && echo +memory >"$t/cgroup.subtree_control" || { fail setup "mkdir $t/a"; exit 1; }
# n/: the hostile names of every fixture (cli.sh, exporter.sh): a
# title-setting escape, a CR, a tab, the bytes ff fe and the eight
# characters \xff\xfe; labels[] as the exposition writes them (the man
# page's escape, then the exposition's \\ and \")
# (n's +memory: without it its children have no memory files, and no series)
mkdir "$t/n" && echo +memory >"$t/n/cgroup.subtree_control" || { fail setup "mkdir $t/n"; exit 1; }
for n in $'esc\e]0;PWNED\aX' $'cr\rZZZZ' $'tab\tT' $'\xff\xfe' '\xff\xfe'; do
	mkdir "$t/n/$n" || { fail setup "mkdir $t/n/..."; exit 1; }
done
labels=('esc\\x1b]0;PWNED\\x07X' 'cr\\x0dZZZZ' 'tab\\x09T' '\\xff\\xfe' '\\\\xff\\\\xfe')
# each hostile name's series once in FILE, and no control byte in it
hostile_once() {
	local l

	for l in "${labels[@]}"; do
		[ "$(grep -cF "memcgstat_anon_bytes{cgroup=\"/memcgstat-exp/n/$l\"} " "$1")" = 1 ] || return 1
	done
	! LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$1"
}

# 12 MiB of anon (memhog, idle in pause()), 4 MiB of shmem from an exited shell
"$out/selftests/memhog" "$t/a" 12 >/tmp/memhog.exp 2>&1 &
pids+=($!)
for i in $(seq 100); do grep -q ready /tmp/memhog.exp && break; sleep 0.1; done
sh -c "echo \$\$ >$t/a/cgroup.procs; head -c 4194304 /dev/zero >/tmp/memcgstat-exp-shm"

# memory.high written, memory.max left at "max" (+Inf exported)
echo 67108864 >"$t/a/memory.high"
STATS=anon,shmem,pgfault,usage,memory_high,memory_max,events_max,nr_descendants
stat_of() {
	case $1 in
	usage) cat "$t/a/memory.current" ;;
	memory_high|memory_max) sed 's/^max$/+Inf/' "$t/a/memory.${1#memory_}" ;;
	events_max) awk '$1 == "max" { print $2 }' "$t/a/memory.events" ;;
	nr_descendants) awk '$1 == "nr_descendants" { print $2 }' "$t/a/cgroup.stat" ;;
	*) awk -v k="$1" '$1 == k { print $2 }' "$t/a/memory.stat" ;;
	esac
}
compare() {	# body-file: prints mismatches
	local s name v want
	for s in ${STATS//,/ }; do
		case $s in
		pgfault|events_*) name=memcgstat_${s}_total ;;
		nr_*) name=memcgstat_$s ;;
		*) name=memcgstat_${s}_bytes ;;
		esac
		v=$(awk -v m="$name{cgroup=\"/memcgstat-exp/a\"}" '$1 == m { print $2 }' "$1")
		want=$(stat_of $s)
		[ -n "$v" ] && [ "$v" = "$want" ] || echo "$s: exported '$v', kernel files '$want'"
	done
}
om_accept='application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5'

# run NAME [PRIV-PREFIX...]: start the exporter, scrape both formats, check
run() {
	local name=$1 log=/tmp/exp-$1.log port pid i diffs lint om
	shift
	"$@" "$bin" --backend bpf --listen 127.0.0.1:0 -s $STATS /memcgstat-exp >"$log" 2>&1 &
	pid=$!
	pids+=($pid)
	for i in $(seq 100); do
		port=$(sed -n 's/^memcgstat-exporter: listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$log")
		[ -n "$port" ] && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	if [ -z "$port" ]; then
		fail "$name" "exporter did not start: $(cat "$log")"
		return
	fi
	for i in 1 2 3; do
		curl -s -o /tmp/exp-$name.txt "http://127.0.0.1:$port/metrics"
		diffs=$(compare /tmp/exp-$name.txt)
		[ -z "$diffs" ] && break
		sleep 0.3
	done
	curl -s -H "Accept: $om_accept" -o /tmp/exp-$name.om "http://127.0.0.1:$port/metrics"
	lint=$(promtool check metrics </tmp/exp-$name.txt 2>&1)
	om=$("$py" -c '
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
print(sum(len(f.samples) for f in text_string_to_metric_families(sys.stdin.read())))' </tmp/exp-$name.om 2>&1)
	kill -TERM $pid
	wait $pid
	rc=$?
	[ -z "$diffs" ] && [ -z "$lint" ] && [[ $om =~ ^[0-9]+$ ]] &&
		grep -q '^memcgstat_exporter_backend_info{backend="bpf",cgroup_version="2",reason=""} 1$' /tmp/exp-$name.txt &&
		[ "$(tail -1 /tmp/exp-$name.om)" = "# EOF" ] && [ $rc = 0 ] &&
		grep -qx '# TYPE memcgstat_events_max_total counter' /tmp/exp-$name.txt &&
		! grep -q '^memcgstat_max_total' /tmp/exp-$name.txt &&
		hostile_once /tmp/exp-$name.txt && hostile_once /tmp/exp-$name.om
	check "$name" $? "$diffs" "promtool: $lint" "openmetrics parser: $om" "exit $rc; $(cat "$log")" \
		"$(grep -E 'backend_info|exp/a"' /tmp/exp-$name.txt)"
	echo "  $(grep -E '^memcgstat_[a-z_]+\{cgroup="/memcgstat-exp/a"\}' /tmp/exp-$name.txt | tr '\n' ' ')"
}

run bpf_backend_equals_memory_stat
run caps_bpf_perfmon_only setpriv --reuid=65534 --regid=65534 --clear-groups \
	--inh-caps=-all,+bpf,+perfmon --ambient-caps=-all,+bpf,+perfmon --bounding-set=-all,+bpf,+perfmon

# On a kernel with Linux 7.0's kfuncs only, --numa takes the text backend
# (memory.numa_stat) and says why, --local is refused (v2's text has no local
# values), naming the kfunc it needs.
kf=$("$out/tools/memcgstat" -v --backend bpf -s anon /memcgstat-exp/a 2>&1 >/dev/null |
     sed -n 's/^memcgstat: kfuncs //p')
if [ "$kf" = linux-7.0 ]; then
	msg=$("$bin" -v --numa -s anon --textfile /tmp/exp-numa.prom --once /memcgstat-exp/a 2>&1)
	rc=$?
	msg2=$("$bin" --local -s anon --textfile /tmp/exp-local.prom --once /memcgstat-exp/a 2>&1)
	rc2=$?
	[ $rc = 0 ] && grep -qx "memcgstat-exporter: using the text backend: per-node values need memcgstat's kernel additions (kfunc bpf_memcgstat_node_page_state, kernel/patches): this kernel has Linux 7.0's memcg kfuncs only" <<<"$msg" &&
		grep -q '^memcgstat_anon_bytes{cgroup="/memcgstat-exp/a",node="1"} ' /tmp/exp-numa.prom &&
		[ $rc2 = 1 ] && [ "$msg2" = "memcgstat-exporter: local values need memcgstat's kernel additions (kfunc bpf_memcgstat_page_state_local, kernel/patches): this kernel has Linux 7.0's memcg kfuncs only; on cgroup v2 the text backend has no local values either (memory.stat has hierarchical values only)" ]
	check exporter_numa_text_local_refused_upstream $? "numa: exit $rc: $msg" "local: exit $rc2: $msg2"
	finish
fi

# --numa: one series per node of each node stat, a node label; per node
# equal to memory.numa_stat, the nodes summing to memory.stat. --local (the
# cgroup's own values, bpf only on v2): memcgstat_local_*, equal to the
# hierarchical ones for a leaf.
diffs=
for try in 1 2 3; do
	diffs=
	"$bin" --numa -s anon,file --textfile /tmp/exp-numa.prom --once /memcgstat-exp/a >/tmp/exp-numa.log 2>&1
	"$bin" --local -s anon,file --textfile /tmp/exp-local.prom --once /memcgstat-exp/a >/tmp/exp-local.log 2>&1
	for s in anon file; do
		sum=0
		for kv in $(awk -v k=$s '$1 == k { for (i = 2; i <= NF; i++) print $i }' "$t/a/memory.numa_stat"); do
			n=${kv%%=*}; n=${n#N}; want=${kv#*=}
			got=$(sed -n "s/^memcgstat_${s}_bytes{cgroup=\"\/memcgstat-exp\/a\",node=\"$n\"} //p" /tmp/exp-numa.prom)
			[ "$got" = "$want" ] || diffs+="$s node $n: '$got' vs numa_stat '$want'; "
			sum=$((sum + want))
		done
		total=$(awk -v k=$s '$1 == k { print $2 }' "$t/a/memory.stat")
		[ "$sum" = "$total" ] || diffs+="$s: nodes sum $sum, memory.stat $total; "
		got=$(sed -n "s/^memcgstat_local_${s}_bytes{cgroup=\"\/memcgstat-exp\/a\"} //p" /tmp/exp-local.prom)
		[ "$got" = "$total" ] || diffs+="$s local '$got' vs memory.stat of the leaf '$total'; "
	done
	[ -z "$diffs" ] && break
	sleep 0.2
done
[ -z "$diffs" ] && [ "$(grep -c '^memcgstat_anon_bytes{cgroup="/memcgstat-exp/a",node=' /tmp/exp-numa.prom)" -ge 2 ] &&
	promtool check metrics </tmp/exp-numa.prom >/dev/null 2>&1 &&
	promtool check metrics </tmp/exp-local.prom >/dev/null 2>&1
check exporter_numa_local $? "$diffs" "$(cat /tmp/exp-numa.log /tmp/exp-local.log)" "$(grep -v '^#' /tmp/exp-numa.prom | head -4)"

finish
