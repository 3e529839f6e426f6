// error: E0423
//! Must not compile: forge a device address
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
    mmio.write_dma_addr(DmaAddr(0x1000), 0x88)?;
    Ok(m.unmap()[0])
}
