#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: every measure of issue 5, on the host (natively, text backend
# and empty BPF programs) and in the patched kernel's VM, then one markdown
# table on stdout and the data, the table and the scaling plot in OUT.
#
#   run.sh [OUT]        (default build/bench; needs make selftests first)
#
# Parameters (environment; make bench passes its variables of the same name):
#   BENCH_SIZES        tree sizes in the VM          "1 10 100 1000 10000 40000"
#   BENCH_HOST_SIZES   tree sizes on the host        "1 100 1000 10000"
#   BENCH_ROUNDS       rounds per comparison         11
#   BENCH_BIG_ROUNDS   rounds for trees over 10,000  3
#   BENCH_BATCH_MS     time per method per round     20
#   BENCH_STATS        tree counters                 anon,file,shmem,pgfault
#   BENCH_DIRTY        dirty tree size               1000
#   BENCH_DIRTY_PAGES  pages touched per cgroup      16
#   BENCH_CLI_SIZE     tree for the CLI's peak RSS   10000
#   BENCH_CLI_RUNS     CLI runs per backend          5
#   BENCH_FAULT_BOOTS  boots per kernel (measure 6)  7
#   BENCH_FAULT_MB     file size for the fault loop  64
#   BENCH_FAULT_ROUNDS fault rounds per boot         31
#   BENCH_FAULT_CPUS   guest CPUs for those boots    1 (the loop is single-
#                      threaded; the other host core is left to the rest)
#   BENCH_VM_MEM       guest memory                  2G
#   BENCH_SKIP         any of: host vm fault (skip those parts)
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build/bench}
build=$top/build
bin=$build/bench/mcsbench

sizes=${BENCH_SIZES:-1 10 100 1000 10000 40000}
host_sizes=${BENCH_HOST_SIZES:-1 100 1000 10000}
rounds=${BENCH_ROUNDS:-11}
big_rounds=${BENCH_BIG_ROUNDS:-3}
batch_ms=${BENCH_BATCH_MS:-20}
stats=${BENCH_STATS:-anon,file,shmem,pgfault}
dirty=${BENCH_DIRTY:-1000}
dirty_pages=${BENCH_DIRTY_PAGES:-16}
cli_size=${BENCH_CLI_SIZE:-10000}
cli_runs=${BENCH_CLI_RUNS:-5}
fault_boots=${BENCH_FAULT_BOOTS:-7}
fault_mb=${BENCH_FAULT_MB:-64}
fault_rounds=${BENCH_FAULT_ROUNDS:-31}
fault_cpus=${BENCH_FAULT_CPUS:-1}
vm_mem=${BENCH_VM_MEM:-2G}
skip=" ${BENCH_SKIP:-} "

log() { printf "bench: %(%T)T %s\n" -1 "$*" >&2; }
[ -x "$bin" ] || { log "no $bin (make bench builds it)"; exit 1; }
mkdir -p "$out"
res=$out/results.tsv
: >"$res"
start=$(date +%s)
export MCSBENCH_ROUNDS=$rounds MCSBENCH_BATCH_MS=$batch_ms MCSBENCH_STATS=$stats

# mcsbench's lines, each prefixed with where it ran
collect() {
	local where=$1
	grep -E '^(ROW|SKIP|NOTE|SCALE)	' | sed "s/^/$where	/" | tee -a "$res" >/dev/null
}

kdir=$("$top/kernel/build.sh") || exit 1
guest_kernel=$(strings "$kdir/bzImage" 2>/dev/null | grep -m1 -oE '^[0-9]+\.[0-9]+\.[0-9]+[^ ]* \(' | tr -d ' (')

# 8: the host, natively (no kfuncs here: the text side and the floors)
if [[ $skip != *" host "* ]]; then
	root=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/mounts)
	if [ -z "$root" ]; then
		root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	fi
	hcg=$root/mcsbench.$$
	trap '"$bin" rmtree "$hcg" 2>/dev/null' EXIT
	log "host: cgroups in $hcg"
	"$bin" mktree "$hcg" 1 && "$bin" mktree "$hcg/batch" 51 &&
		"$bin" single "$hcg/batch/c1" "$hcg/batch" | collect host
	for n in $host_sizes; do
		log "host: tree of $n"
		"$bin" mktree "$hcg/t$n" "$n" && "$bin" tree "$hcg/t$n" | collect host
		"$bin" rmtree "$hcg/t$n"
	done
	"$bin" rmtree "$hcg"
fi

# 1-5, 7: the patched kernel's VM
if [[ $skip != *" vm "* ]]; then
	log "vm: patched kernel $kdir (trees: $sizes)"
	"$top/selftests/vmtest.sh" -k "$kdir" -m "$vm_mem" -t 3000 -o "$out/vm-read" -- \
		env MCSBENCH_ROUNDS="$rounds" MCSBENCH_BIG_ROUNDS="$big_rounds" MCSBENCH_BATCH_MS="$batch_ms" MCSBENCH_STATS="$stats" \
		bash "$top/bench/vm-bench.sh" read "$build" "$sizes" "$dirty" "$dirty_pages" \
		"$cli_size" "$cli_runs" 2>"$out/vm-read.log" | collect vm ||
		log "vm: the run failed, see $out/vm-read.log"
	grep -q . "$out/vm-read.log" && sed 's/^/  /' "$out/vm-read.log" >&2
fi

# 6: patched against unpatched, alternating boots
faults=$out/faults.tsv
: >"$faults"
if [[ $skip != *" fault "* ]]; then
	if ukdir=$("$top/kernel/build.sh" --unpatched); then
		for i in $(seq 1 "$fault_boots"); do
			order="patched unpatched"
			[ $((i % 2)) = 0 ] && order="unpatched patched"
			for k in $order; do
				d=$kdir
				[ $k = unpatched ] && d=$ukdir
				log "fault: boot $i, $k"
				"$top/selftests/vmtest.sh" -q -k "$d" -m "$vm_mem" -p "$fault_cpus" -t 900 -- \
					bash "$top/bench/vm-bench.sh" fault "$build" "$fault_mb" "$fault_rounds" \
					2>>"$out/vm-fault.log" | grep '^FAULT' | sed "s/^FAULT/$k	$i/" >>"$faults"
			done
		done
		# per-boot medians: ROW with patched as A, unpatched as B
		awk -F'\t' -v OFS='\t' '
		function med(a, n,   i, j, t) {
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		}
		{
			v[$1, $2] = $3; boots[$2] = 1
			if ($1 == "patched") { p[++np] = $3; pm[np] = $4 } else { u[++nu] = $3; um[nu] = $4 }
			within = within sprintf("%s%s %d: %.0f-%.0f", within == "" ? "" : ", ", $1, $2, $4, $5)
		}
		END {
			if (!np || !nu) exit
			for (b in boots) if ((("patched", b) in v) && (("unpatched", b) in v)) r[++nr] = v["unpatched", b] / v["patched", b]
			lo = 1e9; hi = 0
			for (i = 1; i <= nr; i++) { if (r[i] < lo) lo = r[i]; if (r[i] > hi) hi = r[i] }
			mp = med(p, np); mu = med(u, nu)
			print "vm", "ROW", "6.fault", "write side: page-fault loop (MAP_SHARED tmpfs file: touch every page, MADV_DONTNEED), " nr " boots per kernel, alternating; spread = per boot pair", "ns",
			      "patched, per fault", mp, "-", "-", "unpatched, per fault", mu, "-", "-", mu / mp, lo, hi, nr
			printf("vm\tNOTE\t6.fault\tpatched %+.1f %% against unpatched (medians of per-boot medians); %+.1f %% by the medians of per-boot minimums (%.0f against %.0f ns); within-boot min-max ns: %s\n",
			       100 * (mp - mu) / mu, 100 * (med(pm, np) - med(um, nu)) / med(um, nu), med(pm, np), med(um, nu), within)
		}' "$faults" >>"$res"
	else
		echo "vm	SKIP	6.fault	write side	no unpatched kernel (kernel/build.sh --unpatched failed)" >>"$res"
	fi
fi

# the machine
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
# vmtest.sh's closing line says which accelerator ran the guest
accel=$(grep -ohE '\((kvm|tcg), cgroup' "$out/vm-read.log" 2>/dev/null | head -1 | sed 's/[(,]//g; s/ cgroup//')
[ -n "$accel" ] || accel="tcg or kvm (no VM run)"
{
	echo "machine: $cpu, $(nproc) cores, host kernel $(uname -r) (host cgroup $(stat -fc %T /sys/fs/cgroup |
		sed 's/tmpfs/v1/; s/cgroup2fs/v2/')); guest: kernel ${guest_kernel:-6.12} (patched; 6 also unpatched), qemu $accel, 2 vCPUs (6: $fault_cpus), $vm_mem, cgroup v2"
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); took $(( ($(date +%s) - start) / 60 )) min"
	echo "parameters: BENCH_SIZES='$sizes' BENCH_HOST_SIZES='$host_sizes' BENCH_ROUNDS=$rounds BENCH_BIG_ROUNDS=$big_rounds BENCH_BATCH_MS=$batch_ms BENCH_STATS=$stats BENCH_DIRTY=$dirty BENCH_DIRTY_PAGES=$dirty_pages BENCH_CLI_SIZE=$cli_size BENCH_CLI_RUNS=$cli_runs BENCH_FAULT_BOOTS=$fault_boots BENCH_FAULT_MB=$fault_mb BENCH_FAULT_ROUNDS=$fault_rounds BENCH_FAULT_CPUS=$fault_cpus"
} >"$out/machine.txt"

"$top/bench/report.sh" "$out"
