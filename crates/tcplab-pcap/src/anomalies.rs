//! Counters of everything the reader could not analyse (or analysed with a caveat).
//!
//! The reader never panics and never stops on a damaged packet: it counts it here and goes
//! on. Only a damaged *container* (a record or block length that cannot be trusted) ends
//! reading early, because the position of the next record is then unknown; the packets
//! before it are still delivered.

use serde::Serialize;

/// Per-file anomaly counters. All counters count packets (frames) unless noted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Anomalies {
    /// The file ended inside a record or block (0 or 1).
    pub truncated_file: u64,
    /// A record/block length field was implausible (larger than the configured maximum or
    /// not a valid block length); reading stopped there (0 or 1).
    pub corrupt_record_length: u64,
    /// pcapng blocks whose outer length was sane but whose content did not parse; skipped.
    pub corrupt_blocks: u64,
    /// pcapng blocks of a type this reader does not use (NRB, ISB, DSB, custom, ...); skipped.
    /// Informational.
    pub skipped_blocks: u64,
    /// Packets on a link type this reader does not decode.
    pub unknown_link_type: u64,
    /// The last unsupported link type seen (LINKTYPE_ value), if any.
    pub last_unknown_link_type: Option<i32>,
    /// pcapng packets that name an interface with no Interface Description Block.
    pub unknown_interface: u64,
    /// Link-layer frames that do not carry IPv4 or IPv6 (ARP, LLDP, 802.3 LLC, ...).
    pub non_ip: u64,
    /// IP packets that do not carry TCP.
    pub non_tcp: u64,
    /// Non-first IP fragments (no TCP header to decode).
    pub ip_fragments: u64,
    /// First fragments of fragmented TCP segments: decoded, but `len` covers this fragment
    /// only.
    pub ip_first_fragments: u64,
    /// IP headers that are invalid (bad version, IHL < 5, total length < header length,
    /// invalid extension-header chain).
    pub bad_ip_header: u64,
    /// TCP headers that are invalid (data offset < 5, or longer than the IP payload).
    pub bad_tcp_header: u64,
    /// TCP segments with at least one malformed option (bad length, wrong size for its kind).
    pub malformed_options: u64,
    /// Packets cut by the snapshot length inside the link, IP or TCP header.
    pub truncated_headers: u64,
    /// TCP segments whose payload was cut by the snapshot length (informational: the segment
    /// is delivered with `len` from the IP header).
    pub snaplen_truncated_payload: u64,
    /// Packets whose timestamp is earlier than the previous packet's.
    pub clock_backwards: u64,
    /// Timestamps with an out-of-range fraction (e.g. µs >= 10^6) or an invalid pcapng
    /// `if_tsresol` (then microseconds are assumed).
    pub bad_timestamps: u64,
    /// Packets with no timestamp (pcapng Simple Packet Blocks): given the previous
    /// packet's timestamp.
    pub packets_without_timestamp: u64,
    /// TSO/GSO super-segments (IP length 0 or larger than the link MTU); delivered with their
    /// full length and `tso = true`. Informational.
    pub tso_segments: u64,
    /// I/O errors while reading (reading stopped).
    pub read_errors: u64,
}

impl Anomalies {
    /// True when nothing was counted apart from the informational counters.
    pub fn is_clean(&self) -> bool {
        let informational = Anomalies {
            skipped_blocks: self.skipped_blocks,
            snaplen_truncated_payload: self.snaplen_truncated_payload,
            tso_segments: self.tso_segments,
            ..Anomalies::default()
        };
        *self == informational
    }
}
