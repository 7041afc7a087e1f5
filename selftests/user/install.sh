#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make install into a temporary prefix, then build the example monitor out
# of tree with nothing but pkg-config's flags for the installed library, and
# run it. Prints "#N install/NAME:OK|FAIL".
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/memcgstat-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
n=0
res() { n=$((n + 1)); if [ "$2" = 0 ]; then echo "#$n install/$1:OK"; else echo "#$n install/$1:FAIL"; shift 2; printf '  %s\n' "$@"; fi; }

pfx=$tmp/prefix
out=$(make -s -C "$top/user" OUT="$tmp/build" PREFIX="$pfx" install 2>&1)
rc=$?
for f in bin/memcgstat lib/libmemcgstat.a lib/libmemcgstat.so.0 lib/libmemcgstat.so \
	 include/memcgstat.h lib/pkgconfig/libmemcgstat.pc share/man/man1/memcgstat.1; do
	[ -e "$pfx/$f" ] || { rc=1; out+=" missing $f"; }
done
res make_install $rc "$out"

# Only the public API leaves the shared library, with a SONAME.
syms=$(nm -D --defined-only "$pfx/lib/libmemcgstat.so.0" | awk '$2 == "T" { print $3 }')
bad=$(grep -v '^memcgstat_' <<<"$syms")
soname=$(objdump -p "$pfx/lib/libmemcgstat.so.0" | awk '/SONAME/ { print $2 }')
[ -z "$bad" ] && [ -n "$syms" ] && [ "$soname" = libmemcgstat.so.0 ]
res shared_exports_api_only $? "soname '$soname', other symbols: $bad"

export PKG_CONFIG_PATH=$pfx/lib/pkgconfig
cp "$top/examples/topanon.c" "$tmp/"
flags=$(pkg-config --cflags --libs libmemcgstat)
out=$(cd "$tmp" && cc -Wall -Wextra -Werror topanon.c $flags -o topanon 2>&1)
res build_against_pkg_config $? "cc topanon.c $flags: $out"

out=$(LD_LIBRARY_PATH=$pfx/lib "$tmp/topanon" -i 0.2 -n 2 -k 2 2>&1)
rc=$?
[ $rc = 0 ] && grep -qE '^CGROUP +ANON +GROWTH/S$' <<<"$out"
res run_installed_example $? "exit $rc: $out"
