#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# memcgstat-exporter --compat cadvisor on real cgroups holding real memory:
# a Kubernetes-like tree in both kubelet drivers' layouts (systemd:
# kubepods.slice/kubepods-burstable.slice/...-pod<UID>.slice/
# cri-containerd-<ID>.scope; cgroupfs: kubepods/burstable/pod<UID>/<ID>)
# under a test cgroup. Checks the pod_uid and container_id labels, the
# limits set and the failcnt and OOM kill caused (exact, against the
# cgroup's own files), every cAdvisor value against memcgstat's own family
# of the same cgroup in the same scrape, the families left out on this
# hierarchy; then a real Prometheus scraping the exporter evaluates rules
# and dashboard queries written against cAdvisor's names.
# Prints "#N cadvisor/NAME:OK|FAIL|SKIP (why)".
#
#   cadvisor.sh EXPORTER MEMHOG
set -uo pipefail

bin=${1:?usage: cadvisor.sh EXPORTER MEMHOG}
memhog=${2:?usage: cadvisor.sh EXPORTER MEMHOG}
top=$(cd "$(dirname "$0")/../.." && pwd)
py=/usr/bin/python3
SUITE=cadvisor
. "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d /tmp/memcgstat-cadvisor.XXXXXX)
pids=()
mnt=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/mounts)
if [ -n "$mnt" ]; then ver=1; else ver=2 mnt=/sys/fs/cgroup; fi
rel=/cadv-$$
base=$mnt$rel
cleanup() {
	kill "${pids[@]}" 2>/dev/null
	wait 2>/dev/null
	rm_cgroups "$base"
	rm -rf "$tmp"
}
trap cleanup EXIT

uid=0c6f1a2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b
cid_sd=7f3e9c0d2a1b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d
cid_fs=1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f80
pod_sd=kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${uid//-/_}.slice
ctr_sd=$pod_sd/cri-containerd-$cid_sd.scope
conmon_sd=$pod_sd/crio-conmon-$cid_sd.scope	# CRI-O's monitor beside a container
pod_fs=kubepods/burstable/pod$uid
ctr_fs=$pod_fs/$cid_fs
oomc=$pod_fs/oomer

mkdirs() {
	local d p

	for d in "$@"; do
		p=
		for c in ${d//\// }; do
			p+=/$c
			mkdir -p "$base$p" || return 1
			[ $ver = 2 ] && [ "$p" != "/${d}" ] &&
				echo +memory >"$base$p/cgroup.subtree_control" 2>/dev/null
		done
	done
	[ $ver = 2 ] && echo +memory >"$mnt/cgroup.subtree_control" 2>/dev/null
	return 0
}
expect compat_unknown 2 "--compat: unknown 'heapster' \(cadvisor\)" -- --compat heapster --once \
	--textfile "$tmp/x.prom"
expect compat_local 2 "no --local or --numa" -- --compat cadvisor --local --once --textfile "$tmp/x.prom"
if ! mkdir "$base" 2>/dev/null; then
	skip setup "cannot make a cgroup at $mnt"
	finish
fi
[ $ver = 2 ] && echo +memory >"$base/cgroup.subtree_control"
mkdirs "$ctr_sd" "$conmon_sd" "$ctr_fs" "$oomc"
check tree $? "cannot make the Kubernetes tree under $base"

# limits to read back exactly; the oomer's 4 MiB, which an 8 MiB memhog hits
lim=104857600 soft=52428800 swl=209715200
if [ $ver = 1 ]; then
	echo $lim >"$base/$ctr_fs/memory.limit_in_bytes"
	echo $soft >"$base/$ctr_fs/memory.soft_limit_in_bytes"
	echo $swl >"$base/$ctr_fs/memory.memsw.limit_in_bytes" 2>/dev/null || swl=
	echo 4194304 >"$base/$oomc/memory.limit_in_bytes"
else
	echo $lim >"$base/$ctr_fs/memory.max"
	echo $soft >"$base/$ctr_fs/memory.min"
	echo $((swl - lim)) >"$base/$ctr_fs/memory.swap.max" 2>/dev/null && swl=$((swl - lim)) || swl=
	echo 4194304 >"$base/$oomc/memory.max"
fi
start_memhog "$tmp/hog-sd" "$base/$ctr_sd" 16 &&
	start_memhog "$tmp/hog-fs" "$base/$ctr_fs" 8
check memhogs $? "memhog did not start: $(cat "$tmp"/hog-* 2>/dev/null)"
# over its limit: reclaimed against (failcnt), killed without swap (bash's
# "Killed" for it kept off stderr)
exec 3>&2 2>/dev/null
"$memhog" "$base/$oomc" 8 >"$tmp/hog-oom" 2>&1 &
oompid=$!
pids+=($oompid)
for _ in $(seq 50); do
	kill -0 $oompid 2>/dev/null || break
	grep -qs ready "$tmp/hog-oom" && break
	sleep 0.1
done
kill -0 $oompid 2>/dev/null || wait $oompid
exec 2>&3 3>&-

scrape=$tmp/scrape.prom
"$bin" --compat cadvisor --textfile "$scrape" --once "$rel" 2>"$tmp/once.err"
check textfile_once $? "$(cat "$tmp/once.err")"

# the files' own values, read after the scrape (nothing moves them now)
if [ $ver = 1 ]; then
	failcnt=$(cat "$base/$oomc/memory.failcnt")
	oomk=$(awk '$1 == "oom_kill" { print $2 }' "$base/$oomc/memory.oom_control")
else
	failcnt=
	oomk=$(awk '$1 == "oom_kill" { print $2 }' "$base/$oomc/memory.events.local")
fi

# sample NAME ID [LABELS]: the value of NAME{id="ID"...}, the labels after id
sample() {
	"$py" - "$scrape" "$1" "$2" "${3:-}" <<'PY'
import re, sys
name, id_, extra = sys.argv[2], sys.argv[3], sys.argv[4]
for line in open(sys.argv[1]):
    m = re.match(r'^(\w+)\{id="([^"]*)"(.*)\} (\S+)$', line)
    if m and m.group(1) == name and m.group(2) == id_ and (not extra or extra in m.group(3)):
        print(m.group(4)); break
PY
}

labels=$(grep "^container_memory_rss{id=\"$rel/$ctr_sd\"" "$scrape")
[ "$labels" != "${labels/pod_uid=\"$uid\",container_id=\"$cid_sd\"}" ]
check labels_systemd $? "want pod_uid=$uid container_id=$cid_sd: $labels"
labels=$(grep "^container_memory_rss{id=\"$rel/$ctr_fs\"" "$scrape")
[ "$labels" != "${labels/pod_uid=\"$uid\",container_id=\"$cid_fs\"}" ]
check labels_cgroupfs $? "want pod_uid=$uid container_id=$cid_fs: $labels"
labels=$(grep "^container_memory_rss{id=\"$rel/$pod_sd\"" "$scrape")
[[ "$labels" == *"pod_uid=\"$uid\"}"* ]]
check labels_pod $? "a pod's cgroup: pod_uid alone: $labels"
labels=$(grep -c "^container_memory_rss{id=\"$rel/kubepods/burstable\"}" "$scrape")
[ "$labels" = 1 ]
check labels_qos $? "a QoS cgroup has no pod_uid nor container_id"
labels=$(grep "^container_memory_rss{id=\"$rel/$conmon_sd\"" "$scrape")
[[ "$labels" == *"pod_uid=\"$uid\"}"* ]]
check labels_conmon $? "CRI-O's conmon scope: pod_uid alone, not its container's container_id: $labels"

v=$(sample container_spec_memory_limit_bytes "$rel/$ctr_fs")
[ "$v" = $lim ]
check spec_limit $? "container_spec_memory_limit_bytes '$v', set $lim"
v=$(sample container_spec_memory_reservation_limit_bytes "$rel/$ctr_fs")
[ "$v" = $soft ]
check spec_reservation $? "container_spec_memory_reservation_limit_bytes '$v', set $soft"
if [ -n "$swl" ]; then
	v=$(sample container_spec_memory_swap_limit_bytes "$rel/$ctr_fs")
	[ "$v" = $swl ]
	check spec_swap_limit $? "container_spec_memory_swap_limit_bytes '$v', set $swl"
else
	skip spec_swap_limit "no swap accounting"
fi
v=$(sample container_spec_memory_limit_bytes "$rel/$ctr_sd")
[ "$v" = 0 ]
check spec_unlimited $? "no limit: cAdvisor's 0, got '$v'"
"$bin" --compat cadvisor --textfile "$tmp/root.prom" --once --max-depth 0 / 2>"$tmp/root.err"
n=$(grep -c '^container_spec_memory_[a-z_]*{id="/"}' "$tmp/root.prom")
[ "$n" = 0 ] && grep -q '^container_memory_rss{id="/"} [0-9]' "$tmp/root.prom"
check spec_no_root $? "the root's spec is the machine's: $n series; $(cat "$tmp/root.err")"
# v2: cAdvisor makes the root's usage up (anon + file), and so its working set
n=$(grep -cE '^container_memory_(usage|working_set|max_usage)_bytes\{id="/"\}|^container_memory_swap\{id="/"\}' \
	"$tmp/root.prom")
want=0
[ $ver = 1 ] && want=4
[ "$n" = $want ]
check root_usage_v$ver $? "$n of the root's usage, working set, peak and swap, want $want"

v=$(sample container_memory_rss "$rel/$ctr_sd")
[ -n "$v" ] && [ "$v" -ge $((16 << 20)) ]
check rss_memhog $? "container_memory_rss '$v' < 16 MiB of memhog"
if [ $ver = 1 ]; then
	v=$(sample container_memory_failcnt "$rel/$oomc")
	[ -n "$failcnt" ] && [ "$failcnt" -gt 0 ] && [ "$v" = "$failcnt" ]
	check failcnt $? "container_memory_failcnt '$v', memory.failcnt '$failcnt'"
fi
v=$(sample container_oom_events_total "$rel/$oomc")
if [ "${oomk:-0}" -gt 0 ]; then
	[ "$v" = "$oomk" ]
	check oom_events $? "container_oom_events_total '$v', the cgroup's oom_kill '$oomk'"
else
	skip oom_events "memhog over its limit was not killed (swap?)"
fi

# every cAdvisor series against memcgstat's family of the same cgroup
pairs="container_memory_usage_bytes memcgstat_usage_bytes
container_memory_working_set_bytes memcgstat_working_set_bytes
container_memory_rss memcgstat_anon_bytes
container_memory_cache memcgstat_file_bytes
container_memory_mapped_file memcgstat_file_mapped_bytes
container_memory_max_usage_bytes memcgstat_memory_peak_bytes
container_memory_total_active_file_bytes memcgstat_active_file_bytes
container_memory_total_inactive_file_bytes memcgstat_inactive_file_bytes
container_spec_memory_limit_bytes memcgstat_memory_max_bytes"
if [ $ver = 1 ]; then
	pairs+="
container_memory_swap memcgstat_swap_bytes
container_memory_kernel_usage memcgstat_kernel_bytes
container_memory_failcnt memcgstat_memory_failcnt_total
container_oom_events_total memcgstat_events_oom_kill_total
container_spec_memory_reservation_limit_bytes memcgstat_memory_soft_limit_bytes
container_spec_memory_swap_limit_bytes memcgstat_memsw_max_bytes"
else
	pairs+="
container_memory_swap memcgstat_swap_current_bytes
container_oom_events_total memcgstat_events_local_oom_kill_total
container_spec_memory_reservation_limit_bytes memcgstat_memory_min_bytes
container_spec_memory_swap_limit_bytes memcgstat_swap_max_bytes"
fi
msg=$("$py" - "$scrape" "$pairs" <<'PY'
import re, sys
cad, own = {}, {}
for line in open(sys.argv[1]):
    m = re.match(r'^(container_\w+)\{id="([^"]*)"[^}]*\} (\S+)$', line)
    if m:
        cad[(m.group(1), m.group(2))] = m.group(3)
    m = re.match(r'^(memcgstat_\w+)\{cgroup="([^"]*)"\} (\S+)$', line)
    if m:
        own[(m.group(1), m.group(2))] = m.group(3)
bad, n = [], 0
for p in sys.argv[2].splitlines():
    c, o = p.split()
    keys = [k for k in cad if k[0] == c]
    if not keys:
        bad.append("no " + c)
    for k in keys:
        want = own.get((o, k[1]))
        if want == "+Inf" or (want and int(want) > 1 << 62):
            want = "0"
        n += 1
        if cad[k] != want:
            bad.append("%s{id=%s} %s, %s %s" % (c, k[1], cad[k], o, want))
print("; ".join(bad[:5]) if bad else "%d series" % n)
sys.exit(1 if bad else 0)
PY
)
check equals_own_families $? "$msg"
echo "  $msg equal to memcgstat's own"

if [ $ver = 2 ]; then
	# both scopes memory.stat's (hierarchical) pgfault, as cAdvisor's
	own=$(grep "^memcgstat_pgfault_total{cgroup=\"$rel/$ctr_sd\"}" "$scrape" | cut -d' ' -f2)
	a=$(sample container_memory_failures_total "$rel/$ctr_sd" 'failure_type="pgfault",scope="container"')
	b=$(sample container_memory_failures_total "$rel/$ctr_sd" 'failure_type="pgfault",scope="hierarchy"')
	[ -n "$own" ] && [ "$a" = "$own" ] && [ "$b" = "$own" ]
	check failures_v2 $? "container '$a', hierarchy '$b', memcgstat_pgfault_total '$own'"
	own=$(grep "^memcgstat_pressure_full_microseconds_total{cgroup=\"$rel/$ctr_sd\"}" "$scrape" |
	      cut -d' ' -f2)
	a=$(sample container_pressure_memory_stalled_seconds_total "$rel/$ctr_sd")
	[ -n "$own" ] && [ "$a" = "$("$py" -c "print('%.6f' % ($own / 1e6))")" ]
	check pressure_v2 $? "stalled '$a' s, memcgstat_pressure_full_microseconds_total '$own'"
fi

# what this hierarchy has not the way cAdvisor computes it
if [ $ver = 1 ]; then
	gone="container_memory_failures_total container_pressure_memory_stalled_seconds_total container_pressure_memory_waiting_seconds_total"
else
	gone="container_memory_kernel_usage container_memory_failcnt"
fi
bad=
for f in $gone; do grep -q "^$f{" "$scrape" && bad+="$f "; done
[ -z "$bad" ]
check left_out_v$ver $? "served, though not as cAdvisor computes them on v$ver: $bad"
if command -v promtool >/dev/null; then
	# cAdvisor's families alone: the lint's naming advice on memcgstat's
	# own (memcgstat_pressure_some_microseconds_total) is not theirs
	msg=$(grep -E '^(# (HELP|TYPE) )?container_' "$scrape" | promtool check metrics 2>&1 | grep -v "counter metrics should have \"_total\" suffix\|non-histogram and non-summary metrics should not have \"_count\" suffix")
	[ -z "$msg" ]
	check promtool_metrics $? "$msg"
fi

"$bin" --compat cadvisor --listen 127.0.0.1:0 "$rel" >"$tmp/exporter.log" 2>&1 &
pids+=($!)
eport=$(exporter_port "$tmp/exporter.log" $!)

# OpenMetrics, as Prometheus asks for it: every family typed and with its
# help (container_memory_failcnt, a counter without _total, "unknown" as
# client_golang serves it; before, its HELP and TYPE named a family
# container_memory_f, and its samples came untyped, without help)
msg=$(curl -s -H 'Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5' \
	"http://127.0.0.1:$eport/metrics" | "$py" -c '
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
fams = list(text_string_to_metric_families(sys.stdin.read()))
bad = [f"{f.name} ({f.type}, {len(f.samples)} samples)" for f in fams
       if not f.documentation or f.type not in ("gauge", "counter", "info", "unknown")]
fc = [f.type for f in fams if f.name == "container_memory_failcnt"]
print(" ".join(bad) if bad or len(fams) < 10 or fc not in ([], ["unknown"]) else "",
      len(fams), "families; container_memory_failcnt:", fc)' 2>&1)
[ -n "$eport" ] && [[ "$msg" == " "* ]] && [[ "$msg" != *"failcnt: []"* || $ver = 2 ]]
check openmetrics_families $? "$msg; $(cat "$tmp/exporter.log")"

if ! command -v prometheus >/dev/null; then
	skip prometheus_rules "no prometheus binary"
	skip prometheus_queries "no prometheus binary"
	finish
fi
# as a kubernetes-mixin user would have them, on cAdvisor's names: its
# recording rules by pod (here pod_uid: no kubelet to add pod and
# namespace), and alerts on the limit and on OOM kills
cat >"$tmp/cadvisor.rules.yml" <<'EOF'
groups:
  - name: k8s.rules.container_memory
    rules:
      - record: pod_uid_container:container_memory_working_set_bytes
        expr: container_memory_working_set_bytes{job="cadvisor", container_id!=""}
      - record: pod_uid_container:container_memory_rss
        expr: container_memory_rss{job="cadvisor", container_id!=""}
      - record: pod_uid_container:container_memory_cache
        expr: container_memory_cache{job="cadvisor", container_id!=""}
      - record: pod_uid_container:container_memory_swap
        expr: container_memory_swap{job="cadvisor", container_id!=""}
      - record: pod_uid:container_memory_working_set_bytes:sum
        expr: sum by (pod_uid) (container_memory_working_set_bytes{job="cadvisor", container_id!=""})
  - name: kubernetes-resources
    rules:
      - alert: ContainerMemoryNearLimit
        expr: |
          container_memory_working_set_bytes{job="cadvisor", container_id!=""}
            / (container_spec_memory_limit_bytes{job="cadvisor", container_id!=""} > 0) > 0.95
        for: 15m
      - alert: ContainerOOMKilled
        expr: increase(container_oom_events_total{job="cadvisor"}[5m]) > 0
EOF
cat >"$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - cadvisor.rules.yml
scrape_configs:
  - job_name: cadvisor
    static_configs:
      - targets: ['127.0.0.1:$eport']
EOF
start_prometheus
up=
for _ in $(seq 60); do
	up=$(promq 'up{job="cadvisor"}')
	[ "$up" = 1 ] && break
	sleep 0.5
done
sleep 3	# evaluations after scrapes
health=$(curl -s "$api/rules" | "$py" -c '
import json, sys
g = json.load(sys.stdin)["data"]["groups"]
rules = [r for x in g for r in x["rules"]]
bad = [r["name"] + ": " + r.get("lastError", "") for r in rules if r["health"] != "ok"]
print(len(rules), "; ".join(bad) if bad else "ok")' 2>/dev/null)
[ "$up" = 1 ] && [ "$health" = "7 ok" ]
check prometheus_rules $? "up '$up', rules '$health'; $(tail -3 "$tmp/prometheus.log")"

# the dashboard queries of kubernetes-mixin's pod and container memory
# panels, on pod_uid: each must give a value here, and the recorded ones
# what the scrape says
bad=
while IFS='|' read -r q want; do
	v=$(promq "$q")
	if [ -z "$v" ]; then
		bad+="$q: no value; "
	elif [ "$want" = pos ] && ! "$py" -c "import sys; sys.exit(float('$v') <= 0)"; then
		bad+="$q: $v, want > 0; "
	elif [ "$want" != pos ] && [ "$want" != any ] && [ "$v" != "$want" ]; then
		bad+="$q: $v, want $want; "
	fi
done <<EOF
sum(container_memory_working_set_bytes{job="cadvisor", pod_uid="$uid", container_id="$cid_sd"}) by (container_id)|pos
sum(container_memory_rss{job="cadvisor", pod_uid="$uid", container_id="$cid_sd"}) by (container_id)|pos
sum(container_memory_cache{job="cadvisor", pod_uid="$uid", container_id="$cid_fs"}) by (container_id)|any
sum(container_memory_swap{job="cadvisor", pod_uid="$uid", container_id="$cid_fs"}) by (container_id)|any
sum(container_memory_working_set_bytes{job="cadvisor", container_id="$cid_fs"}) / sum(container_spec_memory_limit_bytes{job="cadvisor", container_id="$cid_fs"})|pos
max(container_spec_memory_limit_bytes{job="cadvisor", container_id="$cid_fs"})|$lim
count(pod_uid_container:container_memory_working_set_bytes{pod_uid="$uid"})|3
EOF
[ -z "$bad" ]
check prometheus_queries $? "$bad"
finish
