//! End-to-end runs of the Linux 2.4 sender model (`[tcp] sender = "linux"`, seed 002 §2) on a
//! dumbbell: every byte arrives, losses are repaired, and the cwnd column stays in bytes.

use tcplab_netsim::bench::dumbbell;
use tcplab_netsim::spec::{LossSpec, SimSpec};
use tcplab_netsim::{run, RunOptions, RunOutput};
use tcplab_tcp::{SenderModel, TcpConfig};
use tcplab_time::units::QueueLimit;
use tcplab_time::{Bandwidth, SimDuration};

const SIZE: u64 = 1_000_000;

fn linux_flows(n: usize, queue: u64) -> SimSpec {
    let tcp = TcpConfig { mss: 1448, recv_buffer: 1 << 20, sender: SenderModel::Linux, ..TcpConfig::default() };
    let mut spec = dumbbell(
        n,
        Bandwidth::gbps(1),
        SimDuration::from_millis(1),
        Bandwidth::mbps(10),
        SimDuration::from_millis(10),
        QueueLimit::Packets(queue),
        tcp,
        SimDuration::from_secs(30),
    );
    for f in &mut spec.flows {
        f.size = Some(SIZE);
    }
    spec
}

fn go(spec: &SimSpec, seed: u64) -> RunOutput {
    run(spec, &RunOptions { seed, trace: true, pcap: vec![] }).expect("run")
}

#[test]
fn linux_sender_flows_over_a_dumbbell_with_tail_drop_deliver_every_byte() {
    // Small buffer: slow-start overshoot drops packets (the 3-B situation).
    let out = go(&linux_flows(2, 10), 1);
    for f in &out.summary.flows {
        assert_eq!(f.bytes_delivered, SIZE, "{f:?}");
        assert!(f.fct_s.is_some(), "{f:?}");
    }
    assert!(out.summary.flows.iter().map(|f| f.retransmissions).sum::<u64>() >= 1, "the buffer overflowed");
}

#[test]
fn linux_sender_repairs_random_loss_and_runs_are_deterministic() {
    let mut spec = linux_flows(1, 50);
    spec.links[0].loss_ab = LossSpec::Bernoulli { p: 0.02 };
    let a = go(&spec, 7);
    let b = go(&spec, 7);
    let f = &a.summary.flows[0];
    assert_eq!(f.bytes_delivered, SIZE, "{f:?}");
    assert!(f.retransmissions >= 1);
    assert_eq!(format!("{:?}", a.summary.flows), format!("{:?}", b.summary.flows));
}

#[test]
fn dropping_one_segment_gives_one_fast_retransmit_with_the_linux_sender() {
    let mut spec = linux_flows(1, 50);
    spec.links[0].loss_ab = LossSpec::DropNth { flow: 0, nth: vec![30] };
    let out = go(&spec, 1);
    let f = &out.summary.flows[0];
    assert_eq!(f.bytes_delivered, SIZE);
    assert_eq!(f.retransmissions_by_cause["fast_retransmit"], 1, "{f:?}");
    assert_eq!(f.timeouts, 0, "{f:?}");
}
