//! TCP option decoder: raw option bytes to [`tcplab_tcp::TcpOptions`].
//!
//! Small, allocation-free and fuzzed (`fuzz/fuzz_targets/tcp_options.rs`). Rules
//! (RFC 9293 §3.1 and the option RFCs), with the ambiguities resolved:
//! - EOL (0) ends the list; NOP (1) is one byte; every other kind has a length byte that
//!   counts kind and length. A length < 2 or running past the option space is malformed and
//!   ends decoding (the position of the next option is unknown).
//! - A known kind with the wrong length (MSS != 4, WS != 3, SACK-permitted != 2,
//!   timestamps != 10, SACK not 2 + 8n with n >= 1) is malformed; it is skipped by its
//!   length and its value is not used.
//! - Unknown kinds (MPTCP, TFO, MD5, ...) are skipped by their length and counted.
//! - A window scale above 14 is used as 14 (RFC 7323 §2.3) and flagged.
//! - A repeated option: the last occurrence wins (as Linux `tcp_parse_options` does).
//! - SACK blocks beyond [`tcplab_tcp::segment::MAX_SACK_BLOCKS`] cannot fit in 40 bytes;
//!   the list keeps the first four if a longer (malformed) option claims more.

use tcplab_tcp::{SackBlock, SackBlocks, SeqNum, TcpOptions};

/// End of option list (RFC 9293).
pub const TCPOPT_EOL: u8 = 0;
/// No-operation (RFC 9293).
pub const TCPOPT_NOP: u8 = 1;
/// Maximum segment size (RFC 9293 §3.7.1), length 4.
pub const TCPOPT_MSS: u8 = 2;
/// Window scale (RFC 7323 §2), length 3.
pub const TCPOPT_WSCALE: u8 = 3;
/// SACK permitted (RFC 2018 §2), length 2.
pub const TCPOPT_SACK_PERMITTED: u8 = 4;
/// SACK (RFC 2018 §3), length 2 + 8n.
pub const TCPOPT_SACK: u8 = 5;
/// Timestamps (RFC 7323 §3), length 10.
pub const TCPOPT_TIMESTAMP: u8 = 8;

pub const TCPOLEN_MSS: usize = 4;
pub const TCPOLEN_WSCALE: usize = 3;
pub const TCPOLEN_SACK_PERMITTED: usize = 2;
pub const TCPOLEN_TIMESTAMP: usize = 10;
/// Bytes per SACK block (two 32-bit edges).
pub const TCPOLEN_SACK_PERBLOCK: usize = 8;
/// Largest shift allowed by RFC 7323 §2.3.
pub const MAX_WINDOW_SHIFT: u8 = 14;

/// Result of decoding one segment's options.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct DecodedOptions {
    pub options: TcpOptions,
    /// At least one option was malformed.
    pub malformed: bool,
    /// Number of options of kinds not decoded here (skipped by length).
    pub unknown: u8,
    /// A window scale above 14 was clamped.
    pub wscale_clamped: bool,
}

/// Option kinds a [`OptionLayout`] keeps (tcplab choice: the longest layouts in p0f v3's
/// `p0f.fp` have about nine entries with their NOPs, e.g. Solaris'
/// `nop,ws,nop,nop,ts,nop,nop,sok,mss`; 14 covers them with room, and keeps the struct at 16
/// bytes: it is copied with every decoded segment, speed4's hot path).
pub const MAX_LAYOUT_KINDS: usize = 14;

/// The kinds of a SYN's options in wire order, NOPs and EOL included — what p0f's
/// `olayout` field reads (p0f v3 README, "olayout": "comma-delimited layout and ordering
/// of TCP options"). Fixed size and `Copy`: the reader fills it for SYN segments only
/// (`segment.rs`), without allocating.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct OptionLayout {
    kinds: [u8; MAX_LAYOUT_KINDS],
    len: u8,
    /// More options than [`MAX_LAYOUT_KINDS`], or a malformed length ended the walk.
    pub truncated: bool,
}

impl OptionLayout {
    /// No options recorded (every segment but a SYN or SYN-ACK).
    pub const EMPTY: OptionLayout = OptionLayout { kinds: [0; MAX_LAYOUT_KINDS], len: 0, truncated: false };

    /// Walks the option bytes as [`decode_tcp_options`] does (EOL ends, NOP is one byte,
    /// every other kind skips by its length), recording each kind.
    pub fn from_bytes(bytes: &[u8]) -> OptionLayout {
        let mut out = OptionLayout::default();
        let mut i = 0usize;
        while let Some(&kind) = bytes.get(i) {
            if usize::from(out.len) == MAX_LAYOUT_KINDS {
                out.truncated = true;
                break;
            }
            out.kinds[usize::from(out.len)] = kind;
            out.len += 1;
            match kind {
                TCPOPT_EOL => break,
                TCPOPT_NOP => i += 1,
                _ => match bytes.get(i + 1).map(|&l| usize::from(l)) {
                    Some(len) if len >= 2 && i + len <= bytes.len() => i += len,
                    _ => {
                        out.truncated = true;
                        break;
                    }
                },
            }
        }
        out
    }

    /// The kinds in wire order.
    pub fn kinds(&self) -> &[u8] {
        &self.kinds[..usize::from(self.len)]
    }
}

#[inline]
fn be32(b: &[u8]) -> u32 {
    // Callers pass exactly 4 bytes (checked option lengths); fall back to 0 otherwise.
    match b {
        [a, b, c, d] => u32::from_be_bytes([*a, *b, *c, *d]),
        _ => 0,
    }
}

/// Decodes the option bytes of a TCP header (everything after the 20 fixed bytes).
pub fn decode_tcp_options(bytes: &[u8]) -> DecodedOptions {
    let mut out = DecodedOptions::default();
    let mut i = 0usize;
    while i < bytes.len() {
        let kind = bytes[i];
        match kind {
            TCPOPT_EOL => break,
            TCPOPT_NOP => {
                i += 1;
                continue;
            }
            _ => {}
        }
        let Some(&len_byte) = bytes.get(i + 1) else {
            out.malformed = true;
            break;
        };
        let len = len_byte as usize;
        if len < 2 || i + len > bytes.len() {
            out.malformed = true;
            break;
        }
        let body = &bytes[i + 2..i + len];
        match kind {
            TCPOPT_MSS => {
                if len == TCPOLEN_MSS {
                    out.options.mss = Some(u16::from_be_bytes([body[0], body[1]]));
                } else {
                    out.malformed = true;
                }
            }
            TCPOPT_WSCALE => {
                if len == TCPOLEN_WSCALE {
                    let shift = body[0];
                    if shift > MAX_WINDOW_SHIFT {
                        out.wscale_clamped = true;
                    }
                    out.options.window_scale = Some(shift.min(MAX_WINDOW_SHIFT));
                } else {
                    out.malformed = true;
                }
            }
            TCPOPT_SACK_PERMITTED => {
                if len == TCPOLEN_SACK_PERMITTED {
                    out.options.sack_permitted = true;
                } else {
                    out.malformed = true;
                }
            }
            TCPOPT_TIMESTAMP => {
                if len == TCPOLEN_TIMESTAMP {
                    out.options.timestamps = Some((be32(&body[0..4]), be32(&body[4..8])));
                } else {
                    out.malformed = true;
                }
            }
            TCPOPT_SACK => {
                let n = body.len() / TCPOLEN_SACK_PERBLOCK;
                if n == 0 || body.len() != n * TCPOLEN_SACK_PERBLOCK {
                    out.malformed = true;
                } else {
                    let mut blocks = SackBlocks::new();
                    for chunk in body.chunks_exact(TCPOLEN_SACK_PERBLOCK) {
                        let b = SackBlock {
                            left: SeqNum(be32(&chunk[0..4])),
                            right: SeqNum(be32(&chunk[4..8])),
                        };
                        if !blocks.push(b) {
                            out.malformed = true;
                            break;
                        }
                    }
                    out.options.sack = blocks;
                }
            }
            _ => out.unknown = out.unknown.saturating_add(1),
        }
        i += len;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A Linux SYN: MSS 1460, SACK-permitted, TS, NOP, WS 7.
    const LINUX_SYN: [u8; 20] = [
        2, 4, 0x05, 0xB4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7,
    ];

    #[test]
    fn linux_syn_options_decode_in_full() {
        let d = decode_tcp_options(&LINUX_SYN);
        assert_eq!(d.options.mss, Some(1460));
        assert!(d.options.sack_permitted);
        assert_eq!(d.options.timestamps, Some((1, 0)));
        assert_eq!(d.options.window_scale, Some(7));
        assert!(!d.malformed);
        assert_eq!(d.unknown, 0);
    }

    #[test]
    fn sack_blocks_are_decoded_in_order() {
        let opts = [
            1, 1, 5, 18, 0, 0, 0, 10, 0, 0, 0, 20, 0xFF, 0xFF, 0xFF, 0xF0, 0, 0, 0, 5,
        ];
        let d = decode_tcp_options(&opts);
        let s = d.options.sack.as_slice();
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].left.0, s[0].right.0), (10, 20));
        assert_eq!((s[1].left.0, s[1].right.0), (0xFFFF_FFF0, 5));
    }

    #[test]
    fn unknown_option_is_skipped_by_its_length() {
        // kind 30 (MPTCP) len 4, then MSS.
        let d = decode_tcp_options(&[30, 4, 0xAA, 0xBB, 2, 4, 0x02, 0x18]);
        assert_eq!(d.unknown, 1);
        assert_eq!(d.options.mss, Some(536));
        assert!(!d.malformed);
    }

    #[test]
    fn zero_length_option_is_malformed_and_stops() {
        let d = decode_tcp_options(&[30, 0, 2, 4, 0x05, 0xB4]);
        assert!(d.malformed);
        assert_eq!(d.options.mss, None);
    }

    #[test]
    fn wrong_size_known_option_is_skipped_not_used() {
        let d = decode_tcp_options(&[2, 3, 0x05, 3, 3, 20]);
        assert!(d.malformed);
        assert_eq!(d.options.mss, None);
        assert_eq!(d.options.window_scale, Some(14));
        assert!(d.wscale_clamped);
    }

    #[test]
    fn option_running_past_the_end_is_malformed() {
        let d = decode_tcp_options(&[8, 10, 0, 0, 0]);
        assert!(d.malformed);
        assert_eq!(d.options.timestamps, None);
    }

    #[test]
    fn eol_stops_decoding() {
        let d = decode_tcp_options(&[0, 2, 4, 0x05, 0xB4]);
        assert_eq!(d, DecodedOptions::default());
    }

    proptest! {
        #[test]
        fn any_bytes_never_panic_and_respect_limits(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let d = decode_tcp_options(&bytes);
            prop_assert!(d.options.sack.len() <= tcplab_tcp::segment::MAX_SACK_BLOCKS);
            if let Some(ws) = d.options.window_scale { prop_assert!(ws <= MAX_WINDOW_SHIFT); }
        }
    }

    /// p0f's olayout: a Linux SYN is mss,sok,ts,nop,ws in that order; a Windows XP one
    /// mss,nop,nop,sok; EOL ends the walk and a bad length marks it truncated.
    #[test]
    fn the_option_layout_keeps_wire_order() {
        assert_eq!(OptionLayout::from_bytes(&LINUX_SYN).kinds(), &[2, 4, 8, 1, 3]);
        let xp = [2, 4, 0x05, 0xB4, 1, 1, 4, 2];
        assert_eq!(OptionLayout::from_bytes(&xp).kinds(), &[2, 1, 1, 4]);
        let eol = [2, 4, 0x05, 0xB4, 0, 0, 0, 0];
        assert_eq!(OptionLayout::from_bytes(&eol).kinds(), &[2, 0]);
        let bad = OptionLayout::from_bytes(&[2, 9, 0, 0]);
        assert!(bad.truncated);
        assert_eq!(bad.kinds(), &[2]);
        assert!(OptionLayout::from_bytes(&[1; 30]).truncated);
    }
}
