//! Aron & Druschel's ssthresh estimation (000 §4.2.1), as a [`StartupPolicy`].
//!
//! 000 §4.2.1: "The bandwidth, bw, is estimated based on the interarrival times of closely
//! spaced acknowledgements such that the total acknowledged data used to estimate the
//! bandwidth is at least 2 segments. The bandwidth-delay product is computed by taking the
//! product of the bandwidth with the estimated RTT. An ssthresh estimation is then made by
//! setting it to this value."
//!
//! "Instead of estimating the ssthresh only once, we estimate its value repeatedly at most
//! once every RTT. The new ssthresh value at each estimation is set to the minimum of all
//! estimations done so far. As soon as an estimation lies within 10% of the minimum of the
//! estimations done so far, the resulting ssthresh value is considered to be final and no
//! more estimations are performed."
//!
//! "The value of pthresh is then set to half the value of the estimated ssthresh." (used by
//! the pacer, [`crate::pacing`]).
//!
//! The initial window is 000 §4.2.1's "MIN(4 * MSS, MAX(2 * MSS, 4380bytes))", i.e.
//! [`crate::config::InitialWindow::Rfc3390`]; this policy takes the configured initial window
//! (the `bsd-prop-*` profiles set RFC 3390) so the two parts can be switched separately.
//!
//! Ambiguities resolved:
//! - **"Closely spaced".** The paper's own description of the packet-pair principle it builds
//!   on is "measuring the difference in the times of reception of the ACKs of two closely
//!   sent data segments" (§4.2). tcplab reads "closely spaced" that way: ACKs form a *train*
//!   while the newest segment each of them acknowledges was sent at most
//!   [`CLOSE_SEND_SPACING`] of the train's arrival spread after the segment acknowledged by
//!   the ACK that opened the train (segments sent in one burst have the same send time in the
//!   engine, so their spacing on return was set by the path). An ACK that breaks the rule
//!   opens a new train. A train spanning the idle gap between two slow-start rounds is thereby
//!   excluded: its segments left the sender about as far apart as their ACKs returned.
//! - **bw** = bytes acknowledged by the train's ACKs after the first / (arrival of the last −
//!   arrival of the first), computed as soon as those bytes reach
//!   [`MIN_ESTIMATION_SEGMENTS`] · SMSS ("at least 2 segments"). Trains whose ACKs arrive at
//!   one instant (zero spread, ACK compression) give no estimate.
//! - **Which RTT.** The RTT estimator's smoothed RTT (srtt, `sa` of eq. 1 — "the estimated
//!   RTT"; the paper halves the result for pthresh partly to compensate "an elevated RTT
//!   estimate (due to any queuing delays)", so it is the smoothed, not the minimum, RTT). No
//!   estimate is made before the first RTT sample.
//! - **Once per RTT.** After an estimation at time t, the next train may only open with an ACK
//!   arriving at or after t + srtt.
//! - **"Within 10 %"**: |estimate − minimum of the earlier estimates| ≤ minimum / 10. The first
//!   estimate is never final.
//! - **When estimation stops**: when final, or when the sender leaves the initial slow start
//!   through a loss (fast retransmit or timeout; the sender calls
//!   [`StartupPolicy::on_slow_start_end`]). Retransmitted data gives no samples.
//! - **Lower bound**: an estimate is never below [`MIN_SSTHRESH_SEGMENTS`] · SMSS (RFC 5681's
//!   floor for ssthresh; tcplab choice).

use super::{InitialWindowPolicy, SsthreshEstimate, StartupAckEvent, StartupEvent, StartupPolicy};
use crate::config::Ratio;
use tcplab_time::{SimDuration, SimTime};

/// 000 §4.2.1: "the total acknowledged data used to estimate the bandwidth is at least 2
/// segments".
pub const MIN_ESTIMATION_SEGMENTS: u64 = 2;
/// 000 §4.2.1: "As soon as an estimation lies within 10% of the minimum ... final".
pub const FINAL_TOLERANCE: Ratio = Ratio::new(1, 10);
/// tcplab choice (module docs): an ACK stays in a train while its segment was sent within
/// this fraction of the train's arrival spread after the train's first segment.
pub const CLOSE_SEND_SPACING: Ratio = Ratio::new(1, 2);
/// RFC 5681 eq. 4's floor of 2·SMSS, applied to estimates (tcplab choice).
pub const MIN_SSTHRESH_SEGMENTS: u64 = 2;

/// A rate as bytes per interval (exact integers).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Rate {
    pub bytes: u64,
    pub per: SimDuration,
}

impl Rate {
    /// `bytes / per · d`, saturating.
    pub fn bytes_in(&self, d: SimDuration) -> u64 {
        let r = u128::from(self.bytes) * u128::from(d.as_nanos()) / u128::from(self.per.as_nanos().max(1));
        u64::try_from(r).unwrap_or(u64::MAX)
    }
    /// Time to send `bytes` at this rate (rounded up).
    pub fn time_for(&self, bytes: u64) -> SimDuration {
        let r = (u128::from(bytes) * u128::from(self.per.as_nanos())).div_ceil(u128::from(self.bytes.max(1)));
        SimDuration(u64::try_from(r).unwrap_or(u64::MAX))
    }
    /// Bits per second (for display).
    pub fn bps(&self) -> f64 {
        self.bytes as f64 * 8.0 / (self.per.as_nanos().max(1) as f64 / 1e9)
    }
}

/// The first ACK of a train.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TrainStart {
    /// Arrival of the train's first ACK.
    pub at: SimTime,
    /// Send time of the segment it acknowledged.
    pub sent: SimTime,
}

/// Where the estimator is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EstimationPhase {
    /// Collecting ACK trains. `train`: the open train and the bytes acknowledged after its
    /// first ACK; `not_before`: no train opens before this time (once per RTT).
    Measuring { train: Option<(TrainStart, u64)>, not_before: SimTime },
    /// An estimate fell within 10 % of the minimum: no more estimations.
    Final,
    /// The initial slow start ended with a loss before the estimate became final.
    Abandoned,
}

/// ssthresh estimation on top of an initial-window policy.
#[derive(Clone, Debug)]
pub struct SsthreshEstimation {
    pub iw: InitialWindowPolicy,
    pub phase: EstimationPhase,
    /// Minimum of the estimations so far and the rate it came from.
    pub min: Option<(u64, Rate)>,
    /// Number of estimations made.
    pub estimations: u32,
}

impl SsthreshEstimation {
    pub fn new(iw: InitialWindowPolicy) -> Self {
        SsthreshEstimation {
            iw,
            phase: EstimationPhase::Measuring { train: None, not_before: SimTime(0) },
            min: None,
            estimations: 0,
        }
    }

    /// One estimation from a train: records it, applies the minimum and the 10 % rule.
    fn estimate(&mut self, now: SimTime, rate: Rate, srtt: SimDuration, smss: u64) -> SsthreshEstimate {
        // "The bandwidth-delay product is computed by taking the product of the bandwidth with
        // the estimated RTT."
        let est = rate.bytes_in(srtt).max(MIN_SSTHRESH_SEGMENTS * smss);
        self.estimations += 1;
        let is_final = match self.min {
            // "As soon as an estimation lies within 10% of the minimum of the estimations done
            // so far ... final".
            Some((m, _)) => est.abs_diff(m) <= FINAL_TOLERANCE.of(m),
            None => false,
        };
        // "The new ssthresh value at each estimation is set to the minimum of all estimations
        // done so far."
        match self.min {
            Some((m, _)) if m <= est => {}
            _ => self.min = Some((est, rate)),
        }
        self.phase = if is_final {
            EstimationPhase::Final
        } else {
            // "at most once every RTT"
            EstimationPhase::Measuring { train: None, not_before: now.saturating_add(srtt) }
        };
        let (ssthresh, rate) = self.min.unwrap_or((est, rate));
        SsthreshEstimate { ssthresh, rate, is_final }
    }
}

impl StartupPolicy for SsthreshEstimation {
    fn initial_cwnd(&self, ev: &StartupEvent) -> u64 {
        self.iw.initial_cwnd(ev)
    }
    fn initial_ssthresh(&self, ev: &StartupEvent) -> u64 {
        self.iw.initial_ssthresh(ev)
    }

    fn on_ack(&mut self, ev: &StartupAckEvent) -> Option<SsthreshEstimate> {
        let EstimationPhase::Measuring { train, not_before } = self.phase else { return None };
        // Retransmitted data gives no sample (and breaks the train).
        let Some(sent) = ev.newest_sent else {
            self.phase = EstimationPhase::Measuring { train: None, not_before };
            return None;
        };
        if ev.now < not_before || ev.bytes_acked == 0 {
            return None;
        }
        let open = TrainStart { at: ev.now, sent };
        let Some((start, bytes)) = train else {
            self.phase = EstimationPhase::Measuring { train: Some((open, 0)), not_before };
            return None;
        };
        let spread = ev.now.saturating_since(start.at);
        let send_spacing = sent.saturating_since(start.sent);
        // Closely sent: the segment left within CLOSE_SEND_SPACING of the arrival spread after
        // the train's first one (module docs). Zero spread (ACKs at one instant) continues
        // the train without an estimate.
        let close = sent >= start.sent && send_spacing.as_nanos() <= CLOSE_SEND_SPACING.of(spread.as_nanos());
        if !close {
            self.phase = EstimationPhase::Measuring { train: Some((open, 0)), not_before };
            return None;
        }
        let bytes = bytes + ev.bytes_acked;
        if bytes >= MIN_ESTIMATION_SEGMENTS * ev.smss && spread > SimDuration::ZERO {
            if let Some(srtt) = ev.srtt {
                return Some(self.estimate(ev.now, Rate { bytes, per: spread }, srtt, ev.smss));
            }
        }
        self.phase = EstimationPhase::Measuring { train: Some((start, bytes)), not_before };
        None
    }

    fn on_slow_start_end(&mut self) {
        if matches!(self.phase, EstimationPhase::Measuring { .. }) {
            self.phase = EstimationPhase::Abandoned;
        }
    }

    fn clone_box(&self) -> Box<dyn StartupPolicy> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::InitialWindow;

    const S: u64 = 1000;

    fn us(v: u64) -> SimTime {
        SimTime(v * 1000)
    }
    fn est() -> SsthreshEstimation {
        SsthreshEstimation::new(InitialWindowPolicy { iw: InitialWindow::Rfc3390, ssthresh: u64::MAX })
    }
    fn ack(now: SimTime, bytes: u64, sent: SimTime, srtt_ms: u64) -> StartupAckEvent {
        StartupAckEvent {
            now,
            bytes_acked: bytes,
            newest_sent: Some(sent),
            smss: S,
            srtt: Some(SimDuration::from_millis(srtt_ms)),
        }
    }

    // 000 §4.2.1: bw from the inter-arrival of closely spaced ACKs covering >= 2 segments;
    // ssthresh = bw · RTT.
    #[test]
    fn two_acks_of_one_burst_two_segments_apart_give_bandwidth_times_srtt() {
        let mut e = est();
        // A burst sent at t = 0; its ACKs return 1 ms apart, each covering 2 segments:
        // 2000 B per ms = 2 MB/s; srtt 100 ms -> 200 000 B.
        assert_eq!(e.on_ack(&ack(us(100_000), 2 * S, us(0), 100)), None);
        let r = e.on_ack(&ack(us(101_000), 2 * S, us(0), 100));
        assert_eq!(
            r,
            Some(SsthreshEstimate {
                ssthresh: 200_000,
                rate: Rate { bytes: 2000, per: SimDuration::from_millis(1) },
                is_final: false
            })
        );
    }

    #[test]
    fn acks_covering_less_than_two_segments_are_accumulated_until_they_do() {
        let mut e = est();
        assert_eq!(e.on_ack(&ack(us(100_000), S, us(0), 100)), None);
        assert_eq!(e.on_ack(&ack(us(100_500), S, us(0), 100)), None);
        // 2000 B over 1 ms.
        let r = e.on_ack(&ack(us(101_000), S, us(0), 100)).map(|r| r.ssthresh);
        assert_eq!(r, Some(200_000));
    }

    #[test]
    fn an_ack_for_a_segment_sent_a_round_later_opens_a_new_train() {
        let mut e = est();
        assert_eq!(e.on_ack(&ack(us(100_000), 2 * S, us(0), 100)), None);
        // Sent 99 ms after the train's first segment, returned 100 ms later: the idle gap
        // between rounds, not the path's spacing.
        assert_eq!(e.on_ack(&ack(us(200_000), 2 * S, us(99_000), 100)), None);
        // It opened a new train: the next closely sent ACK estimates from it.
        let r = e.on_ack(&ack(us(202_000), 2 * S, us(99_000), 100)).map(|r| r.ssthresh);
        assert_eq!(r, Some(100_000));
    }

    // "at most once every RTT"
    #[test]
    fn after_an_estimate_no_train_opens_until_one_srtt_has_passed() {
        let mut e = est();
        e.on_ack(&ack(us(100_000), 2 * S, us(0), 100));
        assert!(e.on_ack(&ack(us(101_000), 2 * S, us(0), 100)).is_some());
        // Within the next 100 ms nothing counts, even a perfect pair.
        assert_eq!(e.on_ack(&ack(us(150_000), 2 * S, us(50_000), 100)), None);
        assert_eq!(e.on_ack(&ack(us(150_500), 2 * S, us(50_000), 100)), None);
        // At 201 ms a train opens again.
        assert_eq!(e.on_ack(&ack(us(201_000), 2 * S, us(101_000), 100)), None);
        assert!(e.on_ack(&ack(us(203_000), 2 * S, us(101_000), 100)).is_some());
        assert_eq!(e.estimations, 2);
    }

    // "The new ssthresh value at each estimation is set to the minimum of all estimations done
    // so far. As soon as an estimation lies within 10% of the minimum ... final".
    #[test]
    fn the_minimum_is_kept_and_an_estimate_within_ten_percent_of_it_is_final() {
        let mut e = est();
        let round = |e: &mut SsthreshEstimation, t0: u64, gap_us: u64| {
            e.on_ack(&ack(us(t0), 2 * S, us(t0 - 100_000), 100));
            e.on_ack(&ack(us(t0 + gap_us), 2 * S, us(t0 - 100_000), 100))
        };
        // 1 ms -> 200 000; 2 ms -> 100 000 (new min, 50 % off: not final); 1 ms -> 200 000 (min
        // stays 100 000, not within 10 %); 1.9 ms -> 105 263 (within 10 % of 100 000: final).
        let r1 = round(&mut e, 100_000, 1000).map(|r| (r.ssthresh, r.is_final));
        assert_eq!(r1, Some((200_000, false)));
        let r2 = round(&mut e, 300_000, 2000).map(|r| (r.ssthresh, r.is_final));
        assert_eq!(r2, Some((100_000, false)));
        let r3 = round(&mut e, 500_000, 1000).map(|r| (r.ssthresh, r.is_final));
        assert_eq!(r3, Some((100_000, false)));
        let r4 = round(&mut e, 700_000, 1900).map(|r| (r.ssthresh, r.is_final));
        assert_eq!(r4, Some((100_000, true)));
        assert_eq!(e.phase, EstimationPhase::Final);
        // No more estimations.
        assert_eq!(round(&mut e, 900_000, 500), None);
        assert_eq!(e.estimations, 4);
    }

    #[test]
    fn a_loss_ends_estimation_and_retransmitted_data_gives_no_sample() {
        let mut e = est();
        e.on_ack(&ack(us(100_000), 2 * S, us(0), 100));
        let rtx = StartupAckEvent { newest_sent: None, ..ack(us(101_000), 2 * S, us(0), 100) };
        assert_eq!(e.on_ack(&rtx), None);
        e.on_slow_start_end();
        assert_eq!(e.phase, EstimationPhase::Abandoned);
        e.on_ack(&ack(us(200_000), 2 * S, us(100_000), 100));
        assert_eq!(e.on_ack(&ack(us(201_000), 2 * S, us(100_000), 100)), None);
    }

    #[test]
    fn no_estimate_before_the_first_rtt_sample_or_from_acks_at_one_instant() {
        let mut e = est();
        let no_srtt = |now, sent| StartupAckEvent { srtt: None, ..ack(now, 2 * S, sent, 100) };
        e.on_ack(&no_srtt(us(100_000), us(0)));
        assert_eq!(e.on_ack(&no_srtt(us(101_000), us(0))), None);
        let mut e = est();
        e.on_ack(&ack(us(100_000), 2 * S, us(0), 100));
        assert_eq!(e.on_ack(&ack(us(100_000), 2 * S, us(0), 100)), None);
        // The train goes on: the next ACK measures 4000 B over 1 ms.
        let r = e.on_ack(&ack(us(101_000), 2 * S, us(0), 100)).map(|r| r.ssthresh);
        assert_eq!(r, Some(400_000));
    }

    #[test]
    fn an_estimate_is_never_below_two_segments() {
        let mut e = est();
        e.on_ack(&ack(us(100_000), 2 * S, us(0), 1));
        let r = e.on_ack(&ack(us(200_000), 2 * S, us(0), 1)).map(|r| r.ssthresh);
        assert_eq!(r, Some(2 * S));
    }

    #[test]
    fn rates_convert_to_bytes_and_times_exactly() {
        let r = Rate { bytes: 1500, per: SimDuration::from_micros(120) };
        assert_eq!(r.bytes_in(SimDuration::from_millis(60)), 750_000);
        assert_eq!(r.time_for(1500), SimDuration::from_micros(120));
        assert!((r.bps() - 100e6).abs() < 1.0);
    }
}
