// ok: twin of dma_addr_cpu_owned.rs
//! Must compile: ask for the device address while the CPU holds the buffer (the correct way)
//!
//! Only an in-flight mapping has `dma_addr()`, and only a device-owned
//! mapping can be lent.

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
    let m = Mapping::<FromDevice, _>::map(dev, buf()?)?;
    let c = m.sync_for_cpu();
    let f = c.give_back().lend();
    mmio.write_dma_dst(f.dma_addr(), 0x88)?;
    Ok(f.complete(done)?.unmap()[0])
}
