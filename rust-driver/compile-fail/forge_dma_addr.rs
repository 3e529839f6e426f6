// error: E0451 field `addr` of struct `DmaAddr` is private
//! Must not compile: forge a device address
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
    let m = Mapping::<FromDevice, _>::map(dev, buf()?)?;
    let never = AtomicU64::new(0);
    let a: DmaAddr<'_, FromDevice> = DmaAddr {
        addr: 0x1000,
        dev: NonNull::<bindings::device>::dangling(),
        handed: &never,
        live: None,
        _dir: PhantomData,
    };
    mmio.write_dma_dst(a, 0x88)?;
    let _ = done;
    Ok(m.unmap()[0])
}
