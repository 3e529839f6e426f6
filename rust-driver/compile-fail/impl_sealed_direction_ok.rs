// ok: twin of impl_sealed_direction.rs
//! Must compile: implement the direction trait outside the kernel crate (the correct way)
//!
//! `Direction` is sealed: a made-up direction would pick its own syncs.

use kernel::dma::{Bidirectional, DataDirection, Direction};

/// The case.
pub fn case() -> DataDirection {
    Bidirectional::DIRECTION
}
