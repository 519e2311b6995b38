//! Piecewise-constant link bandwidth: `[[links]] bandwidth_schedule` and the hand-over
//! redraws of Sarolahti's type II delays (see `delay_spike`).
//!
//! Semantics (resolved ambiguity): a packet is serialised entirely at the rate in force when
//! its transmission *starts*; a packet being serialised when the rate changes finishes at the
//! old rate, and the next one starts at the new rate. Start times are known when a packet is
//! queued (see `queue`), so the rate is looked up for that start time. Both directions of a
//! link follow the same schedule.

use tcplab_time::{Bandwidth, SimTime};

/// The rate of one link direction over time.
#[derive(Clone, Debug)]
pub struct BandwidthSchedule {
    /// Sorted by time; the first step is at time 0 (the link's configured bandwidth).
    steps: Vec<(SimTime, Bandwidth)>,
    /// Step in force at the last committed start time.
    cursor: usize,
}

impl BandwidthSchedule {
    /// `initial` from time 0, then each `(time, rate)` of `changes` (sorted by time; a later
    /// entry at the same time wins). `None` when nothing ever changes.
    pub fn new(initial: Bandwidth, changes: &[(SimTime, Bandwidth)]) -> Option<Self> {
        if changes.is_empty() {
            return None;
        }
        let mut steps: Vec<(SimTime, Bandwidth)> = vec![(SimTime::ZERO, initial)];
        for &(t, bw) in changes {
            match steps.last_mut() {
                Some(last) if last.0 == t => last.1 = bw,
                _ => steps.push((t, bw)),
            }
        }
        Some(BandwidthSchedule { steps, cursor: 0 })
    }

    /// Index of the step in force at `t`, searching from the cursor (`t` is never earlier than
    /// the last committed start).
    #[inline]
    fn index_at(&self, t: SimTime) -> usize {
        let mut i = self.cursor;
        while self.steps.get(i + 1).is_some_and(|s| s.0 <= t) {
            i += 1;
        }
        i
    }

    /// The rate for a packet starting at `t` (no state change: the packet may still be dropped).
    #[inline]
    pub fn rate_at(&self, t: SimTime) -> Bandwidth {
        self.steps[self.index_at(t)].1
    }

    /// A packet starts at `t`: later lookups start from here.
    #[inline]
    pub fn commit(&mut self, t: SimTime) {
        self.cursor = self.index_at(t);
    }

    /// The changes after time 0 (for the trace).
    pub fn changes(&self) -> &[(SimTime, Bandwidth)] {
        &self.steps[1..]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_in_force_at_a_start_time_is_the_last_step_at_or_before_it() {
        let mut s = BandwidthSchedule::new(
            Bandwidth::bps(384_000),
            &[(SimTime(20), Bandwidth::bps(128_000)), (SimTime(30), Bandwidth::bps(28_800))],
        )
        .unwrap();
        assert_eq!(s.rate_at(SimTime(19)), Bandwidth::bps(384_000));
        assert_eq!(s.rate_at(SimTime(20)), Bandwidth::bps(128_000));
        s.commit(SimTime(25));
        assert_eq!(s.rate_at(SimTime(29)), Bandwidth::bps(128_000));
        assert_eq!(s.rate_at(SimTime(1000)), Bandwidth::bps(28_800));
        assert_eq!(s.changes().len(), 2);
    }

    #[test]
    fn a_step_at_time_zero_replaces_the_configured_bandwidth() {
        let s = BandwidthSchedule::new(Bandwidth::bps(1), &[(SimTime::ZERO, Bandwidth::bps(64_000))]).unwrap();
        assert_eq!(s.rate_at(SimTime::ZERO), Bandwidth::bps(64_000));
        assert!(BandwidthSchedule::new(Bandwidth::bps(1), &[]).is_none());
    }
}
