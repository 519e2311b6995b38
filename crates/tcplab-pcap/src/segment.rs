//! One captured TCP segment, and the decoder from a raw frame to it.
//!
//! Ambiguities resolved:
//! - `segment.len` is the TCP payload length from the IP header (see [`crate::ip`]), so a
//!   snaplen-truncated packet keeps its real length; `captured_payload` says how much of it
//!   is in the file.
//! - `tso` is set when the IP length field is 0 (offload captures) or, on Ethernet devices
//!   (Ethernet link type, or Linux cooked headers with ARPHRD_ETHER), the IP packet is longer
//!   than the configured MTU ([`crate::ReaderConfig::link_mtu`], default 1500; raise it for
//!   jumbo frames). Loopback and raw-IP links have no MTU bound here. The connection
//!   tracker additionally flags data segments longer than the peer's MSS, on any link.
//! - The NS flag (RFC 3540, historic) is ignored; `flags` is the 8-bit flags byte.

use std::net::IpAddr;

use etherparse::TcpHeaderSlice;
use serde::Serialize;
use tcplab_tcp::{Segment, SeqNum, TcpFlags};

use crate::anomalies::Anomalies;
use crate::ip::{parse_ip, IpSkip};
use crate::linktype::{has_ethernet_mtu, ip_offset, LinkKind, LinkSkip};
use crate::tcp_options::decode_tcp_options;

/// Fixed TCP header length (RFC 9293 §3.1).
pub const TCP_MIN_HEADER_LEN: usize = 20;
/// Offset of the flags byte in the TCP header.
const TCP_FLAGS_OFFSET: usize = 13;

/// A TCP segment read from a capture.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CapturedSegment {
    /// 1-based index of the frame in its file (every packet record counts, TCP or not).
    pub frame: u64,
    /// Capture timestamp, nanoseconds since the Unix epoch.
    pub ts_ns: u64,
    /// Interface: 0 for pcap; for pcapng the interface index counted over all sections.
    pub iface: u32,
    pub src: IpAddr,
    pub dst: IpAddr,
    pub sport: u16,
    pub dport: u16,
    /// seq/ack/flags/window/options/ecn as on the wire; `len` = payload length from the IP
    /// header.
    pub segment: Segment,
    pub ip_id: Option<u32>,
    pub ttl_or_hlim: u8,
    /// Payload bytes actually present in the capture (<= `segment.len`).
    pub captured_payload: u32,
    /// TSO/GSO super-segment (see module docs).
    pub tso: bool,
}

/// Where a frame came from: the context the decoder needs besides the bytes.
#[derive(Copy, Clone, Debug)]
pub struct FrameMeta {
    pub frame: u64,
    pub ts_ns: u64,
    pub iface: u32,
    pub link: LinkKind,
    /// Length of the frame on the wire (record original length).
    pub orig_len: u32,
    pub link_mtu: u32,
}

/// Counts of option decoding issues, aggregated (kept apart from [`Anomalies`] because it
/// is informational).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct OptionStats {
    pub unknown_options: u64,
    pub wscale_clamped: u64,
}

impl CapturedSegment {
    /// A placeholder (unspecified addresses, zero fields), for a slot that
    /// [`decode_frame_into`] overwrites.
    pub fn blank() -> CapturedSegment {
        CapturedSegment {
        frame: 0,
        ts_ns: 0,
        iface: 0,
        src: IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED),
        dst: IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED),
        sport: 0,
        dport: 0,
        segment: Segment::default(),
        ip_id: None,
        ttl_or_hlim: 0,
        captured_payload: 0,
        tso: false,
        }
    }
}

/// Decodes one captured frame. Returns `None` (and counts why in `anomalies`) when the frame
/// holds no decodable TCP segment. The reader uses [`decode_frame_into`], which writes the
/// segment into a slot it keeps instead of returning it by value (a `CapturedSegment` is
/// about 150 bytes; moving it out through three calls per packet was 10 % of the
/// analyzer's time on the SACK-heavy capture, docs/benchmarks.md).
pub fn decode_frame(
    meta: &FrameMeta,
    data: &[u8],
    anomalies: &mut Anomalies,
    opt_stats: &mut OptionStats,
) -> Option<CapturedSegment> {
    let mut out = CapturedSegment::blank();
    decode_frame_into(meta, data, anomalies, opt_stats, &mut out).then_some(out)
}

/// As [`decode_frame`], writing the segment into `out`; `false` (and `out` unspecified)
/// when the frame holds no decodable TCP segment.
#[inline]
pub fn decode_frame_into(
    meta: &FrameMeta,
    data: &[u8],
    anomalies: &mut Anomalies,
    opt_stats: &mut OptionStats,
    out: &mut CapturedSegment,
) -> bool {
    let (off, hint) = match ip_offset(meta.link, data) {
        Ok(x) => x,
        Err(LinkSkip::Truncated) => {
            anomalies.truncated_headers += 1;
            return false;
        }
        Err(LinkSkip::NonIp) => {
            anomalies.non_ip += 1;
            return false;
        }
        Err(LinkSkip::Unsupported(lt)) => {
            anomalies.saw_unknown_link_type(lt);
            return false;
        }
    };
    let l3 = data.get(off..).unwrap_or(&[]);
    let wire_l3 = meta.orig_len.saturating_sub(off as u32);
    let ip = match parse_ip(l3, hint, wire_l3) {
        Ok(ip) => ip,
        Err(IpSkip::Truncated) => {
            anomalies.truncated_headers += 1;
            return false;
        }
        Err(IpSkip::BadHeader) => {
            anomalies.bad_ip_header += 1;
            return false;
        }
        Err(IpSkip::NonFirstFragment) => {
            anomalies.ip_fragments += 1;
            return false;
        }
        Err(IpSkip::NonTcp) => {
            anomalies.non_tcp += 1;
            return false;
        }
    };
    if ip.first_fragment {
        anomalies.ip_first_fragments += 1;
    }
    let tcp = match TcpHeaderSlice::from_slice(ip.l4) {
        Ok(t) => t,
        Err(etherparse::err::tcp::HeaderSliceError::Len(_)) => {
            anomalies.truncated_headers += 1;
            return false;
        }
        Err(etherparse::err::tcp::HeaderSliceError::Content(_)) => {
            anomalies.bad_tcp_header += 1;
            return false;
        }
    };
    let hdr_len = tcp.slice().len();
    let Some(len) = ip.l4_len.checked_sub(hdr_len as u32) else {
        anomalies.bad_tcp_header += 1;
        return false;
    };
    let captured_payload = (ip.l4.len().saturating_sub(hdr_len) as u32).min(len);
    if captured_payload < len {
        anomalies.snaplen_truncated_payload += 1;
    }
    let opts = decode_tcp_options(tcp.options());
    if opts.malformed {
        anomalies.malformed_options += 1;
    }
    opt_stats.unknown_options += opts.unknown as u64;
    opt_stats.wscale_clamped += opts.wscale_clamped as u64;
    let tso = ip.zero_length_field
        || (ip.l3_len > meta.link_mtu && has_ethernet_mtu(meta.link, data));
    if tso {
        anomalies.tso_segments += 1;
    }
    let flags = TcpFlags(tcp.slice().get(TCP_FLAGS_OFFSET).copied().unwrap_or(0));
    *out = CapturedSegment {
        frame: meta.frame,
        ts_ns: meta.ts_ns,
        iface: meta.iface,
        src: ip.src,
        dst: ip.dst,
        sport: tcp.source_port(),
        dport: tcp.destination_port(),
        segment: Segment {
            seq: SeqNum(tcp.sequence_number()),
            ack: SeqNum(tcp.acknowledgment_number()),
            flags,
            window: tcp.window_size(),
            len,
            options: tcplab_tcp::TcpOptions {
                quick_start: crate::quickstart::tcp_response(tcp.options()),
                ..opts.options
            },
            ecn: ip.ecn,
            qs_request: crate::quickstart::ip_request(l3),
            ttl: ip.ttl_or_hlim,
        },
        ip_id: ip.ip_id,
        ttl_or_hlim: ip.ttl_or_hlim,
        captured_payload,
        tso,
    };
    true
}
