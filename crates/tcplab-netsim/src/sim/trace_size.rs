//! How large a run's trace will be, estimated from the scenario before the run
//! (`tcplab run --max-trace`, issue 14 part 4).
//!
//! Model: every data segment costs about [`EVENT_ROWS_PER_SEGMENT`] `events` rows (its
//! `segment_sent`, the ACKs it draws, their RTT samples, the odd drop and retransmission).
//! A fixed flow sends its `size`, or for a bulk flow what its path's slowest link carries
//! from its start to the end of the run; flows whose slowest link is the same link direction
//! share it, so together they send at most what that link carries from the first one's start
//! to the end. A Poisson workload sends its expected number of connections (arrival window /
//! mean inter-arrival, capped by `max_flows`) times the mean size, a web workload every object
//! of every page of every session at the mean size; neither is capped by any link.
//! The `timeseries` table has one row per fixed flow per `simulation.timeseries_interval`
//! from the flow's start (a workload's connections are not counted: their lifetimes are not
//! known in advance) or, without an interval, one row per window change, about
//! [`TIMESERIES_ROWS_PER_SEGMENT`] per segment.
//!
//! It is an estimate for a warning, not a bound: a run where most segments are lost, or
//! flows that end early, write less; a workload through a slow link less too.

use super::routing::Routes;
use super::SimError;
use crate::spec::{SimSpec, SizeDist, WorkloadSpec};
use std::collections::BTreeMap;

/// `events` rows per data segment, measured on `tcplab run dumbbell
/// --set simulation.duration=100000s` (a bulk flow through a drop-tail bottleneck, delayed
/// ACKs): 167 367 687 rows for 84.3 M segments delivered in 101 171 s, 1.98 (docs/benchmarks.md,
/// "Long runs").
pub const EVENT_ROWS_PER_SEGMENT: f64 = 2.0;

/// `timeseries` rows per data segment when a window sample is written at every change
/// (no `simulation.timeseries_interval`): about one per ACK that moves the window.
pub const TIMESERIES_ROWS_PER_SEGMENT: f64 = 1.0;

/// The estimate: rows of each trace table.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct TraceEstimate {
    pub event_rows: f64,
    pub timeseries_rows: f64,
    /// Data segments the estimate assumes.
    pub segments: f64,
}

/// The slowest link direction on the path from `src` to `dst` and its rate in bit/s
/// (`None`: no route).
fn bottleneck(spec: &SimSpec, routes: &Routes, src: usize, dst: usize) -> Option<(u32, f64)> {
    let mut node = src as u32;
    let mut best: Option<(u32, f64)> = None;
    for _ in 0..spec.nodes.len() {
        if node as usize == dst {
            return best;
        }
        let dir = routes.next_hop(node, dst as u32)?;
        let link = spec.links.get(dir as usize / 2)?;
        let rate = link.bandwidth.as_bps() as f64;
        if best.is_none_or(|(_, r)| rate < r) {
            best = Some((dir, rate));
        }
        node = if dir % 2 == 0 { link.b as u32 } else { link.a as u32 };
    }
    None
}

/// Estimates the trace of a run of `spec` (see the module doc).
pub fn estimate(spec: &SimSpec) -> Result<TraceEstimate, SimError> {
    let routes = Routes::build(spec)?;
    let duration = spec.duration.as_secs_f64();
    // Per bottleneck direction: (earliest start, bytes the flows would send, rate, MSS).
    let mut shared: BTreeMap<u32, (f64, f64, f64, f64)> = BTreeMap::new();
    let mut segments = 0.0;
    let mut flow_seconds = 0.0;
    for f in &spec.flows {
        let start = f.start.as_secs_f64().min(duration);
        let active = duration - start;
        flow_seconds += active;
        let Some((dir, rate)) = bottleneck(spec, &routes, f.src, f.dst) else { continue };
        let capacity = rate / 8.0 * active;
        let bytes = f.size.map_or(capacity, |s| (s as f64).min(capacity));
        let e = shared.entry(dir).or_insert((start, 0.0, rate, f64::from(f.tcp.mss.max(1))));
        e.0 = e.0.min(start);
        e.1 += bytes;
    }
    for (start, bytes, rate, mss) in shared.values() {
        segments += bytes.min(rate / 8.0 * (duration - start)) / mss;
    }
    for w in &spec.workloads {
        segments += match w {
            WorkloadSpec::Poisson(p) => {
                let from = p.start.as_secs_f64();
                let until = p.stop.map_or(duration, |s| s.as_secs_f64().min(duration));
                let mut n = ((until - from) / p.mean_interarrival.as_secs_f64().max(1e-9)).max(0.0);
                if let Some(m) = p.max_flows {
                    n = n.min(m as f64);
                }
                let mean = match p.size {
                    SizeDist::Fixed(b) => b as f64,
                    SizeDist::Pareto { mean, .. } => mean,
                };
                n * (mean / f64::from(p.tcp.mss.max(1))).ceil()
            }
            // Every object of every page of every session, at the mean size in packets.
            WorkloadSpec::Web(web) => {
                let objects = f64::from(web.sessions) * f64::from(web.pages_per_session) * f64::from(web.objects_per_page);
                objects * web.object_mean_packets
            }
        };
    }
    let timeseries_rows = match spec.timeseries_interval {
        Some(iv) => flow_seconds / iv.as_secs_f64().max(1e-9),
        None => segments * TIMESERIES_ROWS_PER_SEGMENT,
    };
    Ok(TraceEstimate { event_rows: segments * EVENT_ROWS_PER_SEGMENT, timeseries_rows, segments })
}
