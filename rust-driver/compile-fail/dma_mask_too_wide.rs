// error: E0277 the trait `MaskWidth` is not implemented for `Bits<65_u32>`
//! Must not compile: a DMA mask wider than 64 bits
//!
//! `DmaMask::new::<N>()` is bounded by `Bits<N>: MaskWidth`, which holds for
//! `N <= 64` only: a type error wherever it is written, here in a function
//! that is never called (a failed constant evaluation would only show where
//! the function is instantiated, so it would compile).

use kernel::dma::DmaMask;

/// Never called.
#[allow(dead_code)]
fn never_called() -> u64 {
    DmaMask::new::<65>().value()
}
