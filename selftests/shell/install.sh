#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make install into a temporary prefix, then build the example monitor out
# of tree with nothing but pkg-config's flags for the installed library, and
# run it; the exporter, man pages, bash completion and systemd unit are in
# place and pass their checkers. Prints "#N install/NAME:OK|FAIL|SKIP".
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/memcgstat-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
SUITE=install
. "$top/selftests/lib.sh"

pfx=$tmp/prefix
out=$(make -s -C "$top" OUT="$tmp/build" PREFIX="$pfx" install 2>&1)
rc=$?
for f in bin/memcgstat bin/memcgstat-exporter lib/libmemcgstat.a lib/libmemcgstat.so.0 \
	 lib/libmemcgstat.so include/memcgstat.h lib/pkgconfig/libmemcgstat.pc \
	 share/man/man1/memcgstat.1 share/man/man1/memcgstat-exporter.1 share/man/man3/libmemcgstat.3 \
	 share/bash-completion/completions/memcgstat share/bash-completion/completions/memcgstat-exporter \
	 lib/systemd/system/memcgstat-exporter.service lib/systemd/system/memcgstat-pin.service \
	 lib/systemd/system/memcgstat-exporter-textfile.service; do
	[ -e "$pfx/$f" ] || { rc=1; out+=" missing $f"; }
done
check make_install $rc "$out"

# man pages: every one renders without a groff warning; libmemcgstat(3)
# names every function the header declares
out=
for m in man1/memcgstat.1 man1/memcgstat-exporter.1 man3/libmemcgstat.3; do
	w=$(MANWIDTH=80 man --warnings -l "$pfx/share/man/$m" 2>&1 >/dev/null)
	[ -z "$w" ] || out+="$m: $w "
done
for fn in $(sed -n 's/^[a-z].*[ *]\(memcgstat_[a-z_]*\)(.*/\1/p' "$pfx/include/memcgstat.h"); do
	grep -q "$fn" "$pfx/share/man/man3/libmemcgstat.3" || out+="libmemcgstat.3 lacks $fn "
done
[ -z "$out" ]
check man_pages $? "$out"

# one version everywhere: both programs, pkg-config, the man pages
v=$(PKG_CONFIG_PATH=$pfx/lib/pkgconfig pkg-config --modversion libmemcgstat)
out="pkg-config $v"
for p in memcgstat memcgstat-exporter; do
	[ "$("$pfx/bin/$p" --version)" = "$p $v" ] || out+="; $p --version: $("$pfx/bin/$p" --version)"
done
for m in man1/memcgstat.1 man1/memcgstat-exporter.1 man3/libmemcgstat.3; do
	head -1 "$pfx/share/man/$m" | grep -qF "\"memcgstat $v\"" || out+="; $m: $(head -1 "$pfx/share/man/$m")"
done
[ "$out" = "pkg-config $v" ] && [ -n "$v" ]
check one_version $? "$out"

# the unit points at the installed exporter and passes systemd's checks
unit=$pfx/lib/systemd/system/memcgstat-exporter.service
if ! command -v systemd-analyze >/dev/null; then
	skip systemd_unit "no systemd-analyze"
else
	out=$(systemd-analyze verify --man=no "$unit" 2>&1)
	rc=$?
	grep -qx "ExecStart=$pfx/bin/memcgstat-exporter --listen 127.0.0.1:9743" "$unit" &&
		grep -qx 'CapabilityBoundingSet=CAP_BPF CAP_PERFMON' "$unit" && [ $rc = 0 ] && [ -z "$out" ]
	check systemd_unit $? "systemd-analyze verify: exit $rc: $out"
	unit=$pfx/lib/systemd/system/memcgstat-pin.service
	out=$(systemd-analyze verify --man=no "$unit" 2>&1)
	rc=$?
	grep -qx "ExecStart=$pfx/bin/memcgstat --pin" "$unit" &&
		grep -qx "ExecStop=$pfx/bin/memcgstat --unpin" "$unit" && [ $rc = 0 ] && [ -z "$out" ]
	check systemd_pin_unit $? "systemd-analyze verify: exit $rc: $out"
	# the textfile unit may write its textfile's directory, and only that
	unit=$pfx/lib/systemd/system/memcgstat-exporter-textfile.service
	out=$(systemd-analyze verify --man=no "$unit" 2>&1)
	rc=$?
	tf=$(sed -n 's/^ExecStart=.* --textfile \([^ ]*\).*/\1/p' "$unit")
	grep -qx "ReadWritePaths=$(dirname "$tf")" "$unit" && ! grep -q '^DynamicUser=yes' "$unit" &&
		grep -qx "ExecStart=$pfx/bin/memcgstat-exporter --textfile $tf --interval 30" "$unit" &&
		[ $rc = 0 ] && [ -z "$out" ]
	check systemd_textfile_unit $? "systemd-analyze verify: exit $rc: $out; textfile '$tf'"
fi

# bash completion, loaded as bash-completion would for each command
bc=/usr/share/bash-completion/bash_completion
if [ ! -f $bc ]; then
	skip bash_completion "no bash-completion package"
else
	out=$(PATH=$pfx/bin:$PATH bash -c '
		. '"$bc"'
		comp() {	# file command words...: print the candidates for the last word
			. "$1"
			shift
			COMP_WORDS=("$@") COMP_CWORD=$(($# - 1)) COMP_LINE="$*" COMP_POINT=${#COMP_LINE}
			$(complete -p "$1" | sed "s/.*-F \([^ ]*\) .*/\1/") "$1" "${@: -1}" "${@: -2:1}"
			echo "${COMPREPLY[*]}"
		}
		d='"$pfx"'/share/bash-completion/completions
		comp $d/memcgstat memcgstat -o op
		comp $d/memcgstat memcgstat -s anon,pgmaj
		comp $d/memcgstat memcgstat --layout l
		comp $d/memcgstat-exporter memcgstat-exporter --max-d
		comp $d/memcgstat-exporter memcgstat-exporter --backend b
		comp $d/memcgstat memcgstat top --sort memory_m
		comp $d/memcgstat memcgstat top --it
		comp $d/memcgstat memcgstat top -b --backend t
		comp $d/memcgstat memcgstat top -s anon,pgmaj
		comp $d/memcgstat memcgstat top --fil' 2>&1)
	[ "$out" = "openmetrics
anon,pgmajfault
lines
--max-depth
bpf
memory_max
--iterations
text
anon,pgmajfault
--filter" ]
	check bash_completion $? "$out"
	# each command's completion a file of its own, found and loaded alone by
	# bash-completion's loader from the prefix (XDG_DATA_DIRS), as a fresh
	# shell does on the first TAB: the exporter's without memcgstat's
	d=$pfx/share/bash-completion/completions
	out=$(XDG_DATA_DIRS=$pfx/share bash -c '
		. '"$bc"'
		__load_completion memcgstat-exporter && complete -p memcgstat-exporter
		complete -p memcgstat 2>/dev/null || echo "no memcgstat completion"
		__load_completion memcgstat && complete -p memcgstat' 2>&1)
	[ -f "$d/memcgstat-exporter" ] && [ ! -L "$d/memcgstat-exporter" ] && [ "$out" = "complete -F _memcgstat_exporter memcgstat-exporter
no memcgstat completion
complete -F _memcgstat memcgstat" ]
	check bash_completion_each_its_own $? "$(ls -l "$d")" "$out"
fi

# Requires.private: libbpf, so static linking pulls libbpf's own deps
grep -qx 'Requires.private: libbpf' "$pfx/lib/pkgconfig/libmemcgstat.pc"
check pc_requires_libbpf $? "$(cat "$pfx/lib/pkgconfig/libmemcgstat.pc")"

# Only the public API leaves the shared library, with a SONAME.
syms=$(nm -D --defined-only "$pfx/lib/libmemcgstat.so.0" | awk '$2 == "T" { print $3 }')
bad=$(grep -v '^memcgstat_' <<<"$syms")
soname=$(objdump -p "$pfx/lib/libmemcgstat.so.0" | awk '/SONAME/ { print $2 }')
[ -z "$bad" ] && [ -n "$syms" ] && [ "$soname" = libmemcgstat.so.0 ]
check shared_exports_api_only $? "soname '$soname', other symbols: $bad"

export PKG_CONFIG_PATH=$pfx/lib/pkgconfig
cp "$top/examples/topanon.c" "$tmp/"
flags=$(pkg-config --cflags --libs libmemcgstat)
out=$(cd "$tmp" && cc -Wall -Wextra -Werror topanon.c $flags -o topanon 2>&1)
check build_against_pkg_config $? "cc topanon.c $flags: $out"

out=$(LD_LIBRARY_PATH=$pfx/lib "$tmp/topanon" -i 0.2 -n 2 -k 2 2>&1)
rc=$?
[ $rc = 0 ] && grep -qE '^CGROUP +ANON +GROWTH/S$' <<<"$out"
check run_installed_example $? "exit $rc: $out"
finish
