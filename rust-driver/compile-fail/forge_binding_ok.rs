// ok: twin of forge_binding.rs
//! Must compile: make a kept binding from a counted device (the correct way)

use kernel::device::Device;
use kernel::dma::Bound;
use kernel::prelude::*;

/// The case.
pub fn case(bound: &Bound<'_>, kept: &Device) -> Result {
    let _ = kept;
    let _b = bound.keep()?;
    Ok(())
}
