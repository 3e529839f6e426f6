// error: E0505 move out of `guard` because it is borrowed
//! Must not compile: map after probe with a binding no longer held
//!
//! A kept binding (`Bound::keep`) gives a `Bound` only through a guard
//! (`Devres::bound`), which the unbind waits for: the `Bound` borrows the
//! guard, so it cannot be used once the guard is gone and the device may
//! have been unbound.

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
    drop(guard);
    let m = Mapping::<FromDevice, _>::map(&bound, buf()?)?;
    Ok(m.unmap()[0])
}
