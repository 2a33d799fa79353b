#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The set-up and the checks of the tests of perf inject --aslr: each
# workload recorded to a file and to a pipe, injected every way, and the
# reports, build-ids and addresses of the output compared to the input's.
# shellcheck disable=SC2034 # err, skip_kernel, ...: used by the tests

# Set up a test of perf inject --aslr: err, tmpdir, audit, audit_python,
# skip_kernel; skip the test where perf can't record user samples.
inject_aslr_setup() {
	set -e

	err=0
	skip_kernel=""
	shelldir=$(dirname "$0")
	audit="${shelldir}/lib/aslr_audit.py"
	# shellcheck source=lib/setup_python.sh
	. "${shelldir}/lib/setup_python.sh"
	# shellcheck source=lib/skip.sh
	. "${shelldir}/lib/skip.sh"
	# The leak checker reads compressed records with the python zstandard
	# module: prefer a python that has it.
	audit_python=${PYTHON}
	for py in "${PYTHON}" /usr/bin/python3; do
		if "${py}" -c 'import zstandard' 2> /dev/null; then
			audit_python=${py}
			break
		fi
	done
	tmpdir=$(mktemp -d /tmp/perf-inject-aslr.XXXXXX)
	trap trap_cleanup EXIT TERM INT

	if ! perf record -q -o /dev/null -e task-clock:u -- true > /dev/null 2>&1; then
		skip "perf record -e task-clock:u isn't permitted on this machine"
	fi

	if [ "$(id -u)" != 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 1 ]; then
		skip_kernel="perf_event_paranoid > 1 forbids kernel samples"
	elif ! awk '$3 == "_text" { if ($1 ~ /^0+$/) exit 1; found = 1 } END { exit !found }' \
			/proc/kallsyms; then
		skip_kernel="kptr_restrict hides kernel addresses"
	fi
}

# The build-ids of the recordings go to a cache of the test's own: the
# reports find [vdso] there, whatever HOME is (or if it isn't set).
perf() {
	command perf --buildid-dir "${tmpdir}/debug" "$@"
}

cleanup() {
	rm -rf "${tmpdir}"
	trap - EXIT TERM INT
}

trap_cleanup() {
	echo "Unexpected signal in ${FUNCNAME[1]}"
	cleanup
	exit 1
}

fail() {
	echo "FAIL: $*"
	err=1
}

# Unresolved symbols and callchain entries are printed as raw addresses,
# which --aslr changes.  An address in no mapping (a sample taken in exec,
# the garbage a frame pointer walk finds on the stack, of any value) is 0 in
# the --aslr output: printed as 0 in a callchain, zero padded as a symbol.
normalise() {
	sed -e 's/0x[0-9a-f]\+/ADDR/g' -e 's/ \+$//' \
	    -e 's/^\( *\(---\)\{0,1\}\)0$/\1ADDR/' \
	    -e 's/\(--[0-9.]*%--\)0$/\1ADDR/' \
	    -e 's/\(\[[.k]\] \)0\{16\}$/\1ADDR/'
}

# Call graphs as folded stacks with their sample counts (-g folded,0,...,count):
# a frame in no mapping is 0 in the --aslr output and its address in the
# reference, where stacks that differ only there are apart.  Such a frame
# is ADDR in both, the counts of the stacks that become alike are summed.
fold() {
	awk '
	/^[0-9]+ / {
		n = split(substr($0, index($0, " ") + 1), f, ";")
		s = ""
		for (i = 1; i <= n; i++)
			s = s (i > 1 ? ";" : "") (f[i] ~ /^(0|ADDR)$/ ? "ADDR" : f[i])
		count[head " | " s] += $1
		next
	}
	{ head = $0; print }
	END { for (k in count) print count[k], k }' | sort
}

report() {
	# $1: input file, $2: extra report options
	# shellcheck disable=SC2086
	perf report -i "$1" --stdio --no-children --sort comm,dso,sym -q $2 2>/dev/null |
		normalise | case "$2" in *folded*) fold ;; *) cat ;; esac
}

# Compare the report of the --aslr output to the one of perf inject -b.
# The reference report is made once per reference file and options.
check_report() {
	local name=$1 ref=$2 out=$3 opts=$4 ref_txt

	ref_txt="${ref}.$(printf '%s' "${opts}" | cksum | cut -d' ' -f1).txt"
	[ -f "${ref_txt}" ] || report "${ref}" "${opts}" > "${ref_txt}"
	report "${out}" "${opts}" > "${tmpdir}/${name}.out.txt"
	if [ ! -s "${ref_txt}" ]; then
		fail "${name}: empty reference report"
		return
	fi
	if ! cmp -s "${ref_txt}" "${tmpdir}/${name}.out.txt"; then
		fail "${name}: report differs"
		diff -u "${ref_txt}" "${tmpdir}/${name}.out.txt" | head -20
	fi
}

# User mappings must all have moved.
mmap_starts() {
	perf script -i "$1" --show-mmap-events -F comm 2>/dev/null | \
		grep 'PERF_RECORD_MMAP' | grep -v ' -1/' | \
		sed -n 's/.*: \[\(0x[0-9a-f]*\)(.*/\1/p' | sort -u
}

check_leak() {
	local name=$1 orig=$2 out=$3

	if [ ! -f "${audit}" ]; then
		fail "${name}: no leak checker at ${audit}"
	elif ! "${audit_python}" "${audit}" "${orig}" "${out}"; then
		fail "${name}: ${audit} found a leak"
	fi
	mmap_starts "${orig}" > "${tmpdir}/${name}.orig.starts"
	mmap_starts "${out}" > "${tmpdir}/${name}.out.starts"
	if [ ! -s "${tmpdir}/${name}.out.starts" ]; then
		fail "${name}: no user mmap events in the output"
		return
	fi
	if comm -12 "${tmpdir}/${name}.orig.starts" "${tmpdir}/${name}.out.starts" | grep -q .; then
		fail "${name}: original mmap start addresses in the output"
	fi
}

# The build-id table of $3 must be the one of $2 (perf inject -b): --aslr
# finds the DSOs hit as it remaps the samples.  Not for DWARF call graphs,
# which --aslr unwinds and -b doesn't (the unwound frames hit more DSOs), nor
# for compressed input, whose build-ids -b leaves empty.
check_build_ids() {
	local name=$1

	case "${name}" in
	dwarf-* | zstd-*) return ;;
	esac

	perf buildid-list -i "$2" 2> /dev/null | sort > "${tmpdir}/${name}.bids.ref"
	perf buildid-list -i "$3" 2> /dev/null | sort > "${tmpdir}/${name}.bids.out"
	if [ ! -s "${tmpdir}/${name}.bids.ref" ] ||
	   ! cmp -s "${tmpdir}/${name}.bids.ref" "${tmpdir}/${name}.bids.out"; then
		fail "${name}: the build-ids of the output are not those of perf inject -b"
		diff -u "${tmpdir}/${name}.bids.ref" "${tmpdir}/${name}.bids.out" | head -10
	fi
}

# Record $2 (a command line) as a file and as a pipe, then check all the
# file/pipe combinations of perf inject --aslr.
check_workload() {
	local name=$1 rec_opts=$2 report_opts=$3
	local d="${tmpdir}/${name}"

	shift 3
	mkdir "${d}"
	# User space only profiles need no BPF program events; perf record
	# waits up to a second at exit for the thread that collects them.
	case "${rec_opts}" in
	*:u*) rec_opts="--no-bpf-event ${rec_opts}" ;;
	esac

	# shellcheck disable=SC2086
	if ! perf record -q -o "${d}/orig.data" ${rec_opts} -- "$@" > /dev/null 2>&1; then
		fail "${name}: perf record failed"
		return
	fi
	# shellcheck disable=SC2086
	perf record -q -o - ${rec_opts} -- "$@" 2> /dev/null > "${d}/orig.pipe"

	perf inject -b -i "${d}/orig.data" -o "${d}/ref.data"
	perf inject -b -i - -o "${d}/ref-pipe.data" < "${d}/orig.pipe"

	# file -> file
	if ! perf inject --aslr -b -i "${d}/orig.data" -o "${d}/out.data"; then
		fail "${name}: file to file inject failed"
		return
	fi
	check_report "${name}-file-file" "${d}/ref.data" "${d}/out.data" "${report_opts}"
	check_leak "${name}-file-file" "${d}/orig.data" "${d}/out.data"
	check_build_ids "${name}-file-file" "${d}/ref.data" "${d}/out.data"

	# determinism, the output name is in the header (cmdline)
	mv "${d}/out.data" "${d}/out1.data"
	perf inject --aslr -b -i "${d}/orig.data" -o "${d}/out.data"
	if ! cmp -s "${d}/out.data" "${d}/out1.data"; then
		fail "${name}: output isn't deterministic"
	fi
	# the output injected again gives the same report
	perf inject --aslr -b -i "${d}/out.data" -o "${d}/out3.data"
	check_report "${name}-again" "${d}/ref.data" "${d}/out3.data" "${report_opts}"

	# file -> pipe
	(set -o pipefail
	 perf inject --aslr -b -i "${d}/orig.data" -o - | cat > "${d}/out-fp.pipe") ||
		fail "${name}-file-pipe: perf inject failed"
	check_report "${name}-file-pipe" "${d}/ref.data" "${d}/out-fp.pipe" "${report_opts}"
	check_leak "${name}-file-pipe" "${d}/orig.data" "${d}/out-fp.pipe"

	# pipe -> file
	cat "${d}/orig.pipe" | perf inject --aslr -b -o "${d}/out-pf.data"
	check_report "${name}-pipe-file" "${d}/ref-pipe.data" "${d}/out-pf.data" "${report_opts}"
	check_leak "${name}-pipe-file" "${d}/orig.pipe" "${d}/out-pf.data"
	check_build_ids "${name}-pipe-file" "${d}/ref-pipe.data" "${d}/out-pf.data"

	# pipe -> pipe
	(set -o pipefail
	 cat "${d}/orig.pipe" | perf inject --aslr | cat > "${d}/out-pp.pipe") ||
		fail "${name}-pipe-pipe: perf inject failed"
	check_report "${name}-pipe-pipe" "${d}/ref-pipe.data" "${d}/out-pp.pipe" "${report_opts}"
	check_leak "${name}-pipe-pipe" "${d}/orig.pipe" "${d}/out-pp.pipe"
}
