// ok: twin of dma_addr_after_unmap.rs
//! Must compile: program an address after unmap (the correct way)
//!
//! A `DmaAddr` cannot outlive the in-flight mapping it came from, let alone
//! its unmap.

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
    let v = f.complete(done)?.unmap();
    Ok(v[0])
}
