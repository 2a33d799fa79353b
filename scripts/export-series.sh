#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Regenerate patches/ and the tools/ mirror from the work tree's commits
# ($BASE_TAG..$SERIES_BRANCH, one commit per patch).  The '#' group
# comments of patches/series are kept: a patch stays in its group (matched
# by its name without the number), a new patch joins the group of the
# patch before it.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

git=(git -C "$TREE" -c user.name=perf-aslr-series -c user.email=series@localhost)
[ "$("${git[@]}" rev-parse --abbrev-ref HEAD)" = "$SERIES_BRANCH" ] ||
	die "$TREE: check out branch $SERIES_BRANCH first"
[ -z "$("${git[@]}" status --porcelain)" ] ||
	die "$TREE has uncommitted changes: commit them (one commit per patch) first"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

step "exporting $BASE_TAG..$SERIES_BRANCH to patches/"
# --abbrev=9: index lines as long in a fresh repository as in a packed one
"${git[@]}" format-patch -q --zero-commit --no-signature --no-numbered \
	--abbrev=9 --no-renames --stat=72 --filename-max-length=100 -o "$tmp" "$BASE_TAG..$SERIES_BRANCH" > /dev/null

# DEP-3 (Debian's patch tagging guidelines) for packagers: Forwarded: and
# Last-Update: as two more mail headers, after From:, Date: and Subject:,
# which DEP-3 takes from git format-patch.  Last-Update: is the date of
# the patch's commit, unless the patch is the same as the one of its name
# in patches/ but for its index lines: then it keeps that one's (a rebase
# that does not change a patch does not update it).
# git mailinfo (git am, apply-series.sh) ignores headers it does not know,
# patch and quilt skip what comes before the diff: the commits stay the
# same.  Forwarded: is "no" unless patches/forwarded has a line
# "NAME-WITHOUT-NUMBER VALUE" for the patch (e.g. the lore URL once sent).
mapfile -t dates < <("${git[@]}" log --reverse --format=%cs "$BASE_TAG..$SERIES_BRANCH")
i=0
while read -r f; do
	name=$(basename "$f")
	name=${name#[0-9][0-9][0-9][0-9]-}
	fwd=$(awk -v n="$name" '$1 == n { sub(/^[^ \t]+[ \t]+/, ""); print; exit }' "$PATCHES/forwarded" 2> /dev/null || true)
	date=${dates[i]}
	old=$(find "$PATCHES" -maxdepth 1 -name "[0-9][0-9][0-9][0-9]-$name" | head -n 1)
	if [ -n "$old" ] &&
	   cmp -s <(grep -v -e '^index ' -e '^Last-Update: ' -e '^Forwarded: ' "$old") <(grep -v '^index ' "$f"); then
		date=$(sed -n 's/^Last-Update: //p' "$old")
	fi
	awk -v fwd="${fwd:-no}" -v date="$date" '
		!done && /^$/ { print "Forwarded: " fwd; print "Last-Update: " date; done = 1 }
		{ print }' "$f" > "$f.dep3"
	mv "$f.dep3" "$f"
	i=$((i + 1))
done < <(find "$tmp" -name '*.patch' | sort)

# series: new patch names, old group comments.
touch "$PATCHES/series"
find "$tmp" -name '*.patch' -printf '%f\n' | sort | awk '
	NR == FNR {
		if ($0 ~ /^#/ || NF == 0) { group = group $0 "\n"; next }
		name = $1; sub(/^[0-9]+-/, "", name)
		first[name] = group; group = ""; old_patches++
		next
	}
	FNR == 1 && !old_patches { printf "%s", group; group = "" }
	{
		name = $0; sub(/^[0-9]+-/, "", name)
		if (name in first)
			printf "%s", first[name]
		print
	}
	END { printf "%s", group }' "$PATCHES/series" - > "$tmp/series"

rm -f "$PATCHES"/*.patch
mv "$tmp"/*.patch "$PATCHES/" 2> /dev/null || true
mv "$tmp/series" "$PATCHES/series"
info "$(grep -c '\.patch$' "$PATCHES/series" || true) patches"

step "exporting the files the series adds to the tools/ mirror"
rm -rf "$TOP/tools"
"${git[@]}" diff --name-only --no-renames --diff-filter=A "$BASE_TAG" "$SERIES_BRANCH" -- tools |
while read -r f; do
	mkdir -p "$TOP/$(dirname "$f")"
	"${git[@]}" show "$SERIES_BRANCH:$f" > "$TOP/$f"
	[ ! -x "$TREE/$f" ] || chmod +x "$TOP/$f"
	info "$f"
done

# The work tree now is what patches/ gives: no need to re-apply.
stamp=$(series_stamp)
"${git[@]}" tag -f -a "$APPLIED_TAG" -m "series $stamp" > /dev/null
