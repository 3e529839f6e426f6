#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The collision bound of swiotlb's line fingerprint
# (kernel/dma/swiotlb_wb_fp.h), measured on the construction itself built
# at 8-bit half words (tools/testing/swiotlb/fp_bound.c): per class of
# difference a device makes (each flipped bit, each byte, each word,
# random pairs), 2^20 keys a member, at most 4 x 2^-16 collisions. Then
# the fold the kernel had before (a + b * c mod 2^64) must fail the same
# measure, or the check could not fail. KTAP on standard output.
#
# usage: fp-bound.sh SRC OUTDIR	(about 20 s of CPU: measured 7 Dec 2026,
# 8.7 s the construction and 6.2 s the old fold, one core each)
set -eu
src=$1 out=$2
mkdir -p "$out"
out=$(realpath "$out")
make -s -C "$src/tools/testing/swiotlb" OUTPUT="$out" "$out/fp_bound" \
	>"$out/fp-bound-build.log" 2>&1 ||
	{ sed 's/^/# /' "$out/fp-bound-build.log"; echo "error: fp_bound build failed" >&2; exit 1; }

rc=0 rc_old=0
"$out/fp_bound" >"$out/fp-bound.log" 2>&1 & pid=$!
"$out/fp_bound" -v 2adic >"$out/fp-bound-2adic.log" 2>&1 || rc_old=$?
wait $pid || rc=$?

cases=$(grep -c '^\(not \)\?ok ' "$out/fp-bound.log" || true)
echo "KTAP version 1"
echo "1..$((cases + 1))"
grep -v '^KTAP\|^1\.\.' "$out/fp-bound.log"
[ "$rc" -le 1 ] || echo "# fp_bound exited $rc"
grep '^#.*members' "$out/fp-bound-2adic.log" || true
over=$(grep -c '^not ok ' "$out/fp-bound-2adic.log" || true)
if [ "$rc_old" = 1 ] && [ "$over" -gt 0 ]; then
	echo "ok $((cases + 1)) the old fold (a + b * c mod 2^16) fails the bound ($over classes over)"
else
	echo "not ok $((cases + 1)) the old fold (a + b * c mod 2^16) fails the bound"
fi
[ "$rc" = 0 ] && [ "$cases" -gt 0 ]
