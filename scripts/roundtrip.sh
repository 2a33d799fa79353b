#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The submission round trip: the series as sent by send-local, applied with
# git am to a pristine v6.12.107, gives exactly the tree quilt gives.
#   roundtrip.sh          the whole path: mail.sh and send.sh local into
#                         build/roundtrip/, as the clearly fake submitter
#                         "Round-Trip Test <round-trip-test@example.invalid>"
#                         (no git identity is needed, e.g. in CI), then
#   roundtrip.sh MBOX     only this: check MBOX (e.g. build/sent.mbox)
#   roundtrip.sh topics   each topic of patches/series (scripts/topics.sh)
#                         mailed as a thread of its own (mail.sh TOPIC=n),
#                         sent, checked as below and applied with git am
#                         after the topics before it; each cover letter
#                         must carry base-commit: $BASE_TAG and one
#                         prerequisite-patch-id: per patch before the topic
# The mbox must hold a cover letter and one mail per commit of the series,
# each patch a reply to the cover letter.  Its patches go with git am onto
# a git worktree of the work tree at $BASE_TAG (build/linux-*-roundtrip);
# the result must have the tree of $APPLIED_TAG (git diff --exit-code)
# and, commit by commit, the subjects and messages of the series, plus the
# submitter's Signed-off-by: and with the Assisted-by: trailers.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

wt=$BUILD/linux-$KVER-roundtrip
mbox=${1:-}
if [ "$mbox" = topics ]; then
	exec "$TOP/scripts/roundtrip-topics.sh"
fi
if [ -z "$mbox" ]; then
	export OUTGOING=$BUILD/roundtrip/outgoing SENT_MBOX=$BUILD/roundtrip/sent.mbox
	# only this check sets them: a test identity, nobody's
	export SUBMITTER_NAME="Round-Trip Test" SUBMITTER_EMAIL=round-trip-test@example.invalid
	rm -rf "$BUILD/roundtrip"
	"$TOP/scripts/mail.sh" > "$BUILD/roundtrip.mail.log" ||
		{ cat "$BUILD/roundtrip.mail.log"; die "mail.sh failed"; }
	info "mail: $(tail -n 1 "$BUILD/roundtrip.mail.log" | sed 's/^ *//')"
	"$TOP/scripts/send.sh" local < /dev/null > "$BUILD/roundtrip.send.log" ||
		{ cat "$BUILD/roundtrip.send.log"; die "send.sh local failed"; }
	info "send-local: $(tail -n 1 "$BUILD/roundtrip.send.log" | sed 's/^ *//')"
	mbox=$SENT_MBOX
	# What it was made of, for the tamper self-test to reuse it.
	series_stamp > "$BUILD/roundtrip/series.stamp"
fi
[ -s "$mbox" ] || die "$mbox: no such mbox (make -f Makefile.series send-local)"
submitter

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=$(git -C "$TREE" rev-list --count "$BASE_TAG..$APPLIED_TAG")

# The thread: one cover letter [... 0/n], n patches, each In-Reply-To it.
# The patches, cover letter left out, into $tmp/patches.mbox (mboxrd).
mail_thread "$mbox" "$n" "$tmp/patches.mbox" > "$tmp/thread" || die "$mbox: $(cat "$tmp/thread")"
info "$mbox: $(cat "$tmp/thread")"

step "git am of the mbox on a pristine $BASE_TAG worktree ($wt)"
pristine_worktree "$wt"
git -C "$wt" -c user.name="$SUBMITTER_NAME" -c user.email="$SUBMITTER_EMAIL" \
	am -q --patch-format=mboxrd "$tmp/patches.mbox" > "$tmp/am.log" 2>&1 ||
	{ cat "$tmp/am.log" >&2; git -C "$wt" am --abort || true; die "git am of $mbox failed"; }
[ "$(git -C "$wt" rev-list --count "$BASE_TAG..HEAD")" = "$n" ] || die "git am made other than $n commits"

fail=0
same_as_series "$wt" "$tmp" || fail=1
sob="Signed-off-by: $SUBMITTER"
signed=$(for c in $(git -C "$wt" rev-list "$BASE_TAG..HEAD"); do
	git -C "$wt" log -1 --format=%B "$c" | sed '/^$/d' | tail -n 1; done | grep -cxF "$sob" || true)
[ "$signed" = "$n" ] || { echo "FAIL: $((n - signed)) of $n commits do not end in $sob" >&2; fail=1; }
assisted=$(git -C "$wt" log --format=%B "$BASE_TAG..HEAD" | grep -c '^Assisted-by: ' || true)
info "$signed of $n commits signed off by $SUBMITTER, $assisted Assisted-by: trailers kept"
bad=$(git -C "$wt" log --format='%an <%ae>' "$BASE_TAG..HEAD" | grep -vxF "$SUBMITTER" | sort -u || true)
[ -z "$bad" ] || { echo "FAIL: authors other than the submitter: $bad" >&2; fail=1; }
[ "$fail" = 0 ] || exit 1
echo "round trip: git am of the $n mailed patches gives the tree of quilt push -a ($APPLIED_TAG), signed off by $SUBMITTER"
