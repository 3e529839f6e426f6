// error: E0505
//! Must not compile: program an address after the CPU took the buffer
//!
//! A `DmaAddr` borrows the device-owned mapping: it cannot outlive
//! `sync_for_cpu()`, so a stale address never reaches a register.

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
    let c = m.sync_for_cpu();
    mmio.write_dma_addr(a, 0x88)?;
    Ok(c.as_slice()[0])
}
