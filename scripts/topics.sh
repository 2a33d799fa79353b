#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The topics of patches/series: a "#" line right before a patch starts one
# and names it.  One line per topic, tab-separated:
#   number  name  first  last  title
# number counts the topics from 1 in the order of the series, name is the
# title in lower case with each run of other characters than letters and
# digits made a "-" (at most 50 characters, cut at a "-"), first and last
# are the positions of its patches in the series (from 1), title the text
# of the "#" line.  make -f Makefile.series topics prints them with the
# topics each needs (scripts/topic-deps.sh); mail TOPIC=number|name mails
# one of them, with its cover letter Documentation/covers/NAME.txt.
#   topics.sh patches TOPIC   the paths of the patches of topic TOPIC
#                             (number or name), one a line
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

if [ "${1:-}" = patches ]; then
	topic=$("$0" | awk -F '\t' -v t="${2:-}" '$1 == t || $2 == t')
	[ -n "$topic" ] || die "topic '${2:-}': no such topic (make -f Makefile.series topics lists them)"
	IFS=$'\t' read -r _ _ first last _ <<< "$topic"
	{ grep -v '^#' "$PATCHES/series" || true; } | awk 'NF { print $1 }' |
		sed -n "${first},${last}p" | sed "s|^|$PATCHES/|"
	exit 0
fi

awk '
	/^#/ { c = substr($0, 3); next }
	!NF { c = ""; next }
	{ i++
	  if (c != "") {
		if (t) print t "\t" last
		n++; name = tolower(c); gsub(/[^a-z0-9]+/, "-", name)
		gsub(/^-|-$/, "", name)
		if (length(name) > 50) { name = substr(name, 1, 51); sub(/-[^-]*$/, "", name) }
		t = n "\t" name "\t" i; title = c; c = ""
		t = t; tt[n] = title
	  }
	  last = i "\t" title }
	END { if (t) print t "\t" last }' "$PATCHES/series"
