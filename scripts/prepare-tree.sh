#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Make the work tree: the pristine upstream tree as a git repository whose
# first commit is tagged v$KVER.  With KERNEL_DIR, the user's own v$KVER
# tree is used in place (a git repository is made of it if it is none).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

# Reproducible commits: the same tree gives the same commit ids anywhere,
# so "perf version" names the same series on every machine.
export GIT_AUTHOR_NAME="Linux $KVER" GIT_AUTHOR_EMAIL="upstream@localhost"
export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
export GIT_AUTHOR_DATE="2025-09-11T00:00:00Z" GIT_COMMITTER_DATE="2025-09-11T00:00:00Z"

kernelversion() { make -s -C "$1" kernelversion 2>/dev/null; }

if git -C "$TREE" rev-parse -q --verify "refs/tags/$BASE_TAG" > /dev/null 2>&1; then
	exit 0		# done before
fi

if [ -n "${KERNEL_DIR:-}" ]; then
	[ -f "$TREE/tools/perf/Makefile.perf" ] || die "KERNEL_DIR=$TREE is not a kernel tree"
	v=$(kernelversion "$TREE")
	[ "$v" = "$KVER" ] || die "KERNEL_DIR=$TREE is linux $v, the series is for $KVER"
	if git -C "$TREE" rev-parse --git-dir > /dev/null 2>&1; then
		[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
			die "KERNEL_DIR=$TREE has uncommitted changes: commit or stash them first"
		step "tagging $TREE's HEAD as $BASE_TAG"
		git -C "$TREE" tag "$BASE_TAG" HEAD
		exit 0
	fi
else
	tarball=$("$(dirname "$0")/fetch-tarball.sh")
	step "unpacking $tarball into $TREE"
	rm -rf "$TREE" "$TREE.tmp"
	mkdir -p "$TREE.tmp"
	tar -xJf "$tarball" -C "$TREE.tmp"
	mv "$TREE.tmp/linux-$KVER" "$TREE"
	rmdir "$TREE.tmp"
fi

step "making $TREE a git repository (first commit: the pristine tree, tag $BASE_TAG)"
git -C "$TREE" init -q
printf '%s\n' /.pc/ > "$TREE/.git/info/exclude"
info "git add (about half a minute)"
git -C "$TREE" add -A
git -C "$TREE" commit -q -m "Linux $KVER" -m "Pristine tree from $TARBALL_NAME (sha256 $TARBALL_SHA256)."
git -C "$TREE" tag "$BASE_TAG"
git -C "$TREE" gc --auto -q
