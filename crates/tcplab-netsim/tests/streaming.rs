//! Long runs (issue 14 part 4): the trace handed over in chunks (`events`, `timeseries` and
//! the RED `queues`) is the trace of an unchunked run, row for row, and names the workload of
//! every connection it shows; hooks can stop a run, whose results then cover what ran, and
//! checks between polls stop it too; the trace estimate before a run is of the right size.

use tcplab_netsim::scenario;
use tcplab_netsim::spec::SimSpec;
use tcplab_netsim::{run, run_with, Control, RunHooks, RunOptions, RunOutput, SimError, TraceChunk};
use tcplab_record::{ColumnData, Table};
use tcplab_time::SimTime;

fn shipped(name: &str, overrides: &[&str]) -> SimSpec {
    let path = format!("{}/../../scenarios/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("shipped scenario");
    let ov: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    scenario::load_str(&text, name, &ov).expect("scenario")
}

fn opts() -> RunOptions {
    RunOptions { seed: 1, trace: true, pcap: vec![] }
}

/// Appends `b`'s rows to `a` (same columns; dictionary columns must have the same values or
/// `b`'s extend `a`'s, as the `reason` dictionary does).
fn append(a: &mut Table, b: Table) {
    assert_eq!(a.columns.len(), b.columns.len());
    for (x, y) in a.columns.iter_mut().zip(b.columns) {
        assert_eq!(x.name, y.name);
        match (&mut x.valid, y.valid) {
            (Some(v), Some(w)) => v.extend(w),
            (None, None) => {}
            _ => panic!("{}: nullability differs between chunks", x.name),
        }
        match (&mut x.data, y.data) {
            (ColumnData::U64(v), ColumnData::U64(w)) => v.extend(w),
            (ColumnData::U32(v), ColumnData::U32(w)) => v.extend(w),
            (ColumnData::I64(v), ColumnData::I64(w)) => v.extend(w),
            (ColumnData::F64(v), ColumnData::F64(w)) => v.extend(w),
            (ColumnData::Bool(v), ColumnData::Bool(w)) => v.extend(w),
            (ColumnData::Dict { codes, values }, ColumnData::Dict { codes: c, values: vs }) => {
                let (short, long) = if values.len() <= vs.len() { (&values[..], &vs[..]) } else { (&vs[..], &values[..]) };
                assert_eq!(short, &long[..short.len()], "{}: dictionaries differ", x.name);
                codes.extend(c);
                *values = long.to_vec();
            }
            _ => panic!("{}: types differ between chunks", x.name),
        }
    }
}

/// Collects the chunks; stops at poll number `stop_at` (or check number `stop_at_check`) if
/// given.
struct Collect {
    chunk_rows: usize,
    chunks: usize,
    events: Option<Table>,
    timeseries: Option<Table>,
    queues: Option<Table>,
    /// `TraceChunk::new_flows` of every chunk, concatenated.
    workloads: Vec<Option<String>>,
    polls: u64,
    stop_at: Option<u64>,
    poll_every: u64,
    /// Checks between polls: every `check_every` events (`poll_every` = none).
    check_every: u64,
    checks: u64,
    stop_at_check: Option<u64>,
    /// Rows of the largest chunk (all tables).
    max_chunk: usize,
}

impl Collect {
    fn new(chunk_rows: usize) -> Self {
        Collect {
            chunk_rows,
            chunks: 0,
            events: None,
            timeseries: None,
            queues: None,
            workloads: Vec::new(),
            polls: 0,
            stop_at: None,
            poll_every: POLL,
            check_every: POLL,
            checks: 0,
            stop_at_check: None,
            max_chunk: 0,
        }
    }
    fn add(&mut self, ev: Table, ts: Table, q: Option<Table>) {
        for (held, t) in [(&mut self.events, Some(ev)), (&mut self.timeseries, Some(ts)), (&mut self.queues, q)] {
            match (held.as_mut(), t) {
                (Some(h), Some(t)) => append(h, t),
                (None, t) => *held = t,
                (Some(_), None) => panic!("a chunk without a table an earlier chunk had"),
            }
        }
    }
}

/// Polls in these tests: every 128 events, so that short runs have several chunks.
const POLL: u64 = 128;

impl RunHooks for Collect {
    fn poll_every(&self) -> u64 {
        self.poll_every
    }
    fn check_every(&self) -> u64 {
        self.check_every
    }
    fn check(&mut self, _now: SimTime, events: u64) -> Control {
        self.checks += 1;
        assert_eq!(events % self.check_every, 0);
        assert_ne!(events % self.poll_every, 0, "a poll point is not also checked");
        if self.stop_at_check == Some(self.checks) {
            Control::Stop
        } else {
            Control::Continue
        }
    }
    fn poll(&mut self, _now: SimTime, events: u64) -> Control {
        self.polls += 1;
        assert_eq!(events, self.polls * self.poll_every);
        if self.stop_at == Some(self.polls) {
            Control::Stop
        } else {
            Control::Continue
        }
    }
    fn chunk_rows(&self) -> Option<usize> {
        Some(self.chunk_rows)
    }
    fn trace_chunk(&mut self, chunk: TraceChunk) -> Result<(), SimError> {
        self.chunks += 1;
        let rows = chunk.events.num_rows() + chunk.timeseries.num_rows() + chunk.queues.as_ref().map_or(0, Table::num_rows);
        self.max_chunk = self.max_chunk.max(rows);
        assert_eq!(chunk.first_new_flow as usize, self.workloads.len());
        self.workloads.extend(chunk.new_flows);
        self.add(chunk.events, chunk.timeseries, chunk.queues);
        Ok(())
    }
}

fn chunked(spec: &SimSpec, chunk_rows: usize, poll_every: u64) -> (RunOutput, Collect) {
    let mut c = Collect { poll_every, ..Collect::new(chunk_rows) };
    let out = run_with(spec, &opts(), &mut c).expect("run");
    (out, c)
}

fn spurious_rows(t: &Table) -> usize {
    let col = t.column("spurious").expect("spurious column");
    match (&col.data, &col.valid) {
        (ColumnData::Bool(v), Some(ok)) => v.iter().zip(ok).filter(|(s, ok)| **s && **ok).count(),
        _ => panic!("spurious is a nullable bool"),
    }
}

#[test]
fn a_trace_streamed_in_chunks_is_the_trace_of_an_unchunked_run() {
    // Delay spikes cause spurious timeouts: their rows are marked after they were written,
    // so chunks must hold them back until the verdict is final.
    let spec = shipped("frto-delay-spike", &[]);
    let whole = run(&spec, &opts()).expect("run");
    assert!(spurious_rows(&whole.events) > 0, "the scenario has spurious retransmissions");
    // A chunk after every event: whatever is handed over while a verdict is open shows.
    let (out, mut c) = chunked(&spec, 1, 1);
    assert!(c.chunks >= 3, "{} chunks of {} events rows", c.chunks, whole.events.num_rows());
    assert!(!out.stopped);
    c.add(out.events, out.timeseries, out.queues);
    assert_eq!(c.events.as_ref(), Some(&whole.events));
    assert_eq!(c.timeseries.as_ref(), Some(&whole.timeseries));
    assert_eq!(format!("{:?}", out.summary), format!("{:?}", whole.summary));
}

#[test]
fn the_queues_table_is_streamed_and_chunks_name_the_workload_of_each_connection() {
    // A RED bottleneck (a `queues` row every 10 ms) and a Poisson workload of short flows.
    let spec = shipped("red-ecn-web", &["simulation.duration=\"5s\""]);
    let whole = run(&spec, &opts()).expect("run");
    let whole_queues = whole.queues.as_ref().expect("a RED run has a queues table");
    assert!(whole_queues.num_rows() > 100, "{} queues rows", whole_queues.num_rows());
    let (out, mut c) = chunked(&spec, 1000, POLL);
    assert!(c.chunks >= 3, "{} chunks", c.chunks);
    // Every chunk carried queue rows: the run's end holds fewer than one chunk's worth.
    let streamed = c.queues.as_ref().map_or(0, Table::num_rows);
    let tail = out.queues.as_ref().map_or(0, Table::num_rows);
    assert!(streamed > tail, "{streamed} rows streamed, {tail} held to the end");
    c.add(out.events, out.timeseries, out.queues);
    assert_eq!(c.queues.as_ref(), Some(whole_queues));
    assert_eq!(c.events.as_ref(), Some(&whole.events));
    // The workloads named chunk by chunk are the summary's, for every flow seen so far.
    let named: Vec<Option<String>> = whole.summary.flows.iter().map(|f| f.workload.as_deref().map(str::to_string)).collect();
    assert!(c.workloads.len() > 1 && c.workloads.len() <= named.len());
    assert_eq!(c.workloads[..], named[..c.workloads.len()]);
    assert!(c.workloads.iter().any(|w| w.as_deref() == Some("web")), "{:?}", &c.workloads[..5]);
}

#[test]
fn a_chunk_is_taken_at_a_check_when_events_write_many_rows() {
    // A 1 ms sample of every flow and RED queue writes tens of rows per event: with polls
    // every 2^16 events alone a chunk would be most of the run.
    let spec = shipped("red-ecn-web", &["simulation.duration=\"5s\"", "simulation.timeseries_interval=\"1ms\""]);
    let whole = run(&spec, &opts()).expect("run");
    let total = whole.events.num_rows() + whole.timeseries.num_rows();
    let mut c = Collect { poll_every: 1 << 16, check_every: 64, ..Collect::new(2000) };
    let out = run_with(&spec, &opts(), &mut c).expect("run");
    assert!(c.polls <= 2 && c.chunks > 10, "{} polls, {} chunks of {total} rows", c.polls, c.chunks);
    assert!(c.max_chunk < 4000, "largest chunk {} rows", c.max_chunk);
    c.add(out.events, out.timeseries, out.queues);
    assert_eq!(c.events.as_ref(), Some(&whole.events));
    assert_eq!(c.timeseries.as_ref(), Some(&whole.timeseries));
    assert_eq!(c.queues.as_ref(), whole.queues.as_ref());
}

#[test]
fn a_run_without_a_red_queue_streams_no_queues_table() {
    let spec = shipped("dumbbell", &["simulation.duration=\"10s\""]);
    let (out, c) = chunked(&spec, 1000, POLL);
    assert!(c.chunks >= 1 && c.queues.is_none() && out.queues.is_none());
}

#[test]
fn a_check_between_polls_stops_the_run_there() {
    let spec = shipped("dumbbell", &[]);
    let mut c = Collect { check_every: 16, ..Collect::new(usize::MAX) };
    // Checks at events 16, 32, ..., 112, then the poll at 128, then 144: the 8th check.
    c.stop_at_check = Some(8);
    let out = run_with(&spec, &opts(), &mut c).expect("run");
    assert!(out.stopped);
    assert_eq!((out.summary.events, c.polls, c.checks), (144, 1, 8));
}

#[test]
fn without_a_chunk_size_nothing_is_streamed_and_the_output_is_unchanged() {
    let spec = shipped("dumbbell", &["simulation.duration=\"10s\""]);
    let whole = run(&spec, &opts()).expect("run");
    let (out, c) = chunked(&spec, usize::MAX, POLL);
    assert_eq!(c.chunks, 0);
    assert_eq!(out.events, whole.events);
    assert_eq!(out.timeseries, whole.timeseries);
}

#[test]
fn a_stopped_run_covers_the_events_processed_until_the_stop() {
    let spec = shipped("dumbbell", &[]);
    let mut c = Collect::new(usize::MAX);
    c.stop_at = Some(2);
    let out = run_with(&spec, &opts(), &mut c).expect("run");
    assert!(out.stopped);
    assert_eq!(out.summary.events, 2 * POLL);
    let full = run(&spec, &opts()).expect("run");
    assert!(!full.stopped);
    assert!(out.summary.sim_time_s < full.summary.sim_time_s, "{} s", out.summary.sim_time_s);
    // The partial trace is a prefix of the full one (no link rows are appended: the
    // dumbbell has no link dynamics).
    let t = |o: &RunOutput| match &o.events.column("t_ns").expect("t_ns").data {
        ColumnData::U64(v) => v.clone(),
        _ => panic!("t_ns is u64"),
    };
    let (part, all) = (t(&out), t(&full));
    assert!(!part.is_empty() && part.len() < all.len());
    assert_eq!(part[..], all[..part.len()]);
}

#[test]
fn the_trace_estimate_is_within_a_factor_of_two_of_the_rows_written() {
    for (name, ov) in [("dumbbell", &["simulation.duration=\"60s\""][..]), ("gprs", &[][..]), ("wlan", &[][..])] {
        let spec = shipped(name, ov);
        let est = tcplab_netsim::sim::trace_size::estimate(&spec).expect("estimate");
        let out = run(&spec, &opts()).expect("run");
        let (ev, ts) = (out.events.num_rows() as f64, out.timeseries.num_rows() as f64);
        let ratio = (est.event_rows + est.timeseries_rows) / (ev + ts);
        assert!((0.5..=2.0).contains(&ratio), "{name}: estimated {est:?}, wrote {ev} + {ts} rows");
    }
}
