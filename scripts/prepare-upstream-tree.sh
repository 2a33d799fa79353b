#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Make the upstream tree the fixes are exported for ($UPSTREAM_TREE): the
# tree of Debian's linux-source package (fetch-upstream.sh) as a git
# repository whose first commit is tagged $UPSTREAM_TAG, with the branch
# $UPSTREAM_BRANCH at it.  Exits 2, saying why, if the package can't be had.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

# Reproducible commits, as prepare-tree.sh makes them
export GIT_AUTHOR_NAME="Linux $UPSTREAM_KVER" GIT_AUTHOR_EMAIL="upstream@localhost"
export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
export GIT_AUTHOR_DATE="2026-11-01T00:00:00Z" GIT_COMMITTER_DATE="2026-11-01T00:00:00Z"

if git -C "$UPSTREAM_TREE" rev-parse -q --verify "refs/tags/$UPSTREAM_TAG" > /dev/null 2>&1; then
	exit 0		# done before
fi
deb=$("$(dirname "$0")/fetch-upstream.sh") || exit $?
tmp=$UPSTREAM_TREE.tmp
step "unpacking $deb into $UPSTREAM_TREE"
rm -rf "$UPSTREAM_TREE" "$tmp"
mkdir -p "$tmp"
dpkg-deb --fsys-tarfile "$deb" | tar -xf - -C "$tmp" --wildcards './usr/src/linux-source-*.tar.xz'
tar -xJf "$tmp"/usr/src/linux-source-*.tar.xz -C "$tmp"
mv "$tmp"/linux-source-* "$UPSTREAM_TREE"
rm -rf "$tmp"
[ "$(make -s -C "$UPSTREAM_TREE" kernelversion 2> /dev/null)" = "$UPSTREAM_KVER" ] ||
	die "$deb doesn't hold linux $UPSTREAM_KVER"

step "making $UPSTREAM_TREE a git repository (first commit: the tree, tag $UPSTREAM_TAG)"
git -C "$UPSTREAM_TREE" init -q -b "$UPSTREAM_BRANCH"
info "git add (about a minute)"
# -f: Debian's top .gitignore ignores all but its debian/ directory
git -C "$UPSTREAM_TREE" add -f -A
git -C "$UPSTREAM_TREE" commit -q -m "Linux $UPSTREAM_KVER" \
	-m "The tree of Debian's $UPSTREAM_DEB_NAME (sha256 $UPSTREAM_DEB_SHA256)."
git -C "$UPSTREAM_TREE" tag "$UPSTREAM_TAG"
git -C "$UPSTREAM_TREE" gc --auto -q
