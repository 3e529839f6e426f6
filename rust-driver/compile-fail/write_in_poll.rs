// error: E0594
//! Must not compile: write while peeking
//!
//! `poll()` gives its check a read-only snapshot: peeking cannot write.

use kernel::dma::{Bidirectional, Device, Mapping, Peek};
use kernel::prelude::*;

fn buf() -> Result<Vec<u8>> {
    let mut v = Vec::new();
    v.try_push(0)?;
    Ok(v)
}

/// The case.
pub fn case(dev: &Device) -> Result<u8> {
    let m = Mapping::<Bidirectional, _>::map(dev, buf()?)?;
    let mut head = [0u8; 1];
    match m.poll(&mut head, |b| {
        b[0] = 0;
        None::<u8>
    }) {
        Peek::Pending(_) => Ok(0),
        Peek::Ready(_, v) => Ok(v),
    }
}
