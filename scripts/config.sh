# SPDX-License-Identifier: GPL-2.0
# Shared settings of the series workbench, sourced by the other scripts.
# shellcheck shell=bash disable=SC2034 # the variables are for the scripts that source this

KVER=6.12.107
DEB_VERSION=6.12.107-1
TARBALL_NAME=linux_${KVER}.orig.tar.xz
TARBALL_SHA256=efc76d3c78a5d65f42724118c437d11db1c9f6309a5f024ee9a8b1978fdc6919
TARBALL_SIZE=151398592

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
CACHE=${CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/perf-aslr-series}
TREE=${KERNEL_DIR:-$BUILD/linux-$KVER}
PERF_OUT=${PERF_OUT:-$BUILD/perf}
PERF=$PERF_OUT/perf
PATCHES=${PATCHES:-$TOP/patches}	# the series (quilt layout)
MIRROR=${MIRROR:-$TOP}		# holds the tools/ mirror

# git refs in the work tree
BASE_TAG=v$KVER			# the pristine tree
SERIES_BRANCH=perf-aslr-series	# the series as commits, one per patch
APPLIED_TAG=series-applied	# what patches/ gave, last time it was applied

step() { printf '\n==> %s\n' "$*"; }
info() { printf '    %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# A hash of patches/series and the patches it names, in order.
series_stamp() {
	(cd "$PATCHES" &&
	 { cat series; { grep -v '^#' series || true; } | awk 'NF {print $1}' | xargs -r cat; } |
	 sha256sum | cut -d' ' -f1)
}
