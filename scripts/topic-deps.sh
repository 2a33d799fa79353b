#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make -f Makefile.series topics: the topics of the series
# (scripts/topics.sh), each with
#   shares files with: the earlier topics whose patches change files its
#           patches change, and theirs in turn (what it may need to apply);
#   alone:  "applies alone" if its patches apply with git apply on the
#           base without any other topic, else "needs the topics before".
# Applying is checked on a scratch index, not built: the series is built
# and tested in its order (make bisect), a topic alone is not.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mapfile -t names < <({ grep -v '^#' "$PATCHES/series" || true; } | awk 'NF { print $1 }')

# files of each topic, and the topics that change each file before it
declare -A owners=() needs=()
applies() {	# applies FIRST LAST: the patches apply alone on the base
	local i idx=$tmp/index

	GIT_INDEX_FILE=$idx git -C "$TREE" read-tree "$BASE_TAG"
	for ((i = $1; i <= $2; i++)); do
		GIT_INDEX_FILE=$idx git -C "$TREE" apply --cached "$PATCHES/${names[i - 1]}" 2> /dev/null || return 1
	done
}
while IFS=$'\t' read -r n name first last title; do
	deps=""
	files=$(for ((i = first; i <= last; i++)); do
		sed -n 's|^diff --git a/\([^ ]*\) .*|\1|p' "$PATCHES/${names[i - 1]}"
	done | sort -u)
	for f in $files; do
		for d in ${owners[$f]:-}; do deps="$deps $d ${needs[$d]}"; done
	done
	deps=$(tr ' ' '\n' <<< "$deps" | sed '/^$/d' | sort -nu | paste -sd' ')
	needs[$n]=$deps
	for f in $files; do owners[$f]="${owners[$f]:-} $n"; done
	if applies "$first" "$last"; then alone="applies alone"; else alone="needs the topics before"; fi
	printf '%2d  %s  (patches %d-%d, %s)\n    %s\n    shares files with: %s\n' \
		"$n" "$name" "$first" "$last" "$alone" "$title" "${deps:-none}"
done < <("$TOP/scripts/topics.sh")
