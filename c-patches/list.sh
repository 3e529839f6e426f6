#!/bin/sh
# The patches of PATCHDIR/series, in order, one file name a line: the one
# reader of the series file (comment and blank lines skipped).
#
# usage: list.sh PATCHDIR
set -eu
grep -v -e '^#' -e '^[[:space:]]*$' "$1/series"
