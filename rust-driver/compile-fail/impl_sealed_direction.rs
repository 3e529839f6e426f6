// error: E0277 the trait bound `Mine: dma::private::SealedDirection` is not satisfied
//! Must not compile: implement the direction trait outside the kernel crate
//!
//! `Direction` is sealed: a made-up direction would pick its own syncs.

use kernel::dma::{DataDirection, Direction};

/// A direction of our own.
pub enum Mine {}

impl Direction for Mine {
    const DIRECTION: DataDirection = DataDirection::Bidirectional;
}

/// The case.
pub fn case() -> DataDirection {
    Mine::DIRECTION
}
