#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb's packages on this machine: built (lintian without errors, the
# BPF objects those of the tree's own build), installed with dpkg -i,
# memcgstat and the exporter (as its packaged unit runs it) read a cgroup of
# the test's own with the exact values of its files, then dpkg --purge
# leaves the machine as it was: every path of the packages as before, no
# file named memcgstat in /etc, /usr, /lib or /var, the same users, no
# cgroup left. The machine is left so on failure too. SKIPs if any of the
# packages is installed already. Prints "#N deb/NAME:OK|FAIL|SKIP (why)".
#
#   deb.sh [MEMHOG [DEBDIR]]    DEBDIR: packages built before (else make deb)
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
memhog=${1:-$top/build/selftests/memhog}
debdir=${2:-}
SUITE=deb
. "$top/selftests/lib.sh"
pkgs=(memcgstat-exporter memcgstat libmemcgstat-dev libmemcgstat0)
tmp=$(mktemp -d /tmp/memcgstat-deb.XXXXXX)
cg= epid= installed=0 pids=()

cleanup() {
	[ -n "$epid" ] && kill "$epid" 2>/dev/null
	kill "${pids[@]}" 2>/dev/null
	wait 2>/dev/null
	[ $installed = 1 ] && dpkg_ --purge "${pkgs[@]}" >/dev/null
	rm_cgroups "$cg"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# dpkg, retried while another dpkg or apt holds its lock (2 min at most)
dpkg_() {
	local out rc i
	for i in $(seq 60); do
		out=$(dpkg "$@" 2>&1)
		rc=$?
		[ $rc != 0 ] && grep -q 'lock' <<<"$out" || break
		sleep 2
	done
	printf '%s\n' "$out"
	return $rc
}
known() {	# the packages dpkg knows of (installed, or with their conffiles)
	dpkg-query -W -f='${Package} ${Status}\n' "${pkgs[@]}" 2>/dev/null | grep -v ' not-installed$'
}

if [ "$(id -u)" != 0 ]; then
	skip deb "not root"
	finish
fi
if [ -n "$(known)" ]; then
	skip deb "memcgstat packages installed here already: $(known | paste -sd';')"
	finish
fi

# --- build
if [ -z "$debdir" ]; then
	debdir=$top/build/deb
	start=$(date +%s)
	out=$(make -s -C "$top" deb 2>&1)
	rc=$?
	echo "  make deb: exit $rc in $(( $(date +%s) - start )) s"
	check make_deb $rc "$out"
fi
debs=()
for p in "${pkgs[@]}"; do
	f=$(ls "$debdir/${p}_"*.deb 2>/dev/null | head -1)
	[ -n "$f" ] && debs+=("$f")
done
if [ ${#debs[@]} != ${#pkgs[@]} ]; then
	fail debs_built "in $debdir: $(ls "$debdir" 2>&1)"
	finish
fi
# lintian ran in make deb: no error, the warnings said here
l=$debdir/lintian.txt
[ -f "$l" ] && ! grep -q '^E: ' "$l"
check lintian_no_errors $? "$(cat "$l" 2>&1)"
grep '^[WE]: ' "$l" 2>/dev/null | sed 's/^/  lintian: /'
# the units an operator enables (the pins, the textfile exporter) are
# stopped on removal and restarted on upgrade by the packages' scripts, not
# left to the old binary (dh_installsystemd --no-start wrote no such lines)
bad=
for pu in memcgstat:memcgstat-pin.service memcgstat-exporter:memcgstat-exporter-textfile.service; do
	rm -rf "$tmp/ctl"
	dpkg-deb -e "$debdir/${pu%%:*}_"*.deb "$tmp/ctl" 2>/dev/null
	grep -qF "stop '${pu#*:}'" "$tmp/ctl/prerm" 2>/dev/null || bad+="${pu%%:*} prerm stops no ${pu#*:}; "
	grep -qF "\$_dh_action '${pu#*:}'" "$tmp/ctl/postinst" 2>/dev/null ||
		bad+="${pu%%:*} postinst restarts no ${pu#*:}; "
done
[ -z "$bad" ]
check enabled_units_follow_upgrades $? "$bad"
# the packaged library's BPF objects are the tree's build's (bpf_cc: the
# same objects whatever the host; make deb hid /sys/kernel/btf): its pin
# name, hashed from them, is the same
src=$(ls -d "$debdir"/src/memcgstat-*/ 2>/dev/null | head -1)
if [ ! -f "$top/build/lib/memcg_pin_id.h" ] || [ ! -f "$src/build/lib/memcg_pin_id.h" ]; then
	skip bpf_objects_as_tree_build "no build/lib (make user) or no make deb tree"
else
	cmp -s "$top/build/lib/memcg_pin_id.h" "$src/build/lib/memcg_pin_id.h" &&
		! grep -q '/sys/kernel/btf' "$debdir/build.log"
	check bpf_objects_as_tree_build $? "$(cat "$top/build/lib/memcg_pin_id.h" "$src/build/lib/memcg_pin_id.h")"
fi

# --- the rest alone among the host suites: fixed cgroup name, port, packages
exec 9>/tmp/memcgstat-hosttest.lock
if ! flock -w 300 9; then
	fail lock "/tmp/memcgstat-hosttest.lock held for 300 s"
	finish
fi
if [ -n "$(known)" ]; then	# installed while this waited
	skip install "memcgstat packages installed meanwhile: $(known | paste -sd';')"
	finish
fi

# what the packages' paths are before, every file named memcgstat, the users
paths=$(for f in "${debs[@]}"; do dpkg-deb --fsys-tarfile "$f" | tar -t; done |
	sed 's|^\./|/|; s|/$||' | grep -vx '' | sort -u)
exists() { while read -r p; do [ -e "$p" ] || [ -L "$p" ] && echo "$p"; done <<<"$paths"; }
named() { find /etc /usr /lib /var -name '*memcgstat*' 2>/dev/null | grep -v '^/var/tmp/' | sort; }
exists >"$tmp/exists.before"
named >"$tmp/named.before"
getent passwd | sort >"$tmp/passwd.before"
getent group | sort >"$tmp/group.before"

installed=1
out=$(dpkg_ -i "${debs[@]}")
rc=$?
st=$(dpkg-query -W -f='${Package} ${Status}\n' "${pkgs[@]}" 2>&1)
[ $rc = 0 ] && [ "$(grep -c ' install ok installed$' <<<"$st")" = ${#pkgs[@]} ]
check dpkg_install $? "exit $rc: $out" "$st"
for p in "${pkgs[@]}"; do dpkg -L "$p" >"$tmp/$p.list" 2>&1; done

# where make install put them, found as a user finds them
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null)
bad=
ver=$(dpkg-query -W -f='${Version}' memcgstat | sed 's/-[^-]*$//')
for p in memcgstat memcgstat-exporter; do
	[ "$(/usr/bin/$p --version 2>&1)" = "$p $ver" ] || bad+="$p --version: $(/usr/bin/$p --version 2>&1); "
	[ "$(man -w $p 2>&1)" = "/usr/share/man/man1/$p.1.gz" ] || bad+="man -w $p: $(man -w $p 2>&1); "
	[ -f /usr/share/bash-completion/completions/$p ] || bad+="no completion for $p; "
	lib=$(ldd /usr/bin/$p | awk '$1 == "libmemcgstat.so.0" { print $3 }')
	[ -n "$lib" ] && [ "$(realpath "$lib")" = "$(realpath /usr/lib/$ma/libmemcgstat.so.0)" ] ||
		bad+="$p links '$lib'; "
done
[ "$(man -w 3 libmemcgstat 2>&1)" = /usr/share/man/man3/libmemcgstat.3.gz ] || bad+="man -w libmemcgstat: $(man -w 3 libmemcgstat 2>&1); "
[ "$(pkg-config --modversion libmemcgstat 2>&1)" = "$ver" ] || bad+="pkg-config: $(pkg-config --modversion libmemcgstat 2>&1); "
[ -z "$bad" ]
check installed_in_place $? "$bad"

# the -dev package: the example monitor built with pkg-config's flags alone
cp "$top/examples/topanon.c" "$tmp/"
flags=$(pkg-config --cflags --libs libmemcgstat)
out=$(cd "$tmp" && cc -Wall -Wextra -Werror topanon.c $flags -o topanon 2>&1) &&
	out=$("$tmp/topanon" -i 0.2 -n 2 -k 2 2>&1) && grep -qE '^CGROUP +ANON +GROWTH/S$' <<<"$out"
check dev_builds_example $? "cc topanon.c $flags: $out"

# the unit as installed: the tree's, at /usr/bin, enabled by the package
unit=/lib/systemd/system/memcgstat-exporter.service
out=$(systemd-analyze verify --man=no "$unit" 2>&1)
rc=$?
[ $rc = 0 ] && [ -z "$out" ] &&
	[ "$(sed 's|@BINDIR@|/usr/bin|' "$top/systemd/memcgstat-exporter.service.in")" = "$(cat "$unit")" ] &&
	[ "$(readlink /etc/systemd/system/multi-user.target.wants/memcgstat-exporter.service)" = "$unit" ]
check unit_installed_enabled $? "systemd-analyze verify: exit $rc: $out" \
	"$(ls -l /etc/systemd/system/multi-user.target.wants/ 2>&1)"

# --- a cgroup of the test's own: 16 MiB of anon in a, a 64 MiB limit on it
mnt=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/mounts)
v=1
[ -n "$mnt" ] || { mnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts); v=2; }
rel=/memcgstat-deb
cg=$mnt$rel
rm_cgroups "$cg"
mkdir -p "$cg/a" || { fail cgroup "mkdir $cg/a"; finish; }
[ $v = 2 ] && echo +memory >"$cg/cgroup.subtree_control"
echo $((64 << 20)) >"$cg/a/$([ $v = 1 ] && echo memory.limit_in_bytes || echo memory.max)"
if [ -x "$memhog" ]; then
	start_memhog "$tmp/memhog" "$cg/a" 16 || fail memhog "$(cat "$tmp/memhog")"
else
	sh -c "echo \$\$ >$cg/a/cgroup.procs && exec sleep 600" &
	pids+=($!)
fi
key() { [ $v = 2 ] && echo "$1" || case $1 in anon) echo total_rss ;; file) echo total_cache ;; esac; }
want() {	# stat: the value of a's files
	case $1 in
	memory_max) echo $((64 << 20)) ;;
	usage) cat "$cg/a/$([ $v = 1 ] && echo memory.usage_in_bytes || echo memory.current)" ;;
	*) awk -v k="$(key "$1")" '$1 == k { print $2 }' "$cg/a/memory.stat" ;;
	esac
}
STATS="anon file usage memory_max"

# memcgstat: the values of the files, exactly (a is quiescent; 3 tries)
for try in 1 2 3; do
	out=$(/usr/bin/memcgstat -o json -s "${STATS// /,}" $rel/a 2>&1)
	rc=$?
	diffs=
	for s in $STATS; do
		got=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["cgroups"][0]["stats"][sys.argv[2]])' "$out" $s 2>&1)
		[ "$got" = "$(want $s)" ] || diffs+="$s: memcgstat $got, files $(want $s); "
	done
	[ $rc = 0 ] && [ -z "$diffs" ] && break
	sleep 0.5
done
[ $rc = 0 ] && [ -z "$diffs" ] && [ "$(want anon)" -ge $((16 << 20)) -o ! -x "$memhog" ]
check memcgstat_exact $? "exit $rc: $diffs" "$out"

# --- the exporter: the unit's ExecStart, as the unit runs it
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
caps=$(sed -n 's/^AmbientCapabilities=//p' "$unit")
port=$(sed -n 's/.*--listen [0-9.]*:\([0-9]*\).*/\1/p' <<<"$exec_start")
if [ -d /run/systemd/system ]; then
	how="systemctl (DynamicUser)"
	systemctl restart memcgstat-exporter.service
	epid=
	for i in $(seq 50); do
		epid=$(systemctl show -p MainPID --value memcgstat-exporter.service)
		[ "${epid:-0}" != 0 ] && curl -s -o /dev/null "http://127.0.0.1:$port/metrics" && break
		sleep 0.2
	done
	epid=	# systemd stops it: dpkg's prerm
else
	# no systemd here (PID 1 is $(ps -o comm= -p 1)): its DynamicUser, a
	# UID of the range systemd takes them from that no user has, its
	# capabilities and bounding set, no_new_privs, its UMask
	uid=$(comm -23 <(seq 61184 65519 | sort) <(getent passwd | cut -d: -f3 | sort) | sort -n | head -1)
	sc=$(tr ' ' '\n' <<<"$caps" | sed 's/^CAP_//' | tr 'A-Z' 'a-z' | sed 's/^/+/' | paste -sd,)
	how="setpriv as uid $uid, caps $sc (PID 1: $(ps -o comm= -p 1))"
	# shellcheck disable=SC2086 # ExecStart's words
	(umask "$(sed -n 's/^UMask=//p' "$unit")" && exec setpriv --reuid=$uid --regid=$uid --clear-groups \
		--inh-caps=-all,$sc --ambient-caps=-all,$sc --bounding-set=-all,$sc --no-new-privs \
		$exec_start) >"$tmp/exporter.log" 2>&1 &
	epid=$!
	for i in $(seq 50); do
		grep -q "listening on 127.0.0.1:$port" "$tmp/exporter.log" && break
		kill -0 $epid 2>/dev/null || break
		sleep 0.2
	done
	st=$(grep -E '^(Uid|CapEff|CapBnd|NoNewPrivs):' /proc/$epid/status 2>&1 | tr -s '\t' ' ' | paste -sd';')
	[[ "$st" = "Uid: $uid $uid $uid $uid;CapEff: 000000c000000000;CapBnd: 000000c000000000;NoNewPrivs: 1" ]]
	check exporter_as_unit $? "$how: $st" "$(cat "$tmp/exporter.log")"
fi
echo "  exporter: $exec_start, by $how"
for try in 1 2 3; do
	code=$(curl -s -o "$tmp/body" -w '%{http_code}' "http://127.0.0.1:$port/metrics")
	diffs=
	for s in $STATS; do
		got=$(awk -v m="memcgstat_${s}_bytes{cgroup=\"$rel/a\"}" '$1 == m { print $2 }' "$tmp/body")
		[ "$got" = "$(want $s)" ] || diffs+="$s: exported '$got', files $(want $s); "
	done
	[ "$code" = 200 ] && [ -z "$diffs" ] && break
	sleep 0.5
done
info=$(grep '^memcgstat_exporter_backend_info' "$tmp/body")
echo "  $info"
[ "$code" = 200 ] && [ -z "$diffs" ] && [ -n "$info" ] && grep -qx "memcgstat_exporter_build_info{version=\"$ver\"} 1" "$tmp/body"
check exporter_scrape_exact $? "HTTP $code: $diffs" "$(grep "cgroup=\"$rel/a\"" "$tmp/body" | head -20)" \
	"$(cat "$tmp/exporter.log" 2>/dev/null)"
if [ -n "$epid" ]; then
	kill -TERM $epid
	wait $epid
	rc=$?
	epid=
	check exporter_sigterm_exit_0 $rc "exit $rc"
fi

# --- purge, then nothing of them is left
kill "${pids[@]}" 2>/dev/null
wait "${pids[@]}" 2>/dev/null
pids=()
rm_cgroups "$cg"
[ ! -e "$cg" ] && ! find "$mnt" -maxdepth 1 -name '*memcgstat-deb*' | grep -q .
check no_cgroup_left $? "$(find "$mnt" -maxdepth 2 -name '*memcgstat-deb*')"

out=$(dpkg_ --purge "${pkgs[@]}")
rc=$?
[ $rc = 0 ] && [ -z "$(known)" ] && installed=0
check dpkg_purge $rc "$out" "$(known)"
exists >"$tmp/exists.after"
named >"$tmp/named.after"
getent passwd | sort >"$tmp/passwd.after"
getent group | sort >"$tmp/group.after"
gone=
for p in "${pkgs[@]}"; do
	while read -r f; do
		[ -d "$f" ] && continue	# a directory of others (/lib: usrmerge's link)
		[ -e "$f" ] || [ -L "$f" ] && gone+="$f; "
	done <"$tmp/$p.list"
done
[ -z "$gone" ]
check purge_removes_files $? "still there: $gone"
d=$(diff "$tmp/exists.before" "$tmp/exists.after"; diff "$tmp/named.before" "$tmp/named.after")
[ -z "$d" ]
check purge_leaves_as_before $? "$d"
d=$(diff "$tmp/passwd.before" "$tmp/passwd.after"; diff "$tmp/group.before" "$tmp/group.after")
[ -z "$d" ]
check purge_same_users $? "$d"
finish
