// error: E0599
//! Must not compile: ask for the device address while the CPU holds the buffer
//!
//! `dma_addr()` exists only for device-owned mappings.

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
    let c = m.sync_for_cpu();
    mmio.write_dma_addr(c.dma_addr(), 0x88)?;
    Ok(c.as_slice()[0])
}
