//! `profile = "linux"` (today's Linux) through the simulator: slow start doubles per round trip
//! with delayed ACKs (byte counting), and a retransmission that is lost again is repaired by
//! RACK about one round trip later, without a retransmission timeout.

mod common;

use tcplab_netsim::bench::dumbbell;
use tcplab_netsim::spec::{LossSpec, SimSpec};
use tcplab_netsim::{run, scenario, RunOptions, RunOutput};
use tcplab_record::ColumnData;
use tcplab_tcp::{CongestionControl, Profile, TcpConfig};
use tcplab_time::units::QueueLimit;
use tcplab_time::{Bandwidth, SimDuration};

const MSS: u16 = 1448;

fn linux() -> TcpConfig {
    let mut c = TcpConfig { mss: MSS, recv_buffer: 64 << 20, ..TcpConfig::default() };
    Profile::LINUX.apply(&mut c);
    c
}

/// One flow over 10 Gb/s / 1 ms access links and a `bw`, 48 ms bottleneck (RTT 100 ms) with a
/// one-BDP buffer.
fn path(tcp: TcpConfig, bw: Bandwidth, segments: u64, secs: u64) -> SimSpec {
    let rtt = SimDuration::from_millis(100);
    let buffer = QueueLimit::Packets(tcplab_netsim::bench::bdp_packets(bw, rtt, 1500));
    let ms = SimDuration::from_millis;
    let mut spec = dumbbell(1, Bandwidth::gbps(10), ms(1), bw, ms(48), buffer, tcp, SimDuration::from_secs(secs));
    spec.flows[0].size = Some(segments * u64::from(MSS));
    spec
}

fn traced(spec: &SimSpec) -> RunOutput {
    run(spec, &RunOptions { seed: 1, trace: true, pcap: vec![] }).expect("run")
}

fn u64s<'a>(t: &'a tcplab_record::Table, name: &str) -> &'a [u64] {
    match t.column(name).map(|c| &c.data) {
        Some(ColumnData::U64(v)) => v,
        _ => panic!("{name} is not a u64 column"),
    }
}

/// Data segments leaving the sender `s0`, in order: (time, relative seq, retransmission).
fn data_sends(out: &RunOutput) -> Vec<(u64, u64, bool)> {
    let (t, seq) = (u64s(&out.events, "t_ns"), u64s(&out.events, "seq"));
    let Some(ColumnData::U32(len)) = out.events.column("len").map(|c| &c.data) else { panic!("len") };
    let (kind, node) = (common::strings(out, "kind"), common::strings(out, "node"));
    (0..kind.len())
        .filter(|&i| (kind[i] == "segment_sent" || kind[i] == "segment_retransmitted") && len[i] > 0 && node[i] == "s0")
        .map(|i| (t[i], seq[i], kind[i] == "segment_retransmitted"))
        .collect()
}

/// cwnd in segments half a round trip into each of the first `n` rounds after the first data
/// segment.
fn cwnd_per_round(out: &RunOutput, n: u64) -> Vec<u64> {
    let start = data_sends(out).first().map_or(0, |s| s.0);
    let (t, cwnd) = (u64s(&out.timeseries, "t_ns"), u64s(&out.timeseries, "cwnd"));
    (0..n)
        .map(|k| {
            let at = start + k * 100_000_000 + 50_000_000;
            t.iter().zip(cwnd).take_while(|(x, _)| **x <= at).last().map_or(0, |(_, c)| *c / u64::from(MSS))
        })
        .collect()
}

#[test]
fn the_linux_profile_loads_from_a_scenario_with_every_feature_on() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/dumbbell.toml");
    let text = std::fs::read_to_string(path).expect("scenarios/dumbbell.toml");
    let spec = scenario::load_str(&text, "dumbbell", &["tcp.profile=\"linux\"".to_string()]).expect("scenario");
    let c = &spec.flows[0].tcp;
    assert_eq!(c.cc, CongestionControl::Cubic);
    assert!(c.rack && c.prr && c.abc && c.tlp);
}

// RFC 3465 / Linux tcp_slow_start: every acknowledged segment counts, so the window doubles per
// round trip although the receiver acknowledges every second segment; with RFC 5681's one
// SMSS per ACK (abc = false) it grows by 1.5x.
#[test]
fn slow_start_doubles_per_round_trip_with_the_linux_profile() {
    let out = traced(&path(linux(), Bandwidth::gbps(1), 700, 1));
    assert_eq!(cwnd_per_round(&out, 6), vec![10, 20, 40, 80, 160, 320]);
    // The receiver's window open from the start (`linux_rcv_window = false`): Linux's growing
    // receive window grants a quick ACK for every segment that grows it (tcp_grow_window:
    // "icsk_ack.quick |= 1"), which would hide the every-second-segment ACKs this compares.
    let out = traced(&path(TcpConfig { abc: false, linux_rcv_window: false, ..linux() }, Bandwidth::gbps(1), 700, 1));
    // Round 2 still doubles: the receiver's quick ACKs acknowledge every segment at first.
    assert_eq!(cwnd_per_round(&out, 6), vec![10, 20, 33, 50, 75, 112]);
}

/// Drops data segment `nth` and its first retransmission; returns the run and the send times
/// of the segment's copies.
fn lost_retransmission(tcp: TcpConfig, nth: u64) -> (RunOutput, Vec<u64>) {
    let mut spec = path(tcp, Bandwidth::mbps(10), 150, 30);
    spec.links[0].loss_ab = LossSpec::DropNth { flow: 0, nth: vec![nth] };
    let first = traced(&spec);
    let sends = data_sends(&first);
    let seq = sends[nth as usize - 1].1;
    let k = sends.iter().position(|s| s.2 && s.1 == seq).expect("retransmitted") as u64 + 1;
    spec.links[0].loss_ab = LossSpec::DropNth { flow: 0, nth: vec![nth, k] };
    let out = traced(&spec);
    let copies = data_sends(&out).into_iter().filter(|s| s.1 == seq).map(|s| s.0).collect();
    (out, copies)
}

// RFC 8985 §2: RACK applies to retransmissions too — once data sent after the lost
// retransmission is SACKed and RACK.rtt has passed, it is lost again and resent (about one
// RTT, 100 ms plus the queue); without RACK only the retransmission timer repairs it.
#[test]
fn a_lost_retransmission_is_repaired_about_one_rtt_later_by_rack_not_by_an_rto() {
    let (out, copies) = lost_retransmission(linux(), 40);
    assert_eq!(copies.len(), 3);
    let repair_ms = (copies[2] - copies[1]) / 1_000_000;
    assert!((100..200).contains(&repair_ms), "repaired {repair_ms} ms after the lost retransmission");
    assert_eq!(out.summary.flows[0].timeouts, 0);
    let (out, copies) = lost_retransmission(TcpConfig { rack: false, ..linux() }, 40);
    assert_eq!(copies.len(), 3);
    assert!((copies[2] - copies[1]) / 1_000_000 >= 200, "{copies:?}");
    assert!(out.summary.flows[0].timeouts >= 1);
}
