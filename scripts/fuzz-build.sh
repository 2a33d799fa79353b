#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the fuzz harnesses listed in fuzz/harnesses against the patched
# tree, into build/fuzz/:
#   NAME-fuzz    clang, libFuzzer, ASan and UBSan (any report aborts)
#   NAME-replay  gcc, the normal build: runs the harness once per file
# "fuzz-build.sh replay" builds only the replay binaries (no clang needed).
# A harness whose file list is "perf" is linked with perf itself: the fuzz
# binary with a clang build of perf instrumented for libFuzzer
# (build/perf-fuzz), the replay one with the normal build (build/perf);
# perf's main() renamed perf_main.
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

# The objects and libraries perf is linked from, in build $1, main() renamed,
# one a line.
perf_link() {
	local obj=$1 lib

	objcopy --redefine-sym main=perf_main "$obj/perf-in.o" "$obj/perf-in-nomain.o"
	echo "$obj/perf-in-nomain.o"
	# The libraries of perf's tree, whole, as perf links them.
	echo "-Wl,--whole-archive"
	for lib in libperf-bench.a libperf-test.a libperf-ui.a libperf-util.a \
		   libpmu-events.a libapi/libapi.a libperf/libperf.a libsubcmd/libsubcmd.a \
		   libsymbol/libsymbol.a libbpf/libbpf.a; do
		[ ! -f "$obj/$lib" ] || echo "$obj/$lib"
	done
	echo "-Wl,--no-whole-archive"
	# The shared libraries perf was linked with, by file name.
	readelf -d "$obj/perf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/-l:\1/p' |
		grep -v -e '^-l:libc\.so' -e '^-l:ld-linux'
}

# The flags the objects of perf build $1 were compiled with (its command
# line for util/dso.o), one a line: a harness linked with perf is compiled
# with them, so that it can include perf's headers.
perf_cflags() {
	sed -n 's/^cmd_[^ ]* := //p' "$1/util/.dso.o.cmd" | tr ' ' '\n' |
		grep -v -x -e ccache -e gcc -e clang -e -c -e -o -e '.*\.[co]' \
			-e '-Wp,.*' -e '.*BUILD_STR.*' -e ''
}

# The clang build of perf for the fuzz binaries, once a run.
perf_fuzz_build() {
	[ -z "${perf_fuzz_built:-}" ] || return 0
	"$TOP/scripts/build-perf.sh" "$TREE" "$BUILD/perf-fuzz" CC=clang HOSTCC=clang BUILD_BPF_SKEL=0 WERROR=0 \
		EXTRA_CFLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize=alignment -g -O1" \
		LDFLAGS="-fsanitize=address,undefined" > /dev/null ||
		die "the clang build of perf for the fuzz harnesses failed"
	# A feature check of that build leaves its test program in the tree.
	rm -f "$TREE/tools/perf/a.out"
	perf_fuzz_built=1
}

while read -r name files; do
	if [ "$files" = perf ]; then
		if [ "$what" != replay ] && [ -z "${FUZZ_SKIP_PERF:-}" ]; then
			perf_fuzz_build
			mapfile -t libs < <(perf_link "$BUILD/perf-fuzz")
			mapfile -t pcflags < <(perf_cflags "$BUILD/perf-fuzz")
			clang "${pcflags[@]}" "${cflags[@]}" -fsanitize=fuzzer,address,undefined \
				-fno-sanitize=alignment -fno-sanitize-recover=all \
				-o "$out/$name-fuzz" "$TOP/fuzz/$name.c" "${libs[@]}" ||
				die "$name: the fuzz build failed"
			info "built $out/$name-fuzz"
		fi
		[ -f "$PERF_OUT/perf-in.o" ] || "$TOP/scripts/build-perf.sh" > /dev/null
		mapfile -t libs < <(perf_link "$PERF_OUT")
		mapfile -t pcflags < <(perf_cflags "$PERF_OUT")
		gcc "${pcflags[@]}" "${cflags[@]}" -o "$out/$name-replay" "$TOP/fuzz/$name.c" \
			"$TOP/fuzz/replay.c" "${libs[@]}" ||
			die "$name: the replay build failed"
		info "built $out/$name-replay"
		continue
	fi
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
