// error: E0382 let v = m.unmap();
//! Must not compile: use after unmap
//!
//! `unmap()` consumes the mapping and returns the CPU buffer; the mapping is
//! gone, and cannot be lent to the device.

use kernel::dma::{Bound, FromDevice, Mapping};
use kernel::prelude::*;

fn buf() -> Result<Vec<u8>> {
    let mut v = Vec::new();
    v.try_push(0)?;
    Ok(v)
}

/// The case.
pub fn case(dev: &Bound<'_>) -> Result<u8> {
    let m = Mapping::<FromDevice, _>::map(dev, buf()?)?;
    let v = m.unmap();
    let _f = m.lend();
    Ok(v[0])
}
