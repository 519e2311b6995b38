//! IP layer (IPv4 and IPv6 with extension headers) via etherparse's lax slicer.
//!
//! The lax slicer is used because the strict one rejects packets cut by the snapshot length;
//! here the *declared* length matters, not the captured one. Ambiguities resolved:
//! - The L4 length is taken from the IP header (IPv4 total length, IPv6 payload length),
//!   minus the header and extension headers, never from the captured length.
//! - IPv4 total length 0 (Linux TSO captures: "reported as 0, presumed to be because of TCP
//!   segmentation offload", as Wireshark puts it) and IPv6 payload length 0 (jumbogram or
//!   GSO) fall back to the *wire* length of the frame (the record's original length minus the
//!   link header), and mark the packet as a super-segment.
//! - Non-first fragments carry no TCP header: skipped and counted. First fragments are
//!   decoded; their length covers this fragment only (counted separately).
//! - `ip_id`: the 16-bit IPv4 Identification, or the 32-bit IPv6 Fragment Identification
//!   when a fragment header is present, else `None`.

use std::net::IpAddr;

use etherparse::{IpNumber, Ipv6ExtensionSlice, LaxIpSlice};
use tcplab_tcp::Ecn;

use crate::linktype::IpVersionHint;

/// IPv6 fixed header length (RFC 8200 §3).
pub const IPV6_HEADER_LEN: usize = 40;
/// Smallest IPv4 header (RFC 791 IHL 5).
pub const IPV4_MIN_HEADER_LEN: usize = 20;

/// What the IP layer tells the TCP decoder.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct IpInfo<'a> {
    pub src: IpAddr,
    pub dst: IpAddr,
    pub ecn: Ecn,
    pub ttl_or_hlim: u8,
    pub ip_id: Option<u32>,
    /// Captured bytes of the L4 header and payload (may be shorter than `l4_len`).
    pub l4: &'a [u8],
    /// L4 length declared by the IP header (or derived from the wire length, see module docs).
    pub l4_len: u32,
    /// IP length field was 0 (TSO/GSO or jumbogram): `l4_len` comes from the wire length.
    pub zero_length_field: bool,
    /// Length of the IP packet (header + extensions + L4) as declared.
    pub l3_len: u32,
    /// This is the first fragment of a fragmented datagram.
    pub first_fragment: bool,
}

/// Why an IP packet yields no TCP segment.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum IpSkip {
    Truncated,
    BadHeader,
    NonFirstFragment,
    NonTcp,
}

fn ecn_from_bits(bits: u8) -> Ecn {
    // RFC 3168 §5: 00 Not-ECT, 01 ECT(1), 10 ECT(0), 11 CE.
    match bits & 0b11 {
        0b01 => Ecn::Ect1,
        0b10 => Ecn::Ect0,
        0b11 => Ecn::Ce,
        _ => Ecn::NotEct,
    }
}

/// Offset of `inner` within `outer` (both from the same buffer).
#[inline]
fn offset_in(outer: &[u8], inner: &[u8]) -> usize {
    (inner.as_ptr() as usize).saturating_sub(outer.as_ptr() as usize)
}

/// Decodes the IP header at the start of `data`. `wire_len` is the length of the IP packet
/// on the wire as far as the capture record knows (original length minus link header).
pub fn parse_ip(data: &[u8], hint: IpVersionHint, wire_len: u32) -> Result<IpInfo<'_>, IpSkip> {
    let Some(first) = data.first() else {
        return Err(IpSkip::Truncated);
    };
    let version = first >> 4;
    match (hint, version) {
        (IpVersionHint::V4, 4) | (IpVersionHint::V6, 6) | (IpVersionHint::Any, 4 | 6) => {}
        _ => return Err(IpSkip::BadHeader),
    }
    let slice = match LaxIpSlice::from_slice(data) {
        Ok((s, None)) => s,
        Ok((_, Some((etherparse::err::ipv6_exts::HeaderSliceError::Len(_), _)))) => {
            return Err(IpSkip::Truncated)
        }
        Ok((_, Some(_))) => return Err(IpSkip::BadHeader),
        Err(etherparse::err::ip::LaxHeaderSliceError::Len(_)) => return Err(IpSkip::Truncated),
        Err(etherparse::err::ip::LaxHeaderSliceError::Content(_)) => {
            return Err(IpSkip::BadHeader)
        }
    };
    let payload = slice.payload();
    let l4_off = offset_in(data, payload.payload) as u32;
    let mut first_fragment = false;
    let (src, dst, ecn, ttl, ip_id, declared) = match &slice {
        LaxIpSlice::Ipv4(v4) => {
            let h = v4.header();
            if payload.fragmented {
                if h.fragments_offset().value() != 0 {
                    return Err(IpSkip::NonFirstFragment);
                }
                first_fragment = true;
            }
            let total = h.total_len() as u32;
            let declared = if total == 0 {
                None
            } else if (total as usize) < h.slice().len() {
                return Err(IpSkip::BadHeader);
            } else {
                Some(total)
            };
            (
                IpAddr::from(h.source_addr()),
                IpAddr::from(h.destination_addr()),
                ecn_from_bits(h.ecn().value()),
                h.ttl(),
                Some(h.identification() as u32),
                declared,
            )
        }
        LaxIpSlice::Ipv6(v6) => {
            let h = v6.header();
            let mut ip_id = None;
            if !v6.extensions().is_empty() {
                for ext in v6.extensions().clone() {
                    if let Ipv6ExtensionSlice::Fragment(f) = ext {
                        ip_id = Some(f.identification());
                        // Decoded from the raw bytes: etherparse 0.16 reads the offset and
                        // M flag from the wrong bits (fixed in 0.21). RFC 8200 §4.5:
                        // bytes 2-3 = offset (13 bits) | res (2) | M (1).
                        let word = match f.slice().get(2..4) {
                            Some(&[a, b]) => u16::from_be_bytes([a, b]),
                            _ => return Err(IpSkip::Truncated),
                        };
                        let (offset, more) = (word >> 3, word & 1 == 1);
                        if offset != 0 {
                            return Err(IpSkip::NonFirstFragment);
                        }
                        if more {
                            first_fragment = true;
                        }
                    }
                }
            }
            let plen = h.payload_length() as u32;
            let declared = if plen == 0 { None } else { Some(IPV6_HEADER_LEN as u32 + plen) };
            (
                IpAddr::from(h.source_addr()),
                IpAddr::from(h.destination_addr()),
                ecn_from_bits(h.traffic_class()),
                h.hop_limit(),
                ip_id,
                declared,
            )
        }
    };
    if payload.ip_number != IpNumber::TCP {
        return Err(IpSkip::NonTcp);
    }
    let (l3_len, zero_length_field) = match declared {
        Some(n) => (n, false),
        None => (wire_len.max(data.len() as u32), true),
    };
    let Some(l4_len) = l3_len.checked_sub(l4_off) else {
        return Err(IpSkip::BadHeader);
    };
    Ok(IpInfo {
        src,
        dst,
        ecn,
        ttl_or_hlim: ttl,
        ip_id,
        l4: payload.payload,
        l4_len,
        zero_length_field,
        l3_len,
        first_fragment,
    })
}
