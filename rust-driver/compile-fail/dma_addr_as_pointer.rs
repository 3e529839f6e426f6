// error: E0605
//! Must not compile: turn a device address into a pointer
//!
//! A `DmaAddr` is not a number the CPU can dereference.

use kernel::dma::{Device, FromDevice, Mapping};
use kernel::prelude::*;

fn buf() -> Result<Vec<u8>> {
    let mut v = Vec::new();
    v.try_push(0)?;
    Ok(v)
}

/// The case.
pub fn case(dev: &Device) -> Result<u8> {
    let m = Mapping::<FromDevice, _>::map(dev, buf()?)?;
    let p = m.dma_addr() as *const u8;
    let _ = p;
    Ok(0)
}
