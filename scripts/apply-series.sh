#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Apply patches/ to the work tree with quilt (fuzz 0: fuzz is an error),
# one git commit per patch on branch $SERIES_BRANCH, from the pristine tag.
# Does nothing when the series is already applied.  Refuses to throw away
# commits or changes of the work tree that were never exported (FORCE=1
# does it anyway).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

series=$PATCHES/series
stamp=$(series_stamp)
git=(git -C "$TREE" -c user.name=perf-aslr-series -c user.email=series@localhost)

applied=$("${git[@]}" tag -l --format='%(contents:subject)' "$APPLIED_TAG")
if [ "$applied" = "series $stamp" ]; then
	exit 0
fi

if [ "${FORCE:-0}" != 1 ] && "${git[@]}" rev-parse -q --verify "refs/heads/$SERIES_BRANCH" > /dev/null; then
	head=$("${git[@]}" rev-parse "$SERIES_BRANCH")
	last=$("${git[@]}" rev-parse -q --verify "$APPLIED_TAG^{commit}" || true)
	[ "$head" = "$last" ] ||
		die "$TREE: branch $SERIES_BRANCH has commits that are not in patches/; export them (make -f Makefile.series export) or re-apply with FORCE=1"
	[ -z "$("${git[@]}" status --porcelain)" ] ||
		die "$TREE has uncommitted changes; commit and export them, or re-apply with FORCE=1"
fi

step "applying patches/ to $TREE with quilt (fuzz 0)"
"${git[@]}" checkout -q -f -B "$SERIES_BRANCH" "$BASE_TAG"
"${git[@]}" clean -q -fdx -e /.pc
rm -rf "$TREE/.pc"
n=0
while read -r patch _; do
	case "$patch" in ''|\#*) continue ;; esac
	n=$((n + 1))
	if ! out=$(cd "$TREE" && QUILT_PATCHES=$PATCHES quilt push --fuzz=0 2>&1); then
		printf '%s\n' "$out" >&2
		die "patch $patch does not apply with fuzz 0 to linux $KVER"
	fi
	if grep -q 'with fuzz' <<< "$out"; then
		die "patch $patch applies only with fuzz"
	fi
	grep -q '(offset -\?[0-9]* lines\?)' <<< "$out" && info "$patch: applied with an offset"
	info "$patch"

	# Commit it as git am would: author, date and message from the patch.
	msg=$(mktemp)
	info=$(git mailinfo -b "$msg" /dev/null < "$PATCHES/$patch")
	field() { sed -n "s/^$1: //p" <<< "$info"; }
	export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_COMMITTER_DATE
	GIT_AUTHOR_NAME=$(field Author) GIT_AUTHOR_EMAIL=$(field Email) GIT_AUTHOR_DATE=$(field Date)
	GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE
	"${git[@]}" add -A
	{ field Subject; echo; cat "$msg"; } | "${git[@]}" commit -q --cleanup=whitespace -F -
	rm -f "$msg"
done < "$series"
rm -rf "$TREE/.pc"
"${git[@]}" tag -f -a "$APPLIED_TAG" -m "series $stamp" > /dev/null
info "$n patches applied, branch $SERIES_BRANCH at $("${git[@]}" rev-parse --short=12 HEAD)"
