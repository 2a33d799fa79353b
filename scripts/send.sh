#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# git send-email of outgoing/ (made by mail.sh), as the submitter:
#   send.sh dry     git send-email --dry-run: what would be sent, to whom
#   send.sh local   send it for real, to scripts/mbox-sink.sh, which
#                   appends every message to $SENT_MBOX (build/sent.mbox):
#                   the whole path, without a network
# The recipients are those mail.sh wrote into each mail (To:/Cc:), printed
# first.  Cc's that git send-email would add from the body: the sign-off
# (the sender) only, not the Assisted-by: trailers (no address).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

mode=${1:?usage: send.sh dry|local}
submitter
mapfile -t mails < <(find "$OUTGOING" -maxdepth 1 -name '*.patch' 2> /dev/null | sort)
[ ${#mails[@]} -gt 0 ] || die "$OUTGOING has no mails: make -f Makefile.series mail"
made_from=$(awk 'NR == 1 { print $2 }' "${mails[0]}")
# the last commit mailed: the series' last, or a topic's (mail TOPIC=n)
if ! git -C "$TREE" merge-base --is-ancestor "$made_from" "$SERIES_BRANCH" 2> /dev/null ||
   git -C "$TREE" merge-base --is-ancestor "$made_from" "$BASE_TAG"; then
	die "$OUTGOING was made from ${made_from:0:12}, not a commit of the series now ($(git -C "$TREE" rev-parse --short=12 "$SERIES_BRANCH")): make -f Makefile.series mail"
fi
[ -x "$(git --exec-path)/git-send-email" ] ||
	die "git send-email is missing: make -f Makefile.series deps (package git-email)"

step "recipients of the ${#mails[@]} mails in $OUTGOING"
for m in "${mails[@]}"; do
	printf '  %s\n' "$(awk '/^Subject:/ { sub(/^Subject: /, ""); print; exit }' "$m")"
	awk '/^$/ { exit } /^[^ ]/ { h = $1 } h ~ /^(To|Cc):$/ { l = $0; sub(/^(To|Cc): |^    /, "", l); s[h] = s[h] l " " }
	     END { printf "      To: %s\n      Cc: %s\n", s["To:"], s["Cc:"] }' "$m"
done

# The threading is in the mails (format-patch --thread): --no-thread.
# --to-cmd=true: no prompt for more recipients, the mails name them.
opts=(--from="$SUBMITTER" --envelope-sender=auto --confirm=never --no-thread --to-cmd=true
      --suppress-cc=misc-by --no-validate --8bit-encoding=UTF-8)
case "$mode" in
dry)
	step "git send-email --dry-run (nothing is sent)"
	git -C "$TOP" send-email --dry-run "${opts[@]}" "${mails[@]}" |
		grep -v '^(mbox) Adding \(to\|cc\): .* from line .\(To\|Cc\|From\):'
	;;
local)
	step "git send-email to the local sink $SENT_MBOX (nothing leaves the machine)"
	mkdir -p "$(dirname "$SENT_MBOX")"
	: > "$SENT_MBOX"
	SINK_MBOX=$SENT_MBOX git -C "$TOP" send-email "${opts[@]}" \
		--sendmail-cmd="$(printf %q "$TOP/scripts/mbox-sink.sh")" "${mails[@]}" > "${SENT_MBOX%.mbox}.log" 2>&1 ||
		{ cat "${SENT_MBOX%.mbox}.log" >&2; die "git send-email failed"; }
	# what the sink got: subject and number of envelope recipients
	awk '/^From / { h = 1; next } h && /^X-Envelope-To:/ { n = split($0, a, ",") }
	     h && /^Subject:/ { s = substr($0, 10) } h && /^$/ { printf "    %s (to %d)\n", s, n; h = 0 }' "$SENT_MBOX"
	info "$(grep -c '^From ' "$SENT_MBOX") messages in $SENT_MBOX (log: ${SENT_MBOX%.mbox}.log)"
	;;
*) die "usage: send.sh dry|local" ;;
esac
