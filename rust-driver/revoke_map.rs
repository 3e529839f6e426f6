// SPDX-License-Identifier: GPL-2.0

//! The `revoke_map` test: mappings made after `probe`, from the kept
//! binding, are unmapped at unbind wherever they are, only once the device
//! can no longer write them.
//!
//! At probe the driver keeps its binding ([`dma::Bound::keep`]) and enables
//! the device a second time (standing for a managed enable whose undo, a
//! devres action registered before any mapping, runs after the mappings'
//! revocation: devres actions run in reverse order of registration), and
//! registers `AfterRevoke` (in `edu_rust_main.rs`), a devres action that
//! runs after every mapping made later is revoked. The second edu holds
//! the swiotlb pool full ([`crate::pool`]). At unbind (`remove`) the
//! driver frees two of the holder's big fillers, maps from the kept binding
//! a buffer B it keeps in a static and a `FromDevice` buffer A (each lands
//! in a hole), lends A to edu, starts an edu -> RAM transfer into it (edu
//! runs it 100 ms later) and drops the in-flight mapping (left to the
//! unbind). The revocation of A must turn bus mastering off before it
//! unmaps it. `AfterRevoke` then reads bus mastering back, tries B again
//! (refused), and the holder maps patterned canaries into every free slot,
//! A's bounce slots among them. At the holder's unbind, a second after the
//! kick, the canaries must be intact. With `revoke_map=2` (the planted bug)
//! `AfterRevoke` turns bus mastering on again at once, under a false
//! `SAFETY` claim: the transfer then lands in a canary.

use core::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
use kernel::prelude::*;
use kernel::{
    delay::ktime_get_ms,
    dev_info,
    devres::Devres,
    dma::{self, DeviceOwned, FromDevice, Mapping},
    error::code::*,
    pci,
};

use crate::edu::{self, Edu, EDU_BUF_ADDR};
use crate::pool;
use crate::ring::zeroed;

/// A's size: one of the holder's big fillers.
const A_LEN: usize = pool::BIG;
/// Bytes edu writes into A (edu 7.2 refuses a transfer that ends at the
/// end of its buffer).
const XFER: usize = 2048;

/// Bus mastering as `AfterRevoke` found it, after A's revocation.
static MASTER_AFTER: AtomicBool = AtomicBool::new(true);
/// B was revoked, and its address refused, when `AfterRevoke` ran.
static B_REFUSED: AtomicBool = AtomicBool::new(false);
/// The planted bug ran.
static PLANTED: AtomicBool = AtomicBool::new(false);

/// What outlives the binding, kept until module exit: one element of a
/// `Vec`, published through a pointer and capacity.
struct Kept {
    /// The binding, to map after `probe`.
    binding: Option<Devres<dma::Binding>>,
    /// B: mapped after probe, never lent, kept in a static.
    b: Option<Mapping<FromDevice, DeviceOwned>>,
    /// The second enable, dropped at module exit.
    extra: Option<pci::Enabled>,
}

static KEPT: AtomicPtr<Kept> = AtomicPtr::new(core::ptr::null_mut());
static KEPT_CAP: AtomicUsize = AtomicUsize::new(0);

/// Runs `f` on the kept state, if any.
fn with_kept<T>(f: impl FnOnce(&mut Kept) -> T) -> Option<T> {
    let ptr = KEPT.swap(core::ptr::null_mut(), Ordering::AcqRel);
    if ptr.is_null() {
        return None;
    }
    // SAFETY: `ptr` is the element of the one-element `Vec` published in
    // `at_probe`, taken out of the static by the swap above (so no one else
    // uses it) and put back below.
    let r = f(unsafe { &mut *ptr });
    KEPT.store(ptr, Ordering::Release);
    Some(r)
}

/// At unbind, after A's and B's revocation: reads bus mastering back and
/// tries B again.
pub(crate) fn after_revoke() {
    with_kept(|k| {
        if let Some(extra) = &k.extra {
            let master = extra.device().is_bus_master().unwrap_or(true);
            MASTER_AFTER.store(master, Ordering::Release);
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
    });
}

/// The planted bug: bus mastering on again right after the revocation.
pub(crate) fn planted() {
    with_kept(|k| {
        if let Some(extra) = &k.extra {
            // SAFETY: none: the planted bug. A transfer the previous binding
            // started is still pending, into bounce slots that are free now
            // (A's, revoked).
            unsafe { extra.device().set_master() };
            PLANTED.store(true, Ordering::Release);
        }
    });
}

/// At probe: keeps the binding and a second enable.
pub(crate) fn at_probe(dev: &pci::Device, bound: &dma::Bound<'_>) -> Result {
    if !KEPT.load(Ordering::Acquire).is_null() {
        return Err(EBUSY);
    }
    let mut kept = Vec::new();
    kept.try_push(Kept {
        binding: Some(bound.keep()?),
        b: None,
        extra: Some(dev.enable()?),
    })?;
    let mut kept = core::mem::ManuallyDrop::new(kept);
    KEPT_CAP.store(kept.capacity(), Ordering::Relaxed);
    KEPT.store(kept.as_mut_ptr(), Ordering::Release);
    Ok(())
}

/// At unbind (`remove`), with the device still bound: maps B and A from the
/// kept binding into holes of the full pool, leaves a transfer into A
/// pending and drops A.
pub(crate) fn at_unbind(edu: &Edu) -> Result {
    with_kept(|k| {
        let binding = k.binding.as_ref().ok_or(ENODEV)?;
        let guard = binding.bound().ok_or(ENODEV)?;
        let bound = guard.bound();
        // Two holes in the full pool: B takes a slot of the first, A the
        // second.
        pool::with_holder(|h| {
            drop(h.big.pop());
        });
        k.b = Some(Mapping::<FromDevice, _>::map(&bound, zeroed(64)?)?);
        pool::with_holder(|h| {
            drop(h.big.pop());
        });
        let a = Mapping::<FromDevice, _>::map(&bound, zeroed(A_LEN)?)?.lend();
        edu.program_to_ram(EDU_BUF_ADDR, &a, XFER)?;
        edu.kick(edu::DMA_TO_RAM)?;
        pool::KICKED_MS.store(ktime_get_ms(), Ordering::Release);
        // Left to the unbind (with a warning): edu may still write it.
        drop(a);
        dev_info!(
            edu.dev,
            "bouncelab: revoke_map driver=rust mapped after probe, a transfer pending into {} bytes\n",
            XFER
        );
        Ok(())
    })
    .unwrap_or(Err(ENODEV))
}

/// At the pool holder's unbind: prints the result line.
pub(crate) fn report(differ: usize, canaries: usize, full: bool) {
    let master = MASTER_AFTER.load(Ordering::Acquire);
    let refused = B_REFUSED.load(Ordering::Acquire);
    pr_info!(
        "bouncelab: result driver=rust scenario=revoke-map observed={} differ={} canaries={} full={} bus_master={} refused={} planted={}\n",
        if differ != 0 {
            "CORRUPT"
        } else if !master && refused {
            "ok"
        } else {
            "ERROR"
        },
        differ,
        canaries,
        u8::from(full),
        u8::from(master),
        u8::from(refused),
        u8::from(PLANTED.load(Ordering::Acquire))
    );
}

/// At module exit, every device unbound: frees what the test kept (B was
/// revoked: dropping it frees its buffer, with no DMA API call; then the
/// second enable is undone).
pub(crate) fn check() {
    let ptr = KEPT.swap(core::ptr::null_mut(), Ordering::AcqRel);
    if ptr.is_null() {
        return;
    }
    // SAFETY: the parts of the one-element `Vec` of `at_probe` (capacity
    // stored before the pointer was published), taken out of the static
    // exactly once, by this swap.
    drop(unsafe { Vec::from_raw_parts(ptr, 1, KEPT_CAP.load(Ordering::Relaxed)) });
}
