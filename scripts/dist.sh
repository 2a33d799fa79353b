#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The packagers' tarball: build/perf-aslr-series-<version>.tar.xz with
# patches/series, the patches it names, README.packagers (from
# Documentation/README.packagers.in) and SHA256SUMS of them all.
# <version> is $KVER-v<N>, N from the VERSION file: the series revision,
# the same N as the [PATCH vN] of the mail step, so the tarball and the
# posting of a revision have one name; the base is in it because the
# series on another base is another series.  The tarball is reproducible
# (sorted, owner 0, mtime of the series' last commit).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

rev=$(cat "$TOP/VERSION")
[[ $rev =~ ^[1-9][0-9]*$ ]] || die "$TOP/VERSION: the series revision, a number, expected"
version=$KVER-v$rev
name=perf-aslr-series-$version
tarball=$BUILD/$name.tar.xz

[ "$(git -C "$TREE" tag -l --format='%(contents:subject)' "$APPLIED_TAG")" = "series $(series_stamp)" ] ||
	die "patches/ is not what the work tree has: make -f Makefile.series apply (or export)"
commit=$(git -C "$TREE" rev-parse --short=12 "$APPLIED_TAG^{commit}")
mtime=$(git -C "$TREE" log -1 --format=%ct "$APPLIED_TAG^{commit}")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
d=$tmp/$name
mkdir -p "$d/patches"
cp "$PATCHES/series" "$d/patches/"
mapfile -t patches < <(grep -v '^#' "$PATCHES/series" | awk 'NF { print $1 }')
for p in "${patches[@]}"; do cp "$PATCHES/$p" "$d/patches/"; done

# the patches grouped as in patches/series (a comment right before a
# patch names its group), with their subjects
git -C "$TREE" log --reverse --format=%s "$BASE_TAG..$APPLIED_TAG" > "$tmp/subjects"
awk 'NR == FNR { subj[NR] = $0; next }
	/^#/ { c = c (c == "" ? "" : " ") substr($0, 3); next }
	!NF { c = ""; next }
	{ if (c != "") { printf "%s%s\n", (i ? "\n" : ""), c; c = "" }
	  printf "  %s\n      %s\n", $1, subj[++i] }' "$tmp/subjects" "$PATCHES/series" > "$tmp/series.txt"
awk -v version="$version" -v kver="$KVER" -v deb="$DEB_VERSION" -v size="$TARBALL_SIZE" \
    -v sha="$TARBALL_SHA256" -v commit="$commit" -v list="$tmp/series.txt" '
	/^@SERIES@$/ { while ((getline l < list) > 0) print l; next }
	{ gsub(/@VERSION@/, version); gsub(/@KVER@/, kver); gsub(/@DEB_VERSION@/, deb)
	  gsub(/@TARBALL_SIZE@/, size); gsub(/@TARBALL_SHA256@/, sha); gsub(/@COMMIT@/, commit); print }' \
	"$TOP/Documentation/README.packagers.in" > "$d/README.packagers"
! grep -n '@[A-Z_]*@' "$d/README.packagers" || die "README.packagers.in: unknown placeholder"
(cd "$d" && find . -type f -printf '%P\n' | LC_ALL=C sort | xargs sha256sum > "$tmp/SHA256SUMS")
mv "$tmp/SHA256SUMS" "$d/"

mkdir -p "$BUILD"
rm -f "$tarball"
tar -C "$tmp" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$mtime" \
	--mode=u+rw,go+r,go-w -cf - "$name" | xz -9 -T1 > "$tarball.tmp"
mv "$tarball.tmp" "$tarball"
(cd "$BUILD" && sha256sum "$name.tar.xz" > "$name.tar.xz.sha256")
info "$tarball: ${#patches[@]} patches, README.packagers, SHA256SUMS ($(stat -c %s "$tarball") bytes)"
info "sha256 $(cut -d' ' -f1 "$tarball.sha256")"
