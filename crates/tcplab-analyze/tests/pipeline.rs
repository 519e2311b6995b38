//! The analyzer's result does not depend on whether the capture is read and tracked on a
//! second thread (`FileAnalyzer::run`, `tcplab_pcap::pipeline`): both tables are identical
//! with one thread and pipelined, for a forced model and for `--model auto`, on simulated
//! lossy captures of many connections from every vantage.
#![allow(clippy::unwrap_used)]

#[path = "common/corpus.rs"]
mod corpus;

use std::path::Path;

use tcplab_analyze::output::{connections_table, retransmissions_table, CaptureNames};
use tcplab_analyze::{AnalyzeConfig, FileAnalyzer};
use tcplab_pcap::{CaptureReader, Threading};

/// Both tables of one capture analysed with `threading`.
fn tables(path: &Path, cfg: &AnalyzeConfig, threading: Threading) -> (tcplab_record::Table, tcplab_record::Table, usize) {
    let mut reader = CaptureReader::open(path).unwrap();
    let mut fa = FileAnalyzer::new(0, cfg.clone());
    fa.run_with(&mut reader, threading);
    let (r, c, _, peak) = fa.finish();
    let names = [CaptureNames { path: "x.pcap".into(), name: "x.pcap".into() }];
    (retransmissions_table(&r, &names), connections_table(&c, &names, None), peak)
}

#[test]
fn one_thread_and_pipelined_give_the_same_tables() {
    let (mut retx, mut conns) = (0, 0);
    for name in ["short-flows-3%/sack+ts/tlp", "congestion-8-flows/sack+ts"] {
        let case = corpus::cases().into_iter().find(|c| c.name == name).unwrap();
        let dir = std::env::temp_dir().join(format!("tcplab-analyze-pipeline-{}-{}", std::process::id(), name.replace(['/', '%', '+'], "_")));
        std::fs::create_dir_all(&dir).unwrap();
        corpus::simulate(&case, &dir, 1);
        for (v, _) in corpus::VANTAGES {
            let pcap = dir.join(format!("{v}.pcap"));
            for cfg in [AnalyzeConfig::default(), AnalyzeConfig::auto()] {
                let one = tables(&pcap, &cfg, Threading::OneThread);
                let two = tables(&pcap, &cfg, Threading::Pipelined);
                retx += one.0.columns[0].data.len();
                conns += one.1.columns[0].data.len();
                assert_eq!(one, two, "{name} {v} {}", cfg.model_label());
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    // Something to compare: many retransmissions and connections.
    assert!(retx > 100 && conns > 40, "{retx} retransmission rows, {conns} connection rows");
}
