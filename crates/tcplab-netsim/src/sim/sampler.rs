//! Which flows the fixed-interval `timeseries` sampler visits (`simulation.timeseries_interval`).
//!
//! A flow is sampled at every tick from the first tick at or after its start until the first
//! tick after its connection has ended (both endpoints closed and freed, `FlowState::closed`):
//! that tick records its final state once more and is its last row. Before this schedule every
//! tick sampled every flow that had ever started, so a run of many short connections wrote one
//! identical row per finished flow per tick and spent time proportional to all flows ever
//! drawn on each tick; now a tick costs time proportional to the flows open at it (plus the
//! flows that became due since the last tick).
//!
//! Ambiguities resolved here:
//! - "Ended" is the connection being freed (`lifecycle::maybe_free`: all data and FINs
//!   exchanged, no timer left), not the flow completion time: a flow is sampled while its
//!   endpoints still hold state that can change.
//! - A flow that started but has not opened yet (drawn, opens at this very instant) is kept and
//!   skipped, as before.
//! - Rows of one tick stay in flow-index order (the active list is kept sorted), as before.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use tcplab_time::SimTime;

/// What the sampler does with one due flow at a tick (decided by the caller, which owns the
/// flows).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Visit {
    /// Sampled; visit it again at the next tick.
    Sampled,
    /// Not sampled at this tick (not open yet); visit it again.
    Skipped,
    /// Sampled for the last time (the connection has ended).
    Last,
}

/// The flows due at each tick: those that have started and not yet had their last sample.
#[derive(Debug, Default)]
pub(super) struct SampleSchedule {
    /// Flows `0..admitted` are in `waiting`, in `active`, or done.
    admitted: usize,
    /// Admitted flows that have not started yet, by start time.
    waiting: BinaryHeap<Reverse<(SimTime, u32)>>,
    /// Started flows not yet sampled for the last time, in index order.
    active: Vec<u32>,
}

impl SampleSchedule {
    /// One tick at `now`: admits the flows drawn since the last tick (`n_flows` flows exist,
    /// `start(f)` is flow `f`'s start), then calls `visit` on every due flow in index order,
    /// dropping those it answers [`Visit::Last`] for.
    pub(super) fn tick(
        &mut self,
        now: SimTime,
        n_flows: usize,
        start: impl Fn(u32) -> SimTime,
        mut visit: impl FnMut(u32) -> Visit,
    ) {
        for f in self.admitted..n_flows {
            self.waiting.push(Reverse((start(f as u32), f as u32)));
        }
        self.admitted = self.admitted.max(n_flows);
        let before = self.active.len();
        while let Some(&Reverse((t, f))) = self.waiting.peek() {
            if t > now {
                break;
            }
            self.waiting.pop();
            self.active.push(f);
        }
        if self.active.len() != before {
            self.active.sort_unstable();
        }
        self.active.retain(|&f| visit(f) != Visit::Last);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_time::SimDuration;

    fn at(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(ms)
    }

    #[test]
    fn flows_are_visited_from_their_start_in_index_order_until_their_last_sample() {
        // Flow 0 starts at 0 and ends at 25 ms; flow 1 starts at 15 ms; flow 2 (drawn later)
        // starts at 5 ms, before flow 1; ticks every 10 ms.
        let starts = [at(0), at(15), at(5)];
        let ends = [Some(at(25)), None, None];
        let mut s = SampleSchedule::default();
        let mut seen = Vec::new();
        for (k, n) in [(0u64, 2usize), (10, 3), (20, 3), (30, 3), (40, 3)] {
            let now = at(k);
            let mut row = Vec::new();
            s.tick(now, n, |f| starts[f as usize], |f| {
                row.push(f);
                match ends[f as usize] {
                    Some(e) if e <= now => Visit::Last,
                    _ => Visit::Sampled,
                }
            });
            seen.push(row);
        }
        assert_eq!(seen, vec![vec![0], vec![0, 2], vec![0, 1, 2], vec![0, 1, 2], vec![1, 2]]);
    }

    #[test]
    fn a_skipped_flow_is_visited_again() {
        let mut s = SampleSchedule::default();
        let mut n = 0;
        for k in 0..3 {
            s.tick(at(k), 1, |_| at(0), |_| {
                n += 1;
                if k == 0 { Visit::Skipped } else { Visit::Last }
            });
        }
        assert_eq!(n, 2, "skipped at 0 ms, last sample at 1 ms, then never again");
    }
}
