// ok: twin of write_in_poll.rs
//! Must compile: write while peeking (the correct way)
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
    match m.poll(&mut head, |b| (b[0] != 0).then(|| b[0])) {
        Peek::Pending(_) => Ok(0),
        Peek::Ready(_, v) => Ok(v),
    }
}
