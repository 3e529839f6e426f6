// ok: twin of bound_after_guard.rs
//! Must compile: map after probe while the kept binding is held (the correct way)

use kernel::devres::Devres;
use kernel::dma::{Binding, FromDevice, Mapping};
use kernel::error::code::ENODEV;
use kernel::prelude::*;

fn buf() -> Result<Vec<u8>> {
    let mut v = Vec::new();
    v.try_push(0)?;
    Ok(v)
}

/// The case.
pub fn case(binding: &Devres<Binding>) -> Result<u8> {
    let guard = binding.bound().ok_or(ENODEV)?;
    let bound = guard.bound();
    let m = Mapping::<FromDevice, _>::map(&bound, buf()?)?;
    drop(guard);
    Ok(m.unmap()[0])
}
