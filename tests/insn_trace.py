# SPDX-License-Identifier: GPL-2.0
# gdb -batch -x tests/insn_trace.py VMLINUX, against a QEMU gdbstub: stop
# at the Nth call of a kernel function whose third argument (%rdx: the
# size of a swiotlb sync) is SIZE, single-step it to its return, and print
# how many instructions it executed, per function it ran through, in the
# order first reached.  Under -icount that count is the guest clock's cost
# of the call.  Settings from the environment (tests/insn-trace.sh sets
# them): TRACE_PORT, TRACE_FUNC, TRACE_SIZE, TRACE_SKIP (calls passed
# over first), TRACE_CALLS (calls traced, one after another), TRACE_PCS
# (comma-separated functions whose instructions are also counted one by
# one, printed as address and count).
import collections
import os

import gdb

port = os.environ.get("TRACE_PORT", "1234")
func = os.environ.get("TRACE_FUNC", "swiotlb_sync_single_for_cpu")
size = int(os.environ.get("TRACE_SIZE", "4096"))
skip = int(os.environ.get("TRACE_SKIP", "3"))
calls = int(os.environ.get("TRACE_CALLS", "1"))
per_pc = set(filter(None, os.environ.get("TRACE_PCS", "").split(",")))

gdb.execute("set pagination off")
gdb.execute("set confirm off")
# QEMU may not listen yet: gdb retries a refused connection for this
# long, then gives up (a QEMU that failed to start).
gdb.execute("set tcp auto-retry on")
gdb.execute("set tcp connect-timeout 20")
gdb.execute("target remote :" + port)
inferior = gdb.selected_inferior()
names = {}


def name_of(pc):
    """The function holding pc (vmlinux symbols; no debug info needed)."""
    if pc not in names:
        block = gdb.block_for_pc(pc)
        while block is not None and block.function is None:
            block = block.superblock
        if block is not None:
            names[pc] = block.function.name
        else:
            names[pc] = gdb.execute("info symbol %d" % pc,
                                    to_string=True).split()[0]
    return names[pc]


def reg(name):
    return int(gdb.parse_and_eval("$" + name))


def stop_at_call(n):
    """Run to the nth next call of func with that size."""
    gdb.execute("break %s if $rdx == %d" % (func, size))
    for _ in range(n):
        gdb.execute("continue")
    gdb.execute("delete")


def trace_call():
    sp0 = reg("sp")
    ret = int.from_bytes(inferior.read_memory(sp0, 8).tobytes(), "little")
    counts = collections.Counter()
    pcs = collections.Counter()
    total = 0
    while not (reg("pc") == ret and reg("sp") > sp0):
        pc = reg("pc")
        counts[name_of(pc)] += 1
        if name_of(pc) in per_pc:
            pcs[pc] += 1
        total += 1
        gdb.execute("stepi", to_string=True)
    print("# %s size %d: %d instructions" % (func, size, total))
    for name, n in counts.items():
        print("#   %7d %s" % (n, name))
    for pc, n in sorted(pcs.items()):
        print("#   %#x %5d %s" % (pc, n, name_of(pc)))


stop_at_call(skip + 1)
for call in range(calls):
    if call:
        stop_at_call(1)
    trace_call()
gdb.execute("kill")
