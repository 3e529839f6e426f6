// error: E0599 no method named `writer` found for struct `InFlight`
//! Must not compile: write an in-flight buffer
//!
//! The CPU may write only a buffer no device is using: an in-flight mapping,
//! even synced for the CPU, has no `writer()`.

use kernel::dma::{Bidirectional, Bound, Idle, Mapping};
use kernel::io_mem::IoMem;
use kernel::prelude::*;

fn buf() -> Result<Vec<u8>> {
    let mut v = Vec::new();
    v.try_push(0)?;
    Ok(v)
}

/// The case.
pub fn case(dev: &Bound<'_>, mmio: &IoMem, done: &Idle<'_>) -> Result<u8> {
    let f = Mapping::<Bidirectional, _>::map(dev, buf()?)?.lend();
    mmio.write_dma_dst(f.dma_addr(), 0x88)?;
    let mut w = f.sync_for_cpu().writer();
    w.fill(0, 1, 0)?;
    let _ = done;
    Ok(w.as_slice()[0])
}
