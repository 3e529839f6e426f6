// ok: twin of forge_dma_addr.rs
//! Must compile: forge a device address (the correct way)
//!
//! Only a mapping makes a `DmaAddr`: no integer can become one.

use kernel::dma::{Device, DmaAddr, FromDevice, Mapping};
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
    let a: DmaAddr<'_> = m.dma_addr();
    mmio.write_dma_addr(a, 0x88)?;
    Ok(m.unmap()[0])
}
