// ok: twin of map_unbound.rs
//! Must compile: map a buffer for a device no driver is bound to (the correct way)
//!
//! `Mapping::map` needs a `Bound` device, which only the bus hands out (in
//! `probe`): a counted `Device` kept elsewhere, e.g. past unbind, proves
//! nothing about the binding, and a mapping made then would outlive the bus's
//! DMA teardown.

use kernel::device::Device;
use kernel::dma::{Bound, FromDevice, Mapping};
use kernel::prelude::*;

fn buf() -> Result<Vec<u8>> {
    let mut v = Vec::new();
    v.try_push(0)?;
    Ok(v)
}

/// The case.
pub fn case(bound: &Bound<'_>, kept: &Device) -> Result<u8> {
    let _ = kept;
    let m = Mapping::<FromDevice, _>::map(bound, buf()?)?;
    Ok(m.unmap()[0])
}
