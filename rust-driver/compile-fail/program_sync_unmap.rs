// error: E0599 no method named `unmap` found for struct `InFlight`
//! Must not compile: program the address, sync for the CPU, then unmap
//!
//! Syncing an in-flight mapping for the CPU (ath9k's poll) keeps it in
//! flight: the CPU-owned `InFlight` has no `unmap()` either.

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
    let v = f.sync_for_cpu().unmap();
    let _ = done;
    Ok(v[0])
}
