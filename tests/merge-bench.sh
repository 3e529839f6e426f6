#!/bin/sh
# The host-CPU clock of `make bench`: build tools/testing/swiotlb's
# merge_bench from the patched tree and print its table as a Markdown
# section. It times swiotlb's merge code against 6.1's copies for the same
# calls, in one process, interleaved, on this machine's real CPU (TSC
# ticks), with the bounce buffer hot and cold.
#
# usage: merge-bench.sh SRC OUTDIR [ROUNDS]
set -eu
src=$1 out=$2 rounds=${3:-15}
mkdir -p "$out"
make -s -C "$src/tools/testing/swiotlb" OUTPUT="$(realpath "$out")" >"$out/build.log" 2>&1 ||
	{ cat "$out/build.log" >&2; echo "error: merge_bench build failed" >&2; exit 1; }
cat <<EOT
### Host CPU: the merge code against 6.1's copies (tools/testing/swiotlb/merge_bench)

Clock: this machine's TSC, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'),
user space, $rounds rounds of the median of 201 cycles; only the swiotlb
part of each cycle is timed (the device's write and the cache flush are
not). poll: the device wrote the whole buffer, then sync_for_cpu and
sync_for_device (FROM_DEVICE); rearm: the CPU scrubs a quarter in between;
map+unmap: FROM_DEVICE, the device writes in between. cold: the bounce
buffer flushed from the caches after the device write, as a DMA write
leaves it. 6.1's copies are \`rep movsb\`, the kernel's memcpy() on x86-64
CPUs with ERMS (as this one); the merge code is built with the kernel's
x86 flags (no SSE or AVX).

The second table takes the hot poll cycle apart: each pass alone over the
buffer, 6.1's whole cycle (one copy) against the two passes \`transparent\`
cannot do without: the compare with which sync_for_device finds what the
CPU wrote, and the fingerprints with which sync_for_cpu finds what the
device wrote. The two run in different calls, so they cannot be fused:
their sum over the copy is the ratio the hot cycle would have with no
bookkeeping at all.

EOT
"$out/merge_bench" -r "$rounds" -n 201
