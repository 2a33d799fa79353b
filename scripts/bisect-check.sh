#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Bisectability: build perf after every patch of the series (incremental
# builds in one worktree, ccache) and run the tests the series has added
# by that patch (the perf tests whose description pristine perf does not
# have) that the patch concerns, as scripts/bisect-tests.list says; the
# last patch runs them all, unless BISECT_TIP_TESTED=1 (make check runs
# them on that tree anyway).  With BISECT_TESTS_CHANGED=1 (make check, to
# keep CI inside its time), a test runs only for the patches that add or
# change its own files (under tools/perf/tests/), not for those that only
# change the code it exercises, and at the end of their group of the
# series (a "#" line of patches/series starts a group), once: make bisect
# runs the tests after every patch they concern.  A patch that changes
# only shell tests and documentation is not built: perf's build reads
# neither.  Fails naming the first patch that does not build or whose
# tests fail.  BISECT_FROM=N
# starts at patch N (to resume a run that stopped there).
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
	"$TOP/scripts/build-pristine.sh" > /dev/null
	(cd "$BUILD/linux-$KVER-pristine/tools/perf" && "$BUILD/perf-pristine/perf" test list 2>&1) |
		sed -n 's/^ *[0-9]*: //p' > "$pristine_list"
fi

# The paths test $1 depends on, empty if it is not listed; with
# BISECT_TESTS_CHANGED, only its own files.
test_paths() {
	local paths

	paths=$(awk -F'\t' -v d="$1" '$1 == d { print $2 }' "$TOP/scripts/bisect-tests.list")
	if [ -n "${BISECT_TESTS_CHANGED:-}" ]; then
		tr ' ' '\n' <<< "$paths" | grep '^tools/perf/tests/' | paste -sd ' '
	else
		echo "$paths"
	fi
}

# The numbers of the patches that end a group of patches/series.
group_ends=$(awk '/^#/ { if (n) print n; next } /\.patch$/ { n++ } END { print n }' \
	"$TOP/patches/series")

tip=$("${git[@]}" rev-parse "$SERIES_BRANCH")
n=0
before=""
pending=""
built=""
unbuilt=0
for c in $("${git[@]}" rev-list --reverse "$BASE_TAG..$SERIES_BRANCH"); do
	n=$((n + 1))
	[ "$n" -ge "${BISECT_FROM:-1}" ] || continue
	subject=$("${git[@]}" log -1 --format=%s "$c")
	step "patch $n: $subject"
	git -C "$wt" checkout -q --detach "$c"
	# A patch of shell tests and documentation only changes nothing perf's
	# build reads: the perf built for the patch before is the perf of this
	# one (the shell tests are read from the tree when they run).
	if [ -n "$built" ] && ! "${git[@]}" diff --name-only "$c^" "$c" |
	   grep -qvE '^tools/perf/(tests/shell|Documentation)/'; then
		info "nothing to build: shell tests and documentation only"
		unbuilt=$((unbuilt + 1))
	else
		"$TOP/scripts/build-perf.sh" "$wt" "$out" > "$BUILD/bisect-build.log" 2>&1 ||
			{ tail -n 20 "$BUILD/bisect-build.log" >&2; die "perf does not build after patch $n: $subject"; }
		built=1
	fi
	new=$(cd "$wt/tools/perf"
	      "$out/perf" test list 2>&1 | sed -n 's/^ *[0-9]*: //p' |
	      { grep -vxF -f "$pristine_list" || true; })
	if [ -z "$new" ]; then
		info "builds; the series has added no test yet"
		continue
	fi
	if [ "$c" = "$tip" ] && [ -n "${BISECT_TIP_TESTED:-}" ]; then
		info "builds; the tests of the last patch are run by make check's perf tests"
		continue
	fi
	wanted=()
	while IFS= read -r desc; do
		read -ra paths <<< "$(test_paths "$desc")"
		if [ "$c" = "$tip" ] || [ ${#paths[@]} = 0 ] || ! grep -qxF "$desc" <<< "$before" ||
		   ! "${git[@]}" diff --quiet "$c^" "$c" -- "${paths[@]}"; then
			wanted+=("$desc")
		fi
	done <<< "$new"
	before=$new
	if [ -n "${BISECT_TESTS_CHANGED:-}" ]; then
		# Deferred to the end of the group, each test once.
		pending=$(printf '%s\n' "$pending" "${wanted[@]}" | sed '/^$/d' | awk '!seen[$0]++')
		if [ "$c" != "$tip" ] && ! grep -qx "$n" <<< "$group_ends"; then
			if [ ${#wanted[@]} = 0 ]; then
				info "builds; the patch concerns none of the series' tests"
			else
				info "builds; its tests run at the end of its group of the series"
			fi
			continue
		fi
		wanted=()
		[ -z "$pending" ] || mapfile -t wanted <<< "$pending"
		pending=""
	fi
	if [ ${#wanted[@]} = 0 ]; then
		info "builds; the patch concerns none of the series' tests"
		continue
	fi
	results=$(IFS=';'; TEST_PERF=$out/perf TEST_TREE=$wt TEST_LOGS=$BUILD/tests/bisect \
		  TESTS="${wanted[*]}" "$TOP/scripts/run-perf-tests.sh")
	echo "$results"
	! grep -q '^FAIL' <<< "$results" || die "tests fail after patch $n: $subject"
done
builds="perf builds after each of the $n patches ($unbuilt of them change only shell tests and documentation, which are not built)"
if [ -n "${BISECT_TESTS_CHANGED:-}" ]; then
	echo "bisectable: $builds and the series' tests pass at the end of each group of patches that add or change them"
else
	echo "bisectable: $builds and the series' tests pass where they apply"
fi
