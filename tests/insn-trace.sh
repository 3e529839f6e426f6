#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Where the guest clock's instructions go in one swiotlb call: boot the
# sync bench (guest/plans/bench, kinds=sync) under one policy with QEMU's
# gdbstub, and let tests/insn_trace.py single-step CALLS calls of FUNC
# with SIZE bytes, counting instructions per function.  Under -icount
# (make bench's clock) that count is what the call costs.  Needs gdb.
#
# usage: insn-trace.sh BZIMAGE VMLINUX INITRAMFS DISK LOGDIR
# environment: POLICY (transparent), FUNC (swiotlb_sync_single_for_cpu),
# SIZE (4096), SKIP (3: calls passed over, the bench's first ones),
# CALLS (1), PCS (functions to count address by address), QEMU_CPU (max),
# TRACE_PORT (1234)
set -eu
bz=$1 vmlinux=$2 initrd=$3 disk=$4 logdir=$5
command -v gdb >/dev/null ||
	{ echo "error: make insn-trace needs gdb; as root run: apt-get install gdb" >&2; exit 1; }
mkdir -p "$logdir"
port=${TRACE_PORT:-1234}
QEMU_GDB=$port QEMU_CPU=${QEMU_CPU:-max} BOOT_TIMEOUT=900 \
	guest/run-qemu.sh "$bz" "$initrd" "$disk" "$logdir" nokaslr \
	bouncelab.plan=bench bouncelab.kinds=sync bouncelab.rounds=1 \
	"bouncelab.policies=${POLICY:-transparent}" &
qemu=$!
trap 'kill $qemu 2>/dev/null || true' EXIT
# gdb -batch exits 0 even when the script fails: judge by what it printed.
TRACE_PORT=$port TRACE_FUNC=${FUNC:-swiotlb_sync_single_for_cpu} \
	TRACE_SIZE=${SIZE:-4096} TRACE_SKIP=${SKIP:-3} TRACE_CALLS=${CALLS:-1} \
	TRACE_PCS=${PCS:-} \
	timeout 900 gdb -batch -nx -x tests/insn_trace.py "$vmlinux" \
	>"$logdir/gdb.log" 2>&1 || true
if ! grep -q '^# .* instructions$' "$logdir/gdb.log"; then
	tail -n 20 "$logdir/gdb.log" >&2
	[ ! -s "$logdir/console.log" ] || { echo "# the guest's console, last lines:" >&2;
		tail -n 10 "$logdir/console.log" >&2; }
	echo "error: the trace failed (gdb: $logdir/gdb.log, console: $logdir/console.log)" >&2
	exit 1
fi
grep '^#' "$logdir/gdb.log"
