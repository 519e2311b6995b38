//! Counters of everything the reader could not analyse (or analysed with a caveat).
//!
//! The reader never panics and never stops on a damaged packet: it counts it here and goes
//! on. Only a damaged *container* (a record or block length that cannot be trusted) ends
//! reading early, because the position of the next record is then unknown; the packets
//! before it are still delivered.
//!
//! Every byte of the file is accounted for: it is either part of a record or block the
//! reader used ([`crate::CaptureReader::bytes_used`]) or counted in exactly one of the
//! `*_bytes` fields here (`skipped_block_bytes`, `corrupt_block_bytes`, `truncated_bytes`,
//! `unread_bytes`), so for a file read to its end
//! `bytes_used + skipped_block_bytes + corrupt_block_bytes + truncated_bytes + unread_bytes`
//! is the file's (decompressed) length. Values that are not counts (the link types seen)
//! are sets, merged as sets across files, never summed.

use serde::Serialize;

/// Per-file anomaly counters. All counters count packets (frames) unless noted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Anomalies {
    /// The file ended inside a record or block (0 or 1).
    pub truncated_file: u64,
    /// Bytes of that last, incomplete record or block.
    pub truncated_bytes: u64,
    /// A record/block length field could not be trusted, so the next record's position is
    /// unknown and reading stopped there (0 or 1). Which check failed is counted in one of
    /// `record_too_long`, `block_length_too_short`, `block_length_unaligned`,
    /// `mismatched_block_trailer`, `bad_section_header`.
    pub corrupt_record_length: u64,
    /// A legacy record or pcapng block claims more bytes than any sane record
    /// (`max(snaplen, 262144)` for pcap, `ReaderConfig::max_record_len`).
    pub record_too_long: u64,
    /// A pcapng block length below the 12-byte minimum (type, length, length).
    pub block_length_too_short: u64,
    /// A pcapng block length that is not a multiple of 4 (pcapng §3.1: blocks are padded to
    /// 32 bits; Wireshark refuses such a file too).
    pub block_length_unaligned: u64,
    /// A pcapng block whose trailing length differs from its leading length.
    pub mismatched_block_trailer: u64,
    /// A Section Header Block after the first with a bad byte-order magic or length.
    pub bad_section_header: u64,
    /// Bytes not read because reading stopped at an untrusted length or a read error
    /// (from the start of the bad record to the end of the file).
    pub unread_bytes: u64,
    /// pcapng blocks whose outer length was sane but whose content did not parse (a
    /// truncated IDB or EPB body, a captured length beyond the block); skipped.
    pub corrupt_blocks: u64,
    /// Bytes of those blocks.
    pub corrupt_block_bytes: u64,
    /// pcapng blocks of a type this reader does not use (NRB, ISB, DSB, custom, unknown
    /// types); skipped. Informational.
    pub skipped_blocks: u64,
    /// Bytes of those blocks. Informational.
    pub skipped_block_bytes: u64,
    /// The legacy file header's snapshot length is 0 (treated as libpcap's maximum,
    /// 262144). Informational.
    pub zero_snaplen: u64,
    /// Packets on a link type this reader does not decode.
    pub unknown_link_type: u64,
    /// The unsupported link types seen (LINKTYPE_ values), ascending; a set, not a count.
    pub unknown_link_types: Vec<i32>,
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
            skipped_block_bytes: self.skipped_block_bytes,
            zero_snaplen: self.zero_snaplen,
            snaplen_truncated_payload: self.snaplen_truncated_payload,
            tso_segments: self.tso_segments,
            ..Anomalies::default()
        };
        *self == informational
    }

    /// Records an unsupported link type in the set (allocates only for a type not seen yet).
    pub fn saw_unknown_link_type(&mut self, lt: i32) {
        self.unknown_link_type += 1;
        if let Err(at) = self.unknown_link_types.binary_search(&lt) {
            self.unknown_link_types.insert(at, lt);
        }
    }

    /// Bytes the reader skipped, over all `*_bytes` counters.
    pub fn skipped_bytes(&self) -> u64 {
        self.skipped_block_bytes + self.corrupt_block_bytes + self.truncated_bytes + self.unread_bytes
    }
}
