// ok: twin of forge_dma_addr.rs
//! Must compile: forge a device address (the correct way)
//!
//! `DmaAddr` has only private fields: no integer becomes an address the
//! device is given; only `InFlight::dma_addr()` makes one, and that lends the
//! mapping.

use core::{marker::PhantomData, ptr::NonNull, sync::atomic::AtomicU64};
use kernel::bindings;
use kernel::dma::{Bound, DmaAddr, FromDevice, Idle, Mapping};
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
    let a: DmaAddr<'_, FromDevice> = f.dma_addr();
    mmio.write_dma_dst(a, 0x88)?;
    let _ = (
        PhantomData::<bindings::device>,
        NonNull::<u8>::dangling(),
        AtomicU64::new(0),
    );
    Ok(f.complete(done)?.unmap()[0])
}
