# SPDX-License-Identifier: GPL-2.0
# Normalise `perf test` output: one line per test and subtest,
#   Ok|FAILED!|Skip<TAB>description[<TAB>skip reason]
# A subtest's description is its test's, " / ", then its own.
# perf test pads a description to the widest one, then ": RESULT": the
# widest has no space before its colon, and a description may hold ": ".
/^ *[0-9]+: / {
	line = $0; sub(/^ *[0-9]+: /, "", line)
	parent = line
	if (match(parent, / *: (Ok|FAILED!|Skip)/))
		parent = substr(parent, 1, RSTART - 1)
	else
		sub(/ *:$/, "", parent)
}
{ sub_test = ($0 ~ /^ *[0-9]+[.:][0-9]+: /) }
/^ *[0-9]+([.:][0-9]+)?: .*: (Ok|FAILED!|Skip.*)$/ {
	line = $0; sub(/^ *[0-9.:]+: /, "", line)
	match(line, / *: (Ok|FAILED!|Skip)/)
	desc = substr(line, 1, RSTART - 1)
	result = substr(line, RSTART); sub(/^ *: /, "", result)
	reason = ""
	if (result ~ /^Skip /) { reason = result; sub(/^Skip /, "", reason); result = "Skip" }
	if (sub_test) desc = parent " / " desc
	printf "%s\t%s\t%s\n", result, desc, reason
}
