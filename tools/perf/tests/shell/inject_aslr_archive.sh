#!/bin/bash
# perf archive of perf inject --aslr holds no kernel address
# SPDX-License-Identifier: GPL-2.0
#
# perf record caches a copy of kallsyms with the addresses of the machine.
# The archive of an --aslr output has one in the remapped layout instead,
# under the build-id the output gives the kernel: none of the addresses of
# the cached copy is in it, and a receiver with a HOME of its own and the
# archive sees the kernel symbols the sender sees.

set -e

err=0
tmpdir=$(mktemp -d /tmp/__perf_test.inject_aslr_archive.XXXXXX)
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

text=$(awk '$3 == "_text" { print $1; exit }' /proc/kallsyms)
[ -n "${text}" ] && [ "${text}" != "${text//[1-9a-f]/}" ] ||
	skip "no kernel addresses in /proc/kallsyms (kptr_restrict)"
[ -f "${archive}" ] || skip "no perf-archive.sh beside the tests"
mkdir -p "${cache}" "${tmpdir}/receiver/.debug"
if ! perf --buildid-dir "${cache}" record -q -e cpu-clock -c 100000 -o "${tmpdir}/in.data" \
	-- dd if=/dev/zero of=/dev/null bs=1k count=300000 2> "${tmpdir}/err"; then
	cat "${tmpdir}/err"
	skip "perf record of cpu-clock failed"
fi

# kernel_build_id FILE: the build-id FILE gives the kernel
kernel_build_id() {
	perf buildid-list -i "$1" 2> /dev/null | awk '$2 == "[kernel.kallsyms]" { print $1 }'
}

in_bid=$(kernel_build_id "${tmpdir}/in.data")
[ -n "${in_bid}" ] || skip "perf record cached no kallsyms for the kernel"
orig="${cache}/[kernel.kallsyms]/${in_bid}/kallsyms"
if [ ! -s "${orig}" ]; then
	# As perf record caches it, which it doesn't on every machine
	mkdir -p "${orig%/*}" "${cache}/.build-id/${in_bid:0:2}"
	cat /proc/kallsyms > "${orig}"
	ln -s "../../[kernel.kallsyms]/${in_bid}" "${cache}/.build-id/${in_bid:0:2}/${in_bid:2}"
fi

if ! perf --buildid-dir "${cache}" inject --aslr -i "${tmpdir}/in.data" \
	-o "${tmpdir}/out.data" ||
   ! PERF_BUILDID_DIR="${cache}" bash "${archive}" "${tmpdir}/out.data" \
	> "${tmpdir}/archive.log" 2>&1 ||
   ! tar xjf "${tmpdir}/out.data.tar.bz2" -C "${tmpdir}/receiver/.debug"; then
	cat "${tmpdir}/archive.log"
	fail "perf inject --aslr or perf archive failed"
	cleanup
	exit 1
fi

# Again: the copy is in the cache already, and that is no error
perf --buildid-dir "${cache}" inject --aslr -i "${tmpdir}/in.data" -o "${tmpdir}/again.data" \
	2> "${tmpdir}/again.err" || fail "perf inject --aslr failed the second time"
if grep -q "build-id cache" "${tmpdir}/again.err"; then
	cat "${tmpdir}/again.err"
	fail "perf inject --aslr can't cache the kallsyms it cached the first time"
fi

out_bid=$(kernel_build_id "${tmpdir}/out.data")
copy="${tmpdir}/receiver/.debug/[kernel.kallsyms]/${out_bid}/kallsyms"
[ "${out_bid}" != "${in_bid}" ] || fail "the kernel of the output has the build-id of the input"
[ -s "${copy}" ] || fail "the archive has no kallsyms for the kernel of the output"
[ ! -e "${tmpdir}/receiver/.debug/[kernel.kallsyms]/${in_bid}" ] ||
	fail "the archive has the kallsyms perf record cached"
# The addresses of the cached copy, as words of any file of the archive
n=$(find "${tmpdir}/receiver/.debug" -type f -exec cat {} + |
    awk 'NR == FNR { if ($1 !~ /^0+$/) a[$1]; next } { for (i = 1; i <= NF; i++) if ($i in a) n++ }
	 END { print n + 0 }' "${orig}" -)
[ "${n}" = 0 ] || fail "the archive holds ${n} addresses of the kallsyms of the recording"
grep -q -w "_text" "${copy}" 2> /dev/null || fail "no _text in the kallsyms of the archive"

perf --buildid-dir "${cache}" report -i "${tmpdir}/in.data" --stdio --sort sym -g none \
	2> /dev/null | grep '\[k\]' > "${tmpdir}/sender.syms" || true
HOME="${tmpdir}/receiver" perf report -i "${tmpdir}/out.data" --stdio --sort sym -g none \
	2> /dev/null | grep '\[k\]' > "${tmpdir}/receiver.syms" || true
[ -s "${tmpdir}/sender.syms" ] || fail "no kernel symbols in the report of the recording"
diff "${tmpdir}/sender.syms" "${tmpdir}/receiver.syms" ||
	fail "the receiver sees other kernel symbols"

cleanup
exit ${err}
