#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `perf test NAME` runs every test whose description holds NAME.  The
# upstream shell tests pick tests that way (perf_has_symbol.sh runs
# `perf test -F Symbols`): a test of the series whose description holds
# such a name would run each time they do.  Each NAME a shell test or
# helper of the work tree gives `perf test -F` must select one test, the
# one of that description.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

cd "$TREE/tools/perf"
mapfile -t names < <(sed -n 's/.*perf test [^|]*-F "\([^"]*\)".*/\1/p' tests/shell/*.sh tests/shell/lib/*.sh | sort -u)
[ ${#names[@]} -gt 0 ] || die "no shell test or helper selects a test by name: nothing to check"
fail=0
for name in "${names[@]}"; do
	list=$("$PERF" test list "$name" 2>&1 | sed '/^$/d')
	info "perf test list $name:"
	while IFS= read -r line; do echo "      $line"; done <<< "$list"
	if [ "$(wc -l <<< "$list")" != 1 ] || ! grep -Eqx " *[0-9]+: $name" <<< "$list"; then
		echo "FAIL: \"perf test $name\" runs more than the test \"$name\""
		fail=1
	fi
done
[ "$fail" = 0 ]
echo "each name a shell test gives perf test -F selects its test only: ${names[*]}"
