// error: E0080
//! Must not compile: a DMA mask wider than 64 bits
//!
//! `DmaMask::new::<N>()` is checked at compile time.

use kernel::dma::DmaMask;

/// The case.
pub fn case() -> u64 {
    DmaMask::new::<65>().value()
}
