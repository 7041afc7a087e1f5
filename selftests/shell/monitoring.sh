#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# monitoring/: the Prometheus rules pass promtool's check and their unit
# tests; every metric the rules and the Grafana dashboard name is one the
# exporter exports (a stat of memcgstat --list-stats with its unit and
# suffix, an exporter self-metric, or a recording rule); a real Prometheus
# scraping a real exporter loads the rules (every group healthy after it
# evaluated them) and runs every dashboard query without an error.
# And on the hierarchy this runs on (cgroup v1 on the host, v1 and v2 in the
# VM's boots), every family a rule or a panel uses is one the exporter
# exports here, or one of its stand-ins below is, in the same expression.
# Prints "#N monitoring/NAME:OK|FAIL|SKIP (why)".
#
#   monitoring.sh BUILD_DIR [--families]
#
# --families: that last check alone (no promtool or prometheus needed: the
# VM's boots run it on the bpf backend and the text backend).
set -uo pipefail

out=${1:?usage: monitoring.sh BUILD_DIR [--families]}
only_families=${2:-}
top=$(cd "$(dirname "$0")/../.." && pwd)
mon=$top/monitoring
cli=$out/tools/memcgstat
exporter=$out/tools/memcgstat-exporter
py=/usr/bin/python3
SUITE=monitoring
. "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d /tmp/memcgstat-monitoring.XXXXXX)
pids=()
cleanup() {
	stop_pids
	rm -rf "$tmp"
}
trap cleanup EXIT

# Families one hierarchy has none of, and which stands for each there: the
# rules and the dashboard join them with "or" (monitoring/memcgstat.rules.yml
# says why). Both ways: a v2 host exports no memory.failcnt.
standins="memcgstat_events_max_total memcgstat_memory_failcnt_total
memcgstat_memory_high_bytes memcgstat_memory_soft_limit_bytes"

# Every rule's and panel's expression, one a line (the dashboard's with its
# variables set: every instance, the root cgroup).
exprs() {
	"$py" - "$mon/memcgstat.rules.yml" "$mon/memcgstat-dashboard.json" <<'PY'
import json, sys, yaml
for g in yaml.safe_load(open(sys.argv[1]))["groups"]:
    for r in g["rules"]:
        print(" ".join(r["expr"].split()))
for p in json.load(open(sys.argv[2]))["panels"]:
    for t in p["targets"]:
        print(t["expr"].replace("$instance", ".*").replace("$cgroup", "/"))
PY
}

# The families the exporter exports on this hierarchy, on each backend that
# runs here: a scrape of the root and a test cgroup under a limit, with a
# child; then each expression's families against it.
families_check() {
	local mnt ver fx be bes=text log epid eport scrape bad
	mnt=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/mounts)
	if [ -n "$mnt" ]; then ver=1; else ver=2 mnt=/sys/fs/cgroup; fi
	fx=$mnt/memcgstat-mon-$$
	if ! mkdir -p "$fx/c" 2>/dev/null; then
		skip "families_v$ver" "cannot make a cgroup at $mnt"
		return
	fi
	if [ $ver = 2 ]; then
		echo +memory >"$fx/cgroup.subtree_control"
		echo 104857600 >"$fx/memory.max"
	else
		echo 104857600 >"$fx/memory.limit_in_bytes"
	fi
	"$cli" --backend bpf -s anon / >/dev/null 2>&1 && bes="text bpf"
	for be in $bes; do
		log=$tmp/exporter-families-$be.log
		"$exporter" --backend $be --listen 127.0.0.1:0 --max-depth 2 / >"$log" 2>&1 &
		epid=$!
		pids+=($epid)
		eport=$(exporter_port "$log" $epid)
		scrape=$(curl -sf "http://127.0.0.1:$eport/metrics" 2>&1)
		kill $epid 2>/dev/null
		wait $epid 2>/dev/null
		if [ -z "$scrape" ] || ! grep -q "cgroup=\"/memcgstat-mon-$$/c\"" <<<"$scrape"; then
			fail "families_v${ver}_$be" "no scrape of the exporter (port '$eport'): $(tail -3 "$log")"
			continue
		fi
		printf '%s\n' "$scrape" >"$tmp/scrape-$be"
		bad=$(exprs | "$py" -c '
import re, sys
emitted = set(re.findall(r"^(memcgstat_[a-z0-9_]+)[{ ]", open(sys.argv[1]).read(), re.M))
alt = {}
for line in sys.argv[2].splitlines():
    a, b = line.split()
    alt.setdefault(a, set()).add(b)
    alt.setdefault(b, set()).add(a)
bad, n = [], 0
for e in sys.stdin.read().splitlines():
    used = set(re.findall(r"\bmemcgstat_[a-z0-9_]+", e))
    n += len(used)
    for f in sorted(used):
        if f in emitted or (alt.get(f, set()) & used & emitted):
            continue
        bad.append("%s (in %s)" % (f, e))
print("; ".join(bad) if n else "no families in the rules and the dashboard")
sys.exit(1 if bad or not n else 0)' "$tmp/scrape-$be" "$standins" 2>&1)
		check "families_v${ver}_$be" $? "not exported on cgroup v$ver by the $be backend, nor a stand-in: $bad"
	done
	rmdir "$fx/c" "$fx"
}

if [ "$only_families" = --families ]; then
	families_check
	finish
fi

if ! command -v promtool >/dev/null; then
	for t in rules_check rules_unit_tests names_exported prometheus_loads_rules dashboard_queries; do
		skip $t "no promtool (Debian package prometheus)"
	done
	finish
fi

msg=$(promtool check rules "$mon/memcgstat.rules.yml" 2>&1)
check rules_check $? "$msg"
nr_rules=$(sed -n 's/^ *SUCCESS: \([0-9]*\) rules found$/\1/p' <<<"$msg")
msg=$(cd "$mon" && promtool test rules memcgstat.rules.test.yml 2>&1)
check rules_unit_tests $? "$msg"

# The dashboard's queries, one per line, with its variables set: every
# instance, the root cgroup.
queries=$("$py" - "$mon/memcgstat-dashboard.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["panels"]:
    assert p["targets"], p["title"]
    for t in p["targets"]:
        print(t["expr"].replace("$instance", ".*").replace("$cgroup", "/"))
PY
)
[ -n "$queries" ]
check dashboard_json $? "no queries in the dashboard"

# Every metric name the rules and the dashboard use, against what the
# exporter can export: memcgstat_STAT[_UNIT][_total] for each known stat
# (memcgstat --list-stats -v: kind and unit), the exporter's own families,
# the recording rules' names.
known=$("$cli" --list-stats -v 2>/dev/null | awk 'NR > 1 {
	u = $3 == "-" ? "" : "_" $3
	print "memcgstat_" $1 u ($2 == "counter" ? "_total" : "") }')
selfm=$(grep -o 'memcgstat_exporter_[a-z_]*' "$top/tools/exporter_snapshot.c" | sort -u)
recorded=$(sed -n 's/^ *- record: //p' "$mon/memcgstat.rules.yml")
used=$( { grep -o 'memcgstat[_:][a-z0-9_:]*' "$mon/memcgstat.rules.yml" | grep -v '^memcgstat\.'
	  printf '%s\n' "$queries" | grep -o 'memcgstat[_:][a-z0-9_:]*'; } | sort -u)
missing=
for m in $used; do
	grep -qx -- "$m" <<<"$known"$'\n'"$selfm"$'\n'"$recorded" || missing+="$m "
done
[ -n "$known" ] && [ -z "$missing" ]
check names_exported $? "not exported by any stat: $missing"
families_check

if ! command -v prometheus >/dev/null; then
	skip prometheus_loads_rules "no prometheus binary"
	skip dashboard_queries "no prometheus binary"
	finish
fi
root=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/mounts)
"$exporter" --listen 127.0.0.1:0 --max-depth 1 / >"$tmp/exporter.log" 2>&1 &
pids+=($!)
eport=$(exporter_port "$tmp/exporter.log" $!)
cp "$mon/memcgstat.rules.yml" "$tmp/"
cat >"$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - memcgstat.rules.yml
scrape_configs:
  - job_name: memcgstat
    static_configs:
      - targets: ['127.0.0.1:$eport']
EOF
start_prometheus
# a scrape, and the rules evaluated after it
rules() { curl -s "$api/rules" 2>/dev/null | "$py" -c '
import json, sys
g = json.load(sys.stdin)["data"]["groups"]
rules = [r for x in g for r in x["rules"]]
bad = [r["name"] + ": " + r.get("lastError", "") for r in rules if r["health"] != "ok"]
print(len(rules), "; ".join(bad) if bad else "ok")' 2>/dev/null; }
up= health=
for i in $(seq 60); do
	up=$(promq 'up{job="memcgstat"}')
	[ "$up" = 1 ] && break
	sleep 0.5
done
sleep 2	# two evaluations after the scrape
health=$(rules)
[ -n "$nr_rules" ] && [ "$health" = "$nr_rules ok" ] && [ "$up" = 1 ]
check prometheus_loads_rules $? "rules: '$health' (want '$nr_rules ok'), up '$up'; $(tail -3 "$tmp/prometheus.log")"

bad=
n=0
while IFS= read -r q; do
	n=$((n + 1))
	st=$(curl -s --get "$api/query" --data-urlencode "query=$q" | "$py" -c '
import json, sys; r = json.load(sys.stdin); print(r["status"], r.get("error", ""))' 2>/dev/null)
	[ "$st" = "success " ] || bad+="$q: $st; "
done <<<"$queries"
[ -z "$bad" ] && [ $n -gt 0 ]
check dashboard_queries $? "$bad"
echo "  $n dashboard queries ran on Prometheus $(prometheus --version 2>&1 | awk 'NR == 1 { print $3 }')"
finish
