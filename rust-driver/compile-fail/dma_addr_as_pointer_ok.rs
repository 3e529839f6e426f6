// ok: twin of dma_addr_as_pointer.rs
//! Must compile: turn a device address into a pointer (the correct way)
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
    let p = m.sync_for_cpu().as_slice().as_ptr();
    let _ = p;
    Ok(0)
}
