//! The fixed-interval `timeseries` sampler (`simulation.timeseries_interval`, `sim/sampler.rs`)
//! samples a flow at every tick from its start until the first tick after its connection
//! ended: that last row is its final state, and no rows follow it.

use tcplab_netsim::scenario;
use tcplab_netsim::{run, RunOptions};
use tcplab_record::{ColumnData, Table};

fn u64s<'t>(t: &'t Table, name: &str) -> &'t [u64] {
    match &t.column(name).expect(name).data {
        ColumnData::U64(v) => v,
        _ => panic!("{name}: not u64"),
    }
}

fn u32s<'t>(t: &'t Table, name: &str) -> &'t [u32] {
    match &t.column(name).expect(name).data {
        ColumnData::U32(v) => v,
        _ => panic!("{name}: not u32"),
    }
}

#[test]
fn finished_flows_stop_being_sampled_after_their_final_state() {
    // The shipped dumbbell: 10 ms ticks over 15 s; a bulk flow that never ends, a 2 MB
    // transfer from 3 s, three 100 KB transfers from 6 s and one more (IW 10) from 9 s.
    let path = format!("{}/../../scenarios/dumbbell.toml", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("shipped scenario");
    let spec = scenario::load_str(&text, "dumbbell", &[]).expect("scenario");
    let iv = spec.timeseries_interval.expect("dumbbell sets an interval").as_nanos();
    let end = spec.duration.as_nanos();
    let out = run(&spec, &RunOptions { seed: 1, trace: true, pcap: vec![] }).expect("run");
    let ts = &out.timeseries;
    let (t, flow, inflight) = (u64s(ts, "t_ns"), u32s(ts, "flow"), u64s(ts, "bytes_in_flight"));
    let (et, ef) = (u64s(&out.events, "t_ns"), u32s(&out.events, "flow"));
    let mut ended = 0;
    for (f, fs) in out.summary.flows.iter().enumerate() {
        let rows: Vec<usize> = (0..t.len()).filter(|&i| flow[i] == f as u32).collect();
        let times: Vec<u64> = rows.iter().map(|&i| t[i]).collect();
        // One row per tick, with no gap, from the first tick at or after the start.
        assert!(times.windows(2).all(|w| w[1] == w[0] + iv), "flow {f}: a tick without a row");
        let last = *times.last().expect("every flow is sampled");
        let last_event = (0..et.len()).filter(|&i| ef[i] == f as u32).map(|i| et[i]).max().expect("events");
        if fs.fct_s.is_none() {
            // Still open at the end: sampled to the last tick.
            assert!(last + iv > end, "flow {f} is open: sampled until the end");
            continue;
        }
        ended += 1;
        // Ended: its last row is its final state (nothing in flight), taken at most one tick
        // after its last event plus the close (the FIN exchange, a few 44 ms RTTs), and long
        // before the run's end (the old sampler repeated the row to the end).
        assert_eq!(inflight[*rows.last().unwrap()], 0, "flow {f}: final state");
        assert!(last >= last_event.saturating_sub(iv), "flow {f}: last row {last} before its last event {last_event}");
        assert!(last < last_event + iv, "flow {f}: last row {last} more than a tick after its last event {last_event}");
        assert!(last + 1_000_000_000 < end, "flow {f}: sampled to the end");
    }
    assert_eq!(ended, 5, "the 2 MB and the four 100 KB transfers end");
}
