// ok: twin of assume_done_cpu_owned.rs
//! Must compile: end a flight the CPU synced on the driver's word (the correct way)
//!
//! Give the buffer back first: the device-owned flight owes no sync, and
//! `sync_for_cpu()` of the mapping then shows everything the device wrote.

use kernel::dma::{Bound, FromDevice, Mapping};
use kernel::io_mem::IoMem;
use kernel::prelude::*;

fn buf() -> Result<Vec<u8>> {
    let mut v = Vec::new();
    v.try_push(0)?;
    Ok(v)
}

/// The case.
pub fn case(dev: &Bound<'_>, mmio: &IoMem) -> Result<u8> {
    let f = Mapping::<FromDevice, _>::map(dev, buf()?)?.lend();
    mmio.write_dma_dst(f.dma_addr(), 0x88)?;
    let c = f.sync_for_cpu();
    // SAFETY: the case is about the type, not this claim.
    let m = unsafe { c.give_back().assume_done() }.sync_for_cpu();
    Ok(m.as_slice()[0])
}
