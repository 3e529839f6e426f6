// SPDX-License-Identifier: GPL-2.0

//! ath9k-style receive poller for QEMU's `edu` device, in Rust.
//!
//! Runs the same scenarios S2..S5 as the C poller (`samples/dma/edu_poller.c`,
//! spelled out in `edu-scenarios.md`): same packet format, ring, counts and
//! output, plus S6 and S8. The difference is how a consumed buffer goes back
//! to the device: the C poller writes in place and syncs `DMA_FROM_DEVICE`;
//! here the buffer is a [`Mapping`] whose type records whether the CPU wrote
//! it, and [`Mapping::give_back`] then syncs exactly the written bytes with
//! `DMA_TO_DEVICE` and the whole buffer with `DMA_FROM_DEVICE` (nothing
//! copied), or only the latter if the CPU only read it. So S3, S4 and S8
//! come out `ok` under every swiotlb policy; S2 is still `LOST` under
//! `rework`, whose `sync_for_device(FROM_DEVICE)` bounces the stale buffer
//! over the packet.
//!
//! Each result line also gives `cpu_ns`, the time spent in the driver (the
//! scenario minus deliveries and idle waits), to compare per-packet CPU cost
//! with the C poller. With `exhaust=1` it runs no scenario but maps one-slot
//! buffers until the DMA layer returns `Err`, twice, and reports both counts.
//!
//! Binds only the first edu it probes (`-EBUSY` for the others: the C poller,
//! loaded first, has the first one), runs the scenarios at probe time, under
//! the policy active then, and stays bound until `rmmod`.

use core::sync::atomic::{AtomicBool, Ordering};
use kernel::prelude::*;
use kernel::{
    delay::{ktime_get_ms, ktime_get_ns, msleep},
    dma::{
        self, Bidirectional, CpuOwned, DeviceOwned, DmaAddr, DmaMask, FromDevice, Mapping, Peek,
        ToDevice,
    },
    error::code::*,
    io_mem::IoMem,
    pci,
};

module! {
    type: EduRustModule,
    name: b"edu_rust",
    author: b"bouncelab developers <dev@bouncelab.invalid>",
    description: b"ath9k-style DMA poller for QEMU's edu device, with typed DMA ownership",
    license: b"GPL",
}

const REG_DMA_SRC: usize = 0x80;
const REG_DMA_DST: usize = 0x88;
const REG_DMA_CNT: usize = 0x90;
const REG_DMA_CMD: usize = 0x98;
const DMA_RUN: u32 = 1 << 0;
const DMA_TO_RAM: u32 = 1 << 1;

/// edu's default DMA mask: 28 bits.
const DMA_MASK: DmaMask = DmaMask::new::<28>();
/// edu's internal buffer; QEMU 7.2 aborts unless start + count < 0x41000.
const EDU_BUF_ADDR: u64 = 0x40000;
const PKT_STRIDE: usize = 256;
const BATCH_MAX: u32 = 15;

/// edu starts a transfer 100 ms of virtual time after the kick.
const DMA_LATENCY_MS: u32 = 100;
const DMA_TIMEOUT_MS: u32 = 5000;

const RING_SIZE: usize = 8;
const RX_BUF_SIZE: usize = 256;
const PKT_READY: u32 = 0x5944_4552; // "REDY"
const PKT_HDR_LEN: usize = 16;
const PKT_MAX_LEN: u32 = (RX_BUF_SIZE - PKT_HDR_LEN) as u32;

extern "C" {
    /// Module parameter `packets` (`edu_rust_param.c`): packets streamed
    /// through the ring by s5-stream.
    static edu_rust_packets: u32;
    /// Module parameter `exhaust`: map until swiotlb is full instead of the
    /// scenarios.
    static edu_rust_exhaust: bool;
}

/// The value of the `packets` module parameter.
fn s5_packets() -> u32 {
    // SAFETY: a `u32` defined in `edu_rust_param.c`, written only by the
    // module loader before `init` runs (its sysfs file is read-only).
    unsafe { edu_rust_packets }
}

/// The value of the `exhaust` module parameter.
fn exhaust() -> bool {
    // SAFETY: as for `edu_rust_packets`: written only before `init` runs.
    unsafe { edu_rust_exhaust }
}

/// One swiotlb slot per buffer, so the count is the pool's free slots.
const EXH_BUF_SIZE: usize = 2048;
/// More than a small pool holds: reaching it means the pool never filled.
const EXH_MAX: usize = 16384;

/// Maps `FromDevice` buffers until the DMA layer returns `Err`; all are
/// unmapped again (dropped) on return. Returns how many were mapped.
fn exhaust_once(dev: &dma::Device) -> Result<usize> {
    let mut maps = Vec::new();
    while maps.len() < EXH_MAX {
        match Mapping::<FromDevice, _>::map(dev, zeroed(EXH_BUF_SIZE)?) {
            Ok(m) => maps.try_push(m)?,
            Err(_) => return Ok(maps.len()),
        }
    }
    Err(ENOSPC)
}

static CLAIMED: AtomicBool = AtomicBool::new(false);

struct EduRustModule {
    _reg: pci::Registration<EduRust>,
}

impl kernel::Module for EduRustModule {
    fn init(module: &'static ThisModule) -> Result<Self> {
        Ok(Self {
            _reg: pci::Registration::new(module)?,
        })
    }
}

struct EduRust;

impl pci::Driver for EduRust {
    type Data = Bound;
    const NAME: &'static [u8] = b"edu_rust\0";
    const IDS: &'static [(u16, u16)] = &[(0x1234, 0x11e8)];

    fn probe(dev: &pci::Device) -> Result<Bound> {
        if CLAIMED.swap(true, Ordering::AcqRel) {
            return Err(EBUSY);
        }
        let bound = Bound::new(dev).map_err(|e| {
            CLAIMED.store(false, Ordering::Release);
            e
        })?;
        // Run at probe time, so that insmod returns with every result printed.
        if exhaust() {
            bound.edu.run_exhaustion();
            return Ok(bound);
        }
        pr_info!("KTAP version 1\n");
        pr_info!("1..{}\n", SCENARIOS.len());
        for (i, sc) in SCENARIOS.iter().enumerate() {
            bound.edu.run_scenario(sc, i + 1);
        }
        Ok(bound)
    }
}

/// The device while bound. Fields drop in order: MMIO before disabling.
struct Bound {
    edu: Edu,
    _enabled: pci::Enabled,
}

impl Bound {
    fn new(dev: &pci::Device) -> Result<Self> {
        let enabled = dev.enable()?;
        let mmio = dev.iomap_region(0, b"edu_rust\0")?;
        // SAFETY: called in probe, before this driver maps anything; no other
        // driver maps for this device.
        unsafe { dev.dma_set_mask_and_coherent(DMA_MASK)? };
        dev.set_master();
        Ok(Self {
            edu: Edu {
                mmio,
                dma: dev.dma_device()?,
                wedged: AtomicBool::new(false),
            },
            _enabled: enabled,
        })
    }
}

impl Drop for Bound {
    fn drop(&mut self) {
        CLAIMED.store(false, Ordering::Release);
    }
}

/// An address edu can DMA to or from: RAM through a device-owned mapping
/// (borrowed from it), or its internal buffer.
enum EduAddr<'m> {
    Ram(DmaAddr<'m>),
    Internal(u64),
}

struct Edu {
    mmio: IoMem,
    dma: dma::Device,
    /// A transfer never finished: edu cannot abort one, so it may still
    /// write any buffer it was given. Those stay mapped for good.
    wedged: AtomicBool,
}

impl Edu {
    fn is_wedged(&self) -> bool {
        self.wedged.load(Ordering::Relaxed)
    }

    fn set_addr(&self, addr: EduAddr<'_>, reg: usize) -> Result {
        match addr {
            EduAddr::Ram(a) => self.mmio.write_dma_addr(a, reg),
            EduAddr::Internal(a) => self.mmio.write64(a, reg),
        }
    }

    /// Runs one transfer and sleeps until it has landed.
    fn dma_run(&self, src: EduAddr<'_>, dst: EduAddr<'_>, count: usize, cmd: u32) -> Result {
        self.program(src, dst, count)?;
        self.start(cmd)
    }

    /// Programs a transfer without starting it.
    fn program(&self, src: EduAddr<'_>, dst: EduAddr<'_>, count: usize) -> Result {
        self.set_addr(src, REG_DMA_SRC)?;
        self.set_addr(dst, REG_DMA_DST)?;
        self.mmio
            .write32(u32::try_from(count).map_err(|_| EINVAL)?, REG_DMA_CNT)
    }

    /// Starts the programmed transfer and sleeps until it has landed.
    fn start(&self, cmd: u32) -> Result {
        self.mmio.write32(cmd | DMA_RUN, REG_DMA_CMD)?;
        msleep(DMA_LATENCY_MS);
        let mut waited = 0;
        while self.mmio.read32(REG_DMA_CMD)? & DMA_RUN != 0 {
            if waited >= DMA_TIMEOUT_MS {
                pr_info!("bouncelab: error driver=rust edu DMA timeout, leaking the ring\n");
                self.wedged.store(true, Ordering::Relaxed);
                return Err(ETIMEDOUT);
            }
            msleep(1);
            waited += 1;
        }
        Ok(())
    }

    /// A full pool must be a clean `Err`, and dropping the mappings must give
    /// every slot back, so the second round maps exactly as many again.
    fn run_exhaustion(&self) {
        let first = exhaust_once(&self.dma);
        let second = exhaust_once(&self.dma);
        let count = |r: &Result<usize>| match r {
            Ok(n) => *n as i64,
            Err(e) => i64::from(e.to_errno()),
        };
        let ok = matches!((&first, &second), (Ok(a), Ok(b)) if *a > 0 && a == b);
        pr_info!(
            "bouncelab: result driver=rust scenario=exhaustion observed={} mapped={} remapped={}\n",
            if ok { "ok" } else { "ERROR" },
            count(&first),
            count(&second)
        );
    }

    fn run_scenario(&self, sc: &Scenario, nr: usize) {
        let start = ktime_get_ms();
        let mut run = Run::new(self, sc);
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
        if self.is_wedged() {
            // The types cannot know that the device may still write: leak
            // the mappings rather than unmap buffers under a live transfer.
            core::mem::forget(core::mem::take(&mut run.ring));
        } else {
            // Every buffer is unmapped here, whoever owns it.
            run.ring.clear();
        }
        let c = &mut run.cnt;
        let observed = match ret {
            Err(e) => {
                pr_info!(
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
        pr_info!(
            "# {}: packets={} lost={} dup={} stale={} corrupt={} phantom={} stale_bytes={} virt_ms={}\n",
            sc.name, c.packets, c.lost, c.dup, c.stale, c.corrupt, c.phantom, c.stale_bytes, ms
        );
        pr_info!(
            "bouncelab: result driver=rust scenario={} observed={} packets={} lost={} dup={} stale={} corrupt={} phantom={} cpu_ns={}\n",
            sc.name, observed, c.packets, c.lost, c.dup, c.stale, c.corrupt, c.phantom,
            run_ns.saturating_sub(run.dev_ns)
        );
        pr_info!(
            "{}ok {} {}\n",
            if ret.is_err() { "not " } else { "" },
            nr,
            sc.name
        );
    }
}

#[derive(Default)]
struct Counts {
    packets: u32,
    lost: u32,
    dup: u32,
    stale: u32,
    corrupt: u32,
    phantom: u32,
    stale_bytes: u32,
}

impl Counts {
    fn observed(&self) -> &'static str {
        if self.lost != 0 {
            "LOST"
        } else if self.corrupt != 0 {
            "CORRUPT"
        } else if self.phantom != 0 {
            "PHANTOM"
        } else if self.dup != 0 {
            "DUP"
        } else if self.stale != 0 {
            "STALE"
        } else {
            "ok"
        }
    }
}

/// How a consumed buffer is re-armed.
#[derive(Clone, Copy)]
enum Rearm {
    /// Zero the whole buffer.
    Scrub,
    /// Clear the status word only.
    ClearStatus,
}

struct Scenario {
    name: &'static str,
    run: fn(&mut Run<'_>) -> Result,
    pkt_len: fn(u32) -> u32,
    /// Packets the scenario delivers.
    total: fn() -> u32,
    rearm: Rearm,
}

const SCENARIOS: [Scenario; 6] = [
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

/// One receive buffer of the ring.
struct Slot {
    /// The mapping, while the device owns it (`None` only transiently).
    buf: Option<Mapping<Bidirectional, DeviceOwned>>,
    /// The device wrote it since it was last re-armed.
    delivered: bool,
}

/// The state of one scenario run.
struct Run<'a> {
    edu: &'a Edu,
    ring: Vec<Slot>,
    staging: Vec<u8>,
    pkt_len: fn(u32) -> u32,
    total: u32,
    rearm: Rearm,
    batch_base: u32,
    batch_n: u32,
    expect: u32,
    cnt: Counts,
    /// Nanoseconds spent in deliveries and idle waits: the device's time.
    dev_ns: u64,
}

fn zeroed(len: usize) -> Result<Vec<u8>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)?;
    for _ in 0..len {
        v.try_push(0)?;
    }
    Ok(v)
}

fn le32(b: &[u8], off: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[off..off + 4]);
    u32::from_le_bytes(w)
}

fn fnv1a(mut h: u32, data: &[u8]) -> u32 {
    for &b in data {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// FNV-1a over seq and len (bytes 4..12), then the `len` payload bytes.
fn pkt_csum(pkt: &[u8], len: usize) -> u32 {
    let h = fnv1a(0x811c_9dc5, &pkt[4..12]);
    fnv1a(h, &pkt[PKT_HDR_LEN..PKT_HDR_LEN + len])
}

fn pkt_build(pkt: &mut [u8], seq: u32, len: u32) {
    pkt[0..4].copy_from_slice(&PKT_READY.to_le_bytes());
    pkt[4..8].copy_from_slice(&seq.to_le_bytes());
    pkt[8..12].copy_from_slice(&len.to_le_bytes());
    for j in 0..len {
        // `% 255` keeps the value below 255, so the cast is lossless.
        pkt[PKT_HDR_LEN + j as usize] = (1 + (seq.wrapping_mul(7).wrapping_add(j)) % 255) as u8;
    }
    let csum = pkt_csum(pkt, len as usize);
    pkt[12..16].copy_from_slice(&csum.to_le_bytes());
}

fn status(buf: &[u8]) -> u32 {
    le32(buf, 0)
}

impl<'a> Run<'a> {
    fn new(edu: &'a Edu, sc: &Scenario) -> Self {
        Self {
            edu,
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
        }
    }

    /// Maps a fresh ring, bidirectionally like ath9k's EDMA rx buffers.
    fn map_ring(&mut self) -> Result {
        self.ring.try_reserve_exact(RING_SIZE)?;
        self.staging = zeroed(BATCH_MAX as usize * PKT_STRIDE)?;
        for _ in 0..RING_SIZE {
            let buf = Mapping::<Bidirectional, _>::map(&self.edu.dma, zeroed(RX_BUF_SIZE)?)?;
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
        let m = Mapping::<ToDevice, _>::map(&self.edu.dma, staging)?;
        let ret = self.edu.dma_run(
            EduAddr::Ram(m.dma_addr()),
            EduAddr::Internal(EDU_BUF_ADDR),
            size,
            0,
        );
        if ret.is_err() && self.edu.is_wedged() {
            // edu may still read it: keep it mapped for good.
            core::mem::forget(m);
            return ret;
        }
        // The device owns it: unmapping gives the CPU buffer back.
        self.staging = m.unmap();
        ret?;
        self.batch_base = base;
        self.batch_n = n;
        Ok(())
    }

    /// A delivery is the device's time, not the driver's: keep it apart.
    fn deliver(&mut self, seq: u32, k: usize) -> Result {
        self.timed(|r| r.device_write(seq, k))
    }

    /// Runs `f`, counting its time as the device's.
    fn timed(&mut self, f: impl FnOnce(&mut Self) -> Result) -> Result {
        let t = ktime_get_ns();
        let ret = f(self);
        self.dev_ns += ktime_get_ns() - t;
        ret
    }

    /// As long as a delivery takes, with the device idle.
    fn idle(&mut self) {
        let t = ktime_get_ns();
        msleep(DMA_LATENCY_MS);
        self.dev_ns += ktime_get_ns() - t;
    }

    /// edu writes packet `seq` into slot `k`; returns once it has landed.
    fn device_write(&mut self, seq: u32, k: usize) -> Result {
        self.program_delivery(seq, k)?;
        self.start_delivery(k)
    }

    /// Programs edu to write packet `seq` into slot `k`, which the device
    /// must own now (its address is borrowed from the mapping).
    fn program_delivery(&mut self, seq: u32, k: usize) -> Result {
        if self.batch_n == 0 || seq < self.batch_base || seq >= self.batch_base + self.batch_n {
            self.fill(seq)?;
        }
        let src = EDU_BUF_ADDR + u64::from(seq - self.batch_base) * PKT_STRIDE as u64;
        let len = PKT_HDR_LEN + (self.pkt_len)(seq) as usize;
        let buf = self.ring[k].buf.as_ref().ok_or(EINVAL)?;
        self.edu
            .program(EduAddr::Internal(src), EduAddr::Ram(buf.dma_addr()), len)
    }

    /// Starts the programmed delivery into slot `k`; returns once it landed.
    fn start_delivery(&mut self, k: usize) -> Result {
        self.edu.start(DMA_TO_RAM)?;
        self.ring[k].delivered = true;
        self.cnt.packets += 1;
        Ok(())
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
    fn receive(&mut self, k: usize, cpu: Mapping<Bidirectional, CpuOwned>) -> Result {
        let delivered = self.ring[k].delivered;
        self.classify(cpu.as_slice(), delivered);
        let mut w = cpu.writer();
        let ret = match self.rearm {
            Rearm::Scrub => w.fill(0, RX_BUF_SIZE, 0),
            Rearm::ClearStatus => w.fill(0, 4, 0),
        };
        self.ring[k].delivered = false;
        self.ring[k].buf = Some(w.give_back());
        ret
    }

    /// One ath9k poll: peek, give back untouched if empty, else receive.
    fn poll(&mut self, k: usize) -> Result<bool> {
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
    fn reject(&mut self, k: usize) -> Result {
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
    /// The hardware was handed the buffer's address while it owned it (as
    /// ath9k hands its ring over once); it writes after the CPU took the
    /// buffer. That is the device breaking the rules, which no type can
    /// prevent: the driver holds no slice of the buffer while it happens.
    fn race(&mut self, seq: u32, k: usize) -> Result {
        let t = ktime_get_ns();
        let ret = self.program_delivery(seq, k);
        self.dev_ns += ktime_get_ns() - t;
        ret?;
        let cpu = self.take(k)?.sync_for_cpu();
        if status(cpu.as_slice()) == PKT_READY {
            self.receive(k, cpu)?;
            return self.timed(|r| r.start_delivery(k));
        }
        let ret = self.timed(|r| r.start_delivery(k));
        self.ring[k].buf = Some(cpu.give_back());
        ret
    }
}

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
