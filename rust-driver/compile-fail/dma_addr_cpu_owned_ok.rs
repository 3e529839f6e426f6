// ok: twin of dma_addr_cpu_owned.rs
//! Must compile: ask for the device address while the CPU holds the buffer (the correct way)
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
    let d = c.give_back();
    mmio.write_dma_addr(d.dma_addr(), 0x88)?;
    Ok(d.unmap()[0])
}
