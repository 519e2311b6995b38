//! `SimError`: why a run could not start or finish. Each message is one line naming the
//! offending field, e.g. `flows[2].dst: no route from "s1" to "d9"`.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// A spec field is invalid (index out of range, probability outside [0, 1], ...).
    #[error("{field}: {msg}")]
    Invalid { field: String, msg: String },
    /// No route between a flow's endpoints.
    #[error("{field}: no route from \"{from}\" to \"{to}\"")]
    NoRoute { field: String, from: String, to: String },
    #[error("pcap: no link named \"{name}\"; links are: {known}")]
    UnknownPcapLink { name: String, known: String },
    #[error("pcap: cannot create \"{}\": {source}", path.display())]
    PcapCreate { path: PathBuf, source: std::io::Error },
    #[error("pcap: writing \"{}\" failed: {source}", path.display())]
    PcapWrite { path: PathBuf, source: std::io::Error },
    /// The caller could not take a streamed chunk of the trace (`run_control::RunHooks`).
    #[error("trace: {0}")]
    TraceChunk(String),
}

impl SimError {
    pub(crate) fn invalid(field: impl Into<String>, msg: impl Into<String>) -> SimError {
        SimError::Invalid { field: field.into(), msg: msg.into() }
    }
}
