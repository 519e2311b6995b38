//! tcplab-analyze: the classification half of the capture analyzer.
//!
//! For every retransmission in a capture: its cause (`rto`, `fast_retransmit`,
//! `sack_recovery`, `tlp`, `unknown`), whether it was needed or spurious with the evidence
//! that decided it, its detection and recovery durations (Rewaskar, Kaur & Smith, §III-V);
//! per connection a summary row; per run the Table IV totals and the Fig. 2 distribution.
//!
//! ```no_run
//! let a = tcplab_analyze::analyze_paths(&["trace.pcap"], &Default::default())?;
//! let retx = a.retransmissions_table();        // tcplab_record::Table
//! let summary = a.summary_json();
//! # Ok::<(), tcplab_analyze::AnalyzeError>(())
//! ```
//!
//! | where | what |
//! |---|---|
//! | [`analyzer`] | drives reader + tracker + per-connection state, vantage choice |
//! | [`model`] | [`SenderModel`]: the per-OS knobs of the replay |
//! | [`infer`] | sender OS inference: every candidate model replayed, scored, decided (`--model auto`) |
//! | [`sender_replay`] | per-direction sender state replayed from the capture |
//! | [`classify`] | cause rules |
//! | [`spurious`] | evidence rules |
//! | [`timing`] | detection / recovery durations, RTT-unit bins |
//! | [`rtt`] | handshake RTT, capture-point samples, the engine's RFC 6298 estimator |
//! | [`output`] | the `retransmissions` and `connections` tables |
//! | [`summary`] | `summary.json` |

pub mod analyzer;
pub mod classify;
pub mod infer;
pub mod model;
pub mod output;
pub mod rtt;
pub mod sender_replay;
pub mod spurious;
pub mod summary;
pub mod timing;
pub mod whatif;

use std::path::Path;

pub use analyzer::{AnalyzeConfig, ConnRow, FileAnalyzer, RetxRow, VantageChoice};
pub use tcplab_tcp::observe::Trigger;
pub use classify::Cause;
pub use model::{ConfigModel, ModelPicker, SenderModel};
pub use spurious::Evidence;
pub use summary::Summary;

/// Nothing in the input could be analysed (every file missing or not a capture).
#[derive(Debug, thiserror::Error)]
pub enum AnalyzeError {
    /// Display: the one file's reason, or "none of the N captures could be analysed";
    /// `errors` holds each file's one-line reason, in input order.
    #[error("{}", nothing_message(.errors))]
    NothingAnalysable { errors: Vec<String> },
}

fn nothing_message(errors: &[String]) -> String {
    match errors {
        [] => "no capture given".to_string(),
        [one] => one.clone(),
        many => format!("none of the {} captures could be analysed", many.len()),
    }
}

/// The result of an analysis.
#[derive(Debug)]
pub struct Analysis {
    pub captures: Vec<output::CaptureNames>,
    pub retransmissions: Vec<RetxRow>,
    pub connections: Vec<ConnRow>,
    pub summary: Summary,
}

impl Analysis {
    pub fn retransmissions_table(&self) -> tcplab_record::Table {
        output::retransmissions_table(&self.retransmissions, &self.captures)
    }
    pub fn connections_table(&self) -> tcplab_record::Table {
        let forced = (self.summary.model != "auto").then_some(self.summary.model.as_str());
        output::connections_table(&self.connections, &self.captures, forced)
    }
    pub fn summary_json(&self) -> String {
        serde_json::to_string_pretty(&self.summary).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }
}

fn vantage_name(v: VantageChoice) -> &'static str {
    match v {
        VantageChoice::Auto => "auto",
        VantageChoice::Sender => "sender",
        VantageChoice::Receiver => "receiver",
        VantageChoice::Middle => "middle",
    }
}

/// Analyses each capture in turn (one streaming pass each). Files that cannot be opened
/// are reported in the summary; only when none can be read is it an error.
pub fn analyze_paths<P: AsRef<Path>>(paths: &[P], cfg: &AnalyzeConfig) -> Result<Analysis, AnalyzeError> {
    let mut captures = Vec::new();
    let mut infos = Vec::new();
    let mut retransmissions = Vec::new();
    let mut connections = Vec::new();
    for (i, p) in paths.iter().enumerate() {
        let path = p.as_ref();
        // The path as given identifies the input (two `t.pcap` in different directories
        // differ); the file name is kept alongside. Both escaped as in every message.
        let shown = tcplab_pcap::show_path(path);
        let file = path.file_name().map_or_else(|| shown.clone(), |f| tcplab_pcap::show_path(Path::new(f)));
        captures.push(output::CaptureNames { path: shown.clone(), name: file.clone() });
        let mut info = summary::CaptureInfo {
            file,
            path: shown,
            format: None,
            compression: None,
            frames: 0,
            connections: 0,
            peak_concurrent_connections: 0,
            error: None,
            anomalies: Default::default(),
        };
        match tcplab_pcap::CaptureReader::open_with(path, cfg.reader) {
            Err(e) => {
                info.error = Some(e.to_string());
            }
            Ok(mut reader) => {
                let mut fa = FileAnalyzer::new(i as u32, cfg.clone());
                fa.run(&mut reader);
                let (r, c, stats, peak) = fa.finish();
                info.format = reader.format().map(|f| match f {
                    tcplab_pcap::CaptureFormat::Pcap { nanosecond: true, .. } => "pcap-ns".to_string(),
                    tcplab_pcap::CaptureFormat::Pcap { .. } => "pcap".to_string(),
                    tcplab_pcap::CaptureFormat::PcapNg => "pcapng".to_string(),
                });
                info.compression = reader.compression().map(str::to_string);
                info.frames = reader.frames();
                info.connections = stats.connections;
                info.peak_concurrent_connections = peak as u64;
                info.anomalies = reader.anomalies().clone();
                retransmissions.extend(r);
                connections.extend(c);
            }
        }
        infos.push(info);
    }
    if infos.iter().all(|c| c.error.is_some()) {
        let errors = infos.into_iter().filter_map(|c| c.error).collect();
        return Err(AnalyzeError::NothingAnalysable { errors });
    }
    let summary = summary::build(cfg.model_label(), vantage_name(cfg.vantage), infos, &retransmissions, &connections);
    Ok(Analysis { captures, retransmissions, connections, summary })
}
