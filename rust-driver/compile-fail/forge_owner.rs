// error: E0423
//! Must not compile: construct an owner state by hand
//!
//! Owner states have private fields: only the transitions make them.

use kernel::dma::DeviceOwned;

/// The case.
pub fn case() -> DeviceOwned {
    DeviceOwned(())
}
