// error: E0599 the method `writer` exists for struct `Mapping<kernel::dma::FromDevice, CpuOwned>`, but its trait bounds were not satisfied
//! Must not compile: write a from-device buffer
//!
//! A `FromDevice` buffer is read-only to the CPU, even while the CPU owns it.

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
    let mut w = m.sync_for_cpu().writer();
    w.fill(0, 1, 0)?;
    Ok(w.as_slice()[0])
}
