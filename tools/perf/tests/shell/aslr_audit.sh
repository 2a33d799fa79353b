#!/bin/bash
# perf aslr leak checker
# SPDX-License-Identifier: GPL-2.0
#
# Test tests/shell/lib/aslr_audit.py, the checker that looks for addresses
# of the recording machine in a perf.data that is meant to be shared.

set -e

shelldir=$(dirname "$0")
# shellcheck source=lib/setup_python.sh
. "${shelldir}"/lib/setup_python.sh
audit="${shelldir}/lib/aslr_audit.py"

err=0
tmpdir=$(mktemp -d /tmp/__perf_test.aslr_audit.XXXXX)
orig="${tmpdir}/orig.data"
pipe="${tmpdir}/pipe.data"
log="${tmpdir}/log"
mkdata="${shelldir}/lib/aslr_audit_data.py"

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
  cat "${log}"
  err=1
}

# Run the checker, expect exit code $1, output in ${log}.
expect() {
  local want=$1 rc=0
  shift
  $PYTHON "${audit}" "$@" > "${log}" 2>&1 || rc=$?
  if grep -q Traceback "${log}"; then
    echo "aslr_audit.py $* raised a Python exception"
    return 1
  fi
  if [ "${rc}" != "${want}" ]; then
    echo "aslr_audit.py $* exited ${rc}, expected ${want}"
    return 1
  fi
  return 0
}

# Offset of the first hit, as printed by the checker.
first_hit() {
  grep -m1 -o '^0x[0-9a-f]*' "${log}"
}

test_recorded() {
  echo "Recorded files leak"
  if ! perf record -q -e task-clock -o /dev/null -- true > /dev/null 2>&1
  then
    echo "Skip: perf record -e task-clock isn't permitted on this machine"
    cleanup
    exit 2
  fi
  if ! perf record -g -e task-clock -o "${orig}" perf test -w noploop \
       > /dev/null 2>&1
  then
    echo "perf record -g -e task-clock failed [Failed]"
    cleanup
    exit 1
  fi
  expect 1 "${orig}" "${orig}" || { fail "unmodified file"; return; }
  grep -q "PERF_RECORD_SAMPLE" "${log}" || fail "no sample hit"
  perf inject -i "${orig}" -o "${tmpdir}/inject.data"
  expect 1 "${orig}" "${tmpdir}/inject.data" || fail "perf inject output"

  perf record -g -e task-clock -o - perf test -w thloop > "${pipe}" \
    2> /dev/null
  expect 1 "${pipe}" "${pipe}" || { fail "unmodified pipe file"; return; }
  grep -q "PERF_RECORD_MMAP" "${log}" || fail "no mmap hit in pipe file"
  expect 1 -q "${pipe}" "${pipe}" || fail "-q"
  grep -qx '[1-9][0-9]*' "${log}" || fail "-q does not print a count"
  echo "Recorded files leak [Done]"
}

test_planted() {
  local addr off want
  echo "Planted address"
  expect 1 -v "${orig}" "${orig}" || { fail "-v"; return; }
  # start of the first user map of the recording
  addr=$(grep -m1 -o '(pid [0-9]*) \[0x[0-9a-f]*' "${log}" | \
         sed 's/.*\[//')
  if [ -z "${addr}" ]; then
    fail "no user map in -v output"
    return
  fi

  $PYTHON "${mkdata}" "${tmpdir}/clean.data" --map 0x100000000000 0x10000 \
    --word 0x100000000123 > /dev/null
  expect 0 "${orig}" "${tmpdir}/clean.data" || fail "clean file"

  $PYTHON "${mkdata}" "${tmpdir}/rec.data" --map 0x100000000000 0x10000 \
    --word 0x100000000123 --word "${addr}" > "${tmpdir}/offs"
  want=$(awk '$1 == "word" && $2 == 1 { printf "0x%08x\n", $3 }' \
         "${tmpdir}/offs")
  expect 1 "${orig}" "${tmpdir}/rec.data" || fail "address in a record"
  off=$(first_hit)
  [ "${off}" = "${want}" ] || fail "record hit at ${off}, planted at ${want}"
  grep -q "^1 leak(s) " "${log}" || fail "more than the planted record hit"
  grep -q "PERF_RECORD_SAMPLE #1" "${log}" || fail "record not named"

  $PYTHON "${mkdata}" "${tmpdir}/feat.data" --map 0x100000000000 0x10000 \
    --feature-word "${addr}" > "${tmpdir}/offs"
  want=$(awk '$1 == "feature" { printf "0x%08x\n", $2 }' "${tmpdir}/offs")
  expect 1 "${orig}" "${tmpdir}/feat.data" || fail "address in a feature"
  off=$(first_hit)
  [ "${off}" = "${want}" ] || fail "feature hit at ${off}, planted at ${want}"
  grep -q "^1 leak(s) " "${log}" || fail "more than the planted feature hit"
  grep -q "HEADER_SAMPLE_TIME" "${log}" || fail "feature not named"

  # an 8-byte value at 4 mod 8, as in raw tracepoint data
  $PYTHON "${mkdata}" "${tmpdir}/odd.data" --map 0x100000000000 0x10000 \
    --odd-word "${addr}" > "${tmpdir}/offs"
  want=$(awk '$1 == "odd" { printf "0x%08x\n", $2 }' "${tmpdir}/offs")
  [ $((want % 8)) = 4 ] || fail "odd word planted at ${want}, not at 4 mod 8"
  expect 1 "${orig}" "${tmpdir}/odd.data" || fail "address at 4 mod 8"
  off=$(first_hit)
  [ "${off}" = "${want}" ] || fail "odd word hit at ${off}, planted at ${want}"
  grep -q "^1 leak(s) " "${log}" || fail "more than the planted odd word hit"

  # the high half of an address, in bytes of tracepoint data in no field
  $PYTHON "${mkdata}" "${tmpdir}/hole.data" --map 0x100000000000 0x10000 \
    --tp-hole 0 > /dev/null
  expect 0 "${orig}" "${tmpdir}/hole.data" || fail "tracepoint data, zero hole"
  $PYTHON "${mkdata}" "${tmpdir}/hole.data" --map 0x100000000000 0x10000 \
    --tp-hole $((addr >> 32)) > "${tmpdir}/offs"
  want=$(awk '$1 == "hole" { printf "0x%08x\n", $2 }' "${tmpdir}/offs")
  expect 1 "${orig}" "${tmpdir}/hole.data" || fail "stale bytes in a hole"
  off=$(first_hit)
  [ "${off}" = "${want}" ] || fail "hole hit at ${off}, planted at ${want}"
  grep -q "^1 leak(s) " "${log}" || fail "more than the planted hole hit"
  grep -q "in no field of sys_enter_test (raw data +0xc)" "${log}" ||
    fail "hole not named"

  # an address at the start of a tracepoint field; across two fields, the
  # halves of two values (the high half of one and the low half of the
  # next make the address by chance), no value
  $PYTHON "${mkdata}" "${tmpdir}/tp.data" --map 0x100000000000 0x10000 \
    --tp-at 16 "${addr}" > "${tmpdir}/offs"
  want=$(awk '$1 == "at" { printf "0x%08x\n", $3 }' "${tmpdir}/offs")
  expect 1 "${orig}" "${tmpdir}/tp.data" || fail "address in a tracepoint field"
  off=$(first_hit)
  [ "${off}" = "${want}" ] || fail "field hit at ${off}, planted at ${want}"
  grep -q "^1 leak(s) " "${log}" || fail "more than the planted field hit"
  $PYTHON "${mkdata}" "${tmpdir}/tp.data" --map 0x100000000000 0x10000 \
    --tp-at 20 "${addr}" > /dev/null
  expect 0 "${orig}" "${tmpdir}/tp.data" || fail "across two tracepoint fields"

  # an address written as text
  $PYTHON "${mkdata}" "${tmpdir}/text.data" --map 0x100000000000 0x10000 \
    --hostname "${addr}" > "${tmpdir}/offs"
  # the digits, after the 0x
  want=$(awk '$1 == "hostname" { printf "0x%08x\n", $2 + 2 }' "${tmpdir}/offs")
  expect 1 "${orig}" "${tmpdir}/text.data" || fail "address as text"
  off=$(first_hit)
  [ "${off}" = "${want}" ] || fail "text hit at ${off}, planted at ${want}"
  grep -q "^1 leak(s) " "${log}" || fail "more than the planted text hit"
  grep -q "HEADER_HOSTNAME" "${log}" || fail "text feature not named"
  # glued to letters and digits, without 0x: h7f..., abs_7f..., cafe7f...
  for text in "h${addr#0x}" "abs_${addr#0x}" "0123456789abcdef${addr#0x}"; do
    $PYTHON "${mkdata}" "${tmpdir}/text.data" --map 0x100000000000 0x10000 \
      --hostname "${text}" > "${tmpdir}/offs"
    want=$(awk -v n=$((${#text} - ${#addr} + 2)) \
           '$1 == "hostname" { printf "0x%08x\n", $2 + n }' "${tmpdir}/offs")
    expect 1 "${orig}" "${tmpdir}/text.data" || fail "address as text in ${text}"
    off=$(first_hit)
    [ "${off}" = "${want}" ] || fail "text hit at ${off}, planted at ${want} in ${text}"
  done

  # big endian files
  $PYTHON "${mkdata}" "${tmpdir}/be-orig.data" --be \
    --map 0x7f1234560000 0x10000 > /dev/null
  $PYTHON "${mkdata}" "${tmpdir}/be-out.data" --be \
    --map 0x100000000000 0x10000 --word 0x7f1234561234 > "${tmpdir}/offs"
  want=$(awk '$1 == "word" { printf "0x%08x\n", $3 }' "${tmpdir}/offs")
  expect 1 "${tmpdir}/be-orig.data" "${tmpdir}/be-out.data" || \
    fail "big endian"
  [ "$(first_hit)" = "${want}" ] || fail "big endian offset"
  echo "Planted address [Done]"
}

test_not_leaks() {
  local kstart=0xffffffff9a000000 klen=0x65ffffff
  echo "Non-leaks are not flagged"
  # The original kernel map runs to the top of the address space, as
  # kernel maps do, and covers the markers and the vsyscall page.
  $PYTHON "${mkdata}" "${tmpdir}/korig.data" --kmap ${kstart} ${klen} \
    --map 0x7f0000000000 0x100000 > /dev/null
  # PERF_CONTEXT_USER, PERF_CONTEXT_KERNEL, vsyscall, a small value and
  # a value in a canonical map that overlaps an original one
  $PYTHON "${mkdata}" "${tmpdir}/kout.data" --kmap 0xffffffff81000000 \
    0x2000000 --map 0x7f0000080000 0x100000 \
    --word 0xfffffffffffffe00 --word 0xffffffffffffff80 \
    --word 0xffffffffff600400 --word 0x1000 \
    --word 0x7f0000090000 --word 0xffffffff81001234 > /dev/null
  expect 0 "${tmpdir}/korig.data" "${tmpdir}/kout.data" || \
    fail "non-leaks flagged"
  grep -q "warning: canonical ranges overlap" "${log}" || \
    fail "no overlap warning"
  # ... while a kernel address of the original map is found
  $PYTHON "${mkdata}" "${tmpdir}/kout2.data" --kmap 0xffffffff81000000 \
    0x2000000 --word 0xfffffffffffffe00 --word 0xffffffff9a001234 \
    > /dev/null
  expect 1 "${tmpdir}/korig.data" "${tmpdir}/kout2.data" || \
    fail "kernel address not found"
  grep -q "^1 leak(s) " "${log}" || fail "more than the kernel address hit"
  # a 16 TiB mapping (sanitizer shadow memory) is not checked, with a warning
  $PYTHON "${mkdata}" "${tmpdir}/horig.data" --map 0x7fff8000 0x100000000000 \
    --map 0x7f0000000000 0x100000 > /dev/null
  $PYTHON "${mkdata}" "${tmpdir}/hout.data" --map 0x100000000000 0x10000 \
    --word 0x617461642e74 > /dev/null
  expect 0 "${tmpdir}/horig.data" "${tmpdir}/hout.data" || \
    fail "value in a huge mapping flagged"
  grep -q "warning: 1 mapping(s) of 1 TiB or more" "${log}" || \
    fail "no warning for the huge mapping"
  echo "Non-leaks are not flagged [Done]"
}

test_corrupt() {
  local size
  echo "Corrupt input"
  size=$(stat -c %s "${orig}")
  head -c $((size / 2)) "${orig}" > "${tmpdir}/trunc.data"
  expect 2 "${orig}" "${tmpdir}/trunc.data" || fail "truncated file"
  grep -q "trunc.data: offset" "${log}" || fail "truncation not located"

  size=$(stat -c %s "${pipe}")
  head -c $((size - 4)) "${pipe}" > "${tmpdir}/trunc-pipe.data"
  expect 2 "${tmpdir}/trunc-pipe.data" "${pipe}" || fail "truncated pipe"

  # record size 0: the first record of the synthetic file is at 256
  cp "${tmpdir}/clean.data" "${tmpdir}/zero.data"
  printf '\0\0' | dd of="${tmpdir}/zero.data" bs=1 seek=262 conv=notrunc \
    status=none
  expect 2 "${orig}" "${tmpdir}/zero.data" || fail "record size 0"
  grep -q "invalid size 0" "${log}" || fail "record size 0 not reported"

  head -c 100 /dev/zero > "${tmpdir}/garbage.data"
  expect 2 "${orig}" "${tmpdir}/garbage.data" || fail "garbage file"
  : > "${tmpdir}/empty.data"
  expect 2 "${tmpdir}/empty.data" "${orig}" || fail "empty file"
  expect 2 "${orig}" "${tmpdir}/missing.data" || fail "missing file"
  echo "Corrupt input [Done]"
}

# The records in PERF_RECORD_COMPRESSED (perf record -z) are read too.
test_compressed() {
  local zdata="${tmpdir}/z.data"
  echo "Compressed records"
  if ! $PYTHON -c 'import zstandard' 2> /dev/null; then
    echo "Skip compressed records: $PYTHON has no zstandard module (python3-zstandard)"
    return
  fi
  if ! perf check feature -q zstd; then
    echo "Skip compressed records: perf built without zstd"
    return
  fi
  if ! perf record -z -e task-clock -o "${zdata}" perf test -w noploop \
       > /dev/null 2>&1
  then
    fail "perf record -z"
    return
  fi
  expect 1 "${zdata}" "${zdata}" || { fail "compressed file"; return; }
  grep -q "of ${zdata} (decompressed records): .* in PERF_RECORD_" "${log}" || \
    fail "no hit located in the decompressed records"
  echo "Compressed records [Done]"
}

test_recorded
test_planted
test_not_leaks
test_corrupt
test_compressed

cleanup
exit ${err}
