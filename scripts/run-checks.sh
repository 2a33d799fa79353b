#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Everything `make -f Makefile.series check` tests, on the built perf: the
# repository's own checks, the workbench's self-tests, the submission round
# trip and the packagers' tarball, the perf tests, the ThreadSanitizer
# build, the fuzz corpus and a short fuzz campaign, the extra builds,
# bisectability, the regression guard and the series on Debian's tree.
# One line per test, then the closing line "N passed, N failed, N skipped"
# (also written to build/test-summary.txt).  Exit 1 on any failure.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

results=$BUILD/test-results.txt
: > "$results"
logs=$BUILD/tests
mkdir -p "$logs"

# check NAME COMMAND...: one check; its output is shown indented and kept
# in build/tests/.
check() {
	local name=$1 log start
	shift
	log=$logs/$(tr -c 'A-Za-z0-9_\n' '_' <<< "$name").log
	start=$(date +%s)
	if "$@" 2>&1 | tee "$log" | sed -u 's/^/      /'; then
		echo "PASS  $name ($(( $(date +%s) - start ))s)" | tee -a "$results"
	else
		echo "FAIL  $name ($(( $(date +%s) - start ))s, log: $log)" | tee -a "$results"
	fi
}

step "repository checks"
check "series: applies with fuzz 0, work tree and tools/ mirror in sync" "$TOP/scripts/check-series.sh"
check "series: checkpatch.pl --strict on every patch" "$TOP/scripts/checkpatch-series.sh"
check "scripts: shellcheck" bash -c "cd '$TOP' && shellcheck -x scripts/*.sh .ci/run"
check "workbench: a tarball with a wrong sha256 is refused" "$TOP/scripts/selftest.sh" bad-tarball
check "workbench: a patch that needs fuzz is refused" "$TOP/scripts/selftest.sh" fuzz
check "workbench: a stale tools/ mirror is refused" "$TOP/scripts/selftest.sh" stale-mirror

step "submission and packaging"
check "mail: the send-local mbox, applied with git am to $BASE_TAG, gives the quilt tree" "$TOP/scripts/roundtrip.sh"
check "mail: no identity, or the placeholder one, is refused" "$TOP/scripts/selftest.sh" no-identity
check "mail: a patch changed on the way fails the round trip" "$TOP/scripts/selftest.sh" roundtrip-tamper
check "dist: the packagers' tarball applies with patch -p1 --fuzz=0 and git am, DEP-3 headers" "$TOP/scripts/check-dist.sh"

step "perf tests (patched perf: $("$PERF" version))"
"$TOP/scripts/run-perf-tests.sh" | tee -a "$results"

step "sanitizers"
check "tsan: the concurrent maps tests run clean under ThreadSanitizer" "$TOP/scripts/sanitize.sh" tsan

step "fuzzing: the parsers the series adds"
check "fuzz-replay: the fuzz corpus replays clean with the normal build" "$TOP/scripts/fuzz-replay.sh"
# Not the perf.data harness (linked with perf): it still finds crashes in
# perf's upstream header parsing within minutes (README, Fuzzing); its
# corpus is replayed above.
check "fuzz: a short campaign per harness (libFuzzer, ASan, UBSan) finds no crash" \
	env FUZZ_SECONDS="${CHECK_FUZZ_SECONDS:-60}" FUZZ_SKIP_PERF=1 "$TOP/scripts/fuzz.sh"

step "extra builds: the perf configurations maintainers build before merging"
check "extra-builds: perf builds with NO_LIBELF=1, NO_DWARF=1, NO_LIBTRACEEVENT=1, NO_LIBPYTHON=1 (-Werror)" "$TOP/scripts/extra-builds.sh"

step "bisectability: perf after every patch"
# The tests after the patches that add or change them: after every patch
# that changes the code they exercise (make bisect) takes 45 minutes.
check "bisect: perf builds after every patch, the series' tests pass after the patches that add or change them" \
	env BISECT_TIP_TESTED=1 BISECT_TESTS_CHANGED=1 "$TOP/scripts/bisect-check.sh"

step "regression guard: the whole of perf test, pristine and patched"
check "regress: every perf test that passes with pristine $KVER passes with the series" \
	env REGRESS_PASSED="$results" "$TOP/scripts/regress.sh"

step "packagers: the series on Debian's linux $DEB_VERSION tree"
check "check-debian: the series applies to Debian's tree at fuzz 0 and perf builds" "$TOP/scripts/check-debian.sh"

passed=$(grep -c '^PASS' "$results" || true)
failed=$(grep -c '^FAIL' "$results" || true)
skipped=$(grep -c '^SKIP' "$results" || true)
summary="$passed passed, $failed failed, $skipped skipped"
echo "$summary" > "$BUILD/test-summary.txt"
echo
[ "$failed" = 0 ] || grep '^FAIL' "$results"
echo "$summary"
[ "$failed" = 0 ]
