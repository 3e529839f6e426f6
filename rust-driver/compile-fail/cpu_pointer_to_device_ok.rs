// ok: twin of cpu_pointer_to_device.rs
//! Must compile: hand a CPU pointer to the device (the correct way)
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
    let f = Mapping::<FromDevice, _>::map(dev, buf()?)?.lend();
    mmio.write_dma_dst(f.dma_addr(), 0x88)?;
    let c = f.complete(done)?.sync_for_cpu();
    Ok(c.as_slice()[0])
}
