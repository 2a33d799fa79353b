#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The tests, on the built perf, in steps:
#   run-checks.sh check       make check, the README's test command: the
#                             repository's own checks, the submission round
#                             trip and the packagers' tarball, the perf
#                             tests (the series' own and the upstream ones
#                             that cover what it touches), the fuzz corpus
#   run-checks.sh check-all   make check-all, the maintainer's gate (CI):
#                             all that, then ThreadSanitizer, a short fuzz
#                             campaign, the extra builds, bisectability
#                             (the patches scripts/bisect-verified does not
#                             hold), the whole of perf test against pristine
#                             perf and the series on Debian's tree
# First the setup (make's default goal: deps, tree, series, perf, demo),
# which does only what is not done yet.  One line per test, then the
# seconds of each step and their total, then the closing line "N passed,
# N failed, N skipped" (also written to build/test-summary.txt).  Exit 1
# on any failure.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

what=${1:-check}
case "$what" in check|check-all) ;; *) die "usage: run-checks.sh check|check-all" ;; esac

results=$BUILD/test-results.txt
times=$BUILD/test-times.txt
logs=$BUILD/tests
mkdir -p "$logs"
: > "$results"
: > "$times"
rm -f "$BUILD/test-summary.txt"

# part NAME: a step of the run; its seconds go into the closing table.
part_name="" part_start=0
part() {
	part_end
	part_name=$1 part_start=$(date +%s)
	step "$1"
}
part_end() {
	[ -z "$part_name" ] || printf '%s\t%s\n' "$(( $(date +%s) - part_start ))" "$part_name" >> "$times"
	part_name=""
}

# check NAME COMMAND...: one check; its output is shown indented and kept
# in build/tests/.
check() {
	local name=$1 log start
	shift
	log=$(log_file "$logs" "$name")
	start=$(date +%s)
	if "$@" 2>&1 | tee "$log" | sed -u 's/^/      /'; then
		echo "PASS  $name ($(( $(date +%s) - start ))s)" | tee -a "$results"
	else
		echo "FAIL  $name ($(( $(date +%s) - start ))s, log: $log)" | tee -a "$results"
		failure_lines "$log" >> "$results"
	fi
}

# The lines of a failed check's log that say what failed (those the CI
# log's end, all one may get of it, repeats), else its last lines.
failure_lines() {
	local lines

	lines=$(grep -E 'FAIL|\[Failed\]|REGRESSION|[Ee]rror' "$1" | head -n 12 || true)
	[ -n "$lines" ] || lines=$(tail -n 6 "$1")
	printf '%s\n' "$lines" | sed 's/^ */      | /'
}

part "setup: deps, tree, series, perf, demo (what is not done yet)"
make -C "$TOP" -f Makefile.series --no-print-directory demo

part "repository checks"
check "series: applies with fuzz 0, work tree and tools/ mirror in sync" "$TOP/scripts/check-series.sh"
check "series: checkpatch.pl --strict on every patch" "$TOP/scripts/checkpatch-series.sh"
check "scripts: shellcheck" bash -c "cd '$TOP' && shellcheck -x scripts/*.sh .ci/run"
check "workbench: a tarball with a wrong sha256 is refused" "$TOP/scripts/selftest.sh" bad-tarball
check "workbench: a patch that needs fuzz is refused" "$TOP/scripts/selftest.sh" fuzz
check "workbench: a stale tools/ mirror is refused" "$TOP/scripts/selftest.sh" stale-mirror

part "submission and packaging"
check "mail: the send-local mbox, applied with git am to $BASE_TAG, gives the quilt tree" "$TOP/scripts/roundtrip.sh"
check "mail: each topic a thread of its own, with base-commit and prerequisites, applied in order by git am, gives the quilt tree" "$TOP/scripts/roundtrip.sh" topics
check "mail: a topic without its cover letter, or of another name, is refused" "$TOP/scripts/selftest.sh" topic-cover
check "mail: no identity, or the placeholder one, is refused" "$TOP/scripts/selftest.sh" no-identity
check "mail: a patch changed on the way fails the round trip" "$TOP/scripts/selftest.sh" roundtrip-tamper
check "mail: fixes-tags.sh proposes the commit that last changed what a fix changes" "$TOP/scripts/selftest.sh" fixes-tags
check "dist: the packagers' tarball applies with patch -p1 --fuzz=0 and git am, DEP-3 headers" "$TOP/scripts/check-dist.sh"

part "perf tests (patched perf: $("$PERF" version))"
check "perf test: a name the upstream shell tests select a test by selects that test only" "$TOP/scripts/test-selectors.sh"
"$TOP/scripts/run-perf-tests.sh" | tee -a "$results"

part "fuzz corpus"
check "fuzz-replay: the fuzz corpus replays clean with the normal build" "$TOP/scripts/fuzz-replay.sh"

if [ "$what" = check-all ]; then
	part "sanitizers"
	check "tsan: the concurrent maps tests run clean under ThreadSanitizer" "$TOP/scripts/sanitize.sh" tsan

	part "fuzzing: a short campaign"
	# Not the perf.data harness (linked with perf, a clang build of perf
	# of its own): its corpus is replayed above, make fuzz runs it.
	check "fuzz: a short campaign per harness (libFuzzer, ASan, UBSan) finds no crash" \
		env FUZZ_SECONDS="${CHECK_FUZZ_SECONDS:-60}" FUZZ_SKIP_PERF=1 "$TOP/scripts/fuzz.sh"

	part "extra builds: the perf configurations maintainers build before merging"
	check "extra-builds: perf builds with NO_LIBELF=1, NO_DWARF=1, NO_LIBTRACEEVENT=1, NO_LIBPYTHON=1 (-Werror)" "$TOP/scripts/extra-builds.sh" changed

	part "bisectability: the patches scripts/bisect-verified does not hold"
	check "bisect: perf builds after every patch, the series' tests pass at the end of each group that adds or changes them" \
		env BISECT_TIP_RESULTS="$results" "$TOP/scripts/bisect-check.sh" changed

	part "regression guard: the whole of perf test, against pristine perf"
	check "regress: every perf test that passes with pristine $KVER passes with the series" \
		env REGRESS_PASSED="$results" "$TOP/scripts/regress.sh"

	part "packagers: the series on Debian's linux $DEB_VERSION tree"
	check "check-debian: the series applies to Debian's tree at fuzz 0 and perf builds" "$TOP/scripts/check-debian.sh"

	part "perf's maintainers: the fixes exported for linux $UPSTREAM_KVER"
	check "upstream: upstream/$UPSTREAM_SERIES applies to linux $UPSTREAM_KVER with git am, perf builds, each test fails with pristine perf $UPSTREAM_KVER and passes with the fixes" "$TOP/scripts/upstream-check.sh" changed
fi
part_end

passed=$(grep -c '^PASS' "$results" || true)
failed=$(grep -c '^FAIL' "$results" || true)
skipped=$(grep -c '^SKIP' "$results" || true)
summary="$passed passed, $failed failed, $skipped skipped"
echo "$summary" > "$BUILD/test-summary.txt"
echo
echo "Seconds per step (make $what):"
awk -F'\t' '{ printf "  %6d  %s\n", $1, $2; t += $1 } END { printf "  %6d  total\n", t }' "$times"
echo
[ "$failed" = 0 ] || grep -E '^(FAIL|      \| )' "$results"
echo "$summary"
[ "$failed" = 0 ]
