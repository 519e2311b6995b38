//! When the receiver acknowledges (RFC 5681 §4.2, RFC 1122 §4.2.3.2).
//!
//! - an out-of-order segment, and a segment that fills (part of) a hole, is ACKed at once
//!   (RFC 5681 §4.2: "an immediate ACK ... when an out-of-order segment arrives ... when the
//!   incoming segment fills in all or part of a gap");
//! - otherwise an ACK is sent for at least every `ack_every` full-sized segments, and a lone
//!   segment waits for the delayed-ACK timer (`None` = acknowledge every segment at once).
//!
//! - with `quickack` (Linux, 002 L1725–1738): the first segments of the connection are
//!   acknowledged at once; their number is at most half the segments that fill the
//!   advertised window ([EXTERNAL] `tcp_incr_quickack`: rcv_wnd / (2·rcv_mss), 2 if that is 0,
//!   at most `TCP_MAX_QUICKACKS`), so that silly window syndrome cannot occur. Not modelled:
//!   re-entering quick-ACK mode after an idle period and the "pingpong" (interactive) switch,
//!   since this receiver never sends data of its own in the simulated bulk transfers.
//!
//! Ambiguity resolved: a segment shorter than the receive MSS does not count towards
//! `ack_every` (RFC 5681 speaks of *full-sized* segments); it only starts the timer.

use crate::config::AckPolicy;

/// What to do after receiving a data segment.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AckAction {
    /// Send an ACK now.
    Now,
    /// Make sure the delayed-ACK timer runs.
    Delay,
}

/// How the arriving segment relates to the receive queue.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DataArrival {
    /// Payload length.
    pub len: u32,
    /// The segment was in order and nothing was queued out of order.
    pub in_order_no_holes: bool,
    /// Receive MSS (what counts as full-sized).
    pub rcv_mss: u32,
    /// The receive window now (bytes), for the quick-ACK budget.
    pub rcv_wnd: u64,
}

/// [EXTERNAL] Linux 2.4 `TCP_MAX_QUICKACKS` (include/net/tcp.h).
pub const TCP_MAX_QUICKACKS: u32 = 16;

/// Delayed-ACK state.
#[derive(Copy, Clone, Debug)]
pub struct AckState {
    policy: AckPolicy,
    /// Full-sized segments received since the last ACK went out.
    unacked_full: u32,
    /// Quick ACKs left (`None` until the first data segment sets the budget).
    quick: Option<u32>,
}

impl AckState {
    pub fn new(policy: AckPolicy) -> Self {
        AckState { policy, unacked_full: 0, quick: None }
    }

    /// Called for every data segment that carried new or duplicate data.
    pub fn on_data(&mut self, a: DataArrival) -> AckAction {
        // RFC 5681 §4.2: out-of-order / hole-filling segments are acknowledged immediately.
        if !a.in_order_no_holes {
            return AckAction::Now;
        }
        let Some(_) = self.policy.delayed_ack else { return AckAction::Now };
        if self.policy.quickack {
            // 002 L1725–1731: no delayed ACKs for the first segments of the connection.
            let left = self.quick.get_or_insert_with(|| {
                let n = (a.rcv_wnd / (2 * u64::from(a.rcv_mss.max(1)))) as u32;
                (if n == 0 { 2 } else { n }).min(TCP_MAX_QUICKACKS)
            });
            if *left > 0 {
                *left -= 1;
                return AckAction::Now;
            }
        }
        if a.len >= a.rcv_mss {
            self.unacked_full += 1;
        }
        // RFC 5681 §4.2: "an ACK SHOULD be generated for at least every second full-sized
        // segment".
        if self.unacked_full >= self.policy.ack_every.max(1) {
            AckAction::Now
        } else {
            AckAction::Delay
        }
    }

    /// An ACK (pure or piggybacked) left; the count restarts.
    pub fn on_ack_sent(&mut self) {
        self.unacked_full = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arr(len: u32) -> DataArrival {
        DataArrival { len, in_order_no_holes: true, rcv_mss: 1000, rcv_wnd: 8000 }
    }

    #[test]
    fn every_second_full_sized_segment_is_acknowledged_at_once() {
        let mut s = AckState::new(AckPolicy::default());
        assert_eq!(s.on_data(arr(1000)), AckAction::Delay);
        assert_eq!(s.on_data(arr(1000)), AckAction::Now);
        s.on_ack_sent();
        assert_eq!(s.on_data(arr(10)), AckAction::Delay);
        assert_eq!(s.on_data(arr(10)), AckAction::Delay);
    }

    #[test]
    fn without_delayed_acks_every_segment_is_acknowledged() {
        let mut s = AckState::new(AckPolicy { delayed_ack: None, ack_every: 2, quickack: false });
        assert_eq!(s.on_data(arr(1000)), AckAction::Now);
    }

    #[test]
    fn quick_acks_acknowledge_the_first_segments_at_once_up_to_half_the_window_in_segments() {
        let mut s = AckState::new(AckPolicy { quickack: true, ..AckPolicy::default() });
        // 8000-byte window / (2 * 1000) = 4 quick ACKs, then every second segment.
        for _ in 0..4 {
            assert_eq!(s.on_data(arr(1000)), AckAction::Now);
            s.on_ack_sent();
        }
        assert_eq!(s.on_data(arr(1000)), AckAction::Delay);
        assert_eq!(s.on_data(arr(1000)), AckAction::Now);
    }

    #[test]
    fn out_of_order_segments_are_acknowledged_at_once() {
        let mut s = AckState::new(AckPolicy::default());
        assert_eq!(s.on_data(DataArrival { in_order_no_holes: false, ..arr(1000) }), AckAction::Now);
    }
}
