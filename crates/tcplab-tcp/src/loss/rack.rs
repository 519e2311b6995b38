//! RACK (RFC 8985 §6; Linux `net/ipv4/tcp_recovery.c`): time-based loss detection for the
//! RFC sender with SACK (`TcpConfig::rack`). TLP (RFC 8985 §7) is [`super::tlp`].
//!
//! A segment is lost when a segment sent after it has been delivered (cumulatively or by SACK)
//! and it has not been delivered within RACK.rtt + RACK.reo_wnd of its own transmission. That
//! rule covers retransmissions as well as originals, so a retransmission that is lost again
//! is repaired one round trip later instead of by backed-off RTOs (lost-retransmission
//! detection), and losses are found without counting duplicate ACKs.
//!
//! | step | RFC 8985 | here |
//! |---|---|---|
//! | 1 update RACK.min_RTT | §6.2 step 1 | [`Rack::on_ack`] (`min_rtt`) |
//! | 2 RACK_update(): RACK.xmit_ts, RACK.end_seq, RACK.rtt | §6.2 step 2 | [`Rack::on_ack`] |
//! | 3 RACK_detect_reordering() | §6.2 step 3 | [`Rack::on_ack`] (`reordering_seen`) |
//! | 4 RACK_update_reo_wnd() (D-SACK steps, 16 recoveries) | §6.2 step 4 | [`Rack::on_ack`], [`Rack::on_recovery_exit`], [`Rack::reo_wnd`] |
//! | 5 RACK_detect_loss() | §6.2 step 5 | [`Rack::detect_loss`] over the scoreboard |
//! | reordering timer | §6.3 | `TimerKind::RackReo`, armed with [`Rack::detect_loss`]'s timeout |
//!
//! The sender (`sender/rack.rs`) feeds each ACK's delivered segments
//! ([`crate::sender::scoreboard::Delivered`]), replaces RFC 6675 IsLost marking by
//! [`Rack::detect_loss`], starts fast recovery when the scoreboard holds lost data (Linux
//! `tcp_time_to_recover`: "Trick#1: The loss is proven"; no duplicate-ACK counting with RACK),
//! and on the reordering timer enters recovery and retransmits (`tcp_rack_reo_timeout`).
//!
//! Ambiguities resolved:
//! - **Which timeout the reordering timer waits for.** RFC 8985 and Linux take the *largest*
//!   remaining time of the segments still waiting, and mark them all when it expires. To keep
//!   the per-ACK work independent of the window (the scoreboard is ordered by sequence, not by
//!   send time, and the waiting holes lie among SACKed segments), the scan here stops at the
//!   first waiting segment and the timer is armed for *its* expiry; the next expiry re-arms for
//!   the next one. Each segment is therefore marked lost exactly when its own
//!   `xmit_ts + RACK.rtt + reo_wnd` passes (Linux marks the earlier ones of a batch at the last
//!   one's time, at most one reo_wnd later).
//! - **Never-retransmitted segments** are sent in sequence order, so the lost ones form a
//!   prefix: marking advances the scoreboard's IsLost watermark
//!   (`Scoreboard::mark_lost_below_watermark`) to the first segment that is not lost,
//!   past the SACKed and retransmitted ones, amortised O(1) per segment. A retransmission that
//!   was not marked lost first (a TLP probe, RFC 6675's rescue) is marked lost when the
//!   watermark passes it; its retransmission stays counted in pipe, so it counts once.
//!   **Retransmissions** are kept in a queue in the order they were sent (Linux's
//!   `tsorted_sent_queue` for retransmitted segments), checked from its head.
//! - **RACK.min_RTT** is the minimum of the per-ACK `ca_rtt` samples (Linux
//!   `tcp_update_rtt_min(sk, ca_rtt_us, flag)`), over the whole connection (Linux keeps a
//!   300 s windowed minimum, `tcp_min_rtt_wlen`; simulated connections are shorter). The
//!   sample is Linux's (`sender::rules::rack_min_rtt_sample`): the newest newly SACKed
//!   original, else the newest newly acknowledged one, else (an ACK of retransmitted or
//!   already SACKed data only) the timestamp echo in whole 1 ms ticks, which can lie below
//!   every timed sample and so shrinks the min_RTT/4 window (real kernel `random-1pct`).
//! - A delivered retransmission whose RTT is below RACK.min_RTT does not advance RACK (Linux
//!   `tcp_rack_advance`: "it's ambiguous whether the retransmission or the original ... was
//!   sacked"); the RFC's additional timestamp-echo test is not made (no per-segment TSval).
//! - **RACK.segs_sacked >= DupThresh** (reo_wnd 0 before reordering is seen) counts SACKed
//!   bytes in whole segments against the connection's DupThresh (Linux `tp->sacked_out >=
//!   tp->reordering`).
//! - **An RTO keeps the retransmission queue** (Linux keeps `tsorted_sent_queue` across
//!   `tcp_enter_loss`; `tcp_timeout_mark_lost` only tags segments). A retransmission sent
//!   before the RTO that the timeout did not re-tag (a TLP probe or a fast-recovery
//!   retransmission while F-RTO retransmits only SND.UNA) stays in it, so RACK can still find
//!   it lost on a later ACK; entries whose segment was re-tagged (go-back-N clears RETRANS) or
//!   sent again are dropped lazily by [`Rack::detect_loss`].
//! - The reordering timer adds Linux's `TCP_TIMEOUT_MIN` (2 jiffies at HZ = 250) to the
//!   remaining time (`tcp_rack_mark_lost`: `timeout = usecs_to_jiffies(timeout) +
//!   TCP_TIMEOUT_MIN`); it is a timer of its own beside the RTO (Linux multiplexes both on one
//!   `icsk_retransmit_timer` and re-arms the RTO after it).

use crate::sender::scoreboard::{Delivered, Scoreboard, LOST, RETRANS, SACKED};
use crate::seq::SeqNum;
use std::collections::VecDeque;
use tcplab_time::{SimDuration, SimTime};

/// RFC 8985 §6.2 step 4: "RACK.reo_wnd_persist = 16" (Linux `TCP_RACK_RECOVERY_THRESH`).
pub const REO_WND_PERSIST: u32 = 16;
/// RFC 8985 §6.2 step 4: the reordering window is `RACK.reo_wnd_mult * RACK.min_RTT / 4`.
pub const REO_WND_MIN_RTT_DIVISOR: u64 = 4;
/// Linux `tcp_rack_update_reo_wnd`: `reo_wnd_steps = min_t(u32, 0xFF, steps + 1)`.
pub const REO_WND_MULT_MAX: u32 = 0xFF;
/// Linux `TCP_TIMEOUT_MIN` (2 jiffies) at HZ = 250: added to the reordering timer.
pub const TCP_TIMEOUT_MIN: SimDuration = SimDuration::from_millis(8);

/// RFC 8985 §6.2 RACK_sent_after(t1, seq1, t2, seq2): "If t1 > t2: Return true; Else if t1 ==
/// t2 AND seq1 > seq2: Return true; Else: Return false".
#[inline]
pub fn sent_after(t1: SimTime, seq1: SeqNum, t2: SimTime, seq2: SeqNum) -> bool {
    t1 > t2 || (t1 == t2 && seq1.gt(seq2))
}

/// RACK state, named after RFC 8985's variables.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rack {
    /// `TcpConfig::rack` and SACK negotiated.
    pub enabled: bool,
    /// "RACK.xmit_ts: the latest transmission timestamp of the most recently delivered
    /// segment" (None before the first delivery).
    pub xmit_ts: Option<SimTime>,
    /// "RACK.end_seq: the ending TCP sequence number of [that] segment".
    pub end_seq: SeqNum,
    /// "RACK.rtt: the RTT of the most recently delivered segment".
    pub rtt: SimDuration,
    /// RACK advanced on this ACK (Linux `rack.advanced`: only then is the scoreboard scanned).
    pub advanced: bool,
    /// "RACK.min_RTT".
    pub min_rtt: Option<SimDuration>,
    /// "RACK.fack: the highest selectively or cumulatively acknowledged sequence".
    pub fack: SeqNum,
    /// "RACK.reordering_seen".
    pub reordering_seen: bool,
    /// "RACK.reo_wnd_mult" (Linux `reo_wnd_steps`).
    pub reo_wnd_mult: u32,
    /// "RACK.reo_wnd_persist".
    pub reo_wnd_persist: u32,
    /// "RACK.dsack_round" (None = the RFC's None).
    pub dsack_round: Option<SeqNum>,
    /// Retransmissions in the order they were sent: (start, send time).
    rtx_queue: VecDeque<(SeqNum, SimTime)>,
}

/// One ACK, after the scoreboard applied it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RackAckEvent {
    pub now: SimTime,
    pub delivered: Delivered,
    /// Linux `ca_rtt_us` (newest newly acknowledged, never retransmitted) for RACK.min_RTT.
    pub rtt_sample: Option<SimDuration>,
    /// The ACK carried a D-SACK block.
    pub dsack: bool,
    pub snd_una: SeqNum,
    pub snd_nxt: SeqNum,
}

/// What [`Rack::detect_loss`] found.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RackLoss {
    /// Bytes newly marked lost (originals and retransmissions).
    pub newly_lost: u64,
    /// Of which retransmissions lost again.
    pub lost_retransmissions: u32,
    /// RFC 8985 §6.3: when to look again (the reordering timer), if a segment waits.
    pub timeout: Option<SimDuration>,
}

impl Rack {
    pub fn new(enabled: bool) -> Self {
        Rack { enabled, reo_wnd_mult: 1, ..Rack::default() }
    }

    /// A segment starting at `start` was retransmitted at `now`.
    pub fn on_retransmit(&mut self, start: SeqNum, now: SimTime) {
        if self.enabled {
            self.rtx_queue.push_back((start, now));
        }
    }

    /// RFC 8985 §6.2 step 1 for the handshake's RTT (Linux `tcp_ack_update_rtt` ->
    /// `tcp_update_rtt_min` on the SYN / SYN-ACK sample; called by the connection when it is
    /// established from an unretransmitted SYN or SYN-ACK).
    pub fn on_handshake_rtt(&mut self, rtt: SimDuration) {
        if self.enabled {
            self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        }
    }

    /// Linux `tcp_try_undo_partial` -> `tcp_packet_delayed` -> `tcp_check_sack_reordering`:
    /// a partial ACK in fast recovery whose echo `tsecr` is before `first_rtx_tsval` (the
    /// TSval of the recovery's first retransmission, Linux `retrans_stamp`;
    /// `tcp_tsopt_ecr_before`: "before(tp->rx_opt.rcv_tsecr, when)", modulo 2^32) was
    /// triggered by the delayed original: reordering seen (see `sender/rack.rs`).
    pub fn on_partial_ack_echo(&mut self, tsecr: u32, first_rtx_tsval: u32) {
        if self.enabled && crate::timer::ts_before(tsecr, first_rtx_tsval) {
            self.reordering_seen = true;
        }
    }

    /// RFC 8985 §6.2 steps 1–4 for one ACK.
    #[inline]
    pub fn on_ack(&mut self, ev: &RackAckEvent) {
        // Step 1: "Update RACK.min_RTT".
        if let Some(r) = ev.rtt_sample {
            self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        }
        // Step 2: RACK_update() for the newest delivered segment.
        if let Some((xmit_ts, end, retransmitted)) = ev.delivered.newest {
            let rtt = ev.now.saturating_since(xmit_ts);
            // "If Segment.retransmitted is TRUE: ... If rtt < RACK.min_RTT: Return"
            let ambiguous = retransmitted && self.min_rtt.is_some_and(|m| rtt < m);
            let newer = self.xmit_ts.is_none_or(|t| sent_after(xmit_ts, end, t, self.end_seq));
            if !ambiguous && newer {
                // "RACK.rtt = rtt; If RACK_sent_after(Segment.xmit_ts, Segment.end_seq,
                // RACK.xmit_ts, RACK.end_seq): RACK.xmit_ts = ...; RACK.end_seq = ..."
                self.rtt = rtt;
                self.xmit_ts = Some(xmit_ts);
                self.end_seq = end;
                self.advanced = true;
            }
        }
        // Step 3: RACK_detect_reordering(): "If Segment.end_seq > RACK.fack: RACK.fack =
        // Segment.end_seq; Else if Segment.end_seq < RACK.fack AND Segment.retransmitted is
        // FALSE: RACK.reordering_seen = TRUE".
        if let Some(low) = ev.delivered.lowest_original_end {
            if low.lt(self.fack) {
                self.reordering_seen = true;
            }
        }
        if let Some(h) = ev.delivered.highest_end {
            if h.gt(self.fack) {
                self.fack = h;
            }
        }
        // Step 4 (D-SACK part): "If RACK.dsack_round is not None AND SND.UNA >=
        // RACK.dsack_round: RACK.dsack_round = None. If RACK.dsack_round is None AND any DSACK
        // option is present on latest received ACK: RACK.dsack_round = SND.NXT;
        // RACK.reo_wnd_mult += 1; RACK.reo_wnd_persist = 16".
        if self.dsack_round.is_some_and(|r| ev.snd_una.ge(r)) {
            self.dsack_round = None;
        }
        if self.dsack_round.is_none() && ev.dsack {
            self.dsack_round = Some(ev.snd_nxt);
            self.reo_wnd_mult = (self.reo_wnd_mult + 1).min(REO_WND_MULT_MAX);
            self.reo_wnd_persist = REO_WND_PERSIST;
        }
    }

    /// RFC 8985 §6.2 step 4: "Else if exiting Fast or RTO recovery: RACK.reo_wnd_persist -= 1;
    /// If RACK.reo_wnd_persist <= 0: RACK.reo_wnd_mult = 1".
    pub fn on_recovery_exit(&mut self) {
        self.reo_wnd_persist = self.reo_wnd_persist.saturating_sub(1);
        if self.reo_wnd_persist == 0 {
            self.reo_wnd_mult = 1;
        }
    }

    /// RFC 8985 §6.2 step 4 RACK.reo_wnd: "If RACK.reordering_seen is FALSE: If in Fast or RTO
    /// recovery: Return 0; Else if RACK.segs_sacked >= DupThresh: Return 0. Return
    /// min(RACK.reo_wnd_mult * RACK.min_RTT / 4, SRTT)".
    pub fn reo_wnd(&self, in_recovery: bool, segs_sacked: u64, dupthresh: u32, srtt: Option<SimDuration>) -> SimDuration {
        if !self.reordering_seen && (in_recovery || segs_sacked >= u64::from(dupthresh)) {
            return SimDuration::ZERO;
        }
        let Some(min_rtt) = self.min_rtt else { return SimDuration::ZERO };
        let w = SimDuration(min_rtt.as_nanos() / REO_WND_MIN_RTT_DIVISOR).saturating_mul(u64::from(self.reo_wnd_mult));
        match srtt {
            Some(s) => w.min(s),
            None => w,
        }
    }

    /// True when [`Rack::detect_loss`] can mark nothing and arm no timer, whatever the
    /// reordering window: no RACK.xmit_ts yet, or nothing SACKed and no retransmission out —
    /// then every outstanding segment is an original above the cumulative ACK, sent after
    /// everything delivered, and none can be "sent before RACK.xmit_ts" (the per-ACK fast
    /// path of Open; the caller may skip computing RACK.reo_wnd).
    #[inline]
    pub fn nothing_to_mark(&self, sb: &Scoreboard) -> bool {
        self.xmit_ts.is_none() || (sb.sacked_bytes() == 0 && self.rtx_queue.is_empty())
    }

    /// RFC 8985 §6.2 step 5 RACK_detect_loss(): "For each segment, Segment, not acknowledged
    /// yet: If RACK_sent_after(RACK.xmit_ts, RACK.end_seq, Segment.xmit_ts, Segment.end_seq):
    /// remaining = Segment.xmit_ts + RACK.rtt + RACK.reo_wnd - Now(); If remaining <= 0:
    /// Segment.lost = TRUE ... Else: timeout = max(remaining, timeout)" (see the module docs
    /// for the timeout of the first waiting segment). `snd_una` bounds the scan from below.
    pub fn detect_loss(&mut self, sb: &mut Scoreboard, now: SimTime, reo_wnd: SimDuration) -> RackLoss {
        self.advanced = false;
        let mut out = RackLoss::default();
        if self.nothing_to_mark(sb) {
            return out;
        }
        let Some(rack_ts) = self.xmit_ts else { return out };
        let wait = self.rtt + reo_wnd;
        // Never-retransmitted segments, in sequence (= send) order from the watermark. The
        // walk stops at the first one that is not (yet) lost; everything it passed is SACKed,
        // already lost or retransmitted, or lost now, so the IsLost watermark rises to where it
        // stopped and the next scan starts there (amortised O(1) per segment).
        let mut i = sb.index_at_or_after(sb.lost_upto());
        let mut stop = None;
        while let Some(g) = sb.get(i).copied() {
            if g.flags & (SACKED | LOST | RETRANS) != 0 {
                i += 1;
                continue;
            }
            if !sent_after(rack_ts, self.end_seq, g.sent_at, g.end()) {
                stop = Some(g.start);
                break;
            }
            let deadline = g.sent_at.saturating_add(wait);
            if deadline <= now {
                i += 1;
            } else {
                out.timeout = Some(deadline.saturating_since(now));
                stop = Some(g.start);
                break;
            }
        }
        let target = stop.or_else(|| sb.get(sb.len().wrapping_sub(1)).map(|g| g.end()));
        if let Some(t) = target {
            out.newly_lost += sb.mark_lost_below_watermark(t);
        }
        // Retransmissions, in the order they were sent.
        while let Some(&(start, sent)) = self.rtx_queue.front() {
            let j = sb.index_at_or_after(start);
            let live = sb.get(j).filter(|g| g.start == start && g.sent_at == sent && g.flags & RETRANS != 0 && g.flags & SACKED == 0);
            let Some(g) = live.copied() else {
                // Delivered, SACKed, or sent again since: not waiting any more.
                self.rtx_queue.pop_front();
                continue;
            };
            if !sent_after(rack_ts, self.end_seq, g.sent_at, g.end()) {
                break;
            }
            let deadline = g.sent_at.saturating_add(wait);
            if deadline <= now {
                out.newly_lost += sb.retransmission_lost(j);
                out.lost_retransmissions += 1;
                self.rtx_queue.pop_front();
            } else {
                let t = deadline.saturating_since(now);
                out.timeout = Some(out.timeout.map_or(t, |o| o.min(t)));
                break;
            }
        }
        out
    }

}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segment::SackBlock;
    use crate::sender::scoreboard::SentSeg;

    const S: u32 = 1000;
    fn ms(m: u64) -> SimTime {
        SimTime::from_nanos(m * 1_000_000)
    }
    fn d(m: u64) -> SimDuration {
        SimDuration::from_millis(m)
    }

    /// Ten segments sent 1 ms apart from t = 0 (segment k starts at k·S).
    fn board() -> Scoreboard {
        let mut sb = Scoreboard::new(SeqNum(0));
        for k in 0..10u32 {
            sb.push(SentSeg { start: SeqNum(k * S), len: S, fin: false, sent_at: ms(u64::from(k)), flags: 0 });
        }
        sb
    }

    fn sack(sb: &mut Scoreboard, rack: &mut Rack, now: SimTime, left: u32, right: u32) {
        sb.delivered = Delivered::default();
        sb.apply_sack(&[SackBlock { left: SeqNum(left), right: SeqNum(right) }], SeqNum(0), SeqNum(0), SeqNum(10 * S));
        rack.on_ack(&RackAckEvent { now, delivered: sb.delivered, rtt_sample: None, dsack: false, snd_una: SeqNum(0), snd_nxt: SeqNum(10 * S) });
    }

    // Linux tcp_packet_delayed: an echo before the first retransmission's TSval (modulo
    // 2^32) is reordering evidence; the retransmission's own echo or a later one is not.
    #[test]
    fn a_partial_ack_echoing_a_tsval_before_the_first_retransmission_is_reordering() {
        let mut r = Rack::new(true);
        r.on_partial_ack_echo(100, 100);
        r.on_partial_ack_echo(120, 100);
        assert!(!r.reordering_seen);
        r.on_partial_ack_echo(u32::MAX, 3);
        assert!(r.reordering_seen);
        let mut off = Rack::new(false);
        off.on_partial_ack_echo(1, 100);
        assert!(!off.reordering_seen);
    }

    // RFC 8985 §6.2 RACK_sent_after: time first, then the end sequence as the tie-break.
    #[test]
    fn sent_after_orders_by_time_then_sequence() {
        assert!(sent_after(ms(2), SeqNum(1), ms(1), SeqNum(9)));
        assert!(sent_after(ms(1), SeqNum(9), ms(1), SeqNum(1)));
        assert!(!sent_after(ms(1), SeqNum(1), ms(1), SeqNum(1)));
    }

    // RFC 8985 §6.2 step 5: segments sent before RACK.xmit_ts are lost once
    // "Segment.xmit_ts + RACK.rtt + RACK.reo_wnd - Now() <= 0"; a waiting one sets the timer to
    // its remaining time; segments sent after the delivered one are never marked.
    #[test]
    fn segments_sent_before_a_delivered_one_are_lost_after_rtt_plus_reo_wnd() {
        let mut sb = board();
        let mut rack = Rack::new(true);
        // Segment 5 (sent at 5 ms) SACKed at 105 ms: RACK.rtt = 100 ms.
        sack(&mut sb, &mut rack, ms(105), 5 * S, 6 * S);
        assert_eq!(rack.xmit_ts, Some(ms(5)));
        assert_eq!(rack.rtt, d(100));
        // reo_wnd 2 ms: segments 0-3 (sent 0-3 ms) expire by 105 ms (3 + 100 + 2 = 105),
        // segment 4 waits 1 ms.
        let out = rack.detect_loss(&mut sb, ms(105), d(2));
        assert_eq!(out.newly_lost, 4 * u64::from(S));
        assert_eq!(out.timeout, Some(d(1)));
        assert!(sb.get(3).is_some_and(|g| g.has(LOST)));
        assert!(!sb.get(4).is_some_and(|g| g.has(LOST)));
        // At 106 ms segment 4 expires; 6.. were sent after RACK.xmit_ts and stay.
        let out = rack.detect_loss(&mut sb, ms(106), d(2));
        assert_eq!(out.newly_lost, u64::from(S));
        assert_eq!(out.timeout, None);
        assert!(!sb.get(6).is_some_and(|g| g.has(LOST)));
    }

    // RFC 8985 §2 / Linux tcp_rack_mark_skb_lost: a retransmission is lost again when a segment
    // sent after it is delivered and RACK.rtt + reo_wnd passed; it stops counting as
    // retransmitted (pipe) and NextSeg() finds it again.
    #[test]
    fn a_lost_retransmission_is_detected_when_later_data_is_delivered() {
        let mut sb = board();
        let mut rack = Rack::new(true);
        // Segments 5-9 SACKed at 105 ms: 0-4 are lost (reo_wnd 0).
        sack(&mut sb, &mut rack, ms(105), 5 * S, 10 * S);
        assert_eq!(rack.detect_loss(&mut sb, ms(106), d(0)).newly_lost, 5 * u64::from(S));
        // Segments 0 and 1 retransmitted at 106 and 107 ms.
        let i0 = sb.next_retransmit(false).unwrap_or(99);
        assert_eq!(i0, 0);
        sb.on_retransmit(0, ms(106));
        rack.on_retransmit(SeqNum(0), ms(106));
        sb.on_retransmit(1, ms(107));
        rack.on_retransmit(SeqNum(S), ms(107));
        let pipe_before = sb.pipe(SeqNum(0), SeqNum(10 * S));
        // The retransmission of 1 is SACKed at 210 ms; 0's retransmission (sent earlier) is not.
        sack(&mut sb, &mut rack, ms(210), S, 2 * S);
        assert_eq!(rack.xmit_ts, Some(ms(107)));
        let out = rack.detect_loss(&mut sb, ms(210), d(0));
        assert_eq!(out.lost_retransmissions, 1);
        assert!(sb.get(0).is_some_and(|g| g.has(LOST) && !g.has(RETRANS)));
        assert_eq!(sb.pipe(SeqNum(0), SeqNum(10 * S)), pipe_before - 2 * u64::from(S));
        assert_eq!(sb.next_retransmit(false), Some(0));
    }

    // RFC 8985 §6.2 step 4: reo_wnd = 0 before reordering is seen when in recovery or when
    // DupThresh segments are SACKed; else min(mult · min_RTT / 4, SRTT). A D-SACK raises mult
    // once per round (dsack_round) and keeps it for 16 recoveries.
    #[test]
    fn reo_wnd_is_a_quarter_min_rtt_scaled_by_dsack_rounds_for_16_recoveries() {
        let mut rack = Rack::new(true);
        rack.min_rtt = Some(d(40));
        assert_eq!(rack.reo_wnd(false, 0, 3, Some(d(50))), d(10));
        assert_eq!(rack.reo_wnd(true, 0, 3, Some(d(50))), d(0));
        assert_eq!(rack.reo_wnd(false, 3, 3, Some(d(50))), d(0));
        rack.reordering_seen = true;
        assert_eq!(rack.reo_wnd(true, 3, 3, Some(d(50))), d(10));
        let ev = |dsack, una: u32| RackAckEvent {
            now: ms(0),
            delivered: Delivered::default(),
            rtt_sample: None,
            dsack,
            snd_una: SeqNum(una),
            snd_nxt: SeqNum(100),
        };
        rack.on_ack(&ev(true, 0));
        rack.on_ack(&ev(true, 50)); // same round: no second step
        assert_eq!(rack.reo_wnd_mult, 2);
        rack.on_ack(&ev(true, 100)); // round over: next D-SACK steps again
        assert_eq!(rack.reo_wnd_mult, 3);
        assert_eq!(rack.reo_wnd(false, 0, 3, Some(d(50))), d(30));
        assert_eq!(rack.reo_wnd(false, 0, 3, Some(d(20))), d(20), "capped at SRTT");
        for _ in 0..15 {
            rack.on_recovery_exit();
        }
        assert_eq!(rack.reo_wnd_mult, 3);
        rack.on_recovery_exit();
        assert_eq!(rack.reo_wnd_mult, 1);
    }

    // RFC 8985 §6.2 step 3: an original delivered below RACK.fack means reordering.
    #[test]
    fn an_original_delivered_below_fack_is_reordering() {
        let mut sb = board();
        let mut rack = Rack::new(true);
        sack(&mut sb, &mut rack, ms(105), 5 * S, 6 * S);
        assert!(!rack.reordering_seen);
        sack(&mut sb, &mut rack, ms(106), 3 * S, 4 * S);
        assert!(rack.reordering_seen);
    }
}
