// error: E0605 non-primitive cast: `DmaAddr<'_, kernel::dma::FromDevice>` as `*const u8`
//! Must not compile: turn a device address into a pointer
//!
//! A `DmaAddr` is not a number the CPU can dereference.

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
    let p = f.dma_addr() as *const u8;
    let _ = (mmio, done);
    // SAFETY: none: this must not compile.
    Ok(unsafe { *p })
}
