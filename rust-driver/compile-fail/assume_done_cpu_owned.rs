// error: E0599 no method named `assume_done` found for struct `InFlight<kernel::dma::FromDevice, CpuOwned>`
//! Must not compile: end a flight the CPU synced on the driver's word
//!
//! The device may have written after `sync_for_cpu()`, so the CPU's view of
//! its data owes a second sync: `complete()` of an `InFlight<D, CpuOwned>`
//! makes it, and `assume_done()` is offered only where no sync is owed
//! (a device-owned flight: give it back first).

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
    let m = unsafe { c.assume_done() };
    Ok(m.as_slice()[0])
}
