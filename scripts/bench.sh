#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Compare the cost of perf inject --aslr with the runs without it.
#
# Usage: bench.sh [SIZE_MB ...]        (default: 250 500)
#
# For each size, records a system wide profile (perf record -e cpu-clock
# -c 20000 -g -a) of a multi-process, multi-threaded, mmap-heavy workload
# (BENCH_WORKLOAD=fork, the default: its mappings grow with the size), or
# a profile of one multi-threaded process with a few dozen mappings
# (BENCH_WORKLOAD=steady, perf record -e cpu-clock -c 20000 -g: what grows
# with the size is the samples only), or of that process with DWARF call
# graphs (BENCH_WORKLOAD=dwarf, --call-graph dwarf: --aslr unwinds the user
# stacks, timed against perf report -g, which unwinds the same ones) until
# perf.data is at least SIZE_MB, then times:
#   perf inject, perf inject -b, perf inject --aslr --no-aslr-verify,
#   perf inject --aslr
# reporting wall time, CPU time (user + system), MB/s of input and peak
# anonymous RSS (peak-anon-rss.py: GNU time's %M would count the pages of
# the mmap'd input).  Each run is compared with the plain perf inject, the
# cheapest way to do the same job, in wall and in CPU time (the latter is
# less disturbed by other load), --aslr with --aslr --no-aslr-verify (the
# cost of the check of the output), and at the end the RSS of each run at
# the largest size with the one at the smallest.
#
# Environment: BENCH_PERF (perf binary, default: build/perf/perf), BENCH_DIR
# (work directory, default: a new /tmp/aslr-bench.XXXXXX, removed at the end
# unless KEEP=1), RUNS (runs per measurement, the fastest is kept, default 1).
# `make -f Makefile.series bench` runs it; BENCH_SIZES="250 500" there.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

PERF=${BENCH_PERF:-$PERF}
RUNS=${RUNS:-1}
WORKLOAD=${BENCH_WORKLOAD:-fork}
case "${WORKLOAD}" in
fork|steady) runs=("" "-b" "--aslr --no-aslr-verify" "--aslr") ;;
dwarf) runs=("" "--aslr" "report -g") ;;
*) die "BENCH_WORKLOAD: fork, steady or dwarf" ;;
esac
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(250 500)

measure_run=$(dirname "$0")/peak-anon-rss.py

dir=${BENCH_DIR:-$(mktemp -d /tmp/aslr-bench.XXXXXX)}
mkdir -p "${dir}"
workload_pids=()

cleanup() {
	local p

	for p in "${workload_pids[@]}"; do
		kill "${p}" 2> /dev/null || true
	done
	wait 2> /dev/null || true
	if [ -z "${KEEP:-}" ] && [ -z "${BENCH_DIR:-}" ]; then
		rm -rf "${dir}"
	fi
}
trap cleanup EXIT

# A workload that keeps creating processes, threads and executable mappings:
# every mmap of a file with PROT_EXEC is a MMAP2 record.
build_workload() {
	cat > "${dir}/load.c" <<'EOF'
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *files[] = { "/bin/sh", "/bin/ls", "/bin/cat", "/bin/true" };

static void *thread(void *arg)
{
	long n = (long)arg, i;
	volatile unsigned long sum = 0;

	for (i = 0; i < 20; i++) {
		int fd = open(files[(n + i) % 4], O_RDONLY);
		void *p;

		if (fd < 0)
			continue;
		p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		close(fd);
		if (p != MAP_FAILED) {
			sum += *(volatile char *)p;
			munmap(p, 4096);
		}
		for (long j = 0; j < 200000; j++)
			sum += j * n;
	}
	return NULL;
}

int main(void)
{
	for (;;) {
		pid_t pid = fork();

		if (pid == 0) {
			pthread_t t[4];
			long i;

			for (i = 0; i < 4; i++)
				pthread_create(&t[i], NULL, thread, (void *)i);
			for (i = 0; i < 4; i++)
				pthread_join(t[i], NULL);
			/* and a few short lived processes with their own libs */
			if (fork() == 0) {
				execl("/bin/true", "true", NULL);
				_exit(1);
			}
			wait(NULL);
			_exit(0);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
}
EOF
	cc -O1 -pthread -o "${dir}/load" "${dir}/load.c"
	# Threads calling down a few levels and spinning, nothing mapped.
	cat > "${dir}/steady.c" <<'EOF'
#include <pthread.h>

static volatile unsigned long sink;

static void __attribute__((noinline)) spin(int depth)
{
	if (depth) {
		spin(depth - 1);
		sink++;
		return;
	}
	for (int i = 0; i < 100000; i++)
		sink += i;
}

static void *thread(void *arg)
{
	for (long n = (long)arg;; n++)
		spin(4 + n % 8);
	return NULL;
}

int main(void)
{
	pthread_t t[4];

	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, thread, (void *)i);
	pthread_join(t[0], NULL);
	return 0;
}
EOF
	cc -O1 -fno-omit-frame-pointer -pthread -o "${dir}/steady" "${dir}/steady.c"
}

start_workload() {
	for _ in 1 2 3; do
		"${dir}/load" &
		workload_pids+=($!)
	done
}

stop_workload() {
	local p

	for p in "${workload_pids[@]}"; do
		kill "${p}" 2> /dev/null || true
	done
	wait "${workload_pids[@]}" 2> /dev/null || true
	workload_pids=()
}

# record SIZE_MB FILE
record() {
	local mb=$1 file=$2 rec

	if [ "${WORKLOAD}" = steady ]; then
		"${PERF}" record -q -e cpu-clock -c 20000 -g -o "${file}" -- "${dir}/steady" \
			> /dev/null 2>&1 &
	elif [ "${WORKLOAD}" = dwarf ]; then
		"${PERF}" record -q -e cpu-clock -c 200000 --call-graph dwarf,4096 -o "${file}" \
			-- "${dir}/steady" > /dev/null 2>&1 &
	else
		start_workload
		"${PERF}" record -q -e cpu-clock -c 20000 -g -a -o "${file}" > /dev/null 2>&1 &
	fi
	rec=$!
	while [ "$(stat -c %s "${file}" 2> /dev/null || echo 0)" -lt $((mb * 1024 * 1024)) ]; do
		sleep 0.5
	done
	kill -INT "${rec}"
	wait "${rec}" || true
	stop_workload
}

# measure FILE OPTIONS... -> prints "wall_s rss_kb cpu_s", fastest of RUNS
# (of perf inject OPTIONS, or of perf report -g --stdio if they are "report")
measure() {
	local file=$1 best="" r line cmd

	shift
	if [ "${1:-}" = report ]; then
		cmd=("${PERF}" report -g --stdio -i "${file}")
	else
		cmd=("${PERF}" inject "$@" -i "${file}" -o "${dir}/out.data")
	fi
	for ((r = 0; r < RUNS; r++)); do
		# Not with the writeback of what an earlier run wrote.
		sync
		"${measure_run}" -o "${dir}/time.txt" "${cmd[@]}" > /dev/null 2> "${dir}/inject.err" ||
			{ echo "${cmd[*]} failed:" >&2; cat "${dir}/inject.err" >&2; exit 1; }
		line=$(awk '{ print $1, $3, $2 }' "${dir}/time.txt")
		rm -f "${dir}/out.data"
		if [ -z "${best}" ] || awk -v a="${line%% *}" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
			best=${line}
		fi
	done
	echo "${best}"
}

build_workload

printf "%-8s %-10s %-24s %8s %8s %7s %9s %10s %10s\n" \
	"size" "records" "options" "wall(s)" "cpu(s)" "MB/s" "anon(MB)" "wall/plain" "cpu/plain"
declare -A rss_first=() rss_last=()
for mb in "${sizes[@]}"; do
	file="${dir}/perf-${mb}.data"
	[ "${WORKLOAD}" = fork ] || file="${dir}/perf-${WORKLOAD}-${mb}.data"
	# KEEP=1 BENCH_DIR=... reuses the recordings of a previous run
	[ -s "${file}" ] || record "${mb}" "${file}"
	size=$(stat -c %s "${file}")
	nr=$("${PERF}" report -i "${file}" --stats 2> /dev/null | awk '/TOTAL events:/ { print $3 }')
	declare -A wall=() cpu=()
	for opts in "${runs[@]}"; do
		# shellcheck disable=SC2086
		read -r t rss c < <(measure "${file}" ${opts})
		wall["x${opts}"]=${t}
		cpu["x${opts}"]=${c}
		[ -n "${rss_first[x${opts}]:-}" ] || rss_first["x${opts}"]=${rss}
		rss_last["x${opts}"]=${rss}
		printf "%-8s %-10s %-24s %8.2f %8.2f %7.1f %9.1f %10s %10s\n" \
			"$((size / 1024 / 1024))MB" "${nr}" "${opts:-(none)}" "${t}" "${c}" \
			"$(awk -v s="${size}" -v t="${t}" 'BEGIN { print s / 1048576 / (t > 0 ? t : 0.01) }')" \
			"$(awk -v r="${rss}" 'BEGIN { print r / 1024 }')" \
			"$(awk -v a="${t}" -v b="${wall[x]}" 'BEGIN { printf "%.2fx", a / (b > 0 ? b : 0.01) }')" \
			"$(awk -v a="${c}" -v b="${cpu[x]}" 'BEGIN { printf "%.2fx", a / (b > 0 ? b : 0.01) }')"
	done
	if [ "${WORKLOAD}" = dwarf ]; then
		awk -v a="${wall[x--aslr]}" -v b="${wall[xreport -g]}" \
		    -v c="${cpu[x--aslr]}" -v d="${cpu[xreport -g]}" \
		    'BEGIN { printf "%-8s --aslr / perf report -g (both unwind): %.2fx wall, %.2fx cpu\n", "", a / b, c / d }'
	else
		awk -v a="${wall[x--aslr]}" -v b="${wall[x--aslr --no-aslr-verify]}" \
		    -v c="${cpu[x--aslr]}" -v d="${cpu[x--aslr --no-aslr-verify]}" \
		    'BEGIN { printf "%-8s the check of the output (--aslr-verify): %.2fx wall, %.2fx cpu\n", "", a / b, c / d }'
	fi
	unset wall cpu
	[ -n "${KEEP:-}" ] || rm -f "${file}"
done
if [ ${#sizes[@]} -gt 1 ]; then
	for opts in "${runs[@]}"; do
		awk -v a="${rss_last[x${opts}]}" -v b="${rss_first[x${opts}]}" -v o="${opts:-(none)}" \
		    -v s="${sizes[-1]}/${sizes[0]} MB" \
		    'BEGIN { printf "anonymous RSS at %s, %-24s %.2fx\n", s, o ":", a / (b > 0 ? b : 1) }'
	done
fi
