// error: E0308 expected struct `DmaAddr`, found *-ptr
//! Must not compile: hand a CPU pointer to the device
//!
//! Only a `DmaAddr`, made by an in-flight mapping, can be programmed into a
//! DMA address register.

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
    mmio.write_dma_dst(c.as_slice().as_ptr(), 0x88)?;
    let _ = done;
    Ok(c.as_slice()[0])
}
