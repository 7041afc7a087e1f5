#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the memcgstat test kernel: Debian's linux-source-6.12 + kernel/patches
# + kernel/config.fragment (+ debug.fragment with --debug).  Results are cached
# outside the git tree, keyed by a hash of everything that goes into them, so
# an unchanged tree never rebuilds; the source and object tree is kept too
# (tree-FLAVOUR), so a changed patch or fragment rebuilds incrementally.
# Prints the cache directory holding bzImage, vmlinux and config on stdout;
# progress goes to stderr.
#
# Usage: kernel/build.sh [--debug|--upstream|--unpatched] [--print-dir]
#   --debug      add debug.fragment (KASAN, lockdep, ...)
#   --upstream   the release config with the series minus memcgstat's own
#                additions (the patches named *-memcgstat-*): exactly the
#                kfunc set and flags Linux 7.0 has
#   --unpatched  the same release config without kernel/patches, for the
#                write-side benchmark (make bench)
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
	--upstream) flavour=upstream ;;
	--unpatched) flavour=unpatched ;;
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
case $flavour in
unpatched) patches=() ;;
upstream)
	for i in "${!patches[@]}"; do
		case ${patches[$i]##*/} in *-memcgstat-*) unset "patches[$i]" ;; esac
	done
	patches=("${patches[@]}")
	;;
esac

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

# One source tree and object directory per config, kept between builds so a
# changed patch or fragment rebuilds only what it touches. The tree records
# the tarball it came from and the patches applied to it; those are reversed
# before the new series goes on. The release, upstream and unpatched flavours
# share the release config and one tree: they differ in a few files under
# mm/, so going from one to another rebuilds little.
mkdir -p "$cache"
if [ $flavour = debug ]; then
	tree=$cache/tree-debug
else
	tree=$cache/tree-release
fi
src=$tree/src
out=$tree/out
buildlog=$cache/build-$flavour-$key.log
: >"$buildlog"
exec 9>"$tree.lock"
flock 9
# Another build may have finished while this one waited for the lock.
if [ -s "$dest/bzImage" ] && [ -s "$dest/vmlinux" ]; then
	log "cached $dest"
	echo "$dest"
	exit 0
fi

fresh_tree() {
	log "unpacking $(basename "$tarball") into $tree"
	rm -rf "$tree"
	mkdir -p "$src" "$out" "$tree/applied"
	tar -xf "$tarball" -C "$src" --strip-components=1
	stat -c '%n %s %Y' "$tarball" >"$tree/source"
}

# The applied series changes the same lines as the new one (only commit
# messages differ): nothing to reapply, nothing to rebuild.
same_code() {
	local old=("$tree"/applied/*.patch) i

	[ -e "${old[0]}" ] && [ ${#old[@]} = ${#patches[@]} ] || return 1
	for i in "${!patches[@]}"; do
		cmp -s <(sed -n '/^diff --git/,$p' "${old[$i]}") \
		       <(sed -n '/^diff --git/,$p' "${patches[$i]}") || return 1
	done
}

if [ ! -f "$tree/source" ] || [ "$(cat "$tree/source")" != "$(stat -c '%n %s %Y' "$tarball")" ]; then
	fresh_tree
elif [ ${#patches[@]} -gt 0 ] && same_code; then
	log "series changed in its messages only: keeping the tree as it is"
	rm -f "$tree"/applied/*.patch
	cp "${patches[@]}" "$tree/applied/"
	patches=()
else
	# Take the previous series off, newest first.
	for p in $(ls -r "$tree"/applied/*.patch 2>/dev/null); do
		if ! (cd "$src" && git apply -R "$p") >>"$buildlog" 2>&1; then
			log "cannot reverse $(basename "$p"); starting from a fresh tree"
			fresh_tree
			break
		fi
		rm -f "$p"
	done
fi
log "building $flavour kernel in $tree (log: $buildlog)"

for p in "${patches[@]}"; do
	if ! msg=$(cd "$src" && git apply --verbose "$p" 2>&1); then
		log "patch $(basename "$p") does not apply to $(basename "$tarball"):"
		echo "$msg" | grep -E '^(error|Checking|Hunk)|patch failed' >&2 || echo "$msg" >&2
		exit 1
	fi
	cp "$p" "$tree/applied/"
	log "applied $(basename "$p")"
done

k() { make -C "$src" O="$out" ARCH=x86_64 "$@" >>"$buildlog" 2>&1; }
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

stage=$(mktemp -d "$cache/stage.XXXXXX")
cp "$out/arch/x86/boot/bzImage" "$out/vmlinux" "$stage/"
cp "$out/.config" "$stage/config"
rm -rf "$dest"
mv "$stage" "$dest"
echo "$dest"
