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
"${git[@]}" format-patch -q --zero-commit --no-signature --no-numbered \
	--no-renames --stat=72 --filename-max-length=100 -o "$tmp" "$BASE_TAG..$SERIES_BRANCH" > /dev/null

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
