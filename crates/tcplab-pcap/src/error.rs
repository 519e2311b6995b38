//! Fatal reader errors: the file cannot be opened, or it is not a capture at all.
//!
//! Everything else (damaged records, truncation, unknown link types, ...) is *not* an error:
//! it is counted in [`crate::Anomalies`] and reading goes on with what can be analysed.
//! Each error renders as one line that names the file.

/// A fatal error while opening a capture.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be opened or read.
    #[error("{path}: cannot read: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// The bytes are not a pcap or pcapng capture (or too short to tell).
    #[error("{path}: not a pcap or pcapng capture ({reason})")]
    NotACapture { path: String, reason: &'static str },
}
