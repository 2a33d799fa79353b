#!/bin/bash
# perf inject --aslr --redact replaces names by tokens
# SPDX-License-Identifier: GPL-2.0
#
# A recording of a thread renamed to a distinct name, with the tracepoints
# that carry comms and file names, on a host and in a cgroup of distinct
# names, with distinct words on the command line: after --redact=all no
# name is in the output in any form, from a file or a pipe; the report is
# the same but for the names of threads; the tokens follow the key; a name
# left in the output by a class not redacted stops the write.

set -e

err=0
tmpdir=$(mktemp -d /tmp/__perf_test.inject_redact.XXXXXX)
cg=""

cleanup() {
	if [ -n "${cg}" ]; then
		echo $$ > "${cg}/cgroup.procs" 2> /dev/null || true
		rmdir "${cg}/ZqRedactCgroup" 2> /dev/null || true
		umount "${cg}" 2> /dev/null || true
	fi
	rm -rf "${tmpdir}"
	trap - EXIT TERM INT
}

trap_cleanup() {
	echo "Unexpected signal in ${FUNCNAME[1]}"
	cleanup
	exit 1
}
trap trap_cleanup EXIT TERM INT

fail() {
	echo "$1 [Failed]"
	err=1
}

# The workload: renames itself, writes to the kernel log, works, runs a
# program.
cat > "${tmpdir}/work.sh" << 'EOF'
printf %s ZqRedactThread > /proc/$$/comm
echo "perf test: inject --redact ZqRedactMessage" > /dev/kmsg
i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done
env true
EOF
rec="perf record -q -e cpu-clock:u -e sched:sched_switch -e task:task_rename"
rec="${rec} -e sched:sched_process_exec -e printk:console --namespaces --all-cgroups"

# In a cgroup of its own if a cgroup2 hierarchy can be mounted here.
if mkdir "${tmpdir}/cg" && mount -t cgroup2 none "${tmpdir}/cg" 2> /dev/null; then
	cg="${tmpdir}/cg"
	if ! mkdir "${cg}/ZqRedactCgroup" ||
	   ! echo $$ > "${cg}/ZqRedactCgroup/cgroup.procs"; then
		echo "Can't enter a cgroup2 cgroup, its path isn't looked for"
		umount "${cg}"
		cg=""
	fi
else
	echo "Can't mount a cgroup2 hierarchy, the path of a cgroup isn't looked for"
fi
names="ZqRedactThread ZqRedactArgument ZqRedactMessage"
[ -z "${cg}" ] || names="${names} ZqRedactCgroup"

record() {
	# $1: output, - for a pipe
	${rec} -o "$1" -- bash "${tmpdir}/work.sh" ZqRedactArgument
}
if unshare -u true 2> /dev/null; then
	names="${names} ZqRedactHost"
	export -f record
	export rec tmpdir
	unshare -u bash -c "hostname ZqRedactHost && record '${tmpdir}/in.data' &&
			    record - > '${tmpdir}/in.pipe'" 2> "${tmpdir}/err"
else
	echo "Can't record under another host name (unshare -u), it isn't looked for"
	record "${tmpdir}/in.data" && record - > "${tmpdir}/in.pipe"
fi 2> "${tmpdir}/err" || {
	cat "${tmpdir}/err"
	echo "perf record of tracepoints failed: no tracefs? [Skip]"
	cleanup
	exit 2
}

# has_names FILE: the names of the input in FILE, as bytes
has_names() {
	local n found=""

	for n in ${names}; do
		! grep -q -a "${n}" "$1" || found="${found} ${n}"
	done
	echo "${found}"
}

test_all() {
	local f found

	echo "--redact=all from a file and from a pipe"
	found=$(has_names "${tmpdir}/in.data")
	[ "${found}" = " ${names}" ] || fail "the input holds${found}, not all of ${names}"
	set -o pipefail
	if ! perf inject --aslr -i "${tmpdir}/in.data" -o "${tmpdir}/aslr.data" ||
	   ! perf inject --aslr --redact=all -i "${tmpdir}/in.data" -o "${tmpdir}/out.data" ||
	   ! perf inject --aslr --redact=all -i - -o - < "${tmpdir}/in.pipe" |
		perf inject -i - -o "${tmpdir}/out-pipe.data"; then
		fail "perf inject --aslr --redact=all failed"
		cleanup
		exit 1
	fi
	set +o pipefail
	for f in out.data out-pipe.data; do
		found=$(has_names "${tmpdir}/${f}")
		[ -z "${found}" ] || fail "${f} holds${found}"
		if perf report --header-only -i "${tmpdir}/${f}" 2> /dev/null |
		   grep -E '^# (hostname|os release|cpudesc|cpuid|total memory|cmdline) :'; then
			fail "${f} names the machine or the command line"
		fi
	done
	perf script -i "${tmpdir}/out.data" -F event,trace > "${tmpdir}/out.txt" 2> /dev/null
	if ! grep -q 'printk:console: ~[g-z]\{12\}$' "${tmpdir}/out.txt"; then
		fail "the message of printk:console is not a token"
	fi
	# A path, as those of the mappings: kept
	if ! grep -q 'filename=/[^ ]*true pid=' "${tmpdir}/out.txt"; then
		fail "the file name of sched_process_exec is not kept"
	fi
	if perf script -i "${tmpdir}/out.data" --show-mmap-events 2> /dev/null |
	   grep 'MMAP2' | grep -v ' 00:00 0 0\]'; then
		fail "MMAP2 records with device and inode numbers"
	fi
}

# The same report but for the names of the threads.
test_report() {
	local a b

	echo "perf report of --redact=all"
	for a in aslr out; do
		perf report -i "${tmpdir}/${a}.data" --stdio --sort dso,sym -g none \
			> "${tmpdir}/${a}.dso" 2> /dev/null
		perf report -i "${tmpdir}/${a}.data" --stdio --sort comm -g none 2> /dev/null |
			grep -v '^#' | awk 'NF { print $1 }' | sort > "${tmpdir}/${a}.comm"
	done
	a=$(grep -v '^#' "${tmpdir}/aslr.dso" | grep -c '%') || true
	[ "${a}" -gt 0 ] || fail "no rows in the report of --aslr"
	if ! diff <(grep -v '^#' "${tmpdir}/aslr.dso") <(grep -v '^#' "${tmpdir}/out.dso"); then
		fail "perf report --sort dso,sym differs"
	fi
	if ! cmp -s "${tmpdir}/aslr.comm" "${tmpdir}/out.comm"; then
		diff "${tmpdir}/aslr.comm" "${tmpdir}/out.comm" || true
		fail "perf report --sort comm has other percentages"
	fi
	b=$(perf report -i "${tmpdir}/out.data" --stdio --sort comm 2> /dev/null |
	    grep -c '~[g-z]\{12\}') || true
	[ "${b}" -gt 0 ] || fail "no token in perf report --sort comm"
}

test_key() {
	local k="${tmpdir}/key" t1 t2

	echo "--redact-key: the same tokens; without it, others"
	head -c 32 /dev/urandom > "${k}"
	perf inject --aslr --redact=comm --redact-key="${k}" -i "${tmpdir}/in.data" \
		-o "${tmpdir}/k1.data"
	perf inject --aslr --redact=comm --redact-key="${k}" -i "${tmpdir}/in.data" \
		-o "${tmpdir}/k2.data"
	perf inject --aslr --redact=comm -i "${tmpdir}/in.data" -o "${tmpdir}/k3.data"
	t1=$(perf script -i "${tmpdir}/k1.data" -F comm 2> /dev/null | sort -u)
	t2=$(perf script -i "${tmpdir}/k2.data" -F comm 2> /dev/null | sort -u)
	if [ -z "${t1}" ] || [ "${t1}" != "${t2}" ]; then
		fail "other tokens with the same key"
	fi
	t2=$(perf script -i "${tmpdir}/k3.data" -F comm 2> /dev/null | sort -u)
	[ "${t1}" != "${t2}" ] || fail "the same tokens without a key"
	head -c 8 /dev/urandom > "${k}"
	if perf inject --aslr --redact=comm --redact-key="${k}" -i "${tmpdir}/in.data" \
		-o "${tmpdir}/k4.data" 2> /dev/null || [ -e "${tmpdir}/k4.data" ]; then
		fail "a key of 8 bytes taken"
	fi
}

# A name a class replaces, left in the output by another: the write stops.
test_planted() {
	local f in out

	echo "A thread named as the host, --redact=comm"
	if ! unshare -u true 2> /dev/null; then
		echo "Skip: can't record under another host name (unshare -u)"
		return
	fi
	unshare -u bash -c "hostname ZqRedactHost &&
		perf record -q -e cpu-clock:u -o '${tmpdir}/host.data' -- \
		bash -c 'printf %s ZqRedactHost > /proc/\$\$/comm; i=0;
			 while [ \$i -lt 5000 ]; do i=\$((i+1)); done'" 2> /dev/null
	perf inject -i "${tmpdir}/host.data" -o - > "${tmpdir}/host.pipe"
	for f in file pipe; do
		in="${tmpdir}/host.data" out="${tmpdir}/leak.data"
		[ "${f}" = file ] || in=- out=-
		if perf inject --aslr --redact=comm -i "${in}" -o "${out}" \
			< "${tmpdir}/host.pipe" > "${tmpdir}/leak.pipe" 2> "${tmpdir}/err"; then
			fail "${f}: written with the name of the thread in it"
		elif ! grep -q "'ZqRedactHost', a comm of the input" "${tmpdir}/err"; then
			cat "${tmpdir}/err"
			fail "${f}: no clear error"
		fi
		[ ! -e "${tmpdir}/leak.data" ] || fail "${f}: an output was left"
	done
	perf inject --aslr --redact=comm,host -i "${tmpdir}/host.data" \
		-o "${tmpdir}/host-out.data" || fail "--redact=comm,host refused"
}

test_options() {
	local o

	echo "Options refused"
	for o in "--redact=comm" "--aslr --redact=nosuch" "--aslr --redact-key=/dev/null"; do
		# shellcheck disable=SC2086
		if perf inject ${o} -i "${tmpdir}/in.data" -o "${tmpdir}/opt.data" 2> /dev/null ||
		   [ -e "${tmpdir}/opt.data" ]; then
			fail "perf inject ${o} taken"
		fi
	done
}

test_all
test_report
test_key
test_planted
test_options
cleanup
exit ${err}
