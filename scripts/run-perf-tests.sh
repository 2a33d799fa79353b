#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run perf tests of the patched perf by description, each on its own, and
# print one result line per test (and subtest):
#   PASS|FAIL|SKIP  perf test: DESCRIPTION
# The descriptions come from TESTS (separated by ';'), or else from
# scripts/perf-tests.list plus the shell tests the series adds.  Output of
# a failed test goes to build/tests/NAME.log (TEST_LOGS: another directory).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

perf=${TEST_PERF:-$PERF}
src=${TEST_TREE:-$TREE}
logs=${TEST_LOGS:-$BUILD/tests}
mkdir -p "$logs"

descriptions() {
	grep -v '^#' "$TOP/scripts/perf-tests.list" | sed '/^[[:space:]]*$/d' | cut -f1
	for t in "$TOP"/tools/perf/tests/shell/*.sh; do
		[ -e "$t" ] || continue
		sed -n '2s/^# *//p' "$t"
	done
}

# Why a test skipped, when perf test does not say: the test's own "skipping"
# line, else the note after a TAB in perf-tests.list.
skip_reason() {
	local desc=$1 log=$2 why

	why=$(grep -i 'skipping' "$log" | tail -n 1 || true)
	[ -n "$why" ] || why=$(awk -F'\t' -v d="$desc" '$1 == d && NF > 1 { print $2 }' "$TOP/scripts/perf-tests.list")
	echo "${why:-no reason given}"
}

# What a failed test said, for a CI log that is all one gets: its own
# "FAIL" lines (not perf test's verdict) with the lines that follow them
# (a diff, an error message), else its last lines.
fail_excerpt() {
	local log=$1 lines line

	lines=$(grep -A 8 'FAIL' "$log" | grep -v ': FAILED!$' | head -n 40 || true)
	[ -n "$lines" ] || lines=$(tail -n 20 "$log")
	while IFS= read -r line; do
		echo "      | $line"
	done <<< "$lines"
}

# Shell tests run "perf" from PATH: make it the perf under test.
PATH="$(dirname "$perf"):$PATH"
export PATH
cd "$src/tools/perf"
list=$("$perf" test list 2>&1 | grep -E '^ *[0-9]+: ')

if [ -n "${TESTS:-}" ]; then
	wanted=$(tr ';' '\n' <<< "$TESTS")
else
	wanted=$(descriptions)
fi

while IFS= read -r desc; do
	num=$(awk -v d="$desc" '{ n = $1; sub(/^ *[0-9]+: /, ""); if ($0 == d) { sub(/:$/, "", n); print n; exit } }' <<< "$list")
	if [ -z "$num" ]; then
		echo "FAIL  perf test: $desc (no such test in this perf)"
		continue
	fi
	log=$logs/$(tr -c 'A-Za-z0-9_\n' '_' <<< "$desc").log
	start=$(date +%s)
	"$perf" test -v "$num" > "$log" 2>&1 || true
	secs=$(( $(date +%s) - start ))
	results=$(awk -f "$TOP/scripts/perf-test-results.awk" "$log")
	if [ -z "$results" ]; then
		echo "FAIL  perf test: $desc (no result, log: $log)"
		fail_excerpt "$log"
		continue
	fi
	while IFS=$'\t' read -r result name reason; do
		case "$result" in
		Ok) echo "PASS  perf test: $name (${secs}s)" ;;
		Skip) echo "SKIP  perf test: $name (${reason:-$(skip_reason "$desc" "$log")})" ;;
		*)
			echo "FAIL  perf test: $name (log: $log)"
			fail_excerpt "$log"
			;;
		esac
	done <<< "$results"
done <<< "$wanted"
