#!/bin/sh
# Run a host-side check unless its inputs are those of its last passing
# run, the way make skips a target whose prerequisites did not change.
#
# usage: cached.sh OUT INPUT... -- COMMAND [ARG...]
# COMMAND's standard output (a KTAP document) goes to OUT.  The key is
# COMMAND with its arguments and the contents of every INPUT (files, or
# every file under a directory).  If OUT passed (no "not ok") and was made
# from the same key, it is kept, with a note added after its first line;
# a check that failed always runs again, and so does one with an INPUT
# missing.  CHECKS_CACHE=off always runs it.  A check running longer than
# CHECK_TIMEOUT seconds (default 3600) is stopped and fails.
set -eu
out=$1
shift
inputs=
cache=${CHECKS_CACHE:-on} limit=${CHECK_TIMEOUT:-3600}
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	[ -e "$1" ] || cache=off
	inputs="$inputs $1"
	shift
done
[ $# -gt 1 ] || { echo "usage: cached.sh OUT INPUT... -- COMMAND [ARG...]" >&2; exit 2; }
shift
# shellcheck disable=SC2086 # inputs are words
key=$({ echo "$*"; find $inputs -type f 2>/dev/null | LC_ALL=C sort | xargs -r sha1sum; } |
	sha1sum | cut -c1-40)
if [ "$cache" != off ] && [ -s "$out" ] && [ "$(cat "$out.key" 2>/dev/null)" = "$key" ]; then
	sed -i '/^# cached: /d' "$out"
	sed -i "1a # cached: inputs unchanged since this check passed at $(date -r "$out.key" '+%F %T'); CHECKS_CACHE=off runs it again" "$out"
	exit 0
fi
rm -f "$out.key"
status=0
timeout "$limit" "$@" >"$out" || status=$?
if [ $status -eq 124 ]; then
	echo "error: $1 ran for more than $limit s and was stopped" >&2
	printf 'KTAP version 1\n1..1\nnot ok 1 %s finished within %s s\n' "$1" "$limit" >"$out"
elif [ $status -eq 0 ] && [ "$cache" != off ] && ! grep -q '^ *not ok' "$out"; then
	echo "$key" >"$out.key"
fi
exit $status
