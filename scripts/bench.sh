#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Compare the cost of perf inject --aslr with the runs without it.
#
# Usage: bench.sh [SIZE_MB ...]        (default: 250 500)
#
# For each workload of BENCH_WORKLOADS (default: all four) and each size,
# records a profile until perf.data is at least SIZE_MB, then times perf
# inject on it with and without --aslr:
#   fork    perf record -e cpu-clock -c 20000 -g -a of processes that keep
#           forking, threading and mapping files (the mappings grow with the
#           size): perf inject, -b, --aslr --no-aslr-verify, --aslr,
#           --aslr --redact=all
#   steady  perf record -e cpu-clock -c 20000 -g of one process of 4 threads
#           and a few dozen mappings (only the samples grow): the same runs
#   jit     perf record -k 1 -e cpu-clock -c 20000 -g of the JIT of the
#           --jit test (code in a jitdump and in /tmp/perf-PID.map):
#           perf inject, --jit, --jit --aslr
#   dwarf   the steady process with --call-graph dwarf: perf inject,
#           --aslr (which unwinds the user stacks) and perf report -g
#           --stdio (which unwinds the same ones)
# Beside them, on each file: `cat FILE > /dev/null`, the floor (reading the
# file from the page cache and nothing else), and the plain perf inject of
# pristine perf (build-pristine.sh).  Each run gives wall time, CPU time
# (user + system), MB/s of input, its write system calls and the KiB of
# output each wrote, peak anonymous RSS (peak-anon-rss.py: GNU time's %M
# would count the pages of the mmap'd input), and its ratio to the plain
# perf inject of the same file, the cheapest way to do the same job (CPU
# time is less disturbed by other load), to that of pristine perf and to
# cat.  Then the cost of the check of the output (--aslr against
# --aslr --no-aslr-verify), --redact=all against --aslr, --jit --aslr
# against --jit, --aslr against perf report -g, and for each run the RSS
# at the largest size over the one at the smallest.  The runs of a file are interleaved, RUNS rounds of
# all of them, and the fastest of each is kept: what slows the machine down
# for a while slows each run alike.
#
# Environment: BENCH_PERF (perf binary, default: build/perf/perf),
# BENCH_PRISTINE (pristine perf, default: built into build/pristine), BENCH_DIR
# (work directory, default: a new /tmp/aslr-bench.XXXXXX, removed at the end
# unless KEEP=1; KEEP=1 BENCH_DIR=... keeps the recordings for the next
# run), RUNS (rounds, default 3), BENCH_WORKLOADS (default "fork steady jit
# dwarf").  `make -f Makefile.series bench` runs it; BENCH_SIZES="250 500".

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

PERF=${BENCH_PERF:-$PERF}
if [ -z "${BENCH_PRISTINE:-}" ]; then
	"$(dirname "$0")/build-pristine.sh" > /dev/null
	BENCH_PRISTINE=$PRISTINE_OUT/perf
fi
RUNS=${RUNS:-3}
read -r -a workloads <<< "${BENCH_WORKLOADS:-fork steady jit dwarf}"
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(250 500)

measure_run=$(dirname "$0")/peak-anon-rss.py
jit_test=$TOP/tools/perf/tests/shell/inject_jit_anon.sh

dir=${BENCH_DIR:-$(mktemp -d /tmp/aslr-bench.XXXXXX)}
mkdir -p "${dir}"
workload_pids=()

cleanup() {
	local p

	for p in "${workload_pids[@]}"; do
		kill "${p}" 2> /dev/null || true
	done
	wait 2> /dev/null || true
	# The perf-PID.map files of the JIT
	for f in "${dir}"/jit/layout-*; do
		[ -e "${f}" ] && rm -f "/tmp/perf-${f##*layout-}.map"
	done
	if [ -z "${KEEP:-}" ] && [ -z "${BENCH_DIR:-}" ]; then
		rm -rf "${dir}"
	fi
}
trap cleanup EXIT

# The runs of a workload: perf inject options, or "report" for perf report -g.
runs_of() {
	case "$1" in
	fork | steady) runs=(cat pristine "" "-b" "--aslr --no-aslr-verify" "--aslr"
			     "--aslr --redact=all") ;;
	jit) runs=(cat pristine "" "--jit" "--jit --aslr") ;;
	dwarf) runs=(cat pristine "" "--aslr" "report") ;;
	*) die "BENCH_WORKLOADS: fork, steady, jit or dwarf, not $1" ;;
	esac
}

# fork: a workload that keeps creating processes, threads and executable
# mappings (every mmap of a file with PROT_EXEC is a MMAP2 record); steady:
# threads calling down a few levels and spinning, nothing mapped; jitwork:
# the JIT of the --jit test.
build_workloads() {
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
	sed -n "/^cat > \"\${tmpdir}\/jitwork.c\" << 'EOF'$/,/^EOF$/p" "${jit_test}" |
		sed '1d;$d' > "${dir}/jitwork.c"
	cc -O1 -o "${dir}/jitwork" "${dir}/jitwork.c"
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

# record WORKLOAD SIZE_MB FILE
record() {
	local workload=$1 mb=$2 file=$3 rec

	case "${workload}" in
	fork)
		start_workload
		"${PERF}" record -q -e cpu-clock -c 20000 -g -a -o "${file}" > /dev/null 2>&1 &
		;;
	steady)
		"${PERF}" record -q -e cpu-clock -c 20000 -g -o "${file}" -- "${dir}/steady" \
			> /dev/null 2>&1 &
		;;
	jit)
		mkdir -p "${dir}/jit"
		"${PERF}" record -q -k 1 -e cpu-clock -c 20000 -g -o "${file}" \
			-- "${dir}/jitwork" "${dir}/jit" 100000 > /dev/null 2>&1 &
		;;
	dwarf)
		"${PERF}" record -q -e cpu-clock -c 200000 --call-graph dwarf,4096 -o "${file}" \
			-- "${dir}/steady" > /dev/null 2>&1 &
		;;
	esac
	rec=$!
	while [ "$(stat -c %s "${file}" 2> /dev/null || echo 0)" -lt $((mb * 1024 * 1024)) ]; do
		sleep 0.5
	done
	kill -INT "${rec}"
	wait "${rec}" || true
	stop_workload
}

# measure FILE [OPTIONS...] -> prints "wall_s rss_kb cpu_s writes out_bytes"
# of one run of perf inject OPTIONS, of perf report -g --stdio for "report",
# of cat FILE > /dev/null for "cat", of pristine perf inject for "pristine"
measure() {
	local file=$1 cmd out=0

	shift
	case "${1:-}" in
	report) cmd=("${PERF}" report -g --stdio -i "${file}") ;;
	cat) cmd=(cat "${file}") ;;
	pristine) cmd=("${BENCH_PRISTINE}" inject -i "${file}" -o "${dir}/out.data") ;;
	*) cmd=("${PERF}" inject "$@" -i "${file}" -o "${dir}/out.data") ;;
	esac
	# Not with the writeback of what an earlier run wrote.
	sync
	"${measure_run}" -o "${dir}/time.txt" "${cmd[@]}" > /dev/null 2> "${dir}/inject.err" ||
		{ echo "${cmd[*]} failed:" >&2; cat "${dir}/inject.err" >&2; exit 1; }
	if [ "${1:-}" = cat ]; then
		out=$(stat -c %s "${file}")
	elif [ -e "${dir}/out.data" ]; then
		out=$(stat -c %s "${dir}/out.data")
	fi
	rm -f "${dir}/out.data"
	awk -v out="${out}" '{ print $1, $3, $2, $4, out }' "${dir}/time.txt"
}

# label OPTIONS: what a run is, in the table
label() {
	case "$1" in
	report) echo "perf report -g" ;;
	cat) echo "cat FILE > /dev/null" ;;
	pristine) echo "pristine perf inject" ;;
	"") echo "(none)" ;;
	*) echo "$1" ;;
	esac
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / (b > 0 ? b : 0.01) }'; }

build_workloads

printf "%-8s %-6s %-8s %-24s %7s %6s %6s %8s %7s %8s %6s %6s %7s %6s\n" "workload" "size" \
	"records" "options" "wall(s)" "cpu(s)" "MB/s" "writes" "KB/wr" "anon(MB)" "/plain" \
	"cpu/pl" "/pristn" "/cat"
declare -A rss_first=() rss_last=()
for workload in "${workloads[@]}"; do
	runs_of "${workload}"
	for mb in "${sizes[@]}"; do
		file="${dir}/perf-${workload}-${mb}.data"
		# KEEP=1 BENCH_DIR=... reuses the recordings of a previous run
		[ -s "${file}" ] || record "${workload}" "${mb}" "${file}"
		size=$(stat -c %s "${file}")
		nr=$("${PERF}" report -i "${file}" --stats 2> /dev/null |
		     awk '/TOTAL events:/ { print $3 }')
		declare -A wall=() cpu=() rss=() nwr=() outb=()
		for ((r = 0; r < RUNS; r++)); do
			for opts in "${runs[@]}"; do
				# shellcheck disable=SC2086
				read -r t m c w o < <(measure "${file}" ${opts})
				nwr["x${opts}"]=${w}
				outb["x${opts}"]=${o}
				if [ -z "${wall[x${opts}]:-}" ] ||
				   awk -v a="${t}" -v b="${wall[x${opts}]}" 'BEGIN { exit !(a < b) }'; then
					wall["x${opts}"]=${t}
					cpu["x${opts}"]=${c}
				fi
				rss["x${opts}"]=${m}
			done
		done
		for opts in "${runs[@]}"; do
			t=${wall[x${opts}]} c=${cpu[x${opts}]} m=${rss[x${opts}]}
			[ -n "${rss_first[${workload}${opts}]:-}" ] || rss_first["${workload}${opts}"]=${m}
			rss_last["${workload}${opts}"]=${m}
			printf "%-8s %-6s %-8s %-24s %7.2f %6.2f %6.1f %8s %7s %8.1f %6s %6s %7s %6s\n" \
				"${workload}" "$((size / 1024 / 1024))MB" "${nr}" "$(label "${opts}")" \
				"${t}" "${c}" \
				"$(awk -v s="${size}" -v t="${t}" 'BEGIN { print s / 1048576 / (t > 0 ? t : 0.01) }')" \
				"${nwr[x${opts}]}" \
				"$(awk -v o="${outb[x${opts}]}" -v w="${nwr[x${opts}]}" \
					'BEGIN { if (o > 0 && w > 0) printf "%.1f", o / 1024 / w; else print "-" }')" \
				"$(awk -v r="${m}" 'BEGIN { print r / 1024 }')" \
				"$(ratio "${t}" "${wall[x]}")" "$(ratio "${c}" "${cpu[x]}")" \
				"$(ratio "${t}" "${wall[xpristine]}")" "$(ratio "${t}" "${wall[xcat]}")"
		done
		case "${workload}" in
		fork | steady)
			printf "%-17s the check of the output (--aslr-verify): %s wall, %s cpu\n" "" \
				"$(ratio "${wall[x--aslr]}" "${wall[x--aslr --no-aslr-verify]}")" \
				"$(ratio "${cpu[x--aslr]}" "${cpu[x--aslr --no-aslr-verify]}")"
			printf "%-17s --redact=all / --aslr: %s wall, %s cpu\n" "" \
				"$(ratio "${wall[x--aslr --redact=all]}" "${wall[x--aslr]}")" \
				"$(ratio "${cpu[x--aslr --redact=all]}" "${cpu[x--aslr]}")" ;;
		jit)
			printf "%-17s --jit --aslr / --jit: %s wall, %s cpu\n" "" \
				"$(ratio "${wall[x--jit --aslr]}" "${wall[x--jit]}")" \
				"$(ratio "${cpu[x--jit --aslr]}" "${cpu[x--jit]}")" ;;
		dwarf)
			printf "%-17s --aslr / perf report -g (both unwind): %s wall, %s cpu\n" "" \
				"$(ratio "${wall[x--aslr]}" "${wall[xreport]}")" \
				"$(ratio "${cpu[x--aslr]}" "${cpu[xreport]}")" ;;
		esac
		unset wall cpu rss nwr outb
		[ -n "${KEEP:-}" ] || rm -f "${file}"
	done
done
if [ ${#sizes[@]} -gt 1 ]; then
	for workload in "${workloads[@]}"; do
		runs_of "${workload}"
		for opts in "${runs[@]}"; do
			[ "${opts}" != cat ] || continue
			printf "anonymous RSS at %s MB, %-7s %-24s %s\n" "${sizes[-1]}/${sizes[0]}" \
				"${workload}" "$(label "${opts}"):" \
				"$(ratio "${rss_last[${workload}${opts}]}" "${rss_first[${workload}${opts}]}")"
		done
	done
fi
