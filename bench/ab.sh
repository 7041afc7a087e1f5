#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Builds side by side in one boot: the guest instructions an operation of
# mcsbench rows for each build, counted by bench/insn on one vCPU. Not part
# of make bench; for a change measured against the commit before it:
#
#   bench/ab.sh [-k KDIR] [-r ROUNDS] [-n CGROUPS] [-o DIR] ROW BUILD...
#
# ROW is a row prefix as MCSBENCH_ONLY takes it. 7.* rows run `mcsbench
# oneshot` on a cgroup of a tree of 51 with the build's own memcgstat; the
# others `mcsbench tree` on a tree of CGROUPS (10001). A BUILD is a
# directory outside /tmp (the guest mounts its own there) holding
# bench/mcsbench and tools/memcgstat: make user, then make -C bench
# OUT=BUILD/bench LIB_OUT=BUILD/lib. The builds run in turn, ROUNDS (1)
# times. KDIR: the release kernel (kernel/build.sh --print-dir);
# the 7.0-API one is kernel/build.sh --upstream --print-dir.
#
# Prints a line per build, round, row and side: build, row, side,
# instructions an operation (the least of the row's operations, less the
# empty pair's), what the side measures. The boot's files stay in DIR.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kdir='' rounds=1 size=10001 out=''
while getopts k:r:n:o: o; do
	case $o in
	k) kdir=$OPTARG ;;
	r) rounds=$OPTARG ;;
	n) size=$OPTARG ;;
	o) out=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || { echo "usage: ab.sh [-k KDIR] [-r ROUNDS] [-n CGROUPS] [-o DIR] ROW BUILD..." >&2; exit 2; }
row=$1
shift
case $rounds$size in *[!0-9]*) echo "ab.sh: -r and -n take numbers" >&2; exit 2 ;; esac
builds=()
for b in "$@"; do
	b=$(cd "$b" && pwd) || exit 2
	[ -x "$b/bench/mcsbench" ] && [ -x "$b/tools/memcgstat" ] ||
		{ echo "ab.sh: $b: no bench/mcsbench or tools/memcgstat" >&2; exit 2; }
	builds+=("$b")
done
[ -n "$kdir" ] || kdir=$("$top/kernel/build.sh" --print-dir)
plugin=$top/build/insn/insncount.so
[ -f "$plugin" ] || make -s -C "$top/bench/insn" >&2
[ -n "$out" ] || out=$(mktemp -d "$top/build/ab.XXXXXX")	# not /tmp: the guest has its own
mkdir -p "$out"

# the guest's part, in a file the guest reads through the shared /
cat >"$out/guest.sh" <<'EOF'
#!/bin/bash
set -eu
row=$1 size=$2 rounds=$3
shift 3
cg=/sys/fs/cgroup/mcsab
mkdir -p $cg
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
echo +memory >$cg/cgroup.subtree_control
echo 0 >/proc/sys/kernel/randomize_va_space
export MCSBENCH_INSN=1 MCSBENCH_INSN_NEXT=/tmp/mcsbench-insn-next
rm -f $MCSBENCH_INSN_NEXT
# a tree's rows one round each (a new handle of 10,001 cgroups a round)
case $row in
7.*) "$1/bench/mcsbench" mktree $cg/t 51 ;;
*) "$1/bench/mcsbench" mktree $cg/t "$size"; export MCSBENCH_ROUNDS=1 ;;
esac
for r in $(seq "$rounds"); do
	for b in "$@"; do
		echo "BUILD $b"
		case $row in
		7.*) MCSBENCH_ONLY=$row "$b/bench/mcsbench" oneshot $cg/t/c1 "$b/tools/memcgstat" ;;
		*) MCSBENCH_ONLY=$row "$b/bench/mcsbench" tree $cg/t ;;
		esac
	done
done
EOF
INSNCOUNT_PLUGIN=$plugin timeout 3600 "$top/selftests/vmtest.sh" -q -k "$kdir" -c v2 -t 3000 \
	-o "$out/vm" -I "$out/insn.txt" -- bash "$out/guest.sh" "$row" "$size" "$rounds" \
	"${builds[@]}" >"$out/guest.log" 2>&1 ||
	{ echo "ab.sh: the boot failed: $out/guest.log" >&2; tail -5 "$out/guest.log" >&2; exit 1; }

# markers: "INSN id row side ops pairs what"; counts: "insn id=N pairs=P min=M"
awk -F'\t' -v insn="$out/insn.txt" '
function kv(s, k,   i, n, a, b) {
	n = split(s, a, " ")
	for (i = 1; i <= n; i++) { split(a[i], b, "="); if (b[1] == k) return b[2] }
	return ""
}
BEGIN {
	while ((getline ln < insn) > 0)
		if (ln ~ /^insn id=/) { mn[kv(ln, "id")] = kv(ln, "min"); np[kv(ln, "id")] = kv(ln, "pairs") }
}
/^BUILD / { build = substr($0, 7); next }
$1 == "INSN" && $3 == "-" { empty = mn[$2]; next }
$1 == "INSN" {
	if (!($2 in mn) || np[$2] != $6) { printf "%s\t%s\t%s\tNA\t%s\n", build, $3, $4, $7; bad = 1; next }
	printf "%s\t%s\t%s\t%.0f\t%s\n", build, $3, $4, (mn[$2] - empty) / $5, $7
}
END { exit bad }
' "$out/vm/output"
