#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Every memcgstat test: host tests, then the BPF selftests in three VM boots
# of the patched kernel (cgroup v2 with two NUMA nodes, cgroup v1, cgroup v2
# with cgroup.memory=nokmem), one of the kernel with Linux 7.0's kfunc set
# only (the series without memcgstat's additions), make bench's smoke run
# in a fifth, and a reduced sixth on the debug kernel (KASAN, lockdep,
# fault injection). Every suite runs under a time limit. Ends
# with "N passed, N failed, N skipped"; exits 1 if anything failed.
#
#   run-tests.sh [--debug] [--host-only] [--vm-only]
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build
logdir=$out/test-logs
mkdir -p "$logdir"

debug=0 host=1 vm=1
for arg in "$@"; do
	case $arg in
	--debug) debug=1 ;;
	--host-only) vm=0 ;;
	--vm-only) host=0 ;;
	*) echo "run-tests: unknown argument '$arg'" >&2; exit 2 ;;
	esac
done

pass=0 fail=0 skip=0
failed=()

# Count the "#N name:OK|FAIL|SKIP (why)" lines a test run printed.
tally() {
	local log=$1 line
	last_p=$(grep -cE '^#[0-9]+ [^ ]+:OK$' "$log")
	last_f=$(grep -cE '^#[0-9]+ [^ ]+:FAIL$' "$log")
	last_s=$(grep -cE '^#[0-9]+ [^ ]+:SKIP' "$log")
	pass=$((pass + last_p)) fail=$((fail + last_f)) skip=$((skip + last_s))
	while read -r line; do
		failed+=("$line")
	done < <(grep -E '^#[0-9]+ [^ ]+:FAIL$' "$log" | sed 's/^#[0-9]* //; s/:FAIL$//')
}

# Run a command in a session of its own, at most LIMIT seconds. On timeout,
# print what each of its processes was waiting in (state, wait channel,
# command line), then kill the session; exit 124.
bounded() {	# limit, command...
	local limit=$1 pid t=0; shift
	setsid "$@" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		if [ $t -ge "$limit" ]; then
			echo "run-tests: timed out after ${limit}s; still running:"
			ps -o pid,ppid,stat,wchan:28,etimes,args -s "$pid" 2>/dev/null
			ps -o pid,stat,wchan:28,args -s "$pid" --no-headers 2>/dev/null |
				awk '{ $1 = ""; sub(/^ +/, ""); print }' | head -3 >"$logdir/.waited"
			kill -TERM -- -"$pid" 2>/dev/null
			sleep 5
			kill -KILL -- -"$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			return 124
		fi
		sleep 1
		t=$((t + 1))
	done
	wait "$pid"
}

# A run that failed without a FAIL line (crash, splat, timeout) is a failure
# of its own; so is one that ran past its time limit, named with what its
# processes were waiting in.
run_suite() {	# name, limit in seconds, command...
	local name=$1 limit=$2; shift 2
	local log=$logdir/$name.log rc start
	echo "=== $name (limit ${limit}s)"
	start=$(date +%s)
	rm -f "$logdir/.waited"
	bounded "$limit" "$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	echo "=== $name: exit $rc in $(( $(date +%s) - start ))s"
	tally "$log"
	if [ "$rc" = 124 ] && [ -f "$logdir/.waited" ]; then
		fail=$((fail + 1))
		failed+=("$name (timed out after ${limit}s, waiting in: $(paste -sd';' "$logdir/.waited"))")
	elif [ "$rc" != 0 ] && [ "$last_f" = 0 ]; then
		fail=$((fail + 1))
		failed+=("$name (exit $rc)")
	elif [ "$rc" = 0 ] && [ "$last_p" = 0 ] && [ "$last_s" = 0 ]; then
		fail=$((fail + 1))
		failed+=("$name (ran no test)")
	fi
}

# One VM boot, one suite: KDIR's kernel booted with vmtest OPTIONS runs
# each COMMAND in turn (all of them, whatever one returns); it fails if any
# fails. Bounded by vmtest's own timeout, and a minute more here.
boot() {	# name, kdir, vmtest options, command...
	local name=$1 kdir=$2 opts=$3 script="a=0" c
	shift 3
	for c in "$@"; do
		script+="; $c || a=1"
	done
	# shellcheck disable=SC2086 # the options are words
	run_suite "$name" $((tmo + 60)) "$top/selftests/vmtest.sh" -k "$kdir" -t $tmo \
		$opts -- bash -c "$script; exit \$a"
}

kfail() { echo "run-tests: the $1 kernel did not build (exit $?, see above)" >&2; exit 1; }

shell=$top/selftests/shell

# The debug kernel (KASAN + lockdep) is booted only near the end, and a
# build from scratch takes 11 min on an idle machine, 30 with other load:
# make test starts it here, at nice 10, so that it builds while the host
# suites wait on their timers and the first boots run; its boot waits for
# it (kernel/build.sh holds a lock per tree).
dbg_pid=
if [ $vm = 1 ] && [ $debug = 0 ] &&
   [ ! -s "$("$top/kernel/build.sh" --debug --print-dir)/bzImage" ]; then
	echo "run-tests: building the debug kernel meanwhile (log: $logdir/kernel-debug.log)"
	nice -n 10 timeout 3600 "$top/kernel/build.sh" --debug >"$logdir/kernel-debug.log" 2>&1 &
	dbg_pid=$!
fi

if [ $host = 1 ]; then
	# name, time limit in seconds, command
	run_suite host 600 "$top/selftests/host/run.sh"
	seeds=$top/selftests/fuzz/seeds
	run_suite user 120 "$out/selftests/test_text" "$seeds"
	run_suite lib-api 60 "$out/selftests/test_lib" --api
	# the escape of every output: examples, every short string, 300,000 random names
	run_suite escape 120 "$out/selftests/test_escape"
	# every allocation of the library failed in turn, under ASan/LSan
	memroot=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/mounts)
	[ -n "$memroot" ] || memroot=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	run_suite alloc 300 "$out/selftests/test_alloc" "$memroot/memcgstat-alloc"
	# a chain of cgroups deeper than PATH_MAX, snapshot and read (test_lib --deep)
	run_suite lib-deep 60 "$out/selftests/test_lib" --deep "$memroot"
	# --backend auto by the reads a handle expects, decided at its first read
	run_suite lib-auto 60 "$out/selftests/test_lib" --auto "$memroot"
	# nr_procs, exactly: forked processes moved in, to a child, and out
	run_suite lib-procs 60 "$out/selftests/test_lib" --procs "$memroot"
	# a cgroup removed while it is read: its row or -ENOENT, never an empty snapshot
	run_suite lib-gone 90 env MEMCGSTAT_BACKEND=text "$out/selftests/test_lib" --gone "$memroot"
	# a cgroup renamed (v1) read by id: its row, not -ENOENT from the old path
	run_suite lib-rename 60 env MEMCGSTAT_BACKEND=text "$out/selftests/test_lib" --rename "$memroot"
	# a cgroup removed and made again under its name, read by its old id: -ENOENT
	run_suite lib-reuse 60 env MEMCGSTAT_BACKEND=text "$out/selftests/test_lib" --reuse "$memroot"
	# ... and every allocation of an exporter's scrape, the exporter's ASan build
	run_suite exporter-alloc 180 "$out/selftests/test_exporter_alloc" "$memroot/memcgstat-exporter-alloc"
	# the exporter's snapshots and their exposition, exact, without its HTTP server
	run_suite exporter-snapshot 60 "$out/selftests/test_exporter_snapshot" \
		"$memroot/memcgstat-exporter-snapshot"
	run_suite cli 300 "$shell/cli.sh" "$out/tools/memcgstat"
	# the stats of files of their own against those files (text backend here)
	run_suite files 300 "$shell/files.sh" "$out"
	# the same under AddressSanitizer and UndefinedBehaviorSanitizer
	run_suite user-asan 300 "$out/selftests/test_text_asan" "$seeds"
	run_suite cli-asan 600 "$shell/cli.sh" "$out/asan/tools/memcgstat"
	# memcgstat top: batch frames against the files, the live view under tmux
	run_suite top 300 "$shell/top.sh" "$out/tools/memcgstat" "$out/selftests/memhog"
	run_suite top-asan 300 "$shell/top.sh" "$out/asan/tools/memcgstat" "$out/selftests/memhog"
	run_suite install 300 "$shell/install.sh"
	# make deb's packages installed with dpkg -i, run, purged (the machine as before)
	run_suite deb 900 "$shell/deb.sh" "$out/selftests/memhog"
	# the exporter: real Prometheus, node_exporter, 50 concurrent scrapers
	run_suite exporter 600 "$shell/exporter.sh" "$out/tools/memcgstat-exporter" "$out/selftests/memhog"
	run_suite exporter-asan 900 "$shell/exporter.sh" "$out/asan/tools/memcgstat-exporter" \
		"$out/selftests/memhog" asan
	# --compat cadvisor: a Kubernetes tree, cAdvisor's names queried by Prometheus
	run_suite cadvisor 300 "$shell/cadvisor.sh" "$out/tools/memcgstat-exporter" "$out/selftests/memhog"
	run_suite cadvisor-asan 600 "$shell/cadvisor.sh" "$out/asan/tools/memcgstat-exporter" \
		"$out/selftests/memhog"
	# --web.config.file: TLS, client certificates, basic auth; a real Prometheus over HTTPS
	run_suite exporter-tls 300 "$shell/exporter_tls.sh" "$out/tools/memcgstat-exporter"
	run_suite exporter-tls-asan 600 "$shell/exporter_tls.sh" "$out/asan/tools/memcgstat-exporter"
	# a minute of it, and of the CLI at -i 0.1, with cgroups coming and going:
	# RSS, fds and threads bounded, every scrape whole (make soak: longer)
	run_suite soak 150 "$shell/soak.sh" "$out" 60
	# make bench's binaries still run (tiny sizes; no timing is asserted)
	# monitoring/: the rules and the dashboard against the exporter's names, in a real Prometheus
	run_suite monitoring 300 "$shell/monitoring.sh" "$out"
	run_suite bench 300 "$top/bench/smoke.sh" "$out"
	run_suite fuzz 600 make -s -C "$top/selftests/fuzz" OUT="$out/fuzz" FUZZ_SECONDS=${FUZZ_SECONDS:-20} run
fi

if [ $vm = 1 ]; then
	if [ $debug = 1 ]; then
		kdir=$(timeout 3600 "$top/kernel/build.sh" --debug) || kfail debug
		tmo=3600
	else
		kdir=$(timeout 1800 "$top/kernel/build.sh") || kfail release
		kup=$(timeout 1800 "$top/kernel/build.sh" --upstream) || kfail upstream
		tmo=1200
	fi
	# memcg_churn's cgroups, measured under TCG on 2 shared host cores with
	# its readers running: release 100-460 cgroups/s as the host's load
	# varied (20,000 in 193 s busy, 5,000 in 10.8 s idle), debug 14-23/s
	# (10,000 in 706 s), 24-30/s with the readers at nice 19 (16/s without,
	# the same boot, 1,500 each). make test-debug churns the issue's 100,000 on
	# the debug kernel in a boot of its own (vm-debug-churn, a limit of
	# 3 h); MEMCGSTAT_CHURN_N overrides the counts.
	churn=${MEMCGSTAT_CHURN_N:-10000}
	tp=$out/selftests/test_progs
	data=$kdir/vmlinux
	# Every boot runs the very same BPF objects of the library.
	sha=$(cd "$out/lib" && sha256sum memcg_iter.bpf.o memcg_iter.upstream.bpf.o |
	      sha256sum | cut -c1-64)
	backends="MEMCGSTAT_BPF_SHA=$sha $shell/vm_backends.sh"
	exporter="$shell/vm_exporter.sh $out"
	# Which test runs in which boot: here, and only here, checked against
	# the tests test_progs has before any boot (boot_map.sh). memcg_churn
	# (t_churn) runs alone, with its count, in the boots that name it.
	t_v2="memcg_v2 memcg_hierarchy memcg_bad_input memcg_lifetime memcg_root memcg_batch
	      memcg_pin memcg_stat_kfuncs memcgstat_kfuncs memcgstat_read memcg_fault memcg_portable"
	t_v1="memcg_v1 memcg_hierarchy memcg_lifetime memcg_pin memcgstat_read"
	t_nokmem="memcg_nokmem memcg_stat_kfuncs memcgstat_read"
	t_thp="memcg_stat_kfuncs memcgstat_kfuncs"
	t_upstream="memcg_stat_kfuncs memcg_pin memcgstat_read memcg_portable"
	t_debug="memcg_bad_input memcg_lifetime memcg_fault memcgstat_kfuncs"
	t_churn=memcg_churn
	sel() { local t; for t in "$@"; do printf -- '-t %s ' "$t"; done; }
	run_suite boot-map 30 "$shell/boot_map.sh" "$tp" "vm-cgroup-v2=$t_v2" "vm-cgroup-v1=$t_v1" \
		"vm-nokmem=$t_nokmem" "vm-thp=$t_thp" "vm-upstream=$t_upstream" "vm-debug=$t_debug" \
		"vm-cgroup-v2,v1,debug-churn=$t_churn"
	v2churn="MEMCGSTAT_CHURN_N=$churn $tp $(sel $t_churn)"
	[ $debug = 1 ] && v2churn=true	# vm-debug-churn below

	# memcg_fault SKIPs without fault injection (the release kernel)
	boot vm-cgroup-v2 "$kdir" "-c v2 -n 2" \
		"MEMCGSTAT_DATAFILE=$data $tp $(sel $t_v2)" \
		"$v2churn" \
		"$backends $out $data" "$shell/files.sh $out $data" "$exporter" \
		"$shell/monitoring.sh $out --families" \
		"$shell/cadvisor.sh $out/tools/memcgstat-exporter $out/selftests/memhog" \
		"$out/selftests/test_alloc /sys/fs/cgroup/memcgstat-alloc bpf" \
		"SOAK_SCRAPERS=10 SOAK_CURL=0 SOAK_RATE=2 $shell/soak.sh $out 60 bpf"
	boot vm-cgroup-v1 "$kdir" "-c v1" \
		"MEMCGSTAT_DATAFILE=$data $tp $(sel $t_v1)" \
		"MEMCGSTAT_CHURN_N=$((churn / 5)) $tp $(sel $t_churn)" \
		"$backends $out $data" "$shell/files.sh $out $data" \
		"$shell/monitoring.sh $out --families" \
		"$out/selftests/test_alloc /sys/fs/cgroup/memory/memcgstat-alloc bpf"
	boot vm-nokmem "$kdir" "-c v2 -a cgroup.memory=nokmem" "$tp $(sel $t_nokmem)"
	# every anon fault a huge page where it can be: the kfunc selftests'
	# bounds must not assume 4 KiB faults
	boot vm-thp "$kdir" "-c v2 -a transparent_hugepage=always" "$tp $(sel $t_thp)"
	# Linux 7.0's kfunc set only: the kfunc selftests, and the library, CLI
	# and exporter on the bpf backend without memcgstat's additions (the
	# memcgstat_read subtests that need bpf_memcgstat_read() skip)
	[ $debug = 1 ] || boot vm-upstream "$kup" "-c v2 -n 2" \
		"$tp $(sel $t_upstream)" \
		"$backends --upstream $out $kup/vmlinux 1000" "$shell/files.sh $out $kup/vmlinux" "$exporter"
	# the issue's 100,000 cgroups on the KASAN + lockdep kernel: 3,303 s
	# here with the host otherwise quiet, 1-2 h when it is not
	# (doc/testing.md); the readers still read all along, in the time the
	# churn leaves them
	if [ $debug = 1 ]; then
		tmo=10800
		boot vm-debug-churn "$kdir" "-c v2 -n 2" \
			"MEMCGSTAT_CHURN_N=${MEMCGSTAT_CHURN_N:-100000} MEMCGSTAT_CHURN_READER_NICE=19 $tp $(sel $t_churn)"
		tmo=3600
	fi
	# make bench's VM half still runs (tiny sizes; no timing is asserted)
	boot vm-bench "$kdir" "-c v2" "$top/bench/smoke.sh --vm $out"
	# A reduced debug boot here too: the KASAN + lockdep kernel with fault
	# injection, on what most needs it (bad BPF input, lifetime, churn,
	# kernel allocations failing). make test-debug boots it for every VM
	# test; that whole run does not fit CI's time (doc/testing.md).
	if [ $debug = 0 ]; then
		if [ -n "$dbg_pid" ]; then
			wait "$dbg_pid"
			rc=$?
			[ $rc = 0 ] || tail -20 "$logdir/kernel-debug.log" >&2
			(exit $rc) || kfail debug
		fi
		kdbg=$(timeout 3600 "$top/kernel/build.sh" --debug) || kfail debug
		tmo=2400
		boot vm-debug "$kdbg" "-c v2 -n 2" \
			"MEMCGSTAT_DATAFILE=$kdbg/vmlinux $tp $(sel $t_debug)" \
			"MEMCGSTAT_CHURN_N=$((churn / 4)) $tp $(sel $t_churn)"
	fi
	# the instruction counter of make bench counts exactly (its own boots)
	run_suite insn 600 "$top/bench/insn/selftest.sh" -k "$kdir" -t 300
fi

echo
if [ ${#failed[@]} -gt 0 ]; then
	echo "failed:"
	printf '  %s\n' "${failed[@]}"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
