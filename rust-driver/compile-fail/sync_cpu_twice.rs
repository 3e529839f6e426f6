// error: E0599 no method named `sync_for_cpu` found for struct `Mapping<kernel::dma::FromDevice, CpuOwned>`
//! Must not compile: sync twice for CPU
//!
//! A CPU-owned buffer has no `sync_for_cpu()`: it must go back to the device first.

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
    let c = m.sync_for_cpu().sync_for_cpu();
    Ok(c.as_slice()[0])
}
