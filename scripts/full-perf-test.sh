#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the whole of `perf test` with PERF from the tree SRC and print one
# normalised line per test and subtest (see perf-test-results.awk).
# Further arguments go to perf test (e.g. -s 1,2 to skip tests).
#   full-perf-test.sh PERF SRC [OPTION ...]
set -euo pipefail

perf=$1 src=$2
shift 2
PATH="$(dirname "$perf"):$PATH"
export PATH
here=$(cd "$(dirname "$0")" && pwd)
cd "$src/tools/perf"
"$perf" test "$@" 2>&1 | awk -f "$here/perf-test-results.awk"
