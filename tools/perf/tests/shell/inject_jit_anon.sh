#!/bin/bash
# perf inject --jit keeps the symbols of anonymous JIT code
# SPDX-License-Identifier: GPL-2.0
#
# A small JIT (jitwork.c below, built with the system compiler) grows
# its code region page by page; every eighth function is only in
# /tmp/perf-PID.map, the others in its jitdump too.  After perf inject
# --jit, at least 95% of the samples of jitdump functions must get their
# jitdump name, at least 95% of those of perf-map-only functions their
# perf map name, and none the name of another function.  Variants:
#   basic         the marker mapped first, then the code grown
#   shared        the code region is MAP_SHARED anonymous memory
#   early         the code records written before the marker is mapped
#   attach-above, attach-below
#                 perf record -p on the running JIT, the marker above or
#                 below the code (synthesized maps come in address order)
#   fork          a child loads its own code into the inherited region and
#                 jitdump; forkdump: into a jitdump of its own
#   pipe          perf record -o - | perf inject --jit
#
# JIT_VARIANTS (space separated) selects variants; JIT_KEEP=1 keeps files.

set -u

shelldir=$(dirname "$0")
classify="${shelldir}/lib/jit_classify.py"

if [ "$(uname -m)" != x86_64 ]; then
	echo "skip: the JIT workload emits x86-64 code, this is $(uname -m)"
	exit 2
fi
for tool in cc python3; do
	if ! command -v "$tool" > /dev/null; then
		echo "skip: no $tool on this machine"
		exit 2
	fi
done
if ! perf version --build-options | grep -q 'libelf: .*on'; then
	echo "skip: perf built without libelf (no --jit)"
	exit 2
fi

tmpdir=$(mktemp -d /tmp/perf-jit-anon.XXXXXX)
err=0

# shellcheck disable=SC2317 # called by the trap
cleanup() {
	local f pid

	for f in "${tmpdir}"/*/layout-*; do
		[ -e "$f" ] || continue
		pid=${f##*layout-}
		rm -f "/tmp/perf-${pid}.map"
	done
	[ -n "${JIT_KEEP:-}" ] || rm -rf "${tmpdir}"
}
trap cleanup EXIT
trap 'echo "Unexpected signal"; exit 1' TERM INT

cat > "${tmpdir}/jitwork.c" << 'EOF'
/*
 * A small JIT for perf inject --jit tests (x86-64).
 *
 *   jitwork DIR SECONDS [shared] [early] [fork] [above|below] [wait]
 *
 * Grows a code region page by page (written, then mprotect'ed R-X, so the
 * kernel merges the pages into one growing VMA and reports it in a new
 * MMAP each time), with NR_FUNCS functions.  Every eighth is described
 * only in /tmp/perf-PID.map (as pm_fnN), the others in DIR/jit-PID.dump
 * (as jd_fnN) and in the map (as pm_fnN).  Then it calls them all in
 * turn for SECONDS seconds.  DIR/layout-PID lists "N START SIZE jd|pm":
 * the name each function should be resolved to.
 *
 *   shared: the code region is MAP_SHARED anonymous memory
 *   early:  the code records are written before the marker is mapped
 *   fork:   a child made after the code is loaded loads its own functions
 *           into the inherited region and dump (written with its pid)
 *   forkdump: the same, but the child writes a dump of its own
 *   above|below: the marker at a fixed address above or below the code
 *   wait:   print the pid and wait for SIGUSR1 before loading (perf
 *           record -p)
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NR_FUNCS	48
#define FUNC_SIZE	256
#define PAGE		4096
#define FUNCS_PER_PAGE	(PAGE / FUNC_SIZE)
#define REGION_PAGES	((2 * NR_FUNCS + FUNCS_PER_PAGE - 1) / FUNCS_PER_PAGE)

struct jitheader {
	uint32_t magic, version, total_size, elf_mach, pad1, pid;
	uint64_t timestamp, flags;
};

struct jr_code_load {
	uint32_t id, total_size;
	uint64_t timestamp;
	uint32_t pid, tid;
	uint64_t vma, code_addr, code_size, code_index;
};

static const char *dir;
static FILE *dump, *perfmap, *layout;
static unsigned char *region;
static unsigned int next_func, code_index;
static volatile sig_atomic_t go;

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void open_dump(void)
{
	struct jitheader h = {
		.magic = 0x4A695444, .version = 1, .total_size = sizeof(h),
		.elf_mach = EM_X86_64, .pid = getpid(), .timestamp = now(),
	};
	char path[4096];

	snprintf(path, sizeof(path), "%s/jit-%d.dump", dir, getpid());
	dump = fopen(path, "w+");
	if (!dump || fwrite(&h, sizeof(h), 1, dump) != 1 || fflush(dump))
		die(path);
}

static void map_marker(void *hint)
{
	void *m = mmap(hint, PAGE, PROT_READ | PROT_EXEC, MAP_PRIVATE |
		       (hint ? MAP_FIXED_NOREPLACE : 0), fileno(dump), 0);

	if (m == MAP_FAILED)
		die("marker");
}

static void open_maps(void)
{
	char path[4096];

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", getpid());
	perfmap = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/layout-%d", dir, getpid());
	layout = fopen(path, "w");
	if (!perfmap || !layout)
		die(path);
}

/* mov $n, %ecx; 1: dec %ecx; jnz 1b; ret; then int3 */
static void emit(unsigned char *code, unsigned int n)
{
	static const unsigned char body[] = {
		0xb9, 0, 0, 0, 0, 0xff, 0xc9, 0x75, 0xfc, 0xc3,
	};

	memset(code, 0xcc, FUNC_SIZE);
	memcpy(code, body, sizeof(body));
	memcpy(code + 1, &n, 4);
}

/* Loads function number next_func; the page goes R-X when it is full. */
static void load_func(void)
{
	unsigned int i = next_func++;
	unsigned char *code = region + (size_t)i * FUNC_SIZE;
	unsigned char *page = region + (size_t)(i / FUNCS_PER_PAGE) * PAGE;
	char name[32];

	if (i % FUNCS_PER_PAGE == 0 &&
	    mprotect(page, PAGE, PROT_READ | PROT_WRITE))
		die("mprotect rw");
	emit(code, 20000);

	if (i % 8 != 7) {
		struct jr_code_load r = {
			.id = 0, .timestamp = now(), .pid = getpid(),
			.tid = syscall(SYS_gettid), .vma = (uintptr_t)code,
			.code_addr = (uintptr_t)code, .code_size = FUNC_SIZE,
			.code_index = code_index++,
		};

		snprintf(name, sizeof(name), "jd_fn%u", i);
		r.total_size = sizeof(r) + strlen(name) + 1 + FUNC_SIZE;
		if (fwrite(&r, sizeof(r), 1, dump) != 1 ||
		    fwrite(name, strlen(name) + 1, 1, dump) != 1 ||
		    fwrite(code, FUNC_SIZE, 1, dump) != 1 || fflush(dump))
			die("dump");
	}
	fprintf(perfmap, "%lx %x pm_fn%u\n", (unsigned long)(uintptr_t)code,
		FUNC_SIZE, i);
	fflush(perfmap);
	fprintf(layout, "%u %lx %x %s\n", i, (unsigned long)(uintptr_t)code,
		FUNC_SIZE, i % 8 != 7 ? "jd" : "pm");
	fflush(layout);

	if (i % FUNCS_PER_PAGE == FUNCS_PER_PAGE - 1 &&
	    mprotect(page, PAGE, PROT_READ | PROT_EXEC))
		die("mprotect rx");
}

static void run(unsigned int first, unsigned int nr, double seconds)
{
	uint64_t end = now() + (uint64_t)(seconds * 1e9);

	while (now() < end) {
		for (unsigned int i = first; i < first + nr; i++)
			((void (*)(void))(region + (size_t)i * FUNC_SIZE))();
	}
}

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

int main(int argc, char **argv)
{
	int shared = 0, early = 0, forks = 0, forkdump = 0, wait_sig = 0;
	void *marker_hint = NULL, *region_hint = NULL;
	double seconds;
	pid_t child;

	if (argc < 3) {
		fprintf(stderr, "usage: jitwork DIR SECONDS [OPTION...]\n");
		return 2;
	}
	dir = argv[1];
	seconds = atof(argv[2]);
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "shared"))
			shared = 1;
		else if (!strcmp(argv[i], "early"))
			early = 1;
		else if (!strcmp(argv[i], "fork"))
			forks = 1;
		else if (!strcmp(argv[i], "forkdump"))
			forks = forkdump = 1;
		else if (!strcmp(argv[i], "above")) {
			region_hint = (void *)0x100000000UL;
			marker_hint = (void *)0x200000000UL;
		} else if (!strcmp(argv[i], "below")) {
			marker_hint = (void *)0x100000000UL;
			region_hint = (void *)0x200000000UL;
		} else if (!strcmp(argv[i], "wait"))
			wait_sig = 1;
	}

	if (wait_sig) {
		signal(SIGUSR1, on_usr1);
		printf("%d\n", getpid());
		fflush(stdout);
		while (!go)
			pause();
	}

	region = mmap(region_hint, REGION_PAGES * PAGE, PROT_NONE,
		      (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS |
		      (region_hint ? MAP_FIXED_NOREPLACE : 0), -1, 0);
	if (region == MAP_FAILED)
		die("region");

	open_dump();
	open_maps();
	if (!early)
		map_marker(marker_hint);
	while (next_func < NR_FUNCS)
		load_func();
	if (early)
		map_marker(marker_hint);

	if (forks) {
		child = fork();
		if (child < 0)
			die("fork");
		if (child == 0) {
			/* The child's own functions, in the inherited region */
			fclose(layout);
			fclose(perfmap);
			open_maps();
			if (forkdump) {
				fclose(dump);
				open_dump();
				map_marker(NULL);
			}
			while (next_func < 2 * NR_FUNCS)
				load_func();
			run(NR_FUNCS, NR_FUNCS, seconds);
			_exit(0);
		}
		run(0, NR_FUNCS, seconds);
		waitpid(child, NULL, 0);
		return 0;
	}
	run(0, NR_FUNCS, seconds);
	return 0;
}
EOF
if ! cc -O1 -o "${tmpdir}/jitwork" "${tmpdir}/jitwork.c"; then
	echo "skip: cannot build the JIT workload with cc"
	exit 2
fi

# $1: variant dir, $2: perf.data made by perf inject --jit, $3: what.
# Checks the classification of its samples.
check() {
	local jd_right jd_total pm_right pm_total wrong why=""

	perf script -i "$2" -F pid,ip,sym > "$1/script.out" 2> /dev/null
	read -r jd_right jd_total pm_right pm_total wrong <<< \
		"$(python3 "$classify" "$1/script.out" "$1"/layout-*)"
	if [ "${jd_total:-0}" -lt 100 ] || [ "${pm_total:-0}" -lt 20 ]; then
		why="too few samples (${jd_total:-0} jitdump, ${pm_total:-0} perf map)"
	elif [ $((jd_right * 100)) -lt $((jd_total * 95)) ]; then
		why="${jd_right} of ${jd_total} jitdump function samples named from the jitdump"
	elif [ $((pm_right * 100)) -lt $((pm_total * 95)) ]; then
		why="${pm_right} of ${pm_total} perf-map-only samples named from the perf map"
	elif [ "$wrong" -ne 0 ]; then
		why="${wrong} samples named after another function"
	fi
	echo "$3: jitdump ${jd_right}/${jd_total}, perf map ${pm_right}/${pm_total}, wrong ${wrong}"
	if [ -n "$why" ]; then
		echo "FAIL: $3: ${why}"
		err=1
	fi
}

# $1: variant name.  perf inject --jit on its perf.data, then check().
inject_and_check() {
	local dir="${tmpdir}/$1"

	if ! perf inject --jit -i "${dir}/perf.data" -o "${dir}/jit.data" \
		> "${dir}/inject.log" 2>&1; then
		echo "FAIL: $1: perf inject --jit failed: $(tail -1 "${dir}/inject.log")"
		err=1
		return
	fi
	check "$dir" "${dir}/jit.data" "$1"
}

# $1: variant name, then jitwork options.
run_variant() {
	local name=$1 dir="${tmpdir}/$1"

	shift
	mkdir -p "$dir"
	if ! perf record -q -k 1 -e cpu-clock -c 100000 -o "${dir}/perf.data" \
		-- "${tmpdir}/jitwork" "$dir" 1 "$@" > /dev/null 2>&1; then
		echo "FAIL: ${name}: cannot record the JIT workload"
		err=1
		return
	fi
	inject_and_check "$name"
}

# $1: variant name, then jitwork options.  perf record -p on the running
# workload: its maps are synthesized from /proc/PID/maps.
run_attach() {
	local name=$1 dir="${tmpdir}/$1" pid

	shift
	mkdir -p "$dir"
	"${tmpdir}/jitwork" "$dir" 3 wait "$@" > "${dir}/pid" &
	while [ ! -s "${dir}/pid" ]; do sleep 0.1; done
	read -r pid < "${dir}/pid"
	kill -USR1 "$pid"
	sleep 0.3
	perf record -q -k 1 -e cpu-clock -c 100000 -o "${dir}/perf.data" \
		-p "$pid" -- sleep 1 > /dev/null 2>&1
	wait
	inject_and_check "$name"
}

variants=${JIT_VARIANTS:-basic shared early attach-above attach-below fork forkdump pipe}
for v in $variants; do
	case $v in
	basic) run_variant basic;;
	shared|early|fork|forkdump) run_variant "$v" "$v";;
	attach-above) run_attach "$v" above;;
	attach-below) run_attach "$v" below;;
	pipe)
		dir="${tmpdir}/pipe"
		mkdir -p "$dir"
		perf record -q -k 1 -e cpu-clock -c 100000 -o - \
			-- "${tmpdir}/jitwork" "$dir" 1 2> /dev/null |
			perf inject --jit -o "${dir}/jit.data" 2> "${dir}/inject.log"
		check "$dir" "${dir}/jit.data" pipe;;
	*) echo "unknown variant $v"; err=1;;
	esac
done
exit $err
