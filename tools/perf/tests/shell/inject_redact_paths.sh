#!/bin/bash
# perf inject --redact=paths replaces the directories of paths
# SPDX-License-Identifier: GPL-2.0
#
# A program in a directory named like a user's home (and one named as that
# of its C library, which is kept there), run by a thread named like one of
# its directories: after --aslr --redact=paths,comm,cmdline no
# directory name is in the output, from a file or a pipe, nor in its perf
# archive; a receiver with a HOME of its own and the archive sees the
# report, the script and the annotation of the sender; --redact-basenames
# replaces the name of the program too; without comm, the name of the
# thread stops the write.

set -e

err=0
tmpdir=$(mktemp -d /tmp/__perf_test.inject_redact_paths.XXXXXX)
dir="${tmpdir}/home/ZqPathUser/ZqPathProject"
prog="${dir}/ZqPathTool"
cache="${tmpdir}/sender/.debug"
archive="$(dirname "$0")/../../perf-archive.sh"

cleanup() {
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

# shellcheck source=lib/skip.sh
. "$(dirname "$0")/lib/skip.sh"

mkdir -p "${dir}" "${cache}" "${tmpdir}/receiver/.debug"
cc -x c -g -O0 -o "${prog}" - > /dev/null 2>&1 << 'EOF' || skip "no C compiler"
static volatile unsigned long sink;
static void ZqWork(unsigned long n) { while (n--) sink += n; }
int main(void) { ZqWork(200000000UL); return 0; }
EOF
# In a directory named as that of its C library, which the output keeps (a
# directory of the system): a word kept in one path and replaced in another
libdir=$(ldd "${prog}" 2> /dev/null | awk '$1 ~ /^libc\.so/ { print $3 }')
libdir=$(basename "$(dirname "${libdir:-/lib/libc}")")
mkdir "${dir}/${libdir}" && mv "${prog}" "${dir}/${libdir}/" && prog="${dir}/${libdir}/ZqPathTool"
[ -f "${archive}" ] || skip "no perf-archive.sh beside the tests"

work="printf %s ZqPathProject > /proc/\$\$/comm; '${prog}'"
rec="perf --buildid-dir ${cache} record -q -g -e task-clock:u -e sched:sched_process_exec"
if ! ${rec} -o "${tmpdir}/in.data" -- bash -c "${work}" 2> "${tmpdir}/err" ||
   ! ${rec} -o - -- bash -c "${work}" > "${tmpdir}/in.pipe" 2>> "${tmpdir}/err"; then
	cat "${tmpdir}/err"
	skip "perf record of task-clock:u and sched_process_exec failed"
fi
names="ZqPathUser ZqPathProject"

# has_names FILE NAMES...: those of NAMES in FILE, as bytes
has_names() {
	local f=$1 n found=""

	shift
	for n in "$@"; do
		! grep -q -a "${n}" "${f}" || found="${found} ${n}"
	done
	echo "${found}"
}

# inject IN OUT OPTIONS...
inject() {
	local in=$1 out=$2

	shift 2
	perf --buildid-dir "${cache}" inject --aslr "$@" -i "${in}" -o "${out}"
}

# views DATA PREFIX: the report, the script and the annotation of DATA
views() {
	perf report -i "$1" --stdio --sort dso,sym -g none 2> /dev/null |
		grep -v '^#' > "$2.report"
	perf script -i "$1" -F comm,sym,dso 2> /dev/null | sed 's/^ *[^ ]* //' > "$2.script"
	perf annotate -i "$1" --stdio -s ZqWork 2> /dev/null |
		grep -E 'sink|ZqWork' > "$2.annotate" || true
}

test_paths() {
	local f found

	echo "--redact=paths,comm,cmdline from a file and from a pipe"
	found=$(has_names "${tmpdir}/in.data" ${names} ZqPathTool)
	[ "${found}" = " ${names} ZqPathTool" ] || fail "the input holds only${found}"
	set -o pipefail
	if ! inject "${tmpdir}/in.data" "${tmpdir}/aslr.data" ||
	   ! inject "${tmpdir}/in.data" "${tmpdir}/out.data" --redact=paths,comm,cmdline ||
	   ! inject - - --redact=paths,comm,cmdline < "${tmpdir}/in.pipe" |
		perf inject -i - -o "${tmpdir}/out-pipe.data"; then
		fail "perf inject --aslr --redact=paths,comm,cmdline failed"
		return
	fi
	set +o pipefail
	for f in out.data out-pipe.data; do
		found=$(has_names "${tmpdir}/${f}" ${names})
		[ -z "${found}" ] || fail "${f} holds${found}"
		perf buildid-list -i "${tmpdir}/${f}" 2> /dev/null |
			grep -q '^[0-9a-f]* /~[g-z]\{12\}/.*/ZqPathTool$' ||
			fail "${f}: no build-id for the redacted path of the program"
	done
	perf script -i "${tmpdir}/out.data" -F event,trace 2> /dev/null |
		grep -q 'filename=/~[g-z]\{12\}/.*/ZqPathTool ' ||
		fail "the file name of sched_process_exec has no tokens"
}

test_receiver() {
	echo "The receiver of the output and of its perf archive"
	if ! PERF_BUILDID_DIR="${cache}" bash "${archive}" "${tmpdir}/out.data" \
		> "${tmpdir}/archive.log" 2>&1 ||
	   ! tar xjf "${tmpdir}/out.data.tar.bz2" -C "${tmpdir}/receiver/.debug"; then
		cat "${tmpdir}/archive.log"
		fail "perf archive failed"
		return
	fi
	! tar tjf "${tmpdir}/out.data.tar.bz2" | grep -E 'ZqPath(User|Project)' ||
		fail "the archive names the directories"
	views "${tmpdir}/aslr.data" "${tmpdir}/sender"
	HOME="${tmpdir}/receiver" views "${tmpdir}/out.data" "${tmpdir}/receiver"
	grep -q 'ZqPathTool *\[\.\] ZqWork' "${tmpdir}/sender.report" ||
		fail "no ZqWork in the report of the sender"
	diff "${tmpdir}/sender.report" "${tmpdir}/receiver.report" ||
		fail "perf report differs on the receiver"
	# The comm is a token on the receiver
	diff <(sed 's/^[^ ]* //' "${tmpdir}/sender.script") \
	     <(sed 's/^[^ ]* //' "${tmpdir}/receiver.script") > /dev/null ||
		fail "perf script differs on the receiver"
	if [ -s "${tmpdir}/sender.annotate" ]; then
		diff "${tmpdir}/sender.annotate" "${tmpdir}/receiver.annotate" ||
			fail "perf annotate differs on the receiver"
	else
		echo "perf annotate shows nothing here (no objdump?), not compared"
	fi
}

test_basenames() {
	local found

	echo "--redact-basenames"
	inject "${tmpdir}/in.data" "${tmpdir}/base.data" --redact=paths,comm,cmdline \
		--redact-basenames || { fail "--redact-basenames failed"; return; }
	found=$(has_names "${tmpdir}/base.data" ${names} ZqPathTool)
	[ -z "${found}" ] || fail "base.data holds${found}"
	perf --buildid-dir "${cache}" report -i "${tmpdir}/base.data" --stdio --sort sym \
		-g none 2> /dev/null | grep -q 'ZqWork' ||
		fail "no ZqWork in the report of --redact-basenames"
}

# A directory name that is also the name of a thread, not redacted
test_planted() {
	echo "A thread named as a directory, --redact=paths,cmdline without comm"
	if inject "${tmpdir}/in.data" "${tmpdir}/leak.data" --redact=paths,cmdline \
		2> "${tmpdir}/err"; then
		fail "written with the name of a directory in it"
	elif ! grep -q "'ZqPathProject', a path of the input" "${tmpdir}/err"; then
		cat "${tmpdir}/err"
		fail "no clear error"
	fi
	[ ! -e "${tmpdir}/leak.data" ] || fail "an output was left"
	if inject "${tmpdir}/in.data" "${tmpdir}/opt.data" --redact=comm \
		--redact-basenames 2> /dev/null || [ -e "${tmpdir}/opt.data" ]; then
		fail "--redact-basenames taken without paths"
	fi
}

test_paths
test_receiver
test_basenames
test_planted
cleanup
exit ${err}
