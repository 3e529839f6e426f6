// error: E0277 the trait bound `kernel::dma::FromDevice: DeviceReads` is not satisfied
//! Must not compile: program a FROM_DEVICE address as a DMA source
//!
//! The device may only write a `FromDevice` buffer: reading it would hand the
//! device whatever the CPU left there (with swiotlb, stale bounce-buffer
//! bytes).

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
    mmio.write_dma_src(f.dma_addr(), 0x80)?;
    Ok(f.complete(done)?.unmap()[0])
}
