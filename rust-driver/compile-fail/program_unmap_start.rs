// error: E0599 no method named `unmap` found for struct `InFlight`
//! Must not compile: program the address, unmap, then start the transfer
//!
//! Once its address is programmed, the mapping is in flight, and an
//! `InFlight` has no `unmap()`: only a proof that the device is done
//! (`complete()`) gives the mapping back. Starting the transfer after an
//! unmap would have the device write a freed buffer or a bounce slot another
//! mapping owns.

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
    let v = f.unmap();
    mmio.write32(1 | 2, 0x98)?; // start: edu -> RAM
    let _ = done;
    Ok(v[0])
}
