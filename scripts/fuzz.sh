#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run each fuzz harness for FUZZ_SECONDS (default 10) from its corpus and
# print per harness: executions, executions per second, coverage (edges
# and features) and crashes.  New inputs go to build/fuzz/corpus/NAME/,
# crashing ones to build/fuzz/crashes/NAME/.  Fails if any harness crashed.
# FUZZ_SKIP_PERF=1 skips the harnesses linked with perf itself (their file
# list in fuzz/harnesses is "perf"): they need a clang build of perf.
# FUZZ_RUNS=N stops a harness after N executions (a long campaign: set
# FUZZ_SECONDS high too), FUZZ_ONLY=NAME runs that harness only.  The
# harnesses run FUZZ_JOBS at a time (default: one a CPU).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

secs=${FUZZ_SECONDS:-10}
runs=()
[ -z "${FUZZ_RUNS:-}" ] || runs=(-runs="$FUZZ_RUNS")

# The last "KEY: N" libFuzzer printed in log $2, if any.
last_count() {
	{ grep -o "$1: [0-9]*" "$2" || true; } | tail -n 1 | cut -d' ' -f2
}

# run NAME: run harness NAME, print its line; fails if it crashed.
run() {
	local name=$1 work crashes log execs rate cov ft found

	work=$BUILD/fuzz/corpus/$name
	crashes=$BUILD/fuzz/crashes/$name
	log=$BUILD/fuzz/$name.log
	rm -rf "$crashes"
	mkdir -p "$work" "$crashes"
	"$BUILD/fuzz/$name-fuzz" -max_total_time="$secs" "${runs[@]}" -timeout=10 -print_final_stats=1 \
		-artifact_prefix="$crashes/" "$work" "$TOP/fuzz/corpus/$name" > "$log" 2>&1 || true
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	cov=$(last_count cov "$log")
	ft=$(last_count ft "$log")
	found=$(find "$crashes" -type f | wc -l)
	printf '    %-15s %10s execs %8s/s   cov %5s  ft %6s   crashes %s\n' \
		"$name" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$found"
	if [ "$found" != 0 ] || [ -z "$execs" ]; then
		grep -m 5 -E 'ERROR|check failed|runtime error' "$log" | sed 's/^/      /' || true
		info "inputs in $crashes/, log $log; replay one with $BUILD/fuzz/$name-replay FILE"
		return 1
	fi
}

"$TOP/scripts/fuzz-build.sh" > /dev/null
# perf's own objects are built with recoverable UBSan checks: stop at the
# first report, as the harnesses do, so the input is kept.
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# FUZZ_JOBS harnesses at a time (default: one a CPU), each one process;
# their lines in the order of fuzz/harnesses.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
names=()
while read -r name files; do
	[ -z "${FUZZ_ONLY:-}" ] || [ "$name" = "$FUZZ_ONLY" ] || continue
	if [ "$files" = perf ] && [ -n "${FUZZ_SKIP_PERF:-}" ]; then
		printf '    %-15s skipped (FUZZ_SKIP_PERF: linked with perf)\n' "$name" > "$tmp/$name"
	else
		while [ "$(jobs -rp | wc -l)" -ge "${FUZZ_JOBS:-$(nproc)}" ]; do
			sleep 1
		done
		{ run "$name" > "$tmp/$name" 2>&1 || touch "$tmp/$name.crashed"; } &
	fi
	names+=("$name")
done < <(fuzz_harnesses)
wait
crashed=""
for name in "${names[@]}"; do
	cat "$tmp/$name"
	[ ! -e "$tmp/$name.crashed" ] || crashed="$crashed $name"
done
[ -z "$crashed" ] || die "fuzzing found crashes in:$crashed"
