// error: E0505 let c = f.complete(done)?.sync_for_cpu();
//! Must not compile: program an address after the device was declared done
//!
//! A `DmaAddr` borrows the in-flight mapping: it cannot outlive `complete()`,
//! so an address is never given to the device after the proof that ends its
//! flight.

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
    let c = f.complete(done)?.sync_for_cpu();
    mmio.write_dma_dst(a, 0x88)?;
    Ok(c.as_slice()[0])
}
