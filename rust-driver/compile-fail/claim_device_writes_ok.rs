// ok: twin of claim_device_writes.rs
//! Must compile: declare a TO_DEVICE buffer device-writable (the correct way)
//!
//! Which directions the device reads or writes is the kernel crate's to say:
//! `DeviceWrites` cannot be implemented for `ToDevice` elsewhere, so a
//! `ToDevice` address never becomes a destination.

use kernel::dma::{Bound, Idle, Mapping, ToDevice};
use kernel::io_mem::IoMem;
use kernel::prelude::*;

fn buf() -> Result<Vec<u8>> {
    let mut v = Vec::new();
    v.try_push(0)?;
    Ok(v)
}

/// The case.
pub fn case(dev: &Bound<'_>, mmio: &IoMem, done: &Idle<'_>) -> Result<u8> {
    let f = Mapping::<ToDevice, _>::map(dev, buf()?)?.lend();
    mmio.write_dma_src(f.dma_addr(), 0x80)?;
    Ok(f.complete(done)?.unmap()[0])
}
