#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run-tests.sh's map of which test_progs test runs in which VM boot, held
# against the tests test_progs has: every test runs in some boot, and every
# test a boot names exists. A test renamed or added without a boot fails
# here by name, instead of dropping out of make test (test_progs -t with a
# name that selects nothing fails too, but only once its boot runs).
#
#   boot_map.sh TEST_PROGS 'BOOT=TEST TEST...' ...
set -uo pipefail

SUITE=boot-map
. "$(dirname "$0")/../lib.sh"

tp=$1
shift
if ! have=$("$tp" -l 2>&1) || [ -z "$have" ]; then
	fail lists_its_tests "$tp -l: ${have:-no output}"
	finish
fi
declare -A booted=()
unknown=
for b in "$@"; do
	for t in ${b#*=}; do
		booted[$t]+="${b%%=*} "
		grep -qx -- "$t" <<<"$have" || unknown+="$t (boot ${b%%=*}) "
	done
done
unbooted=
while read -r t; do
	[ -n "${booted[$t]:-}" ] || unbooted+="$t "
done <<<"$have"
check every_test_in_a_boot "$([ -z "$unbooted" ]; echo $?)" "in no boot: $unbooted"
check every_booted_test_exists "$([ -z "$unknown" ]; echo $?)" "no such test: $unknown"
finish
