#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests: the kernel series and its build, and the VM runner itself.
# Prints "#N host/name:OK|FAIL|SKIP (why)" per test.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
tarball=${MEMCGSTAT_KSRC:-/usr/src/linux-source-6.12.tar.xz}
n=0
tmp=$(mktemp -d /tmp/memcgstat-host.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

result() {	# name, 0|1|skip, [why]
	n=$((n + 1))
	case $2 in
	0) echo "#$n host/$1:OK" ;;
	skip) echo "#$n host/$1:SKIP ($3)" ;;
	*) echo "#$n host/$1:FAIL"; [ -n "${3:-}" ] && echo "  $3" ;;
	esac
}

# 1. The series applies in order to a fresh unpack and is checkpatch clean.
src=$tmp/linux
mkdir -p "$src"
tar -xf "$tarball" -C "$src" --strip-components=1
ok=0 why=
for p in "$top"/kernel/patches/*.patch; do
	if ! msg=$(cd "$src" && git apply "$p" 2>&1); then
		ok=1 why="$(basename "$p"): $msg"
		break
	fi
done
result series_applies $ok "$why"

ok=0 why=
for p in "$top"/kernel/patches/*.patch; do
	# checkpatch wants Debian's python3 (with ply) for its SPDX check
	res=$(cd "$src" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict "$p" 2>&1)
	if ! grep -q '^total: 0 errors, 0 warnings, 0 checks' <<<"$res"; then
		ok=1 why+="$(basename "$p"): $(grep -E '^(ERROR|WARNING|CHECK|total)' <<<"$res" | tr '\n' ' ') "
	fi
done
result series_checkpatch_strict $ok "$why"

# 2. A patch that no longer applies stops the build, naming the hunk.
mkdir -p "$tmp/k"
cp -r "$top/kernel/." "$tmp/k/"
bad=$(ls "$tmp"/k/patches/*.patch | sed -n 2p)
# Change a context line of an mm/memcontrol.c hunk.
sed -i 's/^ \treturn READ_ONCE(memcg->vmstats->events_local\[i\]);/ \treturn READ_ONCE(memcg->vmstats->events_gone[i]);/' "$bad"
grep -q events_gone "$bad" || echo "host/run.sh: corrupting $bad changed nothing" >&2
out=$(MEMCGSTAT_CACHE=$tmp/cache "$tmp/k/build.sh" 2>&1)
rc=$?
if [ $rc != 0 ] && grep -q "does not apply" <<<"$out" && grep -qE 'patch failed: mm/memcontrol.c:[0-9]+' <<<"$out"; then
	result build_stops_on_stale_patch 0
else
	result build_stops_on_stale_patch 1 "exit $rc, output: $out"
fi

# 3. The VM runner: exit status, timeout, splat detection.
kdir=$("$top/kernel/build.sh" --print-dir)
if [ ! -s "$kdir/bzImage" ]; then
	for t in vm_exit_status vm_timeout vm_splat_fails_run; do
		result $t skip "kernel not built: make kernel"
	done
	exit 0
fi
vm() { "$top/selftests/vmtest.sh" -q -k "$kdir" "$@"; }

vm -t 300 -- sh -c 'exit 7' >"$tmp/out" 2>&1
rc=$?
[ $rc = 7 ]; result vm_exit_status $? "exit $rc, expected 7: $(tail -5 "$tmp/out")"

vm -t 20 -- sleep 1000 >"$tmp/out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "timed out" "$tmp/out"
result vm_timeout $? "exit $rc: $(tail -5 "$tmp/out")"

vm -t 300 -- sh -c 'echo "WARNING: CPU: 0 PID: 1 at memcgstat/fake.c:1 injected" >/dev/kmsg' >"$tmp/out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "splat" "$tmp/out"
result vm_splat_fails_run $? "exit $rc: $(tail -5 "$tmp/out")"
