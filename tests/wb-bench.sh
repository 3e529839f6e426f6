#!/bin/sh
# The host-CPU clock of `make bench`: build tools/testing/swiotlb's
# wb_bench from the patched tree and print its table as a Markdown
# section. It times kernel/dma/swiotlb_wb.c against 6.1's copies for the
# same calls, in one process, interleaved, on this machine's real CPU
# (TSC ticks), with the bounce buffer hot and cold.
#
# usage: wb-bench.sh SRC OUTDIR [ROUNDS]
set -eu
src=$1 out=$2 rounds=${3:-15}
mkdir -p "$out"
make -s -C "$src/tools/testing/swiotlb" OUTPUT="$(realpath "$out")" >"$out/build.log" 2>&1 ||
	{ cat "$out/build.log" >&2; echo "error: wb_bench build failed" >&2; exit 1; }
cat <<EOT
### Host CPU: transparent against 6.1's copies (tools/testing/swiotlb/wb_bench)

Clock: this machine's TSC, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'),
user space, $rounds rounds of the median of 201 cycles; only the swiotlb
part of each cycle is timed (the device's write and the cache flush are
not). poll: the device wrote the whole buffer, then sync_for_cpu and
sync_for_device (FROM_DEVICE); rearm: the CPU scrubs a quarter in between;
map+unmap: FROM_DEVICE, the device writes in between. cold: the bounce
buffer flushed from the caches after the device write, as a DMA write
leaves it. 6.1's copies are \`rep movsb\`, the kernel's memcpy() on x86-64
CPUs with ERMS (as this one); swiotlb_wb.c is built with the kernel's x86
flags (no SSE or AVX).

The second table takes the hot poll cycle apart: each pass alone over the
buffer, 6.1's whole cycle (one copy) against a compare of the two copies,
a fingerprint of every line (through the out-of-line swiotlb_wb_fp()),
and the kernel's sync_for_cpu (copy and fingerprint in one pass) and
sync_for_device (compare and fingerprint in one pass; the fingerprint is
what lets a line both sides set to the same bytes recover) with nobody
writing.

EOT
"$out/wb_bench" -r "$rounds" -n 201
