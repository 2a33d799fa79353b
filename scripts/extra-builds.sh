#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The extra perf builds perf maintainers run before merging, on the patched
# work tree, each into its own build/perf-<variant> through build-perf.sh
# (one perf build at a time on the machine), -Werror kept (perf's default):
#   nolibelf         NO_LIBELF=1
#   nodwarf          NO_DWARF=1  (6.12's name for building without libdw;
#                    it implies NO_LIBDW_DWARF_UNWIND=1)
#   nolibtraceevent  NO_LIBTRACEEVENT=1
#   nolibpython      NO_LIBPYTHON=1
#   extra-builds.sh [VARIANT ...]    (default: all four)
# One line per variant with its build time; exit 1 if any fails.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

declare -A vars=(
	[nolibelf]=NO_LIBELF=1
	[nodwarf]=NO_DWARF=1
	[nolibtraceevent]=NO_LIBTRACEEVENT=1
	[nolibpython]=NO_LIBPYTHON=1
)
# the feature of `perf version --build-options` each variant must have off
declare -A off=(
	[nolibelf]=libelf
	[nodwarf]=dwarf
	[nolibtraceevent]=libtraceevent
	[nolibpython]=libpython
)
variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(nolibelf nodwarf nolibtraceevent nolibpython)

[ -f "$TREE/tools/perf/Makefile.perf" ] || die "$TREE: no work tree, run make -f Makefile.series apply"
summary=() fail=0
for v in "${variants[@]}"; do
	[ -n "${vars[$v]:-}" ] || die "unknown variant $v (known: ${!vars[*]})"
	start=$(date +%s)
	ok=0
	"$TOP/scripts/build-perf.sh" "$TREE" "$BUILD/perf-$v" "${vars[$v]}" || ok=$?
	# the build time, without the wait for another build (build-perf.sh)
	started=$(cat "$BUILD/perf-$v.started" 2> /dev/null || echo "$start")
	took="$(( $(date +%s) - started ))s build, $((started - start))s waiting for the lock"
	if [ "$ok" = 0 ]; then
		if ! grep -Eq "^ *${off[$v]}: \[ OFF \]" "$BUILD/perf-$v.features.txt"; then
			summary+=("FAIL  perf-$v (${vars[$v]}): built, but ${off[$v]} is not off (see $BUILD/perf-$v.features.txt)")
			fail=1
			continue
		fi
		summary+=("PASS  perf-$v (${vars[$v]}): $took")
	else
		summary+=("FAIL  perf-$v (${vars[$v]}): $took, log: $BUILD/perf-$v.build.log")
		fail=1
	fi
done
echo
printf '%s\n' "${summary[@]}"
[ "$fail" = 0 ]
