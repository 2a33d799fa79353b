#!/bin/bash
# perf inject --aslr: breakpoints, dlopen, anonymous maps
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # err, tmpdir, ...: inject_aslr_setup sets them

shelldir=$(dirname "$0")
# shellcheck source=lib/inject_aslr.sh
. "${shelldir}/lib/inject_aslr.sh"
inject_aslr_setup

# Build the workloads of the cases below, in ${tmpdir}/bin.
build_workloads() {
	local b="${tmpdir}/bin"

	mkdir "${b}"
	cat > "${b}/load.c" <<'EOF'
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* A global of a non-PIE binary: its address is known before it runs. */
volatile long counter;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void spin(double secs)
{
	double end = now() + secs;

	while (now() < end)
		counter++;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "bp")) {
		for (long i = 0; i < 10000; i++)
			counter++;
	} else if (!strcmp(mode, "dlopen")) {
		void *h = dlopen(argv[2], RTLD_NOW);
		void (*lib_spin)(double);

		if (!h)
			return 1;
		lib_spin = (void (*)(double))dlsym(h, "lib_spin");
		if (!lib_spin)
			return 1;
		lib_spin(0.5);
	} else if (!strcmp(mode, "bigmap")) {
		size_t sz = 1UL << 30;
		char *p = mmap(NULL, sz, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		for (size_t off = 0; off < sz; off += sz / 8)
			p[off] = 1;
		spin(0.5);
	} else if (!strcmp(mode, "execanon")) {
		/* dec %rdi; jnz .-3; ret */
		static const unsigned char loop[] = { 0x48, 0xff, 0xcf, 0x75, 0xfb, 0xc3 };
		unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
#ifdef __x86_64__
		memcpy(p, loop, sizeof(loop));
		((void (*)(long))p)(200000000);
#else
		(void)loop;
#endif
		spin(0.3);
	} else {
		return 1;
	}
	return 0;
}
EOF
	cat > "${b}/lib.c" <<'EOF'
#include <time.h>

volatile long lib_counter;

void lib_spin(double secs)
{
	struct timespec ts;
	double end;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = ts.tv_sec + ts.tv_nsec / 1e9 + secs;
	do {
		lib_counter++;
		clock_gettime(CLOCK_MONOTONIC, &ts);
	} while (ts.tv_sec + ts.tv_nsec / 1e9 < end);
}
EOF
	cc -O1 -no-pie -fno-pie -o "${b}/load" "${b}/load.c" -ldl 2> /dev/null &&
		cc -O1 -shared -fPIC -o "${b}/libspin.so" "${b}/lib.c" 2> /dev/null
}

# A write/read breakpoint on a global: its address must be zeroed.
test_breakpoint() {
	local d="${tmpdir}/bp" load=$1 addr

	addr=$(nm "${load}" | awk '$3 == "counter" { print $1 }')
	mkdir "${d}"
	if [ -z "${addr}" ] || ! perf record -q -o "${d}/probe.data" -e "mem:0x${addr}:rw" -- \
		"${load}" bp > /dev/null 2>&1; then
		echo "Skip breakpoint: can't record mem:0x${addr}:rw"
		return
	fi
	# Some hypervisors take the event but never fire the debug registers.
	if [ -z "$(perf script -i "${d}/probe.data" 2> /dev/null | head -n 1)" ]; then
		echo "Skip breakpoint: mem:0x${addr}:rw gave no samples" \
		     "(no hardware breakpoints on this machine)"
		return
	fi
	rm -r "${d}"
	check_workload bp "-d -e mem:0x${addr}:rw" "" "${load}" bp
	[ -f "${d}/out.data" ] || return 0
	if ! perf evlist -i "${d}/out.data" | grep -q "^mem:0x0:rw"; then
		fail "bp: breakpoint address left in the event name"
		perf evlist -i "${d}/out.data"
	fi
	# the data addresses resolve to the same symbols
	check_report bp-daddr "${d}/ref.data" "${d}/out.data" \
		"--mem-mode --sort symbol_daddr,dso_daddr"

	# Physical addresses: the samples are kept, the field zeroed.
	if ! perf record -q -d --phys-data -e "mem:0x${addr}:rw" -o "${d}/phys.data" -- \
			"${load}" bp > /dev/null 2>&1; then
		echo "Skip physical addresses: can't record --phys-data"
		return
	fi
	perf inject --aslr -v -i "${d}/phys.data" -o "${d}/phys-out.data" 2> "${d}/phys.log"
	if ! grep -q "SAMPLE: .* with their physical address zeroed" "${d}/phys.log"; then
		fail "phys: perf inject -v doesn't say the physical addresses were zeroed"
	fi
	perf script -F phys_addr -i "${d}/phys.data" > "${d}/phys.txt" 2> /dev/null || true
	if ! grep -q '[1-9a-f]' "${d}/phys.txt"; then
		echo "Skip physical addresses: the recording has none (a VM?)"
		return
	fi
	if ! perf script -F phys_addr -i "${d}/phys-out.data" \
			> "${d}/phys-out.txt" 2> /dev/null; then
		fail "phys: perf script can't read the output"
	elif [ "$(wc -l < "${d}/phys.txt")" != "$(wc -l < "${d}/phys-out.txt")" ]; then
		fail "phys: samples with a physical address lost"
	elif grep -q '[1-9a-f]' "${d}/phys-out.txt"; then
		fail "phys: physical addresses left in the output"
	fi
}

if ! command -v cc > /dev/null; then
	skip "no C compiler to build the test programs"
elif ! build_workloads; then
	fail "the test programs don't build"
else
	load="${tmpdir}/bin/load"
	test_breakpoint "${load}"
	check_workload dlopen "-e task-clock:u" "" "${load}" dlopen "${tmpdir}/bin/libspin.so"
	check_workload bigmap "-d -e task-clock:u" "" "${load}" bigmap
	check_workload execanon "-e task-clock:u" "" "${load}" execanon
fi

cleanup
exit ${err}
