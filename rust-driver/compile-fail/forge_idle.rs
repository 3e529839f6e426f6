// error: E0451 field `dev` of struct `Idle` is private
//! Must not compile: forge the proof that the device is done
//!
//! `Idle` has only private fields: a driver gets one from the bus (bus
//! mastering off) or states its reason in an `unsafe` block, never by
//! building one, which would let an in-flight buffer be unmapped under DMA.

use core::{marker::PhantomData, ptr::NonNull};
use kernel::bindings;
use kernel::dma::{Bound, FromDevice, Idle, Mapping};
use kernel::io_mem::IoMem;
use kernel::prelude::*;

fn buf() -> Result<Vec<u8>> {
    let mut v = Vec::new();
    v.try_push(0)?;
    Ok(v)
}

/// The case.
pub fn case(dev: &Bound<'_>, mmio: &IoMem, done: &Idle<'_>) -> Result<u8> {
    let f = Mapping::<FromDevice, _>::map(dev, buf()?)?.lend();
    mmio.write_dma_dst(f.dma_addr(), 0x88)?;
    let fake: Idle<'_> = Idle {
        dev: NonNull::<bindings::device>::dangling(),
        epoch: u64::MAX,
        holds: None,
        _dev: PhantomData,
    };
    let _ = done;
    Ok(f.complete(&fake)?.unmap()[0])
}
