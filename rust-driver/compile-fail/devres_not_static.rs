// error: E0597 `counter` does not live long enough
//! Must not compile: tie data that borrows the stack to a binding
//!
//! `mem::forget` of a `Devres` is safe, and the unbind then drops its data,
//! long after the borrow ended: `Devres<T>` requires `T: Send + 'static`.

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

/// The case.
pub fn case(dev: &Bound<'_>) -> Result {
    let counter = AtomicU32::new(0);
    let res = Devres::new(dev, Holder(&counter))?;
    core::mem::forget(res);
    Ok(())
}
