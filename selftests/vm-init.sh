#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PID 1 of the memcgstat test VM (see vmtest.sh). The root is the host's /,
# read-only over 9p; /tmp is a tmpfs; /tmp/out is the host's output
# directory (writable 9p), holding the command to run and receiving its
# exit status and the kernel log.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp

mount -t proc proc /proc
mount -t sysfs sys /sys
# as systemd does: where memcgstat --pin pins
mount -t bpf bpf /sys/fs/bpf
mountpoint -q /dev || mount -t devtmpfs dev /dev
ln -sf /proc/self/fd /dev/fd
mount -t tmpfs -o mode=1777 tmp /tmp
mount -t tmpfs -o mode=755 run /run
mkdir /tmp/out
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 out /tmp/out

# cgroup mode from the kernel command line: memcgstat.cgroup=v1|v2; the
# checkout: memcgstat.top=DIR
mode=v2
top=
for arg in $(cat /proc/cmdline); do
	case $arg in
	memcgstat.cgroup=*) mode=${arg#*=} ;;
	memcgstat.top=*) top=${arg#*=} ;;
	esac
done
# A checkout below /tmp is hidden by the tmpfs: mount it again, from its
# own share.
case $top in
/tmp/*)
	mkdir -p "$top"
	mount -t 9p -o trans=virtio,version=9p2000.L,cache=loose,msize=512000 top "$top"
	;;
esac
case $mode in
v2)
	mount -t cgroup2 none /sys/fs/cgroup
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control
	;;
v1)
	mount -t tmpfs -o mode=755 cgroup /sys/fs/cgroup
	mkdir /sys/fs/cgroup/memory /sys/fs/cgroup/unified
	mount -t cgroup -o memory memory /sys/fs/cgroup/memory
	mount -t cgroup2 none /sys/fs/cgroup/unified
	;;
esac
ip link set lo up 2>/dev/null

echo "vm-init: cgroup $mode, running /tmp/out/cmd"
cd "$(cat /tmp/out/cwd)" || cd /
bash /tmp/out/cmd </dev/null 2>&1 | tee /tmp/out/output
status=${PIPESTATUS[0]}
echo "vm-init: command exited with $status"

dmesg >/tmp/out/dmesg
echo $status >/tmp/out/status
sync
umount /tmp/out
# -ff: reboot(2) at once, without asking a service manager; qemu runs with
# -no-reboot, so that ends the VM.
reboot -ff
echo "vm-init: reboot failed" >&2
sleep 5
