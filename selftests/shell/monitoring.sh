#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# monitoring/: the Prometheus rules pass promtool's check and their unit
# tests; every metric the rules and the Grafana dashboard name is one the
# exporter exports (a stat of memcgstat --list-stats with its unit and
# suffix, an exporter self-metric, or a recording rule); a real Prometheus
# scraping a real exporter loads the rules (every group healthy after it
# evaluated them) and runs every dashboard query without an error.
# Prints "#N monitoring/NAME:OK|FAIL|SKIP (why)".
#
#   monitoring.sh BUILD_DIR
set -uo pipefail

out=${1:?usage: monitoring.sh BUILD_DIR}
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
	kill "${pids[@]}" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

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
