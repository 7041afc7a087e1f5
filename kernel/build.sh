#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the memcgstat test kernel: Debian's linux-source-6.12 + kernel/patches
# + kernel/config.fragment (+ debug.fragment with --debug).  Results are cached
# outside the git tree, keyed by a hash of everything that goes into them, so
# an unchanged tree never rebuilds.  Prints the cache directory holding
# bzImage, vmlinux and config on stdout; progress goes to stderr.
#
# Usage: kernel/build.sh [--debug] [--print-dir]
#   --print-dir  only print the directory the build would use (no build)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tarball=${MEMCGSTAT_KSRC:-/usr/src/linux-source-6.12.tar.xz}
cache=${MEMCGSTAT_CACHE:-/var/cache/memcgstat}
jobs=${JOBS:-$(nproc)}
flavour=release
print_only=0

for arg in "$@"; do
	case $arg in
	--debug) flavour=debug ;;
	--print-dir) print_only=1 ;;
	*) echo "build.sh: unknown argument '$arg'" >&2; exit 2 ;;
	esac
done

log() { echo "kernel: $*" >&2; }

[ -r "$tarball" ] || { log "no kernel source at $tarball (apt-get install linux-source-6.12)"; exit 1; }

fragments=("$here/config.fragment")
[ $flavour = debug ] && fragments+=("$here/debug.fragment")
shopt -s nullglob
patches=("$here"/patches/*.patch)
shopt -u nullglob

# The key covers the source (by size and mtime: hashing 140 MB on every make
# costs more than it buys; a new Debian upload changes both), the patches, the
# fragments and this script.
key=$( {
	stat -c '%n %s %Y' "$tarball"
	echo "$flavour"
	cat "${patches[@]}" "${fragments[@]}" "$0"
} | sha256sum | cut -c1-16)
dest=$cache/kernel-$flavour-$key

if [ $print_only = 1 ]; then
	echo "$dest"
	exit 0
fi
if [ -s "$dest/bzImage" ] && [ -s "$dest/vmlinux" ]; then
	log "cached $dest"
	echo "$dest"
	exit 0
fi

mkdir -p "$cache"
work=$(mktemp -d "$cache/work-$flavour-$key.XXXXXX")
trap 'rm -rf "$work"' EXIT
buildlog=$cache/build-$flavour-$key.log
log "building $flavour kernel in $work (log: $buildlog)"

src=$work/src
out=$work/out
mkdir -p "$src" "$out"
tar -xf "$tarball" -C "$src" --strip-components=1

for p in "${patches[@]}"; do
	if ! msg=$(cd "$src" && git apply --verbose "$p" 2>&1); then
		log "patch $(basename "$p") does not apply to $(basename "$tarball"):"
		echo "$msg" | grep -E '^(error|Checking|Hunk)|patch failed' >&2 || echo "$msg" >&2
		exit 1
	fi
	log "applied $(basename "$p")"
done

k() { make -C "$src" O="$out" ARCH=x86_64 "$@" >>"$buildlog" 2>&1; }
: >"$buildlog"
k tinyconfig
(cd "$src" && scripts/kconfig/merge_config.sh -m -O "$out" "$out/.config" "${fragments[@]}") >>"$buildlog" 2>&1
k olddefconfig

# merge_config.sh only warns; a dropped option would silently build a
# kernel the tests cannot use.
missing=0
for f in "${fragments[@]}"; do
	while IFS= read -r line; do
		case $line in CONFIG_*=*) ;; *) continue ;; esac
		opt=${line%%=*}
		val=${line#*=}
		if [ "$val" = n ]; then
			grep -q "^$opt=" "$out/.config" || continue
		else
			grep -qx "$line" "$out/.config" && continue
		fi
		log "config: wanted $line, got '$(grep -E "^$opt=|^# $opt is not set" "$out/.config" || echo unset)'"
		missing=1
	done <"$f"
done
[ $missing = 0 ] || { log "config fragment not satisfied; see above"; exit 1; }

start=$(date +%s)
if ! k -j"$jobs" bzImage; then
	log "build failed; last lines of $buildlog:"
	grep -E 'error|Error' "$buildlog" | tail -20 >&2
	exit 1
fi
log "built in $(( $(date +%s) - start )) s"

stage=$work/stage
mkdir -p "$stage"
cp "$out/arch/x86/boot/bzImage" "$out/vmlinux" "$stage/"
cp "$out/.config" "$stage/config"
rm -rf "$dest"
mv "$stage" "$dest"
echo "$dest"
