#!/bin/sh
# Build swiotlb's merge code in user space (tools/testing/swiotlb of the
# patched tree) and run its exhaustive check against coherent memory, as
# KTAP: every sequence of up to DEPTH operations on a 2-line mapping,
# DEPTH-1 on a 3-line one and 3 on a 5-line one (the compare loop takes
# four whole lines a round), line-aligned and starting inside a line. The
# last case runs 6.1's own copies through the same oracle: it must find
# their known divergences, or the oracle could not fail.
#
# usage: merge-check.sh SRC OUTDIR [DEPTH]
set -eu
src=$1 out=$2 depth=${3:-5}
mkdir -p "$out"
make -s -C "$src/tools/testing/swiotlb" OUTPUT="$(realpath "$out")" >"$out/build.log" 2>&1 ||
	{ sed 's/^/# /' "$out/build.log"; echo "error: merge_check build failed" >&2; exit 1; }
check=$out/merge_check

set -- "-l 2 -d $depth" "-l 2 -d $depth -o 8" \
	"-l 3 -d $((depth - 1))" "-l 3 -d $((depth - 1)) -o 8" \
	"-l 5 -d 3" "-l 5 -d 3 -o 8"
# Two at a time: one per core.
i=0
for args in "$@"; do
	i=$((i + 1))
	# shellcheck disable=SC2086 # args are words
	$check $args >"$out/case$i.log" 2>&1 &
	[ $((i % 2)) -eq 1 ] || wait
done
wait

echo "KTAP version 1"
echo "1..$(($# + 1))"
i=0
for args in "$@"; do
	i=$((i + 1))
	sed 's/^\([^#]\)/# \1/' "$out/case$i.log"
	if grep -q ' div 0, regress 0,' "$out/case$i.log"; then
		echo "ok $i merge_check $args"
	else
		echo "not ok $i merge_check $args"
	fi
done
i=$((i + 1))
if $check -p upstream -l 2 -d 4 >"$out/upstream.log" 2>&1; then
	sed 's/^/# /' "$out/upstream.log"
	echo "not ok $i merge_check finds 6.1's divergences from coherent memory"
else
	tail -n 1 "$out/upstream.log"
	echo "ok $i merge_check finds 6.1's divergences from coherent memory"
fi
