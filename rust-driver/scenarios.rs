// SPDX-License-Identifier: GPL-2.0

//! The scenarios (SPEC.md): what the device delivers when, and how each run
//! is reported.

use crate::edu::Edu;
use crate::packet::PKT_MAX_LEN;
use crate::ring::{Run, RING_SIZE};
use crate::s5_packets;
use kernel::prelude::*;
use kernel::{
    delay::{ktime_get_ms, ktime_get_ns},
    dev_info,
    dma::Bound,
    error::code::*,
};

/// How a consumed buffer is re-armed.
#[derive(Clone, Copy)]
pub(crate) enum Rearm {
    /// Zero the whole buffer.
    Scrub,
    /// Clear the status word only.
    ClearStatus,
}

/// One scenario.
pub(crate) struct Scenario {
    pub(crate) name: &'static str,
    pub(crate) run: fn(&mut Run<'_>) -> Result,
    pub(crate) pkt_len: fn(u32) -> u32,
    /// Packets the scenario delivers.
    pub(crate) total: fn() -> u32,
    pub(crate) rearm: Rearm,
}

/// Every scenario, in the order they run.
pub(crate) const SCENARIOS: [Scenario; 6] = [
    Scenario {
        name: "s2-ath9k-race",
        run: run_s2,
        pkt_len: |_| 64,
        total: || RING_SIZE as u32,
        rearm: Rearm::Scrub,
    },
    Scenario {
        name: "s3-scrub-rearm",
        run: run_s3,
        pkt_len: |seq| if seq & 1 != 0 { 32 } else { PKT_MAX_LEN },
        total: || 2 * RING_SIZE as u32,
        rearm: Rearm::Scrub,
    },
    Scenario {
        name: "s4-status-clear",
        run: run_s4,
        pkt_len: |_| 64,
        total: || RING_SIZE as u32,
        rearm: Rearm::ClearStatus,
    },
    Scenario {
        name: "s5-stream",
        run: run_s5,
        pkt_len: |seq| 1 + (seq * 37) % PKT_MAX_LEN,
        total: s5_packets,
        rearm: Rearm::Scrub,
    },
    Scenario {
        name: "s6-howto-reuse",
        run: run_s6,
        pkt_len: |seq| if seq & 1 != 0 { PKT_MAX_LEN } else { 32 },
        total: || 2 * RING_SIZE as u32,
        rearm: Rearm::Scrub,
    },
    Scenario {
        name: "s8-clear-then-deliver",
        run: run_s8,
        pkt_len: |seq| if seq & 1 != 0 { PKT_MAX_LEN } else { 32 },
        total: || 2 * RING_SIZE as u32,
        rearm: Rearm::ClearStatus,
    },
];

fn run_s2(r: &mut Run<'_>) -> Result {
    for k in 0..RING_SIZE {
        r.race(k as u32, k)?;
        r.poll(k)?;
    }
    Ok(())
}

fn run_s3(r: &mut Run<'_>) -> Result {
    for k in 0..RING_SIZE {
        let seq = 2 * k as u32;
        r.deliver(seq, k)?;
        r.poll(k)?;
        r.deliver(seq + 1, k)?;
        r.poll(k)?;
    }
    Ok(())
}

fn run_s4(r: &mut Run<'_>) -> Result {
    for k in 0..RING_SIZE {
        r.deliver(k as u32, k)?;
        r.poll(k)?;
        r.idle();
        r.poll(k)?;
    }
    Ok(())
}

/// S6: a short packet is rejected after a read-only look and its buffer
/// reused; the device then writes a full-size packet, which the next poll
/// must show in full.
fn run_s6(r: &mut Run<'_>) -> Result {
    for k in 0..RING_SIZE {
        let seq = 2 * k as u32;
        r.deliver(seq, k)?;
        r.reject(k)?;
        r.deliver(seq + 1, k)?;
        r.poll(k)?;
    }
    Ok(())
}

/// S8: the CPU clears only the status word of a received short packet and
/// hands the buffer back; the device then writes a full-size packet, longer
/// than the cleared range, which the next poll must show in full.
fn run_s8(r: &mut Run<'_>) -> Result {
    for k in 0..RING_SIZE {
        let seq = 2 * k as u32;
        r.deliver(seq, k)?;
        r.poll(k)?;
        r.deliver(seq + 1, k)?;
        r.poll(k)?;
    }
    Ok(())
}

fn run_s5(r: &mut Run<'_>) -> Result {
    for i in 0..r.total {
        let k = i as usize % RING_SIZE;
        match i % 3 {
            // The device writes a buffer it owns.
            0 => {
                r.poll(k)?;
                r.deliver(i, k)?;
            }
            // The device writes while the CPU owns it.
            1 => r.race(i, k)?,
            // The device got ahead of the poll loop.
            _ => r.deliver(i, k)?,
        }
        r.poll(k)?;
    }
    Ok(())
}

impl Edu {
    /// Runs scenario `sc`, test number `nr`, on a fresh ring, and reports it.
    pub(crate) fn run_scenario(&mut self, bound: &Bound<'_>, sc: &Scenario, nr: usize) {
        let start = ktime_get_ms();
        let mut run = Run::new(self, bound, sc);
        let mut run_ns = 0;
        let ret = if self.is_wedged() {
            Err(EIO)
        } else {
            run.map_ring().and_then(|_| {
                let t = ktime_get_ns();
                let ret = (sc.run)(&mut run);
                run_ns = ktime_get_ns() - t;
                ret
            })
        };
        // Every buffer left in the ring is unmapped here, whoever owns it: no
        // transfer uses it (those of a transfer that never finished are in
        // `run.kept`, released at unbind once bus mastering is off).
        run.ring.clear();
        let kept = core::mem::take(&mut run.kept);
        let c = &mut run.cnt;
        let observed = match ret {
            Err(e) => {
                dev_info!(
                    self.dev,
                    "bouncelab: error driver=rust scenario={} err={}\n",
                    sc.name,
                    e.to_errno()
                );
                "ERROR"
            }
            Ok(()) => {
                c.lost += run.total.saturating_sub(run.expect);
                c.observed()
            }
        };
        let ms = ktime_get_ms() - start;
        dev_info!(
            self.dev,
            "# {}: packets={} lost={} dup={} stale={} corrupt={} phantom={} stale_bytes={} virt_ms={}\n",
            sc.name, c.packets, c.lost, c.dup, c.stale, c.corrupt, c.phantom, c.stale_bytes, ms
        );
        dev_info!(
            self.dev,
            "bouncelab: result driver=rust scenario={} observed={} packets={} lost={} dup={} stale={} corrupt={} phantom={} cpu_ns={}\n",
            sc.name, observed, c.packets, c.lost, c.dup, c.stale, c.corrupt, c.phantom,
            run_ns.saturating_sub(run.dev_ns)
        );
        dev_info!(
            self.dev,
            "{}ok {} {}\n",
            if ret.is_err() { "not " } else { "" },
            nr,
            sc.name
        );
        drop(run);
        for k in kept {
            // Out of memory: the kept mapping is dropped, which leaks it,
            // never unmapped (with a warning).
            let _ = self.kept.try_push(k);
        }
    }
}
