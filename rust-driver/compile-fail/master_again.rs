// error: E0133 en.device().set_master()
//! Must not compile: turn bus mastering back on without `unsafe`
//!
//! A quiesce proof lets the driver unmap and free what the device was
//! given; bus mastering on again would let the device use those stale
//! addresses. `set_master()` is `unsafe`, and its caller must say why the
//! device will not.

use kernel::dma::{Bound, FromDevice, Mapping};
use kernel::io_mem::IoMem;
use kernel::pci::Enabled;
use kernel::prelude::*;

fn buf() -> Result<Vec<u8>> {
    let mut v = Vec::new();
    v.try_push(0)?;
    Ok(v)
}

/// The case.
pub fn case(dev: &Bound<'_>, mmio: &IoMem, en: &Enabled) -> Result<u8> {
    let f = Mapping::<FromDevice, _>::map(dev, buf()?)?.lend();
    mmio.write_dma_dst(f.dma_addr(), 0x88)?;
    let byte = f.complete(&en.quiesce())?.unmap()[0];
    en.device().set_master();
    Ok(byte)
}
