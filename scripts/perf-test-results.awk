# SPDX-License-Identifier: GPL-2.0
# Normalise `perf test` output: one line per test and subtest,
#   Ok|FAILED!|Skip<TAB>description[<TAB>skip reason]
# A subtest's description is its test's, " / ", then its own.
/^ *[0-9]+: / {
	line = $0; sub(/^ *[0-9]+: /, "", line)
	parent = line; sub(/ +:.*$/, "", parent)
}
{ sub_test = ($0 ~ /^ *[0-9]+[.:][0-9]+: /) }
/^ *[0-9]+([.:][0-9]+)?: .* : (Ok|FAILED!|Skip.*)$/ {
	line = $0; sub(/^ *[0-9.:]+: /, "", line)
	result = line; sub(/^.* : /, "", result)
	reason = ""
	if (result ~ /^Skip /) { reason = result; sub(/^Skip /, "", reason); result = "Skip" }
	desc = line; sub(/ +: [^:]*$/, "", desc)
	if (sub_test) desc = parent " / " desc
	printf "%s\t%s\t%s\n", result, desc, reason
}
