#!/bin/sh
# Run the kernel's scripts/checkpatch.pl --strict on every patch of the
# series, as KTAP: a patch passes with no error, warning or check.
# Two message types are ignored, because they cannot be fixed in a Debian
# source tree: UNKNOWN_COMMIT_ID (the tree has no upstream history to find
# the Fixes: commits in) and FILE_PATH_CHANGES ("does MAINTAINERS need
# updating?": the new files fall under existing entries, kernel/dma/ under
# DMA MAPPING HELPERS, rust/ under RUST, samples/dma/ added by its patch).
#
# usage: checkpatch.sh SRC PATCHDIR
set -eu
# checkpatch runs scripts/spdxcheck.py with the python3 on PATH; Debian's
# has its modules (python3-ply, python3-git), another one may not.
PATH=/usr/bin:$PATH
src=$1 patches=$2
dir=$(realpath "$patches")
list=$("$(dirname "$0")/../c-patches/list.sh" "$patches")
echo "KTAP version 1"
echo "1..$(echo "$list" | wc -l)"
n=0
for p in $list; do
	n=$((n + 1))
	if out=$(cd "$src" && scripts/checkpatch.pl --strict --quiet \
		--ignore UNKNOWN_COMMIT_ID,FILE_PATH_CHANGES "$dir/$p" 2>&1); then
		echo "ok $n checkpatch $p"
	else
		echo "$out" | sed 's/^/# /'
		echo "not ok $n checkpatch $p"
	fi
done
