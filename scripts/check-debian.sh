#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# For packagers: apply the series on top of Debian's patched linux 6.12
# tree (the source of linux-source-6.12, from Debian's linux $DEB_VERSION
# source package, or DEBIAN_TREE=/path given by the user) with patch -p1
# at fuzz 0, report every offset or conflict by patch name, and build perf.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

tree=${DEBIAN_TREE:-$BUILD/debian/linux-$KVER}
out=$BUILD/debian/perf	# beside the tree: see config.sh

if [ -z "${DEBIAN_TREE:-}" ]; then
	dsc=$CACHE/linux_$DEB_VERSION.dsc
	[ -f "$dsc" ] || { step "downloading Debian's linux $DEB_VERSION source package"; "$TOP/scripts/apt-source.sh" "$CACHE"; }
	"$TOP/scripts/fetch-tarball.sh" > /dev/null	# verifies the orig tarball
	if [ ! -f "$tree/.series-base" ]; then
		step "unpacking Debian's linux $DEB_VERSION with its patches into $tree"
		rm -rf "$tree"
		mkdir -p "$(dirname "$tree")"
		dpkg-source -q -x "$dsc" "$tree" > "$BUILD/debian-unpack.log" 2>&1 ||
			die "dpkg-source -x failed, see $BUILD/debian-unpack.log"
		info "$(grep -c '^[^#[:space:]]' "$tree/debian/patches/series") Debian patches applied"
		# the series goes on a copy of each file it touches, kept pristine here
		git -C "$tree" init -q
		git -C "$tree" add -f -A tools
		git -C "$tree" -c user.name=check-debian -c user.email=check-debian@localhost \
			commit -q -m "Debian linux $DEB_VERSION, tools/"
		touch "$tree/.series-base"
	fi
	git -C "$tree" checkout -q -f HEAD -- tools
	git -C "$tree" clean -q -fdx tools
fi

step "applying patches/ to $tree (patch -p1, fuzz 0)"
n=0 offsets=0
while read -r p _; do
	case "$p" in ''|\#*) continue ;; esac
	n=$((n + 1))
	if ! out_p=$(patch -d "$tree" -p1 --fuzz=0 --no-backup-if-mismatch < "$PATCHES/$p" 2>&1); then
		printf '%s\n' "$out_p" | sed 's/^/      /' >&2
		die "$p does not apply to Debian's tree at fuzz 0"
	fi
	if grep -q 'offset' <<< "$out_p"; then
		offsets=$((offsets + 1))
		info "$p: applies with an offset: $(grep -o 'Hunk #[0-9]* succeeded at [0-9]* (offset [-0-9]* lines*)' <<< "$out_p" | head -n 3 | tr '\n' ' ')"
	else
		info "$p: applies cleanly"
	fi
done < "$PATCHES/series"
info "$n patches applied to Debian's tree, $offsets with offsets, none with fuzz"

"$TOP/scripts/build-perf.sh" "$tree" "$out"
echo "Debian's linux $DEB_VERSION tree with the series: perf builds ($out/perf)"
