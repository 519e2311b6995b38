//! Where the record or block at the read position ends, and whether its length can be
//! trusted: checked on the raw bytes *before* pcap-parser parses the record, so that a bad
//! length is named precisely (and never used as an allocation size or a position).
//!
//! - pcapng (draft-ietf-opsawg-pcapng §3.1): a block is `type, total length, body, total
//!   length`; the total length is at least 12, a multiple of 4 ("padded to 32 bits"), and
//!   repeated at the end. A Section Header Block (§4.1) carries its own byte-order magic
//!   0x1A2B3C4D right after the length, and is at least 28 bytes.
//! - pcap (pcap-savefile(5)): a 16-byte record header whose captured length must fit the
//!   file's snapshot length (or libpcap's MAXIMUM_SNAPLEN, whichever is larger).
//!
//! The same checks validate the first block at open time ([`crate::CaptureReader`]), where
//! a failure means the file cannot be read at all.

/// Section Header Block type 0x0A0D0D0A (a palindrome: same bytes in both byte orders).
pub const SHB_TYPE_BYTES: [u8; 4] = [0x0A, 0x0D, 0x0D, 0x0A];
/// pcapng byte-order magic (§4.1).
pub const BYTE_ORDER_MAGIC: u32 = 0x1A2B_3C4D;
/// Smallest pcapng block (type, length, length).
pub const NG_MIN_BLOCK_LEN: u32 = 12;
/// Smallest Section Header Block: type, length, BOM, major, minor, section length, length.
pub const SHB_MIN_LEN: u32 = 28;
/// pcapng blocks are padded to a multiple of 32 bits (§3.1).
pub const NG_BLOCK_ALIGN: u32 = 4;
/// Legacy pcap record header length (pcap-savefile(5)).
pub const LEGACY_RECORD_HEADER_LEN: usize = 16;

/// Why a length cannot be trusted.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BadLength {
    /// Longer than any sane record (the limit is given).
    TooLong { len: u64, limit: u64 },
    /// A pcapng block length below 12.
    TooShort(u32),
    /// A pcapng block length that is not a multiple of 4.
    Unaligned(u32),
    /// Trailing length differs from the leading one.
    MismatchedTrailer { lead: u32, trail: u32 },
    /// A Section Header Block with a bad byte-order magic or a length below 28.
    BadSectionHeader,
}

impl std::fmt::Display for BadLength {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            BadLength::TooLong { len, limit } => write!(f, "record length {len} is impossible (at most {limit})"),
            BadLength::TooShort(l) => write!(f, "block length {l} is below the 12-byte minimum"),
            BadLength::Unaligned(l) => write!(f, "block length {l} is not a multiple of 4"),
            BadLength::MismatchedTrailer { lead, trail } => {
                write!(f, "block trailer length {trail} differs from its length {lead}")
            }
            BadLength::BadSectionHeader => write!(f, "bad section header"),
        }
    }
}

/// The verdict on the record at the read position.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Framing {
    /// Fewer bytes buffered than needed to decide: at least this many are needed.
    Need(usize),
    /// The record is this long (header included) and entirely buffered.
    Whole(usize),
    /// Its length cannot be trusted.
    Bad(BadLength),
}

fn u32_at(d: &[u8], at: usize, big_endian: bool) -> Option<u32> {
    let b = d.get(at..at + 4)?;
    let a = [b[0], b[1], b[2], b[3]];
    Some(if big_endian { u32::from_be_bytes(a) } else { u32::from_le_bytes(a) })
}

/// Byte order of the Section Header Block at the start of `d` from its byte-order magic:
/// `Some(big_endian)`, or `None` when the magic is neither order (or not yet buffered).
pub fn shb_byte_order(d: &[u8]) -> Option<bool> {
    match u32_at(d, 8, false)? {
        BYTE_ORDER_MAGIC => Some(false),
        m if m == BYTE_ORDER_MAGIC.swap_bytes() => Some(true),
        _ => None,
    }
}

/// Checks the pcapng block at the start of `d`; `big_endian` is the current section's byte
/// order (a Section Header Block brings its own).
pub fn check_ng(d: &[u8], big_endian: bool, max_len: usize) -> Framing {
    if d.len() < 8 {
        return Framing::Need(8);
    }
    let mut be = big_endian;
    let shb = d[..4] == SHB_TYPE_BYTES;
    if shb {
        if d.len() < 12 {
            return Framing::Need(12);
        }
        match shb_byte_order(d) {
            Some(b) => be = b,
            None => return Framing::Bad(BadLength::BadSectionHeader),
        }
    }
    let Some(len) = u32_at(d, 4, be) else {
        return Framing::Need(8);
    };
    if len < NG_MIN_BLOCK_LEN {
        return Framing::Bad(BadLength::TooShort(len));
    }
    if len % NG_BLOCK_ALIGN != 0 {
        return Framing::Bad(BadLength::Unaligned(len));
    }
    if shb && len < SHB_MIN_LEN {
        return Framing::Bad(BadLength::BadSectionHeader);
    }
    if len as usize > max_len {
        return Framing::Bad(BadLength::TooLong { len: len as u64, limit: max_len as u64 });
    }
    let n = len as usize;
    if d.len() < n {
        return Framing::Need(n);
    }
    match u32_at(d, n - 4, be) {
        Some(trail) if trail == len => Framing::Whole(n),
        Some(trail) => Framing::Bad(BadLength::MismatchedTrailer { lead: len, trail }),
        None => Framing::Need(n),
    }
}

/// Checks the legacy record at the start of `d`; `limit` is the largest sane captured length.
pub fn check_legacy(d: &[u8], big_endian: bool, limit: usize) -> Framing {
    let Some(caplen) = u32_at(d, 8, big_endian) else {
        return Framing::Need(LEGACY_RECORD_HEADER_LEN);
    };
    if caplen as usize > limit {
        return Framing::Bad(BadLength::TooLong { len: caplen as u64, limit: limit as u64 });
    }
    let n = LEGACY_RECORD_HEADER_LEN + caplen as usize;
    if d.len() < n {
        Framing::Need(n)
    } else {
        Framing::Whole(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(ty: u32, len: u32, body: usize, trail: u32) -> Vec<u8> {
        let mut v = ty.to_le_bytes().to_vec();
        v.extend_from_slice(&len.to_le_bytes());
        v.extend(vec![0u8; body]);
        v.extend_from_slice(&trail.to_le_bytes());
        v
    }

    #[test]
    fn each_bad_length_class_is_named() {
        assert_eq!(check_ng(&block(6, 8, 0, 8), false, 1 << 20), Framing::Bad(BadLength::TooShort(8)));
        assert_eq!(check_ng(&block(6, 18, 6, 18), false, 1 << 20), Framing::Bad(BadLength::Unaligned(18)));
        assert_eq!(
            check_ng(&block(6, 1 << 24, 4, 0), false, 1 << 20),
            Framing::Bad(BadLength::TooLong { len: 1 << 24, limit: 1 << 20 })
        );
        assert_eq!(
            check_ng(&block(6, 16, 4, 20), false, 1 << 20),
            Framing::Bad(BadLength::MismatchedTrailer { lead: 16, trail: 20 })
        );
        assert_eq!(check_ng(&block(6, 16, 4, 16), false, 1 << 20), Framing::Whole(16));
        assert_eq!(check_ng(&block(6, 32, 4, 16), false, 1 << 20), Framing::Need(32));
        // A Section Header Block with a bad byte-order magic, or shorter than 28 bytes.
        let mut shb = block(0x0A0D_0D0A, 28, 16, 28);
        assert_eq!(check_ng(&shb, true, 1 << 20), Framing::Bad(BadLength::BadSectionHeader));
        shb[8..12].copy_from_slice(&BYTE_ORDER_MAGIC.to_le_bytes());
        assert_eq!(check_ng(&shb, true, 1 << 20), Framing::Whole(28));
        let mut short = block(0x0A0D_0D0A, 24, 12, 24);
        short[8..12].copy_from_slice(&BYTE_ORDER_MAGIC.to_le_bytes());
        assert_eq!(check_ng(&short, false, 1 << 20), Framing::Bad(BadLength::BadSectionHeader));
    }

    #[test]
    fn legacy_record_lengths() {
        let mut rec = vec![0u8; 16];
        rec[8..12].copy_from_slice(&70_000u32.to_le_bytes());
        assert_eq!(check_legacy(&rec, false, 65_535), Framing::Bad(BadLength::TooLong { len: 70_000, limit: 65_535 }));
        assert_eq!(check_legacy(&rec, false, 262_144), Framing::Need(70_016));
        assert_eq!(check_legacy(&rec[..10], false, 262_144), Framing::Need(16));
    }
}
