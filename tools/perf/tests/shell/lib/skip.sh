#!/bin/bash
# SPDX-License-Identifier: GPL-2.0

# skip REASON...: end the test as skipped (exit 2), saying why; the test's
# cleanup function, if it has one, runs first.
skip() {
	echo "Skip: $*"
	if declare -F cleanup > /dev/null; then
		cleanup
	fi
	exit 2
}
