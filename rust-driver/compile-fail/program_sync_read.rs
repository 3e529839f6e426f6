// error: E0133 c.as_slice()
//! Must not compile: read an in-flight buffer through a slice
//!
//! After `sync_for_cpu()` the device may still be writing an in-flight buffer
//! (without a bounce buffer, these very bytes): a slice of it is `unsafe`, as
//! mainline's `Coherent::as_slice`; `snapshot()` copies it with volatile
//! reads.

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
    let c = f.sync_for_cpu();
    let b = c.as_slice()[0];
    let _ = c.complete(done)?;
    Ok(b)
}
