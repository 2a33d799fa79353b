#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Download Debian's linux source package (orig tarball, debian tarball,
# dsc) into DIR with apt, through a private apt configuration whose deb-src
# entries are derived from the machine's own Debian mirror.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

dir=${1:?usage: apt-source.sh DIR}
apt=$BUILD/apt
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/sources.list.d"

# The first Debian archive and security URIs the machine already uses.
{ read -r main || true; read -r security || true; } < <(debian_uris)
[ -n "$main" ] || die "no Debian archive in /etc/apt: give KERNEL_TARBALL=/path/to/$TARBALL_NAME"

keyring=/usr/share/keyrings/debian-archive-keyring.gpg
{
	for suite in trixie trixie-updates sid; do
		echo "deb-src [signed-by=$keyring] $main $suite main"
	done
	[ -z "$security" ] || echo "deb-src [signed-by=$keyring] $security trixie-security main"
} > "$apt/sources.list"

info "apt-get update (private source lists in $apt)"
# One suite may fail (an expired sid Release on a frozen mirror, say):
# what counts is that one of them has the version.
apt_private "$apt" apt-get -q update > "$apt/update.log" 2>&1 ||
	info "apt-get update reported errors (see $apt/update.log); going on"
versions=$(apt_private "$apt" apt-cache showsrc linux 2> /dev/null || true)
grep -qx "Version: $DEB_VERSION" <<< "$versions" || {
	grep -E '^(E|W):' "$apt/update.log" >&2 || true
	die "no suite of $main has linux $DEB_VERSION: give KERNEL_TARBALL=/path/to/$TARBALL_NAME"
}
cd "$dir"
apt_private "$apt" apt-get -q source --download-only "linux=$DEB_VERSION" ||
	die "apt-get source linux=$DEB_VERSION failed: give KERNEL_TARBALL=/path/to/$TARBALL_NAME"
