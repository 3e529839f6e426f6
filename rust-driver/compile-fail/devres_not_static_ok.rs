// ok: twin of devres_not_static.rs
//! Must compile: tie data that borrows the stack to a binding (the correct way)
//!
//! The data borrows a `static`, which outlives any unbind.

use core::sync::atomic::{AtomicU32, Ordering};
use kernel::devres::Devres;
use kernel::dma::Bound;
use kernel::prelude::*;

/// Counts in `drop`.
struct Holder<'a>(&'a AtomicU32);

impl Drop for Holder<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

static COUNTER: AtomicU32 = AtomicU32::new(0);

/// The case.
pub fn case(dev: &Bound<'_>) -> Result {
    let res = Devres::new(dev, Holder(&COUNTER))?;
    core::mem::forget(res);
    Ok(())
}
