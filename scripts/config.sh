# SPDX-License-Identifier: GPL-2.0
# Shared settings of the series workbench, sourced by the other scripts.
# shellcheck shell=bash disable=SC2034 # the variables are for the scripts that source this

KVER=6.12.107
DEB_VERSION=6.12.107-1
TARBALL_NAME=linux_${KVER}.orig.tar.xz
TARBALL_SHA256=efc76d3c78a5d65f42724118c437d11db1c9f6309a5f024ee9a8b1978fdc6919
TARBALL_SIZE=151398592

# The newest upstream tree the fixes of the series are exported for
# (upstream/): Debian's linux-source package of that version.
UPSTREAM_KVER=7.3.4
UPSTREAM_SERIES=7.3
UPSTREAM_DEB_NAME=linux-source-7.3_7.3.4-1~bpo13+1_all.deb
UPSTREAM_DEB_SUITE=trixie-backports
UPSTREAM_DEB_SHA256=703e369ddd4cce971452f5a593ee55df3a5c10c83caf0fa0df039633ed181ee3

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
CACHE=${CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/perf-aslr-series}
TREE=${KERNEL_DIR:-$BUILD/linux-$KVER}
PERF_OUT=${PERF_OUT:-$BUILD/perf}
# The other trees perf is built from sit as the work tree and its perf do,
# DIR/linux-$KVER and DIR/perf: their compiler command lines are then the
# same relative to the tree, and ccache (build-perf.sh) gives each the
# objects of the files it shares with the others.
PRISTINE_TREE=$BUILD/pristine/linux-$KVER	# at $BASE_TAG (regress, bisect)
PRISTINE_OUT=$BUILD/pristine/perf
BISECT_TREE=$BUILD/bisect/linux-$KVER		# at each patch (bisect)
BISECT_OUT=$BUILD/bisect/perf
PERF=$PERF_OUT/perf
# The upstream tree, with the fixes as commits on $UPSTREAM_BRANCH, and
# its pristine perf (the tests of the export fail there)
UPSTREAM_TREE=$BUILD/linux-$UPSTREAM_KVER
UPSTREAM_OUT=$BUILD/upstream/perf
UPSTREAM_PRISTINE_OUT=$BUILD/upstream/pristine-perf
UPSTREAM_TAG=v$UPSTREAM_KVER
UPSTREAM_BRANCH=perf-fixes
UPSTREAM_PATCHES=$TOP/upstream/$UPSTREAM_SERIES
PATCHES=${PATCHES:-$TOP/patches}	# the series (quilt layout)
MIRROR=${MIRROR:-$TOP}		# holds the tools/ mirror

# git refs in the work tree
BASE_TAG=v$KVER			# the pristine tree
SERIES_BRANCH=perf-aslr-series	# the series as commits, one per patch
APPLIED_TAG=series-applied	# what patches/ gave, last time it was applied

# the mail step
OUTGOING=${OUTGOING:-$TOP/outgoing}	# cover letter and patches, as mails
SENT_MBOX=${SENT_MBOX:-$BUILD/sent.mbox}	# what send-local "sent"

# debian_uris: the Debian archive the machine uses (its first URI of
# one), then its security archive, a line each (empty if it has none).
debian_uris() {
	local uris
	uris=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		   /etc/apt/sources.list.d/*.sources 2>/dev/null |
	       grep -v '^[[:space:]]*#' |
	       grep -oE '(https?|file)://[^ ]*debian[^ ]*' | sort -u || true)
	printf '%s\n' "$({ grep -v -- '-security' <<< "$uris" || true; } | head -n 1)" \
		"$({ grep -- '-security' <<< "$uris" || true; } | head -n 1)"
}

# apt_private APT CMD ARGS...: apt-get or apt-cache (CMD) with the private
# configuration whose source list is APT/sources.list, its lists and cache
# under APT as well (made here): the machine's own apt state is not touched.
apt_private() {
	local apt=$1 cmd=$2

	shift 2
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/sources.list.d"
	"$cmd" -o "Dir::Etc::sourcelist=$apt/sources.list" \
	       -o "Dir::Etc::sourceparts=$apt/sources.list.d" \
	       -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" \
	       -o "APT::Sandbox::User=root" "$@"
}

step() { printf '\n==> %s\n' "$*"; }
info() { printf '    %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }
# log_file DIR NAME: the log of the check or test NAME in DIR (the name
# with every character but letters, digits and _ made _).
log_file() { printf '%s/%s.log\n' "$1" "$(tr -c 'A-Za-z0-9_\n' '_' <<< "$2")"; }

# A hash of patches/series and the patches it names, in order.
series_stamp() {
	(cd "$PATCHES" &&
	 { cat series; { grep -v '^#' series || true; } | awk 'NF {print $1}' | xargs -r cat; } |
	 sha256sum | cut -d' ' -f1)
}

# The person who sends the series and signs it off, in SUBMITTER_NAME,
# SUBMITTER_EMAIL and SUBMITTER ("Name <email>"): their git identity in
# this repository (git config user.name / user.email).  Only the round-trip
# check sets SUBMITTER_NAME and SUBMITTER_EMAIL itself, to a clearly fake
# test identity.  No identity, or the workbench's placeholder one, is an
# error: nobody is ever made up.
submitter() {
	local name=${SUBMITTER_NAME:-} email=${SUBMITTER_EMAIL:-}
	if [ -z "$name$email" ]; then
		name=$(git -C "$TOP" config user.name || true)
		email=$(git -C "$TOP" config user.email || true)
	fi
	if [ -z "$name" ] || [ -z "$email" ]; then
		die "no git identity: the patches are sent and signed off (Signed-off-by:) in your name, set it with
    git -C $TOP config user.name 'Your Name'
    git -C $TOP config user.email you@example.org"
	fi
	case "$name $email" in
	*perf-aslr-series*|*series@localhost*)
		die "'$name <$email>' is the workbench's placeholder identity, not a person: set yours with git config user.name / user.email" ;;
	esac
	[[ $email == ?*@?* && $email != *[[:space:]\<\>]* ]] || die "'$email' is not a mail address (git config user.email)"
	SUBMITTER_NAME=$name SUBMITTER_EMAIL=$email SUBMITTER="$name <$email>"
}

# pristine_worktree DIR [REPO TAG]: a git worktree of the work tree (or
# REPO) at $BASE_TAG (or TAG) in DIR (detached, clean), made once and reset
# on every later call.
pristine_worktree() {
	local dir=$1 repo=${2:-$TREE} tag=${3:-$BASE_TAG}
	if [ ! -e "$dir/.git" ]; then
		git -C "$repo" worktree prune
		git -C "$repo" worktree add -q --detach "$dir" "$tag"
	fi
	git -C "$dir" am --abort > /dev/null 2>&1 || true
	git -C "$dir" checkout -q -f --detach "$tag"
	git -C "$dir" clean -q -fdx
}

# mail_thread MBOX N PATCHES [COVER]: MBOX must be one thread, a cover
# letter [... 0/N] and N patches, each a reply to it.  The patches go to
# PATCHES (mboxrd, for git am), the cover letter to COVER.  Says what it
# found, or what is wrong (and fails).
mail_thread() {
	awk -v n="$2" -v out="$3" -v cover_out="${4:-/dev/null}" '
		function flush() {
			if (!msgs) return
			if (subj ~ ("^\\[[^]]* 0+/" n "\\]")) { covers++; cover = id; printf "%s", buf > cover_out }
			else { patches++; irt[patches] = reply; printf "%s", buf > out }
		}
		/^From / { flush(); msgs++; buf = ""; hdr = 1; subj = id = reply = "" }
		hdr && /^$/ { hdr = 0 }
		hdr && /^Subject: / { subj = substr($0, 10) }
		hdr && tolower($0) ~ /^message-id: / { id = $2 }
		hdr && tolower($0) ~ /^in-reply-to: / { reply = $2 }
		{ buf = buf $0 "\n" }
		END {
			flush()
			if (covers != 1) { printf "%d cover letters [0/%d], 1 expected\n", covers, n; exit 1 }
			if (patches != n) { printf "%d patches, %d expected\n", patches, n; exit 1 }
			for (i = 1; i <= n; i++) if (irt[i] != cover) { printf "patch %d is not a reply to the cover letter\n", i; exit 1 }
			printf "a cover letter and %d patches, each a reply to it\n", n
		}' "$1"
}

# same_as_series WT DIR: the commits git am made in WT after $BASE_TAG give
# the tree of $APPLIED_TAG and, commit by commit, the subjects and messages
# of the series, but for the submitter's Signed-off-by: (the difference in
# DIR/msgs.diff).  Says what differs (and fails).
same_as_series() {
	local wt=$1 dir=$2 sob="Signed-off-by: $SUBMITTER" ret=0

	if ! git -C "$wt" diff --exit-code --stat "$APPLIED_TAG" HEAD; then
		echo "FAIL: the tree git am gives differs from the quilt result ($APPLIED_TAG), above" >&2
		ret=1
	fi
	if ! diff -u <(series_messages "$TREE" "$BASE_TAG..$APPLIED_TAG") \
		<(series_messages "$wt" "$BASE_TAG..HEAD" | grep -vxF "$sob" | cat -s) > "$dir/msgs.diff"; then
		head -n 40 "$dir/msgs.diff" >&2
		echo "FAIL: the commit messages git am gives are not those of the series" >&2
		ret=1
	fi
	return "$ret"
}

# series_messages DIR RANGE: subject and message of each commit, in order.
series_messages() {
	git -C "$1" log --reverse --format='%s%n%n%b%n@@' "$2" | cat -s
}

# The fuzz harnesses, a line "NAME FILES..." each: fuzz/harnesses without
# its comments and blank lines.
fuzz_harnesses() {
	grep -v -e '^#' -e '^[[:space:]]*$' "$TOP/fuzz/harnesses"
}

# Records of checks that passed (scripts/*-verified, written by the check
# only), for make check-all to skip what was checked before as it is now.
# verified_key WORD...: a hash of the words and of what a build or a test
# run also depends on here: the compiler and the features perf's build
# found (the libraries installed).  Not the running kernel's release, as
# scripts/bisect-verified has none: CI runs on machines whose kernel
# differs from one run to the next, and make check runs the perf tests
# on CI's own kernel every time.
verified_key() {
	{
		printf '%s\n' "$@"
		gcc --version | head -n 1
		grep -F '[ on  ]' "$BUILD/perf.features.txt" 2> /dev/null || true
	} | sha256sum | cut -c1-16
}
# is_verified FILE KEY: FILE has a line for KEY.
is_verified() { [ -f "$1" ] && grep -q "^$2 " "$1"; }

# BASE=$UPSTREAM_SERIES: the scripts of the mail step (mail, topics,
# roundtrip) take the fixes exported for that tree, upstream/$UPSTREAM_SERIES,
# with the cover letters of Documentation/covers-$UPSTREAM_SERIES/.  BASE=$KVER
# or none: the series.
case "${BASE:-}" in
"$UPSTREAM_SERIES"|"$UPSTREAM_KVER")
	KVER=$UPSTREAM_KVER TREE=$UPSTREAM_TREE BASE_TAG=$UPSTREAM_TAG
	SERIES_BRANCH=$UPSTREAM_BRANCH PATCHES=$UPSTREAM_PATCHES
	COVERS=$TOP/Documentation/covers-$UPSTREAM_SERIES
	COVER_LETTER=$COVERS/cover-letter.txt ;;
""|"$KVER") ;;
[0-9]*) die "BASE=$BASE: the series is for $KVER, its fixes are exported for $UPSTREAM_KVER (BASE=$UPSTREAM_SERIES)" ;;
esac
