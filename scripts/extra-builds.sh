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
#   extra-builds.sh [changed] [VARIANT ...]    (default: all four)
# One line per variant with its build time; exit 1 if any fails.
# scripts/extra-builds-verified, written by this script only, holds the
# variants that built from the work tree as it is (its git tree, clean),
# each under a key of the tree, the variant and this script (verified_key);
# "changed" (make check-all) builds only the variants it doesn't hold.
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
mode=full
[ "${1:-}" != changed ] || { mode=changed; shift; }
variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(nolibelf nodwarf nolibtraceevent nolibpython)

[ -f "$TREE/tools/perf/Makefile.perf" ] || die "$TREE: no work tree, run make -f Makefile.series apply"
record=$TOP/scripts/extra-builds-verified
tree_hash=
[ -n "$(git -C "$TREE" status --porcelain -- tools)" ] ||
	tree_hash=$(git -C "$TREE" rev-parse "HEAD^{tree}")
summary=() fail=0 passed=()
for v in "${variants[@]}"; do
	[ -n "${vars[$v]:-}" ] || die "unknown variant $v (known: ${!vars[*]})"
	key=$(verified_key "$tree_hash" "${vars[$v]}" "$(cat "$0")")
	if [ -n "$tree_hash" ] && [ "$mode" = changed ] && is_verified "$record" "$key"; then
		summary+=("PASS  perf-$v (${vars[$v]}): built before from this tree (${record#"$TOP"/})")
		passed+=("$key $v")
		continue
	fi
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
		passed+=("$key $v")
	else
		summary+=("FAIL  perf-$v (${vars[$v]}): $took, log: $BUILD/perf-$v.build.log")
		fail=1
	fi
done
# The record: the variants that built from this tree (none if it isn't clean).
if [ -n "$tree_hash" ]; then
	{
		echo "# The perf builds of scripts/extra-builds.sh that passed, the latest"
		echo "# first (written by it only): KEY VARIANT."
		[ ${#passed[@]} = 0 ] || printf '%s\n' "${passed[@]}"
		[ ! -f "$record" ] || grep -v '^#' "$record" || true
	} | awk '/^#/ || !seen[$1]++' | head -n 10 > "$record.tmp"
	mv "$record.tmp" "$record"
fi
echo
printf '%s\n' "${summary[@]}"
[ "$fail" = 0 ]
