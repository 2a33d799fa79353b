#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the tree's scripts/checkpatch.pl --strict on every patch of the
# series.  A remaining message is accepted only when patches/checkpatch.allow
# justifies it, one line each:
#   PATCH-GLOB<TAB>MESSAGE-REGEX<TAB>why it stays
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

allow=$PATCHES/checkpatch.allow
checkpatch=$TREE/scripts/checkpatch.pl
[ -x "$checkpatch" ] || die "$checkpatch not found: make -f Makefile.series tree"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Each patch's messages into $tmp/PATCH: the first patch alone (checkpatch
# writes its cache of the tree's CamelCase names, the others read it),
# then one checkpatch.pl a CPU.  Patches carry Assisted-by and no
# Signed-off-by: the mail step signs.
{ grep -v -e '^#' -e '^$' "$PATCHES/series" || true; } | awk '{ print $1 }' > "$tmp/series"
checkpatch_each() {
	# shellcheck disable=SC2016 # expanded by the inner sh
	(cd "$TREE" && xargs -P "$1" -I{} \
		sh -c './scripts/checkpatch.pl --strict --no-signoff --terse --show-types "$1/$2" > "$3/$2" 2>&1 || true' \
		sh "$PATCHES" {} "$tmp")
}
head -n 1 "$tmp/series" | checkpatch_each 1
tail -n +2 "$tmp/series" | checkpatch_each "$(nproc)"

fail=0 n=0
while read -r p; do
	n=$((n + 1))
	msgs=$(grep -E ': (ERROR|WARNING|CHECK):' "$tmp/$p" || true)
	while IFS= read -r m; do
		[ -n "$m" ] || continue
		why=''
		if [ -f "$allow" ]; then
			why=$(awk -F'\t' -v p="$p" -v m="$m" '
				/^#/ || NF < 3 { next }
				{ g = $1; gsub(/\./, "\\.", g); gsub(/\*/, ".*", g) }
				p ~ ("^" g "$") && m ~ $2 { print $3; exit }' "$allow")
		fi
		if [ -n "$why" ]; then
			info "$p: allowed: ${m#*: } ($why)"
		else
			echo "$p: ${m#*: }"
			fail=1
		fi
	done <<< "$msgs"
done < "$tmp/series"

[ "$fail" = 0 ] || die "checkpatch --strict: fix the messages above, or justify them in patches/checkpatch.allow"
echo "checkpatch --strict: $n patches clean"
