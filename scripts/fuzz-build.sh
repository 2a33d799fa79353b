#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the fuzz harnesses listed in fuzz/harnesses against the patched
# tree, into build/fuzz/:
#   NAME-fuzz    clang, libFuzzer, ASan and UBSan (any report aborts)
#   NAME-replay  gcc, the normal build: runs the harness once per file
# "fuzz-build.sh replay" builds only the replay binaries (no clang needed).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

what=${1:-all}
out=$BUILD/fuzz
mkdir -p "$out"
[ -d "$TREE/tools/lib" ] || die "$TREE: no work tree, run make -f Makefile.series apply"
# -Wno-unused-parameter: as perf's build (tools/lib/rbtree.c has empty
# callbacks).
cflags=(-D_GNU_SOURCE -g -O1 -Wall -Wextra -Wno-unused-parameter -Werror
	-I"$TREE/tools/include" -I"$TREE/tools/lib" -I"$TOP/fuzz")

while read -r name files; do
	srcs=("$TOP/fuzz/$name.c")
	for f in $files; do
		srcs+=("$TREE/$f")
	done
	if [ "$what" != replay ]; then
		clang "${cflags[@]}" -fsanitize=fuzzer,address,undefined \
			-fno-sanitize-recover=all -o "$out/$name-fuzz" "${srcs[@]}" ||
			die "$name: the fuzz build failed"
		info "built $out/$name-fuzz"
	fi
	gcc "${cflags[@]}" -o "$out/$name-replay" "${srcs[@]}" "$TOP/fuzz/replay.c" ||
		die "$name: the replay build failed"
	info "built $out/$name-replay"
done < <(fuzz_harnesses)
