// error: E0277 the trait bound `Mine: dma::private::SealedOwner` is not satisfied
//! Must not compile: implement the owner trait outside the kernel crate
//!
//! `Owner` is sealed: a made-up owner state would bypass the transitions.

use kernel::dma::{FromDevice, Mapping, Owner};
use kernel::prelude::*;

/// An owner state of our own.
pub struct Mine;

impl Owner for Mine {}

/// The case.
pub fn case(m: Mapping<FromDevice, Mine>) -> Vec<u8> {
    m.unmap()
}
