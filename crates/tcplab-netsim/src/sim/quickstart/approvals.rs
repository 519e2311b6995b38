//! `recent_qs_approvals`: the aggregate rate a router approved recently (seed 002 §6.6.1,
//! L4283–4294; seed-002-part2 §4.2 and §10 item 7).
//!
//! Two memories, switchable:
//! - [`ApprovalMemory::TwoBuckets`] (ns-2 `QSAgent`, the default): approvals go into the
//!   current bucket; every `T` the current bucket becomes the previous one and a new one
//!   starts; the sum of both is remembered, so an approval counts for between `T` and `2T`.
//! - [`ApprovalMemory::Sliding`]: exactly the approvals of the last `T`.

use std::collections::VecDeque;
use tcplab_time::{SimDuration, SimTime};

/// Thesis L4289–4290: "Default: 150 ms".
pub const DEFAULT_APPROVAL_MEMORY: SimDuration = SimDuration::from_millis(150);

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ApprovalMemory {
    TwoBuckets,
    Sliding,
}

/// Approvals remembered for `t` (bytes/s).
#[derive(Clone, Debug)]
pub struct RecentApprovals {
    memory: ApprovalMemory,
    t: SimDuration,
    /// TwoBuckets: `prev_int_aggr_`, `aggr_approval_` and the index of the current bucket.
    prev: f64,
    cur: f64,
    bucket: u64,
    /// Sliding: (time, rate) of each approval in the last `t`.
    window: VecDeque<(SimTime, f64)>,
}

impl RecentApprovals {
    pub fn new(memory: ApprovalMemory, t: SimDuration) -> Self {
        RecentApprovals { memory, t, prev: 0.0, cur: 0.0, bucket: 0, window: VecDeque::new() }
    }

    fn advance(&mut self, now: SimTime) {
        match self.memory {
            ApprovalMemory::TwoBuckets => {
                let b = now.as_nanos() / self.t.as_nanos().max(1);
                if b == self.bucket + 1 {
                    self.prev = self.cur;
                    self.cur = 0.0;
                } else if b > self.bucket + 1 {
                    self.prev = 0.0;
                    self.cur = 0.0;
                }
                self.bucket = self.bucket.max(b);
            }
            ApprovalMemory::Sliding => {
                while let Some(&(at, _)) = self.window.front() {
                    if now.saturating_since(at) >= self.t {
                        self.window.pop_front();
                    } else {
                        break;
                    }
                }
            }
        }
    }

    /// The remembered aggregate at `now`.
    pub fn total(&mut self, now: SimTime) -> f64 {
        self.advance(now);
        match self.memory {
            ApprovalMemory::TwoBuckets => self.prev + self.cur,
            ApprovalMemory::Sliding => self.window.iter().map(|e| e.1).sum(),
        }
    }

    /// `recent_qs_approvals += approved`.
    pub fn add(&mut self, now: SimTime, approved: f64) {
        self.advance(now);
        match self.memory {
            ApprovalMemory::TwoBuckets => self.cur += approved,
            ApprovalMemory::Sliding => self.window.push_back((now, approved)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(m: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(m)
    }

    #[test]
    fn two_buckets_remember_between_t_and_2t_and_sliding_exactly_t() {
        let mut b = RecentApprovals::new(ApprovalMemory::TwoBuckets, SimDuration::from_millis(150));
        b.add(ms(140), 100.0);
        assert_eq!(b.total(ms(160)), 100.0, "rotated into the previous bucket");
        assert_eq!(b.total(ms(299)), 100.0, "159 ms after the approval");
        assert_eq!(b.total(ms(300)), 0.0);
        b.add(ms(300), 50.0);
        assert_eq!(b.total(ms(599)), 50.0, "299 ms after: just under 2T");
        assert_eq!(b.total(ms(600)), 0.0);
        let mut s = RecentApprovals::new(ApprovalMemory::Sliding, SimDuration::from_millis(150));
        s.add(ms(140), 100.0);
        s.add(ms(200), 10.0);
        assert_eq!(s.total(ms(289)), 110.0);
        assert_eq!(s.total(ms(290)), 10.0);
        assert_eq!(s.total(ms(350)), 0.0);
    }
}
