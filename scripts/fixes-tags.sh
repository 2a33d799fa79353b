#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Propose a Fixes: line for patches that fix upstream code, from the
# history of a kernel git clone (this repository has none: its tree is one
# commit).  Run it from anywhere, with a clone that has BASE (default
# v6.12.107) and the history before it:
#   fixes-tags.sh KERNEL_GIT_DIR PATCH...
# For each patch: the lines it removes or changes are blamed (a patch that
# only adds lines: the line before each addition) where the patch applies:
# on BASE with the patches before it in the series file of its directory
# (patches/series), applied with git am in a scratch worktree of the clone
# (its commits stay in the clone's objects until git gc).  Lines an earlier
# patch of the series wrote are counted apart: the patch fixes the series
# there, not upstream.  Of the upstream commits, the one that last touched
# most of the lines is proposed, the others follow as candidates with
# their number of lines.  It only proposes: read the commit before you add
# the line.
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
			split($3, new, ",")
			line = -old[1] - 1	# the line before the hunk
			oldleft = (2 in old) ? old[2] : 1
			newleft = (2 in new) ? new[2] : 1
			added = 0
			next
		}
		file == "" || oldleft + newleft == 0 { next }
		/^-/ { line++; oldleft--; removed[++nr] = file " " line; added = 0; next }
		/^\+/ { newleft--; if (!added && line > 0) before[++nb] = file " " line; added = 1; next }
		/^ / { line++; oldleft--; newleft--; added = 0; next }
		END {
			if (nr)
				for (i = 1; i <= nr; i++) print removed[i]
			else
				for (i = 1; i <= nb; i++) print before[i]
		}
	' "$1" | sort -u
}

# at[NAME]: the commit NAME applies on, the base with the patches before
# it in the series; base for a patch the series file doesn't name.
declare -A at=() wanted=()
for patch in "$@"; do
	[ -f "$patch" ] || die "$patch: no such file"
	wanted[$(basename "$patch")]=1
done
series=$(dirname "$1")/series
tmp=$(mktemp -d)
cleanup() {
	git -C "$git_dir" worktree remove --force "$tmp/wt" 2> /dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
if [ -f "$series" ]; then
	git -C "$git_dir" worktree add -q --detach "$tmp/wt" "$base"
	left=${#wanted[@]}
	while read -r name _ && [ "$left" -gt 0 ]; do
		case $name in ''|'#'*) continue ;; esac
		at[$name]=$(git -C "$tmp/wt" rev-parse HEAD)
		[ -z "${wanted[$name]:-}" ] || left=$((left - 1))
		git -C "$tmp/wt" -c user.name=fixes-tags -c user.email=fixes-tags@localhost \
			am -q "$(dirname "$1")/$name" > "$tmp/am.log" 2>&1 ||
			{ cat "$tmp/am.log" >&2; die "$name does not apply with git am after the patches before it"; }
	done < "$series"
fi
base_commit=$(git -C "$git_dir" rev-parse "$base^{commit}")

for patch in "$@"; do
	name=$(basename "$patch")
	rev=${at[$name]:-$base_commit}
	blamed=$(blamed_lines "$patch" | while read -r file line; do
			git -C "$git_dir" blame --porcelain -L "$line,$line" "$rev" -- "$file" \
				2> /dev/null | head -n 1 | cut -d' ' -f1
		done)
	ours=0
	counts=$(for sha in $blamed; do
			if git -C "$git_dir" merge-base --is-ancestor "$sha" "$base_commit"; then
				echo "$sha"
			fi
		done | sort | uniq -c | sort -rn)
	for sha in $blamed; do
		git -C "$git_dir" merge-base --is-ancestor "$sha" "$base_commit" || ours=$((ours + 1))
	done
	echo "$name:"
	[ "$ours" = 0 ] || echo "    $ours lines written by earlier patches of the series (a fix of the series there)"
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
