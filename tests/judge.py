#!/usr/bin/env python3
"""The one judge of bouncelab: every verdict of `make test` is made here.

The guests only report what they saw (guest/plans/README):
  bouncelab: cells policies=a,b drivers=x,y rounds=N
      the cells of tests/expected.tsv this boot will observe;
  bouncelab: result policy=P driver=D scenario=S observed=O [round=R] k=v...
      one observation of a cell;
  KTAP lines
      checks the guest decides by itself (io_tlb_used came back, the knob
      refused garbage) and the kernel's KUnit suites, passed through;
  "bouncelab: expect crash: PATTERN" on the console
      the boot must crash with PATTERN, with no swiotlb function on the
      stack;
  "bouncelab: done" on the console
      the plan ran to its end.

Subcommands:
  run LOGDIR EXPECTED KSRC REPORT VERSION NAME... [--complete] [--host KTAP...]
      judge the boots NAME (LOGDIR/NAME/{console.log,guest.log,qemu.rc}):
      writes LOGDIR/NAME/ktap.log (the boot's judged KTAP), parses it with
      the kernel's kunit.py (parse --json) and counts the leaves; the host
      KTAP files are parsed the same way.  Writes REPORT (the comparison
      table in Markdown) and ends with "N passed, N failed"; exit status 1
      on any failure.  --complete: the boots NAME are the whole suite, so
      every cell of EXPECTED must have been judged in one of them (one
      failure listing those that were not); bouncelab.policies= on a
      boot's command line exempts the policies it leaves out.
  table LOGDIR EXPECTED REPORT VERSION
      print the policy x scenario table of the last run, rewrite REPORT.
  bench KTAP OUTDIR ICOUNT VERSION
      the `make bench` report: results.tsv, summary.tsv, report.md, plots.
  selftest
      KTAP: the racy-cell form of expected.tsv (RACY) judged on made-up
      observations, its wrong variants failing.
Environment: EXTRA_FATAL (more console patterns that fail a boot),
BOOT_TIMEOUT (only to say it).
"""
import collections
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import traceback

POLICY_ORDER = ["legacy", "overwrite-attr", "rework", "upstream", "transparent"]
# Out of memory too: 6.1's KUnit then reports cases it could not start as ok.
# A warning too, but for swiotlb.c's own (6.1's bounds checks, which the
# bad-input cases set off on purpose, and its audit's): e.g. 6.1's
# irq_fpu_usable() warns when asked in NMI, and nothing else would see it.
# An RCU stall too: a CPU kept from scheduling for 21 s (the swiotlb_smp
# case's two spinning threads did it until they yielded, 7 Dec 2026).
FATAL = ("Kernel panic|Oops|BUG:|general protection fault|kernel BUG at|"
         "UBSAN:|KASAN:|Out of memory|rcu: INFO: \\S+ (self-)?detected stall|"
         r"WARNING: CPU: [0-9]+ PID: [0-9]+ at (?!kernel/dma/swiotlb\.c:)")
HUNG = (124, 137)
# Reports that a WARNING carries and that are known to be harmless here,
# each with why. Only the WARNING right after its report line is excused;
# the report is still shown, as a note.
HARMLESS = [
    # NVMe and megaraid_sas take O_DIRECT buffers on 4-byte boundaries
    # (blk_verify's align=4), so two requests in flight (a transfer the
    # block layer split) can share a cache line. dma-debug guards
    # non-coherent caches; x86 is coherent, and swiotlb gives each mapping
    # its own slots (R1 checks their bytes).
    (re.compile(r"DMA-API: (nvme|megaraid_sas) \S+: cacheline tracking EEXIST, "
                r"overlapping mappings aren't supported"),
     "sub-cache-line O_DIRECT buffers; harmless on cache-coherent x86 (docs/drivers.md)"),
]
# Crashes whose cause is known and lies outside the code under test, each
# with that cause: the boot still fails (run it again), and the judge says
# why under the crash's console lines.
KNOWN_CAUSES = [
    # 6.1's check_timer() (arch/x86/kernel/apic/io_apic.c) wants jiffies to
    # advance 5 ticks while the TSC counts 40,000,000,000 / HZ cycles. In a
    # boot without -icount (the smp boot: QEMU's multi-threaded TCG) the
    # guest's TSC is the host's and its timer QEMU's main loop on host
    # time: a host too loaded to run that loop for about 60 ms, three tries
    # running, panics the guest before SMP bring-up. Seen in 1 of 60
    # two-CPU boots beside kernel builds (7 Dec 2026 06:38, load about 7);
    # made at will by stopping QEMU for 300 ms at a time (docs/harness.md).
    (re.compile(r"Kernel panic - not syncing: IO-APIC \+ timer doesn't work"),
     "the host starved QEMU's timer while 6.1's boot-time timer check ran (a boot on "
     "QEMU's real-time clock, the smp boot: no -icount); not a fault of the code under "
     "test; the kernel argument no_timer_check skips the check, as KVM guests do"),
]
RESULT_RE = re.compile(r"^(not ok|ok) ([0-9]+)\b(.*)$")
KV_RE = re.compile(r"(\S+?)=(\S*)")


def read_lines(path):
    try:
        with open(path, errors="replace") as f:
            return [line.rstrip("\r\n").replace("\r", "") for line in f]
    except FileNotFoundError:
        return None


def cmdline_arg(console, key):
    """The value of KEY= on the kernel command line a boot's console shows
    (the last one, as the kernel takes it), or None."""
    cmd = next((line for line in console if "Kernel command line:" in line), "")
    found = re.findall(rf"(?:^|\s){re.escape(key)}=(\S*)", cmd)
    return found[-1] if found else None


def cell_key(kv):
    """The cell an observation belongs to."""
    return (kv.get("policy"), kv.get("scenario"), kv.get("driver"), kv.get("round", "1"))


# ---------------------------------------------------------------- expected

class Expected:
    """tests/expected.tsv: legend, policy columns, rows (scenario, driver)."""

    def __init__(self, path):
        self.legend, self.policies, self.rows, self.cell = [], [], [], {}
        for line in open(path):
            line = line.rstrip("\n")
            if line.startswith("# scenario"):
                self.policies = line.split("\t")[2:]
            elif line.startswith("#    ") and self.legend:
                self.legend[-1] += " " + line[5:]
            elif line.startswith("#   "):
                self.legend.append(line[4:])
            elif line and not line.startswith("#"):
                f = line.split("\t")
                if len(f) != 2 + len(self.policies):
                    sys.exit(f"error: {path}: row '{line}' has {len(f)} fields, "
                             f"expected {2 + len(self.policies)}")
                self.rows.append((f[0], f[1]))
                for p, v in zip(self.policies, f[2:]):
                    self.cell[(f[0], f[1], p)] = v

    def get(self, scenario, driver, policy):
        return self.cell.get((scenario, driver, policy))


# ---------------------------------------------------------------- one boot

def parse_guest(lines):
    """Split a guest's serial output into plans, observations, checks (and
    how many were planned) and KTAP."""
    plans, obs, checks, planned, ktap = [], [], [], [], []
    for line in lines:
        if line.startswith("bouncelab: check "):
            facts, _, label = line[len("bouncelab: check "):].partition(" -- ")
            checks.append((dict(KV_RE.findall(facts)), label.strip()))
        elif line.startswith("bouncelab: checks planned="):
            planned.append(int(line.split("=", 1)[1]))
        elif line.startswith("bouncelab: cells "):
            kv = dict(KV_RE.findall(line[len("bouncelab: cells "):]))
            plans.append(([p for p in kv.get("policies", "").split(",") if p],
                           [d for d in kv.get("drivers", "").split(",") if d],
                           int(kv.get("rounds", "1") or 1)))
        elif line.startswith("bouncelab: result "):
            obs.append(dict(KV_RE.findall(line[len("bouncelab: result "):])))
        else:
            ktap.append(line)
    return plans, obs, checks, planned, ktap


# The invariants a plan reports facts for, one line each
#   bouncelab: check id=ID KEY=VALUE... [-- LABEL]   (lib.sh's check)
# ID: (test name, what must hold, when it is skipped and why). Names take
# {KEY} and {label}; rules are Python expressions over the facts (numbers
# as ints) and rows(DRIVER), the number of DRIVER's rows in expected.tsv.
# A fact a rule needs and the guest did not report fails the check.
CHECKS = {
    "io-tlb-restored": ("io_tlb_used restored after {label}",
                        "used_after == used_before", "built == 0", "not built"),
    "marker-disk": ("the S1 marker disk is on {label} (R1's flood source)", "found == 1", None, None),
    "knob-selects": ("knob selects {policy}", "read == policy", None, None),
    "knob-rejects": ("knob rejects {label}", "accepted == 0 and changed == 0", None, None),
    "knob-accepts": ("knob accepts a valid name", "read == wrote", None, None),
    "knob-race": ("knob survives racing writers with mappings live",
                  "driver_status == 0 and garbage_accepted == 0 and active_marks == 1"
                  " and used_after == used_before", None, None),
    # outcomes=SCENARIO:OUTCOME:N,...: what each scenario showed, N times
    # (guest/plans/reliability); as_expected() holds them against
    # expected.tsv: every row of the driver, its expected outcome each time.
    "life-cycle": ("{module} loads, runs and unloads {times} times",
                   "loads == times and results == times * rows(driver)"
                   " and as_expected(driver, policy, outcomes, times) and drifted == 0",
                   None, None),
    "kmemleak": ("kmemleak finds no leak after the life cycles", "unreferenced == 0",
                 "present == 0", "no kmemleak in this kernel (make test-debug)"),
    "no-warnings": ("no kernel warnings during the {plan} plan", "warnings == 0", None, None),
    "smp-online": ("the SMP boot has two CPUs online", "cpus == 2", None, None),
    "cc-knob": ("the cc_force switch reads Y at boot and refuses garbage",
                "read == 'Y' and garbage_accepted == 0 and after == 'Y'", None, None),
    "pool-dry": ("{module} runs the pool dry under {policy}",
                 "observed == 'ok' and mapped == remapped == free"
                 " and used_after == used_before", None, None),
    "module-results": ("{module} under {policy}", "results > 0 and ok == results", None, None),
    "no-pool": ("s0 disk does not bounce", "nslabs == 0", None, None),
    "revoke-past-unbind": ("a mapping kept past unbind is refused, unmapped, and the unbind completes",
                           "unbound == 1 and 0 <= unbind_ms < 10000 and observed == 'ok'"
                           " and refused == 1 and used_after == used_before", None, None),
    "stale-proof": ("a proof older than the address write does not end the flight",
                    "observed == 'ok' and refused == 1", None, None),
    "expired-proof": ("a proof the device's next address write expired does not end an earlier flight",
                      "observed == 'ok' and refused == 1", None, None),
    "devres-drop": ("dropping a Devres drops its data at once, a forgotten guard notwithstanding",
                    "observed == 'ok' and dropped == 1 and 0 <= ms < 100", None, None),
    "pending-transfer-planted": ("the canary catches a transfer pending across a rebind that turns bus "
                                 "mastering on at once (planted unsafe_master=1)",
                                 "observed == 'CORRUPT' and differ > 0 and unsafe_master == 1", None, None),
    "pending-transfer": ("a transfer pending at unbind does not reach memory when the template rebinds",
                         "observed == 'ok' and differ == 0 and used_after == used_before", None, None),
    # The swiotlb audit (guest/plans/audit, docs/audit.md): what it reports
    # for the C poller's runs, by kind (calls) and call site (KIND_at).
    "audit-switch": ("the audit switch is on from the command line, refuses garbage, turns off and on",
                     "boot == 'Y' and garbage_accepted == 0 and off == 'N' and on == 'Y'",
                     None, None),
    "audit-s2": ("audit: S2 shows the device writing while the CPU held the line",
                 "observed == 'ok' and held > 0 and dropped == 0 and race == 0", None, None),
    "audit-s3": ("audit: S3 shows fixed (a scrub 6.1 would undo)",
                 "observed == 'ok' and fixed > 0 and dropped == 0 and race == 0", None, None),
    "audit-s4": ("audit: S4 shows fixed (a status clear 6.1 would undo)",
                 "observed == 'ok' and fixed > 0 and dropped == 0 and race == 0", None, None),
    "audit-s6": ("audit: S6 (DMA-API-HOWTO reuse) shows only held, as information",
                 "observed == 'ok' and held > 0 and dropped == fixed == race == 0", None, None),
    "audit-planted": ("audit: the planted bug shows dropped at edu_planted_poll, and logs it",
                      "observed == 'STALE' and dropped > 0 and dropped_at == 'edu_planted_poll'"
                      " and logged > 0", None, None),
    "audit-clean": ("audit: without the planted bug, nothing dropped",
                    "observed == 'ok' and dropped == 0 and race == 0 and fixed > 0", None, None),
    "audit-off": ("audit: switched off, it records and logs nothing",
                  "observed == 'STALE' and total == 0 and logged == 0", None, None),
    # A driver function whose last call is the DMA API (a sibling call,
    # samples/dma/dma_audit_tail.c): the audit names it, not its caller.
    "audit-tail": ("audit: {case} as a driver function's last call is reported at that function",
                   "sites == 1 and calls == 1 and at == fn", None, None),
    "audit-on": ("the swiotlb audit is on in the {label} boot", "switch == 'Y'", None, None),
    "audit-explained": ("audit: {row} {kind} ({calls} calls) is explained in judge.py's AUDIT_NOTES",
                        "explained(row, kind)", None, None),
    # The receive floods' control boots (guest/plans/drivers with
    # bouncelab.control=1, swiotlb=noforce): nothing may bounce there.
    "flood-control": ("the floods' control boot has no swiotlb pool", "nslabs == 0", None, None),
    "wedge-release": ("a wedged transfer's mapping is kept, then released with bus mastering off",
                      "kept >= 1 and released == kept and bus_master == 0"
                      " and used_after == used_before", None, None),
    # helper 43 (guest/plans/revoke, rust-driver/revoke_map.rs): mappings
    # made after probe and revoked at unbind, with the device stopped first.
    "revoke-map": ("mappings made after probe are unmapped at unbind only once bus mastering is off, "
                   "canaries in the freed bounce slots survive the rebind, a kept one is refused",
                   "observed == 'ok' and differ == 0 and canaries > 0 and full == 1"
                   " and bus_master == 0 and refused == 1", None, None),
    "revoke-map-planted": ("the canaries catch bus mastering turned on again after the revocation "
                           "(planted revoke_map=2)",
                           "observed == 'CORRUPT' and differ > 0 and full == 1 and planted == 1",
                           None, None),
}


# What each finding of the swiotlb audit in the drivers boot means for that
# driver, one sentence per (row, kind) that can be non-zero (report.md's
# audit table; the audit-explained check fails for a finding not here).
AUDIT_NOTES = {
    ("hw-e1000", "held"):
        "e1000_clean_rx_irq() passes a frame of up to `copybreak` (256) bytes to the "
        "stack through e1000_copybreak(): dma_sync_single_for_cpu() of the frame's "
        "length, a copy into a new skb, and the buffer stays on the ring as it is, "
        "with no dma_sync_single_for_device(). When the ring comes round, the "
        "device's next frame into that buffer is found at the next sync_for_cpu "
        "(copybreak again) or at the unmap (a larger frame). The CPU only read the "
        "buffer, so this is DMA-API-HOWTO's legal reuse (S6's shape), safe on "
        "non-coherent CPUs too: information, not a bug.",
    # The census boot (bouncelab.devices=census): seen only without
    # c-patches/0071 (the xhci fix), kept so that a regression reads as
    # the known bug (docs/drivers.md, the census's findings).
    ("hw-xhci-storage", "dropped"):
        "A driver bug in xhci (drivers/usb/host/xhci-ring.c): when a TD would end a ring "
        "segment unaligned to the max packet, xhci_align_td() sends its last TRB through the "
        "segment's bounce buffer, and xhci_unmap_one_bounce_buffer() copies that into the "
        "URB's buffer while the HCD core still has it mapped DMA_FROM_DEVICE; the core's "
        "unmap at giveback (usb_hcd_unmap_urb_for_dma(), the call site) then drops those CPU "
        "bytes for the URB's own bounce slot. R5 shows the wrong data under every policy; "
        "c-patches/0071 unmaps the URB before the copy.",
    ("hw-e100", "race"):
        "e100 keeps each receive buffer mapped DMA_BIDIRECTIONAL and its RFD header (16 "
        "bytes, one line) is written by both sides: the device completes an RFD (status, "
        "size) while e100_rx_clean() (inlined in e100_poll(), the call site) moves the ring's "
        "end, rewriting the command and size of an RFD and handing it back with "
        "dma_sync_single_for_device(BIDIRECTIONAL), and e100_rx_indicate() hands an "
        "incomplete RFD back with a FROM_DEVICE sync while the device may be writing it. "
        "Both sides wrote the line since the copies last agreed: a race, on which "
        "transparent does what 6.1 does. That is e100's own protocol (the el bit keeps the "
        "device off the RFDs the CPU rewrites, as far as the device honours it), "
        "information, not a bug found; the same window loses frames under rework (R3).",
    ("hw-e100", "held"):
        "e100_rx_indicate() (inlined in e100_poll(), the call site) syncs an RFD's 16-byte "
        "header for the CPU (DMA_BIDIRECTIONAL) to peek at its cb_complete bit and, when the "
        "frame is not complete, hands it back with dma_sync_single_for_device(FROM_DEVICE) "
        "while the device may be completing it: ath9k's polling loop (S2's shape). The CPU "
        "only read the header, so transparent and 6.1 keep the device's completion; rework, "
        "which copies orig over tlb at every sync_for_device, loses it (R3). Whether the "
        "device lands in that window is timing: seen in some census-nics boots, not others. "
        "Information, not a bug.",
    ("hw-xhci-uas", "dropped"):
        "The same xhci bug as hw-xhci-storage's, through uas: the URB's buffer is written "
        "by the CPU while still mapped, and usb_hcd_unmap_urb_for_dma() drops those bytes; "
        "c-patches/0071 fixes it.",
}


def judge_checks(expected, checks, planned):
    """The KTAP group judging a boot's checks against CHECKS, or None."""
    if not checks and not planned:
        return None

    def as_expected(driver, policy, outcomes, times):
        seen = {}
        for item in str(outcomes).split(","):
            scenario, outcome, n = item.rsplit(":", 2)
            seen[(scenario, outcome)] = seen.get((scenario, outcome), 0) + int(n)
        want = {(sc, expected.get(sc, d, policy)): times
                for sc, d in expected.rows if d == driver}
        return seen == want

    env = {"__builtins__": {}, "rows": lambda d: sum(1 for _, rd in expected.rows if rd == d),
           "explained": lambda r, k: (r, k) in AUDIT_NOTES, "as_expected": as_expected}
    tests = []
    for facts, label in checks:
        diag = " ".join(f"{k}={v}" for k, v in facts.items() if k != "id")
        # An empty value (used_after= when the read failed) is a fact the
        # guest did not report.
        facts = {k: int(v) if re.fullmatch(r"-?[0-9]+", v) else v
                 for k, v in facts.items() if v != ""}
        diags = [diag + (f" ({label})" if label else "")]
        rule = CHECKS.get(facts.get("id"))
        if rule is None:
            tests.append(("not ok", f"check {facts.get('id')}", diags + ["no such check in judge.py"]))
            continue
        title, must, skip_when, why = rule
        try:
            name = title.format(label=label, **facts)
            if skip_when and eval(skip_when, env, facts):
                tests.append(("ok", f"{name} # SKIP {why}", diags))
                continue
            holds = eval(must, env, facts)
        except (KeyError, NameError) as e:
            tests.append(("not ok", title.split(" {")[0], diags + [f"fact missing: {e}"]))
            continue
        except (TypeError, ValueError) as e:
            tests.append(("not ok", title.split(" {")[0], diags + [
                f"facts of the wrong kind: {type(e).__name__}: {e}", f"must hold: {must}"]))
            continue
        tests.append(("ok" if holds else "not ok", name, diags if holds else diags + [f"must hold: {must}"]))
    if planned and sum(planned) != len(checks):
        tests.append(("not ok", "every planned check reported",
                      [f"planned {sum(planned)}, reported {len(checks)}"]))
    return ("checks", tests)


# The counts behind each expected failure (a cell of expected.tsv that is
# neither ok nor SKIP), so that more damage, or less, fails too: an exact
# value where the cell is deterministic, a range (lo, hi) where it races.
# The C poller's scenarios are deterministic: edu delivers each packet when
# the driver tells it to and the driver waits for it, one at a time, so a
# policy does the same damage every run (counts measured in the runs of
# 7 Dec 2026, the same in each). What user space reads back from a pool
# (S1, the leak hunt, S0) depends on which slots or pages its buffers got
# and what they held: a range, at most the buffer.
# (scenario, driver): {policy, or "*" for every policy: {count: value}}.


def packets(n, **damage):
    """The counts of a C poller or Rust driver result: N packets, the
    damage given, none of any other kind."""
    return dict({"packets": n, "lost": 0, "dup": 0, "stale": 0, "corrupt": 0, "phantom": 0},
                **damage)


OLD = ("legacy", "overwrite-attr", "upstream")     # 6.1's sync_for_device


def s3_s4(driver, policies):
    """The pins of the C poller's S3 and S4 for DRIVER, failing under
    POLICIES as under 6.1: 16 packets, the 8 short ones with stale tails;
    8 cleared statuses, each back as a phantom."""
    return {("s3-scrub-rearm", driver): {p: packets(16, stale=8) for p in policies},
            ("s4-status-clear", driver): {p: packets(8, dup=8, phantom=8) for p in policies}}


S2_REWORK = {"rework": packets(8, lost=8)}  # S2 under rework: all 8 lost


def six_one_rings(driver):
    """The pins of a C poller DRIVER whose rings keep 6.1's copies under
    transparent too: S3 and S4 fail under it as under 6.1, S2 under rework."""
    return s3_s4(driver, OLD + ("transparent",)) | {("s2-ath9k-race", driver): S2_REWORK}
COUNTS = {
    # Marker bytes user space reads back: at most the buffer (512 KiB;
    # the hunt's 4 x 1,000 TURs of 64 KiB; megaraid's 128 KiB).
    ("s1-sg-tur-leak", "-"): {"legacy": {"nonzero": (1, 512 << 10)}},
    ("leak-hunt", "-"): {"legacy": {"nonzero": (1, 4000 * (64 << 10))}},
    ("s1-sg-tur-leak", "hw-megasas"): {"legacy": {"nonzero": (1, 128 << 10)}},
    ("s0-sg-pages-leak", "sg-zero-off"): {"*": {"nonzero": (1, 512 << 10)}},
    # The C poller (the Rust driver alike): S2, 8 packets, each delivered
    # while the CPU owns its buffer (rework loses all 8); S3, 16 packets,
    # the 8 short ones with stale tails; S4, 8 cleared statuses, each back
    # as a phantom; S5, 1,000 packets (the matrix's packets=), a third of
    # them delivered while the CPU owns the buffer (rework loses 333);
    # S9, 8 buffers completed twice (16), the 8 repeated completions lost.
    **s3_s4("c", OLD),
    ("s5-stream", "c"): dict({p: packets(1000, dup=661, stale=938, phantom=661) for p in OLD},
                             rework=packets(1000, lost=333)),
    ("s2-ath9k-race", "c"): S2_REWORK,
    ("s9-same-rewrite", "c"): {p: packets(16, lost=8) for p in ("rework", "transparent")},
    # c-cc, c-untrusted: transparent keeps 6.1's copies for DMA_FROM_DEVICE
    # mappings; c-off: transparent switched off at boot gives upstream's.
    **six_one_rings("c-cc"),
    **six_one_rings("c-untrusted"),
    **six_one_rings("c-off"),
    ("s9-same-rewrite", "c-off"): {"rework": packets(16, lost=8)},
    # c-cc-bidir, c-untrusted-bidir: R, as for a trusted device.
    **s3_s4("c-cc-bidir", OLD),
    **s3_s4("c-untrusted-bidir", OLD),
    ("s2-ath9k-race", "rust"): S2_REWORK,
    ("s5-stream", "rust"): {"rework": packets(1000, lost=333)},
}


# Racy cells: a cell of tests/expected.tsv may name more than one outcome
# ("ok|CORRUPT") only where a race in the driver decides which one a run
# sees, and only when named here, with the race and the counts its other
# outcomes must hold. The first outcome is the one most runs measure; any
# of them passes; anything else, or a racy outcome outside its counts,
# fails. A cell with alternatives that is not named here fails whatever it
# observed, and so does an entry here whose cell has one outcome: a
# deterministic cell is never loosened by expected.tsv alone.
# (scenario, driver, policy): (the race, {outcome: {count: value or range}})
RACY = {
    # e100_rx_indicate() syncs an RFD header for the CPU and, finding it
    # not complete, hands it back with sync_for_device(FROM_DEVICE) while
    # the device may be completing it: rework's copy then overwrites the
    # completed header (ath9k's 2022 bug). A frame completed in that
    # window of a few instructions is read with a bad header: one corrupt
    # frame, and the ring's frames behind it lost until e100 restarts
    # its receiver (loss is information, beside the control boot).
    # Measured (docs/drivers.md): 1 flood in 3 under rework, 1 corrupt
    # frame each time; never under another policy.
    ("r3-net-flood", "hw-e100", "rework"): (
        "e100's RFD hand-back races the device; rework overwrites a completed header",
        {"CORRUPT": {"corrupt": (1, 16), "stale": 0, "dup": 0}}),
}


def racy_outcome(scenario, driver, policy, exp, kv):
    """For a cell whose EXP names several outcomes: None when KV's outcome
    is one of them with its counts, else why it fails."""
    race = RACY.get((scenario, driver, policy))
    alts = exp.split("|")
    if race is None:
        return (f"expected.tsv names several outcomes ({exp}), but judge.py's RACY "
                "names no race for this cell: a deterministic cell has one outcome")
    obs = kv.get("observed", "")
    if obs not in alts:
        return f"observed {obs}, none of the racy cell's {exp}"
    if obs == alts[0]:
        return None if obs == "ok" else counts_hold(scenario, driver, policy, kv)
    pins = race[1].get(obs)
    if pins is None:
        return f"no counts for {obs} in judge.py's RACY entry"
    bad = []
    for key, want in pins.items():
        got = kv.get(key)
        lo, hi = want if isinstance(want, tuple) else (want, want)
        if got is None or not re.fullmatch(r"[0-9]+", got):
            bad.append(f"{key}: not reported")
        elif not lo <= int(got) <= hi:
            bad.append(f"{key}={got}, pinned {lo}..{hi}")
    return "; ".join(bad) or None


def expected_outcomes(exp):
    """The outcomes a cell of expected.tsv allows (one, or a racy cell's)."""
    return (exp or "").split("|")


def counts_hold(scenario, driver, policy, kv):
    """None when the counts of an observation of an expected failure hold
    what COUNTS pins, else why not."""
    pins = COUNTS.get((scenario, driver), {})
    pin = pins.get(policy, pins.get("*"))
    if pin is None:
        return "no counts pinned for this expected failure in judge.py's COUNTS"
    bad = []
    for key, want in pin.items():
        got = kv.get(key)
        if got is None or not re.fullmatch(r"[0-9]+", got):
            bad.append(f"{key}: not reported")
        elif isinstance(want, tuple) and not want[0] <= int(got) <= want[1]:
            bad.append(f"{key}={got}, pinned {want[0]}..{want[1]}")
        elif not isinstance(want, tuple) and int(got) != want:
            bad.append(f"{key}={got}, pinned {want}")
    return "; ".join(bad) or None


def judge_cells(expected, plans, observations):
    """KTAP groups (one per policy) judging every announced cell, and the
    judged cells (for the report)."""
    found = collections.defaultdict(list)
    for kv in observations:
        found[cell_key(kv)].append(kv)
    used, groups, cells = set(), [], []
    for policies, drivers, rounds in plans:
        for p in policies:
            tests = []
            for r, (s, d) in ((r, row) for r in range(1, rounds + 1)
                              for row in expected.rows):
                if d not in drivers:
                    continue
                key = (p, s, d, str(r))
                name = f"{s} {d}" + (f" round {r}" if rounds > 1 else "")
                exp = expected.get(s, d, p)
                every = found.get(key, [])
                kv = every[0] if every else None
                used.add(key)
                if exp is None:
                    tests.append(("not ok", name, [f"no column '{p}' in expected.tsv"]))
                    continue
                if kv is None:
                    tests.append(("not ok", name, [
                        f"cell policy={p} scenario={s} driver={d} expected={exp} "
                        "observed=none (no observation: see the guest's diagnostics "
                        "and console.log)"]))
                    continue
                obs = kv.get("observed", "")
                counts = " ".join(f"{k}={v}" for k, v in kv.items()
                                  if k not in ("policy", "scenario", "driver", "observed"))
                diag = (f"cell policy={p} scenario={s} driver={d} expected={exp} "
                        f"observed={obs} {counts}").rstrip()
                cells.append(dict(kv, policy=p, scenario=s, driver=d, expected=exp))
                if len(every) > 1:
                    # Which one counts? Neither: the driver reported twice.
                    tests.append(("not ok", name, [diag, f"observed {len(every)} times: "
                                                   + ", ".join(k.get("observed", "") for k in every)]))
                elif "|" in exp or (s, d, p) in RACY:
                    why = racy_outcome(s, d, p, exp, kv) if "|" in exp else (
                        "judge.py's RACY names this cell, but expected.tsv gives it one outcome")
                    if why is None and obs != exp.split("|")[0]:
                        diag += f" (racy cell, the race hit: {RACY[(s, d, p)][0]})"
                    tests.append(("not ok" if why else "ok", name, [diag] + ([why] if why else [])))
                elif obs == "SKIP" and exp == "SKIP":
                    tests.append(("ok", f"{name} # SKIP {kv.get('reason', '')}".rstrip(), [diag]))
                elif obs == exp and exp not in ("ok", "SKIP") and \
                        counts_hold(s, d, p, kv) is not None:
                    tests.append(("not ok", name, [diag, "the expected outcome, but not its "
                                                   "counts: " + counts_hold(s, d, p, kv)]))
                elif obs == exp:
                    tests.append(("ok", name, [diag]))
                elif obs == "SKIP":
                    # A cell not run (matrix: its module was not built) is
                    # not a pass: expected.tsv expects an outcome.
                    tests.append(("not ok", name, [diag, f"skipped, expected {exp}"]))
                else:
                    tests.append(("not ok", name, [diag]))
            groups.append((f"policy {p}", tests))
    stray = [kv for kv in observations if cell_key(kv) not in used]
    if stray:
        groups.append(("observations without a cell", [(
            "not ok", "every observation has its cell in expected.tsv",
            [" ".join(f"{k}={v}" for k, v in kv.items()) for kv in stray])]))
    return groups, cells


def guest_ktap(lines):
    """The guest's own KTAP: its top-level tests (renumbered later), the
    number it announced, and problems with the document."""
    body, announced, seen_header, count = [], None, False, 0
    for line in lines:
        if line.startswith("KTAP version") or line.startswith("TAP version"):
            seen_header = True
            continue
        m = re.match(r"^1\.\.([0-9]+)$", line)
        if m and announced is None:
            announced = int(m.group(1))
            continue
        if RESULT_RE.match(line):
            count += 1
        body.append(line)
    return body, announced, seen_header, count


KUNIT_CELL = re.compile(r"# [a-z0-9_]+: (s[0-9]+-[a-z0-9-]+) ([a-z-]+): "
                        r"observed=(\S+) expected=(\S+)")


def kunit_agrees(expected, lines):
    """The swiotlb_policy KUnit suite asserts in the kernel, with its own
    copy of the expectations: each one it printed must equal the cell of
    expected.tsv (the C poller's row, else the program's).  None when the
    suite did not run."""
    seen, bad = 0, []
    for line in lines:
        m = KUNIT_CELL.search(line)
        if not m:
            continue
        s, p, _, exp = m.groups()
        row = next((d for d in ("c", "-") if (s, d) in expected.rows), None)
        if row is None:
            continue        # a case with no row in the table (s1-skip-cpu-sync)
        seen += 1
        want = expected.get(s, row, p)
        if want != exp:
            bad.append(f"{s} {p}: the suite expects {exp}, expected.tsv ({row}) {want}")
    if not seen:
        return None
    if bad:
        return ("not ok", "swiotlb_policy expects what tests/expected.tsv says", bad)
    return ("ok", "swiotlb_policy expects what tests/expected.tsv says",
            [f"{seen} cells agree"])


# The function whose BUG_ON() each bad-dir boot must hit: DMA_NONE in call
# bouncelab.bad_dir=N of guest/plans/baddir (map, sync_for_cpu,
# sync_for_device, unmap).
BAD_DIR_FUNC = {"1": "dma_map_page_attrs", "2": "dma_sync_single_for_cpu_ip",
                "3": "dma_sync_single_for_device_ip", "4": "dma_unmap_page_attrs_ip"}


def crash_ktap(name, pattern, console, fatal, guest_lines):
    """A boot that announced a crash: it must crash with PATTERN, nothing
    may come first, and swiotlb must not be on the crash's stack; a
    bad-dir boot's crash must be in its call's function (RIP)."""
    log = [line for line in console if "bouncelab: expect crash" not in line]
    at = next((i for i, line in enumerate(log) if pattern in line), None)
    out = ["KTAP version 1", "1..1"]
    title = f"{name} crashes where expected"
    before = [line for line in (log if at is None else log[:at]) if re.search(fatal, line)]
    if before:
        out += ["# another problem came first:"] + [f"# {b}" for b in before[:5]]
        return out + [f"not ok 1 {title}"]
    if at is None:
        out.append(f"# the guest expected '{pattern}' but did not crash with it; it said:")
        out += [line for line in guest_lines if line.startswith("#")][:10]
        out.append("# last console lines:")
        out += [f"# {line}" for line in console[-10:]]
        return out + [f"not ok 1 {title}"]
    trace = []
    for line in log[at:]:
        trace.append(line)
        if re.search(r"end trace|Kernel panic", line):
            break
    if any("swiotlb" in line for line in trace):
        out.append("# swiotlb is on the crash's stack:")
        out += [f"# {line}" for line in trace]
        return out + [f"not ok 1 {title}"]
    keep = [re.sub(r"^\[ *[0-9.]*\] ", "", line) for line in trace
            if pattern in line or re.search(r"RIP:|Call Trace|^[^a-z]*[a-z_]+\+0x", line)]
    bad_dir = cmdline_arg(console, "bouncelab.bad_dir")
    wrong = None
    if bad_dir is not None:
        func = BAD_DIR_FUNC.get(bad_dir)
        rip = next((line for line in trace if "RIP:" in line), "")
        if func is None:
            wrong = (f"# bouncelab.bad_dir={bad_dir} is none of guest/plans/baddir's "
                     f"calls ({', '.join(BAD_DIR_FUNC)}); it crashed at:")
        elif not re.search(rf"RIP: [0-9a-f]+:{func}\+", rip):
            wrong = f"# bouncelab.bad_dir={bad_dir} must crash in {func}; it crashed at:"
    out += ([wrong] if wrong else []) + [f"# {line}" for line in keep[:12]]
    return out + [f"{'not ok' if wrong else 'ok'} 1 {title}"]


def harmless(console):
    """The console lines of WARNINGs that HARMLESS excuses, and a note
    for each kind."""
    excused, notes = set(), collections.Counter()
    for i, line in enumerate(console):
        if "WARNING:" not in line:
            continue
        for pattern, why in HARMLESS:
            if any(pattern.search(prev) for prev in console[max(0, i - 2):i]):
                excused.add(i)
                notes[f"note: excused {{n}} x '{pattern.pattern}': {why}"] += 1
    return excused, [k.format(n=n) for k, n in notes.items()]


QEMU_SIGNAL = re.compile(r"terminating on signal ([0-9]+) from pid ([0-9]+) \((.*)\)")


def stop_cause(logdir, rc):
    """What stopped a guest before its plan's end without a kernel report.
    QEMU names a signal it was killed by (qemu.out): then a process outside
    the guest ended it, and the kernel did nothing wrong (seen on 7 Dec
    2026 beside other builds and boots: SIGTERM from a process already
    gone, QEMU exit status 0).  Otherwise an exit status 0 is
    a reset the guest made (-no-reboot turns it into QEMU's exit): a triple
    fault if QEMU's reset log (-d cpu_reset, qemu-reset.log) says so."""
    qemu = read_lines(os.path.join(logdir, "qemu.out")) or []
    kill = next((m for m in map(QEMU_SIGNAL.search, qemu) if m), None)
    if kill:
        sig, pid, who = kill.groups()
        return (f"QEMU was killed by signal {sig} from pid {pid} "
                f"({who or 'a process already gone'}), from outside the guest: "
                "not a guest failure; run the boot again")
    if rc != 0:
        return "QEMU failed (see what it said below)"
    resets = read_lines(os.path.join(logdir, "qemu-reset.log"))
    if resets is not None and any("Triple fault" in line for line in resets):
        return ("the guest triple-faulted (qemu-reset.log), and -no-reboot made "
                "QEMU exit")
    if resets is not None:
        return ("the guest asked for a reset (no triple fault in qemu-reset.log), "
                "and -no-reboot made QEMU exit")
    return ("the guest reset, by a triple fault or a reboot request (-no-reboot made "
            "QEMU exit; no qemu-reset.log to tell which)")


def boot_problem(name, console, rc, fatal, logdir, excused=frozenset()):
    """Why a boot that did not announce a crash failed, or None; the
    console lines in EXCUSED (harmless()) do not count."""
    path = os.path.join(logdir, "console.log")
    tail = ([f"---- last 40 lines of {path} ----"] +
            (console[-40:] if console else ["(no console output)"]))
    hits = [i for i, line in enumerate(console)
            if re.search(fatal, line) and i not in excused]
    if hits:
        out = [f"error: the guest kernel crashed or reported a problem in boot {name}:"]
        shown = []
        for i in hits:
            shown += [f"{j + 1}:{console[j]}" for j in range(i, min(i + 26, len(console)))
                      if f"{j + 1}:{console[j]}" not in shown]
        causes = [f"cause: {why}" for pattern, why in KNOWN_CAUSES
                  if any(pattern.search(console[i]) for i in hits)]
        return out + shown[:60] + causes + [f"---- full log: {path} ----"]
    if rc in HUNG:
        timeout = os.environ.get("BOOT_TIMEOUT", "900")
        return ([f"error: boot {name} hung: no shutdown within {timeout} s"] + tail +
                [f"---- full log: {path} ----"])
    if not any("bouncelab: done" in line for line in console):
        return ([f"error: boot {name} stopped before finishing its plan (QEMU exit status {rc}): "
                 + stop_cause(logdir, rc)] + tail + [f"---- full log: {path} ----"])
    if rc != 0:
        # The guest powers off at its plan's end (-no-reboot): QEMU exits 0.
        return ([f"error: boot {name} finished its plan but QEMU exited with status {rc}"
                 + (" (no qemu.rc)" if rc == -1 else "")] + tail + [f"---- full log: {path} ----"])
    return None


PLAN_STATUS = re.compile(r"bouncelab: plan (\S+) exit status ([0-9]+)")


def plan_status(name, console, plan):
    """A failed test when the plan did not exit 0 (guest/init reports its
    status on the console: a plan that died, by a shell error or a signal,
    reported less than it planned), else None.  Only for a boot that got
    that far: one that crashed or hung is failed by boot_problem()."""
    if not any("bouncelab: done" in line for line in console):
        return None
    said = [m.groups() for m in map(PLAN_STATUS.search, console) if m]
    title = f"boot {name}'s plan {plan} ran to its end"
    if not said:
        return ("not ok", title, ["guest/init reported no exit status of the plan"])
    ran, status = said[-1]
    if ran != plan or status != "0":
        why = {"127": " (no such plan)", "126": " (not executable)"}.get(status, "")
        if int(status) > 128:
            why = f" (killed by signal {int(status) - 128})"
        return ("not ok", title, [f"plan {ran} exited with status {status}{why}: "
                                  "it died, so what it reported may be short"])
    return None


# The KUnit suites each plan must run, fixed here: the guest lists what
# debugfs has, and a suite that silently fails to register (or a module
# that brings one more) would change that list, and with it the count.
KUNIT_SUITES = {
    "matrix": ("swiotlb_fuzz", "swiotlb_input", "swiotlb_policy", "swiotlb_smp",
               "swiotlb_wb_pass"),
    "exhaust": ("swiotlb_input",),
    "smp": ("swiotlb_smp",),
}


def suites_run(name, plan, ktap):
    """A failed test when the KUnit suites the guest's KTAP shows (the
    "# Subtest:" headers of its top-level tests) are not the ones
    KUNIT_SUITES fixes for PLAN, each with a result, else None."""
    want = KUNIT_SUITES.get(plan, ())
    seen, results = [], set()
    for line in ktap:
        m = re.match(r"^    # Subtest: (\S+)$", line)
        if m:
            seen.append(m.group(1))
        m = RESULT_RE.match(line)
        if m and m.group(3).split():
            results.add(m.group(3).split()[0])
    missing = [s for s in want if s not in seen or s not in results]
    extra = sorted(set(seen) - set(want))
    twice = sorted({s for s in seen if seen.count(s) > 1})
    if not (missing or extra or twice):
        return None
    diags = [f"plan {plan} must run {len(want)} KUnit suites: {', '.join(want) or 'none'}"]
    diags += [f"no result of suite {s}" for s in missing]
    diags += [f"suite {s} is not one judge.py's KUNIT_SUITES gives plan {plan}" for s in extra]
    diags += [f"suite {s} reported more than once" for s in twice]
    return ("not ok", f"boot {name} runs its {len(want)} KUnit suites", diags)


def compose(name, groups, guest, problem_tests):
    """One KTAP document: the judged groups, the guest's own tests
    (renumbered), then the judge's own findings about the guest's KTAP."""
    body, announced, seen_header, count = guest
    total = len(groups) + count + len(problem_tests)
    out = ["KTAP version 1", f"1..{total}"]
    n = 0
    for title, tests in groups:
        n += 1
        out += ["    KTAP version 1", f"    # Subtest: {title}", f"    1..{len(tests)}"]
        for i, (res, tname, diags) in enumerate(tests, 1):
            out += [f"    # {tname.split(' # ')[0]}: {d}" for d in diags]
            out.append(f"    {res} {i} {tname}")
        bad = any(res != "ok" for res, _, _ in tests)
        out.append(f"{'not ok' if bad else 'ok'} {n} {title}")
    for line in body:
        m = RESULT_RE.match(line)
        if m:
            n += 1
            line = f"{m.group(1)} {n}{m.group(3)}"
        out.append(line)
    for res, tname, diags in problem_tests:
        n += 1
        out += [f"# {tname}: {d}" for d in diags]
        out.append(f"{res} {n} {tname}")
    return out


def judge_boot(name, logdir, expected, fatal):
    """Write LOGDIR/ktap.log for one boot; return (messages, cells, failed)."""
    console = read_lines(os.path.join(logdir, "console.log")) or []
    guest_lines = read_lines(os.path.join(logdir, "guest.log")) or []
    try:
        rc = int(open(os.path.join(logdir, "qemu.rc")).read().strip())
    except (FileNotFoundError, ValueError):
        rc = -1
    messages, failed = [], 0
    expect = next((line.split("bouncelab: expect crash: ", 1)[1].strip()
                   for line in console if "bouncelab: expect crash: " in line), None)
    if expect and rc not in HUNG:
        doc = crash_ktap(name, expect, console, fatal, guest_lines)
        write(os.path.join(logdir, "ktap.log"), doc)
        return messages, [], 0
    excused, notes = harmless(console)
    messages += notes
    problem = boot_problem(name, console, rc, fatal, logdir, excused)
    if problem:
        messages += problem
        qemu = read_lines(os.path.join(logdir, "qemu.out")) or []
        if qemu:
            messages += ["---- QEMU said: ----"] + qemu[-20:]
        failed += 1
    plans, observations, checked, planned, ktap = parse_guest(guest_lines)
    groups, cells = judge_cells(expected, plans, observations)
    group = judge_checks(expected, checked, planned)
    if group:
        groups.append(group)
    guest = guest_ktap(ktap)
    body, announced, seen_header, count = guest
    checks = []
    agree = kunit_agrees(expected, ktap)
    if agree:
        checks.append(agree)
    status = plan_status(name, console, cmdline_arg(console, "bouncelab.plan") or "matrix")
    if status:
        checks.append(status)
    # (A boot that stopped early is failed above, suites missing or not.)
    suites = suites_run(name, cmdline_arg(console, "bouncelab.plan") or "matrix", ktap) \
        if any("bouncelab: done" in line for line in console) else None
    if suites:
        checks.append(suites)
    if not seen_header and not groups:
        checks.append(("not ok", f"boot {name} reports results",
                       ["the guest wrote no KTAP and no observations"]))
    elif announced is not None and announced != count:
        checks.append(("not ok", f"boot {name} reports every test it announced",
                       [f"announced {announced}, reported {count}"]))
    write(os.path.join(logdir, "ktap.log"), compose(name, groups, guest, checks))
    with open(os.path.join(logdir, "cells.json"), "w") as f:
        json.dump(cells, f, indent=1)
    return messages, cells, failed


def write(path, lines):
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


# ---------------------------------------------------------------- kunit.py

def leaves(group, counts):
    for case in group.get("test_cases", []):
        counts[case.get("status", "FAIL")] += 1
    for sub in group.get("sub_groups", []):
        leaves(sub, counts)
    return counts


def parse_ktap(path, ksrc):
    """kunit.py parse --json: print its verdicts, return (passed, failed,
    skipped) counted over the leaves of its JSON."""
    jpath = os.path.realpath(path) + ".json"
    if os.path.exists(jpath):
        os.remove(jpath)
    kunit = os.path.join(ksrc, "tools/testing/kunit/kunit.py")
    proc = subprocess.run([sys.executable, kunit, "parse", f"--json={jpath}",
                           os.path.realpath(path)],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in proc.stdout.splitlines():
        line = re.sub(r"^\[[0-9:]*\] ", "", line)
        if line.startswith("Test results stored in"):
            continue
        print(line)
    try:
        with open(jpath) as f:
            counts = leaves(json.load(f), collections.Counter())
    except (FileNotFoundError, ValueError):
        counts = collections.Counter()
    if sum(counts.values()) == 0:
        print(f"error: no KTAP results in {path}")
        return 0, 1, 0
    return counts["PASS"], counts["FAIL"] + counts["ERROR"], counts["SKIP"]


# The swiotlb KUnit suites' per-policy outcome table and fuzzer counts:
# kunit.py shows only verdicts, these lines are the point of those suites.
KUNIT_TABLE = re.compile(r"# [a-z0-9_]+: (s[0-9]-[a-z0-9-]+ [a-z-]+: observed=|"
                         r"fuzz policy=|first (divergence|regression|guard damage):)")


def coverage(logdir, names, expected):
    """--complete: the cells of EXPECTED no boot of NAMES announced (those
    announced are judged by judge_cells), as lines "SCENARIO DRIVER:
    POLICY,...".  A policy counts for a driver unless every boot that
    announced the driver (every boot, for a driver none announced) left it
    out with bouncelab.policies=; S0 is judged in one column, any."""
    announced, allowed, every = set(), {}, set()
    for name in names:
        console = read_lines(os.path.join(logdir, name, "console.log")) or []
        arg = cmdline_arg(console, "bouncelab.policies")
        mine = set(arg.split(",")) if arg is not None else set(expected.policies)
        every |= mine
        plans = parse_guest(read_lines(os.path.join(logdir, name, "guest.log")) or [])[0]
        for policies, drivers, _ in plans:
            for d in drivers:
                allowed.setdefault(d, set()).update(mine)
            announced |= {(s, d, p) for p in policies for s, d in expected.rows if d in drivers}
    missing = []
    for s, d in expected.rows:
        want = [p for p in expected.policies if p in allowed.get(d, every)]
        lack = [p for p in want if (s, d, p) not in announced]
        if lack and not (s == S0 and len(lack) < len(want)):
            missing.append(f"{s} {d}: {','.join(lack)}")
    return missing


def cmd_run(args):
    host = []
    complete = "--complete" in args
    if complete:
        args = [a for a in args if a != "--complete"]
    if "--host" in args:
        i = args.index("--host")
        args, host = args[:i], args[i + 1:]
    logdir, exp_path, ksrc, report, version = args[:5]
    names = args[5:]
    expected = Expected(exp_path)
    fatal = FATAL + (f"|{os.environ['EXTRA_FATAL']}" if os.environ.get("EXTRA_FATAL") else "")
    passed = failed = skipped = 0
    write(os.path.join(logdir, "last-run"), names)
    for name in names:
        bdir = os.path.join(logdir, name)
        messages, _, bad = judge_boot(name, bdir, expected, fatal)
        try:
            secs = open(os.path.join(bdir, "seconds")).read().strip()
            rc = open(os.path.join(bdir, "qemu.rc")).read().strip()
            print(f"boot {name} ran {secs} s (QEMU exit status {rc}); logs in {bdir}")
        except FileNotFoundError:
            print(f"boot {name}: not run; logs in {bdir}")
        for m in messages:
            print(m)
        failed += bad
        p, f, s = parse_ktap(os.path.join(bdir, "ktap.log"), ksrc)
        passed, failed, skipped = passed + p, failed + f, skipped + s
        for line in read_lines(os.path.join(bdir, "ktap.log")) or []:
            if KUNIT_TABLE.search(line):
                print("  " + re.sub(r"^ *# [a-z0-9_]*: ", "", line))
    for path in host:
        p, f, s = parse_ktap(path, ksrc)
        passed, failed, skipped = passed + p, failed + f, skipped + s
    missing = coverage(logdir, names, expected) if complete else []
    if missing:
        print(f"error: {len(missing)} rows of {exp_path} not judged in every policy "
              "(--complete: these boots are the whole suite); cells not judged:")
        print("\n".join(f"  {m}" for m in missing))
        failed += 1
    if os.path.exists(version):
        try:
            write_report(logdir, expected, report, version, quiet=True)
        except Exception as e:
            where = traceback.extract_tb(e.__traceback__)[-1]
            print(f"error: writing {report} failed: "
                  f"{traceback.format_exception_only(type(e), e)[-1].strip()} "
                  f"({os.path.basename(where.filename)}:{where.lineno} in {where.name})")
            failed += 1
    tail = f", {skipped} skipped" if skipped else ""
    print(f"{passed} passed, {failed} failed{tail}")
    return 1 if failed else 0


# ---------------------------------------------------------------- report

# The count behind each outcome; "ok" shows how much was checked.
KEY_COUNT = {"LEAK": "nonzero", "LOST": "lost", "STALE": "stale",
             "PHANTOM": "phantom", "DUP": "dup", "CORRUPT": "corrupt",
             "ok": "packets"}
S0, S1 = "s0-sg-pages-leak", "s1-sg-tur-leak"
SG_SWITCH = [("sg-zero-off", "sg zeroing off (before a45b599ad808)"),
             ("sg-zero-on", "sg zeroing on (6.1)")]
TWO_FIXES = (
    "a45b599ad808 (2018) made sg zero the pages it allocates for a "
    "command's data, so a command that transfers less than its buffer no "
    "longer hands their old contents to user space (S0). Under swiotlb the "
    "stale bytes come from the bounce buffer, which is copied over those "
    "zeroed pages at unmap, so sg's fix cannot help there: ddbd89deb7d3 "
    "(2022) had to fill the bounce buffer from the pages at map time (S1: "
    "legacy still leaks with 6.1's sg).")


def label(scenario):
    """A column's short name: "S1" for s1-sg-tur-leak, "R1" for
    r1-blk-verify, else the whole name (leak-hunt)."""
    head = scenario.split("-")[0]
    return head.upper() if re.fullmatch(r"[sr][0-9]+", head) else scenario


def long_label(scenario):
    head, _, rest = scenario.partition("-")
    return f"{head.upper()} {rest}" if label(scenario) != scenario else scenario


def merge_rounds(cells):
    """One cell per (policy, scenario, driver): rounds folded together
    (observed: the common outcome or MIXED; counts comma-separated)."""
    merged = collections.OrderedDict()
    for c in cells:
        merged.setdefault((c["policy"], c["scenario"], c["driver"]), []).append(c)
    out = {}
    for key, group in merged.items():
        if len(group) == 1:
            out[key] = group[0]
            continue
        cell = {}
        for k in group[0]:
            vals = [g.get(k, "") for g in group]
            if k == "observed":
                cell[k] = vals[0] if len(set(vals)) == 1 else "MIXED"
            elif k == "round":
                cell["rounds"] = str(len(group))
            else:
                cell[k] = vals[0] if len(set(vals)) == 1 else ",".join(vals)
        out[key] = cell
    return out


def show(cell):
    """OBSERVED[!] count, '!' where it differs from the expectation."""
    if cell is None:
        return "-"
    mark = "" if cell["observed"] in expected_outcomes(cell["expected"]) else "!"
    key = KEY_COUNT.get(cell["observed"])
    # Real-driver rows (R1, R2) count cases or frames, and R1 leaks in bytes.
    if key not in cell:
        key = next((k for k in ("leak", "frames", "cases") if k in cell and
                    (k != "leak" or cell["observed"] == "LEAK")), key)
    count = f" {cell[key]}" if key in cell else ""
    # Scenarios that check a packet byte by byte (S6-S8) say how many it lacked.
    if cell["observed"] != "ok" and cell.get("missing_bytes", "0") != "0":
        count += f" ({cell['missing_bytes']} B missing)"
    return f"{cell['observed']}{mark}{count}"


# What swiotlb reserves per slot, measured from the kernel's own "Memory:
# ... reserved" line of boots that differ only in the pool's size
# (swiotlb=N slots, the last swiotlb= on the command line wins; noforce:
# no pool). 6.1's struct io_tlb_slot is 24 bytes (its source).  And what
# the kernel takes beyond that under a workload: the exhaust plan's C
# poller fills the pool and reports the free memory it saw go
# (peak_taken_kib of its pool-dry checks).
SLOT_BYTES, UPSTREAM_SLOT_META = 2048, 24
# What the line machine needs beyond 6.1 (docs/transparent.md): a 64-bit
# fingerprint and a state byte per 64-byte line, 32 lines a slot.
MEMORY_TARGET = 32 * (8 + 1) / SLOT_BYTES
# The kernel arguments by which run-qemu.sh boots another machine.
MACHINE_ARGS = ("bouncelab.cpu", "bouncelab.smp", "bouncelab.iommu", "bouncelab.devices")


def pool_memory(logdir, names):
    boots, taken = {}, {}
    for name in names:
        lines = read_lines(os.path.join(logdir, name, "console.log")) or []
        mem = next((re.search(r"Memory: .* (\d+)K reserved", ln) for ln in lines
                    if "Memory: " in ln and "reserved" in ln), None)
        size = cmdline_arg(lines, "swiotlb")
        if not mem or not size:
            continue
        # Another machine reserves otherwise (cpu=max: about 1 MiB more
        # than qemu64, which the matrix boot once booked to the pool).
        if any(cmdline_arg(lines, arg) for arg in MACHINE_ARGS):
            continue
        arg = size.split(",")[0]
        slots = 0 if arg == "noforce" else int(arg) if arg.isdigit() else None
        if slots is not None:
            boots.setdefault(slots, (name, int(mem.group(1)) * 1024))
        _, _, checks, _, _ = parse_guest(read_lines(os.path.join(logdir, name, "guest.log")) or [])
        for facts, _ in checks:
            if facts.get("id") == "pool-dry" and "peak_taken_kib" in facts:
                taken[facts["policy"]] = (name, slots, int(facts["peak_taken_kib"]))
    if 0 not in boots or len(boots) < 2:
        return None
    base_name, base = boots.pop(0)
    out = ["## Memory of the bounce pool (measured)\n",
           f"What the kernel reports reserved at boot, against the boot without a pool "
           f"(`{base_name}`): the slots' buffers and their metadata.\n",
           "| boot | slots | reserved beyond no pool | per slot | metadata per slot "
           "| beyond 6.1's per MiB of pool |", "|---|---|---|---|---|---|"]
    for slots, (name, reserved) in sorted(boots.items()):
        per = (reserved - base) / slots
        meta = per - SLOT_BYTES
        extra = (meta - UPSTREAM_SLOT_META) * (1 << 20) / SLOT_BYTES / 1024
        out.append(f"| {name} | {slots} | {(reserved - base) / 1024:.0f} KiB | {per:.0f} B "
                   f"| {meta:.0f} B | {extra:.0f} KiB ({100 * extra / 1024:.1f}%) |")
    if taken:
        out.append("\nUnder a workload: the C poller maps one-slot buffers until the "
                   "pool is full, twice; the second time its buffers exist already, so "
                   "the free memory that goes meanwhile is what the DMA layer takes at a "
                   "full pool (the page allocator's count, which lags by a few pages "
                   "per CPU).\n")
        out.append("| policy | boot | slots | taken at the full pool |")
        out.append("|---|---|---|---|")
        for pol, (name, slots, kib) in taken.items():
            out.append(f"| {pol} | {name} | {slots} | {kib} KiB |")
    slots, (name, reserved) = max(boots.items())
    fixed = (reserved - base) / slots - SLOT_BYTES - UPSTREAM_SLOT_META
    if "transparent" in taken and "upstream" in taken:
        _, tslots, tkib = taken["transparent"]
        lazy = max(0, tkib - taken["upstream"][2]) * 1024 / tslots
        peak = (fixed + lazy) / SLOT_BYTES
        out.append(f"\nPeak beyond 6.1 per slot: {fixed:.0f} B reserved at boot (`{name}`) "
                   f"+ {lazy:.0f} B taken at a full pool (`transparent` minus `upstream`, "
                   f"if more) = {100 * peak:.1f}% of the pool; target <= "
                   f"{100 * MEMORY_TARGET:.1f}%: {'met' if peak <= MEMORY_TARGET else 'missed'}.")
    else:
        out.append(f"\nBeyond 6.1 per slot: {fixed:.0f} B reserved at boot (`{name}`); "
                   "not measured under a workload in this run (no exhaust boot under "
                   "both `upstream` and `transparent`).")
    return "\n".join(out) + "\n"


AUDIT_KINDS = [("dropped", "CPU bytes dropped"), ("held", "device wrote while the CPU held"),
               ("race", "race"), ("fixed", "fixed (6.1 would not move them)")]


def audit_section(logdir, boot="drivers"):
    """report.md's driver x kind table of the swiotlb audit, from the
    "# audit-site" lines of BOOT (guest/plans/drivers: the drivers boot or
    the census), or None."""
    lines = read_lines(os.path.join(logdir, boot, "guest.log")) or []
    sites = [dict(KV_RE.findall(ln.split("# audit-site ", 1)[1].split(" at=")[0]))
             | {"at": ln.split(" at=", 1)[1] if " at=" in ln else "?"}
             for ln in lines if ln.startswith("# audit-site ")]
    if not any(ln.startswith("bouncelab: check id=audit-on") for ln in lines):
        return None
    cells = {}
    for st in sites:
        key = (f"{st['row']} ({st['driver']})", st["kind"])
        c = cells.setdefault(key, {"row": st["row"], "calls": 0, "lines": 0, "at": []})
        c["calls"] += int(st["calls"])
        c["lines"] += int(st["lines"])
        site = f"`{st['at'].split('+')[0]}` ({st['op']})"
        if site not in c["at"]:
            c["at"].append(site)
    drivers = sorted({d for d, _ in cells})
    out = [f"## What the swiotlb audit found in the {boot} boot\n",
           f"The `{boot}` boot runs with `swiotlb_audit=on` (docs/audit.md in the repository); "
           "the audit looks at mappings made under `transparent`. Each cell: calls that found "
           "lines of that kind, and the functions that made those calls.\n"]
    if not drivers:
        return "\n".join(out + ["No findings.\n"])
    out.append("| driver | " + " | ".join(k for _, k in AUDIT_KINDS) + " |")
    out.append("|---|" + "---|" * len(AUDIT_KINDS))
    for d in drivers:
        row = [f"{cells[(d, k)]['calls']}: " + ", ".join(cells[(d, k)]["at"])
               if (d, k) in cells else "0" for k, _ in AUDIT_KINDS]
        out.append(f"| {d} | " + " | ".join(row) + " |")
    out.append("\nWhat each non-zero cell means for that driver:\n")
    for d in drivers:
        for k, name in AUDIT_KINDS:
            if (d, k) in cells:
                note = AUDIT_NOTES.get((cells[(d, k)]["row"], k),
                                       "not explained yet (the audit-explained check fails)")
                out.append(f"- {d}, {name}: {note}")
    return "\n".join(out) + "\n"


def flood_section(logdir):
    """report.md's receive-flood table (guest/plans/drivers, r3-net-flood):
    per NIC, the share of frames lost under each policy next to the same
    NIC's loss in its control boot without bouncing (NAME-control,
    swiotlb=noforce), or None when no flood ran."""
    floods, control = {}, {}

    def cell(c):
        share = int(c.get("lost", "0")) / max(int(c["frames"]), 1)
        return f"{100 * share:.1f}% of {c['frames']}"
    for name in read_lines(os.path.join(logdir, "last-run")) or []:
        if name.endswith("-control"):
            for ln in read_lines(os.path.join(logdir, name, "guest.log")) or []:
                if ln.startswith("# control-result "):
                    c = dict(KV_RE.findall(ln))
                    if c.get("scenario") == "r3-net-flood" and c.get("frames", "").isdigit():
                        control[c["driver"]] = cell(c)
            continue
        path = os.path.join(logdir, name, "cells.json")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            for c in json.load(f):
                if c.get("scenario") == "r3-net-flood" and c.get("frames", "").isdigit():
                    floods.setdefault(c["driver"], {})[c["policy"]] = cell(c)
    if not floods:
        return None
    policies = [p for p in POLICY_ORDER if any(p in v for v in floods.values())]
    out = ["## Receive floods: frames lost, against no bouncing\n",
           "Each cell: the share of the flood's frames that never arrived (rings overrun "
           "under load), and how many frames were sent. `no bounce`: the same NIC in the "
           "control boot (`swiotlb=noforce`). Corrupt, stale, duplicated frames and stalls "
           "are the flood's outcome in the table above, judged on their own.\n",
           "| driver | no bounce | " + " | ".join(policies) + " |",
           "|---|---|" + "---|" * len(policies)]
    for d in sorted(floods):
        out.append(f"| {d} | {control.get(d, '-')} | "
                   + " | ".join(floods[d].get(p, "-") for p in policies) + " |")
    return "\n".join(out) + "\n"


def write_report(logdir, expected, md, version_file, quiet=False):
    cells_list = []
    # The boots of the last run (older boots' cells may still lie around).
    for name in read_lines(os.path.join(logdir, "last-run")) or []:
        path = os.path.join(logdir, name, "cells.json")
        if os.path.exists(path):
            with open(path) as f:
                cells_list += json.load(f)
    cells = merge_rounds(cells_list)
    policies = expected.policies
    rows = [(s, d) for s, d in expected.rows if s != S0]
    version = open(version_file).read().strip()
    heads = ["policy"] + [label(s) + ("" if d == "-" else f" {d}") for s, d in rows]
    table = [[p] + [show(cells.get((p, s, d))) for s, d in rows] for p in policies]
    widths = [max(len(r[i]) for r in [heads] + table) for i in range(len(heads))]

    def line(r, w=widths):
        return "  ".join(c.ljust(x) for c, x in zip(r, w)).rstrip()

    def find(s, d, p=None):
        return next((c for (cp, cs, cd), c in cells.items()
                     if cs == s and cd == d and p in (None, cp)), None)
    fix_heads = ["data path"] + [h for _, h in SG_SWITCH]
    fix_rows = [["S0 no bounce"] + [show(find(S0, d)) for d, _ in SG_SWITCH]]
    fix_rows += [[f"S1 swiotlb {p}", "-", show(find(S1, "-", p))] for p in policies]
    fix_widths = [max(len(r[i]) for r in [fix_heads] + fix_rows) for i in range(len(fix_heads))]
    wrong = sum(1 for c in cells.values() if c["observed"] not in expected_outcomes(c["expected"]))
    names = sorted({s for s, _ in rows})
    if not quiet:
        print(f"\nbouncelab: Debian linux-source-6.1 {version}, swiotlb=force, QEMU TCG")
        print(line(heads))
        print(line(["-" * w for w in widths]))
        for r in table:
            print(line(r))
        print("\n" + ", ".join(long_label(s) for s in names)
              + "; c = C poller, rust = Rust driver, hw-* = drivers Linux ships")
        print(f"{len(cells)} cells run, {wrong} differ from expected ('!'); "
              "'-' = not run; number = the count behind the outcome (LEAK: "
              "non-zero bytes; LOST/STALE/PHANTOM: packets; ok: packets checked)")
        print("\nThe two fixes of CVE-2018-1000204 (S0: its own boot, no bounce; "
              "LEAK counts per round):")
        for r in [fix_heads] + fix_rows:
            print(line(r, fix_widths))
        print(TWO_FIXES)
    with open(md, "w") as f:
        f.write(f"# bouncelab comparison\n\nKernel: Debian linux-source-6.1 "
                f"{version}, `swiotlb=force`, QEMU TCG.\n\n")
        f.write("| " + " | ".join(heads) + " |\n")
        f.write("|" + "---|" * len(heads) + "\n")
        for r in table:
            f.write("| " + " | ".join(r) + " |\n")
        f.write("\n`!` marks an outcome that differs from the expected one; the "
                "number is the count behind the outcome (LEAK: non-zero bytes "
                "returned; LOST, STALE, PHANTOM: packets; ok: packets checked).\n")
        f.write("\n## The two fixes of CVE-2018-1000204\n\n")
        f.write("| " + " | ".join(fix_heads) + " |\n")
        f.write("|" + "---|" * len(fix_heads) + "\n")
        for r in fix_rows:
            f.write("| " + " | ".join(r) + " |\n")
        f.write(f"\n{TWO_FIXES}\n")
        memory = pool_memory(logdir, read_lines(os.path.join(logdir, "last-run")) or [])
        if memory:
            f.write("\n" + memory)
        # The boots with the audit on: drivers and the census's (not their
        # control boots, which do not bounce).
        for boot in read_lines(os.path.join(logdir, "last-run")) or []:
            if boot != "drivers" and not boot.startswith("census-") or boot.endswith("-control"):
                continue
            audit = audit_section(logdir, boot)
            if audit:
                f.write("\n" + audit)
        floods = flood_section(logdir)
        if floods:
            f.write("\n" + floods)
        f.write("\n## Legend\n\n")
        for entry in expected.legend:
            f.write(f"- {entry}\n")
        f.write("\n## Counts\n\n")
        for (p, s, d), kv in sorted(cells.items()):
            counts = " ".join(f"{k}={v}" for k, v in kv.items()
                              if k not in ("policy", "scenario", "driver"))
            f.write(f"- {p} {s} {d}: {counts}\n")
    if not quiet:
        print(f"report: {md}")


def cmd_table(args):
    logdir, exp_path, md, version = args
    write_report(logdir, Expected(exp_path), md, version)
    return 0


# ---------------------------------------------------------------- bench

def cmd_bench(args):
    ktap, outdir, icount, version = args[:4]
    cpu = args[4] if len(args) > 4 else "qemu64"
    os.makedirs(outdir, exist_ok=True)
    for f in os.listdir(outdir):
        if f.endswith(".png") or f.endswith(".dat"):
            os.remove(os.path.join(outdir, f))
    rows, config = [], ""
    for line in read_lines(ktap) or []:
        line = line.strip()
        if line.startswith("# bench config"):
            config = line[len("# bench config "):]
        if not line.startswith("# bench kind="):
            continue
        f = dict(KV_RE.findall(line[len("# bench "):]))
        kind = f["kind"]
        if kind in ("poll", "rearm", "memcpy", "fpu"):
            val, unit = int(f["ns"]) / int(f["iters"]), "ns/cycle"
        elif kind.startswith("rx-"):
            val, unit = int(f["ns"]) / int(f["iters"]), "ns/packet"
        elif kind.startswith("map-"):
            val, unit = float(f["ns"]), "ns/map+unmap"
        elif kind == "disk" or kind.startswith("hw-"):
            val, unit = int(f["bytes"]) / int(f["ns"]) * 1e3, "MB/s"
        else:
            continue
        rows.append((kind, int(f["size"]), int(f.get("threads", 1)), f["policy"],
                     int(f["round"]), val, unit))

    with open(f"{outdir}/results.tsv", "w") as o:
        o.write("# kind\tsize\tthreads\tpolicy\tround\tvalue\tunit\n")
        for r in rows:
            o.write("\t".join(str(x) if not isinstance(x, float) else f"{x:.1f}"
                              for x in r) + "\n")

    cells = collections.OrderedDict()
    policies = []
    for kind, size, thr, pol, _, val, _ in rows:
        cells.setdefault((kind, size, thr), {}).setdefault(pol, []).append(val)
        if pol not in policies:
            policies.append(pol)
    policies.sort(key=lambda p: POLICY_ORDER.index(p) if p in POLICY_ORDER else 99)
    units = {r[0]: r[6] for r in rows}
    med = statistics.median

    def spread(v):
        m = med(v)
        return 100.0 * (max(v) - min(v)) / m if m else 0.0

    kord = ["poll", "rearm", "memcpy", "fpu"]
    cells = collections.OrderedDict(sorted(cells.items(), key=lambda kv: (
        kord.index(kv[0][0]) if kv[0][0] in kord else 9, kv[0][0], kv[0][1], kv[0][2])))
    summary = {}
    with open(f"{outdir}/summary.tsv", "w") as o:
        o.write("# kind\tsize\tthreads\tpolicy\tn\tmedian\tspread%\tratio_vs_upstream\tunit\n")
        for (kind, size, thr), bypol in cells.items():
            up = med(bypol["upstream"]) if "upstream" in bypol else None
            for pol in policies:
                if pol not in bypol:
                    continue
                v = bypol[pol]
                ratio = med(v) / up if up else float("nan")
                summary[(kind, size, thr, pol)] = (len(v), med(v), spread(v), ratio)
                o.write(f"{kind}\t{size}\t{thr}\t{pol}\t{len(v)}\t{med(v):.1f}\t"
                        f"{spread(v):.1f}\t{ratio:.3f}\t{units[kind]}\n")

    def fmt_size(s):
        return f"{s // 1024} KiB" if s >= 1024 else f"{s} B"

    def table(kinds, title, note):
        out = [f"### {title}", "", note, "",
               "| benchmark | size | thr | " + " | ".join(policies) + " |",
               "|---|---|---|" + "---|" * len(policies)]
        for (kind, size, thr), _ in cells.items():
            if kind not in kinds:
                continue
            cols = []
            for pol in policies:
                s = summary.get((kind, size, thr, pol))
                cols.append(f"{s[3]:.2f}x ({s[1]:.0f} ±{s[2]:.0f}%)" if s else "-")
            out.append(f"| {kind} | {fmt_size(size)} | {thr} | " + " | ".join(cols) + " |")
        return "\n".join(out) + "\n"

    def get(kind, size, thr, pol):
        s = summary.get((kind, size, thr, pol))
        return s[1] if s else None

    def verdict(ok):
        return "MET" if ok else "MISSED"

    targets = []
    maprat = [summary[k][3] for k in summary if k[0].startswith("map-") and k[3] == "transparent"]
    if maprat:
        worst = max(maprat)
        targets.append(f"| `transparent` map/unmap within 5% of `upstream` | worst cell "
                       f"{worst:.3f}x, best {min(maprat):.3f}x | {verdict(worst <= 1.05)} |")
    tp, up, mc = (get("poll", 4096, 1, "transparent"), get("poll", 4096, 1, "upstream"),
                  get("memcpy", 4096, 1, "transparent"))
    if tp and up:
        r = tp / up
        targets.append(f"| `transparent` poll cycle at 4 KiB <= 2.0x `upstream` (stretch 1.5x) | "
                       f"{r:.2f}x | {verdict(r <= 2.0)}{' (stretch met)' if r <= 1.5 else ''} |")
    if tp and mc:
        r = tp / mc
        targets.append(f"| `transparent` poll cycle at 4 KiB within 3x of one memcpy | "
                       f"{r:.2f}x memcpy | {verdict(r <= 3.0)} |")
    td, ud = get("disk", 65536, 1, "transparent"), get("disk", 65536, 1, "upstream")
    if td and ud:
        r = td / ud
        targets.append(f"| `transparent` disk read throughput >= 95% of `upstream` | "
                       f"{100 * r:.1f}% | {verdict(r >= 0.95)} |")
    hwr = {k[0]: summary[k][3] for k in summary
           if k[0].startswith("hw-") and k[3] == "transparent"}
    if hwr:
        worst = min(hwr, key=hwr.get)
        targets.append(f"| `transparent` real-driver throughput >= 0.95x `upstream` | worst "
                       f"{worst} {hwr[worst]:.3f}x, best {max(hwr.values()):.3f}x | "
                       f"{verdict(hwr[worst] >= 0.95)} |")
    rxr = {}
    for pol in ("upstream", "transparent"):
        c, r = get("rx-c", 256, 1, pol), get("rx-rust", 256, 1, pol)
        if c and r:
            rxr[pol] = r / c
    if "transparent" in rxr:
        r = rxr["transparent"]
        also = f" (under `upstream`: {rxr['upstream']:.3f}x)" if "upstream" in rxr else ""
        targets.append(f"| Rust per-packet cost within 5% of the C poller | {r:.3f}x the C "
                       f"poller under `transparent`{also} | {verdict(r <= 1.05)} |")
    else:
        targets.append("| Rust per-packet cost within 5% of the C poller | no rx measurements "
                       "(see the bench log) | MISSED |")

    rounds = max((r[4] for r in rows), default=0)
    erms = ("ERMS: the kernel's memcpy is `rep movsb`, which icount charges one instruction "
            "per byte" if cpu == "max" else
            "no ERMS: the kernel's memcpy is `rep movsq`, which icount charges one instruction "
            "per 8 bytes")
    md = [f"## Performance under icount, CPU model `{cpu}` (`make bench`)", "",
          f"One boot, {rounds} rounds, policies interleaved (the order rotates every round); "
          "each cell is the **ratio of the median to `upstream`**, then the median and the spread "
          f"((max-min)/median) over the rounds. Swiotlb patch measured: `{version}` "
          f"(`git log -1 --format=%h -- c-patches/0001*`). Boot: `{config}`.", "",
          f"**Clock**: QEMU TCG with `-icount {icount}` and `-cpu {cpu}` ({erms}): the guest "
          "clock counts executed "
          "instructions (2^shift ns each), so these are deterministic CPU-cost ratios, not wall "
          "time; TCG inflates every instruction alike, which is why only ratios are reported. "
          "With `sleep=on` the clock runs in real time only while the guest is idle, so the disk "
          "numbers are instructions executed plus the real time spent waiting for QEMU's I/O: "
          "closest to throughput in one boot, and the noisiest row (see its spread). "
          "(With `sleep=off` idle time jumps to the next timer deadline instead, which made the "
          "disk spread over 100%.) Caveat for all rows: icount charges every instruction alike, "
          "so a `rep movsq` memcpy costs 1 instruction per 8 bytes while a word-by-word compare "
          "or hash costs several instructions per 8 bytes: ratios against memcpy measure "
          "instructions, not what a real CPU's fast string moves would show.", "",
          "### Targets", "", "| target | measured | status |", "|---|---|---|"] + targets + [""]
    md.append(table(("poll", "rearm", "memcpy", "fpu"),
                    "Sync cycles (samples/dma/swiotlb_sync_bench.ko)",
                    "poll = sync_for_cpu + sync_for_device (DMA_FROM_DEVICE, CPU only reads); "
                    "rearm = the same with the CPU writing 25% of the buffer in between; "
                    "memcpy = one memcpy of the size (the floor); fpu (size 0) = "
                    "kernel_fpu_begin() + kernel_fpu_end(), what a call that takes a vector "
                    "pass pays besides its lines (not the first of a system call). "
                    "Unit: ns per cycle."))
    md.append("![poll cycle](sync-poll.png)\n\n![rearm cycle](sync-rearm.png)\n")
    md.append(table(tuple(k for k in units if k.startswith("map-")),
                    "Map + unmap (kernel dma_map_benchmark)",
                    "Average map + unmap latency per call as the kernel reports it (0.1 us "
                    "resolution), bound to an edu device; `-s 1` (one virtual second per run); "
                    "thr = threads (the guest has one CPU, so 2 threads measure contention, "
                    "not parallelism)."))
    md.append("![map+unmap](map.png)\n")
    md.append(table(("disk",), "Disk: sequential O_DIRECT reads of the 16 MiB virtio-scsi disk, "
                    "64 KiB blocks",
                    "Unit: MB/s of virtual time (higher is better; ratio < 1 is slower)."))
    hwk = tuple(k for k in units if k.startswith("hw-"))
    md.append(table(hwk, "Real drivers: throughput per device (guest/plans/hw.sh)",
                    "Each device rebound under the policy before it is measured, so its "
                    "mappings (a NIC's receive ring too) are made under that policy. Disks "
                    "(virtio-blk, nvme, ahci, megasas): sequential O_DIRECT reads of the 16 MiB "
                    "scratch disk in 64 KiB blocks. NICs: `net_frames -r 4` round trips between "
                    "two NICs of the model on one QEMU hub, one frame in flight at a time (size = "
                    "the mean frame), so this is per-frame driver and bounce cost, not line "
                    "rate. Unit: MB/s of virtual time (higher is better; ratio < 1 is slower).")
              if hwk else "### Real drivers\n\nNot measured in this boot (no "
              "`bouncelab.devices=drivers`).\n")
    rx = ["### Drivers: per-packet CPU cost in s5-stream", "",
          "Each driver loaded once per policy and round with `packets=` s5-stream packets; "
          "`cpu_ns` is the time the scenario spent in the driver: total minus deliveries (edu's "
          "DMA and the packet staging that stands in for the sender) and idle waits, so it is "
          "the poll, check, classify and re-arm work plus the sync calls. Unit: ns per packet "
          "(median, spread). Under `transparent` both drivers receive the same packets; under "
          "`upstream` the C poller also counts phantoms and stale bytes (its scenarios fail "
          "there), so only `transparent` judges the target.", "",
          "| driver | upstream | transparent |", "|---|---|---|"]
    for kind, lbl in (("rx-c", "C poller (samples/dma/edu_poller.c)"),
                      ("rx-rust", "Rust (rust-driver/)")):
        cols = []
        for pol in ("upstream", "transparent"):
            v = summary.get((kind, 256, 1, pol))
            cols.append(f"{v[1]:.0f} ±{v[2]:.0f}% (n={v[0]})" if v else "-")
        rx.append(f"| {lbl} | " + " | ".join(cols) + " |")
    rx.append("| Rust / C | " + " | ".join(f"{rxr[p]:.3f}x" if p in rxr else "-"
                                         for p in ("upstream", "transparent")) + " |")
    md.append("\n".join(rx) + "\n")
    md.append("### Memory\n\nMeasured by `make test`, not here: its report.md has the "
              "section \"Memory of the bounce pool (measured)\", with the target.\n")
    md.append("### Packets per second\n\nNot measured: edu completes each DMA after a fixed "
              "100 ms (virtual) timer, so packets per second of the C poller and the Rust driver "
              "measure that timer, not the drivers; their per-packet CPU cost is in the Drivers "
              "table above.\n")
    with open(f"{outdir}/report.md", "w") as f:
        f.write("\n".join(md))
    # gnuplot data: one file per (kind, policy): size median min max
    for (kind, size, thr), bypol in cells.items():
        if thr != 1:
            continue
        for pol, v in bypol.items():
            with open(f"{outdir}/{kind}.{pol}.dat", "a") as o:
                o.write(f"{size}\t{med(v):.1f}\t{min(v):.1f}\t{max(v):.1f}\n")
    print("\n".join(md[:md.index("### Targets") + len(targets) + 4]))
    if shutil.which("gnuplot"):
        pols = " ".join(sorted(f[len("poll."):-len(".dat")] for f in os.listdir(outdir)
                               if f.startswith("poll.") and f.endswith(".dat")))
        gp = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench.gp")
        if subprocess.run(["gnuplot", "-e", f"policies='{pols}'", gp], cwd=outdir).returncode:
            print("warning: gnuplot failed", file=sys.stderr)
    else:
        print("warning: no gnuplot (apt-get install gnuplot-nox): no plots", file=sys.stderr)
    text = "\n".join(md)
    section = text[text.find("### Sync cycles"):text.find("### Memory")]
    print("\n".join(line for line in section.splitlines() if not line.startswith("![")))
    print(f"bench report: {outdir}/report.md (results: {outdir}/results.tsv, plots: {outdir}/*.png)")
    return 0


def cmd_selftest(args):
    """KTAP: the racy-cell form judged on made-up observations, the right
    ones passing and the wrong variants (an outcome outside the racy set,
    a racy outcome outside its counts, a deterministic cell that fails, a
    cell given alternatives that RACY does not name, a RACY cell given one
    outcome) failing. Exit status 1 when a verdict is not the one wanted."""
    class Table:
        def __init__(self, cells):
            self.policies, self.rows, self.cell = POLICY_ORDER, [], cells
            self.rows = sorted({(sc, d) for sc, d, _ in cells})

        def get(self, scenario, driver, policy):
            return self.cell.get((scenario, driver, policy))
    flood = "r3-net-flood"

    def res(obs, **counts):
        return dict({"observed": obs, "frames": "12747", "lost": "255", "corrupt": "0",
                     "stale": "0", "dup": "0"}, **{k: str(v) for k, v in counts.items()})
    e100 = {(flood, "hw-e100", p): "ok" for p in POLICY_ORDER}
    e100[(flood, "hw-e100", "rework")] = "ok|CORRUPT"
    cases = [
        ("racy cell, the race missed", e100, "rework", res("ok"), "ok"),
        ("racy cell, the race hit", e100, "rework", res("CORRUPT", corrupt=1), "ok"),
        ("racy cell, more corrupt frames than one race makes", e100, "rework",
         res("CORRUPT", corrupt=40), "not ok"),
        ("racy cell, a stale frame (not the race's outcome)", e100, "rework",
         res("STALE", stale=1, corrupt=1), "not ok"),
        ("racy cell, corrupt and stale at once", e100, "rework",
         res("CORRUPT", corrupt=1, stale=1), "not ok"),
        ("deterministic cell beside it, corrupt", e100, "upstream", res("CORRUPT", corrupt=1),
         "not ok"),
        ("deterministic cell given alternatives in expected.tsv alone",
         e100 | {(flood, "hw-e100", "upstream"): "ok|CORRUPT"}, "upstream", res("ok"),
         "not ok"),
        ("RACY cell given one outcome in expected.tsv",
         e100 | {(flood, "hw-e100", "rework"): "ok"}, "rework", res("ok"), "not ok"),
    ]
    print("KTAP version 1")
    print(f"1..{len(cases)}")
    failed = 0
    for i, (what, cells, policy, kv, want) in enumerate(cases, 1):
        obs = dict(kv, policy=policy, scenario=flood, driver="hw-e100")
        groups, _ = judge_cells(Table(cells), [([policy], ["hw-e100"], 1)], [obs])
        got = groups[0][1][0][0]
        ok = got == want
        failed += not ok
        print(f"{'ok' if ok else 'not ok'} {i} {what}: judged {got}, wanted {want}")
        for line in groups[0][1][0][2][1:]:
            print(f"# {line}")
    return 1 if failed else 0


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("run", "table", "bench", "selftest"):
        sys.exit(__doc__)
    return {"run": cmd_run, "table": cmd_table, "bench": cmd_bench,
            "selftest": cmd_selftest}[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
