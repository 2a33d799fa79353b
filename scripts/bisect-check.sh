#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Bisectability: build perf after each patch of the series (incremental
# builds in one worktree, ccache) and run the tests the series has added by
# then (the perf tests whose description pristine perf does not have) that
# the patch concerns, as scripts/bisect-tests.list says.  Fails naming the
# first patch that does not build or whose tests fail.
#
#   bisect-check.sh            make bisect: every patch (from BISECT_FROM,
#                              default 1), each test after every patch that
#                              changes the code it exercises or its files
#   bisect-check.sh changed    make bisect-changed and make check-all: only
#                              the patches scripts/bisect-verified does not
#                              hold; a test runs for the patches that change
#                              its own files (under tools/perf/tests/), once
#                              at the end of their group of the series (a
#                              "#" line of patches/series starts a group)
#
# scripts/bisect-verified, written by this script only, holds the states of
# the series that passed: the git tree of the work tree after the patch
# (the base and the patches up to it), how it passed, its subject.  A
# change to patch N changes the trees of N and the patches after it: those
# are verified again, the patches before it are not.  In "changed" mode a
# group of the series is taken whole once one of its patches is not in the
# record, and it goes in the record when its tests pass.  The last patch
# runs all the series' tests; BISECT_TIP_RESULTS=FILE (make check-all: its
# perf tests step, which runs them on the same tree) takes their results
# from there.  A patch that changes only shell tests and documentation is
# not built: of them perf's build only runs shellcheck on the shell tests,
# which this script then does itself.  For the same reason, in "changed"
# mode a patch whose build tree (its tree without tools/perf/tests/shell
# and tools/perf/Documentation) built before, as scripts/bisect-built
# records, is not built again unless it ends its group (whose tests run on
# its perf): a change to a shell test or a man page costs a build per
# group of the series after it, not one per patch.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

mode=${1:-full}
case "$mode" in full|changed) ;; *) die "usage: bisect-check.sh [changed]" ;; esac
wt=$BISECT_TREE
out=$BISECT_OUT
record=$TOP/scripts/bisect-verified
built_record=$TOP/scripts/bisect-built
git=(git -C "$TREE")

# The record: tree -> "MODE SUBJECT".
declare -A verified=()
if [ -f "$record" ]; then
	while read -r tree how subject; do
		[[ $tree == [0-9a-f]* ]] || continue
		verified[$tree]="$how $subject"
	done < "$record"
fi

# The build trees that built: build tree -> subject.
declare -A built_trees=()
if [ -f "$built_record" ]; then
	while read -r tree subject; do
		[[ $tree == [0-9a-f]* ]] || continue
		built_trees[$tree]=$subject
	done < "$built_record"
fi

# build_tree COMMIT: a hash of what perf's build reads of COMMIT, its tree
# without tools/perf/tests/shell and tools/perf/Documentation (the entries
# of the directories on the way there, the others by their tree hash).
build_tree() {
	local d

	for d in "" tools/ tools/perf/ tools/perf/tests/; do
		"${git[@]}" ls-tree "$1" ${d:+"$d"}
	done | grep -vE $'\t(tools|tools/perf|tools/perf/tests|tools/perf/tests/shell|tools/perf/Documentation)$' |
		"${git[@]}" hash-object --stdin
}

# write_record: the records, for the patches of the series that passed
# (and those whose build tree built), in the order of the series.
write_record() {
	local c tree

	{
		echo "# The states of the series that scripts/bisect-check.sh verified (written by"
		echo "# it only, after a patch passed): the git tree after the patch, how it"
		echo "# passed (full: make bisect; changed: make check-all), the subject."
		for c in "${commits[@]}"; do
			tree=$("${git[@]}" rev-parse "$c^{tree}")
			[ -z "${verified[$tree]:-}" ] || echo "$tree ${verified[$tree]}"
		done
	} > "$record.tmp"
	mv "$record.tmp" "$record"
	{
		echo "# The build trees of the patches of the series that perf built from"
		echo "# (written by scripts/bisect-check.sh only): a hash of the tree after the"
		echo "# patch without tools/perf/tests/shell and tools/perf/Documentation, the"
		echo "# subject."
		for c in "${commits[@]}"; do
			tree=${build_trees[$c]}
			[ -z "${built_trees[$tree]:-}" ] || echo "$tree ${built_trees[$tree]}"
		done | awk '!seen[$1]++'
	} > "$built_record.tmp"
	mv "$built_record.tmp" "$built_record"
}

# The tests pristine perf has, to tell the series' own tests apart.
pristine_list=$BUILD/perf-tests-pristine.txt
pristine_tests() {
	[ ! -s "$pristine_list" ] || return 0
	"$TOP/scripts/build-pristine.sh" > /dev/null
	(cd "$PRISTINE_TREE/tools/perf" && "$PRISTINE_OUT/perf" test list 2>&1) |
		sed -n 's/^ *[0-9]*: //p' > "$pristine_list"
}

# The paths test $1 depends on, empty if it is not listed; in "changed"
# mode, only its own files.
test_paths() {
	local paths

	paths=$(awk -F'\t' -v d="$1" '$1 == d { print $2 }' "$TOP/scripts/bisect-tests.list")
	if [ "$mode" = changed ]; then
		tr ' ' '\n' <<< "$paths" | grep '^tools/perf/tests/' | paste -sd ' '
	else
		echo "$paths"
	fi
}

# own_changes COMMIT: the listed tests whose own files COMMIT changes.
own_changes() {
	local desc paths

	while IFS=$'\t' read -r desc _; do
		[[ -n $desc && $desc != \#* ]] || continue
		read -ra paths <<< "$(test_paths "$desc")"
		[ ${#paths[@]} -gt 0 ] || continue
		"${git[@]}" diff --quiet "$1^" "$1" -- "${paths[@]}" || echo "$desc"
	done < "$TOP/scripts/bisect-tests.list"
}

# tip_results DESC...: those of the tests that BISECT_TIP_RESULTS has no
# result of; fails if it has a failure of one.
tip_results() {
	local desc lines

	for desc in "$@"; do
		lines=$(awk -v d="$desc" '{
				line = $0; sub(/^(PASS|FAIL|SKIP)  perf test: /, "", line)
				if (line == d || index(line, d " ") == 1) print substr($0, 1, 4)
			}' "${BISECT_TIP_RESULTS:-/dev/null}")
		if grep -q FAIL <<< "$lines"; then
			echo "the series' test \"$desc\" fails on the last patch (the perf tests step)" >&2
			return 1
		elif [ -z "$lines" ]; then
			echo "$desc"
		fi
	done
}

# check_shell_tests COMMIT: what perf's build does with the shell tests
# (tests/Build runs shellcheck -a -S warning on each executable one when
# it is installed), for those COMMIT changes, checked out in the worktree:
# a patch that isn't built still has its shell tests checked.
check_shell_tests() {
	local f

	command -v shellcheck > /dev/null || return 0
	git -C "$wt" checkout -q --detach "$1"
	while IFS= read -r f; do
		[ -x "$wt/$f" ] || continue
		(cd "$wt/tools/perf" && shellcheck -a -S warning "${f#tools/perf/}") ||
			die "shellcheck of ${f#tools/perf/} fails after patch $n: $subject"
	done < <("${git[@]}" diff --name-only --diff-filter=AM "$1^" "$1" -- 'tools/perf/tests/shell/*.sh')
}

# run_tests PATCH-NUMBER SUBJECT DESC...: the tests, on the perf of the
# worktree; fails if one fails.
run_tests() {
	local n=$1 subject=$2 results

	shift 2
	[ $# -gt 0 ] || return 0
	results=$(IFS=';'; TEST_PERF=$out/perf TEST_TREE=$wt TEST_LOGS=$BUILD/tests/bisect \
		  TESTS="$*" "$TOP/scripts/run-perf-tests.sh")
	echo "$results"
	! grep -q '^FAIL' <<< "$results" || die "tests fail after patch $n: $subject"
}

if [ ! -e "$wt/.git" ]; then
	step "checking out $BASE_TAG into $wt"
	"${git[@]}" worktree prune
	"${git[@]}" worktree add -q --detach "$wt" "$BASE_TAG"
fi

# The numbers of the patches that end a group of patches/series.
group_ends=$(awk '/^#/ { if (n) print n; next } /\.patch$/ { n++ } END { print n }' \
	"$TOP/patches/series")
mapfile -t commits < <("${git[@]}" rev-list --reverse "$BASE_TAG..$SERIES_BRANCH")
tip=${commits[-1]:-}
declare -A build_trees=()	# commit -> build tree
for c in "${commits[@]}"; do
	build_trees[$c]=$(build_tree "$c")
done
n=0 before="" pending="" last_built="" group_built=0 group=()	# group: "TREE SUBJECT"
built=0 unbuilt=0 prebuilt=0 taken=0
for c in "${commits[@]}"; do
	n=$((n + 1))
	[ "$n" -ge "${BISECT_FROM:-1}" ] || continue
	tree=$("${git[@]}" rev-parse "$c^{tree}")
	subject=$("${git[@]}" log -1 --format=%s "$c")
	end=0
	{ [ "$c" != "$tip" ] && ! grep -qx "$n" <<< "$group_ends"; } || end=1

	if [ "$mode" = changed ] && [ "$group_built" = 0 ] && [ -n "${verified[$tree]:-}" ]; then
		# Passed before; its tests count if a later patch of its group
		# has to be verified.
		taken=$((taken + 1))
		: "${built_trees[${build_trees[$c]}]:=$subject}"
		pending=$(printf '%s\n' "$pending" "$(own_changes "$c")" | sed '/^$/d' | awk '!seen[$0]++')
		[ "$end" = 0 ] || pending=""
		continue
	fi
	if [ "$mode" = changed ] && [ "$end" = 0 ] && [ -n "${built_trees[${build_trees[$c]}]:-}" ]; then
		# Built before as it is now: its tests run at the end of its group.
		step "patch $n: $subject"
		check_shell_tests "$c"
		info "built before (its build tree, scripts/bisect-built); its tests run at the end of its group"
		prebuilt=$((prebuilt + 1))
		group_built=1
		group+=("$tree $subject")
		pending=$(printf '%s\n' "$pending" "$(own_changes "$c")" | sed '/^$/d' | awk '!seen[$0]++')
		continue
	fi

	step "patch $n: $subject"
	git -C "$wt" checkout -q --detach "$c"
	if [ -n "$last_built" ] && ! "${git[@]}" diff --name-only "$last_built" "$c" |
	   grep -qvE '^tools/perf/(tests/shell|Documentation)/'; then
		check_shell_tests "$c"
		info "nothing to build: shell tests and documentation only"
		unbuilt=$((unbuilt + 1))
	else
		"$TOP/scripts/build-perf.sh" "$wt" "$out" > "$BUILD/bisect-build.log" 2>&1 ||
			{ tail -n 20 "$BUILD/bisect-build.log" >&2; die "perf does not build after patch $n: $subject"; }
		last_built=$c
		built=$((built + 1))
	fi
	: "${built_trees[${build_trees[$c]}]:=$subject}"
	group_built=1
	group+=("$tree $subject")
	pristine_tests
	new=$(cd "$wt/tools/perf"
	      "$out/perf" test list 2>&1 | sed -n 's/^ *[0-9]*: //p' |
	      { grep -vxF -f "$pristine_list" || true; })

	wanted=()
	while IFS= read -r desc; do
		[ -n "$desc" ] || continue
		read -ra paths <<< "$(test_paths "$desc")"
		if [ "$c" = "$tip" ] || [ ${#paths[@]} = 0 ] ||
		   { [ "$mode" = full ] && ! grep -qxF "$desc" <<< "$before"; } ||
		   ! "${git[@]}" diff --quiet "$c^" "$c" -- "${paths[@]}"; then
			wanted+=("$desc")
		fi
	done <<< "$new"
	before=$new
	if [ "$mode" = changed ]; then
		pending=$(printf '%s\n' "$pending" "${wanted[@]}" | sed '/^$/d' | awk '!seen[$0]++')
		if [ "$end" = 0 ]; then
			info "builds; its tests run at the end of its group of the series"
			continue
		fi
		# Only the tests this perf has (a test may be gone by now).
		wanted=()
		[ -z "$pending" ] || mapfile -t wanted < <(grep -xF -f <(echo "$new") <<< "$pending" || true)
		pending=""
	fi
	if [ "$c" = "$tip" ] && [ -n "${BISECT_TIP_RESULTS:-}" ] && [ ${#wanted[@]} -gt 0 ]; then
		missing=$(tip_results "${wanted[@]}") || die "tests fail after patch $n: $subject"
		wanted=()
		[ -z "$missing" ] || mapfile -t wanted <<< "$missing"
		info "the last patch: the series' tests passed in the perf tests step${wanted:+, but for ${#wanted[@]}}"
	fi
	if [ ${#wanted[@]} = 0 ]; then
		info "builds; no test of the series to run here"
	else
		run_tests "$n" "$subject" "${wanted[@]}"
	fi
	for t in "${group[@]}"; do
		verified[${t%% *}]="$mode ${t#* }"
	done
	group=()
	[ "$end" = 0 ] || group_built=0
	write_record
done

write_record

done="perf builds after each of the $((built + unbuilt + prebuilt)) patches verified here ($unbuilt of them change only shell tests and documentation, which are not built; $prebuilt built before as they are)"
[ "$taken" = 0 ] || done="$done; $taken passed before (scripts/bisect-verified)"
if [ "$mode" = changed ]; then
	echo "bisectable: $done; the series' tests pass at the end of each group with a patch that adds or changes them"
else
	echo "bisectable: $done; the series' tests pass where they apply"
fi
