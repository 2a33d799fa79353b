#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build perf out of tree from SRC (default: the work tree) into OUT
# (default: build/perf), with ccache when it is installed.  Extra make
# variables (NO_LIBELF=1, EXTRA_CFLAGS=...) may follow.
#   build-perf.sh [SRC [OUT [VAR=value ...]]]
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

src=${1:-$TREE}
out=${2:-$PERF_OUT}
shift $(($# > 2 ? 2 : $#))
log=$out.build.log

mkdir -p "$out"
cc=(CC=gcc)
if command -v ccache > /dev/null; then
	cc=(CC="ccache gcc")
	# Paths under $TOP are hashed relative to the directory of the
	# compile, except the target of -MT (perf's build passes
	# -Wp,-MT,OUT/file.o): left out, a tree laid out as the work tree
	# (see config.sh) reuses its objects.  The -I of OUT keeps builds
	# into differently placed outputs apart.
	export CCACHE_BASEDIR=$TOP CCACHE_NOHASHDIR=1 CCACHE_IGNOREOPTIONS='-Wp,-MT,*'
fi

step "building perf from $src into $out (log: $log)"
start=$(date +%s)
# One perf build at a time on this machine (helpers, bisect, sanitizers).
# $out.started gets the time the lock was taken: the build time excludes the
# wait for another build.
rm -f "$out.started"
# shellcheck disable=SC2016 # expanded by the inner bash
flock "${TMPDIR:-/tmp}/perf-build.lock" bash -c 'date +%s > "$0"; exec "$@"' "$out.started" \
	make -C "$src/tools/perf" O="$out" -j"$(nproc)" "${cc[@]}" "$@" > "$log" 2>&1 &
make_pid=$!
# Progress while it builds: the number of files compiled so far.
tick=0
while kill -0 "$make_pid" 2> /dev/null; do
	sleep 1
	tick=$((tick + 1))
	[ $((tick % 30)) = 0 ] || continue
	info "... $(grep -c '^  CC ' "$log" || true) files compiled ($(( $(date +%s) - start ))s)"
done
if ! wait "$make_pid"; then
	grep -E 'error|Error' "$log" | head -n 30 >&2 || true
	die "perf build failed, see $log"
fi
"$out/perf" version --build-options > "$out.features.txt"
started=$(cat "$out.started" 2> /dev/null || echo "$start")
info "built in $(( $(date +%s) - started ))s (plus $((started - start))s waiting for another build): $out/perf (features: $out.features.txt)"
info "$("$out/perf" version)"
