//! RFC 5681 Reno with the RFC 6582 NewReno fast-recovery window arithmetic.
//!
//! Ambiguities resolved:
//! - Slow start increases by `min(N, SMSS)` per ACK (RFC 5681 eq. 2); RFC 3465 appropriate
//!   byte counting with L = 2*SMSS is available via [`Reno::with_abc`], and Linux's byte
//!   counting (`tcp_slow_start`: every acknowledged byte, capped at ssthresh, the rest carried
//!   into congestion avoidance on the same ACK; [`super::abc`]) via [`Reno::with_linux_abc`].
//! - Congestion avoidance uses `cwnd += SMSS*SMSS/cwnd` per ACK (RFC 5681 eq. 3), at least
//!   1 byte so that tiny increments are not lost to integer division.
//! - On a full ACK, RFC 6582 §3.2 step 3 offers two choices; tcplab takes option (1)
//!   `min(ssthresh, max(FlightSize, SMSS) + SMSS)` for NewReno (avoids a burst) and keeps
//!   `cwnd = ssthresh` for RFC 6675 SACK recovery (where cwnd already equals ssthresh).
//! - After repeated RTOs of the same segment, RFC 5681 §3.1 says ssthresh is set only on the
//!   first one ("...MUST be set no larger than... on the first retransmission"); later expiries
//!   keep ssthresh and reset cwnd to the loss window.

use super::{CcAckEvent, CcLossEvent, CcState, CongestionController, RecoveryStyle};

/// RFC 3465 §2.2: the limit L on the per-ACK increase in slow start, in SMSS units.
pub const ABC_LIMIT_SEGMENTS: u64 = 2;
/// RFC 5681 eq. 4: the loss window after a timeout is one segment.
pub const LOSS_WINDOW_SEGMENTS: u64 = 1;
/// RFC 5681 eq. 4 / RFC 6582 step 2: ssthresh is at least 2*SMSS.
pub const MIN_SSTHRESH_SEGMENTS: u64 = 2;
/// RFC 5681 §3.2 step 3 / RFC 6582: inflate by the three segments that left the network.
pub const FAST_RECOVERY_INFLATION_SEGMENTS: u64 = 3;

/// How slow start counts what an ACK acknowledged.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum SlowStartCounting {
    /// RFC 5681 eq. 2: cwnd += min(N, SMSS).
    #[default]
    Rfc5681,
    /// RFC 3465 §2.2 with L = 2: cwnd += min(N, 2*SMSS).
    Rfc3465,
    /// Linux `tcp_slow_start` (RFC 3465 without L, capped at ssthresh, remainder carried into
    /// congestion avoidance): [`super::abc::tcp_slow_start`].
    Linux,
}

/// Reno / NewReno congestion control.
#[derive(Clone, Debug, Default)]
pub struct Reno {
    /// How slow start counts acknowledged bytes.
    counting: SlowStartCounting,
}

impl Reno {
    pub fn new() -> Self {
        Reno { counting: SlowStartCounting::Rfc5681 }
    }
    /// RFC 3465 appropriate byte counting with L = 2*SMSS.
    pub fn with_abc() -> Self {
        Reno { counting: SlowStartCounting::Rfc3465 }
    }
    /// Linux's byte counting in slow start (`tcp_reno_cong_avoid` → `tcp_slow_start`).
    pub fn with_linux_abc() -> Self {
        Reno { counting: SlowStartCounting::Linux }
    }
    /// The Reno controller [`super::build`] gives a configuration that selects Reno (before
    /// any HyStart wrapper): Linux byte counting in slow start when `cfg.abc` is on.
    pub fn for_config(cfg: &crate::config::TcpConfig) -> Self {
        if cfg.abc {
            Reno::with_linux_abc()
        } else {
            Reno::new()
        }
    }
    fn ssthresh_after_loss(ev: &CcLossEvent) -> u64 {
        // RFC 5681 eq. 4: ssthresh = max (FlightSize / 2, 2*SMSS)
        (ev.flight_size / 2).max(MIN_SSTHRESH_SEGMENTS * ev.smss)
    }
}

impl CongestionController for Reno {
    fn on_ack(&mut self, st: CcState, ev: &CcAckEvent) -> CcState {
        let mut cwnd = st.cwnd;
        if cwnd < st.ssthresh {
            let limit = match self.counting {
                // RFC 5681 §3.1 eq. 2: cwnd += min (N, SMSS)
                SlowStartCounting::Rfc5681 => ev.smss,
                // RFC 3465 §2.2: min(N, L*SMSS)
                SlowStartCounting::Rfc3465 => ABC_LIMIT_SEGMENTS * ev.smss,
                SlowStartCounting::Linux => {
                    // Linux tcp_reno_cong_avoid: "acked = tcp_slow_start(tp, acked); if
                    // (!acked) return; tcp_cong_avoid_ai(tp, tcp_snd_cwnd(tp), acked);" — the
                    // bytes past ssthresh get one RFC 5681 eq. 3 increase.
                    let (c, left) = super::abc::tcp_slow_start(cwnd, st.ssthresh, ev.bytes_acked);
                    if left > 0 {
                        return CcState { cwnd: c.saturating_add((ev.smss * ev.smss / c.max(1)).max(1)), ssthresh: st.ssthresh };
                    }
                    return CcState { cwnd: c, ssthresh: st.ssthresh };
                }
            };
            cwnd = cwnd.saturating_add(ev.bytes_acked.min(limit));
        } else {
            // RFC 5681 §3.1 eq. 3: cwnd += SMSS*SMSS/cwnd
            cwnd = cwnd.saturating_add((ev.smss * ev.smss / cwnd.max(1)).max(1));
        }
        CcState { cwnd, ssthresh: st.ssthresh }
    }

    fn on_enter_recovery(&mut self, _st: CcState, ev: &CcLossEvent) -> CcState {
        // RFC 5681 §3.2 step 2 / RFC 6582 §3.2 step 2 / RFC 6675 §5 (4.2).
        let ssthresh = Self::ssthresh_after_loss(ev);
        let cwnd = match ev.style {
            // RFC 6582 §3.2 step 2: cwnd = ssthresh + 3*SMSS
            RecoveryStyle::NewReno => ssthresh + FAST_RECOVERY_INFLATION_SEGMENTS * ev.smss,
            // RFC 6675 §5 (4.2): ssthresh = cwnd = FlightSize / 2 (bounded as in RFC 5681)
            RecoveryStyle::Sack => ssthresh,
        };
        CcState { cwnd, ssthresh }
    }

    fn on_dupack_in_recovery(&mut self, st: CcState, smss: u64) -> CcState {
        // RFC 6582 §3.2 step 4: for each additional duplicate ACK, cwnd += SMSS.
        CcState { cwnd: st.cwnd.saturating_add(smss), ssthresh: st.ssthresh }
    }

    fn on_partial_ack(&mut self, st: CcState, ev: &CcAckEvent) -> CcState {
        // RFC 6582 §3.2 step 5: deflate by the amount of new data acknowledged, then add back
        // SMSS bytes if the partial ACK acknowledges at least SMSS bytes of new data.
        let mut cwnd = st.cwnd.saturating_sub(ev.bytes_acked);
        if ev.bytes_acked >= ev.smss {
            cwnd += ev.smss;
        }
        CcState { cwnd: cwnd.max(ev.smss), ssthresh: st.ssthresh }
    }

    fn on_exit_recovery(&mut self, st: CcState, ev: &CcLossEvent) -> CcState {
        let cwnd = match ev.style {
            // RFC 6582 §3.2 step 3 option (1): min (ssthresh, max (FlightSize, SMSS) + SMSS)
            RecoveryStyle::NewReno => st.ssthresh.min(ev.flight_size.max(ev.smss) + ev.smss),
            RecoveryStyle::Sack => st.ssthresh,
        };
        CcState { cwnd: cwnd.max(ev.smss), ssthresh: st.ssthresh }
    }

    fn on_rto(&mut self, st: CcState, ev: &CcLossEvent, first: bool) -> CcState {
        // RFC 5681 eq. 4 (ssthresh only on the first expiry, §3.1 note) and cwnd = LW.
        let ssthresh = if first { Self::ssthresh_after_loss(ev) } else { st.ssthresh };
        CcState { cwnd: LOSS_WINDOW_SEGMENTS * ev.smss, ssthresh }
    }

    fn clone_box(&self) -> Box<dyn CongestionController> {
        Box::new(self.clone())
    }
    /// `build` gives a bare Reno exactly when `cfg` selects Reno without HyStart (HyStart
    /// wraps the controller in its own type).
    fn reset(&mut self, cfg: &crate::config::TcpConfig) -> bool {
        if cfg.cc != crate::config::CongestionControl::Reno || cfg.hystart != super::hystart::HystartMode::Off {
            return false;
        }
        *self = Reno::for_config(cfg);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const S: u64 = 1000;

    #[test]
    fn slow_start_grows_by_at_most_one_smss_per_ack() {
        let mut r = Reno::new();
        let st = CcState { cwnd: 2 * S, ssthresh: u64::MAX };
        let st = r.on_ack(st, &CcAckEvent::bytes(2 * S, S));
        assert_eq!(st.cwnd, 3 * S);
        let mut abc = Reno::with_abc();
        let st = abc.on_ack(CcState { cwnd: 2 * S, ssthresh: u64::MAX }, &CcAckEvent::bytes(3 * S, S));
        assert_eq!(st.cwnd, 4 * S);
        // Linux tcp_slow_start: all three segments, capped at ssthresh, the rest into CA.
        let mut l = Reno::with_linux_abc();
        let st = l.on_ack(CcState { cwnd: 2 * S, ssthresh: u64::MAX }, &CcAckEvent::bytes(3 * S, S));
        assert_eq!(st.cwnd, 5 * S);
        let st = l.on_ack(CcState { cwnd: 4 * S, ssthresh: 5 * S }, &CcAckEvent::bytes(3 * S, S));
        assert_eq!(st.cwnd, 5 * S + S / 5);
    }

    #[test]
    fn congestion_avoidance_adds_smss_squared_over_cwnd() {
        let mut r = Reno::new();
        let st = r.on_ack(CcState { cwnd: 10 * S, ssthresh: 5 * S }, &CcAckEvent::bytes(S, S));
        assert_eq!(st.cwnd, 10 * S + S / 10);
    }

    #[test]
    fn timeout_sets_ssthresh_to_half_the_flight_and_cwnd_to_one_segment() {
        let mut r = Reno::new();
        let ev = CcLossEvent { flight_size: 10 * S, smss: S, style: RecoveryStyle::NewReno };
        let st = r.on_rto(CcState { cwnd: 10 * S, ssthresh: u64::MAX }, &ev, true);
        assert_eq!(st, CcState { cwnd: S, ssthresh: 5 * S });
        let ev = CcLossEvent { flight_size: S, ..ev };
        assert_eq!(r.on_rto(st, &ev, true).ssthresh, 2 * S);
    }

    #[test]
    fn newreno_partial_ack_deflates_and_adds_back_one_segment() {
        let mut r = Reno::new();
        let st = r.on_partial_ack(CcState { cwnd: 10 * S, ssthresh: 5 * S }, &CcAckEvent::bytes(3 * S, S));
        assert_eq!(st.cwnd, 8 * S);
    }
}

#[cfg(test)]
mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn cwnd_never_falls_below_one_smss(
            ops in prop::collection::vec((0u8..6, 0u64..1_000_000), 1..300),
            abc in 0u8..3,
        ) {
            let smss = 1460;
            let mut r = match abc { 0 => Reno::new(), 1 => Reno::with_abc(), _ => Reno::with_linux_abc() };
            let mut st = CcState { cwnd: 2 * smss, ssthresh: u64::MAX };
            for (op, n) in ops {
                let loss = CcLossEvent { flight_size: n, smss, style: if n % 2 == 0 { RecoveryStyle::Sack } else { RecoveryStyle::NewReno } };
                let ack = CcAckEvent::bytes(n, smss);
                st = match op {
                    0 => r.on_ack(st, &ack),
                    1 => r.on_enter_recovery(st, &loss),
                    2 => r.on_dupack_in_recovery(st, smss),
                    3 => r.on_partial_ack(st, &ack),
                    4 => r.on_exit_recovery(st, &loss),
                    _ => r.on_rto(st, &loss, n % 3 == 0),
                };
                prop_assert!(st.cwnd >= smss);
                prop_assert!(st.ssthresh >= 2 * smss);
            }
        }
    }
}
