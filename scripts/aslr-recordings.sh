#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf inject --aslr over every perf.data of a directory of recordings made
# elsewhere (RECORDINGS=DIR): per file, written or refused (with perf's
# reason), samples in and out, whether perf report --sort comm,dso gives
# the same lines, and the leak checker's hits; then the totals.  The
# outputs, logs and report differences are in build/recordings/.  Fails
# if a file written has a leak.  INJECT_OPTS="--redact=all" adds options
# to perf inject (with --redact the reports are compared by dso only: the
# names of threads are tokens).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

dir=${1:-${RECORDINGS:-}}
if [ -z "$dir" ] || [ ! -d "$dir" ]; then
	die "usage: $0 DIR (or RECORDINGS=DIR): a directory of perf.data files"
fi
out=$BUILD/recordings
audit=$TREE/tools/perf/tests/shell/lib/aslr_audit.py
py=python3
! /usr/bin/python3 -c 'import zstandard' 2> /dev/null || py=/usr/bin/python3
rm -rf "$out"
mkdir -p "$out"

# samples FILE: the number of samples perf reads from FILE.
samples() {
	"$PERF" report -i "$1" --stats 2> /dev/null | awk '/ SAMPLE events:/ { n = $3 } END { print n + 0 }'
}

# report FILE: the lines of perf report --sort comm,dso (or dso), without comments,
# of the samples recorded: the samples decoded from AUX area data (Intel
# PT) are not, the AUX area data is not written.
opts=${INJECT_OPTS:-}
sort_keys=comm,dso
[[ $opts != *--redact* ]] || sort_keys=dso
report() {
	"$PERF" report -i "$1" --stdio --sort "$sort_keys" -g none --no-itrace 2> /dev/null |
		grep -v '^#' | grep . || true
}

total=0 written=0 refused=0 leaky=0 differ=0 in_all=0 out_all=0 hits_all=0
printf '%-48s %-8s %8s %8s %-7s %s\n' file result in out report audit
for f in "$dir"/perf.data* "$dir"/*.data; do
	[ -f "$f" ] || continue
	name=$(basename "$f")
	o=$out/$name.aslr
	total=$((total + 1))
	in=$(samples "$f")
	in_all=$((in_all + in))
	# shellcheck disable=SC2086 # options, split
	if ! "$PERF" inject --aslr $opts -v -i "$f" -o "$o" > "$out/$name.log" 2>&1; then
		refused=$((refused + 1))
		why=$(grep -E 'error|aslr|redact|failed|Error' "$out/$name.log" | grep -v '^aslr: ' | head -n 1 || true)
		printf '%-48s %-8s %8s %8s %-7s %s\n' "$name" refused "$in" - - "${why:0:120}"
		continue
	fi
	written=$((written + 1))
	n=$(samples "$o")
	out_all=$((out_all + n))
	if diff <(report "$f") <(report "$o") > "$out/$name.report.diff"; then
		same=equal
	else
		same=differs
	fi
	hits=$("$py" "$audit" "$f" "$o" 2> "$out/$name.audit.err" | tee "$out/$name.audit" |
	       awk '/leak\(s\) of/ { n = $1 } END { print n == "" ? "error" : n }') || true
	[ "$hits" = error ] || hits_all=$((hits_all + hits))
	[ "$hits" = 0 ] || leaky=$((leaky + 1))
	[ "$same" = equal ] || differ=$((differ + 1))
	printf '%-48s %-8s %8s %8s %-7s %s\n' "$name" written "$in" "$n" "$same" "$hits"
done
echo "$total files: $written written, $refused refused; samples $in_all in, $out_all out (of the files written); $differ with another report; $hits_all audit hits in $leaky"
[ "$leaky" = 0 ]
