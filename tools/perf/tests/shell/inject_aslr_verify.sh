#!/bin/bash
# perf inject --aslr: the check of the output
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # err, tmpdir, ...: inject_aslr_setup sets them

shelldir=$(dirname "$0")
# shellcheck source=lib/inject_aslr.sh
. "${shelldir}/lib/inject_aslr.sh"
inject_aslr_setup

# The check of its output that perf inject --aslr makes: an input whose host
# name holds an address of its own (--aslr keeps the host name) is refused,
# from and to a file and a pipe, with nothing left under the output name;
# --strip-host drops the name; --no-aslr-verify writes it all the same, and
# the leak checker finds it there.
test_verify() {
	local d="${tmpdir}/verify" addr rec f ret

	mkdir "${d}"
	if ! command -v setarch > /dev/null || ! command -v unshare > /dev/null; then
		skip "no setarch or unshare to plant an address"
	fi
	# Without randomization (setarch -R) the workload is where it was in
	# the first recording: name the host after an address of it.
	if ! setarch -R perf record -q -o "${d}/first.data" -e task-clock:u -- true \
			> /dev/null 2>&1; then
		skip "setarch -R isn't permitted here"
	fi
	addr=$(perf script -i "${d}/first.data" --show-mmap-events 2> /dev/null |
	       sed -n 's/.*MMAP2 .*: \[0x\([0-9a-f]*\)(.* r-xp .*\/true$/\1/p' | head -1)
	if [ -z "${addr}" ]; then
		fail "verify: no executable mapping of true in the recording"
		return
	fi
	addr=$(printf '%x' $((16#${addr} + 0x100)))
	rec="setarch -R perf record -q -e task-clock:u"
	if ! unshare -u sh -c "hostname h${addr} && ${rec} -o '${d}/orig.data' -- true &&
			${rec} -o - -- true > '${d}/orig.pipe'" > /dev/null 2>&1; then
		skip "can't record under another host name (unshare -u)"
	fi
	if ! perf report --header-only -i "${d}/orig.data" 2> /dev/null |
			grep -q "^# hostname : h${addr}$"; then
		fail "verify: the host name isn't planted"
		return
	fi

	for f in file-file pipe-file pipe-pipe; do
		local in="${d}/orig.data" out="${d}/out.data"

		[ "${f%-*}" = file ] || in=-
		[ "${f#*-}" = file ] || out=-
		if perf inject --aslr -i "${in}" -o "${out}" < "${d}/orig.pipe" \
				> "${d}/out.pipe" 2> "${d}/err.txt"; then
			fail "verify ${f}: an output with an address of the input written"
		elif ! grep -q "0x${addr}, an address of the input, .* as text" "${d}/err.txt"; then
			fail "verify ${f}: no clear error"
			cat "${d}/err.txt"
		fi
		if [ -e "${d}/out.data" ] || ls "${d}"/out.data.inject-tmp.* > /dev/null 2>&1; then
			fail "verify ${f}: output left behind"
			rm -f "${d}"/out.data*
		fi
	done

	if ! perf inject --aslr --strip-host -v -i "${d}/orig.data" -o "${d}/strip.data" \
			2> "${d}/err.txt"; then
		fail "verify: --strip-host refused"
	elif ! grep -q "aslr: verified the output: [1-9][0-9]* records" "${d}/err.txt"; then
		fail "verify: -v doesn't say what was verified"
	fi
	if ! perf inject --aslr --no-aslr-verify -i "${d}/orig.data" -o "${d}/unverified.data"; then
		fail "verify: --no-aslr-verify refused"
	else
		# 1: a leak found; 0 (none) or 2 (no check) would miss it.
		ret=0
		"${audit_python}" "${audit}" "${d}/orig.data" "${d}/unverified.data" \
			> /dev/null || ret=$?
		[ "${ret}" = 1 ] ||
			fail "verify: the leak checker doesn't find the host name (exit ${ret})"
	fi
}
test_verify

cleanup
exit ${err}
