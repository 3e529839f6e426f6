// error: E0505
//! Must not compile: program an address after unmap
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
    let a = m.dma_addr();
    let v = m.unmap();
    mmio.write_dma_addr(a, 0x88)?;
    Ok(v[0])
}
