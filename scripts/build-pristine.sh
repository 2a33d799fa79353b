#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build pristine v$KVER perf (no patch of the series) from a worktree of
# the work tree at $BASE_TAG into build/pristine/perf, for the checks that
# compare with it (regress, bisect).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

pristine_tree=$PRISTINE_TREE
pristine_out=$PRISTINE_OUT

if [ ! -e "$pristine_tree/.git" ]; then
	step "checking out pristine $BASE_TAG into $pristine_tree"
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$pristine_tree" "$BASE_TAG"
fi
"$TOP/scripts/build-perf.sh" "$pristine_tree" "$pristine_out"
