//! Link-utilisation estimators of a Quick-Start router (seed 002 §6.6.1, L4254–4279,
//! L4366–4397; seed-002-part2 §4.1).
//!
//! Measurement: the router sees every packet it forwards onto the interface and counts its
//! wire bytes at the time it is handed to the interface (offered load, which equals the
//! departures while the queue does not overflow; utilisation is capped at 1).

use tcplab_time::{SimDuration, SimTime};

/// Which estimator.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum EstimatorKind {
    /// Peak `interval`-utilisation over the last `intervals` intervals (default 5 × 150 ms).
    Peak { intervals: u32, interval: SimDuration },
    /// Eq. 6.4 with one measurement per departure and weight `w`.
    Ewma { w: f64 },
}

/// Thesis L4277–4279: "N = 5 intervals of 150 ms".
pub const DEFAULT_PEAK_INTERVALS: u32 = 5;
/// Thesis L4277–4279.
pub const DEFAULT_PEAK_INTERVAL: SimDuration = SimDuration::from_millis(150);
/// Most intervals a peak estimator keeps (Fig 6.14 uses up to 20).
pub const MAX_PEAK_INTERVALS: u32 = 64;

/// A running utilisation estimate of one interface.
#[derive(Clone, Debug)]
pub struct Estimator {
    kind: EstimatorKind,
    /// Link bandwidth, bytes/s.
    bandwidth: f64,
    /// Peak: utilisation of the last completed intervals (ring, `len` valid).
    ring: [f64; MAX_PEAK_INTERVALS as usize],
    len: usize,
    head: usize,
    /// Peak: index of the current interval and bytes seen in it.
    cur_index: u64,
    cur_bytes: u64,
    /// EWMA: U and the time of the previous departure.
    u: f64,
    last: Option<SimTime>,
}

impl Estimator {
    pub fn new(kind: EstimatorKind, bandwidth_bytes_per_sec: f64) -> Self {
        Estimator {
            kind,
            bandwidth: bandwidth_bytes_per_sec.max(1.0),
            ring: [0.0; MAX_PEAK_INTERVALS as usize],
            len: 0,
            head: 0,
            cur_index: 0,
            cur_bytes: 0,
            u: 0.0,
            last: None,
        }
    }

    fn close_intervals_until(&mut self, index: u64, interval: SimDuration, n: usize) {
        while self.cur_index < index {
            let util = (self.cur_bytes as f64 / (self.bandwidth * interval.as_secs_f64())).min(1.0);
            self.ring[self.head] = util;
            self.head = (self.head + 1) % n;
            self.len = (self.len + 1).min(n);
            self.cur_bytes = 0;
            self.cur_index += 1;
            if self.cur_index < index && self.len == n && self.ring.iter().take(n).all(|u| *u == 0.0) {
                // Idle for a whole window: jump ahead (no per-interval work while idle).
                self.cur_index = index;
            }
        }
    }

    /// A packet of `bytes` departs at `now`.
    pub fn on_departure(&mut self, now: SimTime, bytes: u32) {
        match self.kind {
            EstimatorKind::Peak { intervals, interval } => {
                let n = intervals.clamp(1, MAX_PEAK_INTERVALS) as usize;
                let index = now.as_nanos() / interval.as_nanos().max(1);
                self.close_intervals_until(index, interval, n);
                self.cur_bytes += u64::from(bytes);
            }
            EstimatorKind::Ewma { w } => {
                // M: the packet's transmission time over the time since the previous
                // departure (1 when back to back), capped at 1.
                let m = match self.last {
                    None => 1.0,
                    Some(prev) => {
                        let gap = now.saturating_since(prev).as_secs_f64();
                        let tx = f64::from(bytes) / self.bandwidth;
                        if gap <= tx { 1.0 } else { tx / gap }
                    }
                };
                // Eq. 6.4: U(t + δ) ← w · M(t + δ) + (1 − w) · U(t).
                self.u = w * m + (1.0 - w) * self.u;
                self.last = Some(now);
            }
        }
    }

    /// The estimate at `now`, in [0, 1].
    pub fn utilization(&mut self, now: SimTime) -> f64 {
        match self.kind {
            EstimatorKind::Peak { intervals, interval } => {
                let n = intervals.clamp(1, MAX_PEAK_INTERVALS) as usize;
                let index = now.as_nanos() / interval.as_nanos().max(1);
                self.close_intervals_until(index, interval, n);
                // The peak of the last N completed intervals.
                self.ring.iter().take(self.len).fold(0.0, |a: f64, b| a.max(*b))
            }
            EstimatorKind::Ewma { .. } => self.u,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// §9 item 8: "with N = 5 intervals of 150 ms, the estimate is the maximum of the last 5
    /// interval utilisations."
    #[test]
    fn peak_is_the_maximum_of_the_last_five_intervals() {
        // 1,000,000 B/s: 150,000 B per interval is utilisation 1.
        let mut e = Estimator::new(EstimatorKind::Peak { intervals: 5, interval: DEFAULT_PEAK_INTERVAL }, 1e6);
        let ms = |m: u64| SimTime::ZERO + SimDuration::from_millis(m);
        // Interval 0: 75,000 B (0.5); interval 1: 30,000 B (0.2); then idle.
        for k in 0..75 {
            e.on_departure(ms(k), 1000);
        }
        for k in 0..30 {
            e.on_departure(ms(150 + k), 1000);
        }
        assert_eq!(e.utilization(ms(299)), 0.5, "interval 1 not complete yet");
        assert_eq!(e.utilization(ms(300)), 0.5);
        // At 750 ms intervals 0..=4 are the last five; at 900 ms interval 0 has left.
        assert_eq!(e.utilization(ms(899)), 0.5);
        assert!((e.utilization(ms(900)) - 0.2).abs() < 1e-12, "interval 0 forgotten");
        assert_eq!(e.utilization(ms(1050)), 0.0);
        assert_eq!(e.utilization(ms(90_000)), 0.0);
    }

    /// Eq. 6.4, one measurement per departure: back-to-back packets (M = 1) from U = 0 with
    /// w = 0.5 give 0.5, 0.75, 0.875.
    #[test]
    fn ewma_follows_eq_6_4_per_departure() {
        let mut e = Estimator::new(EstimatorKind::Ewma { w: 0.5 }, 1e6);
        let t = |us: u64| SimTime::ZERO + SimDuration::from_micros(us);
        e.on_departure(t(0), 1000);
        assert_eq!(e.utilization(t(0)), 0.5);
        e.on_departure(t(1000), 1000); // exactly one transmission time later: M = 1
        assert_eq!(e.utilization(t(1000)), 0.75);
        e.on_departure(t(5000), 1000); // M = 1 ms / 4 ms = 0.25
        assert_eq!(e.utilization(t(5000)), 0.5 * 0.25 + 0.5 * 0.75);
    }
}
