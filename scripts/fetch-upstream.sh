#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Find Debian's linux-source package of the upstream tree the fixes are
# exported for ($UPSTREAM_DEB_NAME, config.sh), verify it, print its path.
#   UPSTREAM_DEB=/path   use this file
#   otherwise            the cache, then Debian's archive (apt, through a
#                        private configuration derived from the machine's)
# Debian's archive keeps only the newest backport: when it no longer has
# the pinned version and no cache does, this says so and exits 2 (a skip:
# moving the export to the newer version is a change of its own).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

verify() {
	local sum

	sum=$(sha256sum "$1" | cut -d' ' -f1)
	[ "$sum" = "$UPSTREAM_DEB_SHA256" ] ||
		die "$1: sha256 is $sum, expected $UPSTREAM_DEB_SHA256 ($UPSTREAM_DEB_NAME); remove or replace the file"
}

# download DIR: the package into DIR, or exit 2 saying why not
download() {
	local apt=$BUILD/apt-upstream main have pkg=${UPSTREAM_DEB_NAME%%_*}
	local version=${UPSTREAM_DEB_NAME#*_}

	version=${version%_*}
	main=$(debian_uris)
	main=${main%%$'\n'*}
	[ -n "$main" ] || { echo "skip: no Debian archive in /etc/apt, and no $UPSTREAM_DEB_NAME in $CACHE"; exit 2; }
	mkdir -p "$apt"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $main $UPSTREAM_DEB_SUITE main" \
		> "$apt/sources.list"
	info "apt-get update (private source lists in $apt)" >&2
	apt_private "$apt" apt-get -q update > "$apt/update.log" 2>&1 ||
		info "apt-get update reported errors (see $apt/update.log); going on" >&2
	have=$(apt_private "$apt" apt-cache madison "$pkg" 2> /dev/null | awk -F' *[|] *' '{ print $2 }')
	if ! grep -qxF "$version" <<< "$have"; then
		echo "skip: $UPSTREAM_DEB_SUITE has no $pkg $version (it keeps only the newest backport: ${have:-none}), and $CACHE has no $UPSTREAM_DEB_NAME"
		exit 2
	fi
	(cd "$1" && apt_private "$apt" apt-get -q download "$pkg=$version" >&2) ||
		die "apt-get download $pkg=$version failed (see above)"
}

if [ -n "${UPSTREAM_DEB:-}" ]; then
	verify "$UPSTREAM_DEB"
	echo "$UPSTREAM_DEB"
	exit 0
fi
cached=$CACHE/$UPSTREAM_DEB_NAME
if [ ! -f "$cached" ]; then
	step "downloading $UPSTREAM_DEB_NAME from Debian's archive" >&2
	mkdir -p "$CACHE"
	download "$CACHE"
fi
verify "$cached"
echo "$cached"
