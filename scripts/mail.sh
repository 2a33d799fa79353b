#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Make outgoing/: the series as mails, ready for git send-email.
#   VERSION=N (default: the VERSION file)  PREFIX=PATCH  OUTGOING=dir
#   TOPIC=number|name: only that topic of patches/series (make -f
#   Makefile.series topics lists them), a thread of its own with the cover
#   letter Documentation/covers/NAME.txt; git format-patch --base then adds
#   base-commit: and a prerequisite-patch-id: line for each patch of the
#   topics before it, as b4 and the maintainers' tools read them.
# git format-patch --cover-letter --thread -vN --base of the work tree's
# commits $BASE_TAG..$SERIES_BRANCH (they must be what patches/ gives),
# signed off by the submitter (their git identity, see submitter() in
# config.sh), who also becomes the author of patches whose author is the
# workbench's placeholder identity.  The Assisted-by: trailers stay.  The
# cover letter comes from Documentation/cover-letter.txt.  To/Cc of each
# mail: the tree's get_maintainer.pl with MAINTAINERS.snippet appended to
# its MAINTAINERS (SUBMITTER replaced by the submitter); maintainers go to
# To:, reviewers and lists to Cc:, and the lists of MAINTAINERS.snippet
# get every mail, so the whole thread reaches them; the cover letter goes
# to all of them.  The recipients of each mail are printed.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

version=${VERSION:-$(cat "$TOP/VERSION")}
prefix=${PREFIX:-PATCH}
cover_src=${COVER_LETTER:-$TOP/Documentation/cover-letter.txt}
[[ $version =~ ^[1-9][0-9]*$ ]] || die "VERSION=$version: a positive number is needed (the N of [PATCH vN])"
submitter
git=(git -C "$TREE" -c user.name="$SUBMITTER_NAME" -c user.email="$SUBMITTER_EMAIL")

# The mails are made from the commits: they must be what patches/ gives.
[ "$("${git[@]}" rev-parse "$SERIES_BRANCH")" = "$("${git[@]}" rev-parse "$APPLIED_TAG^{commit}")" ] ||
	die "$TREE: branch $SERIES_BRANCH is not what patches/ gives: export it (make -f Makefile.series export) or re-apply"
[ "$("${git[@]}" tag -l --format='%(contents:subject)' "$APPLIED_TAG")" = "series $(series_stamp)" ] ||
	die "patches/ changed since it was applied: make -f Makefile.series apply"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The patches to mail: the series, or the patches first..last of a topic.
mapfile -t commits < <("${git[@]}" rev-list --reverse "$BASE_TAG..$SERIES_BRANCH")
first=1 last=${#commits[@]}
range=$BASE_TAG..$SERIES_BRANCH
if [ -n "${TOPIC:-}" ]; then
	topic=$("$TOP/scripts/topics.sh" | awk -F '\t' -v t="$TOPIC" '$1 == t || $2 == t')
	[ -n "$topic" ] || die "TOPIC=$TOPIC: no such topic (make -f Makefile.series topics lists them)"
	IFS=$'\t' read -r _ name first last _ <<< "$topic"
	cover_src=${COVERS:-$TOP/Documentation/covers}/$name.txt
	[ -f "$cover_src" ] || die "$cover_src: topic $TOPIC has no cover letter, write it (see Documentation/cover-letter.txt)"
	from=$BASE_TAG
	[ "$first" = 1 ] || from=${commits[first - 2]}
	range=$from..${commits[last - 1]}
fi

if [ "$version" -gt 1 ] && ! grep -q "^v$version:" "$cover_src"; then
	die "$cover_src: no 'v$version:' entry under 'Changes since the previous version'"
fi

step "git format-patch v$version '$prefix' of $range into $OUTGOING, signed off by $SUBMITTER"
mkdir -p "$OUTGOING"
rm -f "$OUTGOING"/*.patch
"${git[@]}" format-patch -q --cover-letter --thread=shallow -v"$version" \
	--subject-prefix="$prefix" --base="$BASE_TAG" --signoff --from="$SUBMITTER" \
	--no-renames --filename-max-length=100 -o "$OUTGOING" "$range" > /dev/null
mapfile -t mails < <(find "$OUTGOING" -maxdepth 1 -name '*.patch' | sort)
cover=${mails[0]}
[[ $cover == *-0000-cover-letter.patch ]] || die "no cover letter in $OUTGOING"
n=$(( ${#mails[@]} - 1 ))

# Authorship: --from puts the commit's author in the body when it is not
# the submitter.  A real author stays; the placeholder goes.
for m in "${mails[@]:1}"; do
	awk 'hdr == 0 && /^$/ { hdr = 1; print; next }
	     hdr == 1 { hdr = 2
		if (/^From: perf-aslr-series </) { skip = 1; next } }
	     skip == 1 { skip = 0; if (/^$/) next }
	     { print }' "$m" > "$tmp/m" && cat "$tmp/m" > "$m"
done

# The cover letter: subject and body from Documentation/cover-letter.txt.
grep -v '^#' "$cover_src" > "$tmp/cover.txt"
subject=$(head -n 1 "$tmp/cover.txt")
[ -n "$subject" ] || die "$cover_src: the first line is the subject, it is empty"
"${git[@]}" log --reverse --format=%s "$BASE_TAG..$SERIES_BRANCH" > "$tmp/subjects"
# the patches grouped as in patches/series: a comment right before a
# patch (no blank line between) names its group
awk -v n="$n" -v first="$first" -v last="$last" -v all="${#commits[@]}" '
	NR == FNR { subj[NR] = $0; next }
	/^#/ { c = c (c == "" ? "" : " ") substr($0, 3); next }
	!NF { c = ""; next }
	{ i++
	  if (i < first || i > last) { c = ""; next }
	  if (c != "") { printf "%s%s\n", (i > first ? "\n" : ""), c; c = "" }
	  printf "  [%0*d/%d] %s\n", length(n), i - first + 1, n, subj[i] }
	END { if (i != all) exit 1 }' "$tmp/subjects" "$PATCHES/series" > "$tmp/series.txt" ||
	die "patches/series and $BASE_TAG..$SERIES_BRANCH differ in length"
tail -n +3 "$tmp/cover.txt" | awk -v kver="$KVER" -v list="$tmp/series.txt" '
	/^@SERIES@$/ { while ((getline l < list) > 0) print l; next }
	{ gsub(/@KVER@/, kver); print }' > "$tmp/body.txt"
awk -v subject="$subject" -v body="$tmp/body.txt" '
	/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subject) }
	/^\*\*\* BLURB HERE \*\*\*$/ { while ((getline l < body) > 0) print l; next }
	/^perf-aslr-series \([0-9]+\):$/ { sub(/^perf-aslr-series/, name) }
	{ print }' name="$SUBMITTER_NAME" "$cover" > "$tmp/m" && cat "$tmp/m" > "$cover"

# Recipients.  MAINTAINERS.snippet proposes the submitter as maintainer
# of the files the series adds: they are the sender, not a recipient.
{ cat "$TREE/MAINTAINERS"; echo; export SUBMITTER; grep -v '^#' "$TOP/MAINTAINERS.snippet" |
	awk '(i = index($0, "SUBMITTER")) { $0 = substr($0, 1, i - 1) ENVIRON["SUBMITTER"] substr($0, i + 9) } 1'
} > "$tmp/MAINTAINERS"
for m in "${mails[@]:1}"; do
	(cd "$TREE" && ./scripts/get_maintainer.pl --mpath "$tmp/MAINTAINERS" \
		--no-git --no-git-fallback --rolestats "$m") > "$m.who" ||
		die "get_maintainer.pl failed on $m"
done
# "Name <addr> (role:...)" lines: maintainers, supporters, reviewers, lists
role() { local want=$1; shift; awk -v want="$want" -v self="$SUBMITTER_EMAIL" '
	{ i = index($0, " ("); if (!i) next
	  a = substr($0, 1, i - 1); r = substr($0, i + 2); sub(/[:)].*/, "", r)
	  if (index(a, "<" self ">") || a == self) next
	  if (want == "to" && r ~ /^(maintainer|supporter|odd fixer|chief penguin)$/ ||
	      want == "cc" && r ~ /^(reviewer|.*list)$/) print a }' "$@"; }
sed -n 's/^L:[[:space:]]*//p' "$TOP/MAINTAINERS.snippet" | awk '!seen[$0]++' > "$tmp/lists"
headers() {	# headers MAIL TO-FILE CC-FILE: To:/Cc: before the blank line
	awk -v tof="$2" -v ccf="$3" '
	function field(name, file,   l, s, k) {
		s = ""; k = 0
		while ((getline l < file) > 0) if (!seen[name, l]++) { s = s (k++ ? ",\n    " : "") l }
		if (k) print name ": " s }
	!done && /^$/ { field("To", tof); field("Cc", ccf); done = 1 }
	{ print }' "$1" > "$tmp/m" && cat "$tmp/m" > "$1"
}
show() {	# show MAIL: its recipients, a line for To:, one for Cc:
	printf '  %s\n' "$(basename "$1")"
	awk '/^$/ { exit } /^[^ ]/ { h = $1 } h ~ /^(To|Cc):$/ { l = $0; sub(/^(To|Cc): |^    /, "", l); s[h] = s[h] l " " }
	     END { printf "      To: %s\n      Cc: %s\n", s["To:"] ? s["To:"] : "(nobody: get_maintainer.pl names no maintainer)", s["Cc:"] }' "$1"
}
step "recipients (get_maintainer.pl with MAINTAINERS.snippet)"
role to "$OUTGOING"/*.who | awk '!seen[$0]++' > "$tmp/all.to"
{ role cc "$OUTGOING"/*.who; cat "$tmp/lists"; } | awk '!seen[$0]++' > "$tmp/all.cc"
headers "$cover" "$tmp/all.to" "$tmp/all.cc"
show "$cover"
for m in "${mails[@]:1}"; do
	role to "$m.who" > "$tmp/to"
	{ role cc "$m.who"; cat "$tmp/lists"; } > "$tmp/cc"
	headers "$m" "$tmp/to" "$tmp/cc"
	rm -f "$m.who"
	show "$m"
done

info "$OUTGOING: cover letter and $n patches, [$prefix v$version 0/$n] threaded; next: make -f Makefile.series send-dry"
