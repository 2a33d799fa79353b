#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A sendmail-compatible sink for git send-email --sendmail-cmd: appends
# the message on stdin to the mbox $SINK_MBOX (mboxrd: body lines that
# start with ">*From " get one more '>'), with an X-Envelope-To: header
# naming the envelope recipients.  Nothing leaves the machine.
#   mbox-sink.sh [-i] [-f SENDER] [-oOPTION ...] RECIPIENT...
set -euo pipefail

mbox=${SINK_MBOX:?SINK_MBOX: the mbox to append to}
sender=MAILER-DAEMON
rcpt=()
while [ $# -gt 0 ]; do
	case "$1" in
	-f) sender=$2; shift ;;
	-f*) sender=${1#-f} ;;
	-*) ;;	# -i, -oi, -t...: nothing to do for an mbox
	*) rcpt+=("$1") ;;
	esac
	shift
done
[ ${#rcpt[@]} -gt 0 ] || { echo "mbox-sink: no recipient" >&2; exit 64; }	# EX_USAGE

msg=$(mktemp)
trap 'rm -f "$msg"' EXIT
{
	printf 'From %s %s\n' "${sender//[[:space:]]/_}" "$(LC_ALL=C date -u '+%a %b %e %H:%M:%S %Y')"
	to=$(printf '%s, ' "${rcpt[@]}")
	printf 'X-Envelope-To: %s\n' "${to%, }"
	sed -E 's/^(>*From )/>\1/'
	echo
} > "$msg"
mkdir -p "$(dirname "$mbox")"
exec 9>> "$mbox.lock"
flock 9
cat "$msg" >> "$mbox"
