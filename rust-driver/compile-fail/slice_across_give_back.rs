// error: E0505 let d = c.give_back();
//! Must not compile: keep a slice across a give-back
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
    let s = c.as_slice();
    let d = c.give_back();
    let b = s[0];
    drop(d);
    Ok(b)
}
