#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Show the main job on data recorded here: record a small workload with a
# software event, share-proof it with perf inject --aslr (once the series
# has it), and compare perf report before and after.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

demo=$BUILD/demo
mkdir -p "$demo"
cd "$demo"
report() { "$PERF" report -i "$1" --stdio --no-children -g none --sort comm,dso,sym 2> /dev/null | grep -v '^#' | sed '/^$/d' | sed -n '1,8p'; }

step "demo: the patched perf"
"$PERF" version
n=$(grep -c '^[^#[:space:]]' "$PATCHES/series" || true)
info "perf-aslr-series: $n patches on linux $KVER, series hash $(series_stamp | cut -c1-12)"
info "work tree $TREE, branch $SERIES_BRANCH:"
git -C "$TREE" log --format='      %h %s' "$BASE_TAG..$SERIES_BRANCH" | tail -n 40
[ -n "$(git -C "$TREE" log --format=%h "$BASE_TAG..$SERIES_BRANCH")" ] || info "  (no patches yet)"

step "demo: perf record -e task-clock:u -g -- perf test -w sqrtloop"
"$PERF" record -q -e task-clock:u -g -o perf.data -- "$PERF" test -w sqrtloop 1 > /dev/null 2>&1 ||
	die "perf record failed in $demo"
info "recorded $(stat -c %s perf.data) bytes: $demo/perf.data"
echo "--- perf report (original) ---"
report perf.data

inject_help=$("$PERF" inject -h 2>&1 || true)
if grep -q -- '--aslr' <<< "$inject_help"; then
	step "demo: perf inject --aslr -i perf.data -o perf.shared.data"
	"$PERF" inject --aslr -i perf.data -o perf.shared.data
	echo "--- perf report (perf.shared.data, as the receiver sees it) ---"
	report perf.shared.data
	echo "--- user mmaps, before and after ---"
	"$PERF" script -i perf.data --show-mmap-events 2> /dev/null | grep -m 3 'MMAP' || true
	"$PERF" script -i perf.shared.data --show-mmap-events 2> /dev/null | grep -m 3 'MMAP' || true
	audit=$TREE/tools/perf/tests/shell/lib/aslr_audit.py
	if [ -x "$audit" ]; then
		echo "--- leak check: aslr_audit.py perf.data perf.shared.data ---"
		"$audit" perf.data perf.shared.data || die "the leak checker found original addresses in $demo/perf.shared.data"
	fi
else
	info "this perf has no 'perf inject --aslr' yet: the series does not add it so far"
fi

step "the patched perf is $PERF"
