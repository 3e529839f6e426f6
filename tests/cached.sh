#!/bin/sh
# Run a host-side check unless its inputs are those of its last passing
# run, the way make skips a target whose prerequisites did not change.
#
# usage: cached.sh OUT INPUT... -- COMMAND [ARG...]
# COMMAND's standard output (a KTAP document) goes to OUT.  The key is
# COMMAND with its arguments and the contents of every INPUT (files, or
# every file under a directory).  If OUT passed (no "not ok") and was made
# from the same key, it is kept, with a note added after its first line;
# a check that failed always runs again.  CHECKS_CACHE=off always runs it.
set -eu
out=$1
shift
inputs=
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	inputs="$inputs $1"
	shift
done
[ $# -gt 1 ] || { echo "usage: cached.sh OUT INPUT... -- COMMAND [ARG...]" >&2; exit 2; }
shift
# shellcheck disable=SC2086 # inputs are words
key=$({ echo "$*"; find $inputs -type f | LC_ALL=C sort | xargs -r sha1sum; } | sha1sum | cut -c1-40)
if [ "${CHECKS_CACHE:-on}" != off ] && [ -s "$out" ] && [ "$(cat "$out.key" 2>/dev/null)" = "$key" ]; then
	sed -i '/^# cached: /d' "$out"
	sed -i "1a # cached: inputs unchanged since this check passed at $(date -r "$out.key" '+%F %T'); CHECKS_CACHE=off runs it again" "$out"
	exit 0
fi
rm -f "$out.key"
status=0
"$@" >"$out" || status=$?
if [ $status -eq 0 ] && ! grep -q '^ *not ok' "$out"; then
	echo "$key" >"$out.key"
fi
exit $status
