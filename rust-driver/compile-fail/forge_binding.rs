// error: E0451 field `dev` of struct `Binding` is private
//! Must not compile: make a kept binding from a counted device
//!
//! A `Binding` gives a `Bound` (the proof that a driver is bound) after
//! probe; only `Bound::keep` makes one, tied to the binding it came from.

use kernel::device::Device;
use kernel::dma::{Binding, Bound};
use kernel::prelude::*;

/// The case.
pub fn case(bound: &Bound<'_>, kept: &Device) -> Result {
    let _ = bound;
    let _b = Binding {
        dev: kept.clone(),
        stop: None,
    };
    Ok(())
}
