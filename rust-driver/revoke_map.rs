// SPDX-License-Identifier: GPL-2.0

//! The `revoke_map` test: mappings made after `probe`, from the kept
//! binding, are unmapped at unbind wherever they are, only once the device
//! can no longer write them.
//!
//! At probe the driver keeps its binding ([`dma::Bound::keep`]), enables
//! the device a second time (standing for a managed enable whose undo, a
//! devres action registered before any mapping, runs after the mappings'
//! revocation: devres actions run in reverse order of registration) and
//! registers [`AfterRevoke`], a devres action that runs after every
//! mapping made later is revoked. At unbind (`remove`) it maps, from the
//! kept binding, a `FromDevice` buffer A, lends it to edu, starts an edu
//! -> RAM transfer into it (edu runs it 100 ms later) and drops the
//! in-flight mapping (left to the unbind); it also maps a buffer B it keeps
//! in a static. The revocation of A must turn bus mastering off before it
//! unmaps and frees A's buffer. [`AfterRevoke`] then allocates a patterned
//! canary of A's size, which takes A's freed pages (the page allocator's
//! per-CPU lists are last in, first out), and tries B again. At module
//! exit, a second after the kick, the canary must be intact: the transfer
//! found bus mastering off. With `revoke_map=2` (the planted bug)
//! [`AfterRevoke`] turns bus mastering on again at once, under a false
//! `SAFETY` claim: the transfer then lands in the canary.

use core::sync::atomic::{AtomicBool, AtomicI64, AtomicPtr, AtomicUsize, Ordering};
use kernel::prelude::*;
use kernel::{
    delay::{ktime_get_ms, msleep},
    dev_info,
    devres::Devres,
    dma::{self, DeviceOwned, FromDevice, Mapping},
    error::code::*,
    pci,
};

use crate::edu::{self, Edu, EDU_BUF_ADDR};
use crate::ring::zeroed;

/// A's size: more than a slab holds (`kmalloc` takes pages of order 2), so
/// that its freed pages go to the page allocator's per-CPU list.
const A_LEN: usize = 16384;
/// Bytes edu writes into A (its whole internal buffer).
const XFER: usize = 4096;

/// Byte `i` of the canary.
fn canary_byte(i: usize) -> u8 {
    (i as u8).wrapping_mul(7) ^ 0x3c
}

/// The CPU address of A's buffer, to see whether the canary took its pages.
static A_CPU: AtomicUsize = AtomicUsize::new(0);
/// When edu was told to write A (`ktime_get_ms`), 0 if never.
static KICKED_MS: AtomicI64 = AtomicI64::new(0);
/// Bus mastering as [`AfterRevoke`] found it, after A's revocation.
static MASTER_AFTER: AtomicBool = AtomicBool::new(true);
/// B was revoked, and its address refused, when [`AfterRevoke`] ran.
static B_REFUSED: AtomicBool = AtomicBool::new(false);
/// The planted bug ran.
static PLANTED: AtomicBool = AtomicBool::new(false);

/// What outlives the binding, kept until module exit: one element of a
/// `Vec`, published through a pointer and capacity.
struct Kept {
    /// B: mapped after probe, never lent, kept in a static.
    b: Option<Mapping<FromDevice, DeviceOwned>>,
    /// The canary, once [`AfterRevoke`] made it.
    canary: Option<Vec<u8>>,
    /// The second enable, dropped at module exit.
    extra: Option<pci::Enabled>,
}

static KEPT: AtomicPtr<Kept> = AtomicPtr::new(core::ptr::null_mut());
static KEPT_CAP: AtomicUsize = AtomicUsize::new(0);

/// Runs `f` on the kept state, if any.
fn with_kept(f: impl FnOnce(&mut Kept)) {
    let ptr = KEPT.swap(core::ptr::null_mut(), Ordering::AcqRel);
    if ptr.is_null() {
        return;
    }
    // SAFETY: `ptr` is the element of the one-element `Vec` published in
    // `at_probe`, taken out of the static by the swap above (so no one else
    // uses it) and put back below.
    f(unsafe { &mut *ptr });
    KEPT.store(ptr, Ordering::Release);
}

/// The devres action registered at probe, before any mapping of the test:
/// its drop runs at unbind after every later mapping was revoked.
struct AfterRevoke {
    planted: bool,
}

impl Drop for AfterRevoke {
    fn drop(&mut self) {
        let planted = self.planted;
        with_kept(|k| {
            if let Some(extra) = &k.extra {
                let master = extra.device().is_bus_master().unwrap_or(true);
                MASTER_AFTER.store(master, Ordering::Release);
                if planted {
                    // SAFETY: none: the planted bug. A transfer the previous
                    // binding started may still be pending, into memory that
                    // is free now (A's revoked buffer).
                    unsafe { extra.device().set_master() };
                    PLANTED.store(true, Ordering::Release);
                }
            }
            // Later use of B: its syncs are no-ops, its address is refused.
            if let Some(b) = k.b.take() {
                let revoked = b.is_revoked();
                let f = b.lend();
                let refused = !f.dma_addr().is_live();
                B_REFUSED.store(revoked && refused, Ordering::Release);
                // SAFETY: its address was never written to the device.
                k.b = Some(unsafe { f.assume_done() });
            }
            let mut canary = Vec::new();
            if canary.try_reserve_exact(A_LEN).is_ok() {
                for i in 0..A_LEN {
                    // Reserved just above: cannot fail.
                    let _ = canary.try_push(canary_byte(i));
                }
                k.canary = Some(canary);
            }
        });
    }
}

/// At probe: keeps the binding, a second enable and the [`AfterRevoke`]
/// action; returns the kept binding for `remove`.
pub(crate) fn at_probe(
    dev: &pci::Device,
    bound: &dma::Bound<'_>,
    planted: bool,
) -> Result<Devres<dma::Binding>> {
    if !KEPT.load(Ordering::Acquire).is_null() {
        return Err(EBUSY);
    }
    let binding = bound.keep()?;
    let mut kept = Vec::new();
    kept.try_push(Kept {
        b: None,
        canary: None,
        extra: Some(dev.enable()?),
    })?;
    let mut kept = core::mem::ManuallyDrop::new(kept);
    KEPT_CAP.store(kept.capacity(), Ordering::Relaxed);
    KEPT.store(kept.as_mut_ptr(), Ordering::Release);
    // Forgotten: dropped at unbind, by the devres core.
    core::mem::forget(Devres::new(bound, AfterRevoke { planted })?);
    Ok(binding)
}

/// At unbind (`remove`), with the device still bound: maps A and B from the
/// kept binding, leaves a transfer into A pending and drops A.
pub(crate) fn at_unbind(edu: &Edu, binding: &Devres<dma::Binding>) -> Result {
    let guard = binding.bound().ok_or(ENODEV)?;
    let bound = guard.bound();
    let buf = zeroed(A_LEN)?;
    A_CPU.store(buf.as_ptr() as usize, Ordering::Relaxed);
    let a = Mapping::<FromDevice, _>::map(&bound, buf)?.lend();
    edu.program_to_ram(EDU_BUF_ADDR, &a, XFER)?;
    edu.kick(edu::DMA_TO_RAM)?;
    KICKED_MS.store(ktime_get_ms(), Ordering::Release);
    // Left to the unbind (with a warning): edu may still write it.
    drop(a);
    let b = Mapping::<FromDevice, _>::map(&bound, zeroed(64)?)?;
    with_kept(|k| k.b = Some(b));
    dev_info!(
        edu.dev,
        "bouncelab: revoke_map driver=rust mapped after probe, a transfer pending into {} bytes\n",
        XFER
    );
    Ok(())
}

/// At module exit, every device unbound: prints the result line.
pub(crate) fn check() {
    let ptr = KEPT.swap(core::ptr::null_mut(), Ordering::AcqRel);
    if ptr.is_null() {
        return;
    }
    // SAFETY: the parts of the one-element `Vec` of `at_probe` (capacity
    // stored before the pointer was published), taken out of the static
    // exactly once, by this swap.
    let mut kept = unsafe { Vec::from_raw_parts(ptr, 1, KEPT_CAP.load(Ordering::Relaxed)) };
    let kicked = KICKED_MS.load(Ordering::Acquire);
    // edu runs a transfer 100 ms after its kick: wait a whole second.
    let waited = ktime_get_ms() - kicked;
    if kicked != 0 && waited < 1000 {
        msleep((1000 - waited) as u32);
    }
    let k = &mut kept[0];
    let (differ, reused) = match &k.canary {
        Some(c) => (
            c.iter()
                .enumerate()
                .filter(|(i, b)| **b != canary_byte(*i))
                .count(),
            c.as_ptr() as usize == A_CPU.load(Ordering::Relaxed),
        ),
        None => (usize::MAX, false),
    };
    let master = MASTER_AFTER.load(Ordering::Acquire);
    let refused = B_REFUSED.load(Ordering::Acquire);
    let ok = differ == 0 && !master && refused && kicked != 0;
    pr_info!(
        "bouncelab: result driver=rust scenario=revoke-map observed={} differ={} reused={} bus_master={} refused={} planted={}\n",
        if differ != 0 && differ != usize::MAX {
            "CORRUPT"
        } else if ok {
            "ok"
        } else {
            "ERROR"
        },
        differ as isize,
        u8::from(reused),
        u8::from(master),
        u8::from(refused),
        u8::from(PLANTED.load(Ordering::Acquire))
    );
    // B was revoked: dropping it frees its buffer, with no DMA API call;
    // then the second enable is undone.
    drop(kept);
}
