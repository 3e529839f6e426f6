// error: E0382 has type `DmaAddr<'_, kernel::dma::FromDevice>`, which does not implement the `Copy` trait
//! Must not compile: keep a copy of a device address
//!
//! `DmaAddr` is not `Copy`: writing it to a register consumes it; ask the in-
//! flight mapping again for another register.

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
    let a = f.dma_addr();
    mmio.write_dma_dst(a, 0x80)?;
    mmio.write_dma_dst(a, 0x88)?;
    Ok(f.complete(done)?.unmap()[0])
}
