#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The submission round trip, topic by topic (roundtrip.sh topics): each
# topic of patches/series (scripts/topics.sh) is mailed as a thread of its
# own (mail.sh TOPIC=n, the test identity of roundtrip.sh), sent with
# send.sh local into an mbox of its own, and checked:
#  - one cover letter [... 0/m] and the m patches of the topic, each a
#    reply to it;
#  - the cover letter's base-commit: is $BASE_TAG, and it has a
#    prerequisite-patch-id: for each patch of the topics before it, in
#    order (what b4 reads to apply the topic);
#  - its patches apply with git am after those of the topics before it.
# At the end the worktree must have the tree quilt gives ($APPLIED_TAG)
# and the commit messages of the series.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

wt=$BUILD/linux-$KVER-roundtrip
dir=$BUILD/roundtrip-topics
export SUBMITTER_NAME="Round-Trip Test" SUBMITTER_EMAIL=round-trip-test@example.invalid
submitter
rm -rf "$dir"
mkdir -p "$dir"
base=$(git -C "$TREE" rev-parse "$BASE_TAG^{commit}")
mapfile -t commits < <(git -C "$TREE" rev-list --reverse "$BASE_TAG..$APPLIED_TAG")
# The patch ids of the series but its last patch, in order, as git
# format-patch --base computes them (git 2.39's git patch-id --stable on a
# mailed patch differs for some: a discrepancy of that git, not of the
# series).
git -C "$TREE" format-patch --base="$BASE_TAG" -1 --stdout "$APPLIED_TAG" |
	sed -n 's/^prerequisite-patch-id: //p' > "$dir/patch-ids"
[ "$(wc -l < "$dir/patch-ids")" = $((${#commits[@]} - 1)) ] ||
	die "git format-patch --base gave $(wc -l < "$dir/patch-ids") prerequisites for the last patch, not $((${#commits[@]} - 1))"

pristine_worktree "$wt"
topics=0
while IFS=$'\t' read -r n name first last _; do
	m=$((last - first + 1))
	export OUTGOING=$dir/$n SENT_MBOX=$dir/$n.mbox
	TOPIC=$n "$TOP/scripts/mail.sh" > "$dir/$n.mail.log" 2>&1 ||
		{ cat "$dir/$n.mail.log"; die "topic $n ($name): mail.sh failed"; }
	"$TOP/scripts/send.sh" local < /dev/null > "$dir/$n.send.log" 2>&1 ||
		{ cat "$dir/$n.send.log"; die "topic $n ($name): send.sh local failed"; }
	# the thread, and the patches without the cover letter (mboxrd)
	mail_thread "$SENT_MBOX" "$m" "$dir/$n.patches" "$dir/$n.cover" > "$dir/$n.thread" ||
		die "topic $n ($name): $(cat "$dir/$n.thread")"
	grep -qx "base-commit: $base" "$dir/$n.cover" ||
		die "topic $n ($name): the cover letter has no base-commit: $base"
	sed -n 's/^prerequisite-patch-id: //p' "$dir/$n.cover" > "$dir/$n.prereq"
	head -n $((first - 1)) "$dir/patch-ids" | cmp -s - "$dir/$n.prereq" ||
		die "topic $n ($name): its prerequisite-patch-id: lines are not the patches before it ($(wc -l < "$dir/$n.prereq") lines, $((first - 1)) patches)"
	git -C "$wt" -c user.name="$SUBMITTER_NAME" -c user.email="$SUBMITTER_EMAIL" \
		am -q --patch-format=mboxrd "$dir/$n.patches" > "$dir/$n.am.log" 2>&1 ||
		{ cat "$dir/$n.am.log" >&2; git -C "$wt" am --abort || true; die "topic $n ($name): git am failed"; }
	info "topic $n: $m patches, base-commit and $((first - 1)) prerequisites, applied ($name)"
	topics=$((topics + 1))
done < <("$TOP/scripts/topics.sh")

[ "$(git -C "$wt" rev-list --count "$BASE_TAG..HEAD")" = "${#commits[@]}" ] ||
	die "git am of the topics made other than ${#commits[@]} commits"
same_as_series "$wt" "$dir" || die "git am of the topics does not give the series"
echo "round trip by topic: $topics threads, each with its base and prerequisites, give the tree of quilt push -a ($APPLIED_TAG)"
