#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Regression guard: the whole of `perf test` with the pristine v$KVER perf
# and with the patched perf, on this machine.  Fails if a test (or subtest)
# that passes with pristine perf fails or skips with the patched one, or
# if a test only the patched perf has fails.  A test that fails once is run
# again on its own before it counts (some upstream tests are timing
# sensitive).  The pristine result is kept in the cache, keyed by the
# pristine perf's features, the compiler and the running kernel, and not
# recomputed.  The patched run skips the tests the series adds: make
# check runs them in its perf tests step; with REGRESS_PASSED (that step's
# result file) it also skips the tests that passed there, whole.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

pristine_tree=$BUILD/linux-$KVER-pristine
pristine_out=$BUILD/perf-pristine

"$TOP/scripts/build-pristine.sh"

# What the pristine result depends on: the pristine perf's features and
# toolchain, and the machine's kernel (not the checkout's path).
key=$( { "$pristine_out/perf" version --build-options; gcc --version | head -n 1; uname -rv; } |
	sha256sum | cut -c1-16)
baseline=$CACHE/regress/pristine-$KVER-$key.txt
# Baselines recorded for known configurations (same features, compiler
# and kernel) come with the repository: a new machine of that kind needs
# no pristine run.
known=$TOP/scripts/regress-baselines/${baseline##*/}
if [ ! -s "$baseline" ] && [ -s "$known" ]; then
	info "pristine baseline for this configuration: $known"
	mkdir -p "$CACHE/regress"
	cp "$known" "$baseline"
fi
if [ ! -s "$baseline" ]; then
	step "full perf test, pristine perf (kept as $baseline)"
	mkdir -p "$CACHE/regress"
	"$TOP/scripts/full-perf-test.sh" "$pristine_out/perf" "$pristine_tree" > "$baseline.tmp"
	mv "$baseline.tmp" "$baseline"
fi
info "pristine: $(cut -f1 "$baseline" | sort | uniq -c | tr -s ' \n' ' ')"

# The series' own tests: what the patched perf has and the pristine not.
test_list() {
	(cd "$2/tools/perf" && "$1" test list 2>&1) | sed -n 's/^ *\([0-9]*\): /\1\t/p'
}
own=$(awk -F'\t' 'NR == FNR { seen[$2] = 1; next }
		   !($2 in seen) { printf "%s%d", sep, $1; sep = "," }' \
	<(test_list "$pristine_out/perf" "$pristine_tree") <(test_list "$PERF" "$TREE"))

# Tests whose every result line in REGRESS_PASSED is a PASS: numbers in
# the patched perf, descriptions in $passed_names.
passed=""
passed_names=$BUILD/regress-passed.txt
: > "$passed_names"
if [ -s "${REGRESS_PASSED:-}" ]; then
	passed=$(awk -F'\t' -v names="$passed_names" 'NR == FNR {
			line = $0
			if (line !~ /^(PASS|FAIL|SKIP)  perf test: /)
				next
			res = substr(line, 1, 4)
			sub(/^(PASS|FAIL|SKIP)  perf test: /, "", line)
			sub(/ \([^()]*\)$/, "", line)
			sub(/ \/ .*$/, "", line)
			if (res != "PASS")
				bad[line] = 1
			else
				ok[line] = 1
			next
		}
		($2 in ok) && !($2 in bad) {
			printf "%s%d", sep, $1; sep = ","
			print $2 > names
		}' \
		"$REGRESS_PASSED" <(test_list "$PERF" "$TREE"))
fi
skip=$(tr ',' '\n' <<< "$own,$passed" | sed '/^$/d' | sort -nu | paste -sd ,)

step "full perf test, patched perf (not run here: the series' own tests ${own:-none}; passed in the perf tests step: ${passed:-none})"
patched=$BUILD/regress-patched.txt
"$TOP/scripts/full-perf-test.sh" "$PERF" "$TREE" ${skip:+-s "$skip"} > "$patched"
info "patched:  $(cut -f1 "$patched" | sort | uniq -c | tr -s ' \n' ' ')"

# Tests to look at again: Ok before and not now, or new and failed (not
# those skipped here because they passed in the perf tests step).
suspects=$(awk -F'\t' '
	FILENAME == ARGV[1] { passed[$0] = 1; next }
	FILENAME == ARGV[2] { before[$2] = $1; next }
	{ top = $2; sub(/ \/ .*$/, "", top) }
	top in passed { next }
	($2 in before) && before[$2] == "Ok" && $1 != "Ok" { print $2; next }
	!($2 in before) && $1 == "FAILED!" { print $2 }' "$passed_names" "$baseline" "$patched")

regressions=0
while IFS= read -r desc; do
	[ -n "$desc" ] || continue
	top=${desc%% / *}
	again=$(cd "$TREE/tools/perf" && PATH="$PERF_OUT:$PATH" "$PERF" test "$top" 2>&1 |
		awk -f "$TOP/scripts/perf-test-results.awk" | awk -F'\t' -v d="$desc" '$2 == d { print $1 }')
	if [ "$again" = "Ok" ]; then
		info "flaky, passes on its own: $desc"
	else
		echo "REGRESSION: $desc: ${again:-no result} (pristine: $(awk -F'\t' -v d="$desc" '$2 == d { print $1 }' "$baseline"))"
		regressions=$((regressions + 1))
	fi
done <<< "$suspects"

if [ "$regressions" -gt 0 ]; then
	die "$regressions tests pass with pristine perf $KVER and not with the series"
fi
echo "no regression: every test that passes with pristine perf $KVER passes with the series"
