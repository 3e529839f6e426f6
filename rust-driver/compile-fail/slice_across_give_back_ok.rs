// ok: twin of slice_across_give_back.rs
//! Must compile: keep a slice across a give-back (the correct way)
//!
//! A slice borrowed from a CPU-owned buffer cannot outlive the give-back.

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
    let c = m.sync_for_cpu();
    let b = c.as_slice()[0];
    let d = c.give_back();
    drop(d);
    Ok(b)
}
