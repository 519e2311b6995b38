//! The TCP segment as it appears on the wire, minus payload bytes (tcplab models payload by
//! length only). The simulator wraps it in an IP packet; the capture analyzer fills it from
//! real headers.

use crate::seq::SeqNum;
use crate::startup::quickstart::{QsIpOption, QsResponse};

/// TCP header flags (RFC 9293 §3.1, RFC 3168 §6.1 for ECE/CWR).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct TcpFlags(pub u8);

impl TcpFlags {
    pub const FIN: TcpFlags = TcpFlags(0x01);
    pub const SYN: TcpFlags = TcpFlags(0x02);
    pub const RST: TcpFlags = TcpFlags(0x04);
    pub const PSH: TcpFlags = TcpFlags(0x08);
    pub const ACK: TcpFlags = TcpFlags(0x10);
    pub const URG: TcpFlags = TcpFlags(0x20);
    pub const ECE: TcpFlags = TcpFlags(0x40);
    pub const CWR: TcpFlags = TcpFlags(0x80);

    #[inline]
    pub const fn contains(self, other: TcpFlags) -> bool {
        self.0 & other.0 == other.0
    }
    #[inline]
    pub const fn union(self, other: TcpFlags) -> TcpFlags {
        TcpFlags(self.0 | other.0)
    }
    #[inline]
    pub fn insert(&mut self, other: TcpFlags) {
        self.0 |= other.0;
    }
}

impl std::ops::BitOr for TcpFlags {
    type Output = TcpFlags;
    fn bitor(self, rhs: TcpFlags) -> TcpFlags {
        self.union(rhs)
    }
}

/// ECN field of the IP header (RFC 3168 §5). Carried with the segment so the receiver can see
/// CE marks set by routers.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Ecn {
    #[default]
    NotEct,
    Ect1,
    Ect0,
    Ce,
}

/// A SACK block `[left, right)` (RFC 2018 §3).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct SackBlock {
    pub left: SeqNum,
    pub right: SeqNum,
}

/// At most four SACK blocks fit in the 40-byte option space (RFC 2018 §3); three when
/// timestamps are also present.
pub const MAX_SACK_BLOCKS: usize = 4;

/// Fixed-capacity list of SACK blocks (no heap allocation per segment).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct SackBlocks {
    blocks: [SackBlock; MAX_SACK_BLOCKS],
    len: u8,
}

impl SackBlocks {
    pub const fn new() -> Self {
        SackBlocks {
            blocks: [SackBlock { left: SeqNum(0), right: SeqNum(0) }; MAX_SACK_BLOCKS],
            len: 0,
        }
    }
    /// Appends a block; returns false (and drops it) if the list is full.
    pub fn push(&mut self, b: SackBlock) -> bool {
        if (self.len as usize) < MAX_SACK_BLOCKS {
            self.blocks[self.len as usize] = b;
            self.len += 1;
            true
        } else {
            false
        }
    }
    pub fn as_slice(&self) -> &[SackBlock] {
        &self.blocks[..self.len as usize]
    }
    pub fn len(&self) -> usize {
        self.len as usize
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn truncate(&mut self, n: usize) {
        self.len = self.len.min(n as u8);
    }
}

/// TCP options tcplab understands (RFC 9293 MSS, RFC 7323 window scale and timestamps,
/// RFC 2018 SACK-permitted and SACK, RFC 4782 §4.2 Quick-Start Response).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct TcpOptions {
    pub mss: Option<u16>,
    pub window_scale: Option<u8>,
    pub sack_permitted: bool,
    /// (TSval, TSecr)
    pub timestamps: Option<(u32, u32)>,
    pub sack: SackBlocks,
    /// RFC 4782 §4.2: Quick-Start Response (kind 27, 8 bytes).
    pub quick_start: Option<QsResponse>,
}

impl TcpOptions {
    /// Encoded length in bytes including padding to a 4-byte boundary (RFC 9293 §3.1), as a
    /// real stack lays them out (NOP padding as Linux does).
    pub fn encoded_len(&self) -> usize {
        let mut n = 0;
        if self.mss.is_some() {
            n += 4;
        }
        if self.window_scale.is_some() {
            n += 4; // NOP + 3
        }
        if self.sack_permitted && self.timestamps.is_none() {
            n += 4; // NOP NOP + 2
        }
        if self.timestamps.is_some() {
            n += 12; // (SACK-permitted or NOP NOP) + 10
        }
        if !self.sack.is_empty() {
            n += 4 + 8 * self.sack.len(); // NOP NOP + 2 + 8n
        }
        if self.quick_start.is_some() {
            n += 8; // RFC 4782 §4.2: 8 bytes, already 4-aligned
        }
        n
    }
}

/// A TCP segment. `len` is the payload length in bytes (SYN and FIN are not counted in it,
/// although they occupy sequence space).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Segment {
    pub seq: SeqNum,
    pub ack: SeqNum,
    pub flags: TcpFlags,
    /// Window field as sent (unscaled; the receiver applies the negotiated shift).
    pub window: u16,
    pub len: u32,
    pub options: TcpOptions,
    /// IP-level ECN codepoint the segment travels with.
    pub ecn: Ecn,
    /// IP-level Quick-Start option (RFC 4782 §3.1, IPv4 option 25) the segment travels with.
    pub qs_request: Option<QsIpOption>,
    /// IP TTL as received (set by the driver on delivery; 0 when unknown). Only the
    /// Quick-Start receiver reads it (`TTLDiff′`, thesis L3660–3663).
    pub ttl: u8,
}

impl Segment {
    /// Sequence space occupied: payload plus one for SYN and one for FIN.
    pub fn seq_len(&self) -> u32 {
        self.len
            + self.flags.contains(TcpFlags::SYN) as u32
            + self.flags.contains(TcpFlags::FIN) as u32
    }
    /// Sequence number just past this segment.
    pub fn end_seq(&self) -> SeqNum {
        self.seq + self.seq_len()
    }
    /// IP options length in bytes (the Quick-Start option is the only one modelled).
    pub fn ip_options_len(&self) -> u8 {
        if self.qs_request.is_some() {
            crate::startup::quickstart::wire::QS_OPTION_LEN
        } else {
            0
        }
    }
    /// TCP header length in bytes (20 + options).
    pub fn header_len(&self) -> usize {
        20 + self.options.encoded_len()
    }
}
