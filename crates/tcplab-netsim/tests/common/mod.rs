//! Specs shared by the simulator's integration tests.
#![allow(dead_code)]

use tcplab_netsim::bench::dumbbell;
use tcplab_netsim::spec::SimSpec;
use tcplab_netsim::RunOutput;
use tcplab_record::ColumnData;
use tcplab_tcp::TcpConfig;
use tcplab_time::units::QueueLimit;
use tcplab_time::{Bandwidth, SimDuration};

/// One flow of `size` bytes over 1 Gb/s / 1 ms access links and a 10 Mb/s, 10 ms
/// bottleneck with a `buffer`-packet queue, 10 s; MSS 1448 and a 1 MB receive buffer on top
/// of `tcp`.
pub fn one_flow(tcp: TcpConfig, buffer: u64, size: u64) -> SimSpec {
    let tcp = TcpConfig { mss: 1448, recv_buffer: 1 << 20, ..tcp };
    let mut spec = dumbbell(
        1,
        Bandwidth::gbps(1),
        SimDuration::from_millis(1),
        Bandwidth::mbps(10),
        SimDuration::from_millis(10),
        QueueLimit::Packets(buffer),
        tcp,
        SimDuration::from_secs(10),
    );
    spec.flows[0].size = Some(size);
    spec
}

/// Values of a dictionary column of the events table, row by row (null rows as "").
pub fn strings(out: &RunOutput, col: &str) -> Vec<String> {
    let c = out.events.column(col).expect("column");
    let ColumnData::Dict { codes, values } = &c.data else { panic!("{col} is not a dictionary") };
    codes
        .iter()
        .enumerate()
        .map(|(i, &k)| if c.valid.as_ref().is_none_or(|v| v[i]) { values[k as usize].clone() } else { String::new() })
        .collect()
}
