#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install, with apt and by package name, what it takes to fetch, patch,
# build (full-featured) and test perf.  Installs only what is missing.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

packages=(
	# fetch, unpack, patch, check
	ca-certificates debian-archive-keyring xz-utils git quilt ccache time
	# mail, send-dry, send-local (git send-email: Mail::Address; SMTP with TLS)
	git-email libmailtools-perl libauthen-sasl-perl libio-socket-ssl-perl
	shellcheck python3 perl dpkg-dev
	# toolchain
	build-essential pkg-config flex bison clang llvm lld
	# perf features
	libelf-dev libdw-dev libdebuginfod-dev elfutils libunwind-dev
	libtraceevent-dev libslang2-dev libcap-dev libnuma-dev libzstd-dev
	liblzma-dev zlib1g-dev libssl-dev libcapstone-dev libbabeltrace-dev
	libbabeltrace-ctf-dev systemtap-sdt-dev libperl-dev libpfm4-dev
	libiberty-dev python3-dev python3-setuptools libbpf-dev
	# sanitizer builds (tsan, asan)
	libclang-rt-14-dev
	# tests: the leak checker reads perf record -z files with it; a 32-bit
	# process is recorded where gcc -m32 builds one (x86)
	python3-zstandard
	# tests: perf record's side-band thread is watched with strace
	strace
)
[ "$(dpkg --print-architecture)" != amd64 ] || packages+=(gcc-multilib)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || exit 0

mkdir -p "$BUILD"
step "installing ${#missing[@]} packages (a few minutes; log: $BUILD/apt-install.log): ${missing[*]}"
sudo=()
[ "$(id -u)" = 0 ] || sudo=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get -q update > /dev/null
"${sudo[@]}" apt-get -q install -y --no-install-recommends "${missing[@]}" > "$BUILD/apt-install.log" 2>&1 ||
	{ tail -n 20 "$BUILD/apt-install.log" >&2; die "apt-get install failed, see $BUILD/apt-install.log"; }
