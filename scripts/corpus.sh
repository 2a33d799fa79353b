#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Record a corpus of the kinds of profiles perf inject --aslr must make
# shareable into build/corpus/NAME.data, rewrite each (--jit --aslr for
# the JIT one) and run the leak checker on the output.  Prints per file
# what perf inject -v says it kept, rewrote and dropped, and the leaks.
# Fails on a leak or an inject error; a kind --aslr still refuses is
# listed with perf's reason and counted apart.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

out=$BUILD/corpus
audit=$TREE/tools/perf/tests/shell/lib/aslr_audit.py
jittest=$TREE/tools/perf/tests/shell/inject_jit_anon.sh
# The leak checker reads compressed records with the python zstandard
# module: the system python has it (python3-zstandard).
py=python3
! /usr/bin/python3 -c 'import zstandard' 2> /dev/null || py=/usr/bin/python3
rm -rf "$out"
mkdir -p "$out"
cd "$out"

# A process that maps, runs and unmaps many anonymous executable regions.
cat > anonexec.c << 'EOF'
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

int main(void)
{
	static const unsigned char body[] = {	/* mov $n,%ecx; 1: dec; jnz 1b; ret */
		0xb9, 0x10, 0x27, 0, 0, 0xff, 0xc9, 0x75, 0xfc, 0xc3,
	};

	for (int i = 0; i < 20000; i++) {
		unsigned char *p = mmap(NULL, 4096 << (i % 4), PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		memcpy(p, body, sizeof(body));
		mprotect(p, 4096, PROT_READ | PROT_EXEC);
		((void (*)(void))p)();
		munmap(p, 4096 << (i % 4));
	}
	return 0;
}
EOF
# A global written in a loop, for a write breakpoint: built without PIE, its
# address is known before it runs.
cat > bpwork.c << 'EOF'
volatile long counter;

int main(void)
{
	for (long i = 0; i < 20000; i++)
		counter = i;
	return 0;
}
EOF
# The JIT of the perf inject --jit test.
sed -n "/^cat > .*jitwork.c.* << 'EOF'\$/,/^EOF\$/{//!p}" "$jittest" > jitwork.c
cc -O1 -o anonexec anonexec.c || die "cannot build the anonymous code workload"
cc -O1 -o jitwork jitwork.c || die "cannot build the JIT workload of $jittest"
cc -O1 -no-pie -fno-pie -o bpwork bpwork.c || die "cannot build the breakpoint workload"
counter=$(nm bpwork | awk '$3 == "counter" { print $1 }')
mkdir -p jit

has_feature() { "$PERF" version --build-options | grep -q "$1: .*on"; }

# $1: name, then perf record options up to --, then the workload.
record() {
	local name=$1

	shift
	info "recording $name"
	"$PERF" record -q -o "$name.data" "$@" > "$name.record.log" 2>&1 ||
		die "perf record failed for $name, see $out/$name.record.log"
}

record syswide -a -g -d -e cpu-clock -- "$PERF" bench sched messaging -l 100
if has_feature zstd; then
	record compressed -z -g -e cpu-clock -- "$PERF" test -w noploop 1
fi
record dwarf --call-graph dwarf -e cpu-clock -- "$PERF" test -w leafloop 1
record tracepoints -a -e sched:sched_switch -e sched:sched_process_fork \
	-e kmem:kmalloc -e kmem:kfree -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit -- sleep 1
record breakpoints -d -e "mem:0x$counter:w" -- ./bpwork
# shellcheck disable=SC2016 # expanded by sh
record pipelines -g -e cpu-clock -- sh -c \
	'for i in $(seq 200); do seq 200 | sort -r | uniq | wc -l; done > /dev/null'
record anonexec -g -e cpu-clock -- ./anonexec
record jit -k 1 -e cpu-clock -- ./jitwork jit 1

step "perf inject --aslr and the leak checker on each"
clean=0 leaky=0 refused=0
for data in *.data; do
	name=${data%.data}
	opts=(--aslr)
	[ "$name" != jit ] || opts=(--jit --aslr)
	if ! "$PERF" inject "${opts[@]}" -v -i "$data" -o "$name.out" > "$name.inject.log" 2>&1; then
		refusal=$(grep -m1 -- "^--aslr does not support" "$name.inject.log" || true)
		if [ -n "$refusal" ]; then
			refused=$((refused + 1))
			printf '    %-12s refused: %s\n' "$name" "$refusal"
			continue
		fi
		die "perf inject ${opts[*]} failed on $data, see $out/$name.inject.log"
	fi
	"$py" "$audit" -q "$data" "$name.out" > "$name.audit.log" 2>&1 ||
		[ $? = 1 ] || die "the leak checker failed on $data: $(tail -n 1 "$name.audit.log")"
	leaks=$(tail -n 1 "$name.audit.log" | cut -d' ' -f1)
	printf '    %-12s %8s bytes  leaks %s  %s\n' "$name" "$(stat -c %s "$data")" \
		"${leaks:-?}" "$(grep '^aslr:' "$name.inject.log" | cut -d' ' -f2- | paste -sd ';')"
	if [ "$leaks" = 0 ]; then
		clean=$((clean + 1))
	else
		leaky=$((leaky + 1))
	fi
done
info "$clean files without leaks, $leaky with leaks, $refused refused (see $out/*.inject.log)"
[ "$leaky" = 0 ] || die "the leak checker found original addresses"
