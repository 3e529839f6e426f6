// error: E0505 let v = f.complete(done)?.unmap();
//! Must not compile: program an address after unmap
//!
//! A `DmaAddr` cannot outlive the in-flight mapping it came from, let alone
//! its unmap.

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
    let a = f.dma_addr();
    let v = f.complete(done)?.unmap();
    mmio.write_dma_dst(a, 0x88)?;
    Ok(v[0])
}
