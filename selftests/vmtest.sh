#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the memcgstat test kernel in qemu and run one command in it.
#
#   vmtest.sh [options] [--] COMMAND [ARG...]
#
# The guest's root is the host's / shared read-only over 9p; the command runs
# as root in the current directory, with a tmpfs /tmp. The exit status is the
# command's, or 1 if the guest never reported one (crash, hang, timeout), or
# 1 if the kernel log shows a splat (BUG, WARNING, KASAN, UBSAN, lockdep,
# lockup, RCU stall, Oops, panic) even though the command succeeded.
#
# Options:
#   -k DIR      directory with bzImage (default: what kernel/build.sh builds)
#   -c v1|v2    cgroup hierarchy for the memory controller (default: v2)
#   -n NODES    fake NUMA nodes (numa=fake=NODES)
#   -a ARGS     extra kernel command line
#   -m SIZE     guest memory (default: 2G)
#   -p CPUS     guest CPUs (default: 2)
#   -t SECS     timeout (default: 900)
#   -b SECS     boot limit: the guest must reach vm-init.sh within SECS
#               or the run fails then, not at -t's end (default: 900, or
#               -t if less; 0: none)
#   -o DIR      keep console.log, output, dmesg and status in DIR
#               (default: a temporary directory)
#   -s          interactive: serial console on this terminal, no command
#   -q          no closing "vmtest: exit N" line
#   -T          TCG even where KVM works (a baseline for -I's timings)
#   -I FILE     count guest instructions: load the insncount QEMU plugin
#               (build/insn/insncount.so, or $INSNCOUNT_PLUGIN; make -C
#               bench/insn builds it), which writes its counts to FILE when
#               the VM ends (bench/insn/insncount.c says what they are).
#               Forces TCG and 1 vCPU whatever -p says: plugins do not run
#               under KVM and the plugin counts one vCPU only. The run fails
#               if FILE is not written.
#   -P ARGS     more plugin arguments with -I, comma separated, e.g.
#               profile=on,profile_id=7 (see insncount.c)
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kdir= cgroup=v2 nodes= extra= mem=2G cpus=2 timeout=900 outdir= shell=0 quiet=0
tcg=0 insn='' pargs='' bootlimit=900

usage() { sed -n '3,/^set /p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 2; }
while getopts "k:c:n:a:m:p:t:o:b:sqTI:P:h" opt; do
	case $opt in
	k) kdir=$OPTARG ;;
	c) cgroup=$OPTARG ;;
	n) nodes=$OPTARG ;;
	a) extra=$OPTARG ;;
	m) mem=$OPTARG ;;
	p) cpus=$OPTARG ;;
	t) timeout=$OPTARG ;;
	o) outdir=$OPTARG ;;
	b) bootlimit=$OPTARG ;;
	s) shell=1 ;;
	q) quiet=1 ;;
	T) tcg=1 ;;
	I) insn=$OPTARG ;;
	P) pargs=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
for n in "$timeout" "$bootlimit"; do
	case $n in ''|*[!0-9]*) echo "vmtest: -t and -b take whole seconds, not '$n'" >&2; exit 2 ;; esac
done
case $cgroup in v1|v2) ;; *) echo "vmtest: -c takes v1 or v2, not '$cgroup'" >&2; exit 2 ;; esac
[ $shell = 1 ] || [ $# -gt 0 ] || { echo "vmtest: no command given" >&2; usage; }
[ -z "$pargs" ] || [ -n "$insn" ] || { echo "vmtest: -P needs -I" >&2; exit 2; }
plugin=''
if [ -n "$insn" ]; then
	plugin=${INSNCOUNT_PLUGIN:-$top/build/insn/insncount.so}
	[ -f "$plugin" ] || { echo "vmtest: no plugin at $plugin (make -C bench/insn)" >&2; exit 1; }
	mkdir -p "$(dirname "$insn")"
	insn=$(cd "$(dirname "$insn")" && pwd)/$(basename "$insn")
	# qemu splits -plugin's value at commas
	case "$plugin$insn" in *,*) echo "vmtest: no commas in the plugin's or FILE's path" >&2; exit 2 ;; esac
	rm -f "$insn"
	tcg=1 cpus=1
fi

[ -n "$kdir" ] || kdir=$("$top/kernel/build.sh" --print-dir)
[ -s "$kdir/bzImage" ] || { echo "vmtest: no kernel at $kdir/bzImage (run make kernel)" >&2; exit 1; }

cache=${MEMCGSTAT_CACHE:-/var/cache/memcgstat}
mkdir -p "$cache"

if [ -z "$outdir" ]; then
	outdir=$(mktemp -d /tmp/vmtest.XXXXXX)
	trap 'rm -rf "$outdir"' EXIT
fi
mkdir -p "$outdir"
rm -f "$outdir"/{status,dmesg,console.log,output,cmd,cwd}

# Default to failure: only a guest that reaches the end of vm-init.sh
# overwrites it.
echo 1 >"$outdir/status"

# KVM only when it is there and really runs a guest: on some hosts /dev/kvm
# exists but guests hang. The probe boots this kernel with KVM once per host
# boot and kernel, and must see it reach userspace within 30 s.
accel() {
	local probe id
	if [ ! -c /dev/kvm ] || [ ! -w /dev/kvm ]; then
		echo tcg
		return
	fi
	id=$(cat /proc/sys/kernel/random/boot_id)
	probe=$cache/kvm-probe-$id-$(stat -c %Y "$kdir/bzImage")
	if [ ! -f "$probe" ]; then
		if timeout 30 qemu-system-x86_64 -accel kvm -cpu host -m 256M -smp 1 \
			-kernel "$kdir/bzImage" -append "console=ttyS0 panic=-1 init=/nonexistent" \
			-display none -serial stdio -no-reboot -nodefaults 2>/dev/null |
			grep -q "Run /nonexistent as init process"; then
			echo kvm >"$probe"
		else
			echo tcg >"$probe"
		fi
	fi
	cat "$probe"
}
if [ $tcg = 1 ]; then
	acc=tcg
else
	acc=$(accel)
fi
if [ "$acc" = kvm ]; then
	accargs=(-accel kvm -cpu host)
else
	accargs=(-accel tcg -cpu max)
fi

append="console=ttyS0 root=/dev/root rootfstype=9p"
append+=" rootflags=trans=virtio,version=9p2000.L,cache=loose,msize=512000"
append+=" ro panic=-1 oops=panic memcgstat.cgroup=$cgroup memcgstat.top=$top"
[ -n "$nodes" ] && append+=" numa=fake=$nodes"
# Under TCG (and far more with KASAN and lockdep) a guest CPU can lag the
# host clock by many seconds; give the soft lockup detector its largest
# threshold (it fires after 2 x 60 s) rather than report emulation lag, and
# RCU's stall checks 300 s instead of 21: a debug kernel booting while other
# guests share the 2 host cores saw 28 s jumps of its clock and warned of a
# grace period that "had not started" (rcu_check_gp_start_stall).
[ "$acc" = tcg ] && append+=" watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=300"
# PCI interrupts from the firmware's routing table, not ACPI's _PRT: under
# TCG the KASAN + lockdep kernel's AML interpreter ran past ACPICA's 30 s
# loop timeout there (AE_AML_LOOP_TIMEOUT, "virtio-pci 0000:00:03.0: PCI
# INT A: no GSI"), and vm-init.sh's 9p mount of /tmp/out then waited
# forever: two boots in a row hit the 900 s boot limit on 2026-12-03. With
# acpi=noirq that kernel reached vm-init.sh in 28 s (116 s the day before).
append+=" acpi=noirq"
if [ $shell = 1 ]; then
	append+=" init=/bin/bash"
else
	append+=" init=$top/selftests/vm-init.sh"
fi
[ -n "$extra" ] && append+=" $extra"

printf '%s\n' "$(printf '%q ' "$@")" >"$outdir/cmd"
pwd >"$outdir/cwd"

qemu=(qemu-system-x86_64 "${accargs[@]}" -m "$mem" -smp "$cpus"
	-kernel "$kdir/bzImage" -append "$append"
	-nodefaults -display none -no-reboot
	-fsdev "local,id=root,path=/,readonly=on,security_model=none,multidevs=remap"
	-device virtio-9p-pci,fsdev=root,mount_tag=/dev/root
	-fsdev "local,id=out,path=$outdir,security_model=none"
	-device virtio-9p-pci,fsdev=out,mount_tag=out
	-fsdev "local,id=top,path=$top,readonly=on,security_model=none,multidevs=remap"
	-device virtio-9p-pci,fsdev=top,mount_tag=top)
[ -n "$insn" ] && qemu+=(-plugin "file=$plugin,outfile=$insn${pargs:+,$pargs}")

if [ $shell = 1 ]; then
	exec "${qemu[@]}" -serial mon:stdio
fi

# qemu itself may crash (SIGSEGV under TCG, once in a CI run of
# 2026-12-07, 0.6 s into the guest's boot): a qemu that dies of a signal
# before the guest reaches vm-init.sh ran nothing of the test, and boots
# once more, saying so. Any other end, and any crash after vm-init.sh
# began, is the run's.
for attempt in 1 2; do
	start=$(date +%s)
	timeout --foreground -k 5 "$timeout" "${qemu[@]}" -serial "file:$outdir/console.log" </dev/null &
	qpid=$!
	# (in the background it would not see a ^C of this script's)
	trap 'kill -TERM "$qpid" 2>/dev/null; exit 130' INT TERM
	# A guest that hangs while booting says nothing more: rather than wait out
	# -t, stop it if it has not reached vm-init.sh (its first console line)
	# within the boot limit. The seconds it took go in the closing line.
	[ "$bootlimit" -lt "$timeout" ] || bootlimit=0
	boot= stopped=0
	while kill -0 "$qpid" 2>/dev/null; do
		if grep -q '^vm-init: cgroup' "$outdir/console.log" 2>/dev/null; then
			boot=$(( $(date +%s) - start ))
			break
		fi
		if [ "$bootlimit" -gt 0 ] && [ $(( $(date +%s) - start )) -ge "$bootlimit" ]; then
			stopped=1
			kill -TERM "$qpid" 2>/dev/null
			break
		fi
		sleep 1
	done
	wait "$qpid"
	qrc=$?
	if [ $attempt = 1 ] && [ $qrc -gt 128 ] && [ $qrc != 137 ] && [ $stopped = 0 ] &&
	   ! grep -q '^vm-init: cgroup' "$outdir/console.log" 2>/dev/null; then
		echo "vmtest: qemu died of signal $((qrc - 128)) before the guest reached vm-init.sh; booting again. Its last console lines:" >&2
		tail -3 "$outdir/console.log" 2>/dev/null >&2
		rm -f "$outdir"/{dmesg,console.log,output}
		echo 1 >"$outdir/status"
		continue
	fi
	break
done
secs=$(( $(date +%s) - start ))
# a guest that booted and powered off between two of the checks above
# booted within the run: its seconds are those (an upper bound)
if [ -z "$boot" ] && [ $stopped = 0 ] && grep -q '^vm-init: cgroup' "$outdir/console.log" 2>/dev/null; then
	boot=$secs
fi
status=$(cat "$outdir/status")

# Splats anywhere in the kernel log fail the run, whatever the command said.
splat_re='BUG:|WARNING:|KASAN:|UBSAN:|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|soft lockup|hard LOCKUP|rcu_.*detected stall|rcu: INFO:|Oops|Kernel panic|general protection fault|kernel BUG'
splats=$(cat "$outdir/console.log" "$outdir/dmesg" 2>/dev/null | grep -E "$splat_re" | sort -u)

fail=
if [ $stopped = 1 ]; then
	fail="guest did not reach vm-init.sh within the boot limit of $bootlimit s"
elif [ $qrc = 124 ] || [ $qrc = 137 ]; then
	fail="timed out after $timeout s"
elif [ -n "$splats" ]; then
	fail="kernel log shows a splat"
	[ "$status" = 0 ] && status=1
elif [ ! -s "$outdir/dmesg" ]; then
	fail="guest did not finish (qemu exit $qrc)"
elif [ -n "$insn" ] && [ ! -s "$insn" ]; then
	fail="the insncount plugin wrote nothing to $insn"
fi

cat "$outdir/output" 2>/dev/null
if [ -n "$fail" ]; then
	echo "vmtest: FAIL: $fail; last console lines:" >&2
	tail -40 "$outdir/console.log" >&2
	[ -n "$splats" ] && echo "$splats" >&2
	exit 1
fi
[ $quiet = 1 ] || echo "vmtest: exit $status in ${secs}s (${boot:+booted in ${boot}s, }$acc, cgroup $cgroup${nodes:+, $nodes nodes}, $cpus vCPU$([ "$cpus" = 1 ] || echo s)${insn:+, instructions counted to $insn})" >&2
exit "$status"
