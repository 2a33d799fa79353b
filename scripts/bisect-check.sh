#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Bisectability: build perf after every patch of the series (incremental
# builds in one worktree, ccache) and run the tests the series has added
# by that patch (the perf tests whose description pristine perf does not
# have).  Fails naming the first patch that does not build or whose tests
# fail.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

wt=$BUILD/linux-$KVER-bisect
out=$BUILD/perf-bisect
git=(git -C "$TREE")

if [ ! -e "$wt/.git" ]; then
	step "checking out $BASE_TAG into $wt"
	"${git[@]}" worktree prune
	"${git[@]}" worktree add -q --detach "$wt" "$BASE_TAG"
fi

# The tests pristine perf has, to tell the series' own tests apart.
pristine_list=$BUILD/perf-tests-pristine.txt
if [ ! -s "$pristine_list" ]; then
	git -C "$wt" checkout -q --detach "$BASE_TAG"
	"$TOP/scripts/build-perf.sh" "$wt" "$out" > /dev/null
	(cd "$wt/tools/perf" && "$out/perf" test list 2>&1) | sed -n 's/^ *[0-9]*: //p' > "$pristine_list"
fi

n=0
for c in $("${git[@]}" rev-list --reverse "$BASE_TAG..$SERIES_BRANCH"); do
	n=$((n + 1))
	subject=$("${git[@]}" log -1 --format=%s "$c")
	step "patch $n: $subject"
	git -C "$wt" checkout -q --detach "$c"
	"$TOP/scripts/build-perf.sh" "$wt" "$out" > "$BUILD/bisect-build.log" 2>&1 ||
		{ tail -n 20 "$BUILD/bisect-build.log" >&2; die "perf does not build after patch $n: $subject"; }
	new=$(cd "$wt/tools/perf"
	      "$out/perf" test list 2>&1 | sed -n 's/^ *[0-9]*: //p' |
	      { grep -vxF -f "$pristine_list" || true; } | paste -sd ';')
	if [ -z "$new" ]; then
		info "builds; the series has added no test yet"
		continue
	fi
	results=$(TEST_PERF=$out/perf TEST_TREE=$wt TESTS=$new "$TOP/scripts/run-perf-tests.sh")
	echo "$results"
	! grep -q '^FAIL' <<< "$results" || die "tests fail after patch $n: $subject"
done
echo "bisectable: perf builds and the series' tests pass after each of the $n patches"
