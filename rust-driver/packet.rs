// SPDX-License-Identifier: GPL-2.0

//! The packets edu delivers (the C poller's format) and how they are counted.

/// Distance between packets in edu's buffer.
pub(crate) const PKT_STRIDE: usize = 256;
/// Status word of a delivered packet.
pub(crate) const PKT_READY: u32 = 0x5944_4552; // "REDY"
/// Status, seq, len, checksum: 4 bytes each.
pub(crate) const PKT_HDR_LEN: usize = 16;
/// The longest payload: a packet fills its receive buffer.
pub(crate) const PKT_MAX_LEN: u32 = (crate::ring::RX_BUF_SIZE - PKT_HDR_LEN) as u32;

/// The little-endian `u32` at `off`.
pub(crate) fn le32(b: &[u8], off: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[off..off + 4]);
    u32::from_le_bytes(w)
}

fn fnv1a(mut h: u32, data: &[u8]) -> u32 {
    for &b in data {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// FNV-1a over seq and len (bytes 4..12), then the `len` payload bytes.
pub(crate) fn pkt_csum(pkt: &[u8], len: usize) -> u32 {
    let h = fnv1a(0x811c_9dc5, &pkt[4..12]);
    fnv1a(h, &pkt[PKT_HDR_LEN..PKT_HDR_LEN + len])
}

/// Writes packet `seq` with a `len`-byte payload into `pkt`.
pub(crate) fn pkt_build(pkt: &mut [u8], seq: u32, len: u32) {
    pkt[0..4].copy_from_slice(&PKT_READY.to_le_bytes());
    pkt[4..8].copy_from_slice(&seq.to_le_bytes());
    pkt[8..12].copy_from_slice(&len.to_le_bytes());
    for j in 0..len {
        // `% 255` keeps the value below 255, so the cast is lossless.
        pkt[PKT_HDR_LEN + j as usize] = (1 + (seq.wrapping_mul(7).wrapping_add(j)) % 255) as u8;
    }
    let csum = pkt_csum(pkt, len as usize);
    pkt[12..16].copy_from_slice(&csum.to_le_bytes());
}

/// The status word of a received buffer (or of a snapshot of its head).
pub(crate) fn status(buf: &[u8]) -> u32 {
    le32(buf, 0)
}

#[derive(Default)]
/// What a scenario saw.
pub(crate) struct Counts {
    pub(crate) packets: u32,
    pub(crate) lost: u32,
    pub(crate) dup: u32,
    pub(crate) stale: u32,
    pub(crate) corrupt: u32,
    pub(crate) phantom: u32,
    pub(crate) stale_bytes: u32,
}

impl Counts {
    /// The outcome: the first non-zero of LOST, CORRUPT, PHANTOM, DUP, STALE.
    pub(crate) fn observed(&self) -> &'static str {
        if self.lost != 0 {
            "LOST"
        } else if self.corrupt != 0 {
            "CORRUPT"
        } else if self.phantom != 0 {
            "PHANTOM"
        } else if self.dup != 0 {
            "DUP"
        } else if self.stale != 0 {
            "STALE"
        } else {
            "ok"
        }
    }
}
