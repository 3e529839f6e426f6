// error: E0451 field `dev` of struct `kernel::dma::Bound` is private
//! Must not compile: forge the proof that a driver is bound
//!
//! `Bound` has only private fields: a driver cannot claim a binding it was
//! not given, to map for a device after its unbind.

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
    let _ = bound;
    let fake = Bound {
        dev: kept,
        stop: None,
    };
    let m = Mapping::<FromDevice, _>::map(&fake, buf()?)?;
    Ok(m.unmap()[0])
}
