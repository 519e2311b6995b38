//! `[tcp] handshake_ack` on a small dumbbell whose first flight is dropped at the bottleneck:
//! with `piggyback` (4.4BSD) the handshake ACK is lost with the data and the server
//! retransmits its SYN-ACK once its initial RTO expires; with `immediate` (Linux) the bare ACK
//! completes the server's handshake and no SYN-ACK is retransmitted.

mod common;

use tcplab_netsim::spec::{LossSpec, SimSpec};
use tcplab_netsim::{run, RunOptions, RunOutput};
use tcplab_record::ColumnData;
use tcplab_tcp::{HandshakeAck, InitialWindow, TcpConfig};

const SIZE: u64 = 20_000;
/// The first flight: an initial window of three segments.
const IW: u32 = 3;

fn first_flight_dropped(h: HandshakeAck) -> SimSpec {
    let tcp = TcpConfig { handshake_ack: h, initial_window: InitialWindow::Segments(IW), ..TcpConfig::default() };
    let mut spec = common::one_flow(tcp, 50, SIZE);
    // Data segments 1..=IW of flow 0 on the bottleneck's forward direction (the RTO
    // retransmission that follows is the (IW+1)-th and gets through).
    spec.links[0].loss_ab = LossSpec::DropNth { flow: 0, nth: (1..=u64::from(IW)).collect() };
    spec
}

fn traced(spec: &SimSpec) -> RunOutput {
    run(spec, &RunOptions { seed: 1, trace: true, pcap: vec![] }).expect("run")
}

/// `segment_retransmitted` rows without payload sent by `node` (SYN-ACKs from the server).
fn empty_retransmissions_from(out: &RunOutput, node: &str) -> usize {
    let kinds = common::strings(out, "kind");
    let nodes = common::strings(out, "node");
    let len = out.events.column("len").expect("len");
    let ColumnData::U32(lens) = &len.data else { panic!("len is not u32") };
    (0..kinds.len()).filter(|&i| kinds[i] == "segment_retransmitted" && nodes[i] == node && lens[i] == 0).count()
}

#[test]
fn a_dropped_first_flight_costs_one_syn_ack_retransmission_with_piggyback_and_none_with_immediate() {
    let mut counts = Vec::new();
    for h in [HandshakeAck::Piggyback, HandshakeAck::Immediate] {
        let out = traced(&first_flight_dropped(h));
        let f = &out.summary.flows[0];
        assert_eq!(f.bytes_delivered, SIZE, "{h:?}: {f:?}");
        assert_eq!(out.summary.links[0].drops_ab, u64::from(IW), "{h:?}");
        assert_eq!(f.timeouts, 1, "{h:?}: the client's data RTO either way");
        counts.push(empty_retransmissions_from(&out, &f.dst));
    }
    assert_eq!(counts, vec![1, 0], "server SYN-ACK retransmissions: piggyback, immediate");
}

#[test]
fn without_loss_immediate_adds_exactly_one_bare_ack_and_changes_nothing_else_the_client_sends() {
    let mut spec = first_flight_dropped(HandshakeAck::Piggyback);
    spec.links[0].loss_ab = LossSpec::None;
    let p = traced(&spec);
    for f in &mut spec.flows {
        f.tcp.handshake_ack = HandshakeAck::Immediate;
    }
    let i = traced(&spec);
    assert_eq!(i.summary.links[0].packets_ab, p.summary.links[0].packets_ab + 1);
    assert_eq!(i.summary.flows[0].data_segments_sent, p.summary.flows[0].data_segments_sent);
    assert_eq!(i.summary.flows[0].bytes_delivered, SIZE);
}
