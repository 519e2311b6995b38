//! The measurements of docs/design.md "Today's Linux" (issue 10 part 2):
//! `cargo run --release -p tcplab-netsim --example linux_today [growth|hystart|lost-rtx|cost]`.
//!
//! - `growth`: one bulk flow over a 1 Gb/s, 100 ms RTT dumbbell (buffer one BDP): cwnd at each
//!   round trip after the handshake and the growth factor per round, for `profile = "linux"`
//!   and for the Linux 2.4 engine (`profile = "linux-2.4"`, `sender = "linux"`).
//! - `hystart`: one bulk flow over 100 Mb/s, RTT 40 ms with a deep buffer (4 BDP): when and at
//!   which window slow start ends, the largest srtt and RTO, drops, with HyStart, HyStart++
//!   and without.
//! - `lost-rtx`: a 10 Mb/s, 100 ms RTT path that drops data segment 60 and then its first
//!   retransmission: when segment 60 is finally repaired, and with how many RTOs.
//! - `cost`: the simulator's CPU time per bottleneck packet on the `10x1G` benchmark case with
//!   the default sender and with CUBIC + HyStart + byte counting + PRR + RACK + TLP (best of
//!   five alternating runs each).

use tcplab_netsim::bench::{bench_case, bench_tcp, dumbbell};
use tcplab_netsim::spec::LossSpec;
use tcplab_netsim::{run, RunOptions, RunOutput};
use tcplab_record::{ColumnData, Table};
use tcplab_tcp::{Profile, SenderModel, TcpConfig};
use tcplab_time::units::QueueLimit;
use tcplab_time::{Bandwidth, SimDuration};

const MSS: u16 = 1448;

fn u64s<'a>(t: &'a Table, name: &str) -> &'a [u64] {
    match t.column(name).map(|c| &c.data) {
        Some(ColumnData::U64(v)) => v,
        _ => &[],
    }
}

fn kinds(t: &Table) -> Vec<String> {
    match t.column("kind").map(|c| &c.data) {
        Some(ColumnData::Dict { codes, values }) => codes.iter().map(|&c| values[c as usize].clone()).collect(),
        _ => Vec::new(),
    }
}

fn profile_tcp(name: &str, sender: SenderModel) -> TcpConfig {
    let mut c = TcpConfig { mss: MSS, recv_buffer: 64 << 20, ..TcpConfig::default() };
    if let Some(p) = Profile::by_name(name) {
        p.apply(&mut c);
    }
    c.sender = sender;
    if sender == SenderModel::Linux {
        // The 2.4 engine has no TLP, RACK, PRR or CUBIC (the scenario loader rejects tlp).
        c.tlp = false;
    }
    c
}

fn run_one(bw: Bandwidth, one_way_bottleneck_ms: u64, tcp: TcpConfig, bytes: Option<u64>, loss: LossSpec, secs: u64) -> RunOutput {
    let access = SimDuration::from_millis(1);
    let rtt = SimDuration::from_millis(2 * (2 + one_way_bottleneck_ms));
    let buffer = QueueLimit::Packets(tcplab_netsim::bench::bdp_packets(bw, rtt, 1500));
    let mut spec = dumbbell(1, Bandwidth::gbps(10), access, bw, SimDuration::from_millis(one_way_bottleneck_ms), buffer, tcp, SimDuration::from_secs(secs));
    spec.flows[0].size = bytes;
    spec.links[0].loss_ab = loss;
    match run(&spec, &RunOptions { seed: 1, trace: true, pcap: vec![] }) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}

fn growth() {
    println!("slow-start growth: 1 Gb/s, RTT 100 ms, buffer 1 BDP, MSS {MSS}; cwnd in segments at the start of each round trip");
    for (label, tcp) in [
        ("profile linux", profile_tcp("linux", SenderModel::Rfc)),
        ("profile linux, abc off", TcpConfig { abc: false, ..profile_tcp("linux", SenderModel::Rfc) }),
        ("profile linux-2.4, sender linux", profile_tcp("linux-2.4", SenderModel::Linux)),
    ] {
        let out = run_one(Bandwidth::gbps(1), 48, tcp, None, LossSpec::None, 2);
        let ts = &out.timeseries;
        let (t, cwnd) = (u64s(ts, "t_ns"), u64s(ts, "cwnd"));
        // The first data segment leaves when the handshake completes.
        let start = data_sends(&out).first().map_or(0, |s| s.0);
        let at = |x: u64| t.iter().zip(cwnd).take_while(|(tt, _)| **tt <= x).last().map_or(0, |(_, c)| *c / u64::from(MSS));
        let rounds: Vec<u64> = (0..9).map(|k| at(start + k * 100_000_000 + 50_000_000)).collect();
        let ratios: Vec<String> = rounds.windows(2).map(|w| format!("{:.2}", w[1] as f64 / w[0].max(1) as f64)).collect();
        println!("  {label:34} cwnd {rounds:?}\n  {:34} growth per RTT {}", "", ratios.join(" "));
    }
}

fn hystart() {
    println!("slow-start exit: 100 Mb/s, RTT 40 ms, buffer 4 BDP (1334 packets), bulk flow, 3 s");
    for (label, tcp) in [
        ("profile linux (hystart = linux)", profile_tcp("linux", SenderModel::Rfc)),
        ("profile linux, hystart = hystart++", TcpConfig { hystart: tcplab_tcp::cc::hystart::HystartMode::HystartPlusPlus, ..profile_tcp("linux", SenderModel::Rfc) }),
        ("profile linux, hystart = off", TcpConfig { hystart: tcplab_tcp::cc::hystart::HystartMode::Off, ..profile_tcp("linux", SenderModel::Rfc) }),
    ] {
        let access = SimDuration::from_millis(1);
        let rtt = SimDuration::from_millis(40);
        let bw = Bandwidth::mbps(100);
        let buffer = QueueLimit::Packets(4 * tcplab_netsim::bench::bdp_packets(bw, rtt, 1500));
        let spec = dumbbell(1, Bandwidth::gbps(10), access, bw, SimDuration::from_millis(18), buffer, tcp, SimDuration::from_secs(3));
        let Ok(out) = run(&spec, &RunOptions { seed: 1, trace: true, pcap: vec![] }) else { return };
        let ts = &out.timeseries;
        let (t, cwnd, ssthresh, srtt, rto) = (u64s(ts, "t_ns"), u64s(ts, "cwnd"), u64s(ts, "ssthresh"), u64s(ts, "srtt_ns"), u64s(ts, "rto_ns"));
        let exit = ssthresh.iter().position(|&s| s != u64::MAX);
        let at = |x: u64| t.iter().zip(srtt.iter().zip(rto)).take_while(|(tt, _)| **tt <= x).last().map_or((0, 0), |(_, (s, r))| (*s, *r));
        let f = &out.summary.flows[0];
        let drops = out.summary.links[0].drops_ab;
        let ms = |v: u64| v as f64 / 1e6;
        let (s1, r1) = at(1_000_000_000);
        let (s2, r2) = at(2_000_000_000);
        match exit {
            Some(i) => println!(
                "  {label:36} slow start left at {:.3} s, cwnd {} segments (ssthresh {}), srtt {:.1} ms / RTO {:.0} ms then; at 1 s srtt {:.1} / RTO {:.0} ms; at 2 s {:.1} / {:.0} ms; drops {drops}, retransmissions {}",
                t[i] as f64 / 1e9,
                cwnd[i] / u64::from(MSS),
                ssthresh[i] / u64::from(MSS),
                ms(srtt[i]),
                ms(rto[i]),
                ms(s1),
                ms(r1),
                ms(s2),
                ms(r2),
                f.retransmissions
            ),
            None => println!("  {label:36} never left slow start"),
        }
    }
}

/// Data segments leaving the sender, in order: (time, relative seq, retransmission).
fn data_sends(out: &RunOutput) -> Vec<(u64, u64, bool)> {
    let ev = &out.events;
    let (t, seq) = (u64s(ev, "t_ns"), u64s(ev, "seq"));
    let len: Vec<u32> = match ev.column("len").map(|c| &c.data) {
        Some(ColumnData::U32(v)) => v.clone(),
        _ => Vec::new(),
    };
    let node: Vec<String> = match ev.column("node").map(|c| &c.data) {
        Some(ColumnData::Dict { codes, values }) => codes.iter().map(|&c| values[c as usize].clone()).collect(),
        _ => Vec::new(),
    };
    kinds(ev)
        .iter()
        .enumerate()
        .filter(|(i, k)| (k.as_str() == "segment_sent" || k.as_str() == "segment_retransmitted") && len[*i] > 0 && node[*i] == "s0")
        .map(|(i, k)| (t[i], seq[i], k.as_str() == "segment_retransmitted"))
        .collect()
}

fn lost_rtx() {
    const LOST: u64 = 60;
    println!("lost retransmission: 10 Mb/s, RTT 100 ms, 300 segments; data segment {LOST} and its first retransmission dropped at the bottleneck");
    for (label, tcp) in [
        ("profile linux", profile_tcp("linux", SenderModel::Rfc)),
        ("profile linux, rack off", TcpConfig { rack: false, ..profile_tcp("linux", SenderModel::Rfc) }),
        ("profile linux-2.4, sender linux", profile_tcp("linux-2.4", SenderModel::Linux)),
    ] {
        let bytes = Some(300 * u64::from(MSS));
        let first = run_one(Bandwidth::mbps(10), 48, tcp.clone(), bytes, LossSpec::DropNth { flow: 0, nth: vec![LOST] }, 60);
        let sends = data_sends(&first);
        let lost_seq = sends.get(LOST as usize - 1).map_or(0, |s| s.1);
        let Some(k) = sends.iter().position(|s| s.2 && s.1 == lost_seq) else {
            println!("  {label}: segment {LOST} was never retransmitted");
            continue;
        };
        let out = run_one(Bandwidth::mbps(10), 48, tcp, bytes, LossSpec::DropNth { flow: 0, nth: vec![LOST, k as u64 + 1] }, 60);
        let copies: Vec<(u64, u64, bool)> = data_sends(&out).into_iter().filter(|s| s.1 == lost_seq).collect();
        let times: Vec<String> = copies.iter().map(|c| format!("{:.3}s", c.0 as f64 / 1e9)).collect();
        let f = &out.summary.flows[0];
        println!(
            "  {label:34} copies of segment {LOST} at {}; lost retransmission repaired {:.0} ms after it was sent; timeouts {}; completion {:.3} s",
            times.join(", "),
            copies.get(2).zip(copies.get(1)).map_or(f64::NAN, |(b, a)| (b.0 - a.0) as f64 / 1e6),
            f.timeouts,
            f.fct_s.unwrap_or(f64::NAN),
        );
    }
}

/// CPU time of this thread (ns), where the kernel reports it.
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

fn cost() {
    let case = "10x1G";
    let base = bench_tcp();
    let cubic = TcpConfig { cc: tcplab_tcp::CongestionControl::Cubic, hystart: tcplab_tcp::cc::hystart::HystartMode::Linux, abc: true, ..bench_tcp() };
    let variants: Vec<(&str, TcpConfig)> = vec![
        ("default sender (Reno, RFC 6675 IsLost)", base.clone()),
        ("CUBIC + HyStart + byte counting", cubic.clone()),
        ("PRR", TcpConfig { prr: true, ..bench_tcp() }),
        ("RACK", TcpConfig { rack: true, ..bench_tcp() }),
        ("CUBIC + HyStart + ABC + PRR + RACK", TcpConfig { prr: true, rack: true, ..cubic.clone() }),
        ("TLP (Linux PTO)", TcpConfig { tlp: true, tlp_pto: tcplab_tcp::loss::tlp::PtoRule::Linux, ..bench_tcp() }),
        ("all of the above", TcpConfig { prr: true, rack: true, tlp: true, tlp_pto: tcplab_tcp::loss::tlp::PtoRule::Linux, ..cubic.clone() }),
        (
            "all + Linux receive window + cwnd undo",
            TcpConfig {
                prr: true,
                rack: true,
                tlp: true,
                tlp_pto: tcplab_tcp::loss::tlp::PtoRule::Linux,
                linux_rcv_window: true,
                cwnd_undo: true,
                ..cubic
            },
        ),
    ];
    // `cost N`: run variant N once (for `perf stat -e instructions:u`, which a loaded machine
    // does not disturb).
    if let Some(n) = std::env::args().nth(2).and_then(|a| a.parse::<usize>().ok()) {
        let Some((name, tcp)) = variants.get(n) else { return };
        let Some(mut spec) = bench_case(case) else { return };
        for f in spec.flows.iter_mut() {
            f.tcp = tcp.clone();
        }
        let Ok(out) = run(&spec, &RunOptions { seed: 1, trace: false, pcap: vec![] }) else { return };
        let bn = out.summary.links.iter().find(|l| l.name == "bottleneck").map_or(0, |l| l.packets_ab);
        println!("{name}: {bn} bottleneck packets, {} events", out.summary.events);
        return;
    }
    let mut best = vec![f64::MAX; variants.len()];
    let mut packets = vec![0u64; variants.len()];
    let mut events = vec![0u64; variants.len()];
    let mut best_ev = vec![f64::MAX; variants.len()];
    let mut rtx = vec![0u64; variants.len()];
    for _ in 0..5 {
        for (i, (_, tcp)) in variants.iter().enumerate() {
            let Some(mut spec) = bench_case(case) else { return };
            for f in spec.flows.iter_mut() {
                f.tcp = tcp.clone();
            }
            let c0 = cpu_ns();
            let t0 = std::time::Instant::now();
            let Ok(out) = run(&spec, &RunOptions { seed: 1, trace: false, pcap: vec![] }) else { return };
            let secs = c0.zip(cpu_ns()).map_or(t0.elapsed().as_secs_f64(), |(a, b)| (b - a) as f64 / 1e9);
            let bn = out.summary.links.iter().find(|l| l.name == "bottleneck").map_or(0, |l| l.packets_ab);
            packets[i] = bn;
            events[i] = out.summary.events;
            rtx[i] = out.summary.flows.iter().map(|f| f.retransmissions).sum();
            best[i] = best[i].min(secs / bn.max(1) as f64);
            best_ev[i] = best_ev[i].min(secs / out.summary.events.max(1) as f64);
        }
    }
    println!("per-packet cost, case {case} (best of 5, CPU time per bottleneck packet):");
    for (i, (name, _)) in variants.iter().enumerate() {
        println!(
            "  {name:40} {:6.1} ns/packet  x{:.3}  ({} packets, {} retransmissions; {} events, {:.1} ns/event x{:.3})",
            best[i] * 1e9,
            best[i] / best[0],
            packets[i],
            rtx[i],
            events[i],
            best_ev[i] * 1e9,
            best_ev[i] / best_ev[0]
        );
    }
}

fn main() {
    let what = std::env::args().nth(1).unwrap_or_else(|| "all".to_string());
    match what.as_str() {
        "growth" => growth(),
        "lost-rtx" => lost_rtx(),
        "cost" => cost(),
        "hystart" => hystart(),
        "all" => {
            growth();
            hystart();
            lost_rtx();
            cost();
        }
        other => {
            eprintln!("unknown measurement {other:?}: growth, hystart, lost-rtx, cost or all");
            std::process::exit(2);
        }
    }
}
