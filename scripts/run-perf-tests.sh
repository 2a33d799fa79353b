#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run perf tests of the patched perf by description, each on its own
# (`perf test -v N`), TEST_JOBS of them at a time (default: the number of
# CPUs), and print one result line per test (and subtest), in the order
# of the list:
#   PASS|FAIL|SKIP  perf test: DESCRIPTION
# The descriptions come from TESTS (separated by ';'), or else from
# scripts/perf-tests.list plus the shell tests the series adds; the tests
# marked "exclusive" there run when nothing else does (first), the others
# longest first (see launch_order).  Output of each test
# goes to build/tests/NAME.log (TEST_LOGS: another directory), its seconds
# to seconds.txt there.  With
# TEST_RAW=1 the lines are perf-test-results.awk's (Ok|FAILED!|Skip, TAB,
# description, TAB, reason), for regress.sh.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

perf=${TEST_PERF:-$PERF}
src=${TEST_TREE:-$TREE}
logs=${TEST_LOGS:-$BUILD/tests}
jobs=${TEST_JOBS:-$(nproc)}
list_file=$TOP/scripts/perf-tests.list
mkdir -p "$logs"

descriptions() {
	{
		grep -v '^#' "$list_file" | sed '/^[[:space:]]*$/d' | cut -f1
		for t in "$TOP"/tools/perf/tests/shell/*.sh; do
			[ -e "$t" ] || continue
			sed -n '2s/^# *//p' "$t"
		done
	} | awk '!seen[$0]++'	# a series' test listed for its note runs once
}

# The note after the TAB of a test in perf-tests.list.
note() {
	awk -F'\t' -v d="$1" '$1 == d && NF > 1 { print $2 }' "$list_file"
}

# Why a test skipped, when perf test does not say: the test's own "skipping"
# line, else the note in perf-tests.list.
skip_reason() {
	local desc=$1 log=$2 why

	why=$(grep -i 'skipping' "$log" | tail -n 1 || true)
	[ -n "$why" ] || why=$(note "$desc" | sed 's/^exclusive: *//')
	echo "${why:-no reason given}"
}

# What a failed test said, for a CI log that is all one gets: its own
# failure lines ("FAIL", "[Failed]", the "Unexpected signal" of a test
# that set -e ended; not perf test's verdict) with the lines that follow
# them (a diff, an error message), else its last lines.
fail_excerpt() {
	local log=$1 lines line

	lines=$(grep -E -A 8 'FAIL|\[Failed\]|Unexpected signal' "$log" |
		grep -v ': FAILED!$' | head -n 40 || true)
	[ -n "$lines" ] || lines=$(tail -n 20 "$log")
	while IFS= read -r line; do
		echo "      | $line"
	done <<< "$lines"
}

# run_one DESC: run the test, print its result lines.
run_one() {
	local desc=$1 num log start secs results result name reason

	num=$(awk -v d="$desc" '{ n = $1; sub(/^ *[0-9]+: /, ""); if ($0 == d) { sub(/:$/, "", n); print n; exit } }' <<< "$list")
	if [ -z "$num" ]; then
		if [ -n "${TEST_RAW:-}" ]; then
			printf 'FAILED!\t%s\tno such test in this perf\n' "$desc"
		else
			echo "FAIL  perf test: $desc (no such test in this perf)"
		fi
		return
	fi
	log=$(log_file "$logs" "$desc")
	start=$(date +%s)
	"$perf" test -v "$num" > "$log" 2>&1 || true
	secs=$(( $(date +%s) - start ))
	printf '%s\t%s\n' "$secs" "$desc" >> "$logs/seconds.txt"
	results=$(awk -f "$TOP/scripts/perf-test-results.awk" "$log")
	if [ -n "${TEST_RAW:-}" ]; then
		[ -n "$results" ] || results=$(printf 'FAILED!\t%s\tno result' "$desc")
		echo "$results"
		return
	fi
	if [ -z "$results" ]; then
		echo "FAIL  perf test: $desc (no result, log: $log)"
		fail_excerpt "$log"
		return
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
}

# Shell tests run "perf" from PATH: make it the perf under test.
PATH="$(dirname "$perf"):$PATH"
export PATH
cd "$src/tools/perf"
list=$("$perf" test list 2>&1 | grep -E '^ *[0-9]+: ')

if [ -n "${TESTS:-}" ]; then
	mapfile -t wanted < <(tr ';' '\n' <<< "$TESTS" | sed '/^$/d')
else
	mapfile -t wanted < <(descriptions)
fi

# The order the tests start in: the exclusive ones first (each alone),
# then the longest first, by their seconds in the last run here
# (seconds.txt), else the series' own shell tests (the long ones) first:
# run two at a time, the last to end is then a short one.
launch_order() {
	local own

	own=$(for t in "$TOP"/tools/perf/tests/shell/*.sh; do
		[ -e "$t" ] && sed -n '2s/^# *//p' "$t"
	done)
	for i in "${!wanted[@]}"; do
		printf '%s\t%s\n' "$i" "${wanted[$i]}"
	done | awk -F'\t' -v own="$own" -v list="$list_file" -v secs="$logs/seconds.txt" '
		BEGIN {
			n = split(own, o, "\n")
			for (k = 1; k <= n; k++) is_own[o[k]] = 1
			while ((getline l < list) > 0)
				if (split(l, f, "\t") > 1 && f[2] ~ /^exclusive/) excl[f[1]] = 1
			while ((getline l < secs) > 0)
				if (split(l, f, "\t") > 1) last[f[2]] = f[1]
		}
		{
			t = ($2 in last) ? last[$2] : (($2 in is_own) ? 100 : 0)
			printf "%d\t%d\t%s\n", ($2 in excl) ? 0 : 1, t, $1
		}' | sort -t "$(printf '\t')" -k1,1n -k2,2nr -k3,3n | cut -f3
}

# Test i of the list writes its lines to $out/i and then creates
# $out/i.done; they are printed in the order of the list as soon as all
# before them are.
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
next=0 started=0
flush() {
	while [ "$next" -lt "${#wanted[@]}" ] && [ -e "$out/$next.done" ]; do
		cat "$out/$next"
		next=$((next + 1))
	done
}
running() {
	echo $((started - $(find "$out" -name '*.done' | wc -l)))
}
mapfile -t order < <(launch_order)
for i in "${order[@]}"; do
	desc=${wanted[$i]}
	exclusive=0
	[[ $(note "$desc") != exclusive* ]] || exclusive=1
	# An exclusive test waits for the others to end and runs alone.
	while n=$(running) && { [ "$n" -ge "$jobs" ] || { [ "$n" -gt 0 ] && [ "$exclusive" = 1 ]; }; }; do
		sleep 0.5
		flush
	done
	{ run_one "$desc" > "$out/$i" || true; touch "$out/$i.done"; } &
	started=$((started + 1))
	[ "$exclusive" = 0 ] || wait
	flush
done
wait
flush
