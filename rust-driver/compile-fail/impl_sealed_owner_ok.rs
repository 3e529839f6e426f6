// ok: twin of impl_sealed_owner.rs
//! Must compile: implement the owner trait outside the kernel crate (the correct way)
//!
//! `Owner` is sealed: a made-up owner state would bypass the transitions.

use kernel::dma::{Bound, FromDevice, Mapping};
use kernel::prelude::*;

fn buf() -> Result<Vec<u8>> {
    let mut v = Vec::new();
    v.try_push(0)?;
    Ok(v)
}

/// The case.
pub fn case(dev: &Bound<'_>) -> Result<Vec<u8>> {
    Ok(Mapping::<FromDevice, _>::map(dev, buf()?)?.unmap())
}
