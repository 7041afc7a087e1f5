#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run-tests.sh's map of which test_progs test runs in which VM boot, held
# against the tests test_progs has: every test runs in some boot, and every
# test a boot names exists. A test renamed or added without a boot fails
# here by name, instead of dropping out of make test (test_progs -t with a
# name that selects nothing fails too, but only once its boot runs).
# Then the harness itself: the map's check with a test renamed, a -t that
# selects nothing, and a skip outside a test's subtests.
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

# The tests of $have in no boot into $unbooted, the boots' tests that are
# not in $have into $unknown.
map() {
	local b t
	declare -A booted=()
	unknown= unbooted=
	for b in "$@"; do
		for t in ${b#*=}; do
			booted[$t]+="${b%%=*} "
			grep -qx -- "$t" <<<"$have" || unknown+="$t (boot ${b%%=*}) "
		done
	done
	while read -r t; do
		[ -n "${booted[$t]:-}" ] || unbooted+="$t "
	done <<<"$have"
}

map "$@"
check every_test_in_a_boot "$([ -z "$unbooted" ]; echo $?)" "in no boot: $unbooted"
check every_booted_test_exists "$([ -z "$unknown" ]; echo $?)" "no such test: $unknown"

# the first boot's first test renamed in test_progs: both checks fail by name
first=${1#*=}
first=${first%% *}
have=$(sed "s/^$first\$/${first}_renamed/" <<<"$("$tp" -l)")
map "$@"
check a_renamed_test_is_caught \
	"$([[ "$unbooted" == "${first}_renamed " && "$unknown" == "$first "* ]]; echo $?)" \
	"renamed $first: in no boot '$unbooted', no such test '$unknown'"

out=$("$tp" -t "${first}_renamed" 2>&1)
rc=$?
check a_filter_that_selects_nothing_fails \
	"$([[ $rc == 1 && "$out" == *"-t ${first}_renamed:FAIL (selects no test or subtest here)"* ]]; echo $?)" \
	"rc $rc: $out"

out=$(MEMCGSTAT_HARNESS_SELFTEST=1 "$tp" 2>&1)
rc=$?
want='#1 harness/runs:OK
#2 harness/skips:SKIP (a subtest'"'"'s skip)
#3 harness:SKIP (a skip outside the subtests)
Summary: 1 passed, 0 failed, 2 skipped'
check a_skip_outside_subtests_is_counted "$([[ $rc == 0 && "$out" == "$want" ]]; echo $?)" \
	"rc $rc: $out"
finish
