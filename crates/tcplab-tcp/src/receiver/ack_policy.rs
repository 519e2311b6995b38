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
//! - with `TcpConfig::ack_ato` (today's Linux, `tcp_event_data_recv` / `tcp_send_delayed_ack`):
//!   the delayed-ACK timeout is Linux's adaptive `ato` instead of the fixed `delayed_ack`, and a
//!   gap between data segments longer than the receiver's RTO refills the quick-ACK budget
//!   (quick ACKs after idle):
//!
//! ```c
//! if (!icsk->icsk_ack.ato) {              /* The _first_ data packet received */
//!     tcp_incr_quickack(sk, TCP_MAX_QUICKACKS);
//!     icsk->icsk_ack.ato = TCP_ATO_MIN;
//! } else {
//!     int m = now - icsk->icsk_ack.lrcvtime;
//!     if (m <= TCP_ATO_MIN / 2) {          /* The fastest case is the first. */
//!         icsk->icsk_ack.ato = (icsk->icsk_ack.ato >> 1) + TCP_ATO_MIN / 2;
//!     } else if (m < icsk->icsk_ack.ato) {
//!         icsk->icsk_ack.ato = (icsk->icsk_ack.ato >> 1) + m;
//!         if (icsk->icsk_ack.ato > icsk->icsk_rto)
//!             icsk->icsk_ack.ato = icsk->icsk_rto;
//!     } else if (m > icsk->icsk_rto) {
//!         /* Too long gap. Apparently sender failed to restart window, so that we send ACKs quickly. */
//!         tcp_incr_quickack(sk, TCP_MAX_QUICKACKS);
//!     }
//! }
//! icsk->icsk_ack.lrcvtime = now;
//! ```
//!
//!   and `tcp_send_delayed_ack`: when `ato > TCP_DELACK_MIN`, it is bounded by `HZ/2` and by
//!   the receiver's srtt (at least `TCP_DELACK_MIN`). Not modelled: the interactive
//!   ("pingpong") bound `TCP_DELACK_MAX`. The ato is updated for every segment that carries new
//!   data (Linux: in-sequence data; out-of-order data is ACKed at once either way).
//!
//! - with `ack_ato` also `ICSK_ACK_PUSHED` for a full-sized segment with PSH (Linux 6.6+,
//!   "tcp: fix delayed ACKs for MSS boundary condition", `tcp_measure_rcv_mss`):
//!
//! ```c
//! /* If the skb has a len of exactly 1*MSS and has the PSH bit
//!  * set then it is likely the end of an application write. So
//!  * more data may not be arriving soon, and yet the data sender
//!  * may be waiting for an ACK if cwnd-bound or using TX zero
//!  * copy. So we set ICSK_ACK_PUSHED here so that
//!  * tcp_cleanup_rbuf() will send an ACK immediately if the app
//!  * reads all of the data and is not ping-pong. ...
//!  */
//! if (TCP_SKB_CB(skb)->tcp_flags & TCPHDR_PSH)
//!     icsk->icsk_ack.pending |= ICSK_ACK_PUSHED;
//! ```
//!
//!   and `__tcp_cleanup_rbuf` after the reader copied it: "(copied > 0 &&
//!   ((icsk->icsk_ack.pending & ICSK_ACK_PUSHED2) || ((icsk->icsk_ack.pending &
//!   ICSK_ACK_PUSHED) && !inet_csk_in_pingpong_mode(sk))) && !atomic_read(&sk->sk_rmem_alloc))
//!   time_to_ack = true;" — the ACK that would have been delayed leaves at once when the reader
//!   emptied the receive queue and nothing is held out of order (the simulated reader reads
//!   every in-order segment at once, `linux_window`). Found on the real kernel's `rto-min-50ms`
//!   capture (docs/validation-linux.md): the last segment delivered before the tail loss carried
//!   PSH and was ACKed after 18 µs, where a delayed ACK would have waited 40 ms. Not modelled:
//!   the sub-MSS branch of `tcp_measure_rcv_mss` (a short segment sets `ICSK_ACK_PUSHED`, or
//!   shrinks `rcv_mss` when two in a row have the same size). The PSH bit comes from the sender:
//!   Linux's `tcp_push` marks the last segment of each application write and the segment before
//!   the writer sleeps on a full send buffer; this simulator's senders send no PSH, so the rule
//!   acts only on segments that carry it (tests; captures fed to a receiver).
//!
//! Ambiguity resolved: a segment shorter than the receive MSS does not count towards
//! `ack_every` (RFC 5681 speaks of *full-sized* segments); it only starts the timer.

use crate::config::AckPolicy;
use tcplab_time::{SimDuration, SimTime};

/// Linux `TCP_ATO_MIN` = HZ/25 = 40 ms.
pub const TCP_ATO_MIN: SimDuration = SimDuration::from_millis(40);
/// Linux `TCP_DELACK_MIN` = HZ/25 = 40 ms.
pub const TCP_DELACK_MIN: SimDuration = SimDuration::from_millis(40);
/// Linux `tcp_send_delayed_ack`: `int max_ato = HZ / 2;` (500 ms).
pub const MAX_ATO: SimDuration = SimDuration::from_millis(500);

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
    /// Arrival time and this endpoint's RTO (Linux ato, `TcpConfig::ack_ato`).
    pub now: SimTime,
    pub rto: SimDuration,
    /// Linux `tcp_grow_window` raised `rcv_ssthresh` for this segment (`linux_window`): one
    /// more quick ACK, granted after `tcp_event_data_recv`'s ato update.
    pub window_grew: bool,
    /// The segment carried PSH.
    pub psh: bool,
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
    /// Linux's adaptive delayed-ACK timeout (`icsk_ack.ato`, `ack_ato` only); `None` before
    /// the first data segment.
    ato: Option<SimDuration>,
    /// `icsk_ack.lrcvtime`: when the last data segment arrived.
    lrcvtime: SimTime,
    linux_ato: bool,
    /// `icsk_ack.pending & ICSK_ACK_PUSHED` (module docs; `ack_ato` only): a full-sized
    /// segment with PSH arrived since the last ACK left.
    pushed: bool,
}

/// Linux `tcp_incr_quickack`: rcv_wnd / (2·rcv_mss), 2 if that is 0, at most
/// `TCP_MAX_QUICKACKS`.
fn quick_budget(a: &DataArrival) -> u32 {
    let n = (a.rcv_wnd / (2 * u64::from(a.rcv_mss.max(1)))) as u32;
    (if n == 0 { 2 } else { n }).min(TCP_MAX_QUICKACKS)
}

impl AckState {
    pub fn new(policy: AckPolicy) -> Self {
        AckState { policy, unacked_full: 0, quick: None, ato: None, lrcvtime: SimTime::ZERO, linux_ato: false, pushed: false }
    }

    /// With Linux's adaptive `ato` and quick ACKs after idle (`TcpConfig::ack_ato`).
    pub fn with_linux_ato(policy: AckPolicy, on: bool) -> Self {
        AckState { linux_ato: on, ..AckState::new(policy) }
    }

    /// `tcp_event_data_recv`'s ato update (module docs).
    fn event_data_recv(&mut self, a: &DataArrival) {
        match self.ato {
            None => {
                // "The _first_ data packet received": tcp_incr_quickack, ato = TCP_ATO_MIN.
                let q = quick_budget(a);
                self.quick = Some(self.quick.map_or(q, |x| x.max(q)));
                self.ato = Some(TCP_ATO_MIN);
            }
            Some(ato) => {
                let m = a.now.saturating_since(self.lrcvtime);
                if m <= SimDuration(TCP_ATO_MIN.as_nanos() / 2) {
                    self.ato = Some(SimDuration(ato.as_nanos() / 2) + SimDuration(TCP_ATO_MIN.as_nanos() / 2));
                } else if m < ato {
                    self.ato = Some((SimDuration(ato.as_nanos() / 2) + m).min(a.rto));
                } else if m > a.rto {
                    // "Too long gap": tcp_incr_quickack.
                    let q = quick_budget(a);
                    self.quick = Some(self.quick.map_or(q, |x| x.max(q)));
                }
            }
        }
        self.lrcvtime = a.now;
    }

    /// Linux `tcp_send_delayed_ack`: the timeout for the delayed ACK being scheduled, or `None`
    /// without `ack_ato` (the fixed `AckPolicy::delayed_ack` applies).
    pub fn delack_timeout(&self, srtt: Option<SimDuration>) -> Option<SimDuration> {
        if !self.linux_ato {
            return None;
        }
        let mut ato = self.ato.unwrap_or(TCP_ATO_MIN);
        if ato > TCP_DELACK_MIN {
            // "If some rtt estimate is known, use it to bound delayed ack."
            let mut max_ato = MAX_ATO;
            if let Some(s) = srtt {
                let rtt = s.max(TCP_DELACK_MIN);
                if rtt < max_ato {
                    max_ato = rtt;
                }
            }
            ato = ato.min(max_ato);
        }
        Some(ato)
    }

    /// Called for every data segment that carried new or duplicate data.
    pub fn on_data(&mut self, a: DataArrival) -> AckAction {
        // RFC 5681 §4.2: out-of-order / hole-filling segments are acknowledged immediately.
        if !a.in_order_no_holes {
            return AckAction::Now;
        }
        let Some(_) = self.policy.delayed_ack else { return AckAction::Now };
        if self.linux_ato {
            // tcp_event_data_recv: tcp_measure_rcv_mss (the PSH rule), then the ato update.
            if a.psh && a.len >= a.rcv_mss {
                self.pushed = true;
            }
            self.event_data_recv(&a);
        }
        if a.window_grew {
            self.grant_quick_ack();
        }
        if self.policy.quickack || self.linux_ato {
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

    /// Linux `tcp_grow_window`: "inet_csk(sk)->icsk_ack.quick |= 1;" (the next data segment is
    /// acknowledged at once).
    pub fn grant_quick_ack(&mut self) {
        self.quick = Some(self.quick.unwrap_or(0) | 1);
    }

    /// `__tcp_cleanup_rbuf` after the reader copied data with a delayed ACK scheduled: true
    /// when `ICSK_ACK_PUSHED` is set and nothing is left in receive memory (`ooo_empty`: no
    /// out-of-order data held; the in-order data was all read), so the ACK leaves now (module
    /// docs).
    pub fn ack_after_read(&self, ooo_empty: bool) -> bool {
        self.pushed && ooo_empty
    }

    /// An ACK (pure or piggybacked) left; the count restarts (and `inet_csk_clear_xmit_timer`
    /// clears `icsk_ack.pending`, `ICSK_ACK_PUSHED` with it).
    pub fn on_ack_sent(&mut self) {
        self.unacked_full = 0;
        self.pushed = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arr(len: u32) -> DataArrival {
        DataArrival { len, in_order_no_holes: true, rcv_mss: 1000, rcv_wnd: 8000, now: SimTime::ZERO, rto: SimDuration::from_secs(1), window_grew: false, psh: false }
    }

    fn at(ms: u64) -> DataArrival {
        DataArrival { now: SimTime::from_nanos(ms * 1_000_000), ..arr(1000) }
    }

    // tcp_event_data_recv: the first data segment sets ato = TCP_ATO_MIN and the quick-ACK
    // budget; segments closer than TCP_ATO_MIN/2 keep ato at TCP_ATO_MIN ("ato >> 1 +
    // TCP_ATO_MIN / 2"); a gap m < ato gives ato/2 + m; a gap above the RTO refills the
    // quick ACKs ("Too long gap").
    #[test]
    fn linux_ato_adapts_to_the_gaps_between_segments_and_quick_acks_return_after_idle() {
        let mut s = AckState::with_linux_ato(AckPolicy::default(), true);
        assert_eq!(s.delack_timeout(None), Some(TCP_ATO_MIN));
        // 4 quick ACKs (8000 / 2000), 1 ms apart.
        for k in 0..4 {
            assert_eq!(s.on_data(at(k)), AckAction::Now);
            s.on_ack_sent();
        }
        assert_eq!(s.on_data(at(4)), AckAction::Delay);
        assert_eq!(s.delack_timeout(Some(SimDuration::from_millis(100))), Some(TCP_ATO_MIN));
        // A 30 ms gap (< ato 40 ms): ato = 20 + 30 = 50 ms, bounded by srtt (100 ms): 50 ms.
        assert_eq!(s.on_data(at(34)), AckAction::Now);
        s.on_ack_sent();
        assert_eq!(s.delack_timeout(Some(SimDuration::from_millis(100))), Some(SimDuration::from_millis(50)));
        assert_eq!(s.delack_timeout(Some(SimDuration::from_millis(45))), Some(SimDuration::from_millis(45)));
        // 2 s of silence (> RTO 1 s): quick ACKs again.
        assert_eq!(s.on_data(at(2034)), AckAction::Now);
        s.on_ack_sent();
        assert_eq!(s.on_data(at(2035)), AckAction::Now);
        // Without ack_ato the fixed timeout applies.
        assert_eq!(AckState::new(AckPolicy::default()).delack_timeout(None), None);
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

    // tcp_measure_rcv_mss (6.6+): a full-sized segment with PSH sets ICSK_ACK_PUSHED, and
    // __tcp_cleanup_rbuf then ACKs once the reader emptied receive memory; a short segment with
    // PSH (the sub-MSS branch, not modelled), PSH without `ack_ato`, or data still held out of
    // order do not; the ACK leaving clears it.
    #[test]
    fn a_full_sized_segment_with_psh_is_acknowledged_once_read() {
        let mut s = AckState::with_linux_ato(AckPolicy::default(), true);
        for k in 0..4 {
            assert_eq!(s.on_data(at(k)), AckAction::Now, "quick ACK {k}");
            s.on_ack_sent();
        }
        assert_eq!(s.on_data(at(4)), AckAction::Delay);
        assert!(!s.ack_after_read(true), "no PSH");
        assert_eq!(s.on_data(at(5)), AckAction::Now, "every second full-sized segment");
        s.on_ack_sent();
        let short = DataArrival { psh: true, len: 999, ..at(6) };
        assert_eq!(s.on_data(short), AckAction::Delay);
        assert!(!s.ack_after_read(true), "shorter than rcv_mss");
        assert_eq!(s.on_data(DataArrival { psh: true, ..at(7) }), AckAction::Delay);
        assert!(s.ack_after_read(true));
        assert!(!s.ack_after_read(false), "out-of-order data still in receive memory");
        s.on_ack_sent();
        assert!(!s.ack_after_read(true), "cleared by the ACK");
        let mut plain = AckState::new(AckPolicy { quickack: true, ..AckPolicy::default() });
        for _ in 0..4 {
            plain.on_data(arr(1000));
            plain.on_ack_sent();
        }
        assert_eq!(plain.on_data(DataArrival { psh: true, ..arr(1000) }), AckAction::Delay);
        assert!(!plain.ack_after_read(true), "without ack_ato");
    }
}
