//! RFC 6937 Proportional Rate Reduction (PRR-SSRB) for the window during SACK recovery, as
//! Linux's `tcp_cwnd_reduction` computes it (`TcpConfig::prr`).
//!
//! RFC 6937 §3.1: "PRR ... spreads out the window reduction over an entire RTT": while pipe
//! is above ssthresh, the sender sends `ssthresh / RecoverFS` of what is delivered
//! (Proportional Rate Reduction); when losses take pipe below ssthresh, the Slow Start
//! Reduction Bound lets it rebuild towards ssthresh by at most one segment more than was
//! delivered per ACK. The sender (`sender/mod.rs`) calls [`Prr::on_enter`] when fast recovery
//! begins, [`Prr::on_sent`] for every segment sent during it, and [`Prr::on_ack`] after each
//! ACK in it; the result is the new cwnd (`pipe + sndcnt`, Linux's
//! `tcp_snd_cwnd_set(tp, tcp_packets_in_flight(tp) + sndcnt)`).
//!
//! Linux (`net/ipv4/tcp_input.c`):
//!
//! ```c
//! void tcp_cwnd_reduction(struct sock *sk, int newly_acked_sacked, int newly_lost, int flag)
//! {
//!     int sndcnt = 0;
//!     int delta = tp->snd_ssthresh - tcp_packets_in_flight(tp);
//!     if (newly_acked_sacked <= 0 || WARN_ON_ONCE(!tp->prior_cwnd))
//!         return;
//!     tp->prr_delivered += newly_acked_sacked;
//!     if (delta < 0) {
//!         u64 dividend = (u64)tp->snd_ssthresh * tp->prr_delivered + tp->prior_cwnd - 1;
//!         sndcnt = div_u64(dividend, tp->prior_cwnd) - tp->prr_out;
//!     } else {
//!         sndcnt = max_t(int, tp->prr_delivered - tp->prr_out, newly_acked_sacked);
//!         if (flag & FLAG_SND_UNA_ADVANCED && !newly_lost)
//!             sndcnt++;
//!         sndcnt = min(delta, sndcnt);
//!     }
//!     /* Force a fast retransmit upon entering fast recovery */
//!     sndcnt = max(sndcnt, (tp->prr_out ? 0 : 1));
//!     tcp_snd_cwnd_set(tp, tcp_packets_in_flight(tp) + sndcnt);
//! }
//! ```
//!
//! Ambiguities resolved:
//! - **Units**: packets, as Linux (RFC 6937 counts bytes): DeliveredData is rounded up to
//!   whole segments, every transmission counts one, ssthresh and RecoverFS are whole
//!   segments, and the result is `pipe + sndcnt · SMSS` bytes. In bytes, the ceiling of the
//!   proportional share is taken per byte, so the first segment of each pair goes one ACK later
//!   than Linux sends it.
//! - **RecoverFS**: Linux's `prior_cwnd` (cwnd when the recovery began,
//!   `tcp_init_cwnd_reduction`), not RFC 6937's "RecoverFS = snd.nxt - snd.una" (they differ
//!   only when the sender was not cwnd-limited).
//! - The Slow Start Reduction Bound's extra segment only on an ACK that advances SND.UNA and
//!   marked nothing newly lost (Linux; RFC 6937 §3.1 PRR-SSRB adds MSS on every ACK).
//! - The ACK that starts the recovery is processed by PRR too (Linux `tcp_cong_control` after
//!   `tcp_fastretrans_alert`), and "force a fast retransmit" guarantees one segment for the
//!   fast retransmission.

/// Linux `tcp_end_cwnd_reduction` (net/ipv4/tcp_input.c), the last of the three PRR functions
/// (`tcp_init_cwnd_reduction`, `tcp_cwnd_reduction`, `tcp_end_cwnd_reduction`), called when
/// SND.UNA reaches `high_seq` and the recovery was not undone (`tcp_try_undo_recovery`):
///
/// ```c
/// /* Reset cwnd to ssthresh in CWR or Recovery (unless it's undone) */
/// if (tp->snd_ssthresh < TCP_INFINITE_SSTHRESH &&
///     (inet_csk(sk)->icsk_ca_state == TCP_CA_CWR || tp->undo_marker)) {
///         tcp_snd_cwnd_set(tp, tp->snd_ssthresh);
/// ```
///
/// The same with or without SACK (`tcp_enter_recovery` sets `undo_marker` for Reno recovery
/// too), so a NewReno (SACK-less) recovery also ends with cwnd = ssthresh, not RFC 6582 §3.2
/// step 3's option (1) min(ssthresh, max(FlightSize, SMSS) + SMSS): after the full ACK
/// nothing is in flight and Linux sends ssthresh worth of segments at once (real kernel
/// `sack-off`: 26 segments at 434.7 ms; the simulator with option (1): 2).
pub fn end_cwnd_reduction(st: crate::cc::CcState) -> crate::cc::CcState {
    if st.ssthresh < u64::MAX {
        crate::cc::CcState { cwnd: st.ssthresh, ssthresh: st.ssthresh }
    } else {
        st
    }
}

/// PRR state, named after RFC 6937's variables.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Prr {
    /// `TcpConfig::prr`.
    pub enabled: bool,
    /// A fast recovery with PRR is running.
    pub active: bool,
    /// RFC 6937 "prr_delivered: total bytes delivered to the receiver since the start of
    /// recovery" (Linux `tp->prr_delivered`, packets).
    pub prr_delivered: u64,
    /// RFC 6937 "prr_out: total bytes sent during recovery" (Linux `tp->prr_out`, packets).
    pub prr_out: u64,
    /// RFC 6937 "RecoverFS" (Linux `prior_cwnd`), packets.
    pub recover_fs: u64,
}

/// One ACK during recovery, after the scoreboard and the loss marking were updated.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PrrAckEvent {
    /// RFC 6937 "DeliveredData = change_in(snd.una) + change_in(SACKd)" (bytes).
    pub delivered: u64,
    /// RFC 6675 pipe after the ACK (Linux `tcp_packets_in_flight`).
    pub pipe: u64,
    pub ssthresh: u64,
    pub smss: u64,
    /// The ACK advanced SND.UNA (Linux `FLAG_SND_UNA_ADVANCED`).
    pub snd_una_advanced: bool,
    /// The ACK marked segments newly lost (Linux `newly_lost`).
    pub newly_lost: bool,
}

impl Prr {
    pub fn new(enabled: bool) -> Self {
        Prr { enabled, ..Prr::default() }
    }

    /// RFC 6937 §3.1 "At the beginning of recovery, initialize the PRR state": prr_delivered =
    /// prr_out = 0, RecoverFS (Linux `tcp_init_cwnd_reduction`: `prior_cwnd = snd_cwnd`).
    pub fn on_enter(&mut self, prior_cwnd: u64, smss: u64) {
        if !self.enabled {
            return;
        }
        let recover_fs = (prior_cwnd / smss.max(1)).max(1);
        *self = Prr { enabled: true, active: true, prr_delivered: 0, prr_out: 0, recover_fs };
    }

    /// RFC 6937 §3.1 "On any data transmission or retransmission: prr_out += (data sent)"
    /// (one segment).
    #[inline]
    pub fn on_sent(&mut self) {
        if self.active {
            self.prr_out += 1;
        }
    }

    /// The recovery ended (full ACK, RTO, undo).
    pub fn on_exit(&mut self) {
        self.active = false;
    }

    /// Linux `tcp_cwnd_reduction` (RFC 6937 §3.1 "On every ACK during recovery"): the new cwnd,
    /// or `None` when PRR does not run or the ACK delivered nothing.
    pub fn on_ack(&mut self, ev: &PrrAckEvent) -> Option<u64> {
        if !self.active || ev.delivered == 0 || self.recover_fs == 0 {
            return None;
        }
        let smss = ev.smss.max(1);
        let delivered = ev.delivered.div_ceil(smss);
        // tp->prr_delivered += newly_acked_sacked;
        self.prr_delivered += delivered;
        let ssthresh = i128::from(u32::try_from(ev.ssthresh / smss).unwrap_or(u32::MAX));
        let in_flight = ev.pipe.div_ceil(smss) as i128;
        // int delta = tp->snd_ssthresh - tcp_packets_in_flight(tp);
        let delta = ssthresh - in_flight;
        let prr_out = self.prr_out as i128;
        let mut sndcnt = if delta < 0 {
            // RFC 6937: "if (pipe > ssthresh) { // Proportional Rate Reduction
            //   sndcnt = CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out }"
            let dividend = ssthresh * self.prr_delivered as i128 + self.recover_fs as i128 - 1;
            dividend / self.recover_fs as i128 - prr_out
        } else {
            // RFC 6937 PRR-SSRB: "limit = MAX(prr_delivered - prr_out, DeliveredData) + MSS;
            // sndcnt = MIN(ssthresh - pipe, limit)" — the + MSS as Linux grants it.
            let mut s = (self.prr_delivered as i128 - prr_out).max(delivered as i128);
            if ev.snd_una_advanced && !ev.newly_lost {
                s += 1;
            }
            s.min(delta)
        };
        // "Force a fast retransmit upon entering fast recovery"
        sndcnt = sndcnt.max(if self.prr_out > 0 { 0 } else { 1 });
        // tcp_snd_cwnd_set(tp, tcp_packets_in_flight(tp) + sndcnt);
        Some(ev.pipe + sndcnt.max(0) as u64 * smss)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const S: u64 = 1000;

    fn ev(delivered: u64, pipe: u64, una: bool) -> PrrAckEvent {
        PrrAckEvent { delivered: delivered * S, pipe: pipe * S, ssthresh: 14 * S, smss: S, snd_una_advanced: una, newly_lost: false }
    }

    // RFC 6937 §3.1: while pipe > ssthresh, "sndcnt = CEIL(prr_delivered * ssthresh /
    // RecoverFS) - prr_out": with RecoverFS = 20 and ssthresh = 14 (CUBIC's β = 0.7), 10
    // delivered segments allow ceil(10 · 14 / 20) = 7 sent.
    #[test]
    fn above_ssthresh_sending_is_proportional_to_delivery() {
        let mut p = Prr::new(true);
        p.on_enter(20 * S, S);
        let mut pipe = 19u64; // one segment lost
        let mut sent = 0;
        for _ in 0..10 {
            pipe -= 1; // one segment delivered (SACKed)
            let cwnd = p.on_ack(&ev(1, pipe, false)).unwrap_or(0) / S;
            while pipe < cwnd {
                p.on_sent();
                pipe += 1;
                sent += 1;
            }
        }
        assert_eq!(sent, 7);
        assert_eq!(p.prr_delivered, 10);
        assert_eq!(p.prr_out, 7);
    }

    // "Force a fast retransmit upon entering fast recovery": the first ACK allows one segment
    // even when the proportional share is zero.
    #[test]
    fn the_first_ack_always_allows_the_fast_retransmission() {
        let mut p = Prr::new(true);
        p.on_enter(20 * S, S);
        let cwnd = p.on_ack(&PrrAckEvent { delivered: 1, ..ev(0, 19, false) });
        assert_eq!(cwnd, Some(20 * S));
    }

    // RFC 6937 PRR-SSRB: when pipe <= ssthresh (heavy losses) "limit = MAX(prr_delivered -
    // prr_out, DeliveredData) + MSS; sndcnt = MIN(ssthresh - pipe, limit)": one segment more
    // than delivered on an ACK that advances SND.UNA (Linux: and marks nothing newly lost),
    // never past ssthresh.
    #[test]
    fn below_ssthresh_the_slow_start_reduction_bound_rebuilds_by_one_extra_segment() {
        let mut p = Prr::new(true);
        p.on_enter(20 * S, S);
        p.on_sent();
        let cwnd = p.on_ack(&ev(2, 5, true)).unwrap_or(0);
        // prr_delivered - prr_out = 1, DeliveredData = 2 -> 2 + 1 = 3 segments
        assert_eq!(cwnd, 8 * S);
        let cwnd = p.on_ack(&PrrAckEvent { newly_lost: true, ..ev(2, 5, true) }).unwrap_or(0);
        // prr_delivered - prr_out = 3 -> 3 segments, no extra (newly lost)
        assert_eq!(cwnd, 8 * S);
        let cwnd = p.on_ack(&ev(20, 12, true)).unwrap_or(0);
        assert_eq!(cwnd, 14 * S, "capped at ssthresh");
    }

    #[test]
    fn prr_off_or_outside_recovery_changes_nothing() {
        let mut p = Prr::new(false);
        p.on_enter(20 * S, S);
        assert_eq!(p.on_ack(&ev(1, 10, true)), None);
        let mut p = Prr::new(true);
        p.on_enter(20 * S, S);
        p.on_exit();
        assert_eq!(p.on_ack(&ev(1, 10, true)), None);
    }
}
