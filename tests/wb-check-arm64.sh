#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/wb-check.sh for arm64: tools/testing/swiotlb built with
# aarch64-linux-gnu-gcc (static) and run under qemu-aarch64-static, every
# shape in the scalar and the NEON pass (arch/arm64/include/asm/swiotlb_wb.h),
# whose counts must equal the scalar pass's, as x86-64's SSE2 and AVX2.
# The wrong variants are those of wb-check.sh that run in seconds (the
# oracle is the same C on both architectures; norecover and skiprefresh,
# 5 operations deep, take about half an hour under qemu-user and run on
# x86-64), plus two wrong NEON passes (SWIOTLB_WB_NEON_WRONG): neonwrong,
# a wrong key word, whose fingerprints must disagree with the scalar
# pass's (fp_collisions counts the disagreements) and whose counts must
# show it, and neonwrongmask, a wrong byte mask, whose write-backs must
# diverge from R.
#
# usage: wb-check-arm64.sh SRC OUTDIR [DEPTH]
set -eu
for tool in aarch64-linux-gnu-gcc qemu-aarch64-static; do
	command -v $tool >/dev/null ||
		{ echo "error: no $tool (apt-get install gcc-aarch64-linux-gnu qemu-user-static)" >&2; exit 1; }
done
WB_CC=aarch64-linux-gnu-gcc WB_RUN=qemu-aarch64-static WB_PASSES="scalar neon" \
WB_VARIANTS="m:-v m -l 2 -d 3:regress_other
tworead:-v tworead -i -l 2 -d 2:regress_other
upstream:-v upstream -l 2 -d 3:r_div
nondirty:-v nondirty -l 2 -d 4 -m FROM:regress_other
neonwrong:-p neon -l 2 -d 2:fp_collisions r_div
neonwrongmask:-p neon -l 2 -d 3:r_div regress_other" \
	exec "$(dirname "$0")/wb-check.sh" "$@"
