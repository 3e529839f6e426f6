// ok: twin of dma_mask_too_wide.rs
//! Must compile: a DMA mask wider than 64 bits (the correct way)
//!
//! `DmaMask::new::<N>()` is checked at compile time.

use kernel::dma::DmaMask;

/// The case.
pub fn case() -> u64 {
    DmaMask::new::<64>().value()
}
