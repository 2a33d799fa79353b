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
	"$BUILD/fuzz/$name-replay" "${inputs[@]}" > /dev/null ||
		die "$name: the corpus does not replay clean"
	info "$name: ${#inputs[@]} inputs replayed clean"
done < <(fuzz_harnesses)
