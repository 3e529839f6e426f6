// ok: twin of dma_addr_after_unmap.rs
//! Must compile: program an address after unmap (the correct way)
//!
//! A `DmaAddr` cannot outlive the mapping it came from.

use kernel::dma::{Device, FromDevice, Mapping};
use kernel::io_mem::IoMem;
use kernel::prelude::*;

fn buf() -> Result<Vec<u8>> {
    let mut v = Vec::new();
    v.try_push(0)?;
    Ok(v)
}

/// The case.
pub fn case(dev: &Device, mmio: &IoMem) -> Result<u8> {
    let m = Mapping::<FromDevice, _>::map(dev, buf()?)?;
    mmio.write_dma_addr(m.dma_addr(), 0x88)?;
    let v = m.unmap();
    Ok(v[0])
}
