#!/bin/bash
# perf inject --aslr: call graphs
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # err, tmpdir, ...: inject_aslr_setup sets them

shelldir=$(dirname "$0")
# shellcheck source=lib/inject_aslr.sh
. "${shelldir}/lib/inject_aslr.sh"
inject_aslr_setup

# A program built with -O2, its functions inlined into one another, recorded
# with DWARF call graphs: each sample has in the --aslr output the
# functions it has in the recording, inlined ones included (perf script -F
# ip,sym, the addresses left out).
test_dwarf_inline() {
	local d="${tmpdir}/dwarf-inline" f

	if ! perf version --build-options | grep -q 'dwarf-unwind: \[ on'; then
		echo "Skip DWARF call graphs of inlined functions: perf has no DWARF unwinding"
		return
	fi
	mkdir "${d}"
	cat > "${d}/inl.c" <<'EOF'
static volatile unsigned long sink;

static inline void leaf(int n)
{
	for (int i = 0; i < n; i++)
		sink += i;
}

static inline void middle(int n)
{
	leaf(n);
	sink ^= n;
}

static __attribute__((noinline)) void outer(int n)
{
	middle(n);
	sink++;
}

int main(void)
{
	for (int i = 0; i < 200000; i++)
		outer(5000);
	return 0;
}
EOF
	if ! cc -O2 -g -fomit-frame-pointer -o "${d}/inl" "${d}/inl.c"; then
		fail "dwarf-inline: cannot build the workload"
		return
	fi
	if ! perf record -q --no-bpf-event -e task-clock:u -F 500 --call-graph dwarf,4096 \
			-o "${d}/orig.data" -- "${d}/inl" > /dev/null 2>&1 ||
	   ! perf inject --aslr -i "${d}/orig.data" -o "${d}/out.data"; then
		fail "dwarf-inline: perf record or perf inject --aslr failed"
		return
	fi
	for f in orig out; do
		perf script -i "${d}/${f}.data" -F ip,sym 2> /dev/null |
			awk 'NF > 1 { $1 = ""; print }' | sort | uniq -c > "${d}/${f}.syms"
	done
	if ! grep -q 'leaf (inlined)' "${d}/orig.syms"; then
		fail "dwarf-inline: the recording shows no inlined function"
	elif ! cmp -s "${d}/orig.syms" "${d}/out.syms"; then
		fail "dwarf-inline: the functions of the samples differ after --aslr"
		diff -u "${d}/orig.syms" "${d}/out.syms" | head -20
	fi
	check_leak dwarf-inline "${d}/orig.data" "${d}/out.data"
}
# Samples in ld.so at startup have broken frame pointer chains: those
# addresses become 0 with --aslr (see fold).
check_workload callchain "-e task-clock:u -g" "-g folded,0,caller,count" \
	perf test -w leafloop 1
if [ -n "${skip_kernel}" ]; then
	echo "Skip kernel samples: ${skip_kernel}"
else
	check_workload kernel "-e cpu-clock -g" "-g folded,0,caller,count" \
		perf test -w sqrtloop 1
fi
# Off-CPU samples (BPF), written at the end of the recording, after the
# exit of their threads.
if [ -n "${skip_kernel}" ]; then
	echo "Skip off-CPU samples: ${skip_kernel}"
elif ! perf record -q --off-cpu -o /dev/null -- true > /dev/null 2>&1; then
	echo "Skip off-CPU samples: perf record --off-cpu failed (no BPF support or permission)"
else
	check_workload offcpu "-e task-clock --off-cpu -g" "-g folded,0,caller,count" \
		sh -c 'perf test -w sqrtloop 1; sleep 0.1'
fi
# DWARF call graphs: unwound during inject into remapped callchains, the
# user stack dumps and registers cut out, their inlined functions shown as
# perf shows them when it unwinds them itself.
if ! perf version --build-options | grep -q 'dwarf-unwind: \[ on'; then
	echo "Skip DWARF call graphs: perf is built without DWARF unwinding"
else
	check_workload dwarf "-e task-clock:u -F 500 --call-graph dwarf,4096" "-G" \
		perf test -w leafloop 1
	if ! perf evlist -v -i "${tmpdir}/dwarf/out.data" > "${tmpdir}/dwarf/evlist.txt" 2>&1; then
		fail "dwarf: perf evlist can't read the output"
	elif grep -q 'sample_type:.*\(STACK_USER\|REGS_USER\)' "${tmpdir}/dwarf/evlist.txt"; then
		fail "dwarf: the output attributes still have user stacks or registers"
	fi
	if ! perf inject --aslr -v -i "${tmpdir}/dwarf/orig.data" -o "${tmpdir}/dwarf/v.data" 2>&1 |
			grep -q "SAMPLE: .* with their user stack unwound"; then
		fail "dwarf: perf inject -v doesn't say the user stacks were unwound"
	fi
fi
if ! command -v cc > /dev/null; then
	echo "Skip DWARF call graphs of inlined functions: no C compiler"
else
	test_dwarf_inline
fi

cleanup
exit ${err}
