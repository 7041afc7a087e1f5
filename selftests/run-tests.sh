#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Every memcgstat test: host tests, then the BPF selftests in three VM boots
# of the patched kernel (cgroup v2 with two NUMA nodes, cgroup v1, cgroup v2
# with cgroup.memory=nokmem), and make bench's smoke run in a fourth. Ends
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

# A run that failed without a FAIL line (crash, splat, timeout) is a failure
# of its own.
run_suite() {
	local name=$1; shift
	local log=$logdir/$name.log rc
	echo "=== $name"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	tally "$log"
	if [ "$rc" != 0 ] && [ "$last_f" = 0 ]; then
		fail=$((fail + 1))
		failed+=("$name (exit $rc)")
	elif [ "$rc" = 0 ] && [ "$last_p" = 0 ] && [ "$last_s" = 0 ]; then
		fail=$((fail + 1))
		failed+=("$name (ran no test)")
	fi
}

if [ $host = 1 ]; then
	run_suite host "$top/selftests/host/run.sh"
	seeds=$top/selftests/fuzz/seeds
	run_suite user "$out/selftests/test_text" "$seeds"
	run_suite cli "$top/selftests/user/cli.sh" "$out/user/memcgstat"
	# the same under AddressSanitizer and UndefinedBehaviorSanitizer
	run_suite user-asan "$out/selftests/test_text_asan" "$seeds"
	run_suite cli-asan "$top/selftests/user/cli.sh" "$out/user-asan/memcgstat"
	run_suite install "$top/selftests/user/install.sh"
	# the exporter: real Prometheus, node_exporter, 50 concurrent scrapers
	run_suite exporter "$top/selftests/user/exporter.sh" "$out/user/memcgstat-exporter" "$out/selftests/memhog"
	run_suite exporter-asan "$top/selftests/user/exporter.sh" "$out/user-asan/memcgstat-exporter" "$out/selftests/memhog" asan
	# make bench's binaries still run (tiny sizes; no timing is asserted)
	run_suite bench "$top/bench/smoke.sh" "$out"
	run_suite fuzz make -s -C "$top/selftests/fuzz" OUT="$out/fuzz" FUZZ_SECONDS=${FUZZ_SECONDS:-20} run
fi

if [ $vm = 1 ]; then
	if [ $debug = 1 ]; then
		kdir=$("$top/kernel/build.sh" --debug) || exit 1
		tmo=3600
	else
		kdir=$("$top/kernel/build.sh") || exit 1
		tmo=1200
	fi
	tp=$out/selftests/test_progs
	data=$kdir/vmlinux
	vm() { "$top/selftests/vmtest.sh" -k "$kdir" -t $tmo "$@"; }

	backends="$top/selftests/user/vm_backends.sh $out $data"
	exporter="$top/selftests/user/vm_exporter.sh $out"
	run_suite vm-cgroup-v2 vm -c v2 -n 2 -- bash -c "MEMCGSTAT_DATAFILE=$data $tp \
		-t memcg_v2 -t memcg_hierarchy -t memcg_bad_input -t memcg_verifier \
		-t memcg_lifetime -t memcg_root -t memcg_batch; a=\$?; $backends; a=\$((a | \$?)); $exporter; exit \$((a | \$?))"
	run_suite vm-cgroup-v1 vm -c v1 -- bash -c "MEMCGSTAT_DATAFILE=$data $tp \
		-t memcg_v1 -t memcg_hierarchy -t memcg_lifetime; a=\$?; $backends; exit \$((a | \$?))"
	run_suite vm-nokmem vm -c v2 -a cgroup.memory=nokmem -- "$tp" -t memcg_nokmem
	# make bench's VM half still runs (tiny sizes; no timing is asserted)
	run_suite vm-bench vm -c v2 -- "$top/bench/smoke.sh" --vm "$out"
fi

echo
if [ ${#failed[@]} -gt 0 ]; then
	echo "failed:"
	printf '  %s\n' "${failed[@]}"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
