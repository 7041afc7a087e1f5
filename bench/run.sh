#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: every measure of issue 5, on the host (natively, text backend
# and empty BPF programs) and in the patched kernel's VM, then one markdown
# table on stdout and the data, the table and the scaling plot in OUT.
#
# The VM part boots with 1 vCPU under TCG with the insncount QEMU plugin
# (selftests/vmtest.sh -I): the figure that counts is guest instructions per
# operation, kernel and user (mcsbench marks each method's operations after
# its timed rounds; OUT/insn-1.txt holds the plugin's counts), the TCG wall
# times are a second view. Boots 2 .. BENCH_REPEAT run the same again
# (OUT/insn-N.txt; the table keeps boot 1's times), for the run-to-run
# deviation of the counts: the whole run, not the counted part alone,
# since what a kernel operation costs depends on what ran before it (link
# ids, say). The last boot also profiles BENCH_PROFILE's method
# (OUT/profile-ROW.txt, symbolized with the kernel's vmlinux and the
# programs' own symbols); the table's times come from boot 1, so with
# BENCH_REPEAT=1 a profile adds a second boot.
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
#   BENCH_REPEAT       VM boots, each counting instructions  2
#   BENCH_INSN_OPS     operations per marker pair    10 (1 for an operation
#                      that fills a timed round on its own)
#   BENCH_PROFILE      ROW or ROW/B: profile that row's method A (or B), e.g.
#                      7.open.stats; empty: no profile
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
repeat=${BENCH_REPEAT:-2}
insn_ops=${BENCH_INSN_OPS:-10}
profile=${BENCH_PROFILE:-}
skip=" ${BENCH_SKIP:-} "

log() { printf "bench: %(%T)T %s\n" -1 "$*" >&2; }
[ -x "$bin" ] || { log "no $bin (make bench builds it)"; exit 1; }
mkdir -p "$out"
res=$out/results.tsv
: >"$res"
start=$(date +%s)
export MCSBENCH_ROUNDS=$rounds MCSBENCH_BATCH_MS=$batch_ms MCSBENCH_STATS=$stats

# mcsbench's lines, each prefixed with where it ran, and its INSN and
# INSNBIN lines with the boot that counted them too; of boots after the
# first only those
collect() {
	local where=$1 boot=${2:-1} keep='ROW|SKIP|NOTE|SCALE|INSN|INSNBIN'
	[ "$boot" = 1 ] || keep='INSN|INSNBIN'
	grep -E "^($keep)	" | sed -E "s/^(INSN|INSNBIN)	/\1	$boot	/; s/^/$where	/" >>"$res"
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

# 1-5, 7: the patched kernel's VM, 1 vCPU, TCG, instructions counted
case $repeat in [1-9]) ;; *) log "BENCH_REPEAT=$repeat: want 1 to 9"; exit 1 ;; esac
# the profiler's boot is never the one whose times the table shows
[ -n "$profile" ] && [ "$repeat" = 1 ] && repeat=2
rm -f "$out"/insn-[0-9].txt "$out"/profile-*.txt
if [[ $skip != *" vm "* ]]; then
	plugin=$build/insn/insncount.so
	[ -f "$plugin" ] || { log "no $plugin (make bench builds it)"; exit 1; }
	for r in $(seq 1 "$repeat"); do
		name=vm-read pargs=() penv=() what="times and instructions"
		[ "$r" = 1 ] || name=vm-repeat-$r
		if [ -n "$profile" ] && [ "$r" = "$repeat" ]; then
			pargs=(-P "profile=on,profile_top=0,profile_id=$("$bin" insn-profile-id)")
			penv=(MCSBENCH_INSN_PROFILE="$profile")
			what+=", profile of $profile"
		fi
		log "vm: boot $r of $repeat ($what), patched kernel $kdir (trees: $sizes)"
		INSNCOUNT_PLUGIN=$plugin "$top/selftests/vmtest.sh" -k "$kdir" -m "$vm_mem" -t 3000 -o "$out/$name" \
			-I "$out/insn-$r.txt" "${pargs[@]}" -- \
			env MCSBENCH_ROUNDS="$rounds" MCSBENCH_BIG_ROUNDS="$big_rounds" MCSBENCH_BATCH_MS="$batch_ms" MCSBENCH_STATS="$stats" \
			MCSBENCH_INSN=1 MCSBENCH_INSN_OPS="$insn_ops" "${penv[@]}" \
			bash "$top/bench/vm-bench.sh" read "$build" "$sizes" "$dirty" "$dirty_pages" \
			"$cli_size" "$cli_runs" 2>"$out/$name.log" | collect vm "$r" ||
			log "vm: boot $r failed, see $out/$name.log"
		grep -q . "$out/$name.log" && sed 's/^/  /' "$out/$name.log" >&2
	done
	# the profile: kernel symbols from vmlinux, user ones from the programs
	# and libraries the guest listed (INSNBIN)
	if [ -n "$profile" ]; then
		pfile=$out/profile-${profile//\//-}.txt
		bins=()
		while IFS=$'\t' read -r path base; do
			if [ "$base" = 0 ]; then bins+=(--bin "$path"); else bins+=(--bin "$path@${base#0x}"); fi
		done < <(awk -F'\t' -v b="$repeat" '$2 == "INSNBIN" && $3 == b { print $4 "\t" $5 }' "$res" | sort -u)
		# which method the profiled marker counted, how many operations
		pid=$("$bin" insn-profile-id)
		info=$(awk -F'\t' -v b="$repeat" -v id="$pid" '$2 == "INSN" && $3 == b && $4 == id {
			printf "# profile: row %s, method %s (%s), ops=%d, boot %s\n", $5, $6, $9, $7 * $8, b; exit }' "$res")
		if [ -z "$info" ]; then
			log "vm: no profile: no row $profile ran"
		elif "$top/bench/insn/symbolize.py" --vmlinux "$kdir/vmlinux" "${bins[@]}" --top 40 \
			"$out/insn-$repeat.txt" >"$pfile.tmp" 2>"$pfile.err"; then
			{ echo "$info"; cat "$pfile.tmp"; } >"$pfile"
			rm -f "$pfile.err" "$pfile.tmp"
			log "vm: profile of $profile in $pfile"
		else
			log "vm: no profile of $profile: $(head -3 "$pfile.err")"
			rm -f "$pfile" "$pfile.tmp"
		fi
	fi
fi

# 6: patched against unpatched, alternating boots
faults=$out/faults.tsv faultinsn=$out/faults-insn.tsv
: >"$faults"
: >"$faultinsn"
rm -f "$out"/fault-insn-*.txt
if [[ $skip != *" fault "* ]]; then
	# instructions are counted on one vCPU only (vmtest.sh -I forces it)
	plugin=$build/insn/insncount.so fargs=()
	if [ "$fault_cpus" = 1 ] && [ -f "$plugin" ]; then
		fargs=(-I)
	else
		log "fault: times only (instructions need BENCH_FAULT_CPUS=1 and $plugin)"
	fi
	if ukdir=$("$top/kernel/build.sh" --unpatched); then
		for i in $(seq 1 "$fault_boots"); do
			order="patched unpatched"
			[ $((i % 2)) = 0 ] && order="unpatched patched"
			for k in $order; do
				d=$kdir
				[ $k = unpatched ] && d=$ukdir
				log "fault: boot $i, $k${fargs:+, instructions counted}"
				[ -z "$fargs" ] || fargs=(-I "$out/fault-insn-$k-$i.txt")
				f=$(INSNCOUNT_PLUGIN=$plugin "$top/selftests/vmtest.sh" -q -k "$d" -m "$vm_mem" -p "$fault_cpus" \
					-t 900 "${fargs[@]}" -- env MCSBENCH_INSN="${fargs:+1}" \
					bash "$top/bench/vm-bench.sh" fault "$build" "$fault_mb" "$fault_rounds" \
					2>>"$out/vm-fault.log")
				grep '^FAULT	' <<<"$f" | sed "s/^FAULT/$k	$i/" >>"$faults"
				# the instructions per fault: one fault's (id 0: the per-pair
				# minimum, and the mean over all pairs) plus its share of a
				# round's unmapping (id 1, per page)
				grep '^FAULTINSN	' <<<"$f" | while IFS=$'\t' read -r _ np nr; do
					awk -v k="$k" -v b="$i" -v np="$np" -v nr="$nr" -v OFS='\t' '
					function kv(s, k,   i, n, a, x) {
						n = split(s, a, " ")
						for (i = 1; i <= n; i++) { split(a[i], x, "="); if (x[1] == k) return x[2] }
					}
					/^insn id=[01] / { id = kv($0, "id"); mn[id] = kv($0, "min"); mean[id] = kv($0, "total") / kv($0, "pairs") }
					END {
						if ((0 in mn) && (1 in mn))
							print k, b, mn[0] + mn[1] / np, mean[0] + mean[1] / np, mn[0], mn[1] / np, nr * np
					}' "$out/fault-insn-$k-$i.txt" >>"$faultinsn"
				done
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
			print "vm", "ROW", "6.fault", "write side: page-fault loop (MAP_SHARED tmpfs file: touch every page, MADV_DONTNEED), " nr " boots per kernel, alternating; spread = per boot pair; instructions: per fault, the fault alone (per-fault minimum over 3 more rounds) plus its share of one round'"'"'s MADV_DONTNEED, median over the boots", "ns",
			      "patched, per fault", mp, "-", "-", "unpatched, per fault", mu, "-", "-", mu / mp, lo, hi, nr
			printf("vm\tNOTE\t6.fault\tpatched %+.1f %% against unpatched (medians of per-boot medians); %+.1f %% by the medians of per-boot minimums (%.0f against %.0f ns); within-boot min-max ns: %s\n",
			       100 * (mp - mu) / mu, 100 * (med(pm, np) - med(um, nu)) / med(um, nu), med(pm, np), med(um, nu), within)
		}' "$faults" >>"$res"
		awk -F'\t' '
		{ n[$1]++; list[$1] = list[$1] sprintf("%s%.1f (%.1f + %.1f; mean %.1f)", n[$1] > 1 ? ", " : "", $3, $5, $6, $4) }
		END {
			if (n["patched"] && n["unpatched"])
				printf("vm\tNOTE\t6.fault\tinstructions per fault by boot, the fault alone (its per-fault minimum) + its share of the unmapping; mean over every counted fault: patched %s; unpatched %s\n",
				       list["patched"], list["unpatched"])
		}' "$faultinsn" >>"$res"
	else
		echo "vm	SKIP	6.fault	write side	no unpatched kernel (kernel/build.sh --unpatched failed)" >>"$res"
	fi
fi

# the machine
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
# vmtest.sh's closing line says which accelerator ran the guest, on how
# many vCPUs
accel=$(grep -ohE '\((kvm|tcg), cgroup' "$out/vm-read.log" 2>/dev/null | head -1 | sed 's/[(,]//g; s/ cgroup//')
vcpus=$(grep -ohE '[0-9]+ vCPUs?' "$out/vm-read.log" 2>/dev/null | head -1)
insncount=
grep -q 'instructions counted to' "$out/vm-read.log" 2>/dev/null && insncount=", insncount plugin"
[ -n "$accel" ] || accel="tcg or kvm (no VM run)"
{
	echo "machine: $cpu, $(nproc) cores, host kernel $(uname -r) (host cgroup $(stat -fc %T /sys/fs/cgroup |
		sed 's/tmpfs/v1/; s/cgroup2fs/v2/')); guest: kernel ${guest_kernel:-6.12} (patched; 6 also unpatched), qemu $accel$insncount, ${vcpus:-? vCPUs} (6: $fault_cpus), $vm_mem, cgroup v2"
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); took $(( ($(date +%s) - start) / 60 )) min"
	echo "parameters: BENCH_SIZES='$sizes' BENCH_HOST_SIZES='$host_sizes' BENCH_ROUNDS=$rounds BENCH_BIG_ROUNDS=$big_rounds BENCH_BATCH_MS=$batch_ms BENCH_STATS=$stats BENCH_DIRTY=$dirty BENCH_DIRTY_PAGES=$dirty_pages BENCH_CLI_SIZE=$cli_size BENCH_CLI_RUNS=$cli_runs BENCH_FAULT_BOOTS=$fault_boots BENCH_FAULT_MB=$fault_mb BENCH_FAULT_ROUNDS=$fault_rounds BENCH_FAULT_CPUS=$fault_cpus BENCH_REPEAT=$repeat BENCH_INSN_OPS=$insn_ops BENCH_PROFILE=${profile:-none}"
} >"$out/machine.txt"

"$top/bench/report.sh" "$out"
