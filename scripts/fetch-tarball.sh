#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Find the pinned upstream tarball and verify it; print its path.
#   KERNEL_TARBALL=/path    use this file
#   otherwise               the cache, then Debian's source archive (apt)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

verify() {
	local f=$1 sum

	[ -f "$f" ] || die "$f: no such file"
	info "verifying sha256 of $f" >&2
	sum=$(sha256sum "$f" | cut -d' ' -f1)
	[ "$sum" = "$TARBALL_SHA256" ] ||
		die "$f: sha256 is $sum, expected $TARBALL_SHA256 (linux $KVER from Debian's linux $DEB_VERSION); remove or replace the file"
}

if [ -n "${KERNEL_TARBALL:-}" ]; then
	verify "$KERNEL_TARBALL"
	echo "$KERNEL_TARBALL"
	exit 0
fi

cached=$CACHE/$TARBALL_NAME
if [ ! -f "$cached" ]; then
	step "downloading $TARBALL_NAME (${TARBALL_SIZE} bytes) from Debian's source archive" >&2
	mkdir -p "$CACHE"
	"$(dirname "$0")/apt-source.sh" "$CACHE" >&2
fi
verify "$cached"
echo "$cached"
