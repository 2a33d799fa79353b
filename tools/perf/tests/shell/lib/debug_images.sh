#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The tests "Profiles resolved from separated debug images": each sets
# DEBUG_IMAGES_LAYOUTS to the layouts of its kind and sources this file.
#
# Build a small program in several layouts, record each once and resolve
# its samples from several symbol sources: the full binary, a stripped
# binary with its debug file found by .gnu_debuglink or in a build-id
# debug directory, and the debug file alone.
# MiniDebugInfo (the .gnu_debugdata of a stripped binary) is one more.
# Every frame in the program's own functions must get the symbol 'nm'
# gives for it on the unstripped build, hot <- driver <- main callchains
# must be intact and each of the three hot functions must have a tenth of
# their samples at least (their 50/30/20 shares of the work are not checked:
# the time each takes depends on the machine, its load among others, and
# every frame being right is what says perf put the samples where they
# belong).
# Where the symbols come with DWARF, the source line of every hot sample
# must be the one addr2line gives on the unstripped build; where the code
# is at hand, perf annotate must show the code of a hot function.
#
# DEBUG_IMAGES_LAYOUTS and DEBUG_IMAGES_VARIANTS (space separated) select
# a subset; DEBUG_IMAGES_VERBOSE=1 prints the figures of every case and
# DEBUG_IMAGES_KEEP=1 keeps the files.

set -u

shelldir=$(dirname "$0")
# setup_python.sh tests PYTHON, which may be unset (set -u)
PYTHON=${PYTHON:-}
# shellcheck source=lib/setup_python.sh
. "${shelldir}/lib/setup_python.sh"
checker="${shelldir}/lib/debug_images.py"

tools="cc nm objcopy strip readelf"
tools="${tools} addr2line objdump"
for tool in ${tools}; do
	if ! command -v "$tool" > /dev/null; then
		echo "skip: no $tool on this machine"
		exit 2
	fi
done

tmpdir=$(mktemp -d /tmp/perf-debug-images.XXXXXX)
err=0

# shellcheck disable=SC2317 # called by the trap
cleanup() {
	[ -n "${DEBUG_IMAGES_KEEP:-}" ] || rm -rf "${tmpdir}"
}
trap cleanup EXIT
trap 'echo "Unexpected signal"; exit 1' TERM INT

# No network lookups, no build-id cache but the one a case sets up.
export DEBUGINFOD_URLS=

# $1: layout dir, then a perf command run with the layout's build-id cache.
perf_cache() {
	local dir=$1

	shift
	perf --buildid-dir "${dir}/cache" "$@"
}

cat > "${tmpdir}/prog.c" << 'EOF'
#include <stdlib.h>

volatile unsigned long sink;
char big_bss[1 << 20];

#define COLD(n) void __attribute__((noinline)) cold##n(void) \
	{ for (int i = 0; i < 64; i++) sink += i * n; big_bss[n] = 1; }
#ifdef HOT_SECTION
#define HOT_ATTR __attribute__((noinline, section(".hot")))
#else
#define HOT_ATTR __attribute__((noinline))
#endif
/* Not leaves, so that they set up a frame pointer. */
#define HOT(n) void HOT_ATTR hot##n(unsigned long k) \
	{ unsigned long x = k; tick(); \
	  for (unsigned long i = 0; i < k * n * 8; i++) x = x * 2654435761UL + i; \
	  sink = x; }

#ifndef NO_LIB
void __attribute__((noinline)) tick(void) { __asm__ volatile(""); }
COLD(1) HOT(50) COLD(2) COLD(3) HOT(30) COLD(4) HOT(20) COLD(5)

void __attribute__((noinline)) driver(unsigned long loops)
{
	for (unsigned long l = 0; l < loops; l++) {
		hot50(40);
		hot30(40);
		hot20(40);
	}
	cold1(); cold2(); cold3(); cold4(); cold5();
}
COLD(6)
#else
void driver(unsigned long loops);
#endif

#ifndef NO_MAIN
int main(int argc, char **argv)
{
	driver(argc > 1 ? strtoul(argv[1], NULL, 0) : 1);
	return 0;
}
#endif
EOF

if ! perf record -q -o "${tmpdir}/probe.data" -e cpu-clock:u -- true \
	> /dev/null 2>&1; then
	echo "skip: cannot record cpu-clock:u here (perf_event_paranoid?)"
	exit 2
fi

cflags="-O1 -g -fno-omit-frame-pointer -fno-inline -fcf-protection=none"
lld_ok=
if cc -fuse-ld=lld -o "${tmpdir}/lld-probe" "${tmpdir}/prog.c" > /dev/null 2>&1; then
	lld_ok=1
fi
gold_ok=
if cc -fuse-ld=gold -o "${tmpdir}/gold-probe" "${tmpdir}/prog.c" > /dev/null 2>&1; then
	gold_ok=1
fi

# layout name, build flags (+ separated), kind (exe, lib) and the
# variants not to check it with (, separated), if any.
# -hotsec: the hot functions in a PT_LOAD of their own, after .data and a
# large .bss in the file.
hotsec="-DHOT_SECTION+-Wl,--section-start=.hot=0x800000"
layouts_all="
exec:-no-pie:exe
exec-nosep:-no-pie+-Wl,-z,noseparate-code:exe
exec-maxpage:-no-pie+-Wl,-z,max-page-size=0x200000:exe
pie:-pie+-fPIE:exe
pie-nosep:-pie+-fPIE+-Wl,-z,noseparate-code:exe
pie-maxpage:-pie+-fPIE+-Wl,-z,max-page-size=0x200000:exe
shlib:-fPIC:lib
shlib-nosep:-fPIC+-Wl,-z,noseparate-code:lib
static:-static:exe
exec-hotsec:-no-pie+${hotsec}:exe
pie-hotsec:-pie+-fPIE+${hotsec}:exe
lld-exec:-no-pie+-fuse-ld=lld:exe
lld-pie:-pie+-fPIE+-fuse-ld=lld:exe
lld-shlib:-fPIC+-fuse-ld=lld:lib
gold-exec:-no-pie+-fuse-ld=gold:exe
gold-pie:-pie+-fPIE+-fuse-ld=gold:exe
gold-shlib:-fPIC+-fuse-ld=gold:lib
"
variants_all="full debuglink buildid-dir debug-only-symfs debug-only-cache"
if command -v xz > /dev/null && perf version --build-options | grep -q 'lzma: .*on'; then
	variants_all="${variants_all} minidebuginfo"
else
	echo "note: no xz or perf without lzma, MiniDebugInfo not tested"
fi
variants=${DEBUG_IMAGES_VARIANTS:-$variants_all}

# $1: layout, $2: link flags, $3: kind.  Builds into $tmpdir/$1/build and
# records a run of the program as installed in $tmpdir/$1/run.
build_and_record() {
	local dir="${tmpdir}/$1" flags=${2//+/ }
	mkdir -p "${dir}/build" "${dir}/run"
	# shellcheck disable=SC2086,SC2016 # word splitting; $ORIGIN is for ld.so
	if [ "$3" = lib ]; then
		cc $cflags $flags -shared -DNO_MAIN -o "${dir}/build/libprog.so" \
			"${tmpdir}/prog.c" &&
		cc $cflags ${flags/-fPIC/} -DNO_LIB -o "${dir}/build/prog" \
			"${tmpdir}/prog.c" -L"${dir}/build" -lprog \
			-Wl,-rpath,'$ORIGIN'
	else
		cc $cflags $flags -o "${dir}/build/prog" "${tmpdir}/prog.c"
	fi || return 2	# the build: a static libc may be missing
	cp "${dir}"/build/* "${dir}/run/"
	perf record -q -N --buildid-all -e cpu-clock:u -c 100000 --call-graph fp \
		-o "${dir}/perf.data" -- "${dir}/run/prog" 2000 \
		> /dev/null 2>&1
}

# The files of a layout: the program and, for 'lib', its library.
files_of() {
	if [ "$1" = lib ]; then echo prog libprog.so; else echo prog; fi
}

debug_path() {
	local bid
	bid=$(readelf -n "$1" | awk '/Build ID/ {print $3}')
	echo "usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug"
}

# $1: layout dir, $2: kind, $3: variant.  Installs the variant into
# $1/run, $1/symfs and the build-id cache $1/cache and prints extra perf
# options.
setup_variant() {
	local dir=$1 f dbg
	rm -rf "${dir}/run" "${dir}/symfs" "${dir}/cache"
	mkdir -p "${dir}/run" "${dir}/symfs" "${dir}/cache"
	for f in $(files_of "$2"); do
		objcopy --only-keep-debug "${dir}/build/$f" "${dir}/$f.debug"
		strip --strip-all -o "${dir}/$f.stripped" "${dir}/build/$f"
		dbg=$(debug_path "${dir}/build/$f")
		case $3 in
		full)
			cp "${dir}/build/$f" "${dir}/run/$f";;
		debuglink)
			cp "${dir}/$f.debug" "${dir}/run/$f.debug"
			objcopy --add-gnu-debuglink="${dir}/run/$f.debug" \
				"${dir}/$f.stripped" "${dir}/run/$f";;
		buildid-dir)
			mkdir -p "${dir}/symfs/${dir}/run" \
				"$(dirname "${dir}/symfs/${dbg}")"
			cp "${dir}/$f.stripped" "${dir}/symfs/${dir}/run/$f"
			cp "${dir}/$f.debug" "${dir}/symfs/${dbg}";;
		debug-only-symfs)
			mkdir -p "$(dirname "${dir}/symfs/${dbg}")"
			cp "${dir}/$f.debug" "${dir}/symfs/${dbg}";;
		debug-only-cache)
			perf_cache "$dir" buildid-cache -a "${dir}/$f.debug" \
				> /dev/null 2>&1;;
		minidebuginfo)
			# As Fedora's find-debuginfo does: the function symbols
			# that are not in .dynsym, xz-compressed in .gnu_debugdata.
			nm -D --format=posix --defined-only "${dir}/build/$f" 2> /dev/null |
				awk '{ print $1 }' | sort > "${dir}/dynsyms"
			nm --format=posix --defined-only "${dir}/build/$f" |
				awk '$2 ~ /^[TtWw]$/ { print $1 }' | sort > "${dir}/funcsyms"
			comm -13 "${dir}/dynsyms" "${dir}/funcsyms" > "${dir}/keep"
			rm -f "${dir}/mini.xz"
			objcopy -S --remove-section .gdb_index --remove-section .comment \
				--keep-symbols="${dir}/keep" "${dir}/$f.debug" "${dir}/mini"
			xz "${dir}/mini"
			objcopy --add-section .gnu_debugdata="${dir}/mini.xz" \
				"${dir}/$f.stripped" "${dir}/run/$f";;
		esac
	done
	case $3 in
	buildid-dir|debug-only-symfs) echo "--symfs ${dir}/symfs";;
	esac
}

# $1: layout dir, $2: variant, $3: extra perf options.  Prints why the
# source lines of the hot samples are wrong, if they are.  MiniDebugInfo
# has no DWARF.
check_srcline() {
	local right total

	[ "$2" != minidebuginfo ] || return 0
	# shellcheck disable=SC2086
	perf_cache "$1" script -i "$1/perf.data" $3 -G \
		--show-mmap-events -F ip,sym,dso,srcline > "$1/srcline.out" 2>&1
	read -r right total <<< \
		"$("${PYTHON}" "$checker" --srcline "$1/srcline.out" "${truth[@]}")"
	if [ "${total:-0}" -lt 100 ]; then
		echo "too few hot samples with a source line (${total:-0})"
	elif [ "$right" != "$total" ]; then
		echo "$((total - right)) of ${total} hot samples with a wrong source line"
	fi
}

# $1: layout dir, $2: variant, $3: extra perf options.  Prints why perf
# annotate does not show the code of hot50, if it does not.  A debug image
# alone has no code.
check_annotate() {
	local insns

	[[ $2 != debug-only-* ]] || return 0
	# shellcheck disable=SC2086
	perf_cache "$1" annotate -i "$1/perf.data" $3 \
		--stdio -s hot50 > "$1/annotate.out" 2>&1
	insns=$(grep -cE '^ +[0-9.]+ +: +[0-9a-f]+: ' "$1/annotate.out")
	if ! grep -q '<hot50>:' "$1/annotate.out" || [ "$insns" -lt 5 ]; then
		echo "perf annotate shows no code of hot50 (${insns} instructions)"
	fi
}

start=$(date +%s)
summary=""
for entry in $layouts_all; do
	IFS=: read -r layout flags kind skip <<< "$entry"
	if [ -n "${DEBUG_IMAGES_LAYOUTS:-}" ] &&
	   [[ " ${DEBUG_IMAGES_LAYOUTS} " != *" ${layout} "* ]]; then
		continue
	fi
	if [[ $flags == *lld* ]] && [ -z "$lld_ok" ]; then
		echo "note: lld is not installed, layout ${layout} not tested"
		continue
	fi
	if [[ $flags == *gold* ]] && [ -z "$gold_ok" ]; then
		echo "note: gold is not installed, layout ${layout} not tested"
		continue
	fi
	dir="${tmpdir}/${layout}"
	rc=0
	build_and_record "$layout" "$flags" "$kind" || rc=$?
	if [ "$rc" != 0 ]; then
		if [ "$rc" = 2 ] && [ "$layout" = static ]; then
			echo "note: no static libc on this machine, layout static not tested"
			continue
		fi
		echo "FAIL: ${layout}: cannot build or record"
		err=1
		continue
	fi
	line="${layout}:"
	for variant in $variants; do
		if [[ ",${skip}," == *",${variant},"* ]]; then
			continue
		fi
		opts=$(setup_variant "$dir" "$kind" "$variant")
		truth=()
		for f in $(files_of "$kind"); do
			truth+=("${dir}/run/$f=${dir}/build/$f")
		done
		# shellcheck disable=SC2086
		perf_cache "$dir" script -i "${dir}/perf.data" $opts --show-mmap-events \
			-F comm,ip,sym,dso > "${dir}/script.out" 2> "${dir}/script.err"
		rc=$?
		read -r right total h50 h30 h20 chains <<< \
			"$("${PYTHON}" "$checker" "${dir}/script.out" "${truth[@]}")"
		hot=$((h50 + h30 + h20))
		pct=$((total ? right * 100 / total : 0))
		line="${line} ${variant}=${pct}%"
		why=""
		if [ $rc -gt 128 ]; then
			why="perf script crashed (rc ${rc})"
		elif [ "${total:-0}" -lt 100 ]; then
			why="too few samples (${total:-0} frames in the program)"
		elif [ "$right" != "$total" ]; then
			why="$((total - right)) of ${total} frames with a wrong symbol"
		elif [ "$hot" -lt 100 ]; then
			why="too few samples (${hot} in the hot functions)"
		elif [ "$chains" -lt $((hot * 95 / 100)) ]; then
			why="only ${chains} of ${hot} hot samples with driver <- main"
		elif [ $((h50 * 10)) -lt "$hot" ] || [ $((h30 * 10)) -lt "$hot" ] ||
		     [ $((h20 * 10)) -lt "$hot" ]; then
			why="samples ${h50}/${h30}/${h20}: a hot function has under a tenth"
		fi
		[ -n "$why" ] || why=$(check_srcline "$dir" "$variant" "$opts")
		[ -n "$why" ] || why=$(check_annotate "$dir" "$variant" "$opts")
		if [ -n "$why" ]; then
			echo "FAIL: ${layout} ${variant}: ${why}"
			err=1
		fi
	done
	summary="${summary}${line}"$'\n'
done

if [ $err -ne 0 ] || [ -n "${DEBUG_IMAGES_VERBOSE:-}" ]; then
	printf '%% of frames with the right symbol:\n%s' "$summary"
fi
echo "debug_images: $(($(date +%s) - start))s"
exit $err
