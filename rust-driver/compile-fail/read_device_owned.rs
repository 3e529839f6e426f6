// error: E0599 no method named `as_slice` found for struct `Mapping<kernel::dma::FromDevice, DeviceOwned>`
//! Must not compile: read while device-owned
//!
//! The CPU may read a buffer only after `sync_for_cpu()` handed it over.

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
    Ok(m.as_slice()[0])
}
