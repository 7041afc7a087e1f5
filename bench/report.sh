#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# report.sh OUT: the markdown table of a make bench run (OUT/table.md, also
# on stdout) and the scaling plot (OUT/scaling.png, from OUT/scaling-*.dat),
# from OUT/results.tsv and OUT/machine.txt (bench/run.sh).
set -uo pipefail

out=$1
res=$out/results.tsv

rm -f "$out"/scaling-vm.dat "$out"/scaling-host.dat
awk -F'\t' -v OFS='\t' '
$2 == "SCALE" && $1 == "vm" { print $3, $4, $5, $6 > "'"$out"'/scaling-vm.dat" }
$2 == "SCALE" && $1 == "host" { print $3, $5, $6 > "'"$out"'/scaling-host.dat" }
' "$res"
for f in "$out"/scaling-vm.dat "$out"/scaling-host.dat; do
	[ -f "$f" ] && sort -n -o "$f" "$f"
done

table() {
	sed "s/^/- /" "$out/machine.txt"
	echo
	echo "A and B ran interleaved, in alternating order, for $(sed -n 's/.*BENCH_ROUNDS=\([0-9]*\).*/\1/p' "$out/machine.txt") rounds; times are medians per operation, with the median user and system time per operation (getrusage; tick-based at 250 Hz in the guest, so small values are sampled, 0 means below the tick); ratio = B/A, its median over the rounds, and as the spread its min-max over the n rounds (per boot pair for 6; per run for 7)."
	echo
	echo "| # | where | measure | A | B | ratio B/A | spread | target | notes |"
	echo "|---|---|---|---|---|---|---|---|---|"
	awk -F'\t' '
	function num(v) {
		if (v == 0) return "0"
		if (v < 10) return sprintf("%.2f", v)
		if (v < 100) return sprintf("%.1f", v)
		return sprintf("%.0f", v)
	}
	function val(v, unit) {
		if (v == "-" || v == "") return "-"
		if (unit == "KiB") return v >= 10240 ? sprintf("%.1f MiB", v / 1024) : sprintf("%.0f KiB", v)
		if (unit == "ns") return num(v) " ns"
		if (v >= 1e6) return sprintf("%.2f s", v / 1e6)
		if (v >= 1e4) return num(v / 1000) " ms"
		return num(v) " µs"
	}
	function cell(name, v, u, s, unit,   c) {
		c = name ": **" val(v, unit) "**"
		if (u != "-" && u != "") c = c " (usr " val(u, unit) ", sys " val(s, unit) ")"
		return c
	}
	function x(v, unit) { return sprintf(unit == "ns" ? "%.3fx" : "%.2fx", v) }
	function trim(s) { sub(/; $/, "", s); return s }
	function target(where, id, r, a, lo, hi,   n) {
		if (where == "host") return ""
		if (id ~ /^1\.all\./) return r >= 15 ? "≥15x: met" : "≥15x: **missed**"
		if (id ~ /^1\.b50\.(sys|iter|snap|iterids)$/) return r >= 50 ? "≥50x: met" : "≥50x: **missed**"
		if (id ~ /^2\.tree\./) {
			n = substr(id, 8) + 0
			if (n >= 10000) return r >= 100 ? "≥100x: met" : "≥100x: **missed**"
			return ""
		}
		if (id ~ /^3\.walk\.[0-9]+$/) return r <= 1.5 ? "≤1.5x: met" : "≤1.5x: **missed**"
		if (id ~ /^3\.(iter\.full|iter\.crc|sys)$/) return r <= 1.3 ? "≤1.3x: met" : "≤1.3x: **missed**"
		if (id == "6.fault") return (r >= 1 / 1.02 && r <= 1.02) ? ((lo >= 1 / 1.02 && hi <= 1.02) ? "±2 %: met" : "±2 %: median met, spread wider") : "±2 %: **missed**"
		if (id == "7.cli.rss") return a <= 8192 ? "≤8 MiB: met" : "≤8 MiB: **missed**"
		return ""
	}
	function group(where, id) {
		if (where == "host") return 8
		return substr(id, 1, 1) + 0
	}
	FNR == NR && $2 == "NOTE" { notes[$1 "/" $3] = notes[$1 "/" $3] ($4 "; "); next }
	FNR == NR { next }
	$2 == "ROW" {
		line = sprintf("| %s | %s | %s | %s | %s | %s | %s-%s, n=%s | %s | %s |", $3, $1, $4,
			cell($6, $7, $8, $9, $5), cell($10, $11, $12, $13, $5), x($14, $5),
			sprintf("%.2f", $15), sprintf("%.2fx", $16), $17, target($1, $3, $14, $7, $15, $16),
			trim(notes[$1 "/" $3]))
		rows[group($1, $3), ++nr[group($1, $3)]] = line
	}
	# the host has no kfuncs: one line for all its bpf rows
	$2 == "SKIP" && $1 == "host" && $5 ~ /kernel lacks kfunc/ {
		if (hostskip == "")
			hostrow = ++nr[8]
		hostskip = hostskip (hostskip == "" ? "" : ", ") $3
		hostwhy = $5
		next
	}
	$2 == "SKIP" {
		rows[group($1, $3), ++nr[group($1, $3)]] = sprintf("| %s | %s | %s | skipped: %s | | | | | |", $3, $1, $4, $5)
	}
	END {
		if (hostskip)
			rows[8, hostrow] = sprintf("| %s | host | the library side of these rows | skipped: %s | | | | | |", hostskip, hostwhy)
		for (g = 1; g <= 9; g++)
			for (i = 1; i <= nr[g]; i++)
				print rows[g, i]
	}' "$res" "$res"
	if [ -s "$out/scaling-vm.dat" ]; then
		echo
		echo "Scaling (measure 4, VM; host columns native, no kfuncs): time per snapshot of the whole tree"
		echo
		echo "| cgroups | memcgstat_snapshot | memory.stat of every cgroup | ratio | empty cgroup_iter walk | host: memory.stat of every cgroup | host: empty walk |"
		echo "|---|---|---|---|---|---|---|"
		join -a1 -e- -o 0,1.2,1.3,1.4,2.2,2.3 <(sort -k1,1 "$out/scaling-vm.dat") \
			<(sort -k1,1 "$out/scaling-host.dat" 2>/dev/null) | sort -n |
			awk '{ printf("| %s | %.0f µs | %.0f µs | %.1fx | %.0f µs | %s | %s |\n", $1, $2, $3, $2 > 0 ? $3 / $2 : 0, $4,
				$5 == "-" ? "-" : sprintf("%.0f µs", $5), $6 == "-" ? "-" : sprintf("%.0f µs", $6)) }'
	fi
}

table | tee "$out/table.md"

plots=()
vm=$out/scaling-vm.dat host=$out/scaling-host.dat
if [ -s "$vm" ]; then
	plots+=("'$vm' using 1:(\$2 > 0 ? \$2 : 1/0) with linespoints lw 2 title 'VM: memcgstat_snapshot (bpf)'"
		"'$vm' using 1:(\$3 > 0 ? \$3 : 1/0) with linespoints lw 2 title 'VM: memory.stat of every cgroup'"
		"'$vm' using 1:(\$4 > 0 ? \$4 : 1/0) with linespoints lw 2 title 'VM: empty cgroup_iter walk'")
fi
if [ -s "$host" ]; then
	plots+=("'$host' using 1:(\$2 > 0 ? \$2 : 1/0) with linespoints dt 2 lw 2 title 'host (native): memory.stat of every cgroup'"
		"'$host' using 1:(\$3 > 0 ? \$3 : 1/0) with linespoints dt 2 lw 2 title 'host (native): empty cgroup_iter walk'")
fi
if [ ${#plots[@]} -gt 0 ] && command -v gnuplot >/dev/null; then
	plot=$(printf '%s, ' "${plots[@]}")
	gnuplot <<EOF
set terminal pngcairo size 900,600 noenhanced
set output '$out/scaling.png'
set title "memcgstat: time per whole-tree read ($(sed -n 's/^date: \([^;]*\).*/\1/p' "$out/machine.txt"); VM: qemu TCG)"
set logscale xy
set xlabel 'cgroups in the tree'
set ylabel 'microseconds per read of the whole tree'
set key top left
set grid
plot ${plot%, }
EOF
	echo
	echo "plot: $out/scaling.png"
fi
