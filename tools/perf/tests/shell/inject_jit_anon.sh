#!/bin/bash
# perf inject --jit resolves anonymous JIT code
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
#   memfd, file   the code region is a MAP_SHARED memfd, a file of its own
#                 (perf uses perf-PID.map for anonymous memory only: the
#                 perf-map-only functions are not checked)
#   early         the code records written before the marker is mapped
#   attach-above, attach-below
#                 perf record -p on the running JIT, the marker above or
#                 below the code (synthesized maps come in address order)
#   fork          a child loads its own code into the inherited region and
#                 jitdump; forkdump: into a jitdump of its own
#   remark        the marker mapped again: its code is injected once
#   overmap       a file mapped over a page of code once loaded: the
#                 samples there are the file's (no JIT name)
#   pipe          perf record -o - | perf inject --jit
#   nomap         the jitdump functions are not in the perf maps
#   exec          the JIT execs itself, the new image loads code of its own
# After early, attach-below, fork, nomap and exec, --jit --aslr: perf inject --jit
# --aslr (one pass) and perf inject --aslr on the --jit output must give
# every sample the name the sender sees after --jit alone, the
# perf-map-only functions included, the same perf report, and perf inject
# --aslr alone the names the sender sees of the recording; their outputs
# must hold no address of the recording (the leak checker).  As for a
# receiver, /tmp/perf-PID.map is hidden then.
#   reuse         the perf maps list other functions over the perf-map-only
#                 ones later (a JIT that reused their addresses): the
#                 receiver sees the names the sender's perf gives, after
#                 --jit --aslr and --aslr
#   archive       the receiver of --jit --aslr and of its perf archive, with
#                 a HOME of its own, sees what the sender sees
#   pipe-aslr     perf inject --jit --aslr and --aslr of a pipe recording:
#                 the names the sender sees after perf inject --jit of the
#                 pipe and of the recording
#   symfs         perf script --symfs DIR with the perf maps moved to
#                 DIR/tmp: the names perf script gives with them in /tmp
#                 (the receiver of perf inject --aslr --symfs DIR sees them)
#
# JIT_VARIANTS (space separated) selects variants; JIT_KEEP=1 keeps files.

set -u

shelldir=$(dirname "$0")
# setup_python.sh tests PYTHON, which may be unset (set -u)
PYTHON=${PYTHON:-}
# shellcheck source=lib/setup_python.sh
. "${shelldir}/lib/setup_python.sh"
classify="${shelldir}/lib/jit_classify.py"
audit="${shelldir}/lib/aslr_audit.py"

if [ "$(uname -m)" != x86_64 ]; then
	echo "skip: the JIT workload emits x86-64 code, this is $(uname -m)"
	exit 2
fi
if ! command -v cc > /dev/null; then
	echo "skip: no cc on this machine"
	exit 2
fi
if ! perf version --build-options | grep -q 'libelf: .*on'; then
	echo "skip: perf built without libelf (no --jit)"
	exit 2
fi
if ! perf record -q -o /dev/null -e cpu-clock -- true > /dev/null 2>&1; then
	echo "skip: perf record -e cpu-clock isn't permitted here"
	exit 2
fi

tmpdir=$(mktemp -d /tmp/perf-jit-anon.XXXXXX)
err=0
# A build-id cache of the test's own: --jit and --aslr add objects to it
export HOME="${tmpdir}/home"
mkdir -p "$HOME"

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
 *   jitwork DIR SECONDS [shared|memfd|file] [early] [fork|forkdump]
 *           [above|below] [remark] [overmap] [nomap] [exec] [wait]
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
 *   memfd:  the code region is a MAP_SHARED memfd
 *   file:   the code region is DIR/code.bin, MAP_SHARED
 *   early:  the code records are written before the marker is mapped
 *   fork:   a child made after the code is loaded loads its own functions
 *           into the inherited region and dump (written with its pid)
 *   forkdump: the same, but the child writes a dump of its own
 *   above|below: the marker at a fixed address above or below the code
 *   remark: the marker is mapped again after the code is loaded
 *   overmap: once loaded, the last page of code is replaced by a private
 *           mapping of DIR/over.bin, a copy of it: its functions are "ov"
 *           in the layout, no longer the JIT's
 *   nomap:  the functions in the jitdump are not in the perf map
 *   exec:   after SECONDS, the process execs itself, and the new image
 *           loads its own functions into a region of its own, writes them
 *           to a jitdump in DIR/exec and appends them to the perf map (as
 *           a JIT that appends to it does), and calls them for SECONDS
 *   wait:   print the pid and wait for SIGUSR1 before loading (perf
 *           record -p), then print "loaded" once the code is mapped
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
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NR_FUNCS	48
#define FUNC_SIZE	256
#define PAGE		4096
#define FUNCS_PER_PAGE	(PAGE / FUNC_SIZE)
#define REGION_PAGES	((2 * NR_FUNCS + FUNCS_PER_PAGE - 1) / FUNCS_PER_PAGE)
#define LAST_PAGE	((NR_FUNCS - 1) / FUNCS_PER_PAGE)

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
static int overmap, nomap;
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

static void open_dump(const char *in)
{
	struct jitheader h = {
		.magic = 0x4A695444, .version = 1, .total_size = sizeof(h),
		.elf_mach = EM_X86_64, .pid = getpid(), .timestamp = now(),
	};
	char path[4096];

	snprintf(path, sizeof(path), "%s/jit-%d.dump", in, getpid());
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

static void open_maps(const char *mode)
{
	char path[4096];

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", getpid());
	perfmap = fopen(path, mode);
	snprintf(path, sizeof(path), "%s/layout-%d", dir, getpid());
	layout = fopen(path, mode);
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
	if (!nomap || i % 8 == 7)
		fprintf(perfmap, "%lx %x pm_fn%u\n",
			(unsigned long)(uintptr_t)code, FUNC_SIZE, i);
	fflush(perfmap);
	fprintf(layout, "%u %lx %x %s\n", i, (unsigned long)(uintptr_t)code,
		FUNC_SIZE, overmap && i / FUNCS_PER_PAGE == LAST_PAGE ? "ov" :
		i % 8 != 7 ? "jd" : "pm");
	fflush(layout);

	if (i % FUNCS_PER_PAGE == FUNCS_PER_PAGE - 1 &&
	    mprotect(page, PAGE, PROT_READ | PROT_EXEC))
		die("mprotect rx");
}

/* A file mapped over freed JIT code: a copy of the last page of code */
static void map_over(void)
{
	unsigned char *page = region + LAST_PAGE * PAGE;
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/over.bin", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, page, PAGE) != PAGE)
		die(path);
	if (munmap(page, PAGE) ||
	    mmap(page, PAGE, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED,
		 fd, 0) == MAP_FAILED)
		die("over.bin");
	close(fd);
}

/* The region: anonymous memory, or a memfd or a file of its own */
static void *map_region(void *hint, int shared, const char *backing)
{
	size_t size = REGION_PAGES * PAGE;
	char path[4096];
	int fd = -1;
	void *p;

	if (backing && !strcmp(backing, "memfd")) {
		fd = memfd_create("jitcode", 0);
	} else if (backing) {
		snprintf(path, sizeof(path), "%s/code.bin", dir);
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	}
	if (backing && (fd < 0 || ftruncate(fd, size)))
		die("region backing");
	p = mmap(hint, size, PROT_NONE,
		 (shared || backing ? MAP_SHARED : MAP_PRIVATE) |
		 (backing ? 0 : MAP_ANONYMOUS) |
		 (hint ? MAP_FIXED_NOREPLACE : 0), fd, 0);
	if (p == MAP_FAILED)
		die("region");
	return p;
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
	int remark = 0, exec_after = 0, execd = 0;
	const char *backing = NULL;
	char path[4096];
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
		else if (!strcmp(argv[i], "memfd") || !strcmp(argv[i], "file"))
			backing = argv[i];
		else if (!strcmp(argv[i], "remark"))
			remark = 1;
		else if (!strcmp(argv[i], "overmap"))
			overmap = 1;
		else if (!strcmp(argv[i], "early"))
			early = 1;
		else if (!strcmp(argv[i], "fork"))
			forks = 1;
		else if (!strcmp(argv[i], "forkdump"))
			forks = forkdump = 1;
		else if (!strcmp(argv[i], "above")) {
			region_hint = (void *)0x3a5c1e000000UL;
			marker_hint = (void *)0x4b6d2f000000UL;
		} else if (!strcmp(argv[i], "below")) {
			marker_hint = (void *)0x3a5c1e000000UL;
			region_hint = (void *)0x4b6d2f000000UL;
		} else if (!strcmp(argv[i], "wait"))
			wait_sig = 1;
		else if (!strcmp(argv[i], "nomap"))
			nomap = 1;
		else if (!strcmp(argv[i], "exec"))
			exec_after = 1;
		else if (!strcmp(argv[i], "execd"))
			execd = 1;
	}

	if (wait_sig) {
		signal(SIGUSR1, on_usr1);
		printf("%d\n", getpid());
		fflush(stdout);
		alarm(30);	/* no signal: the test doesn't wait forever */
		while (!go)
			pause();
		alarm(0);
	}

	region = map_region(region_hint, shared, backing);

	if (execd) {
		/* The image exec'd by "exec": its own code and jitdump */
		snprintf(path, sizeof(path), "%s/exec", dir);
		if (mkdir(path, 0755))
			die(path);
		open_dump(path);
		open_maps("a");
		map_marker(NULL);
		next_func = NR_FUNCS;
		while (next_func < 2 * NR_FUNCS)
			load_func();
		run(NR_FUNCS, NR_FUNCS, seconds);
		return 0;
	}
	open_dump(dir);
	open_maps("w");
	if (!early)
		map_marker(marker_hint);
	while (next_func < NR_FUNCS)
		load_func();
	if (early || remark)
		map_marker(early ? marker_hint : NULL);
	if (overmap)
		map_over();
	if (wait_sig) {
		printf("loaded\n");
		fflush(stdout);
	}

	if (forks) {
		child = fork();
		if (child < 0)
			die("fork");
		if (child == 0) {
			/* The child's own functions, in the inherited region */
			fclose(layout);
			fclose(perfmap);
			open_maps("w");
			if (forkdump) {
				fclose(dump);
				open_dump(dir);
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
	if (exec_after) {
		for (int i = 3; i < argc; i++)
			if (!strcmp(argv[i], "exec"))
				argv[i] = "execd";
		execv("/proc/self/exe", argv);
		die("exec");
	}
	return 0;
}
EOF
if ! cc -O1 -o "${tmpdir}/jitwork" "${tmpdir}/jitwork.c"; then
	echo "FAIL: the JIT workload does not build"
	exit 1
fi

# $1: variant dir, $2: perf.data made by perf inject --jit, $3: what.
# Checks the classification of its samples.
check() {
	local jd_right jd_total pm_right pm_total wrong ov_right ov_total why=""
	local ov="" pm_min=20

	# perf reads /tmp/perf-PID.map for anonymous memory only
	case $3 in memfd|file) pm_min=0;; esac

	perf script -i "$2" -F pid,ip,sym > "$1/script.out" 2> /dev/null
	read -r jd_right jd_total pm_right pm_total wrong ov_right ov_total <<< \
		"$("${PYTHON}" "$classify" "$1/script.out" "$1"/layout-*)"
	if [ "${jd_total:-0}" -lt 100 ] || [ "${pm_total:-0}" -lt "$pm_min" ]; then
		why="too few samples (${jd_total:-0} jitdump, ${pm_total:-0} perf map)"
	elif [ $((jd_right * 100)) -lt $((jd_total * 95)) ]; then
		why="${jd_right} of ${jd_total} jitdump function samples named from the jitdump"
	elif [ "$pm_min" -gt 0 ] && [ $((pm_right * 100)) -lt $((pm_total * 95)) ]; then
		why="${pm_right} of ${pm_total} perf-map-only samples named from the perf map"
	elif [ "$wrong" -ne 0 ]; then
		why="${wrong} samples named after another function"
	elif [ $((ov_right * 100)) -lt $((ov_total * 95)) ]; then
		why="$((ov_total - ov_right)) samples of code mapped over named as the JIT's"
	elif [ "$3" = overmap ] && [ "$ov_total" -lt 20 ]; then
		why="too few samples (${ov_total}) in the code mapped over"
	fi
	[ "$ov_total" -eq 0 ] || ov=", mapped over ${ov_right}/${ov_total}"
	echo "$3: jitdump ${jd_right}/${jd_total}," \
		"perf map ${pm_right}/${pm_total}, wrong ${wrong}${ov}"
	if [ -n "$why" ]; then
		echo "FAIL: $3: ${why}"
		err=1
	fi
}

# $1: variant name.  perf inject --jit on its perf.data, then check().
# Fails (and sets err) if there is no jit.data.
inject_and_check() {
	local dir="${tmpdir}/$1"

	if ! perf inject --jit -i "${dir}/perf.data" -o "${dir}/jit.data" \
		> "${dir}/inject.log" 2>&1; then
		echo "FAIL: $1: perf inject --jit failed: $(tail -1 "${dir}/inject.log")"
		err=1
		return 1
	fi
	check "$dir" "${dir}/jit.data" "$1"
}

# $1: variant dir.  Moves the perf maps of its processes into it (-h) or
# back (-s), as they are not shared with a perf.data file.
perf_maps() {
	local f pid

	for f in "$2"/layout-*; do
		pid=${f##*layout-}
		if [ "$1" = -h ]; then
			mv "/tmp/perf-${pid}.map" "$2/" 2> /dev/null
		else
			mv -n "$2/perf-${pid}.map" /tmp/ 2> /dev/null	# not over another
		fi
	done
}

# $1: variant dir, $2, $3: perf script -F pid,ip,sym of two perf.data files
# as "pid sym" lines, the sender's and the receiver's, $4: what.  Each
# sample must have the name the sender sees (jd_fnN, pm_fnN), but for a few
# at the edges of the code of a function.
same_names() {
	local jd jd_total pm pm_total wrong

	read -r jd jd_total pm pm_total wrong <<< "$(paste -d ' ' "$2" "$3" |
		awk '$2 ~ /^jd_fn/ { jd_total++; if ($2 == $4) jd++ }
		     $2 ~ /^(pm|re)_fn/ { pm_total++; if ($2 == $4) pm++ }
		     $4 ~ /^(jd|pm|re)_fn/ && $2 != $4 { wrong++ }
		     END { print jd + 0, jd_total + 0, pm + 0, pm_total + 0, wrong + 0 }')"
	echo "$4: jitdump ${jd}/${jd_total}, perf map ${pm}/${pm_total}, wrong ${wrong}"
	if [ $((jd_total + pm_total)) -lt 100 ] || [ "$pm_total" -lt 20 ] ||
	   [ $((jd * 100)) -lt $((jd_total * 95)) ] ||
	   [ $((pm * 100)) -lt $((pm_total * 95)) ] || [ "$wrong" -ne 0 ]; then
		echo "FAIL: $4: samples named differently than by the sender"
		err=1
	fi
}

# $1: perf.data, $2: output: its samples as "pid sym" lines.
names() {
	perf script -i "$1" -F pid,ip,sym 2> /dev/null | awk '{ print $1, $3 }' > "$2"
}

# $1: what, $2: a recording, then outputs made of it: the leak checker
# finds no address of the recording in each.
no_leak() {
	local what=$1 rec=$2 f

	shift 2
	for f in "$@"; do
		if ! "${PYTHON}" "$audit" -q "$rec" "$f" > "${tmpdir}/audit.log" 2>&1; then
			echo "FAIL: ${what}: addresses of the recording left in" \
				"$(basename "$f"): $(tail -n1 "${tmpdir}/audit.log")"
			err=1
		fi
	done
}

# $1: variant name, its jit.data made.  perf inject --jit --aslr in one
# pass and in two, and perf inject --aslr alone, seen by a receiver who has
# no perf-PID.map, compared with what the sender sees of perf inject --jit
# and of the recording.
aslr_check() {
	local dir="${tmpdir}/$1" f

	if ! perf inject --jit --aslr -i "${dir}/perf.data" -o "${dir}/aslr1.data" \
		> "${dir}/aslr1.log" 2>&1 ||
	   ! perf inject --aslr -i "${dir}/jit.data" -o "${dir}/aslr2.data" \
		> "${dir}/aslr2.log" 2>&1 ||
	   ! perf inject --aslr -i "${dir}/perf.data" -o "${dir}/aslr3.data" \
		> "${dir}/aslr3.log" 2>&1; then
		echo "FAIL: $1 --aslr: perf inject failed: $(tail -qn1 "${dir}"/aslr?.log)"
		err=1
		return
	fi
	names "${dir}/jit.data" "${dir}/jit.syms"
	names "${dir}/perf.data" "${dir}/perf.syms"
	perf_maps -h "$dir"
	for f in aslr1 aslr2 aslr3; do
		names "${dir}/${f}.data" "${dir}/${f}.syms"
		# Code without a symbol is shown by its (canonical) address
		perf report -i "${dir}/${f}.data" --stdio -q --sort dso,sym 2> /dev/null |
			sed 's/0x[0-9a-f]*/ADDR/' | sort > "${dir}/${f}.report"
	done
	perf_maps -s "$dir"
	same_names "$dir" "${dir}/jit.syms" "${dir}/aslr1.syms" "$1 --jit --aslr"
	same_names "$dir" "${dir}/perf.syms" "${dir}/aslr3.syms" "$1 --aslr"
	if ! cmp -s "${dir}/aslr1.report" "${dir}/aslr2.report"; then
		echo "FAIL: $1 --aslr: perf inject --jit --aslr and --jit then --aslr differ:"
		diff "${dir}/aslr1.report" "${dir}/aslr2.report" | head -n 10
		err=1
	fi
	no_leak "$1 --aslr" "${dir}/perf.data" "${dir}/aslr1.data" "${dir}/aslr3.data"
}

# The receiver of a perf inject --jit --aslr output and of its perf
# archive, on a machine of their own (a HOME of their own, no perf-PID.map,
# not the sender's build-id cache), sees what the sender sees.
run_archive() {
	local dir="${tmpdir}/archive" cache
	local archive="${shelldir}/../../perf-archive.sh"

	cache="${dir}/sender/.debug"
	mkdir -p "$cache" "${dir}/receiver/.debug"
	if ! perf --buildid-dir "$cache" record -q -k 1 -e cpu-clock -c 100000 \
		-o "${dir}/perf.data" -- "${tmpdir}/jitwork" "$dir" 1 early > /dev/null 2>&1 ||
	   ! perf --buildid-dir "$cache" inject --jit -i "${dir}/perf.data" \
		-o "${dir}/jit.data" > "${dir}/inject.log" 2>&1 ||
	   ! perf --buildid-dir "$cache" inject --jit --aslr -i "${dir}/perf.data" \
		-o "${dir}/share.data" >> "${dir}/inject.log" 2>&1; then
		echo "FAIL: archive: cannot record or inject: $(tail -n1 "${dir}/inject.log")"
		err=1
		return
	fi
	names "${dir}/jit.data" "${dir}/jit.syms"
	if ! PERF_BUILDID_DIR="$cache" bash "$archive" "${dir}/share.data" \
		> "${dir}/archive.log" 2>&1 ||
	   ! tar xjf "${dir}/share.data.tar.bz2" -C "${dir}/receiver/.debug"; then
		echo "FAIL: archive: perf archive failed: $(tail -n1 "${dir}/archive.log")"
		err=1
		return
	fi
	rm -rf "${dir}/sender"
	perf_maps -h "$dir"
	HOME="${dir}/receiver" names "${dir}/share.data" "${dir}/receiver.syms"
	perf_maps -s "$dir"
	same_names "$dir" "${dir}/jit.syms" "${dir}/receiver.syms" "archive"
}

# perf inject --jit --aslr and perf inject --aslr reading a pipe recording,
# seen by a receiver without the perf maps, compared with what the sender
# sees of perf inject --jit reading it and of the recording.
run_pipe_aslr() {
	local dir="${tmpdir}/pipe-aslr" f

	mkdir -p "$dir"
	if ! perf record -q -k 1 -e cpu-clock -c 100000 -o - \
		-- "${tmpdir}/jitwork" "$dir" 1 > "${dir}/pipe.data" 2> /dev/null ||
	   ! perf inject --jit -i - -o "${dir}/jit.data" < "${dir}/pipe.data" \
		> "${dir}/inject.log" 2>&1 ||
	   ! perf inject --jit --aslr -i - -o "${dir}/aslr1.data" \
		< "${dir}/pipe.data" >> "${dir}/inject.log" 2>&1 ||
	   ! perf inject --aslr -i - -o "${dir}/aslr3.data" \
		< "${dir}/pipe.data" >> "${dir}/inject.log" 2>&1; then
		echo "FAIL: pipe-aslr: cannot record or inject: $(tail -n1 "${dir}/inject.log")"
		err=1
		return
	fi
	names "${dir}/jit.data" "${dir}/jit.syms"
	names "${dir}/pipe.data" "${dir}/perf.syms"
	perf_maps -h "$dir"
	for f in aslr1 aslr3; do
		names "${dir}/${f}.data" "${dir}/${f}.syms"
	done
	perf_maps -s "$dir"
	same_names "$dir" "${dir}/jit.syms" "${dir}/aslr1.syms" "pipe-aslr --jit --aslr"
	same_names "$dir" "${dir}/perf.syms" "${dir}/aslr3.syms" "pipe-aslr --aslr"
	no_leak pipe-aslr "${dir}/pipe.data" "${dir}/aslr1.data" "${dir}/aslr3.data"
}

# perf script --symfs DIR reads the perf maps in DIR/tmp; without them the
# perf-map-only functions have no name.
# perf inject --aslr --symfs DIR writes the objects of what they have.
run_symfs() {
	local dir="${tmpdir}/symfs" f pid

	run_variant symfs || return
	names "${dir}/perf.data" "${dir}/perf.syms"
	mkdir -p "${dir}/root/tmp"
	for f in "${dir}"/layout-*; do
		pid=${f##*layout-}
		mv "/tmp/perf-${pid}.map" "${dir}/root/tmp/"
	done
	perf script --symfs "${dir}/root" -i "${dir}/perf.data" -F pid,ip,sym 2> /dev/null |
		awk '{ print $1, $3 }' > "${dir}/symfs.syms"
	names "${dir}/perf.data" "${dir}/hidden.syms"
	if perf inject --aslr --symfs "${dir}/root" -i "${dir}/perf.data" \
		-o "${dir}/aslr3.data" > "${dir}/aslr3.log" 2>&1; then
		names "${dir}/aslr3.data" "${dir}/aslr3.syms"
		no_leak "symfs --aslr" "${dir}/perf.data" "${dir}/aslr3.data"
		same_names "$dir" "${dir}/perf.syms" "${dir}/aslr3.syms" "symfs --aslr"
	else
		echo "FAIL: symfs: perf inject --aslr --symfs: $(tail -n1 "${dir}/aslr3.log")"
		err=1
	fi
	mv -n "${dir}"/root/tmp/perf-*.map /tmp/
	same_names "$dir" "${dir}/perf.syms" "${dir}/symfs.syms" "symfs perf script"
	if [ ! -s "${dir}/hidden.syms" ]; then
		echo "FAIL: symfs: perf script shows nothing without the perf maps"
		err=1
	elif grep -q ' pm_fn' "${dir}/hidden.syms"; then
		echo "FAIL: symfs: perf-map names without the perf maps"
		err=1
	fi
}

# $1: variant name, its perf.data and jit.data made.  Its JIT is taken to
# have put other functions over the perf-map-only ones later, as a JIT that
# frees code and reuses the address does: the perf maps list them after the
# others, one in two at the same place and of the same size, the others
# from 4 bytes into the function and 8 bytes long, over the loop that takes
# the samples.  The object --aslr writes of the perf map must resolve each
# address to the function perf finds there in the map (perf 6.12 finds the
# first listed), not to what an object of all the map's symbols would.
reuse_map() {
	local f pid n start kind

	for f in "${tmpdir}/$1"/layout-*; do
		pid=${f##*layout-}
		while read -r n start _ kind; do
			[ "$kind" = pm ] || continue
			if [ $((n % 16)) = 7 ]; then
				printf '%s 100 re_fn%d_again\n' "$start" "$n"
			else
				printf '%x 8 re_fn%d\n' $((0x$start + 4)) "$n"
			fi
		done < "$f" >> "/tmp/perf-${pid}.map"
	done
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
		return 1
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
	# at most 10 s for it to start; it waits 30 s at most for the signal
	for _ in $(seq 100); do
		if [ -s "${dir}/pid" ] || ! kill -0 $! 2> /dev/null; then
			break
		fi
		sleep 0.1
	done
	if [ ! -s "${dir}/pid" ]; then
		echo "FAIL: ${name}: the JIT workload didn't start"
		err=1
		kill $! 2> /dev/null
		wait
		return
	fi
	read -r pid < "${dir}/pid"
	kill -USR1 "$pid"
	# at most 10 s for it to map its code, which perf record -p must see
	for _ in $(seq 100); do
		if grep -q loaded "${dir}/pid" || ! kill -0 "$pid" 2> /dev/null; then
			break
		fi
		sleep 0.1
	done
	if ! grep -q loaded "${dir}/pid"; then
		echo "FAIL: ${name}: the JIT workload didn't load its code"
		err=1
		kill "$pid" 2> /dev/null
		wait
		return
	fi
	perf record -q -k 1 -e cpu-clock -c 100000 -o "${dir}/perf.data" \
		-p "$pid" -- sleep 1 > /dev/null 2>&1
	wait
	inject_and_check "$name"
}

# A jitdump whose header is corrupt: perf inject --jit fails, says why and
# leaves no output.
run_corrupt() {
	local dir="${tmpdir}/corrupt" dump
	local ret

	mkdir -p "$dir"
	if ! perf record -q -k 1 -e cpu-clock -c 100000 -o "${dir}/perf.data" \
		-- "${tmpdir}/jitwork" "$dir" 1 > /dev/null 2>&1; then
		echo "FAIL: corrupt: cannot record the JIT workload"
		err=1
		return
	fi
	dump=$(ls "${dir}"/jit-*.dump)
	cp "${dump}" "${dir}/dump.orig"
	printf 'XXXX' | dd of="${dump}" conv=notrunc status=none
	if perf inject --jit -i "${dir}/perf.data" -o "${dir}/jit.data" \
		> "${dir}/inject.log" 2>&1; then
		echo "FAIL: corrupt: perf inject --jit accepted a corrupt jitdump"
		err=1
	elif ! grep -q "${dump}: not a jitdump file" "${dir}/inject.log"; then
		echo "FAIL: corrupt: no clear error: $(tail -1 "${dir}/inject.log")"
		err=1
	elif ls "${dir}"/jit.data* > /dev/null 2>&1; then
		echo "FAIL: corrupt: output left behind"
		err=1
	else
		echo "corrupt: refused, no output"
	fi
	# The first code load (JIT_CODE_LOAD, 0) says its code is 4 GB.
	cp "${dir}/dump.orig" "${dump}"
	"${PYTHON}" -c '
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
off = struct.unpack_from("<I", d, 8)[0]
while struct.unpack_from("<I", d, off)[0] != 0:
	off += struct.unpack_from("<I", d, off + 4)[0]
struct.pack_into("<Q", d, off + 40, 0xffffffff)
open(sys.argv[1], "wb").write(d)' "${dump}"
	ret=0
	perf inject --jit -i "${dir}/perf.data" -o "${dir}/jit.data" \
		> "${dir}/inject.log" 2>&1 || ret=$?
	if [ "${ret}" -gt 128 ] && [ "${ret}" -lt 160 ]; then
		echo "FAIL: corrupt: perf inject --jit died of signal $((ret - 128))"
		err=1
	elif ! grep -q "jitdump: a record of type 0 .* is shorter than its name and code" \
		"${dir}/inject.log"; then
		echo "FAIL: corrupt: code load of 4 GB not reported: $(tail -1 "${dir}/inject.log")"
		err=1
	else
		echo "corrupt: code load of 4 GB reported"
	fi
}

# $1: variant name.  Its jitdump markers were each injected once.
injected_once() {
	local dir="${tmpdir}/$1" injected loads

	injected=$(perf script -i "${dir}/jit.data" --show-mmap-events 2> /dev/null |
		grep -c 'PERF_RECORD_MMAP2.*/jitted-')
	loads=$(cat "${dir}"/layout-* | grep -c ' jd$')
	echo "$1: ${injected} mmaps of jitted code injected for ${loads} loads"
	if [ "$injected" -ne "$loads" ]; then
		echo "FAIL: $1: the code of the marker mapped twice injected again"
		err=1
	fi
}

all="basic shared memfd file early attach-above attach-below fork forkdump"
all="$all remark overmap pipe"
all="$all corrupt"
all="$all reuse archive nomap exec pipe-aslr"
all="$all symfs"
variants=${JIT_VARIANTS:-$all}
for v in $variants; do
	case $v in
	basic) run_variant basic;;
	shared|memfd|file|forkdump|overmap) run_variant "$v" "$v";;
	remark) run_variant "$v" "$v" && injected_once "$v";;
	early|fork|nomap|exec) run_variant "$v" "$v" && aslr_check "$v";;
	reuse) run_variant "$v" && reuse_map "$v" && aslr_check "$v";;
	attach-above) run_attach "$v" above;;
	attach-below) run_attach "$v" below && aslr_check "$v";;
	corrupt) run_corrupt;;
	archive) run_archive;;
	pipe-aslr) run_pipe_aslr;;
	symfs) run_symfs;;
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
