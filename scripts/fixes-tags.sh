#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Propose a Fixes: line for patches that fix upstream code, from the
# history of a kernel git clone (this repository has none: its tree is one
# commit).  Run it from anywhere, with a clone that has BASE (default
# v6.12.107) and the history before it:
#   fixes-tags.sh KERNEL_GIT_DIR PATCH...
# For each patch: the lines it removes or changes are blamed at BASE (a
# patch that only adds lines: the line before each addition); the commit that
# last touched most of them is proposed, the others follow as candidates
# with their number of lines.  It only proposes: read the commit before
# you add the line.
set -euo pipefail

die() { printf 'error: %s\n' "$*" >&2; exit 1; }

[ $# -ge 2 ] || die "usage: fixes-tags.sh KERNEL_GIT_DIR PATCH..."
git_dir=$1
shift
base=${BASE:-v6.12.107}
git -C "$git_dir" rev-parse -q --verify "$base^{commit}" > /dev/null ||
	die "$git_dir has no $base (set BASE=...)"

# blamed_lines PATCH: "FILE LINE" for each line of the base the patch
# removes or changes; if it removes none, for each line that precedes
# what it adds.
blamed_lines() {
	awk '
		/^--- a\// { file = substr($2, 3); next }
		/^--- / { file = ""; next }
		/^\+\+\+ / { next }
		/^@@ / {
			split($2, old, ",")
			line = -old[1] - 1	# the line before the hunk
			added = 0
			next
		}
		file == "" { next }
		/^-/ { line++; removed[++nr] = file " " line; added = 0; next }
		/^\+/ { if (!added && line > 0) before[++nb] = file " " line; added = 1; next }
		/^ / { line++; added = 0; next }
		END {
			if (nr)
				for (i = 1; i <= nr; i++) print removed[i]
			else
				for (i = 1; i <= nb; i++) print before[i]
		}
	' "$1" | sort -u
}

for patch in "$@"; do
	[ -f "$patch" ] || die "$patch: no such file"
	counts=$(blamed_lines "$patch" | while read -r file line; do
			git -C "$git_dir" blame --porcelain -L "$line,$line" "$base" -- "$file" \
				2> /dev/null | head -n 1 | cut -d' ' -f1
		done | sort | uniq -c | sort -rn)
	echo "$(basename "$patch"):"
	if [ -z "$counts" ]; then
		echo "    no line of $base to blame (new files only?)"
		continue
	fi
	first=1
	while read -r n sha; do
		desc=$(git -C "$git_dir" log -1 --abbrev=12 --format='%h ("%s")' "$sha")
		if [ "$first" = 1 ]; then
			echo "    Fixes: $desc    [$n lines]"
			first=0
		else
			echo "    candidate: $desc    [$n lines]"
		fi
	done <<< "$counts"
done
