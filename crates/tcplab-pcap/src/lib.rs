//! tcplab-pcap: the reading and connection layers of the capture analyzer.
//!
//! Reads pcap and pcapng captures as a stream (never the whole file in memory), decodes the
//! TCP segments of every supported link layer into [`tcplab_tcp::Segment`]s, joins both
//! directions of each connection, and guesses where the capture was taken from the
//! handshake timing. Classification of retransmissions by replaying segments through the
//! engine builds on [`ConnTracker`]'s per-packet [`Observation`]s (connection id, direction,
//! relative sequence numbers, probe/keep-alive recognition).
//!
//! | where | what |
//! |---|---|
//! | [`reader`] | streaming reader, pcap-parser driving, damage handling |
//! | [`framing`] | record/block length checks before parsing |
//! | [`compression`] | gzip/zstd/xz captures |
//! | [`pcapng`] | sections, interfaces, if_tsresol, EPB/SPB/OPB |
//! | [`pipeline`] | reader + tracker on a second thread, batches handed to the analysis |
//! | [`linktype`] | link layers to the IP header |
//! | [`ip`] | IPv4/IPv6 (extension headers, fragments, lengths) |
//! | [`tcp_options`] | TCP option decoder |
//! | [`segment`] | [`CapturedSegment`] and the frame decoder |
//! | [`conn_tracker`] | connections, directions, port reuse, probes, eviction |
//! | [`vantage`] | sender/receiver/middle capture position |
//! | [`anomalies`] | counters of what could not be analysed |
//! | [`error`] | fatal open errors |
//!
//! Damaged input never panics: what can be analysed is, the rest is counted in
//! [`Anomalies`].

pub mod anomalies;
pub mod compression;
pub mod conn_tracker;
pub mod error;
pub mod framing;
pub mod ip;
pub mod linktype;
pub mod pcapng;
pub mod pipeline;
pub mod quickstart;
pub mod reader;
pub mod segment;
pub mod synth;
pub mod tcp_options;
pub mod vantage;

pub use anomalies::Anomalies;
pub use conn_tracker::{
    ConnRecord, ConnTracker, Dir, DirStats, EndReason, Negotiated, ObservedEnd, Observation, SegKind,
    TrackerConfig, TrackerStats,
};
pub use error::{show_path, ReadError};
pub use pipeline::{for_each_tracked, Threading, Tracked};
pub use reader::{CaptureFormat, CaptureReader, ReaderConfig};
pub use segment::CapturedSegment;
pub use tcp_options::{decode_tcp_options, DecodedOptions, OptionLayout};
pub use vantage::{classify_vantage, HandshakeTiming, Vantage, VantageEstimate, NEAR_ZERO_FRACTION};
