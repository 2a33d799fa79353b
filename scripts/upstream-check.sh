#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make upstream: the fixes exported for linux $UPSTREAM_KVER
# (upstream/$UPSTREAM_SERIES/, export-upstream.sh) on that tree.  Applies
# them with git am to a worktree of the upstream tree at $UPSTREAM_TAG,
# builds its perf (NO_RUST=1) and the pristine tree's (kept: built again
# only when the tree changes), and runs each shell test the fixes add or
# change with both: it must fail with pristine perf (the bug is there)
# and pass with the fixes; each C test suite they add or change must pass
# with the fixes; the tests of scripts/upstream-sanitized, run with perf
# built with AddressSanitizer, must make pristine perf report errors and
# perf with the fixes none.  One line per test, then "N passed, N failed".
# When Debian's archive no longer has the pinned package and no cache has
# it, says so and exits 0 (a skip).
#
# scripts/upstream-pristine, written by this script only, holds the exit
# status of each test with pristine perf: a key (the package's sha256, the
# test and the lib/ it sources, the features of the perf built) and the
# status.  Pristine perf is built and run only for the tests whose key is
# not there: a CI run of an export whose tests were run here builds the
# patched perf alone.
#
# scripts/upstream-verified, written by this script only, holds the key
# of the export that last passed (the package, the patches, this script:
# verified_key); "upstream-check.sh changed" (make check-all) says so and
# checks nothing if it is the export as it is.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

series=$UPSTREAM_PATCHES/series
[ -f "$series" ] || die "no ${series#"$TOP"/}: run scripts/export-upstream.sh"
verified=$TOP/scripts/upstream-verified
export_key=$(verified_key "$UPSTREAM_DEB_SHA256" "$(cat "$0" "$TOP/scripts/upstream-sanitized")" \
	"$(cd "$UPSTREAM_PATCHES" && cat series ./*.patch | sha256sum)")
if [ "${1:-}" = changed ] && is_verified "$verified" "$export_key"; then
	echo "PASS  ${UPSTREAM_PATCHES#"$TOP"/} as it is: passed here before ($(grep -v '^#' "$verified" | cut -d' ' -f2-))"
	exit 0
fi
rc=0
mkdir -p "$BUILD"
"$(dirname "$0")/prepare-upstream-tree.sh" > "$BUILD/upstream-tree.log" 2>&1 || rc=$?
if [ "$rc" = 2 ]; then
	grep '^skip:' "$BUILD/upstream-tree.log" || echo "skip: no linux $UPSTREAM_KVER tree"
	exit 0
fi
[ "$rc" = 0 ] || { cat "$BUILD/upstream-tree.log" >&2; die "can't make the linux $UPSTREAM_KVER tree"; }

dir=$BUILD/upstream
pristine=$dir/pristine/linux-$UPSTREAM_KVER
patched=$dir/patched/linux-$UPSTREAM_KVER
step "applying ${series#"$TOP"/} to linux $UPSTREAM_KVER with git am"
pristine_worktree "$patched" "$UPSTREAM_TREE" "$UPSTREAM_TAG"
mapfile -t patches < <(grep -v -e '^#' -e '^[[:space:]]*$' "$series")
for p in "${patches[@]}"; do
	git -C "$patched" -c user.name=upstream-check -c user.email=check@localhost \
		am -q "$UPSTREAM_PATCHES/$p" || die "$p doesn't apply to linux $UPSTREAM_KVER"
done
info "${#patches[@]} patches applied"

"$TOP/scripts/build-perf.sh" "$patched" "$dir/patched/perf" NO_RUST=1

record=$TOP/scripts/upstream-pristine
# pristine_key TEST: what the exit of TEST with pristine perf depends on.
pristine_key() {
	{
		echo "$UPSTREAM_DEB_SHA256"
		"$dir/patched/perf/perf" version --build-options | grep -F '[ on  ]'
		cat "$patched/tools/perf/tests/shell/$1"
		git -C "$patched" rev-parse HEAD:tools/perf/tests/shell/lib
	} | sha256sum | cut -c1-16
}
# recorded KEY: the exit status the record has for KEY, if any.
recorded() {
	[ -f "$record" ] && awk -v k="$1" '$1 == k { print $2; exit }' "$record"
}

# run_test PERF_DIR TEST LOG [VAR=VALUE...]: shell test TEST of the patched
# tree with the perf of PERF_DIR (and PERF_EXEC_PATH as perf test sets it:
# the tests' python helpers take its perf.so), its output in LOG.
run_test() {
	local perf=$1 t=$2 log=$3

	shift 3
	env PATH="$perf:$PATH" PERF_EXEC_PATH="$perf" "$@" \
		bash "$patched/tools/perf/tests/shell/$t" > "$log" 2>&1
}
# verdict STATUS PASS-LINE FAIL-LINE: a test passed (STATUS 0) or failed.
passed=0 failed=0
verdict() {
	if [ "$1" = 0 ]; then
		echo "PASS  $2"
		passed=$((passed + 1))
	else
		echo "FAIL  $3"
		failed=$((failed + 1))
	fi
}

# The shell tests the fixes add or change (not their helpers in lib/)
mapfile -t tests < <(cd "$UPSTREAM_PATCHES" && cat "${patches[@]}" |
	sed -n 's|^+++ b/tools/perf/tests/shell/\([^/]*\.sh\)$|\1|p' | sort -u)
step "${#tests[@]} shell tests: each fails with pristine perf $UPSTREAM_KVER, passes with the fixes"
mkdir -p "$dir/logs"
for t in "${tests[@]}"; do
	[ -n "$(recorded "$(pristine_key "$t")")" ] || need_pristine=1
done
if [ -n "${need_pristine:-}" ]; then
	pristine_worktree "$pristine" "$UPSTREAM_TREE" "$UPSTREAM_TAG"
	"$TOP/scripts/build-perf.sh" "$pristine" "$dir/pristine/perf" NO_RUST=1
fi
for t in "${tests[@]}"; do
	log=$dir/logs/${t%.sh}
	after=0
	key=$(pristine_key "$t")
	before=$(recorded "$key")
	if [ -z "$before" ]; then
		before=0
		run_test "$dir/pristine/perf" "$t" "$log.pristine.log" || before=$?
		# Only what is expected: another status is looked at again next time.
		[ "$before" != 1 ] || printf '%s %s %s\n' "$key" "$before" "$t" >> "$record"
	else
		echo "exit $before with pristine perf, as scripts/upstream-pristine records" > "$log.pristine.log"
	fi
	run_test "$dir/patched/perf" "$t" "$log.patched.log" || after=$?
	ok=0
	{ [ "$before" = 1 ] && [ "$after" = 0 ]; } || ok=1
	verdict "$ok" "$t: fails with pristine perf, passes with the fixes" \
		"$t: exit $before with pristine perf (1 expected), $after with the fixes (0 expected); logs: $log.*.log"
done
# The C tests the fixes add or change: each suite passes with the fixes
# (pristine perf has no new suite; the fixes' messages say how each case
# fails without them).
mapfile -t ctests < <(cd "$UPSTREAM_PATCHES" && cat "${patches[@]}" |
	sed -n 's|^+++ b/tools/perf/tests/\([^/]*\.c\)$|\1|p' | sort -u)
for c in "${ctests[@]}"; do
	desc=$(sed -n -e 's/^DEFINE_SUITE("\([^"]*\)".*/\1/p' \
		-e 's/^\t\.desc = "\([^"]*\)",$/\1/p' "$patched/tools/perf/tests/$c" | head -n 1)
	[ -n "$desc" ] || continue
	log=$dir/logs/${c%.c}.patched.log
	(cd / && "$dir/patched/perf/perf" test -v "$desc") > "$log" 2>&1 || true
	ok=0
	{ grep -q ': Ok$' "$log" && ! grep -Eq 'FAILED!|: Skip' "$log"; } || ok=1
	verdict "$ok" "$c (\"$desc\"): passes with the fixes" \
		"$c (\"$desc\"): not Ok with the fixes; log: $log"
done
# Leaks and reads past a buffer show under a sanitizer only: the tests that
# scripts/upstream-sanitized names run again with perf built with
# AddressSanitizer (and its LeakSanitizer): pristine perf must report an
# error in each function the line names (a report under log_path with a
# frame of it), perf with the fixes none.
mapfile -t sanitized < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' \
	"$TOP/scripts/upstream-sanitized")
asan=(EXTRA_CFLAGS="-fsanitize=address -fno-omit-frame-pointer -O1 -g"
	LDFLAGS=-fsanitize=address WERROR=0 NO_RUST=1)
# sanitized_run PERF_DIR TEST LOGDIR: TEST with that perf, its sanitizer
# reports in LOGDIR.
sanitized_run() {
	rm -rf "$3" && mkdir -p "$3"
	run_test "$1" "$2" "$3.log" ASAN_OPTIONS="detect_leaks=1:log_path=$3/asan" || true
}
# reported LOGDIR FUNCTION...: how many of the FUNCTIONs no report of
# LOGDIR has a frame of ("-": how many reports there are).
reported() {
	local dir=$1 f missing=0

	shift
	if [ "$1" = - ]; then
		find "$dir" -name 'asan.*' | wc -l
		return
	fi
	for f in "$@"; do
		grep -rqs " in $f " "$dir" || missing=$((missing + 1))
	done
	echo "$missing"
}
if [ "${#sanitized[@]}" -gt 0 ]; then
	step "${#sanitized[@]} shell tests under AddressSanitizer: reports with pristine perf, none with the fixes"
	"$TOP/scripts/build-perf.sh" "$patched" "$dir/patched/perf-asan" "${asan[@]}"
fi
for line in "${sanitized[@]}"; do
	read -r t funcs <<< "$line"
	log=$dir/logs/${t%.sh}.asan
	key=$(printf '%s asan %s' "$(pristine_key "$t")" "$funcs" | sha256sum | cut -c1-16)
	missing=$(recorded "$key")
	if [ -z "$missing" ]; then
		pristine_worktree "$pristine" "$UPSTREAM_TREE" "$UPSTREAM_TAG"
		"$TOP/scripts/build-perf.sh" "$pristine" "$dir/pristine/perf-asan" "${asan[@]}"
		sanitized_run "$dir/pristine/perf-asan" "$t" "$log.pristine"
		# shellcheck disable=SC2086
		missing=$(reported "$log.pristine" $funcs)
		[ "$missing" != 0 ] || printf '%s 0 %s (asan: %s)\n' "$key" "$t" "$funcs" >> "$record"
	fi
	sanitized_run "$dir/patched/perf-asan" "$t" "$log.patched"
	after=$(reported "$log.patched" -)
	ok=0
	{ [ "$missing" = 0 ] && [ "$after" = 0 ]; } || ok=1
	verdict "$ok" "$t under ASan: pristine perf reports errors in $funcs, none with the fixes" \
		"$t under ASan: $missing of $funcs without a report with pristine perf (0 expected), $after reports with the fixes (0 expected); logs: $log.*"
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] || exit 1
{
	echo "# The export that scripts/upstream-check.sh last passed (written by it only)"
	echo "$export_key $passed tests on $(date -u +%F)"
} > "$verified"
