// error: E0599 no method named `dma_addr` found for struct `Mapping`
//! Must not compile: ask for the device address while the CPU holds the buffer
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
    mmio.write_dma_dst(c.dma_addr(), 0x88)?;
    let _ = done;
    Ok(c.as_slice()[0])
}
