#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Self-tests of the workbench: each case breaks one thing in a scratch copy
# and checks that the script guarding against it fails with a clear message.
#   selftest.sh bad-tarball|fuzz|stale-mirror|no-identity|topic-cover|
#               roundtrip-tamper|fixes-tags
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=config.sh
. "$(dirname "$0")/config.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect_failure PATTERN COMMAND...: COMMAND must fail, saying PATTERN.
expect_failure() {
	local pattern=$1
	shift
	if "$@" > "$tmp/out" 2>&1; then
		echo "unexpected success: $*"
		exit 1
	fi
	grep -q -- "$pattern" "$tmp/out" || { cat "$tmp/out"; echo "no '$pattern' in the message"; exit 1; }
	echo "refused as expected: $(grep -m1 -- "$pattern" "$tmp/out")"
}

# A one-hunk patch of tools/perf/util/maps.c in git format-patch form.
make_patch() {
	local context=$1
	cat <<PATCH
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: Self Test <selftest@localhost>
Date: Sat, 21 Nov 2026 00:00:00 +0000
Subject: [PATCH] perf maps: Self-test patch

---
 tools/perf/util/maps.c | 1 +
 1 file changed, 1 insertion(+)

diff --git a/tools/perf/util/maps.c b/tools/perf/util/maps.c
--- a/tools/perf/util/maps.c
+++ b/tools/perf/util/maps.c
@@ -1,5 +1,6 @@
 // SPDX-License-Identifier: GPL-2.0
+/* self-test */
 #include <errno.h>
 #include <stdlib.h>
 #include <linux/zalloc.h>
$context
PATCH
}

case "${1:-}" in
bad-tarball)
	head -c 4096 /dev/urandom > "$tmp/$TARBALL_NAME"
	KERNEL_TARBALL=$tmp/$TARBALL_NAME expect_failure "sha256 is" "$TOP/scripts/fetch-tarball.sh"
	;;
fuzz)
	mkdir -p "$tmp/patches"
	# The last context line differs from the tree: applies only with fuzz.
	make_patch ' #include "debug.h"  /* not the tree'"'"'s line */' > "$tmp/patches/0001-selftest.patch"
	echo 0001-selftest.patch > "$tmp/patches/series"
	PATCHES=$tmp/patches expect_failure "fuzz" "$TOP/scripts/check-series.sh"
	;;
stale-mirror)
	mkdir -p "$tmp/mirror/tools/perf/tests/shell"
	cp -r "$PATCHES" "$tmp/patches"
	[ ! -d "$MIRROR/tools" ] || cp -r "$MIRROR/tools" "$tmp/mirror/"
	[ ! -f "$MIRROR/MAINTAINERS.snippet" ] || cp "$MIRROR/MAINTAINERS.snippet" "$tmp/mirror/"
	echo '# stale' > "$tmp/mirror/tools/perf/tests/shell/stale.sh"
	PATCHES=$tmp/patches MIRROR=$tmp/mirror expect_failure "mirror is stale" "$TOP/scripts/check-series.sh"
	;;
no-identity)
	# the mail step never signs off in the name of nobody or of the
	# workbench's placeholder identity
	export OUTGOING=$tmp/outgoing
	unset SUBMITTER_NAME SUBMITTER_EMAIL
	SUBMITTER_NAME=perf-aslr-series SUBMITTER_EMAIL=perf-aslr-series@localhost \
		expect_failure "placeholder identity" "$TOP/scripts/mail.sh"
	if [ -n "$(git -C "$TOP" config --local user.name || true)" ]; then
		echo "(this repository has its own git identity: the no-identity case is not tried)"
	else
		HOME=$tmp GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$tmp/gitconfig XDG_CONFIG_HOME=$tmp \
			expect_failure "no git identity" "$TOP/scripts/mail.sh"
	fi
	;;
topic-cover)
	# a topic is mailed only with its own cover letter, and only a topic
	# of patches/series
	export OUTGOING=$tmp/outgoing
	export SUBMITTER_NAME="Round-Trip Test" SUBMITTER_EMAIL=round-trip-test@example.invalid
	mkdir -p "$tmp/covers"
	COVERS=$tmp/covers TOPIC=1 expect_failure "has no cover letter" "$TOP/scripts/mail.sh"
	TOPIC=no-such-topic expect_failure "no such topic" "$TOP/scripts/mail.sh"
	;;
roundtrip-tamper)
	# a mailed patch whose added line changed on the way: git am applies
	# it, the round trip must see the tree differ.  The mbox of the round
	# trip check if it was made of this series, else a new one.
	export OUTGOING=$tmp/outgoing SENT_MBOX=$tmp/sent.mbox
	export SUBMITTER_NAME="Round-Trip Test" SUBMITTER_EMAIL=round-trip-test@example.invalid
	if [ "$(cat "$BUILD/roundtrip/series.stamp" 2> /dev/null)" = "$(series_stamp)" ]; then
		cp "$BUILD/roundtrip/sent.mbox" "$SENT_MBOX"
	else
		"$TOP/scripts/mail.sh" > /dev/null
		"$TOP/scripts/send.sh" local < /dev/null > /dev/null
	fi
	n=$(grep -c '^From ' "$SENT_MBOX")
	awk -v n="$n" '/^From / { m++ } m == n && /^diff --git/ { d = 1 }
		m == n && d && !done && /^\+[^+]/ { $0 = $0 " /* tampered */"; done = 1 } { print }' \
		"$SENT_MBOX" > "$tmp/tampered.mbox"
	expect_failure "differs from the quilt result" "$TOP/scripts/roundtrip.sh" "$tmp/tampered.mbox"
	;;
fixes-tags)
	# fixes-tags.sh names the commit that last changed the lines a fix
	# changes, not the one that added the file, nor one of lines it
	# only keeps
	repo=$tmp/kernel
	g=(git -C "$repo" -c user.name=Self -c user.email=self@localhost)
	git init -q "$repo"
	printf 'int a;\nint b;\nint c;\nint d;\n' > "$repo/f.c"
	"${g[@]}" add f.c && "${g[@]}" commit -q -m "first: add f.c"
	sed -i 's/int b;/long b;/' "$repo/f.c"
	"${g[@]}" commit -q -a -m "second: make b long"
	second=$("${g[@]}" log -1 --abbrev=12 --format=%h)
	sed -i 's/int d;/int d, e;/' "$repo/f.c"
	"${g[@]}" commit -q -a -m "third: add e"
	"${g[@]}" tag v6.12.107
	# a series: 0001 adds two lines above (the line numbers of 0002 are
	# those after it), 0002 fixes b and changes a line 0001 added
	mkdir "$tmp/series"
	sed -i '1i int z1;\nint z2;' "$repo/f.c"
	"${g[@]}" commit -q -a -m "series: add z1, z2"
	"${g[@]}" format-patch -q -1 -o "$tmp/series"
	sed -i 's/long b;/unsigned long b;/; /int c;/a int c2;' "$repo/f.c"
	sed -i 's/int z2;/long z2;/' "$repo/f.c"
	"${g[@]}" commit -q -a -m "fix: make b unsigned"
	"${g[@]}" format-patch -q -1 --start-number=2 -o "$tmp/series"
	"${g[@]}" reset -q --hard v6.12.107
	find "$tmp/series" -name '*.patch' -printf '%f\n' | sort > "$tmp/series/series"
	fix=$(ls "$tmp"/series/0002-*.patch)
	out=$("$TOP/scripts/fixes-tags.sh" "$repo" "$fix")
	if ! grep -q "Fixes: $second (\"second: make b long\")    \[1 lines\]" <<< "$out" ||
	   ! grep -q "1 lines written by earlier patches of the series" <<< "$out"; then
		printf '%s\n' "$out"
		die "fixes-tags.sh did not propose $second, or missed the line of the series"
	fi
	echo "proposed as expected: $(grep Fixes: <<< "$out")"
	;;
*)
	die "usage: selftest.sh bad-tarball|fuzz|stale-mirror|no-identity|topic-cover|roundtrip-tamper|fixes-tags"
	;;
esac
