// error: E0282 type annotations needed for `Mapping<D, DeviceOwned>`
//! Must not compile: forget the direction
//!
//! A mapping has no default direction: it must be named.

use kernel::dma::{Bound, FromDevice, Mapping};
use kernel::prelude::*;

fn buf() -> Result<Vec<u8>> {
    let mut v = Vec::new();
    v.try_push(0)?;
    Ok(v)
}

/// The case.
pub fn case(dev: &Bound<'_>) -> Result<u8> {
    let m = Mapping::map(dev, buf()?)?;
    let c = m.sync_for_cpu();
    Ok(c.as_slice()[0])
}
