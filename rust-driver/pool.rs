// SPDX-License-Identifier: GPL-2.0

//! A full swiotlb pool, so that a canary mapping lands exactly where a
//! revoked mapping was.
//!
//! The guest bounces every mapping (`swiotlb=...,force`): a device that
//! writes after its mapping was revoked writes the freed bounce slots, not
//! the driver's buffer. To see such a write, a canary must occupy those
//! slots. In the `stale` and `revoke_map` tests edu_rust also binds the
//! second edu as a pool holder, which maps buffers until the pool is full
//! and keeps them (they belong to that binding, so the first edu's unbind
//! does not revoke them). The slots the first edu's binding frees at
//! unbind are then the only free ones, and a canary mapped next fills
//! exactly them.

use core::sync::atomic::{AtomicI64, AtomicPtr, AtomicUsize, Ordering};
use kernel::prelude::*;
use kernel::{
    delay::{ktime_get_ms, msleep},
    devres::Devres,
    dma::{self, Bidirectional, DeviceOwned, Mapping},
    error::code::*,
};

/// When edu was told to run the test's pending transfer (`ktime_get_ms`),
/// 0 if never.
pub(crate) static KICKED_MS: AtomicI64 = AtomicI64::new(0);

/// Waits until a second has passed since the kick: edu runs a transfer 100
/// ms after it (or drops its accesses, bus mastering off).
pub(crate) fn wait_for_transfer() {
    let kicked = KICKED_MS.load(Ordering::Acquire);
    let waited = ktime_get_ms() - kicked;
    if kicked != 0 && waited < 1000 {
        msleep((1000 - waited) as u32);
    }
}

/// Size of the big fillers: the revoke_map test's buffer size.
pub(crate) const BIG: usize = 16384;
/// Size of the small fillers and of one canary: one bounce slot.
pub(crate) const SMALL: usize = 2048;
/// Big fillers unmapped once the canaries are in place.
const ROOM: usize = 8;
/// At most this many mappings per fill (a pool of 16384 slots takes about
/// 2048 big ones).
const MAX_MAPS: usize = 8192;

/// A mapped buffer that stays mapped, device-owned.
pub(crate) type Filler = Mapping<Bidirectional, DeviceOwned>;

/// Byte `i` of a canary.
pub(crate) fn canary_byte(i: usize) -> u8 {
    (i as u8).wrapping_mul(7) ^ 0x3c
}

/// `len` bytes, each `byte` (without a loop per byte: the pool is 32 MiB).
fn filled(len: usize, byte: u8) -> Result<Vec<u8>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)?;
    // SAFETY: `len` bytes were reserved just above; `write_bytes`
    // initialises all of them before `set_len` makes them part of the `Vec`.
    unsafe {
        core::ptr::write_bytes(v.as_mut_ptr(), byte, len);
        v.set_len(len);
    }
    Ok(v)
}

/// Maps `size`-byte buffers of `byte` until the DMA layer refuses one (or
/// memory runs out); returns them and whether the pool was full.
pub(crate) fn fill(bound: &dma::Bound<'_>, size: usize, byte: u8) -> Result<(Vec<Filler>, bool)> {
    let mut maps = Vec::new();
    while maps.len() < MAX_MAPS {
        let buf = match filled(size, byte) {
            Ok(buf) => buf,
            Err(_) => return Ok((maps, false)),
        };
        match Mapping::<Bidirectional, _>::map(bound, buf) {
            Ok(m) => maps.try_push(m)?,
            Err(_) => return Ok((maps, true)),
        }
    }
    Ok((maps, false))
}

/// Maps one-slot patterned canaries until the pool is full: every slot
/// free before the call then holds a canary. Returns them and whether the
/// pool was full.
pub(crate) fn canaries(bound: &dma::Bound<'_>) -> Result<(Vec<Filler>, bool)> {
    let mut maps = Vec::new();
    while maps.len() < MAX_MAPS {
        let mut buf = filled(SMALL, 0)?;
        for (i, b) in buf.iter_mut().enumerate() {
            *b = canary_byte(i);
        }
        match Mapping::<Bidirectional, _>::map(bound, buf) {
            Ok(m) => maps.try_push(m)?,
            Err(_) => return Ok((maps, true)),
        }
    }
    Ok((maps, false))
}

/// How many bytes of the canaries differ from their pattern (the device
/// wrote them), after syncing each for the CPU; unmaps them.
pub(crate) fn differ(maps: Vec<Filler>) -> usize {
    let mut n = 0;
    for m in maps {
        let c = m.sync_for_cpu();
        n += c
            .as_slice()
            .iter()
            .enumerate()
            .filter(|(i, b)| **b != canary_byte(*i))
            .count();
        drop(c.unmap());
    }
    n
}

/// The holder's fillers (big ones, then small ones), its kept binding,
/// and the canaries mapped with it once the other edu's mappings were
/// revoked.
pub(crate) struct Holder {
    pub(crate) big: Vec<Filler>,
    /// Kept mapped until the holder's unbind.
    _small: Vec<Filler>,
    binding: Devres<dma::Binding>,
    canaries: Vec<Filler>,
    full: bool,
}

/// The holder, as the one element of a `Vec`: its pointer and capacity.
static HOLDER: AtomicPtr<Holder> = AtomicPtr::new(core::ptr::null_mut());
static HOLDER_CAP: AtomicUsize = AtomicUsize::new(0);

/// Fills the pool from the holder's binding and keeps the fillers.
pub(crate) fn hold(bound: &dma::Bound<'_>) -> Result<bool> {
    let binding = bound.keep()?;
    let (big, _) = fill(bound, BIG, 0)?;
    let (small, full) = fill(bound, SMALL, 0)?;
    if !HOLDER.load(Ordering::Acquire).is_null() {
        return Err(EBUSY);
    }
    let mut v = Vec::new();
    v.try_push(Holder {
        big,
        _small: small,
        binding,
        canaries: Vec::new(),
        full: false,
    })?;
    let mut v = core::mem::ManuallyDrop::new(v);
    HOLDER_CAP.store(v.capacity(), Ordering::Relaxed);
    HOLDER.store(v.as_mut_ptr(), Ordering::Release);
    Ok(full)
}

/// Runs `f` on the holder's fillers, if any.
pub(crate) fn with_holder<T>(f: impl FnOnce(&mut Holder) -> T) -> Option<T> {
    let ptr = HOLDER.swap(core::ptr::null_mut(), Ordering::AcqRel);
    if ptr.is_null() {
        return None;
    }
    // SAFETY: the element of the one-element `Vec` of `hold`, taken out of
    // the static by the swap above (nobody else uses it) and put back below.
    let r = f(unsafe { &mut *ptr });
    HOLDER.store(ptr, Ordering::Release);
    Some(r)
}

/// Unmaps every filler (the holder's unbind, or module exit).
pub(crate) fn release() {
    let ptr = HOLDER.swap(core::ptr::null_mut(), Ordering::AcqRel);
    if !ptr.is_null() {
        // SAFETY: the parts of the one-element `Vec` of `hold` (capacity
        // stored before the pointer was published), taken out once by the
        // swap.
        drop(unsafe { Vec::from_raw_parts(ptr, 1, HOLDER_CAP.load(Ordering::Relaxed)) });
    }
}

/// Maps canaries from the holder's binding into every free slot (called
/// once the other edu's mappings were revoked, before its pending transfer
/// runs).
pub(crate) fn place_canaries() {
    with_holder(|h| {
        if let Some(guard) = h.binding.bound() {
            if let Ok((c, full)) = canaries(&guard.bound()) {
                h.canaries = c;
                h.full = full;
            }
            // Room for the next binding's own mappings (the template's),
            // away from the canaries: the pending transfer can only reach
            // the slots the canaries hold.
            for _ in 0..ROOM {
                drop(h.big.pop());
            }
        }
    });
}

/// At the holder's unbind: waits for the pending transfer, then returns
/// how many canary bytes it changed, how many canaries there were and
/// whether they filled the pool (`None`: no canaries were placed).
pub(crate) fn check_canaries() -> Option<(usize, usize, bool)> {
    let (maps, full) = with_holder(|h| (core::mem::take(&mut h.canaries), h.full))?;
    if maps.is_empty() {
        return None;
    }
    wait_for_transfer();
    let n = maps.len();
    Some((differ(maps), n, full))
}
