// error: E0117 impl DeviceWrites for ToDevice
//! Must not compile: declare a TO_DEVICE buffer device-writable
//!
//! Which directions the device reads or writes is the kernel crate's to say:
//! `DeviceWrites` cannot be implemented for `ToDevice` elsewhere, so a
//! `ToDevice` address never becomes a destination.

use kernel::dma::{Bound, DeviceWrites, Idle, Mapping, ToDevice};
use kernel::io_mem::IoMem;
use kernel::prelude::*;

fn buf() -> Result<Vec<u8>> {
    let mut v = Vec::new();
    v.try_push(0)?;
    Ok(v)
}

impl DeviceWrites for ToDevice {}

/// The case.
pub fn case(dev: &Bound<'_>, mmio: &IoMem, done: &Idle<'_>) -> Result<u8> {
    let f = Mapping::<ToDevice, _>::map(dev, buf()?)?.lend();
    mmio.write_dma_dst(f.dma_addr(), 0x88)?;
    Ok(f.complete(done)?.unmap()[0])
}
