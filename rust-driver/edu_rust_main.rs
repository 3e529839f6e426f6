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

//!
//! Where things are: `edu.rs` (the device's registers and transfers),
//! `ring.rs` (the receive ring and the driver's poll/receive/re-arm),
//! `packet.rs` (packet format and counts), `scenarios.rs` (S2..S8 and their
//! result lines); this file binds the device and runs them.

mod edu;
mod packet;
mod pool;
mod revoke_map;
mod ring;
mod scenarios;

use core::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
use edu::{Edu, DMA_MASK, EDU_BUF_ADDR};
use kernel::prelude::*;
use kernel::{
    delay::ktime_get_ms,
    dev_info,
    devres::Devres,
    dma::{self, Bidirectional, Device as _, DeviceOwned, FromDevice, InFlight, Mapping, ToDevice},
    error::code::*,
    pci,
};
use ring::zeroed;
use scenarios::SCENARIOS;

module! {
    type: EduRustModule,
    name: b"edu_rust",
    author: b"bouncelab developers <dev@bouncelab.invalid>",
    description: b"ath9k-style DMA poller for QEMU's edu device, with typed DMA ownership",
    license: b"GPL",
}

extern "C" {
    /// Module parameter `packets` (`edu_rust_param.c`): packets streamed
    /// through the ring by s5-stream.
    static edu_rust_packets: u32;
    /// Module parameter `exhaust`: map until swiotlb is full instead of the
    /// scenarios.
    static edu_rust_exhaust: bool;
    /// Module parameter `revoke`: keep device-tied resources past unbind
    /// instead of the scenarios.
    static edu_rust_revoke: bool;
    /// Module parameter `wedge`: the first transfer counts as timed out.
    static edu_rust_wedge: bool;
    /// Module parameter `stale`: leave a transfer pending at the first
    /// unbind, into a canary buffer checked at module exit.
    static edu_rust_stale: bool;
    /// Module parameter `unsafe_master`: the planted bug of the `stale`
    /// test, bus mastering on at probe without waiting for edu to stop.
    static edu_rust_unsafe_master: bool;
    /// Module parameter `revoke_map`: 1 maps after probe and leaves
    /// mappings to the unbind, 2 adds the planted bug.
    static edu_rust_revoke_map: u32;
}

/// The value of the `revoke_map` module parameter.
fn revoke_map() -> u32 {
    // SAFETY: as for `edu_rust_packets`: written only before `init` runs.
    unsafe { edu_rust_revoke_map }
}

/// The value of the `stale` module parameter.
fn stale() -> bool {
    // SAFETY: as for `edu_rust_packets`: written only before `init` runs.
    unsafe { edu_rust_stale }
}

/// The value of the `unsafe_master` module parameter.
fn unsafe_master() -> bool {
    // SAFETY: as for `edu_rust_packets`: written only before `init` runs.
    unsafe { edu_rust_unsafe_master }
}

/// The value of the `wedge` module parameter.
pub(crate) fn wedge_test() -> bool {
    // SAFETY: as for `edu_rust_packets`: written only before `init` runs.
    unsafe { edu_rust_wedge }
}

/// The value of the `packets` module parameter.
pub(crate) fn s5_packets() -> u32 {
    // SAFETY: a `u32` defined in `edu_rust_param.c`, written only by the
    // module loader before `init` runs (its sysfs file is read-only).
    unsafe { edu_rust_packets }
}

/// The value of the `exhaust` module parameter.
fn exhaust() -> bool {
    // SAFETY: as for `edu_rust_packets`: written only before `init` runs.
    unsafe { edu_rust_exhaust }
}

/// The value of the `revoke` module parameter.
fn revoke() -> bool {
    // SAFETY: as for `edu_rust_packets`: written only before `init` runs.
    unsafe { edu_rust_revoke }
}

/// What the revocation test keeps past the unbind (`revoke=1`), in a
/// static instead of the driver's data: a handle a buggy driver forgot.
struct PastUnbind {
    /// A mapping tied to the binding: unmapped when the device is unbound
    /// (after `remove` disabled the device), refused afterwards.
    map: Devres<Mapping<FromDevice, DeviceOwned>>,
    /// A resource one of whose guards was forgotten: the unbind must
    /// complete anyway (the resource is leaked instead).
    stuck: Devres<Vec<u8>>,
}

/// The kept `Vec<PastUnbind>` (one element): its pointer and capacity.
static PAST_UNBIND: AtomicPtr<PastUnbind> = AtomicPtr::new(core::ptr::null_mut());
static PAST_UNBIND_CAP: AtomicUsize = AtomicUsize::new(0);

/// Keeps a mapping and a stuck resource of `dev` past its unbind.
fn keep_past_unbind(dev: &dma::Bound<'_>) -> Result {
    let map = Devres::new(dev, Mapping::<FromDevice, _>::map(dev, zeroed(256)?)?)?;
    let stuck = Devres::new(dev, zeroed(64)?)?;
    // A guard that is never dropped: safe code can do it.
    core::mem::forget(stuck.try_access());
    if !PAST_UNBIND.load(Ordering::Acquire).is_null() {
        return Err(EBUSY);
    }
    let mut kept = Vec::new();
    kept.try_push(PastUnbind { map, stuck })?;
    let mut kept = core::mem::ManuallyDrop::new(kept);
    PAST_UNBIND_CAP.store(kept.capacity(), Ordering::Relaxed);
    PAST_UNBIND.store(kept.as_mut_ptr(), Ordering::Release);
    dev_info!(
        dev.device(),
        "bouncelab: revoke driver=rust keeping a mapping and a stuck guard past unbind\n"
    );
    Ok(())
}

/// At module exit, with every device unbound: the kept mapping must be
/// refused. Prints the result line the `revoke` plan reads.
fn check_past_unbind() {
    let ptr = PAST_UNBIND.swap(core::ptr::null_mut(), Ordering::AcqRel);
    if ptr.is_null() {
        return;
    }
    // SAFETY: the parts of the one-element `Vec` of `keep_past_unbind`
    // (its capacity stored before the pointer was published), taken out of
    // the static exactly once, by this swap.
    let kept = unsafe { Vec::from_raw_parts(ptr, 1, PAST_UNBIND_CAP.load(Ordering::Relaxed)) };
    let refused = kept[0].map.try_access().is_none();
    let stuck_refused = kept[0].stuck.try_access().is_none();
    pr_info!(
        "bouncelab: result driver=rust scenario=revoke observed={} refused={} stuck_refused={}\n",
        if refused && stuck_refused {
            "ok"
        } else {
            "ACCESS"
        },
        u8::from(refused),
        u8::from(stuck_refused)
    );
    // The mapping was unmapped at unbind; the stuck resource stays leaked.
    drop(kept);
}

/// The `stale` test's canary: a buffer edu was told to write when its
/// binding ended, kept in flight past the unbind (it is revoked then).
struct Canary {
    buf: InFlight<Bidirectional>,
}

/// The kept `Vec<Canary>` (one element): its pointer and capacity.
static CANARY: AtomicPtr<Canary> = AtomicPtr::new(core::ptr::null_mut());
static CANARY_CAP: AtomicUsize = AtomicUsize::new(0);
/// The canary was set up (once per module load).
static CANARY_SET: AtomicBool = AtomicBool::new(false);
/// Bytes of the canary; its byte `i` is `canary_byte(i)`.
const CANARY_LEN: usize = 512;

fn canary_byte(i: usize) -> u8 {
    (i as u8) ^ 0xc3
}

impl Edu {
    /// At unbind (`stale=1`, once): programs an edu -> RAM transfer into
    /// the patterned canary mapped at probe and starts it, without
    /// waiting: the
    /// transfer is still pending when the binding ends (100 ms to go),
    /// as after a binding that wedged. The canary stays mapped and in
    /// flight past the unbind; the next binding must not let the transfer
    /// reach memory (bus mastering off until edu is seen stopped).
    fn leave_pending(&self, buf: InFlight<Bidirectional>) -> Result {
        self.program_to_ram(EDU_BUF_ADDR, &buf, CANARY_LEN)?;
        self.kick(edu::DMA_TO_RAM)?;
        pool::KICKED_MS.store(ktime_get_ms(), Ordering::Release);
        let mut kept = Vec::new();
        kept.try_push(Canary { buf })?;
        let mut kept = core::mem::ManuallyDrop::new(kept);
        CANARY_CAP.store(kept.capacity(), Ordering::Relaxed);
        CANARY.store(kept.as_mut_ptr(), Ordering::Release);
        dev_info!(
            self.dev,
            "bouncelab: stale driver=rust left a transfer pending into a {} byte canary\n",
            CANARY_LEN
        );
        Ok(())
    }
}

/// The canary, mapped at probe (`stale=1`): `CANARY_LEN` patterned bytes.
fn map_canary(bound: &dma::Bound<'_>) -> Result<InFlight<Bidirectional>> {
    let mut v = Vec::new();
    v.try_reserve_exact(CANARY_LEN)?;
    for i in 0..CANARY_LEN {
        v.try_push(canary_byte(i))?;
    }
    Ok(Mapping::<Bidirectional, _>::map(bound, v)?.lend())
}

/// At module exit: frees the first canary. It was revoked at unbind (edu
/// stopped, then unmapped): edu's pending transfer could only reach the
/// bounce slots it left, which the pool holder's canaries watch
/// ([`pool`]); the result line is the holder's.
fn check_canary() {
    let ptr = CANARY.swap(core::ptr::null_mut(), Ordering::AcqRel);
    if ptr.is_null() {
        return;
    }
    // SAFETY: the parts of the one-element `Vec` of `leave_pending` (its
    // capacity stored before the pointer was published), taken out of the
    // static exactly once, by this swap.
    let kept = unsafe { Vec::from_raw_parts(ptr, 1, CANARY_CAP.load(Ordering::Relaxed)) };
    pool::wait_for_transfer();
    for c in kept {
        // Revoked at unbind: dropping it frees the buffer.
        drop(c.buf);
    }
}

/// The devres action the `stale` and `revoke_map` tests register at probe,
/// before any mapping they make: it runs at unbind after those mappings
/// were revoked.
struct AfterRevoke;

impl Drop for AfterRevoke {
    fn drop(&mut self) {
        if revoke_map() != 0 {
            revoke_map::after_revoke();
        }
        pool::place_canaries();
        if revoke_map() == 2 {
            revoke_map::planted();
        }
    }
}

/// Set when the data of `devres_drop_now`'s `Devres` is dropped.
static DEVRES_DATA_DROPPED: AtomicBool = AtomicBool::new(false);

/// Data that says when it is dropped.
struct DropFlag;

impl Drop for DropFlag {
    fn drop(&mut self) {
        DEVRES_DATA_DROPPED.store(true, Ordering::Release);
    }
}

/// Dropping a `Devres` removes its devres node and drops the data at once,
/// even with a guard forgotten (it can never be used): no wait, nothing
/// left for the unbind to drop later.
fn devres_drop_now(dev: &dma::Bound<'_>) -> Result {
    DEVRES_DATA_DROPPED.store(false, Ordering::Release);
    let res = Devres::new(dev, DropFlag)?;
    core::mem::forget(res.try_access());
    let t = ktime_get_ms();
    drop(res);
    let ms = ktime_get_ms() - t;
    let dropped = DEVRES_DATA_DROPPED.load(Ordering::Acquire);
    dev_info!(
        dev.device(),
        "bouncelab: result driver=rust scenario=devres-drop observed={} dropped={} ms={}\n",
        if dropped && ms < 100 { "ok" } else { "LATE" },
        u8::from(dropped),
        ms
    );
    Ok(())
}

/// One swiotlb slot per buffer, so the count is the pool's free slots.
const EXH_BUF_SIZE: usize = 2048;
/// More than a small pool holds: reaching it means the pool never filled.
const EXH_MAX: usize = 16384;

/// Maps `FromDevice` buffers until the DMA layer returns `Err`; all are
/// unmapped again (dropped) on return. Returns how many were mapped.
fn exhaust_once(dev: &dma::Bound<'_>) -> Result<usize> {
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
/// The second edu is bound as the pool holder (`stale`, `revoke_map`).
static HOLDER_CLAIMED: AtomicBool = AtomicBool::new(false);

struct EduRustModule {
    reg: Option<pci::Registration<EduRust>>,
}

impl kernel::Module for EduRustModule {
    fn init(module: &'static ThisModule) -> Result<Self> {
        Ok(Self {
            reg: Some(pci::Registration::new(module)?),
        })
    }
}

impl Drop for EduRustModule {
    fn drop(&mut self) {
        // Unregister first: every device is unbound after this.
        drop(self.reg.take());
        check_past_unbind();
        check_canary();
        revoke_map::check();
    }
}

struct EduRust;

impl pci::Driver for EduRust {
    type Data = Bound;
    const NAME: &'static [u8] = b"edu_rust\0";
    const IDS: &'static [(u16, u16)] = &[(0x1234, 0x11e8)];

    fn probe(dev: &pci::Device, bound_dev: &dma::Bound<'_>) -> Result<Bound> {
        if CLAIMED.swap(true, Ordering::AcqRel) {
            if (stale() || revoke_map() != 0) && !HOLDER_CLAIMED.swap(true, Ordering::AcqRel) {
                let mut bound = Bound::new(dev, bound_dev).map_err(|e| {
                    HOLDER_CLAIMED.store(false, Ordering::Release);
                    e
                })?;
                bound.holder = true;
                let full = pool::hold(bound_dev)?;
                dev_info!(
                    dev,
                    "bouncelab: pool holder driver=rust full={}\n",
                    u8::from(full)
                );
                return Ok(bound);
            }
            return Err(EBUSY);
        }
        let mut bound = Bound::new(dev, bound_dev).map_err(|e| {
            CLAIMED.store(false, Ordering::Release);
            e
        })?;
        if stale() && !CANARY_SET.swap(true, Ordering::AcqRel) {
            // Forgotten: dropped at unbind by the devres core, after the
            // canary's revocation (registered before it).
            core::mem::forget(Devres::new(bound_dev, AfterRevoke)?);
            bound.canary = Some(map_canary(bound_dev)?);
            return Ok(bound);
        }
        if stale() {
            // The rebind of the `stale` test: bound, nothing run.
            return Ok(bound);
        }
        if revoke_map() != 0 {
            revoke_map::at_probe(dev, bound_dev)?;
            core::mem::forget(Devres::new(bound_dev, AfterRevoke)?);
            bound.revoke_map = true;
            return Ok(bound);
        }
        if revoke() {
            keep_past_unbind(bound_dev)?;
            bound.edu.stale_proof(bound_dev)?;
            bound.edu.expired_proof(bound_dev)?;
            devres_drop_now(bound_dev)?;
            return Ok(bound);
        }
        // Run at probe time, so that insmod returns with every result printed.
        if exhaust() {
            bound.edu.run_exhaustion(bound_dev);
            return Ok(bound);
        }
        dev_info!(dev, "KTAP version 1\n");
        dev_info!(dev, "1..{}\n", SCENARIOS.len());
        for (i, sc) in SCENARIOS.iter().enumerate() {
            bound.edu.run_scenario(bound_dev, sc, i + 1);
        }
        Ok(bound)
    }
}

/// The device while bound. `drop` quiesces the device before it releases
/// any kept mapping; then the fields drop in order: MMIO before disabling.
struct Bound {
    edu: Edu,
    /// The `stale` test's canary, until the unbind leaves a transfer into
    /// it pending.
    canary: Option<InFlight<Bidirectional>>,
    /// The `revoke_map` test's binding: maps after `probe` at unbind.
    revoke_map: bool,
    /// The pool holder (`stale`, `revoke_map`): the second edu.
    holder: bool,
    enabled: pci::Enabled,
}

impl Bound {
    fn new(dev: &pci::Device, bound: &dma::Bound<'_>) -> Result<Self> {
        let enabled = dev.enable()?;
        let mmio = dev.iomap_region(bound, 0, b"edu_rust\0")?;
        // SAFETY: called in probe, before this driver maps anything; no other
        // driver maps for this device.
        unsafe { dev.dma_set_mask_and_coherent(DMA_MASK)? };
        let edu = Edu {
            mmio,
            dev: bound.device().clone(),
            wedged: AtomicBool::new(false),
            kept: Vec::new(),
        };
        if !unsafe_master() {
            edu.wait_stopped(&enabled)?;
        }
        // SAFETY: edu runs no transfer: `wait_stopped()` saw `DMA_RUN` clear
        // with bus mastering off, so a transfer a previous binding left
        // pending ended without reaching memory. (Not with the planted bug
        // `unsafe_master=1`, which the `revoke` boot uses to show that its
        // canary detects the difference.) It starts one only when its DMA
        // command register (0x98) is written, which this driver does only
        // after writing the transfer's memory address from a live
        // `InFlight`: an address left in its registers is never used.
        unsafe { dev.set_master() };
        Ok(Self {
            edu,
            canary: None,
            revoke_map: false,
            holder: false,
            enabled,
        })
    }
}

impl Drop for Bound {
    fn drop(&mut self) {
        if self.holder {
            if let Some((differ, n, full)) = pool::check_canaries() {
                if revoke_map() != 0 {
                    revoke_map::report(differ, n, full);
                } else {
                    pr_info!(
                        "bouncelab: result driver=rust scenario=pending-transfer observed={} differ={} unsafe_master={} canaries={} full={}\n",
                        if differ == 0 { "ok" } else { "CORRUPT" },
                        differ,
                        u8::from(unsafe_master()),
                        n,
                        u8::from(full)
                    );
                }
            }
            pool::release();
            HOLDER_CLAIMED.store(false, Ordering::Release);
            return;
        }
        if self.revoke_map {
            if let Err(e) = revoke_map::at_unbind(&self.edu) {
                dev_info!(
                    self.edu.dev,
                    "bouncelab: error driver=rust revoke_map test: {}\n",
                    e.to_errno()
                );
            }
        }
        if let Some(canary) = self.canary.take() {
            if let Err(e) = self.edu.leave_pending(canary) {
                dev_info!(
                    self.edu.dev,
                    "bouncelab: error driver=rust stale test: {}\n",
                    e.to_errno()
                );
            }
            // Bus mastering off, as after a wedge: the pending transfer's
            // accesses are dropped while it stays off.
            let _ = self.enabled.quiesce();
        }
        if !self.edu.kept.is_empty() {
            // A transfer never finished: edu may still use the addresses it
            // holds. Bus mastering off first, then they can be unmapped.
            let idle = self.enabled.quiesce();
            // Read back from the device: bus mastering off at the release?
            let master = self.enabled.device().is_bus_master().unwrap_or(true);
            let bytes: usize = self.edu.kept.iter().map(|k| k.len()).sum();
            let n = self.edu.kept.len();
            let mut released = 0;
            for k in self.edu.kept.drain(..) {
                if k.release(&idle).is_ok() {
                    released += 1;
                }
            }
            dev_info!(
                self.edu.dev,
                "bouncelab: wedge driver=rust bus_master={} released={} kept={} bytes={}\n",
                u8::from(master),
                released,
                n,
                bytes
            );
        }
        CLAIMED.store(false, Ordering::Release);
    }
}

impl Edu {
    /// A proof older than a hand-out must be refused: with edu idle, take
    /// its proof, then write a buffer's address to edu (never started) and
    /// try to end that flight with the old proof. The refused mapping is
    /// kept, and released at unbind with bus mastering off.
    fn stale_proof(&mut self, bound: &dma::Bound<'_>) -> Result {
        let f = Mapping::<FromDevice, _>::map(bound, zeroed(64)?)?.lend();
        let old = self.idle()?;
        self.program_to_ram(EDU_BUF_ADDR, &f, 64)?;
        let refused = match f.complete(&old) {
            Ok(m) => {
                drop(m);
                false
            }
            Err(f) => {
                if let Some(k) = f.keep() {
                    self.kept.try_push(k)?;
                }
                true
            }
        };
        dev_info!(
            self.dev,
            "bouncelab: result driver=rust scenario=stale-proof observed={} refused={}\n",
            if refused { "ok" } else { "ACCEPTED" },
            u8::from(refused)
        );
        Ok(())
    }

    /// A proof expires when the device is given an address again
    /// (`Idle::assume`: "until the device is given an address again"): lend
    /// rx and program it, take edu's idle proof, then program tx (the
    /// promise ends: a start now would write rx), and try to end rx's
    /// flight with that proof, newer than rx's own hand-out. Both mappings
    /// are kept, and released at unbind with bus mastering off.
    fn expired_proof(&mut self, bound: &dma::Bound<'_>) -> Result {
        let rx = Mapping::<FromDevice, _>::map(bound, zeroed(64)?)?.lend();
        self.program_to_ram(EDU_BUF_ADDR, &rx, 64)?;
        let idle = self.idle()?;
        let tx = Mapping::<ToDevice, _>::map(bound, zeroed(64)?)?.lend();
        self.program_from_ram(&tx, EDU_BUF_ADDR, 64)?;
        let refused = match rx.complete(&idle) {
            Ok(m) => {
                drop(m);
                false
            }
            Err(rx) => {
                if let Some(k) = rx.keep() {
                    self.kept.try_push(k)?;
                }
                true
            }
        };
        if let Some(k) = tx.keep() {
            self.kept.try_push(k)?;
        }
        dev_info!(
            self.dev,
            "bouncelab: result driver=rust scenario=expired-proof observed={} refused={}\n",
            if refused { "ok" } else { "ACCEPTED" },
            u8::from(refused)
        );
        Ok(())
    }

    /// A full pool must be a clean `Err`, and dropping the mappings must give
    /// every slot back, so the second round maps exactly as many again.
    fn run_exhaustion(&self, bound: &dma::Bound<'_>) {
        let first = exhaust_once(bound);
        let second = exhaust_once(bound);
        let count = |r: &Result<usize>| match r {
            Ok(n) => *n as i64,
            Err(e) => i64::from(e.to_errno()),
        };
        let ok = matches!((&first, &second), (Ok(a), Ok(b)) if *a > 0 && a == b);
        dev_info!(
            self.dev,
            "bouncelab: result driver=rust scenario=exhaustion observed={} mapped={} remapped={}\n",
            if ok { "ok" } else { "ERROR" },
            count(&first),
            count(&second)
        );
    }
}
