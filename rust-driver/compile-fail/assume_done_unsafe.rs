// error: E0133 f.assume_done()
//! Must not compile: end a flight on the driver's word without `unsafe`
//!
//! Without a proof, ending a flight is the driver's claim that the device is
//! done with the address: `assume_done()` is `unsafe`, and its caller must
//! say why.

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
    let _ = done;
    Ok(f.assume_done().unmap()[0])
}
