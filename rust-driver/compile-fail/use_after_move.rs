// error: E0382 let c = m.sync_for_cpu();
//! Must not compile: use after ownership moved
//!
//! `sync_for_cpu()` consumes the device-owned mapping: its old handle cannot
//! lend the buffer to the device while the CPU owns it.

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
    let _f = m.lend();
    Ok(c.as_slice()[0])
}
