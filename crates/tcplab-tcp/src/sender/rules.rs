//! Sender rules written once and used twice: by the simulating [`super::Sender`] to decide,
//! and by the observer ([`crate::observe`]) to explain a captured sender's retransmissions.
//!
//! Each function is a pure rule over a small event struct. The scoreboard rules (RFC 6675
//! IsLost, D-SACK recognition, Karn's rule over the acknowledged segments) live with the
//! scoreboard itself ([`super::scoreboard`]) and are shared the same way: the observer keeps a
//! [`super::scoreboard::Scoreboard`] of what the capture showed.

use crate::cc::RecoveryStyle;
use crate::config::{DupAckThreshold, RttSampling};
use crate::loss::rack::Rack;
use crate::loss::tlp::{calc_pto, calc_pto_linux, PtoRule};
use crate::loss::{LossDecision, RecoveryPhase};
use crate::sender::scoreboard::Scoreboard;
use crate::timer::{TimerKind, Timers};
use tcplab_time::{SimDuration, SimTime};

/// What the duplicate-ACK rules look at in one acceptable ACK (after the SACK blocks were
/// applied to the scoreboard, before the cumulative acknowledgment moved SND.UNA).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct AckShape {
    /// Bytes newly cumulatively acknowledged (SEG.ACK − SND.UNA).
    pub bytes_acked: u64,
    /// Data was outstanding when the ACK arrived (SND.NXT ≠ SND.UNA).
    pub had_outstanding: bool,
    /// Payload bytes of the segment carrying the ACK.
    pub seg_len: u32,
    /// The segment carries SYN or FIN.
    pub syn_or_fin: bool,
    /// The advertised window changed (RFC 9293 SND.WND before ≠ after).
    pub window_changed: bool,
    /// Bytes the ACK's SACK blocks marked SACKed for the first time.
    pub newly_sacked: u64,
}

/// RFC 5681 §2 "DUPLICATE ACKNOWLEDGMENT": "(a) the receiver of the ACK has outstanding data,
/// (b) the incoming acknowledgment carries no data, (c) the SYN and FIN bits are both off,
/// (d) the acknowledgment number is equal to the greatest acknowledgment received on the given
/// connection (TCP.UNA from RFC793) and (e) the advertised window in the incoming
/// acknowledgment equals the advertised window in the last incoming acknowledgment."
#[inline]
pub fn is_dupack_rfc5681(a: &AckShape) -> bool {
    a.bytes_acked == 0 && a.had_outstanding && a.seg_len == 0 && !a.syn_or_fin && !a.window_changed
}

/// RFC 6675 §2 "DupAck": with SACK, "a segment that arrives carrying a SACK block that
/// identifies previously unacknowledged and un-SACKed octets" and does not advance SND.UNA.
/// An ACK that only repeats known SACK blocks (or carries only a D-SACK) is not one.
#[inline]
pub fn is_dupack_rfc6675(a: &AckShape) -> bool {
    a.bytes_acked == 0 && a.had_outstanding && a.newly_sacked > 0
}

/// The duplicate-ACK definition of the running recovery style: RFC 6675 §2 for SACK loss
/// recovery, RFC 5681 §2 otherwise (RFC 6582 NewReno retransmits only at SND.UNA even if the
/// peer sends SACK blocks).
#[inline]
pub fn is_dupack(a: &AckShape, style: RecoveryStyle) -> bool {
    match style {
        RecoveryStyle::Sack => is_dupack_rfc6675(a),
        RecoveryStyle::NewReno => is_dupack_rfc5681(a),
    }
}

/// The fast-retransmit threshold D in force (003 §V-D when adaptive): a fixed D always; an
/// adaptive D = max(1, min(3, F − 2)) on the flight F (segments) now, or, while a
/// duplicate-ACK episode is running (`episode`), the D frozen when it began (so RFC 3042
/// segments sent on the first duplicates do not raise it).
#[inline]
pub fn dupack_threshold(rule: DupAckThreshold, episode: Option<u32>, flight_bytes: u64, smss: u64) -> u32 {
    match (rule, episode) {
        (DupAckThreshold::Fixed(d), _) => d.max(1),
        (DupAckThreshold::Adaptive, Some(d)) => d,
        (DupAckThreshold::Adaptive, None) => rule.for_flight(flight_bytes.div_ceil(smss.max(1))),
    }
}

/// Where the sender's RTT samples come from (one rule for the sender and the observer).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RttSource {
    /// RFC 7323 §4.1: "RTT = current time - SEG.TSecr" on every ACK that advances SND.UNA
    /// (retransmitted data included: the echo names the copy that was acknowledged).
    Timestamps,
    /// Linux 2.4 `tcp_clean_rtx_queue` / `tcp_ack_no_tstamp`: the oldest newly acknowledged
    /// segment on every ACK that advances SND.UNA, none if any of them was retransmitted
    /// (Karn, [`super::scoreboard::CumAck::karn_sample`]).
    PerAckKarn,
    /// RFC 6298 §3 / BSD `t_rtt`: one timed segment per RTT, timing cancelled by any
    /// retransmission (Karn).
    TimedSegment,
}

/// The sample source of [`RttSampling`] with timestamps negotiated (`ts_ok`) or not
/// (`config::RttSampling`'s documentation): timestamps whenever they are in use except for
/// `PerFlight`; otherwise per ACK for `PerAck`, one timed segment per RTT for the others.
#[inline]
pub fn rtt_source(sampling: RttSampling, ts_ok: bool) -> RttSource {
    match (sampling, ts_ok) {
        (RttSampling::PerFlight, _) => RttSource::TimedSegment,
        (_, true) => RttSource::Timestamps,
        (RttSampling::PerAck, false) => RttSource::PerAckKarn,
        (RttSampling::Auto, false) => RttSource::TimedSegment,
    }
}

/// RFC 7323 §4.1: the RTT of an ACK echoing `tsecr` when the sender's timestamp clock reads
/// `ts_now`, in ticks of [`crate::timer::TS_CLOCK_TICK`]; none when the echo lies in the
/// future (a wrapped or bogus TSecr, RFC 7323 §5.5's 2^31 rule).
#[inline]
pub fn ts_rtt_sample(ts_now: u32, tsecr: u32) -> Option<SimDuration> {
    let ticks = ts_now.wrapping_sub(tsecr);
    ((ticks as i32) >= 0).then(|| SimDuration(u64::from(ticks) * crate::timer::TS_CLOCK_TICK.as_nanos()))
}

/// RFC 6298 (5.1): "Every time a packet containing data is sent (including a retransmission),
/// if the timer is not running, start it running so that it will expire after RTO seconds."
#[inline]
pub fn rto_timer_on_send(timers: &mut Timers, now: SimTime, rto: SimDuration) {
    if !timers.is_armed(TimerKind::Rto) {
        timers.arm(TimerKind::Rto, now, rto);
    }
}

/// RFC 6298 (5.2): "When all outstanding data has been acknowledged, turn off the
/// retransmission timer." (5.3): "When an ACK is received that acknowledges new data, restart
/// the retransmission timer so that it will expire after RTO seconds."
#[inline]
pub fn rto_timer_on_ack(timers: &mut Timers, now: SimTime, rto: SimDuration, all_acked: bool, bytes_acked: u64) {
    if all_acked {
        timers.cancel(TimerKind::Rto);
    } else if bytes_acked > 0 {
        timers.arm(TimerKind::Rto, now, rto);
    }
}

/// The probe timeout of the profile's rule: RFC 8985 §7.2 TLP_calc_PTO() or Linux
/// `tcp_schedule_loss_probe` (`loss::tlp`). `flight_size` in bytes.
#[inline]
pub fn probe_timeout(rule: PtoRule, srtt: Option<SimDuration>, flight_size: u64, smss: u64, rto_remaining: Option<SimDuration>) -> SimDuration {
    match rule {
        PtoRule::Rfc8985 => calc_pto(srtt, flight_size, smss, rto_remaining),
        PtoRule::Linux => calc_pto_linux(srtt, flight_size.div_ceil(smss.max(1)), rto_remaining),
    }
}

/// What the loss detector is told about IsLost(SND.UNA) and DupThresh. With RACK (RFC 8985
/// §6) recovery starts when RACK proved a loss anywhere on the scoreboard (Linux
/// `tcp_time_to_recover`: "Trick#1: The loss is proven"), never by counting duplicate ACKs.
#[inline]
pub fn loss_entry_inputs(rack: bool, sb: &Scoreboard, dupthresh: u32) -> (bool, u32) {
    if rack {
        (sb.lost_bytes() > 0, u32::MAX)
    } else {
        (sb.front_is_lost(), dupthresh)
    }
}

/// Linux `tcp_ack_is_dubious` (FLAG_DATA_SACKED) → `tcp_fastretrans_alert` →
/// `tcp_time_to_recover`: with RACK an ACK that advances SND.UNA and also SACKs enters
/// recovery when the scoreboard holds a RACK loss.
#[inline]
pub fn rack_entry(d: LossDecision, rack: bool, newly_sacked: u64, sb: &Scoreboard) -> LossDecision {
    if rack && d == LossDecision::Advance && newly_sacked > 0 && sb.lost_bytes() > 0 {
        LossDecision::EnterRecovery
    } else {
        d
    }
}

/// RFC 8985 §6.2 step 4 RACK.reo_wnd for a sender in `phase` with `sacked_bytes` SACKed
/// (RACK.segs_sacked in whole segments against DupThresh).
#[inline]
pub fn rack_reo_wnd(rack: &Rack, phase: RecoveryPhase, sacked_bytes: u64, smss: u64, dupthresh: u32, srtt: Option<SimDuration>) -> SimDuration {
    let in_recovery = matches!(phase, RecoveryPhase::Recovery { .. } | RecoveryPhase::Loss { .. });
    rack.reo_wnd(in_recovery, sacked_bytes.div_ceil(smss.max(1)), dupthresh, srtt)
}

/// What one ACK offers as Linux's `ca_rtt_us` sample ([`rack_min_rtt_sample`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct CaRttInputs {
    pub now: SimTime,
    /// Send time of the newest segment the cumulative ACK newly acknowledged, `None` when
    /// none was acknowledged or one of them had been retransmitted (Linux
    /// `FLAG_RETRANS_DATA_ACKED`: "Karn's algorithm forbids taking RTT").
    pub acked_newest: Option<SimTime>,
    /// Send time of the newest never-retransmitted segment the ACK newly SACKed
    /// (`scoreboard::Delivered::newest_sacked_original`).
    pub sacked_newest: Option<SimTime>,
    /// The ACK advanced SND.UNA (Linux `FLAG_ACKED`).
    pub acked: bool,
    /// The sender's timestamp clock now and the ACK's TSecr, when timestamps are in use.
    pub ts: Option<(u32, u32)>,
}

/// Linux `tcp_clean_rtx_queue` + `tcp_ack_update_rtt` (net/ipv4/tcp_input.c): the ACK's
/// `ca_rtt_us`, which `tcp_update_rtt_min(sk, ca_rtt_us, flag)` feeds into RACK.min_RTT
/// (RFC 8985 §6.2 step 1):
///
/// ```c
/// ca_rtt_us = tcp_stamp_us_delta(tp->tcp_mstamp, last_ackt);   /* unless RETRANS_DATA_ACKED */
/// if (sack->first_sackt) {
///         sack_rtt_us = tcp_stamp_us_delta(tp->tcp_mstamp, sack->first_sackt);
///         ca_rtt_us = tcp_stamp_us_delta(tp->tcp_mstamp, sack->last_sackt);
/// }
/// ...
/// if (seq_rtt_us < 0)
///         seq_rtt_us = sack_rtt_us;
/// if (seq_rtt_us < 0 && tp->rx_opt.saw_tstamp &&
///     tp->rx_opt.rcv_tsecr && flag & FLAG_ACKED)
///         seq_rtt_us = ca_rtt_us = tcp_rtt_tsopt_us(tp, 1);
/// ```
///
/// The SACK sample takes precedence over the cumulative one; an ACK with neither (it
/// acknowledged only retransmitted or already SACKed data) falls back to the timestamp echo,
/// in whole ticks of the sender's timestamp clock (`tcp_rtt_tsopt_us`: "if (!delta) delta =
/// 1"). That sample is quantised down to the tick: on a 20 ms path an echo 20 ticks old gives
/// exactly 20.000 ms, below every timed sample, and RACK's min_RTT/4 window shrinks with it
/// (real kernel `random-1pct`: the fast retransmit at 964 ms needed reo_wnd <= 5.006 ms; the
/// timed samples alone give min_RTT 20.14 ms).
#[inline]
pub fn rack_min_rtt_sample(i: &CaRttInputs) -> Option<SimDuration> {
    if let Some(t) = i.sacked_newest.or(i.acked_newest) {
        return Some(i.now.saturating_since(t));
    }
    if !i.acked {
        return None;
    }
    let (ts_now, tsecr) = i.ts?;
    if tsecr == 0 {
        return None;
    }
    ts_rtt_sample(ts_now, tsecr).map(|r| r.max(crate::timer::TS_CLOCK_TICK))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dup() -> AckShape {
        AckShape { had_outstanding: true, ..AckShape::default() }
    }

    // Linux tcp_clean_rtx_queue / tcp_ack_update_rtt: the SACK sample before the cumulative
    // one; the TS echo (whole ticks, at least one) only when neither exists and the ACK
    // advanced SND.UNA; a zero TSecr is no echo.
    #[test]
    fn rack_min_rtt_sample_prefers_sack_then_ack_then_the_echo() {
        let t = |m: u64| SimTime(m * 1_000_000);
        let d = SimDuration::from_millis;
        let base = CaRttInputs { now: t(100), acked: true, ts: Some((500, 480)), ..CaRttInputs::default() };
        assert_eq!(rack_min_rtt_sample(&CaRttInputs { acked_newest: Some(t(70)), sacked_newest: Some(t(75)), ..base }), Some(d(25)));
        assert_eq!(rack_min_rtt_sample(&CaRttInputs { acked_newest: Some(t(70)), ..base }), Some(d(30)));
        assert_eq!(rack_min_rtt_sample(&base), Some(d(20)));
        assert_eq!(rack_min_rtt_sample(&CaRttInputs { ts: Some((500, 500)), ..base }), Some(d(1)), "delta 0 counts as 1");
        assert_eq!(rack_min_rtt_sample(&CaRttInputs { acked: false, ..base }), None, "FLAG_ACKED");
        assert_eq!(rack_min_rtt_sample(&CaRttInputs { ts: Some((500, 0)), ..base }), None, "rcv_tsecr 0");
        assert_eq!(rack_min_rtt_sample(&CaRttInputs { ts: None, ..base }), None);
    }

    #[test]
    fn rfc5681_duplicate_needs_every_condition() {
        assert!(is_dupack_rfc5681(&dup()));
        assert!(!is_dupack_rfc5681(&AckShape { had_outstanding: false, ..dup() }), "(a)");
        assert!(!is_dupack_rfc5681(&AckShape { seg_len: 1, ..dup() }), "(b)");
        assert!(!is_dupack_rfc5681(&AckShape { syn_or_fin: true, ..dup() }), "(c)");
        assert!(!is_dupack_rfc5681(&AckShape { bytes_acked: 1, ..dup() }), "(d)");
        assert!(!is_dupack_rfc5681(&AckShape { window_changed: true, ..dup() }), "(e)");
    }

    #[test]
    fn rfc6675_duplicate_needs_new_sack_information() {
        assert!(!is_dupack(&dup(), RecoveryStyle::Sack), "SACK blocks alone are not enough");
        assert!(is_dupack(&AckShape { newly_sacked: 1, ..dup() }, RecoveryStyle::Sack));
        // Window updates and data do not matter to RFC 6675's definition.
        assert!(is_dupack(&AckShape { newly_sacked: 1, seg_len: 10, window_changed: true, ..dup() }, RecoveryStyle::Sack));
        assert!(!is_dupack(&AckShape { newly_sacked: 1, bytes_acked: 1, ..dup() }, RecoveryStyle::Sack));
    }

    #[test]
    fn adaptive_threshold_is_frozen_for_the_episode() {
        let a = DupAckThreshold::Adaptive;
        assert_eq!(dupack_threshold(a, None, 4 * 1000, 1000), 2);
        assert_eq!(dupack_threshold(a, Some(1), 100 * 1000, 1000), 1);
        assert_eq!(dupack_threshold(DupAckThreshold::Fixed(0), Some(2), 0, 1000), 1);
    }

    /// `RttSampling`'s table: timestamps whenever negotiated except per-flight; without them
    /// per-ACK Karn samples for `PerAck`, a timed segment otherwise.
    #[test]
    fn the_sample_source_follows_sampling_and_timestamps() {
        assert_eq!(rtt_source(RttSampling::Auto, true), RttSource::Timestamps);
        assert_eq!(rtt_source(RttSampling::PerAck, true), RttSource::Timestamps);
        assert_eq!(rtt_source(RttSampling::PerFlight, true), RttSource::TimedSegment);
        assert_eq!(rtt_source(RttSampling::Auto, false), RttSource::TimedSegment);
        assert_eq!(rtt_source(RttSampling::PerAck, false), RttSource::PerAckKarn);
    }

    /// RFC 7323 §4.1 in clock ticks; an echo from the future gives no sample.
    #[test]
    fn a_timestamp_sample_counts_clock_ticks() {
        assert_eq!(ts_rtt_sample(150, 100), Some(SimDuration::from_millis(50)));
        assert_eq!(ts_rtt_sample(5, u32::MAX - 4), Some(SimDuration::from_millis(10)), "across the wrap");
        assert_eq!(ts_rtt_sample(100, 101), None);
    }
}
