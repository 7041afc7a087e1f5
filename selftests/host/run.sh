#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests: the kernel series and its build, and the VM runner itself.
# Prints "#N host/name:OK|FAIL|SKIP (why)" per test.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
tarball=${MEMCGSTAT_KSRC:-/usr/src/linux-source-6.12.tar.xz}
tmp=$(mktemp -d /tmp/memcgstat-host.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
SUITE=host
. "$top/selftests/lib.sh"

# 1. The series goes on a fresh unpack with git am, in order, and is
# checkpatch --strict and kernel-doc -Wall clean.
src=$tmp/linux
mkdir -p "$src"
tar -xf "$tarball" -C "$src" --strip-components=1
g() { git -C "$src" -c gc.auto=0 -c user.name=memcgstat -c user.email=memcgstat@localhost "$@"; }
# The files the series changes, as the unpack has them: git am needs those
# tracked, and checkpatch's SPDX check reads LICENSES/ from the repository;
# only those (a commit of all 80,000 files, and removing its objects after,
# took minutes on a disk mounted with discard).
touched=$(sed -n 's,^diff --git a/\([^ ]*\) b/.*,\1,p' "$top"/kernel/patches/*.patch | sort -u |
	  while read -r f; do [ -e "$src/$f" ] && echo "$f"; done)
# ... and, unpatched, what section 2's build.sh unpacks instead of the
# 1.4 GB tree again
# shellcheck disable=SC2086 # the file names are words
tar -C "$src" -cf "$tmp/touched.tar" --transform 's,^,linux/,' $touched
ok=0 why=
# Debian's tree ignores everything at its top level (its .gitignore): -f
# shellcheck disable=SC2086 # the file names are words
if ! msg=$(g init -q && g add -f $touched LICENSES && g commit -q -m base 2>&1); then
	ok=1 why="git init: $msg"
fi
for p in "$top"/kernel/patches/*.patch; do
	[ $ok = 0 ] || break
	if ! msg=$(g am -q "$p" 2>&1); then
		ok=1 why="$(basename "$p"): $msg"
	fi
done
check series_git_am $ok "$why"

ok=0 why=
for p in "$top"/kernel/patches/*.patch; do
	# checkpatch wants Debian's python3 (with ply) for its SPDX check
	res=$(cd "$src" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict "$p" 2>&1)
	# ... and python3-git: without it the SPDX check dies with a traceback
	if ! grep -q '^total: 0 errors, 0 warnings, 0 checks' <<<"$res" ||
	   grep -q '^Traceback' <<<"$res"; then
		ok=1 why+="$(basename "$p"): $(grep -E '^(ERROR|WARNING|CHECK|total|Traceback|[A-Za-z]*Error)' <<<"$res" | tr '\n' ' ') "
	fi
done
check series_checkpatch_strict $ok "$why"

# kernel-doc on every file the series adds, and on the functions it adds to
# mm/memcontrol.c (whose older comments kernel-doc -Wall also reports)
ok=0 why=
for f in mm/bpf_memcontrol.c mm/bpf_memcgstat.c; do
	res=$(cd "$src" && ./scripts/kernel-doc -Wall -none "$f" 2>&1)
	[ -z "$res" ] || { ok=1 why+="$f: $res "; }
done
res=$(cd "$src" && ./scripts/kernel-doc -Wall -none mm/memcontrol.c 2>&1 |
      grep -E 'memcg_stat_item_valid|memcg_vm_event_item_valid')
[ -z "$res" ] || { ok=1 why+="mm/memcontrol.c: $res"; }
check series_kernel_doc $ok "$why"

# The selftests patches (3 for 7.0's kfuncs, 7 for memcgstat's) add every
# kfunc selftest as it is here, and leave the kernel's bpf_misc.h alone
# (selftests/kfuncs/bpf_misc.h only stands in for it in the build here).
ok=0 why=
for f in $(cd "$top/selftests/kfuncs" && ls progs/*.c prog_tests/*.c); do
	cmp -s "$src/tools/testing/selftests/bpf/$f" "$top/selftests/kfuncs/$f" ||
		{ ok=1 why+="$f differs from selftests/kfuncs/$f (regenerate the patch) "; }
done
if grep -q '^+++ b/tools/testing/selftests/bpf/progs/bpf_misc\.h$' "$top"/kernel/patches/*.patch; then
	ok=1 why+="the series changes the kernel's progs/bpf_misc.h "
fi
check series_selftests_current $ok "$why"

# Without memcgstat's additions the series registers exactly Linux 7.0's
# kfunc set (mm/bpf_memcontrol.c of v7.0), flags included; the additions
# stay out of upstream's file and namespace.
flags() { sed -n 's/^BTF_ID_FLAGS(func, \([a-z_]*\), \(.*\))$/\1 \2/p' "$@" | sort; }
want="bpf_get_mem_cgroup KF_ACQUIRE | KF_RET_NULL | KF_RCU
bpf_get_root_mem_cgroup KF_ACQUIRE | KF_RET_NULL
bpf_mem_cgroup_flush_stats KF_TRUSTED_ARGS | KF_SLEEPABLE
bpf_mem_cgroup_memory_events KF_TRUSTED_ARGS
bpf_mem_cgroup_page_state KF_TRUSTED_ARGS
bpf_mem_cgroup_usage KF_TRUSTED_ARGS
bpf_mem_cgroup_vm_events KF_TRUSTED_ARGS
bpf_put_mem_cgroup KF_RELEASE"
got=$(flags "$src/mm/bpf_memcontrol.c")
ok=0 why=
[ "$got" = "$want" ] || { ok=1 why="mm/bpf_memcontrol.c registers: $got"; }
extra=$(flags "$src/mm/bpf_memcgstat.c" | grep -v '^bpf_memcgstat_')
[ -z "$extra" ] || { ok=1 why+=" additions outside bpf_memcgstat_*: $extra"; }
ls "$top"/kernel/patches/*-memcgstat-*.patch >/dev/null 2>&1 || { ok=1 why+=" no *-memcgstat-* patch"; }
check series_upstream_kfunc_set $ok "$why"

# 2. A patch that no longer applies stops the build, naming the hunk.
mkdir -p "$tmp/k"
cp -r "$top/kernel/." "$tmp/k/"
bad=$(ls "$tmp"/k/patches/*.patch | sed -n 1p)
# Change a context line of an mm/memcontrol.c hunk.
sed -i 's/^ \treturn READ_ONCE(memcg->vmstats->events_local\[i\]);/ \treturn READ_ONCE(memcg->vmstats->events_gone[i]);/' "$bad"
grep -q events_gone "$bad" || echo "host/run.sh: corrupting $bad changed nothing" >&2
out=$(MEMCGSTAT_CACHE=$tmp/cache MEMCGSTAT_KSRC=$tmp/touched.tar "$tmp/k/build.sh" 2>&1)
rc=$?
if [ $rc != 0 ] && grep -q "does not apply" <<<"$out" && grep -qE 'patch failed: mm/memcontrol.c:[0-9]+' <<<"$out"; then
	ok build_stops_on_stale_patch
else
	check build_stops_on_stale_patch 1 "exit $rc, output: $out"
fi

# 3. The VM runner: exit status, boot limit, timeout, splat detection.
for a in "-b 1m" "-t -5" "-b x"; do
	# shellcheck disable=SC2086 # an option and its value
	"$top/selftests/vmtest.sh" -k /nonexistent $a -- true >"$tmp/out" 2>&1
	rc=$?
	[ $rc = 2 ] && grep -q 'take whole seconds' "$tmp/out"
	check "vm_refuses_${a//[ -]/}" $? "exit $rc: $(cat "$tmp/out")"
done
# Two copies of the tree, at paths of other lengths, build the very same
# BPF objects and so the same pin name (lib/Makefile's memcg_pin_id.h): a
# library built in another checkout shares a running exporter's pins. The
# objects carry BTF and its line info, no DWARF (whose paths are absolute).
ok=0 why=
for d in a bbbbbbbb; do
	mkdir -p "$tmp/tree-$d"
	tar -C "$top" --exclude=./build --exclude=./.git -cf - . | tar -C "$tmp/tree-$d" -xf - ||
		{ ok=1 why+="copy $d failed "; }
	out=$tmp/tree-$d/build/lib
	msg=$(timeout 300 make -s -C "$tmp/tree-$d/lib" "$out/memcg_pin_id.h" 2>&1) ||
		{ ok=1 why+="make in $d: $msg "; }
done
for f in memcg_pin_id.h memcg_iter.bpf.o memcg_iter.upstream.bpf.o; do
	cmp -s "$tmp/tree-a/build/lib/$f" "$tmp/tree-bbbbbbbb/build/lib/$f" || { ok=1 why+="$f differs "; }
done
for f in memcg_iter.bpf.o memcg_iter.upstream.bpf.o; do
	secs=$(readelf -SW "$tmp/tree-a/build/lib/$f" 2>&1)
	grep -q ' \.BTF\.ext ' <<<"$secs" || { ok=1 why+="$f: no .BTF.ext "; }
	! grep -q ' \.debug_' <<<"$secs" || { ok=1 why+="$f: DWARF left "; }
done
grep -qE '^#define MCS_PIN_ID "[0-9a-f]{16}"$' "$tmp/tree-a/build/lib/memcg_pin_id.h" ||
	{ ok=1 why+="memcg_pin_id.h: $(head -c 200 "$tmp/tree-a/build/lib/memcg_pin_id.h") "; }
check pin_id_same_in_two_checkouts $ok "$why"

# ... and on two build hosts: the library's programs are compiled against
# bpf/kernel_types.h, not the vmlinux.h of the build host's kernel, so one
# tree built with two kernels' BTF (VMLINUX_BTF) makes the same objects.
# The host's goes first: the release and the 7.0-API kernels are both
# 6.12, with the same layouts, and would not tell.
btfs=()
for f in /sys/kernel/btf/vmlinux "$("$top/kernel/build.sh" --print-dir)/vmlinux" \
	 "$("$top/kernel/build.sh" --upstream --print-dir)/vmlinux"; do
	[ -s "$f" ] || continue
	[ ${#btfs[@]} = 1 ] && cmp -s "$f" "${btfs[0]}" && continue
	btfs+=("$f")
	[ ${#btfs[@]} = 2 ] && break
done
if [ ${#btfs[@]} -lt 2 ]; then
	skip pin_id_same_with_two_kernels_btf "one kernel BTF here (${btfs[*]:-none}): make kernel"
else
	ok=0 why=
	for i in 0 1; do
		msg=$(timeout 300 make -s -C "$tmp/tree-a/lib" BUILD="$tmp/tree-a/build-btf$i" \
			VMLINUX_BTF="${btfs[$i]}" "$tmp/tree-a/build-btf$i/lib/memcg_pin_id.h" 2>&1) ||
			{ ok=1 why+="make with ${btfs[$i]}: $msg "; }
	done
	for f in memcg_pin_id.h memcg_iter.bpf.o memcg_iter.upstream.bpf.o; do
		cmp -s "$tmp/tree-a/build-btf0/lib/$f" "$tmp/tree-a/build-btf1/lib/$f" ||
			{ ok=1 why+="$f differs between ${btfs[0]} and ${btfs[1]} "; }
	done
	check pin_id_same_with_two_kernels_btf $ok "$why"
fi
rm -rf "$tmp/tree-a" "$tmp/tree-bbbbbbbb"

# libbpf's print callback is one per process: a library swapping it around
# its calls races with an embedder's threads. libmemcgstat never sets it.
so=$top/build/lib/libmemcgstat.so
if [ ! -s "$so" ]; then
	skip lib_leaves_libbpf_print_alone "no $so: make user"
else
	undef=$(nm -D --undefined-only "$so" 2>&1)
	grep -q ' U bpf_object__open' <<<"$undef" && ! grep -qw libbpf_set_print <<<"$undef"
	check lib_leaves_libbpf_print_alone $? "nm -D: $(grep -w 'libbpf_set_print\|nm:' <<<"$undef")"
fi

# The release named in lib/memcgstat.h is the newest the interface speaks
# of: no symbol version node of lib/libmemcgstat.map, no "since" of the
# header past it; debian/changelog names it, and debian's symbols file asks
# at least a node's release for each of its symbols.
ok=0 why=
ver=$(sed -n 's/^#define MEMCGSTAT_VERSION "\(.*\)"$/\1/p' "$top/lib/memcgstat.h")
rel=${ver%.*}
newer() { [ "$1" != "$2" ] && [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | tail -1)" = "$1" ]; }
for n in $(sed -n 's/^LIBMEMCGSTAT_\([0-9.]*\) {$/\1/p' "$top/lib/libmemcgstat.map"); do
	newer "$n" "$rel" && { ok=1 why+="node LIBMEMCGSTAT_$n past $ver; "; }
done
for n in $(grep -oiE 'since [0-9]+\.[0-9]+' "$top/lib/memcgstat.h" | cut -d' ' -f2 | sort -u); do
	newer "$n" "$rel" && { ok=1 why+="memcgstat.h: since $n, past $ver; "; }
done
cl=$(sed -n '1s/^memcgstat (\([^-)]*\).*/\1/p' "$top/debian/changelog")
[ "$cl" = "$ver" ] || { ok=1 why+="debian/changelog $cl; "; }
while read -r sym min; do
	n=${sym#*@LIBMEMCGSTAT_}
	[ "$n" = 0 ] && n=0.0
	newer "$n" "${min%.*}" && { ok=1 why+="$sym at $min; "; }
done < <(grep '^ [a-z_]*@LIBMEMCGSTAT_' "$top/debian/libmemcgstat0.symbols")
[ -n "$ver" ] || { ok=1 why+="no MEMCGSTAT_VERSION; "; }
check abi_versions_in_release $ok "MEMCGSTAT_VERSION $ver: $why"

kdir=$("$top/kernel/build.sh" --print-dir)
if [ ! -s "$kdir/bzImage" ]; then
	for t in vm_exit_status vm_boot_limit vm_boot_limit_no_qemu_left vm_timeout vm_splat_fails_run \
		 vm_qemu_crash_boots_again vm_qemu_crashing_twice_fails; do
		skip $t "kernel not built: make kernel"
	done
	finish
fi
vm() { "$top/selftests/vmtest.sh" -q -k "$kdir" "$@"; }

# the closing line says the boot's seconds too
"$top/selftests/vmtest.sh" -k "$kdir" -t 300 -- sh -c 'exit 7' >"$tmp/out" 2>&1
rc=$?
[ $rc = 7 ] && grep -qE '^vmtest: exit 7 in [0-9]+s \(booted in [0-9]+s, ' "$tmp/out"
check vm_exit_status $? "exit $rc, expected 7: $(tail -5 "$tmp/out")"

# A boot that hangs before vm-init.sh: PID 1 is sleep(1) (the last init=
# wins; what follows " -- " is its argument). It fails at -b, named so, not
# at -t's end, and leaves no qemu behind.
vm -t 1200 -b 60 -a "init=/bin/sleep -- 100000" -- true >"$tmp/out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q '^vmtest: FAIL: guest did not reach vm-init.sh within the boot limit of 60 s;' "$tmp/out"
check vm_boot_limit $? "exit $rc: $(tail -5 "$tmp/out")"
left=$(pgrep -af 'init=/bin/sleep -- 100000')
[ -z "$left" ]; check vm_boot_limit_no_qemu_left $? "still running: $left"

vm -t 20 -- sleep 1000 >"$tmp/out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "timed out" "$tmp/out"
check vm_timeout $? "exit $rc: $(tail -5 "$tmp/out")"

vm -t 300 -- sh -c 'echo "WARNING: CPU: 0 PID: 1 at memcgstat/fake.c:1 injected" >/dev/kmsg' >"$tmp/out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "splat" "$tmp/out"
check vm_splat_fails_run $? "exit $rc: $(tail -5 "$tmp/out")"

# qemu dying of a signal before the guest reaches vm-init.sh boots once
# more, said; twice fails the run. A qemu-system-x86_64 first in PATH that
# kills itself with SIGSEGV (on its first call, or on every one) and else
# runs the real one; the KVM probe's calls go to the real one.
real=$(command -v qemu-system-x86_64)
mkdir -p "$tmp/qemu"
cat >"$tmp/qemu/qemu-system-x86_64" <<EOF
#!/bin/bash
case "\$*" in *"-accel kvm"*) exec "$real" "\$@" ;; esac
if [ ! -e "$tmp/qemu/crashed" ] || [ -e "$tmp/qemu/always" ]; then
	touch "$tmp/qemu/crashed"
	kill -SEGV \$\$
fi
exec "$real" "\$@"
EOF
chmod +x "$tmp/qemu/qemu-system-x86_64"
PATH=$tmp/qemu:$PATH "$top/selftests/vmtest.sh" -k "$kdir" -t 300 -- sh -c 'exit 7' >"$tmp/out" 2>&1
rc=$?
[ $rc = 7 ] && grep -q '^vmtest: qemu died of signal 11 before the guest reached vm-init.sh; booting again' "$tmp/out" &&
	grep -qE '^vmtest: exit 7 in [0-9]+s' "$tmp/out"
check vm_qemu_crash_boots_again $? "exit $rc: $(tail -5 "$tmp/out")"
touch "$tmp/qemu/always"
PATH=$tmp/qemu:$PATH vm -t 300 -- true >"$tmp/out" 2>&1
rc=$?
[ $rc = 1 ] && [ "$(grep -c 'booting again' "$tmp/out")" = 1 ] &&
	grep -q '^vmtest: FAIL: guest did not finish (qemu exit 139)' "$tmp/out"
check vm_qemu_crashing_twice_fails $? "exit $rc: $(tail -5 "$tmp/out")"
finish
