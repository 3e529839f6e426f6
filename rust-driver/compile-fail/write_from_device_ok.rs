// ok: twin of write_from_device.rs
//! Must compile: write a from-device buffer (the correct way)
//!
//! A `FromDevice` buffer is read-only to the CPU, even while the CPU owns it.

use kernel::dma::{Bidirectional, Bound, Mapping};
use kernel::prelude::*;

fn buf() -> Result<Vec<u8>> {
    let mut v = Vec::new();
    v.try_push(0)?;
    Ok(v)
}

/// The case.
pub fn case(dev: &Bound<'_>) -> Result<u8> {
    let m = Mapping::<Bidirectional, _>::map(dev, buf()?)?;
    let mut w = m.sync_for_cpu().writer();
    w.fill(0, 1, 0)?;
    Ok(w.as_slice()[0])
}
