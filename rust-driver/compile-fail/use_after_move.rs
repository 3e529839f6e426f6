// error: E0382
//! Must not compile: use after ownership moved
//!
//! `sync_for_cpu()` consumes the device-owned mapping: its old handle cannot hand the address to the device again.

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
    let c = m.sync_for_cpu();
    let _ = m.dma_addr();
    Ok(c.as_slice()[0])
}
