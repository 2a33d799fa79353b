#!/bin/bash
# perf kallmodsyms annotations in report, kallsyms and script
# SPDX-License-Identifier: GPL-2.0
#
# Record once with kernel samples, then make kallmodsyms files out of this
# machine's /proc/kallsyms: two hot kernel symbols get the same name and
# different object files, a third one two built-in modules. perf report
# must show them as distinct annotated rows with the percentages they had.

set -e

err=0
tmpdir=$(mktemp -d /tmp/perf-kallmodsyms.XXXXXX)
data="${tmpdir}/perf.data"

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
	echo "FAIL: $*"
	err=1
}

# shellcheck source=lib/skip.sh
. "$(dirname "$0")/lib/skip.sh"

# "PERCENT NAME" for each kernel row of the report, e.g. "26.25 do_syscall_64"
report_sym() {
	# $1: kallsyms file, $2...: extra report options
	local kallsyms=$1

	shift
	perf report -i "${data}" --kallsyms="${kallsyms}" --stdio --no-children \
		-g none --sort sym -q "$@" 2> /dev/null |
		sed -n 's/^ *\([0-9.]*\)%  \[k\] \(.*[^ ]\) *$/\1 \2/p'
}

# "PERCENT MODULE" for each row of the report sorted by kmod.
report_kmod() {
	local kallsyms=$1

	shift
	perf report -i "${data}" --kallsyms="${kallsyms}" --stdio --no-children \
		-g none --sort kmod -q "$@" 2> /dev/null |
		sed -n 's/^ *\([0-9.]*\)%  \(.*[^ ]\) *$/\1 \2/p'
}

# The percentage of a row, 0 if there is none.
percent() {
	# $1: rows, $2: name
	awk -v n="$2" '{ p = $1; sub(/^[0-9.]+ /, ""); if ($0 == n) { print p; f = 1; exit } }
		END { if (!f) print 0 }' <<< "$1"
}

# $1 and $2 are equal percentages, give or take the rounding of two rows.
same_percent() {
	awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; exit !(d < 0.025 && d > -0.025) }'
}

expect_row() {
	# $1: test, $2: rows, $3: name, $4: expected percentage
	local got

	got=$(percent "$2" "$3")
	if ! same_percent "${got}" "$4"; then
		fail "$1: row '$3' has ${got}%, expected $4%"
		echo "$2" | head -n 10
	fi
}

if ! [ -r /proc/kallsyms ] ||
   ! awk '$1 !~ /^0+$/ { f = 1; exit } END { exit !f }' /proc/kallsyms; then
	skip "no kernel addresses in /proc/kallsyms (kptr_restrict)"
fi
cp /proc/kallsyms "${tmpdir}/kallsyms"
# With kallsyms perf also reads the modules.builtin.ranges of the kernel, if
# there is one, under --symfs: not this machine's one, for the reference.
mkdir "${tmpdir}/empty"

# A kernel heavy workload: one byte reads and writes.
if ! perf record -q -o /dev/null -e cpu-clock -- true > /dev/null 2>&1; then
	skip "perf record -e cpu-clock isn't permitted on this machine"
fi
if [ "$(id -u)" != 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 1 ]; then
	skip "kernel samples need root or perf_event_paranoid <= 1"
fi
if ! perf record -o "${data}" -e cpu-clock -F 4000 -g -- \
	dd if=/dev/zero of=/dev/null bs=1 count=200000 > /dev/null 2>&1; then
	echo "FAIL: perf record -e cpu-clock failed"
	cleanup
	exit 1
fi

base=$(report_sym "${tmpdir}/kallsyms" --symfs="${tmpdir}/empty")
# Three hot kernel symbols whose name is unique and address has no alias.
hot=$(awk '{ print $2 }' <<< "${base}" | grep -v '^0x' |
	awk -v k="${tmpdir}/kallsyms" '
		BEGIN {
			while ((getline l < k) > 0) {
				split(l, f, " ")
				n[f[3]]++
				a[f[3]] = f[1]
				c[f[1]]++
			}
		}
		n[$1] == 1 && c[a[$1]] == 1 { print $1; if (++i == 3) exit }')
if [ "$(wc -l <<< "${hot}")" != 3 ]; then
	echo "FAIL: fewer than three hot kernel symbols in $(wc -l <<< "${base}") kernel rows"
	cleanup
	exit 1
fi
sym_a=$(sed -n 1p <<< "${hot}")
sym_b=$(sed -n 2p <<< "${hot}")
sym_c=$(sed -n 3p <<< "${hot}")
pct_a=$(percent "${base}" "${sym_a}")
pct_b=$(percent "${base}" "${sym_b}")
pct_c=$(percent "${base}" "${sym_c}")
echo "hot symbols: ${sym_a} ${pct_a}%, ${sym_b} ${pct_b}%, ${sym_c} ${pct_c}%"

# Type A, as posted upstream.
awk -v a="${sym_a}" -v b="${sym_b}" -v c="${sym_c}" '
	NF == 3 && $3 == a { print $1, $2, "kmodtest_dup\t{core.o}"; next }
	NF == 3 && $3 == b { print $1, $2, "kmodtest_dup\t{uncore.o}"; next }
	NF == 3 && $3 == c { print $1, $2, c "\t[kmodtest_a] [kmodtest_b]"; next }
	{ print }' "${tmpdir}/kallsyms" > "${tmpdir}/kallmodsyms"
# Type B, as shipped by UEK: with a size.
sed -E 's/^([0-9a-f]+) /\1 0 /' "${tmpdir}/kallmodsyms" > "${tmpdir}/kallmodsyms.b"

check_annotated_rows() {
	# $1: test, $2: kallmodsyms file
	local rows

	rows=$(report_sym "$2")
	expect_row "$1" "${rows}" "kmodtest_dup {core.o}" "${pct_a}"
	expect_row "$1" "${rows}" "kmodtest_dup {uncore.o}" "${pct_b}"
	expect_row "$1" "${rows}" "${sym_c} [kmodtest_a] [kmodtest_b]" "${pct_c}"
	if [ "$(grep -c '^[0-9.]* kmodtest_dup ' <<< "${rows}")" != 2 ]; then
		fail "$1: not two distinct kmodtest_dup rows"
		echo "${rows}" | head -n 10
	fi
}

# perf report shows the annotations, with the percentages of the symbols.
check_annotated_rows "type A" "${tmpdir}/kallmodsyms"
check_annotated_rows "type B" "${tmpdir}/kallmodsyms.b"

# perf inject --aslr moves the kernel: its symbols, annotations included,
# still resolve with the same file.
if perf inject --aslr -i "${data}" -o "${tmpdir}/aslr.data" 2> /dev/null; then
	orig_data=${data}
	data="${tmpdir}/aslr.data"
	check_annotated_rows "--aslr" "${tmpdir}/kallmodsyms"
	data=${orig_data}
else
	fail "perf inject --aslr failed"
fi

# No symbol is lost as an inconsistency with /proc/modules: the annotations
# aren't taken for modules (pseudo modules like [__builtin__ftrace] may give
# some, as with kallsyms).
inconsistencies() {
	perf report -i "${data}" --kallsyms="$1" --stdio -v 2>&1 > /dev/null |
		grep -c 'inconsistency' || true
}
if [ "$(inconsistencies "${tmpdir}/kallmodsyms")" != \
     "$(inconsistencies "${tmpdir}/kallsyms")" ]; then
	fail "report: more 'inconsistency' lines with the kallmodsyms file"
fi

# --no-kmod-annotation: the same rows, without annotation.
rows=$(report_sym "${tmpdir}/kallmodsyms" --no-kmod-annotation)
if [ "$(grep -c '^[0-9.]* kmodtest_dup$' <<< "${rows}")" != 2 ] ||
   grep -q '{core.o}' <<< "${rows}"; then
	fail "--no-kmod-annotation: rows not as expected"
	echo "${rows}" | head -n 10
fi
expect_row "--no-kmod-annotation" "${rows}" "${sym_c}" "${pct_c}"

# The kmod sort key: the built-in modules, vmlinux and user space.
kbase=$(report_kmod "${tmpdir}/kallsyms" --symfs="${tmpdir}/empty")
vmlinux=$(percent "${kbase}" vmlinux)
user=$(percent "${kbase}" -)
rows=$(report_kmod "${tmpdir}/kallmodsyms")
expect_row "kmod" "${rows}" "kmodtest_a kmodtest_b" "${pct_c}"
expect_row "kmod" "${rows}" "vmlinux" \
	"$(awk -v v="${vmlinux}" -v c="${pct_c}" 'BEGIN { print v - c }')"
expect_row "kmod" "${rows}" "-" "${user}"

# perf kallsyms prints every symbol of a name, with its annotation.
out=$(perf kallsyms --kallsyms="${tmpdir}/kallmodsyms" kmodtest_dup 2>&1)
if [ "$(grep -c '^kmodtest_dup {core.o}: ' <<< "${out}")" != 1 ] ||
   [ "$(grep -c '^kmodtest_dup {uncore.o}: ' <<< "${out}")" != 1 ]; then
	fail "perf kallsyms: kmodtest_dup not found twice"
	echo "${out}"
fi
out=$(perf kallsyms --kallsyms="${tmpdir}/kallmodsyms.b" "${sym_c}" 2>&1)
if ! grep -q "^${sym_c} \[kmodtest_a\] \[kmodtest_b\]: " <<< "${out}"; then
	fail "perf kallsyms: ${sym_c} without its modules in a type B file"
	echo "${out}"
fi

# perf script -F +kmod
out=$(perf script -i "${data}" --kallsyms="${tmpdir}/kallmodsyms" -F +kmod 2> /dev/null)
if ! grep -q 'kmodtest_dup\(+0x[0-9a-f]*\)\? {core.o}' <<< "${out}" ||
   ! grep -q 'kmodtest_dup\(+0x[0-9a-f]*\)\? {uncore.o}' <<< "${out}"; then
	fail "perf script -F +kmod: no annotation"
fi
if perf script -i "${data}" --kallsyms="${tmpdir}/kallmodsyms" 2> /dev/null |
	grep -q '{core.o}'; then
	fail "perf script: annotation without -F +kmod"
fi

# kallsyms with a modules.builtin.ranges, in /lib/modules/RELEASE/ under
# --symfs: the same [mod] rows. Offsets are from the anchor of the section,
# ranges of a section without anchor are ignored.
release=$(perf report -i "${data}" --header-only 2> /dev/null |
	sed -n 's/^# os release : //p')
addr() {
	awk -v s="$1" 'NF == 3 && $3 == s { print $1; exit }' "${tmpdir}/kallsyms"
}
text=$(addr _text)
stext=$(addr _stext)
if [ -z "${release}" ] || [ -z "${text}" ] || [ -z "${stext}" ]; then
	fail "ranges: no os release in perf.data or no _text/_stext in kallsyms"
else
	ranges="${tmpdir}/root/lib/modules/${release}/modules.builtin.ranges"
	mkdir -p "$(dirname "${ranges}")"
	off_c=$((16#$(addr "${sym_c}") - 16#${text}))
	off_b=$((16#$(addr "${sym_b}") - 16#${stext}))
	{
		echo ".text 00000000-00000000 = _text"
		printf '.text %08x-%08x kmodtest_a kmodtest_b\n' "${off_c}" "$((off_c + 1))"
		echo ".ktest 00000000-00000000 = _stext"
		printf '.ktest %08x-%08x kmodtest_c\n' "${off_b}" "$((off_b + 1))"
		printf '.orphan 00000000-%08x kmodtest_orphan\n' "$((off_c + 0x100000))"
	} > "${ranges}"
	rows=$(report_sym "${tmpdir}/kallsyms" --symfs="${tmpdir}/root")
	expect_row "ranges" "${rows}" "${sym_c} [kmodtest_a] [kmodtest_b]" "${pct_c}"
	expect_row "ranges" "${rows}" "${sym_b} [kmodtest_c]" "${pct_b}"
	expect_row "ranges" "${rows}" "${sym_a}" "${pct_a}"
	if grep -q kmodtest_orphan <<< "${rows}"; then
		fail "ranges: range of a section without anchor used"
	fi
	rows=$(report_kmod "${tmpdir}/kallsyms" --symfs="${tmpdir}/root")
	expect_row "ranges kmod" "${rows}" "kmodtest_a kmodtest_b" "${pct_c}"
	expect_row "ranges kmod" "${rows}" "kmodtest_c" "${pct_b}"
fi

cleanup
exit ${err}
