// error: E0277 the trait bound `kernel::dma::ToDevice: DeviceWrites` is not satisfied
//! Must not compile: program a TO_DEVICE address as a DMA destination
//!
//! A `DmaAddr` carries its direction: the device may only read a `ToDevice`
//! buffer, so its address is accepted as a source (`write_dma_src`), never as
//! a destination.

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
    mmio.write_dma_dst(f.dma_addr(), 0x88)?;
    Ok(f.complete(done)?.unmap()[0])
}
