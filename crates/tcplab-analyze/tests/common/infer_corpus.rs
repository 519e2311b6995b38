//! The OS-inference corpus (issue 11 part 1): connections sent by each candidate profile
//! through losses that cause timeouts, captured at every sender's access link ("sender")
//! and at the bottleneck ("middle"), with the simulator's events as ground truth
//! (which flow retransmitted, and whether any of those retransmissions was a timeout).
//!
//! Needs `#[path = "common/corpus.rs"] mod corpus;` beside it (the simulation runner).
#![allow(dead_code, clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::path::Path;

use tcplab_analyze::{analyze_paths, AnalyzeConfig};
use tcplab_netsim::bench::dumbbell;
use tcplab_netsim::spec::{LossSpec, SimSpec};
use tcplab_time::units::QueueLimit;
use tcplab_tcp::{Profile, RecoveryAlgorithm, TcpConfig};
use tcplab_time::{Bandwidth, SimDuration};

use super::corpus::{self, Case};

/// The capture points scored (a subset of `corpus::VANTAGES`).
pub const INFER_VANTAGES: [&str; 2] = ["sender", "middle"];

/// Linux 2.4's default receive buffer, `net.ipv4.tcp_rmem[1]` (Linux 2.4
/// Documentation/networking/ip-sysctl.txt: "Default: 87380 bytes. This value results in
/// window of 65535 with default setting of tcp_adv_win_scale"). The corpus's `linux-2.4`
/// hosts use it instead of the common 1 MiB, so that their SYN's window scale is a Linux
/// 2.4's (p0f v3: 0-2) and the passive hint (`infer::hints`, which names today's Linux from
/// scale 3 up) sees them as a real Linux 2.4 host would be seen.
pub const LINUX_2_4_TCP_RMEM_DEFAULT: u64 = 87_380;

/// A profile's engine configuration with the corpus's common settings (SACK and timestamps
/// as given; the recovery algorithm follows SACK; 1 MiB buffers, Linux 2.4's default for
/// `linux-2.4`, [`LINUX_2_4_TCP_RMEM_DEFAULT`]).
pub fn profile_tcp(profile: &str, sack: bool, ts: bool) -> TcpConfig {
    let mut t = TcpConfig {
        mss: 1448,
        sack,
        timestamps: ts,
        recovery: if sack { RecoveryAlgorithm::Sack } else { RecoveryAlgorithm::NewReno },
        recv_buffer: 1 << 20,
        window_scale: true,
        trace: true,
        ..TcpConfig::default()
    };
    Profile::by_name(profile).unwrap().apply(&mut t);
    if profile == "linux-2.4" {
        t.recv_buffer = LINUX_2_4_TCP_RMEM_DEFAULT;
    }
    t
}

/// `n` flows of `segments` segments, one starting every `gap_ms`, through `loss` on the
/// bottleneck (10 Mb/s, 2·(2+20+2) ms RTT).
fn short_flows(t: TcpConfig, n: usize, segments: u64, gap_ms: u64, loss: LossSpec, secs: u64) -> SimSpec {
    let mut s = dumbbell(
        n,
        Bandwidth::bps(100_000_000),
        SimDuration::from_millis(2),
        Bandwidth::bps(10_000_000),
        SimDuration::from_millis(20),
        QueueLimit::Packets(100),
        t,
        SimDuration::from_secs(secs),
    );
    for (i, f) in s.flows.iter_mut().enumerate() {
        f.size = Some(segments * 1448);
        f.start = SimDuration::from_millis(i as u64 * gap_ms);
    }
    if let Some(l) = s.links.iter_mut().find(|l| l.name == "bottleneck") {
        l.loss_ab = loss;
    }
    s
}

/// The corpus: every candidate profile × (SACK+timestamps, neither) × two loss patterns.
/// `flows` per case (the test uses few, the example many).
pub fn cases(flows: usize) -> Vec<(String, Case)> {
    let mut v = Vec::new();
    for profile in tcplab_analyze::infer::DEFAULT_CANDIDATES {
        for (sack, ts, opt) in [(true, true, "sack+ts"), (false, false, "plain")] {
            let t = profile_tcp(profile, sack, ts);
            // 5 % random loss on 20-segment transfers: tails lost often, so timeouts.
            let spec = short_flows(t.clone(), flows, 20, 1500, LossSpec::Bernoulli { p: 0.05 }, 20 + 2 * flows as u64);
            let name: &'static str = Box::leak(format!("{profile}/{opt}/short-5%").into_boxed_str());
            v.push((profile.to_string(), Case { name, spec, tcp: t.clone() }));
            // Bursty loss on 60-segment transfers: fast retransmits and timeouts mixed.
            let bursty = LossSpec::GilbertElliott { p_gb: 0.02, p_bg: 0.3, loss_good: 0.0, loss_bad: 0.5 };
            let spec = short_flows(t.clone(), flows, 60, 2000, bursty, 20 + 3 * flows as u64);
            let name: &'static str = Box::leak(format!("{profile}/{opt}/bursty-60").into_boxed_str());
            v.push((profile.to_string(), Case { name, spec, tcp: t }));
        }
    }
    v
}

/// One connection's truth and answer.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub case: String,
    pub vantage: String,
    pub flow: u32,
    pub truth: String,
    pub model: String,
    pub candidates: String,
    /// `model_basis`: `replay`, `replay+hint`, `tied` or `none`.
    pub basis: String,
    pub timeouts: usize,
    pub retransmissions: usize,
    /// Every candidate's score (name, cost, unexplained, timer events fitted), candidate order.
    pub scores: Vec<(String, u64, u32, u32)>,
}

/// Confusion counts: (truth, answer) → connections.
#[derive(Clone, Debug, Default)]
pub struct Confusion {
    pub cells: BTreeMap<(String, String), usize>,
}

impl Confusion {
    pub fn add(&mut self, truth: &str, got: &str) {
        *self.cells.entry((truth.to_string(), got.to_string())).or_default() += 1;
    }
    pub fn total(&self) -> usize {
        self.cells.values().sum()
    }
    pub fn right(&self) -> usize {
        self.cells.iter().filter(|((t, g), _)| t == g).map(|(_, n)| n).sum()
    }
    pub fn unknown(&self) -> usize {
        self.cells.iter().filter(|((_, g), _)| g == "unknown").map(|(_, n)| n).sum()
    }
    pub fn wrong(&self) -> usize {
        self.total() - self.right() - self.unknown()
    }
    /// The matrix as a Markdown table (rows: truth; columns: answers seen).
    pub fn markdown(&self) -> String {
        let mut cols: Vec<&String> = self.cells.keys().map(|(_, g)| g).collect();
        cols.sort();
        cols.dedup();
        let mut rows: Vec<&String> = self.cells.keys().map(|(t, _)| t).collect();
        rows.sort();
        rows.dedup();
        let mut s = format!("| truth \\ inferred | {} |\n|---|{}\n", cols.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(" | "), "---|".repeat(cols.len()));
        for r in rows {
            let cells: Vec<String> = cols.iter().map(|c| self.cells.get(&(r.clone(), (*c).clone())).copied().unwrap_or(0).to_string()).collect();
            s += &format!("| {r} | {} |\n", cells.join(" | "));
        }
        s
    }
}

/// Simulates a case and infers every connection: at the sender (a capture on every
/// sender's access link `s{i}-left`, each holding that flow only) and at the bottleneck.
pub fn run_case(profile: &str, case: &Case, dir: &Path, seed: u64) -> Vec<Outcome> {
    let n = case.spec.flows.len();
    let mut pcap: Vec<(String, std::path::PathBuf)> = (0..n).map(|i| (format!("s{i}-left"), dir.join(format!("sender-{i}.pcap")))).collect();
    pcap.push(("bottleneck".to_string(), dir.join("middle.pcap")));
    let truth = corpus::simulate_with(case, pcap, seed);
    let mut out = Vec::new();
    for v in INFER_VANTAGES {
        let files: Vec<std::path::PathBuf> = if v == "sender" { (0..n).map(|i| dir.join(format!("sender-{i}.pcap"))).collect() } else { vec![dir.join("middle.pcap")] };
        let a = analyze_paths(&files, &AnalyzeConfig::auto()).unwrap();
        for c in &a.connections {
            let flow = u32::from(c.record.client.port().wrapping_sub(49152));
            let inf = tcplab_analyze::infer::infer_connection(c);
            out.push(Outcome {
                case: case.name.to_string(),
                vantage: v.to_string(),
                flow,
                truth: profile.to_string(),
                model: inf.map_or("unknown", |i| i.model_name()).to_string(),
                candidates: inf.map_or(String::new(), |i| i.candidates.join("|")),
                basis: inf.map_or("none", |i| i.basis.name()).to_string(),
                timeouts: truth.iter().filter(|t| t.flow == flow && t.cause == "rto").count(),
                retransmissions: truth.iter().filter(|t| t.flow == flow).count(),
                scores: inf.map_or(Vec::new(), |i| i.scores.iter().map(|(n, s)| (n.clone(), s.cost, s.unexplained, s.timers_fit)).collect()),
            });
        }
    }
    out
}
