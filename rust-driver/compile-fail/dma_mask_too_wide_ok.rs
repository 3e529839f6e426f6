// ok: twin of dma_mask_too_wide.rs
//! Must compile: a DMA mask wider than 64 bits (the correct way)
//!
//! `DmaMask::new::<N>()` is bounded by `Bits<N>: MaskWidth`, which holds for
//! `N <= 64` only: a type error wherever it is written, here in a function
//! that is never called.

use kernel::dma::DmaMask;

/// Never called.
#[allow(dead_code)]
fn never_called() -> u64 {
    DmaMask::new::<64>().value()
}
