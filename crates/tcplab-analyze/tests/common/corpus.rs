//! The validation corpus: simulated captures whose ground truth is exact (issue 5 item 6).
//!
//! Each scenario is a dumbbell built with `tcplab_netsim::bench::dumbbell`, run once with
//! three captures: the first flow's sender access link (`s0-left`, vantage "sender"), the
//! bottleneck ("middle") and the first receiver's access link (`right-d0`, "receiver").
//! The simulator's `events` table gives, for every `segment_retransmitted`, the flow, the
//! relative sequence number, the cause and whether it was spurious (every byte reached the
//! receiver in an earlier copy). Analyzer rows are matched to it per flow by (relative seq,
//! occurrence index). Retransmissions dropped upstream of a capture point never reach it;
//! they are counted as "not visible", not as misses.
#![allow(dead_code, clippy::unwrap_used)]

use std::collections::HashMap;
use std::path::Path;

use tcplab_analyze::{analyze_paths, AnalyzeConfig, ConfigModel};
use tcplab_netsim::bench::dumbbell;
use tcplab_netsim::spec::{DelaySpikeSpec, LossSpec, ReorderSpec, SimSpec, SpikeDirection};
use tcplab_time::units::QueueLimit;
use tcplab_netsim::{run, RunOptions};
use tcplab_record::ColumnData;
use tcplab_tcp::{RecoveryAlgorithm, SenderModel, SpuriousConfig, SpuriousDetection, TcpConfig};
use tcplab_time::{Bandwidth, SimDuration};

pub const VANTAGES: [(&str, &str); 3] = [("sender", "s0-left"), ("middle", "bottleneck"), ("receiver", "right-d0")];

pub struct Case {
    pub name: &'static str,
    pub spec: SimSpec,
    pub tcp: TcpConfig,
}

fn tcp(sack: bool, ts: bool) -> TcpConfig {
    TcpConfig {
        mss: 1448,
        sack,
        timestamps: ts,
        recovery: if sack { RecoveryAlgorithm::Sack } else { RecoveryAlgorithm::NewReno },
        recv_buffer: 1 << 20,
        window_scale: true,
        trace: true,
        ..TcpConfig::default()
    }
}

fn base(n: usize, t: TcpConfig, secs: u64, buffer: u64) -> SimSpec {
    dumbbell(
        n,
        Bandwidth::bps(100_000_000),
        SimDuration::from_millis(2),
        Bandwidth::bps(10_000_000),
        SimDuration::from_millis(20),
        QueueLimit::Packets(buffer),
        t,
        SimDuration::from_secs(secs),
    )
}

fn with_loss(mut s: SimSpec, ab: LossSpec, ba: LossSpec) -> SimSpec {
    if let Some(l) = s.links.iter_mut().find(|l| l.name == "bottleneck") {
        l.loss_ab = ab;
        l.loss_ba = ba;
    }
    s
}

fn sized(mut s: SimSpec, bytes: u64) -> SimSpec {
    for f in s.flows.iter_mut() {
        f.size = Some(bytes);
    }
    s
}

/// Delay spikes on the bottleneck: 3 s holds at 5, 12, 19 s (longer than the RTO — the 1 s
/// minimum, backed off to 2 s — so the timer fires during the spike; everything held is
/// delivered in order at the spike's end, the retransmission after its original, so the
/// ground truth marks those timeouts spurious). `dir` picks data (a→b), ACKs (b→a) or both.
fn with_spikes(mut s: SimSpec, dir: SpikeDirection) -> SimSpec {
    if let Some(l) = s.links.iter_mut().find(|l| l.name == "bottleneck") {
        l.dynamics.delay_spikes = DelaySpikeSpec::Periodic {
            first: SimDuration::from_secs(5),
            period: SimDuration::from_secs(7),
            duration: SimDuration::from_secs(3),
            count: Some(3),
        };
        l.dynamics.spike_direction = dir;
    }
    s
}

/// Reordering on the bottleneck (`tcplab_netsim::sim::reorder`): `ab` acts on the data,
/// `ba` on the ACKs. The middle capture records packets as they start transmission on the
/// bottleneck, i.e. before the reordering; the receiver capture (and, for ACKs, the sender
/// capture) sees it.
fn with_reorder(mut s: SimSpec, ab: Option<ReorderSpec>, ba: Option<ReorderSpec>) -> SimSpec {
    if let Some(l) = s.links.iter_mut().find(|l| l.name == "bottleneck") {
        l.dynamics.reorder_ab = ab;
        l.dynamics.reorder_ba = ba;
    }
    s
}

/// 1 % of packets delivered 5 ms late: at 10 Mb/s about four full-sized data packets, so a
/// displaced data packet usually draws DupThresh (3) duplicate ACKs and a spurious fast
/// retransmission.
const REORDER_1PCT_5MS: ReorderSpec = ReorderSpec { p: 0.01, extra: SimDuration::from_millis(5), jitter: SimDuration::ZERO };

const BURSTY: LossSpec = LossSpec::GilbertElliott { p_gb: 0.005, p_bg: 0.3, loss_good: 0.0, loss_bad: 0.5 };

/// Every scenario, with its sender model (the engine configuration of the flows).
pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    let mut add = |name: &'static str, t: TcpConfig, f: &dyn Fn(TcpConfig) -> SimSpec| {
        v.push(Case { name, spec: f(t.clone()), tcp: t });
    };
    for (sack, ts, suffix) in [(true, true, "sack+ts"), (false, true, "newreno+ts"), (true, false, "sack"), (false, false, "newreno")] {
        let name: &'static str = Box::leak(format!("random-1%/{suffix}").into_boxed_str());
        add(name, tcp(sack, ts), &|t| with_loss(base(1, t, 30, 100), LossSpec::Bernoulli { p: 0.01 }, LossSpec::None));
        let name: &'static str = Box::leak(format!("bursty/{suffix}").into_boxed_str());
        add(name, tcp(sack, ts), &|t| with_loss(base(1, t, 30, 100), BURSTY, LossSpec::None));
        let name: &'static str = Box::leak(format!("ack-loss-20%+data-1%/{suffix}").into_boxed_str());
        add(name, tcp(sack, ts), &|t| {
            with_loss(base(1, t, 30, 100), LossSpec::Bernoulli { p: 0.01 }, LossSpec::Bernoulli { p: 0.2 })
        });
        let name: &'static str = Box::leak(format!("tail-loss/{suffix}").into_boxed_str());
        add(name, tcp(sack, ts), &|t| {
            // 40 segments; the last two originals and the first retransmission of the last
            // are dropped (DropNth counts data segments crossing the bottleneck).
            with_loss(sized(base(1, t, 30, 100), 40 * 1448), LossSpec::DropNth { flow: 0, nth: vec![39, 40, 42] }, LossSpec::None)
        });
        let name: &'static str = Box::leak(format!("queue-delay-rto200ms/{suffix}").into_boxed_str());
        add(name, TcpConfig { rto: tcplab_tcp::RtoConfig { min: SimDuration::from_millis(200), initial: SimDuration::from_millis(200), ..Default::default() }, ..tcp(sack, ts) }, &|t| {
            // 4 flows into a 1000-packet buffer: the queueing delay (up to 1.2 s) outgrows a
            // 200 ms minimum RTO and spurious timeouts follow.
            base(4, t, 30, 1000)
        });
        let name: &'static str = Box::leak(format!("sudden-queue-rto200ms/{suffix}").into_boxed_str());
        add(name, TcpConfig { rto: tcplab_tcp::RtoConfig { min: SimDuration::from_millis(200), initial: SimDuration::from_millis(200), ..Default::default() }, ..tcp(sack, ts) }, &|t| {
            // Flow 0 runs alone, then 8 flows start together into a 1000-packet buffer: the
            // queueing delay jumps faster than flow 0's RTO adapts (spurious timeouts).
            let mut s = base(9, t, 30, 1000);
            for f in s.flows.iter_mut().skip(1) {
                f.start = SimDuration::from_secs(5);
            }
            s
        });
        let name: &'static str = Box::leak(format!("congestion-8-flows/{suffix}").into_boxed_str());
        add(name, tcp(sack, ts), &|t| base(8, t, 30, 40));
        for (dir, dname) in [(SpikeDirection::AtoB, "data"), (SpikeDirection::BtoA, "ack"), (SpikeDirection::Both, "both")] {
            let name: &'static str = Box::leak(format!("spikes-3s-{dname}/{suffix}").into_boxed_str());
            add(name, tcp(sack, ts), &move |t| with_spikes(base(1, t, 30, 100), dir));
        }
        let name: &'static str = Box::leak(format!("reorder-1%-5ms/{suffix}").into_boxed_str());
        add(name, tcp(sack, ts), &|t| with_reorder(base(1, t, 30, 100), Some(REORDER_1PCT_5MS), None));
        let name: &'static str = Box::leak(format!("reorder+random-1%/{suffix}").into_boxed_str());
        add(name, tcp(sack, ts), &|t| {
            with_reorder(
                with_loss(base(1, t, 30, 100), LossSpec::Bernoulli { p: 0.01 }, LossSpec::None),
                Some(REORDER_1PCT_5MS),
                None,
            )
        });
        let name: &'static str = Box::leak(format!("reorder-ack-1%-5ms+random-1%/{suffix}").into_boxed_str());
        add(name, tcp(sack, ts), &|t| {
            // ACK reordering alone leaves a cumulative-ACK sender with nothing to retransmit;
            // with 1 % data loss it reorders the duplicate ACKs of each recovery.
            with_reorder(
                with_loss(base(1, t, 30, 100), LossSpec::Bernoulli { p: 0.01 }, LossSpec::None),
                None,
                Some(REORDER_1PCT_5MS),
            )
        });
    }
    // F-RTO senders (RFC 5682; SACK-enhanced when SACK is on): after a timeout they send
    // new data, not retransmissions, until the second ACK tells them whether it was spurious.
    for (sack, ts, suffix) in [(true, true, "sack+ts"), (false, true, "newreno+ts"), (true, false, "sack"), (false, false, "newreno")] {
        let det = if sack { SpuriousDetection::FrtoSack } else { SpuriousDetection::Frto };
        let t = TcpConfig { spurious: SpuriousConfig { detection: det, ..Default::default() }, ..tcp(sack, ts) };
        for (dir, dname) in [(SpikeDirection::AtoB, "data"), (SpikeDirection::BtoA, "ack"), (SpikeDirection::Both, "both")] {
            let name: &'static str = Box::leak(format!("spikes-3s-{dname}/{suffix}/frto").into_boxed_str());
            add(name, t.clone(), &move |t| with_spikes(base(1, t, 30, 100), dir));
        }
    }
    // An adaptive fast-retransmit threshold (003 §V-D: D = max(1, min(3, F − 2))) on a
    // window of 6 segments, where D drops below 3 (RFC sender only).
    for (sack, ts, suffix) in [(true, true, "sack+ts"), (false, false, "newreno")] {
        let t = TcpConfig { dupack_threshold: tcplab_tcp::DupAckThreshold::Adaptive, recv_buffer: 6 * 1448, ..tcp(sack, ts) };
        let name: &'static str = Box::leak(format!("random-2%-6-segment-window/{suffix}/adaptive-d").into_boxed_str());
        add(name, t, &|t| with_loss(base(1, t, 30, 100), LossSpec::Bernoulli { p: 0.02 }, LossSpec::None));
    }
    // RFC 8985 §7 Tail Loss Probe (`[tcp] tlp = true`; the analyzer model has TLP when the
    // engine configuration does): the tail-loss and random-loss specs again, so the probes'
    // ground-truth cause "tlp" is scored against the analyzer's `Cause::Tlp`.
    for (sack, ts, suffix) in [(true, true, "sack+ts"), (false, true, "newreno+ts"), (true, false, "sack"), (false, false, "newreno")] {
        let t = TcpConfig { tlp: true, ..tcp(sack, ts) };
        let name: &'static str = Box::leak(format!("tail-loss/{suffix}/tlp").into_boxed_str());
        add(name, t.clone(), &|t| {
            with_loss(sized(base(1, t, 30, 100), 40 * 1448), LossSpec::DropNth { flow: 0, nth: vec![39, 40, 42] }, LossSpec::None)
        });
        let name: &'static str = Box::leak(format!("random-1%/{suffix}/tlp").into_boxed_str());
        add(name, t.clone(), &|t| with_loss(base(1, t, 30, 100), LossSpec::Bernoulli { p: 0.01 }, LossSpec::None));
        // Many short transfers (20 flows of 30 segments, one starting every second) through 3 %
        // random loss: tails are lost often, so probes are many (the middle capture sees all).
        let name: &'static str = Box::leak(format!("short-flows-3%/{suffix}/tlp").into_boxed_str());
        add(name, t, &|t| {
            let mut s = sized(base(20, t, 30, 100), 30 * 1448);
            for (i, f) in s.flows.iter_mut().enumerate() {
                f.start = SimDuration::from_secs(i as u64);
            }
            with_loss(s, LossSpec::Bernoulli { p: 0.03 }, LossSpec::None)
        });
    }
    // The Linux 2.4 sender model (`SenderModel::Linux`) in every scenario above: the same
    // spec with `[tcp] sender = "linux"`; the analyzer keeps the engine configuration as its
    // model (it has no Linux-specific rules). Not the TLP cases: the Linux 2.4 sender has none.
    let linux: Vec<Case> = v
        .iter()
        .filter(|c| !c.name.ends_with("/frto") && !c.name.ends_with("/adaptive-d") && !c.name.ends_with("/tlp"))
        .map(|c| {
            let t = TcpConfig { sender: SenderModel::Linux, ..c.tcp.clone() };
            let mut spec = c.spec.clone();
            for f in spec.flows.iter_mut() {
                f.tcp = t.clone();
            }
            Case { name: Box::leak(format!("{}/linux", c.name).into_boxed_str()), spec, tcp: t }
        })
        .collect();
    v.extend(linux);
    v
}

/// `TCPLAB_VALIDATE_EVENTS=FLOW:T0-T1` (seconds) prints the simulator's events of one flow
/// in a time window to stderr, one row a line, to compare with the analyzer's view.
fn dump_events(ev: &tcplab_record::Table) {
    let Ok(spec) = std::env::var("TCPLAB_VALIDATE_EVENTS") else { return };
    let parse = || -> Option<(u32, u64, u64)> {
        let (f, w) = spec.split_once(':')?;
        let (a, b) = w.split_once('-')?;
        let sec = |x: &str| x.parse::<f64>().ok().map(|v| (v * 1e9) as u64);
        Some((f.parse().ok()?, sec(a)?, sec(b)?))
    };
    let Some((flow, t0, t1)) = parse() else {
        eprintln!("TCPLAB_VALIDATE_EVENTS: expected FLOW:T0-T1");
        return;
    };
    let cell = |c: &tcplab_record::Column, i: usize| -> String {
        if c.valid.as_ref().is_some_and(|v| !v[i]) {
            return "-".into();
        }
        match &c.data {
            ColumnData::U64(v) => v[i].to_string(),
            ColumnData::I64(v) => v[i].to_string(),
            ColumnData::U32(v) => v[i].to_string(),
            ColumnData::F64(v) => format!("{:.3}", v[i]),
            ColumnData::Bool(v) => v[i].to_string(),
            ColumnData::Dict { codes, values } => values[codes[i] as usize].clone(),
        }
    };
    let (Some(t), Some(f)) = (ev.column("t_ns"), ev.column("flow")) else { return };
    let (ColumnData::U64(tv), ColumnData::U32(fv)) = (&t.data, &f.data) else { return };
    for i in 0..tv.len() {
        if fv[i] == flow && tv[i] >= t0 && tv[i] <= t1 {
            let row: Vec<String> = ev.columns.iter().map(|c| format!("{}={}", c.name, cell(c, i))).collect();
            eprintln!("{}", row.join(" "));
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Truth {
    pub t_ns: u64,
    pub flow: u32,
    pub seq: u64,
    pub cause: String,
    pub spurious: Option<bool>,
}

/// Runs a case, writing the three captures into `dir`; returns the ground truth.
pub fn simulate(case: &Case, dir: &Path, seed: u64) -> Vec<Truth> {
    let pcap = VANTAGES.iter().map(|(v, link)| (link.to_string(), dir.join(format!("{v}.pcap")))).collect();
    simulate_with(case, pcap, seed)
}

/// Runs a case with captures on the given (link, file) pairs; returns the ground truth.
pub fn simulate_with(case: &Case, pcap: Vec<(String, std::path::PathBuf)>, seed: u64) -> Vec<Truth> {
    let out = run(&case.spec, &RunOptions { seed, trace: true, pcap }).unwrap();
    let ev = &out.events;
    dump_events(ev);
    let col = |n: &str| ev.column(n).unwrap();
    let (ColumnData::Dict { codes: kind, values: kinds }, ColumnData::U32(flow), ColumnData::U64(seq)) =
        (&col("kind").data, &col("flow").data, &col("seq").data)
    else {
        panic!("events table layout")
    };
    let ColumnData::Dict { codes: cause, values: causes } = &col("cause").data else { panic!() };
    let ColumnData::Bool(sp) = &col("spurious").data else { panic!() };
    let ColumnData::U64(t_ns) = &col("t_ns").data else { panic!() };
    let ColumnData::U32(len) = &col("len").data else { panic!() };
    let sp_ok = col("spurious").valid.clone().unwrap_or_else(|| vec![true; sp.len()]);
    let rk = kinds.iter().position(|k| k == "segment_retransmitted").map(|x| x as u32);
    (0..kind.len())
        // Data retransmissions only (SYN / SYN-ACK / bare FIN repeats are not classified).
        .filter(|&i| Some(kind[i]) == rk && len[i] > 0)
        .map(|i| Truth {
            t_ns: t_ns[i],
            flow: flow[i],
            seq: seq[i],
            cause: causes[cause[i] as usize].clone(),
            spurious: sp_ok[i].then_some(sp[i]),
        })
        .collect()
}

#[derive(Clone, Debug, Default)]
pub struct Score {
    pub truth: usize,
    pub found: usize,
    pub matched: usize,
    pub not_visible: usize,
    pub extra: usize,
    pub cause_ok: usize,
    pub cause_unknown: usize,
    pub sp_tp: usize,
    pub sp_fp: usize,
    pub sp_fn: usize,
    pub sp_truth: usize,
    pub sp_unknown: usize,
    pub needed_wrong: usize,
    /// Rows whose `trigger` is not one the `cause` can rest on (docs/outputs.md).
    pub trigger_mismatch: usize,
    pub vantage: String,
    pub confusion: HashMap<(String, String), usize>,
}

impl Score {
    pub fn cause_accuracy(&self) -> Option<f64> {
        (self.matched > 0).then(|| self.cause_ok as f64 / self.matched as f64)
    }
    pub fn precision(&self) -> Option<f64> {
        (self.sp_tp + self.sp_fp > 0).then(|| self.sp_tp as f64 / (self.sp_tp + self.sp_fp) as f64)
    }
    /// Recall among the retransmissions the analyzer decided (unknown left out).
    pub fn recall_decided(&self) -> Option<f64> {
        (self.sp_tp + self.sp_fn > 0).then(|| self.sp_tp as f64 / (self.sp_tp + self.sp_fn) as f64)
    }
    /// Recall counting an undecided truly-spurious retransmission as a miss.
    pub fn recall(&self) -> Option<f64> {
        (self.sp_truth > 0).then(|| self.sp_tp as f64 / self.sp_truth as f64)
    }
}

fn flow_of_port(p: u16) -> u32 {
    u32::from(p.wrapping_sub(49152))
}

/// Analyses one capture of a case and scores it against the truth.
pub fn score(case: &Case, capture: &Path, truth: &[Truth]) -> Score {
    // TCPLAB_VALIDATE_AUTO=1: `--model auto` (the inference picks each connection's model
    // among the OS profiles) instead of the engine configuration the case ran with.
    let cfg = if std::env::var_os("TCPLAB_VALIDATE_AUTO").is_some() {
        AnalyzeConfig::auto()
    } else {
        AnalyzeConfig { model: std::sync::Arc::new(ConfigModel::new("engine", case.tcp.clone())), ..Default::default() }
    };
    let a = analyze_paths(&[capture], &cfg).unwrap();
    // conn_id → flow (client port); only flows present in this capture are scored.
    let mut flow_of: HashMap<u64, u32> = HashMap::new();
    for c in &a.connections {
        flow_of.insert(c.record.conn_id, flow_of_port(c.record.client.port()));
    }
    let mut s = Score { vantage: a.summary.positions.keys().cloned().collect::<Vec<_>>().join(","), ..Score::default() };
    let present: std::collections::HashSet<u32> = flow_of.values().copied().collect();
    // (flow, seq) → occurrences in time order
    let mut t_occ: HashMap<(u32, u64), Vec<&Truth>> = HashMap::new();
    for t in truth.iter().filter(|t| present.contains(&t.flow)) {
        t_occ.entry((t.flow, t.seq)).or_default().push(t);
    }
    let mut a_occ: HashMap<(u32, u64), Vec<&tcplab_analyze::RetxRow>> = HashMap::new();
    for r in &a.retransmissions {
        use tcplab_analyze::{Cause, Trigger};
        let ok = match r.r.cause {
            Cause::Rto => r.r.trigger == Trigger::Rto,
            Cause::FastRetransmit => matches!(r.r.trigger, Trigger::DupThresh | Trigger::IsLost | Trigger::Rack | Trigger::RackTimer),
            Cause::SackRecovery => {
                matches!(r.r.trigger, Trigger::IsLost | Trigger::PartialAck | Trigger::NextSeg | Trigger::Rack | Trigger::RackTimer)
            }
            Cause::Tlp => r.r.trigger == Trigger::Tlp,
            Cause::Unknown => r.r.trigger == Trigger::Unknown,
        };
        s.trigger_mismatch += usize::from(!ok);
        if r.dir != tcplab_pcap::Dir::ClientToServer {
            continue;
        }
        let Some(&f) = flow_of.get(&r.conn_id) else { continue };
        a_occ.entry((f, u64::try_from(r.r.seq).unwrap_or(u64::MAX))).or_default().push(r);
    }
    s.truth = t_occ.values().map(|v| v.len()).sum();
    s.found = a_occ.values().map(|v| v.len()).sum();
    // Analyzer rows at a (flow, seq) the simulator never retransmitted are false
    // retransmissions too.
    for (k, av) in &a_occ {
        if !t_occ.contains_key(k) {
            s.extra += av.len();
            if std::env::var_os("TCPLAB_VALIDATE_DEBUG").is_some() {
                for r in av {
                    eprintln!("    extra: flow {} seq {} ts {} analyzer {}", k.0, k.1, r.r.ts_ns, r.r.cause.name());
                }
            }
        }
    }
    for (k, tv) in &t_occ {
        let av = a_occ.get(k).map(|v| v.as_slice()).unwrap_or(&[]);
        // Away from the sender, retransmissions lost upstream are invisible. Copies stay in
        // order on the path, so analyzer occurrences are matched to truth occurrences in
        // order, from the last: each takes the latest truth occurrence sent no later than it
        // was captured and earlier than the one matched after it.
        let mut used = vec![false; tv.len()];
        let mut pairs = Vec::new();
        let mut limit = tv.len();
        for r in av.iter().rev() {
            let pick = (0..limit).rev().find(|&j| tv[j].t_ns <= r.r.ts_ns);
            match pick {
                Some(j) => {
                    used[j] = true;
                    limit = j;
                    pairs.push((tv[j], *r));
                }
                None => s.extra += 1,
            }
        }
        s.not_visible += used.iter().filter(|u| !**u).count();
        if std::env::var_os("TCPLAB_VALIDATE_DEBUG").is_some() {
            for (j, t) in tv.iter().enumerate().filter(|(j, _)| !used[*j]) {
                eprintln!("    not seen: flow {} seq {} t {} {} {:?} (occurrence {j})", t.flow, t.seq, t.t_ns, t.cause, t.spurious);
            }
        }
        for (t, r) in pairs {
            s.matched += 1;
            // The engine's cause names are the analyzer's, "tlp" (RFC 8985 probe) included;
            // "probe" (a zero-window probe) carries no data and never gets here.
            let want = match t.cause.as_str() {
                "probe" => "tlp",
                c => c,
            };
            let got = r.r.cause.name();
            if got == want {
                s.cause_ok += 1;
            }
            if got == "unknown" {
                s.cause_unknown += 1;
            }
            *s.confusion.entry((want.to_string(), got.to_string())).or_insert(0) += 1;
            let truth_sp = t.spurious.unwrap_or(false);
            if std::env::var("TCPLAB_VALIDATE_DEBUG").is_ok_and(|v| v == "all" || got != want || r.r.spurious != Some(truth_sp)) {
                eprintln!(
                    "    flow {} seq {} t {} ts {}: truth {want}/{truth_sp} analyzer {got}/{:?} ({})",
                    t.flow, t.seq, t.t_ns, r.r.ts_ns, r.r.spurious, r.r.evidence.name()
                );
            }
            if truth_sp {
                s.sp_truth += 1;
            }
            match r.r.spurious {
                None => {
                    s.sp_unknown += 1;
                }
                Some(true) if truth_sp => s.sp_tp += 1,
                Some(true) => s.sp_fp += 1,
                Some(false) if truth_sp => s.sp_fn += 1,
                Some(false) => {}
            }
        }
    }
    s
}
