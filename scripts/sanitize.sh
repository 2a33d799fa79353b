#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the patched perf with a sanitizer and run the perf tests that
# exercise what it checks; any sanitizer report fails the test.
#   sanitize.sh tsan    ThreadSanitizer: the concurrent maps tests
#   sanitize.sh asan    AddressSanitizer + UBSan: the series' shell tests
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

kind=${1:-}
case "$kind" in
tsan)
	flags="-fsanitize=thread -O1 -g"
	export TSAN_OPTIONS="halt_on_error=1 exitcode=66"
	tests="maps__mutate_mapping;maps__mutate_mapping threaded"
	;;
asan)
	# No alignment checks: pipe-mode records follow HEADER_FEATURE records
	# whose sizes are not multiples of 8, by format; x86 reads them fine.
	flags="-fsanitize=address,undefined -fno-sanitize=alignment -fno-omit-frame-pointer -O1 -g"
	export ASAN_OPTIONS="halt_on_error=1 detect_leaks=0" UBSAN_OPTIONS="halt_on_error=1 print_stacktrace=1"
	tests=$(for t in "$MIRROR"/tools/perf/tests/shell/*.sh; do
			[ ! -e "$t" ] || sed -n '2s/^# *//p' "$t"
		done | paste -sd ';')
	;;
*)
	die "usage: sanitize.sh tsan|asan"
	;;
esac

out=$BUILD/perf-$kind
# WERROR=0: the instrumentation makes gcc's flow-based warnings misfire
# (-Wformat-truncation in util/build-id.c under ASan); the normal build
# keeps -Werror.
"$TOP/scripts/build-perf.sh" "$TREE" "$out" EXTRA_CFLAGS="$flags" LDFLAGS="${flags%% *}" WERROR=0
[ -n "$tests" ] || { echo "no tests for $kind yet"; exit 0; }
step "perf tests under $kind"
results=$(TEST_PERF=$out/perf TEST_LOGS=$BUILD/tests/$kind TESTS=$tests "$TOP/scripts/run-perf-tests.sh")
echo "$results"
! grep -q '^FAIL' <<< "$results"
