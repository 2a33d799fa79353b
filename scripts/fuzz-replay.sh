#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Replay the corpus of every fuzz harness (fuzz/corpus/NAME/: the seeds and
# each input that once failed) with the normal build of the harness.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

"$TOP/scripts/fuzz-build.sh" replay > /dev/null
while read -r name _; do
	inputs=("$TOP/fuzz/corpus/$name"/*)
	[ -e "${inputs[0]}" ] || die "$name: fuzz/corpus/$name/ is empty"
	# perf's warnings on corrupt inputs go to a log, shown on a failure.
	log=$BUILD/fuzz/$name-replay.log
	if ! "$BUILD/fuzz/$name-replay" "${inputs[@]}" > /dev/null 2> "$log"; then
		tail -n 20 "$log" >&2
		die "$name: the corpus does not replay clean (log: $log)"
	fi
	info "$name: ${#inputs[@]} inputs replayed clean"
done < <(fuzz_harnesses)
