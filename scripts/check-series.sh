#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The repository's own checks of patches/: the series applies to the
# pristine files with quilt at fuzz 0, gives the tree the work tree was
# built from ($APPLIED_TAG), the tools/ mirror holds exactly the files
# the series adds, as the series adds them, and MAINTAINERS.snippet covers
# each of them.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"
export PATCHES

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { printf 'FAIL: %s\n' "$*" >&2; fail=1; }

patches=$( (grep -v '^#' "$PATCHES/series" || true) | awk 'NF { print ENVIRON["PATCHES"] "/" $1 }')
files='' added=''
if [ -n "$patches" ]; then
	# shellcheck disable=SC2086 # one patch path a word
	files=$(sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' $patches | sort -u)
	# shellcheck disable=SC2086
	added=$(grep -h -B1 '^new file mode' $patches |
		sed -n 's|^diff --git a/\(tools/[^ ]*\) b/.*|\1|p' | sort -u || true)
fi
for f in $files; do
	if git -C "$TREE" cat-file -e "$BASE_TAG:$f" 2> /dev/null; then
		mkdir -p "$tmp/tree/$(dirname "$f")"
		git -C "$TREE" show "$BASE_TAG:$f" > "$tmp/tree/$f"
	fi
done
mkdir -p "$tmp/tree"
if [ -z "$patches" ]; then
	echo "the series is empty"
elif ! (cd "$tmp/tree" && QUILT_PATCHES=$PATCHES quilt push -a --fuzz=0 > "$tmp/quilt.log" 2>&1); then
	failed=$(sed -n 's/^Applying patch //p' "$tmp/quilt.log" | tail -n 1)
	if (cd "$tmp/tree" && QUILT_PATCHES=$PATCHES quilt push > /dev/null 2>&1); then
		bad "$failed applies only with fuzz: refresh it (fuzz 0 is required)"
	else
		grep -E '^(Hunk|patch)' "$tmp/quilt.log" | tail -n 5 >&2
		bad "$failed does not apply to linux $KVER"
	fi
fi

for f in $files; do
	if git -C "$TREE" cat-file -e "$APPLIED_TAG:$f" 2> /dev/null; then
		git -C "$TREE" show "$APPLIED_TAG:$f" | cmp -s - "$tmp/tree/$f" ||
			bad "$f: the work tree's $APPLIED_TAG differs from what patches/ gives (re-apply: make -f Makefile.series apply)"
	elif [ -e "$tmp/tree/$f" ]; then
		bad "$f: patches/ adds it, the work tree's $APPLIED_TAG has none"
	fi
done

mirror=$(cd "$MIRROR" && { find tools -type f 2> /dev/null || true; } | sort)
for f in $added; do
	cmp -s "$tmp/tree/$f" "$MIRROR/$f" ||
		bad "tools/ mirror is stale: $f differs from what patches/ gives (make -f Makefile.series export)"
done
for f in $mirror; do
	grep -qxF "$f" <<< "$added" ||
		bad "tools/ mirror is stale: $f is not a file the series adds (make -f Makefile.series export)"
done

# Every file the series adds has its F: line in MAINTAINERS.snippet.
patterns=$(sed -n 's/^F:[[:space:]]*//p' "$MIRROR/MAINTAINERS.snippet" 2> /dev/null || true)
for f in $added; do
	found=0
	for pat in $patterns; do
		# shellcheck disable=SC2053 # $pat is a MAINTAINERS glob
		[[ $f == $pat ]] && found=1
	done
	[ "$found" = 1 ] || bad "MAINTAINERS.snippet has no F: line for $f"
done

[ "$fail" = 0 ] || exit 1
echo "series applies with fuzz 0, matches the work tree, mirror in sync ($(wc -w <<< "$added") files)"
