#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The packagers' tarball works as README.packagers says: make it (dist.sh),
# unpack it, check SHA256SUMS, check every patch's DEP-3 header (as
# Debian's tools read it: the fields before the first "---"), apply the
# patches with patch -p1 --fuzz=0 in series order to the pristine files
# (the result must be the work tree's $APPLIED_TAG), and git am them onto
# a pristine $BASE_TAG worktree (build/linux-*-roundtrip, shared with
# roundtrip.sh): the same commits, commit by commit (tree, author, date,
# message), as the work tree's series, the DEP-3 lines notwithstanding.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

"$TOP/scripts/dist.sh"
rev=$(cat "$TOP/VERSION")
name=perf-aslr-series-$KVER-v$rev
tarball=$BUILD/$name.tar.xz
wt=$BUILD/linux-$KVER-roundtrip

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -C "$tmp" -xJf "$tarball"
d=$tmp/$name
(cd "$d" && sha256sum --quiet -c SHA256SUMS) || die "$tarball: SHA256SUMS does not match"
mapfile -t patches < <(grep -v '^#' "$d/patches/series" | awk 'NF { print $1 }')
[ ${#patches[@]} -gt 0 ] || die "$tarball: no patches"
info "$name.tar.xz: SHA256SUMS match, ${#patches[@]} patches"

# DEP-3: Subject (or Description), From (or Author), Forwarded, Last-Update.
for p in "${patches[@]}"; do
	awk -v p="$p" '
		/^---/ || /^diff / || /^Index: / { exit }
		/^[A-Za-z-]+: / { f = tolower($1); sub(/:$/, "", f); v = $0; sub(/^[^:]*: */, "", v); field[f] = v }
		END {
			if (field["subject"] "" == "" && field["description"] "" == "") { print p ": DEP-3: no Subject/Description"; bad = 1 }
			if (field["from"] "" == "" && field["author"] "" == "") { print p ": DEP-3: no From/Author"; bad = 1 }
			if (field["forwarded"] "" == "") { print p ": DEP-3: no Forwarded"; bad = 1 }
			if (field["last-update"] !~ /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]$/) { print p ": DEP-3: no Last-Update: YYYY-MM-DD"; bad = 1 }
			exit bad }' "$d/patches/$p" >&2 || die "$p: DEP-3 header incomplete"
done
info "DEP-3 headers: Subject, From, Forwarded, Last-Update in every patch"

# patch -p1 --fuzz=0 on the pristine files the series touches
files=$(cd "$d/patches" && sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "${patches[@]}" | sort -u)
mkdir -p "$tmp/tree"
for f in $files; do
	if git -C "$TREE" cat-file -e "$BASE_TAG:$f" 2> /dev/null; then
		mkdir -p "$tmp/tree/$(dirname "$f")"
		git -C "$TREE" show "$BASE_TAG:$f" > "$tmp/tree/$f"
	fi
done
for p in "${patches[@]}"; do
	out=$(patch -d "$tmp/tree" -p1 --fuzz=0 --no-backup-if-mismatch < "$d/patches/$p" 2>&1) ||
		{ printf '%s\n' "$out" >&2; die "$p does not apply with patch -p1 --fuzz=0"; }
	! grep -q 'offset' <<< "$out" || info "$p: applies with an offset"
done
for f in $files; do
	if git -C "$TREE" cat-file -e "$APPLIED_TAG:$f" 2> /dev/null; then
		git -C "$TREE" show "$APPLIED_TAG:$f" | cmp -s - "$tmp/tree/$f" ||
			die "$f: patch -p1 gives other than the work tree's $APPLIED_TAG"
	else
		[ ! -e "$tmp/tree/$f" ] || die "$f: patch -p1 makes it, $APPLIED_TAG has none"
	fi
done
info "patch -p1 --fuzz=0: all apply, the result is $APPLIED_TAG ($(wc -w <<< "$files") files)"

# git am: the same commits
# (committer = author, as apply-series.sh does: with one author, the
# commit ids are the same too)
pristine_worktree "$wt"
first=$(git -C "$TREE" log --reverse --format='%an%n%ae' "$BASE_TAG..$APPLIED_TAG" | sed -n 1,2p)
GIT_COMMITTER_NAME=$(head -n 1 <<< "$first") GIT_COMMITTER_EMAIL=$(tail -n 1 <<< "$first") \
	git -C "$wt" am -q --committer-date-is-author-date "${patches[@]/#/$d/patches/}" > "$tmp/am.log" 2>&1 ||
	{ cat "$tmp/am.log" >&2; git -C "$wt" am --abort || true; die "git am of the tarball's patches failed"; }
commits() { git -C "$1" log --reverse --format='%T %an <%ae> %ad%n%B@@' "$2"; }
if ! diff -u <(commits "$TREE" "$BASE_TAG..$APPLIED_TAG") <(commits "$wt" "$BASE_TAG..HEAD") > "$tmp/commits.diff"; then
	head -n 40 "$tmp/commits.diff" >&2
	die "git am of the tarball's patches does not give the series' commits"
fi
same_ids=''
[ "$(git -C "$wt" rev-parse HEAD)" != "$(git -C "$TREE" rev-parse "$APPLIED_TAG^{commit}")" ] ||
	same_ids=', the same commit ids'
echo "dist: $name.tar.xz checks, patch -p1 --fuzz=0 and git am both give the series (${#patches[@]} commits: same trees, authors, dates, messages$same_ids)"
