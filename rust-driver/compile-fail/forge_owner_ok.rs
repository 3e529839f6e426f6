// ok: twin of forge_owner.rs
//! Must compile: construct an owner state by hand (the correct way)
//!
//! Owner states have private fields: only the transitions make them.

use kernel::dma::CpuOwned;

/// The case.
pub fn case(o: CpuOwned) -> CpuOwned {
    o
}
