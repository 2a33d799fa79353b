#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Regression guard: the whole of `perf test` with the patched perf, and
# with the pristine v$KVER perf wherever the patched one does not pass, on
# this machine.  Fails if a test (or subtest) that passes with pristine
# perf fails or skips with the patched one (run again on its own first:
# some upstream tests are timing sensitive), or if a test of pristine perf
# is gone.  The patched run skips the tests the series adds (the perf tests
# step of make check runs them) and, with REGRESS_PASSED (that step's
# result file), the tests that passed there.  Tests run two at a time
# (TEST_JOBS), the pristine ones on their own.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

pristine_tree=$PRISTINE_TREE
pristine_perf=$PRISTINE_OUT/perf

"$TOP/scripts/build-pristine.sh"

# test_list PERF TREE: "N<TAB>description" of each test.
test_list() {
	(cd "$2/tools/perf" && "$1" test list 2>&1) | sed -n 's/^ *\([0-9]*\): /\1\t/p'
}
# results PERF TREE DESC...: perf-test-results.awk lines of the tests DESC.
results() {
	local perf=$1 tree=$2

	shift 2
	[ $# -gt 0 ] || return 0
	TEST_RAW=1 TEST_PERF=$perf TEST_TREE=$tree TEST_LOGS=$BUILD/tests/regress \
		TESTS=$(IFS=';'; echo "$*") "$TOP/scripts/run-perf-tests.sh"
}
# result FILE DESC: the result of test or subtest DESC in FILE.
result() {
	awk -F'\t' -v d="$2" '$2 == d { print $1; exit }' "$1"
}

pristine_list=$(test_list "$pristine_perf" "$pristine_tree" | cut -f2)
patched_list=$(test_list "$PERF" "$TREE" | cut -f2)
regressions=0
while IFS= read -r desc; do
	echo "REGRESSION: $desc: pristine perf has this test, the patched one has not"
	regressions=$((regressions + 1))
done < <(grep -vxF -f <(echo "$patched_list") <<< "$pristine_list" || true)

# The tests to run: not the series' own, not those that passed whole in
# REGRESS_PASSED.
passed=""
if [ -s "${REGRESS_PASSED:-}" ]; then
	passed=$(awk '/^(PASS|FAIL|SKIP)  perf test: / {
			res = substr($0, 1, 4); line = $0
			sub(/^(PASS|FAIL|SKIP)  perf test: /, "", line)
			sub(/ \([^()]*\)$/, "", line)
			sub(/ \/ .*$/, "", line)
			if (res != "PASS") bad[line] = 1; else ok[line] = 1
		}
		END { for (t in ok) if (!(t in bad)) print t }' "$REGRESS_PASSED")
fi
mapfile -t run < <(grep -xF -f <(echo "$pristine_list") <<< "$patched_list" |
		   { grep -vxF -f <(printf '%s\n' "$passed" | sed '/^$/d'; echo) || true; })
own=$(grep -cvxF -f <(echo "$pristine_list") <<< "$patched_list" || true)
step "perf test, patched perf: ${#run[@]} tests (not run here: the series' own $own, $(sed '/^$/d' <<< "$passed" | wc -l) that passed in the perf tests step)"
patched=$BUILD/regress-patched.txt
results "$PERF" "$TREE" "${run[@]}" > "$patched"
info "patched:  $(cut -f1 "$patched" | sort | uniq -c | tr -s ' \n' ' ')"

# Whatever did not pass is run with pristine perf, test by test, alone.
mapfile -t suspects < <(awk -F'\t' '$1 != "Ok" { t = $2; sub(/ \/ .*$/, "", t); print t }' "$patched" | awk '!seen[$0]++')
step "perf test, pristine perf: the ${#suspects[@]} tests that did not pass with the patched one"
pristine=$BUILD/regress-pristine.txt
TEST_JOBS=1 results "$pristine_perf" "$pristine_tree" "${suspects[@]}" > "$pristine"
info "pristine: $(cut -f1 "$pristine" | sort | uniq -c | tr -s ' \n' ' ')"

# Every result that is Ok with pristine perf must be Ok with the patched
# one (a subtest the patched run did not print is not); the patched test
# is run again on its own, up to REGRESS_TRIES times (default 3: some
# upstream tests depend on timing, as "Software clock events period
# values"), before it counts.
declare -A again=()
while IFS=$'\t' read -r res desc _; do
	if [ "$res" != Ok ] || [ "$(result "$patched" "$desc")" = Ok ]; then
		continue
	fi
	top=${desc%% / *}
	try=0
	res=""
	while [ "$res" != Ok ] && [ "$try" -lt "${REGRESS_TRIES:-3}" ]; do
		try=$((try + 1))
		[ "$try" = 1 ] && [ -n "${again[$top]:-}" ] ||
			again[$top]=$(TEST_JOBS=1 results "$PERF" "$TREE" "$top")
		res=$(awk -F'\t' -v d="$desc" '$2 == d { print $1 }' <<< "${again[$top]}")
	done
	if [ "$res" = Ok ]; then
		info "flaky, passes on its own (try $try): $desc"
	else
		echo "REGRESSION: $desc: ${res:-no result} in $try runs on its own (pristine: Ok)"
		tail -n 8 "$(log_file "$BUILD/tests/regress" "$top")" 2> /dev/null |
			sed 's/^/      | /' || true
		regressions=$((regressions + 1))
	fi
done < "$pristine"

if [ "$regressions" -gt 0 ]; then
	die "$regressions tests pass with pristine perf $KVER and not with the series"
fi
echo "no regression: every test that passes with pristine perf $KVER passes with the series"
