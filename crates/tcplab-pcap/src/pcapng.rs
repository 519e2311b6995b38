//! pcapng specifics: sections, the interface table, per-interface time resolution, and the
//! three packet block kinds (EPB, SPB, and the obsolete OPB).
//!
//! Format reference: draft-ietf-opsawg-pcapng (IETF), §4. Ambiguities resolved:
//! - Interface numbers restart in each section; `iface` in the output counts interfaces over
//!   the whole file (section base + local id) so that two sections never share a number.
//! - `if_tsresol` with the high bit set is a power of two (2^-n s); others are 10^-n s;
//!   absent means microseconds. An unrepresentable value (10^-n with n > 19, 2^-n with
//!   n > 63) is counted as a bad timestamp and microseconds are assumed. (pcap-parser's own
//!   helper rejects every power-of-two resolution, so the conversion is done here.)
//! - `if_tsoffset` (seconds) is added to every timestamp of the interface.
//! - Simple Packet Blocks carry no timestamp and no interface id: they belong to interface 0
//!   (of the section) and get the previous packet's timestamp; their captured length is the
//!   smallest of the original length, the block's data and the interface snaplen.
//! - The Obsolete Packet Block (type 2) is not parsed by pcap-parser; it arrives as an
//!   unknown block and is decoded here (interface id u16, drops u16, timestamp, caplen, len).
//! - All other block types (NRB, ISB, DSB, custom, unknown) are skipped and counted.

use pcap_parser::pcapng::Block;

use crate::anomalies::Anomalies;
use crate::linktype::LinkKind;

/// Obsolete Packet Block type (pcapng draft, Appendix A).
pub const OPB_BLOCK_TYPE: u32 = 0x0000_0002;
/// Default `if_tsresol`: 10^-6 s (pcapng draft §4.2).
pub const DEFAULT_TSRESOL: u8 = 6;
/// Bit of `if_tsresol` that selects a power-of-two resolution.
pub const TSRESOL_POW2_BIT: u8 = 0x80;
const OPB_HEADER_LEN: usize = 20;
const NANOS_PER_SEC: u128 = 1_000_000_000;

/// One interface of the file.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Interface {
    pub link: LinkKind,
    pub snaplen: u32,
    /// Timestamp units per second.
    pub units_per_sec: u64,
    /// `if_tsoffset`, seconds.
    pub offset_s: i64,
}

/// Units per second for an `if_tsresol` byte, or `None` if unrepresentable.
pub fn tsresol_units(tsresol: u8) -> Option<u64> {
    let n = (tsresol & !TSRESOL_POW2_BIT) as u32;
    if tsresol & TSRESOL_POW2_BIT != 0 {
        1u64.checked_shl(n).filter(|_| n <= 63)
    } else {
        10u64.checked_pow(n)
    }
}

/// Converts a raw pcapng timestamp to nanoseconds since the epoch (saturating).
pub fn ts_to_ns(ts: u64, units_per_sec: u64, offset_s: i64) -> u64 {
    let units = units_per_sec.max(1) as u128;
    let ns = (ts as u128) * NANOS_PER_SEC / units;
    let total = ns as i128 + (offset_s as i128) * NANOS_PER_SEC as i128;
    total.clamp(0, u64::MAX as i128) as u64
}

/// A packet block reduced to what the decoder needs.
#[derive(Copy, Clone, Debug)]
pub struct RawFrame<'a> {
    /// File-wide interface number.
    pub iface: u32,
    pub link: LinkKind,
    /// `None` for Simple Packet Blocks.
    pub ts_ns: Option<u64>,
    pub data: &'a [u8],
    pub orig_len: u32,
}

/// What a block turned out to be.
#[derive(Debug)]
pub enum NgEvent<'a> {
    Frame(RawFrame<'a>),
    /// A packet block that cannot be used (counted); still a frame for numbering.
    UnusableFrame,
    /// A packet block whose content is corrupt (counted by the reader with its bytes);
    /// still a frame for numbering.
    CorruptFrame,
    /// A block of a type this reader does not use (counted by the reader with its bytes).
    Skipped,
    /// Section header or interface description: used.
    Other,
}

/// Section and interface state while reading a pcapng file.
#[derive(Debug, Default)]
pub struct NgState {
    big_endian: bool,
    interfaces: Vec<Interface>,
    section_base: usize,
}

impl NgState {
    pub fn big_endian(&self) -> bool {
        self.big_endian
    }

    pub fn interfaces(&self) -> &[Interface] {
        &self.interfaces
    }

    fn local(&self, id: u32) -> Option<(u32, &Interface)> {
        let idx = self.section_base.checked_add(id as usize)?;
        self.interfaces.get(idx).map(|i| (idx as u32, i))
    }

    #[inline]
    fn u16_at(&self, d: &[u8], at: usize) -> Option<u16> {
        let b = d.get(at..at + 2)?;
        let a = [b[0], b[1]];
        Some(if self.big_endian { u16::from_be_bytes(a) } else { u16::from_le_bytes(a) })
    }

    #[inline]
    fn u32_at(&self, d: &[u8], at: usize) -> Option<u32> {
        let b = d.get(at..at + 4)?;
        let a = [b[0], b[1], b[2], b[3]];
        Some(if self.big_endian { u32::from_be_bytes(a) } else { u32::from_le_bytes(a) })
    }

    /// Reads a block's total length from raw bytes at the start of `data` (section byte
    /// order), for recovery after a parse error.
    pub fn raw_block_len(&self, data: &[u8]) -> Option<u32> {
        self.u32_at(data, 4)
    }

    /// Handles one block.
    pub fn on_block<'a>(&mut self, block: &Block<'a>, anomalies: &mut Anomalies) -> NgEvent<'a> {
        match block {
            Block::SectionHeader(shb) => {
                self.big_endian = shb.big_endian();
                self.section_base = self.interfaces.len();
                NgEvent::Other
            }
            Block::InterfaceDescription(idb) => {
                let units = match tsresol_units(idb.if_tsresol) {
                    Some(u) => u,
                    None => {
                        anomalies.bad_timestamps += 1;
                        tsresol_units(DEFAULT_TSRESOL).unwrap_or(1_000_000)
                    }
                };
                self.interfaces.push(Interface {
                    link: LinkKind::from_linktype(idb.linktype.0),
                    snaplen: idb.snaplen,
                    units_per_sec: units,
                    offset_s: idb.if_tsoffset,
                });
                NgEvent::Other
            }
            Block::EnhancedPacket(epb) => {
                let Some((iface, i)) = self.local(epb.if_id) else {
                    anomalies.unknown_interface += 1;
                    return NgEvent::UnusableFrame;
                };
                let ts = ((epb.ts_high as u64) << 32) | epb.ts_low as u64;
                NgEvent::Frame(RawFrame {
                    iface,
                    link: i.link,
                    ts_ns: Some(ts_to_ns(ts, i.units_per_sec, i.offset_s)),
                    data: epb.data.get(..epb.caplen as usize).unwrap_or(epb.data),
                    orig_len: epb.origlen,
                })
            }
            Block::SimplePacket(spb) => {
                let Some((iface, i)) = self.local(0) else {
                    anomalies.unknown_interface += 1;
                    return NgEvent::UnusableFrame;
                };
                let mut cap = spb.data.len().min(spb.origlen as usize);
                if i.snaplen > 0 {
                    cap = cap.min(i.snaplen as usize);
                }
                NgEvent::Frame(RawFrame {
                    iface,
                    link: i.link,
                    ts_ns: None,
                    data: spb.data.get(..cap).unwrap_or(&[]),
                    orig_len: spb.origlen,
                })
            }
            Block::Unknown(ub)
                if ub.block_type == OPB_BLOCK_TYPE
                    || ub.block_type == OPB_BLOCK_TYPE.swap_bytes() =>
            {
                self.on_obsolete_packet(ub.data, anomalies)
            }
            _ => NgEvent::Skipped,
        }
    }

    fn on_obsolete_packet<'a>(&self, d: &'a [u8], anomalies: &mut Anomalies) -> NgEvent<'a> {
        let fields = (|| {
            Some((
                self.u16_at(d, 0)?,
                self.u32_at(d, 4)?,
                self.u32_at(d, 8)?,
                self.u32_at(d, 12)?,
                self.u32_at(d, 16)?,
            ))
        })();
        let Some((if_id, hi, lo, caplen, len)) = fields else {
            return NgEvent::CorruptFrame;
        };
        let Some((iface, i)) = self.local(if_id as u32) else {
            anomalies.unknown_interface += 1;
            return NgEvent::UnusableFrame;
        };
        let body = d.get(OPB_HEADER_LEN..).unwrap_or(&[]);
        let cap = (caplen as usize).min(body.len());
        let ts = ((hi as u64) << 32) | lo as u64;
        NgEvent::Frame(RawFrame {
            iface,
            link: i.link,
            ts_ns: Some(ts_to_ns(ts, i.units_per_sec, i.offset_s)),
            data: body.get(..cap).unwrap_or(&[]),
            orig_len: len,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tsresol_decimal_and_binary() {
        assert_eq!(tsresol_units(6), Some(1_000_000));
        assert_eq!(tsresol_units(9), Some(1_000_000_000));
        assert_eq!(tsresol_units(0x80 | 10), Some(1024));
        assert_eq!(tsresol_units(20), None);
        assert_eq!(tsresol_units(0x80 | 64), None);
    }

    #[test]
    fn timestamps_convert_with_offset_and_saturate() {
        assert_eq!(ts_to_ns(1_500_000, 1_000_000, 0), 1_500_000_000);
        assert_eq!(ts_to_ns(3, 1, 10), 13_000_000_000);
        assert_eq!(ts_to_ns(1024, 1024, 0), 1_000_000_000);
        assert_eq!(ts_to_ns(0, 1_000_000, -5), 0);
        assert_eq!(ts_to_ns(u64::MAX, 1, 0), u64::MAX);
    }
}
