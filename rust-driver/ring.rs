// SPDX-License-Identifier: GPL-2.0

//! The receive ring: buffers mapped `Bidirectional`, as ath9k's EDMA rx
//! buffers, and the driver's side of each delivery: poll, receive, re-arm.

use crate::edu::{Edu, DMA_LATENCY_MS, DMA_TO_RAM, EDU_BUF_ADDR};
use crate::packet::{
    le32, pkt_build, pkt_csum, status, Counts, PKT_HDR_LEN, PKT_MAX_LEN, PKT_READY, PKT_STRIDE,
};
use crate::scenarios::{Rearm, Scenario};
use kernel::prelude::*;
use kernel::{
    delay::{ktime_get_ns, msleep},
    dev_info,
    dma::{
        Bidirectional, Bound, CpuOwned, DeviceOwned, Direction, Idle, InFlight, Kept, Mapping,
        Owner, Peek, ToDevice,
    },
    error::code::*,
};

/// Buffers in the ring.
pub(crate) const RING_SIZE: usize = 8;
/// Bytes per receive buffer.
pub(crate) const RX_BUF_SIZE: usize = 256;
/// Packets loaded into edu's buffer per RAM->edu transfer.
const BATCH_MAX: u32 = 15;

/// One receive buffer of the ring.
pub(crate) struct Slot {
    /// The mapping, while no transfer uses it (`None` while one does: the
    /// transfer holds it, in flight).
    buf: Option<Mapping<Bidirectional, DeviceOwned>>,
    /// The device wrote it since it was last re-armed.
    delivered: bool,
}

/// The state of one scenario run.
pub(crate) struct Run<'a> {
    pub(crate) edu: &'a Edu,
    /// The binding: mappings are made only while a driver is bound.
    bound: &'a Bound<'a>,
    pub(crate) ring: Vec<Slot>,
    staging: Vec<u8>,
    pkt_len: fn(u32) -> u32,
    pub(crate) total: u32,
    rearm: Rearm,
    batch_base: u32,
    batch_n: u32,
    pub(crate) expect: u32,
    pub(crate) cnt: Counts,
    /// Nanoseconds spent in deliveries and idle waits: the device's time.
    pub(crate) dev_ns: u64,
    /// What one `ktime_get_ns()` costs (the shortest of a few back-to-back
    /// pairs): the instrumentation the extra timed interval of `race` adds
    /// to the driver's time, given back to the device's (the C poller's
    /// race has one interval, this one two).
    clock_ns: u64,
    /// In-flight mappings of transfers that never finished.
    pub(crate) kept: Vec<Kept>,
}

/// The cost of one `ktime_get_ns()`: the shortest of 8 back-to-back pairs.
fn clock_cost() -> u64 {
    (0..8)
        .map(|_| {
            let t = ktime_get_ns();
            ktime_get_ns() - t
        })
        .min()
        .unwrap_or(0)
}

/// A zeroed buffer of `len` bytes.
pub(crate) fn zeroed(len: usize) -> Result<Vec<u8>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)?;
    for _ in 0..len {
        v.try_push(0)?;
    }
    Ok(v)
}

impl<'a> Run<'a> {
    pub(crate) fn new(edu: &'a Edu, bound: &'a Bound<'a>, sc: &Scenario) -> Self {
        Self {
            edu,
            bound,
            ring: Vec::new(),
            staging: Vec::new(),
            pkt_len: sc.pkt_len,
            total: (sc.total)(),
            rearm: sc.rearm,
            batch_base: 0,
            batch_n: 0,
            expect: 0,
            cnt: Counts::default(),
            dev_ns: 0,
            clock_ns: clock_cost(),
            kept: Vec::new(),
        }
    }

    /// Keeps an in-flight mapping whose transfer never finished: it stays
    /// mapped until the device is quiesced at unbind (`Bound::drop`).
    fn keep<D: Direction, O: Owner>(&mut self, f: InFlight<D, O>) {
        if let Some(k) = f.keep() {
            dev_info!(
                self.edu.dev,
                "bouncelab: wedge driver=rust kept a {:?} mapping of {} bytes until unbind\n",
                k.direction(),
                k.len()
            );
            // Out of memory: dropping it leaks it, never unmapped (warned).
            let _ = self.kept.try_push(k);
        }
    }

    /// Maps a fresh ring, bidirectionally like ath9k's EDMA rx buffers.
    pub(crate) fn map_ring(&mut self) -> Result {
        self.ring.try_reserve_exact(RING_SIZE)?;
        self.staging = zeroed(BATCH_MAX as usize * PKT_STRIDE)?;
        for _ in 0..RING_SIZE {
            let buf = Mapping::<Bidirectional, _>::map(self.bound, zeroed(RX_BUF_SIZE)?)?;
            self.ring.try_push(Slot {
                buf: Some(buf),
                delivered: false,
            })?;
        }
        Ok(())
    }

    /// Loads packets `base..` into edu's buffer with a RAM->edu transfer.
    fn fill(&mut self, base: u32) -> Result {
        let n = BATCH_MAX.min(self.total - base);
        let size = n as usize * PKT_STRIDE;
        // The staging buffer keeps its capacity across map/unmap cycles.
        let mut staging = core::mem::take(&mut self.staging);
        staging.clear();
        staging.try_reserve_exact(size)?;
        for _ in 0..size {
            staging.try_push(0)?;
        }
        for i in 0..n {
            let off = i as usize * PKT_STRIDE;
            pkt_build(
                &mut staging[off..off + PKT_STRIDE],
                base + i,
                (self.pkt_len)(base + i),
            );
        }
        let m = Mapping::<ToDevice, _>::map(self.bound, staging)?.lend();
        let idle = self
            .edu
            .program_from_ram(&m, EDU_BUF_ADDR, size)
            .and_then(|_| self.edu.start(0));
        match idle {
            // edu is done with it: unmapping gives the CPU buffer back.
            Ok(idle) => self.staging = m.complete(&idle)?.unmap(),
            Err(e) => {
                // edu may still read it: keep it mapped until unbind.
                self.keep(m);
                return Err(e);
            }
        }
        self.batch_base = base;
        self.batch_n = n;
        Ok(())
    }

    /// A delivery is the device's time, not the driver's: keep it apart.
    pub(crate) fn deliver(&mut self, seq: u32, k: usize) -> Result {
        self.timed(|r| r.device_write(seq, k))
    }

    /// Runs `f`, counting its time as the device's.
    fn timed<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        let t = ktime_get_ns();
        let ret = f(self);
        self.dev_ns += ktime_get_ns() - t;
        ret
    }

    /// As long as a delivery takes, with the device idle.
    pub(crate) fn idle(&mut self) {
        let t = ktime_get_ns();
        msleep(DMA_LATENCY_MS);
        self.dev_ns += ktime_get_ns() - t;
    }

    /// edu writes packet `seq` into slot `k`; returns once it has landed.
    fn device_write(&mut self, seq: u32, k: usize) -> Result {
        let f = self.program_delivery(seq, k)?;
        match self.start_delivery(k) {
            Ok(idle) => {
                self.ring[k].buf = Some(f.complete(&idle)?);
                Ok(())
            }
            Err(e) => {
                self.keep(f);
                Err(e)
            }
        }
    }

    /// Programs edu to write packet `seq` into slot `k`: the slot's mapping
    /// is lent to edu, and stays in flight until edu is done with it.
    fn program_delivery(&mut self, seq: u32, k: usize) -> Result<InFlight<Bidirectional>> {
        if self.batch_n == 0 || seq < self.batch_base || seq >= self.batch_base + self.batch_n {
            self.fill(seq)?;
        }
        let src = EDU_BUF_ADDR + u64::from(seq - self.batch_base) * PKT_STRIDE as u64;
        let len = PKT_HDR_LEN + (self.pkt_len)(seq) as usize;
        let f = self.take(k)?.lend();
        match self.edu.program_to_ram(src, &f, len) {
            Ok(()) => Ok(f),
            Err(e) => {
                self.keep(f);
                Err(e)
            }
        }
    }

    /// Starts the programmed delivery into slot `k`; returns once it landed,
    /// with edu's proof that it is done.
    fn start_delivery(&mut self, k: usize) -> Result<Idle<'a>> {
        let idle = self.edu.start(DMA_TO_RAM)?;
        self.ring[k].delivered = true;
        self.cnt.packets += 1;
        Ok(idle)
    }

    fn take(&mut self, k: usize) -> Result<Mapping<Bidirectional, DeviceOwned>> {
        self.ring[k].buf.take().ok_or(EINVAL)
    }

    /// Accounts for a READY buffer as a protocol stack would see it.
    fn classify(&mut self, buf: &[u8], delivered: bool) {
        let c = &mut self.cnt;
        let seq = le32(buf, 4);
        let len = le32(buf, 8);
        if !(1..=PKT_MAX_LEN).contains(&len) || le32(buf, 12) != pkt_csum(buf, len as usize) {
            c.corrupt += 1;
            return;
        }
        if !delivered {
            c.phantom += 1;
        }
        if seq < self.expect {
            c.dup += 1;
            return;
        }
        c.lost += seq - self.expect;
        self.expect = seq + 1;
        // At most RX_BUF_SIZE bytes: the sum cannot overflow. Saying so
        // (`wrapping_add`) drops the overflow check `count()` makes per byte
        // under CONFIG_RUST_OVERFLOW_CHECKS, which had made this loop 4x the
        // instructions of the C poller's and classify() twice as slow.
        let dirty = buf[PKT_HDR_LEN + len as usize..]
            .iter()
            .fold(0u32, |n, &b| n.wrapping_add(u32::from(b != 0)));
        if dirty != 0 {
            c.stale += 1;
            c.stale_bytes += dirty;
        }
    }

    /// Consumes a received buffer and re-arms it, the ath9k way: the type
    /// tracks what the CPU wrote, and `give_back` pushes exactly that with
    /// `DMA_TO_DEVICE`, then hands the whole buffer back with
    /// `DMA_FROM_DEVICE` (the C poller writes and syncs `DMA_FROM_DEVICE`).
    ///
    /// Inlined, like `poll`, so that the mapping's moves from state to state
    /// and its written range stay in registers: out of line, every packet
    /// paid for copying the `CpuWritten` mapping through the stack.
    #[inline(always)]
    fn receive(&mut self, k: usize, cpu: Mapping<Bidirectional, CpuOwned>) -> Result {
        let delivered = self.ring[k].delivered;
        self.classify(cpu.as_slice(), delivered);
        let mut w = cpu.writer();
        // One `fill` call: with one per arm the compiler kept the written
        // range in memory.
        let len = match self.rearm {
            Rearm::Scrub => RX_BUF_SIZE,
            Rearm::ClearStatus => 4,
        };
        let ret = w.fill(0, len, 0);
        self.ring[k].delivered = false;
        self.ring[k].buf = Some(w.give_back());
        ret
    }

    /// One ath9k poll: peek, give back untouched if empty, else receive.
    ///
    /// Inlined into each scenario's loop, as the C poller's `edu_poll()` is.
    #[inline(always)]
    pub(crate) fn poll(&mut self, k: usize) -> Result<bool> {
        let buf = self.take(k)?;
        let mut head = [0u8; 4];
        match buf.poll(&mut head, |h| (status(h) == PKT_READY).then(|| ())) {
            Peek::Pending(buf) => {
                self.ring[k].buf = Some(buf);
                Ok(false)
            }
            Peek::Ready(cpu, ()) => self.receive(k, cpu).map(|_| true),
        }
    }

    /// DMA-API-HOWTO's reject: a read-only look at the packet in slot `k`,
    /// then the buffer goes straight back to the device. The types always
    /// sync on the way back (`FROM_DEVICE`, nothing copied): a give-back
    /// without a sync, as the HOWTO allows, cannot be written.
    pub(crate) fn reject(&mut self, k: usize) -> Result {
        let cpu = self.take(k)?.sync_for_cpu();
        let delivered = self.ring[k].delivered;
        if status(cpu.as_slice()) == PKT_READY {
            self.classify(cpu.as_slice(), delivered);
        }
        self.ring[k].delivered = false;
        self.ring[k].buf = Some(cpu.give_back());
        Ok(())
    }

    /// Checks slot `k`; if empty, edu delivers `seq` while the CPU owns the
    /// buffer, which then goes back with a `DMA_FROM_DEVICE` sync: the window
    /// in which aa6f8dcbab47 clobbered ath9k's frames.
    ///
    /// The buffer is lent to edu (its address programmed, as ath9k hands
    /// its ring over once) before the CPU syncs it for itself: in flight,
    /// the CPU gets only a volatile snapshot of it, and the buffer becomes a
    /// plain mapping again only with edu's proof that it is done.
    pub(crate) fn race(&mut self, seq: u32, k: usize) -> Result {
        let t = ktime_get_ns();
        let f = self.program_delivery(seq, k);
        self.dev_ns += ktime_get_ns() - t + self.clock_ns;
        let cpu = f?.sync_for_cpu();
        let mut head = [0u8; 4];
        cpu.snapshot(&mut head);
        if status(&head) == PKT_READY {
            // A packet not yet received: edu has not been started, so it is
            // idle; take the buffer back, receive, then deliver afresh.
            let cpu = match self.edu.idle() {
                Ok(idle) => cpu.complete(&idle)?,
                Err(e) => {
                    self.keep(cpu);
                    return Err(e);
                }
            };
            self.receive(k, cpu)?;
            return self.timed(|r| r.device_write(seq, k));
        }
        match self.timed(|r| r.start_delivery(k)) {
            Ok(idle) => {
                self.ring[k].buf = Some(cpu.give_back().complete(&idle)?);
                Ok(())
            }
            Err(e) => {
                self.keep(cpu);
                Err(e)
            }
        }
    }
}
