// ok: twin of dma_addr_as_pointer.rs
//! Must compile: turn a device address into a pointer (the correct way)
//!
//! A `DmaAddr` is not a number the CPU can dereference.

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
    Ok(f.complete(done)?.sync_for_cpu().as_slice()[0])
}
