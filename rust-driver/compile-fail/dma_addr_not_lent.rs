// error: E0599 no method named `dma_addr` found for struct `Mapping`
//! Must not compile: give the device the address of a mapping not lent to it
//!
//! A `Mapping` has no `dma_addr()`: no device holds its address, which is
//! what makes its safe slices and its unmap sound. `lend()` first.

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
    let m = Mapping::<FromDevice, _>::map(dev, buf()?)?;
    mmio.write_dma_dst(m.dma_addr(), 0x88)?;
    let _ = done;
    Ok(m.sync_for_cpu().as_slice()[0])
}
