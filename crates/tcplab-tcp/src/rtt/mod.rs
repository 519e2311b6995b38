//! RTT estimation seam.
//!
//! The sender decides *when* a sample is valid (timestamps, Karn's rule, the sampling rule of
//! [`crate::config::RttSampling`]) and hands it to the estimator; the estimator owns its
//! smoothed state, the RTO and the backoff. One file per algorithm:
//!
//! | file | estimator | unit of its state |
//! |---|---|---|
//! | [`rfc6298`] | RFC 6298 with a, b, m, k, minRTO, maxRTO, initial RTO, G (003 §II) | ns (samples optionally quantised by the measurement clock) |
//! | [`bsd_lite`] | 4.4BSD-Lite `tcp_xmit_timer` (000 eq. 1) | measurement-clock ticks, ×8 / ×4 |
//! | [`brakmo_peterson`] | Brakmo & Peterson's larger scaling (000 §4.1, ref. \[5\]) | ticks, ×32 / ×16 |
//! | [`decoupled`] | Aron & Druschel eq. 1 + eq. 2 + 200 ms + srtt bound | f_rtt ticks → f_ev ticks |
//! | [`linux`] | Linux 2.4 `tcp_rtt_estimator` (mdev, mdev_max, rttvar) | jiffies, ×8 / ×4 |
//! | [`windows`], [`freebsd`], [`solaris`] | 003 Table I as RFC 6298 parameterisations | ns |
//!
//! [`build`] turns a [`TcpConfig`] into the configured estimator.

pub mod brakmo_peterson;
pub mod bsd_lite;
pub mod decoupled;
pub mod freebsd;
pub mod linux;
pub mod rfc6298;
pub mod solaris;
pub mod windows;

pub use brakmo_peterson::BrakmoPeterson;
pub use bsd_lite::BsdLite;
pub use decoupled::Decoupled;
pub use linux::Linux;
pub use rfc6298::Rfc6298;

use crate::config::{RtoEstimatorKind, TcpConfig};
use crate::seq::SeqNum;
use tcplab_time::{SimDuration, SimTime};

/// One valid RTT measurement.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RttSampleEvent {
    /// When the ACK arrived.
    pub now: SimTime,
    /// The measured interval (exact; tick-based estimators count the measurement clock's
    /// boundaries in (now − rtt, now]).
    pub rtt: SimDuration,
    /// SND.UNA after the ACK (Linux's once-per-window rule compares it with `rtt_seq`).
    pub snd_una: SeqNum,
    /// SND.NXT when the ACK arrived.
    pub snd_nxt: SeqNum,
}

impl RttSampleEvent {
    /// A sample without sequence context (tests, handshake).
    pub const fn at(now: SimTime, rtt: SimDuration) -> RttSampleEvent {
        RttSampleEvent { now, rtt, snd_una: SeqNum(0), snd_nxt: SeqNum(0) }
    }
}

/// Retransmission-timeout estimator.
pub trait RttEstimator: std::fmt::Debug + Send {
    /// Called for every valid RTT sample (after the sender applied Karn's rule).
    fn on_sample(&mut self, ev: &RttSampleEvent);
    /// Called when the retransmission timer expired (backoff).
    fn on_timeout(&mut self);
    /// Called when the SYN or SYN-ACK had to be retransmitted and data transfer starts
    /// (RFC 6298 (5.7)).
    fn on_handshake_retransmitted(&mut self);
    /// Current RTO including backoff.
    fn rto(&self) -> SimDuration;
    fn srtt(&self) -> Option<SimDuration>;
    fn rttvar(&self) -> Option<SimDuration>;
    /// Number of consecutive backoffs in effect.
    fn backoff(&self) -> u32;
    fn clone_box(&self) -> Box<dyn RttEstimator>;
    /// Called when the sender is re-initialised in place for a new connection
    /// (`Connection::reset_client` / `reset_server`, a driver reusing an endpoint slot) instead
    /// of being built again. An estimator that is the type [`build`]`(cfg)` builds sets itself
    /// to exactly the value `build(cfg)` gives and returns true, so the sender keeps its box;
    /// otherwise it returns false and the sender builds a new one ([`reset_or_build`]). The
    /// default is false ("rebuild me"): always correct, it only costs the allocation.
    fn reset(&mut self, _cfg: &TcpConfig) -> bool {
        false
    }
}

impl Clone for Box<dyn RttEstimator> {
    /// Lets state that holds an estimator derive `Clone` (the observer, `crate::observe`).
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// The estimator `cfg` asks for. The decoupled estimator converts to ticks of the slow event
/// clock (the clock the retransmission timer is bound to).
pub fn build(cfg: &TcpConfig) -> Box<dyn RttEstimator> {
    let clock = cfg.timers.rtt_clock;
    match cfg.rto_estimator {
        // The default configuration has an exact measurement clock, so this is the historical
        // estimator bit for bit.
        RtoEstimatorKind::Rfc6298 => Box::new(Rfc6298::for_config(cfg)),
        RtoEstimatorKind::BsdLite => Box::new(BsdLite::new(&cfg.rto, clock)),
        RtoEstimatorKind::BrakmoPeterson => Box::new(BrakmoPeterson::new(&cfg.rto, clock)),
        RtoEstimatorKind::Decoupled => Box::new(Decoupled::new(&cfg.rto, clock, cfg.timers.slow.granularity())),
        RtoEstimatorKind::Linux => Box::new(Linux::new(&cfg.rto, clock)),
        RtoEstimatorKind::Windows => Box::new(windows::estimator(cfg.rto, clock)),
        RtoEstimatorKind::FreeBsd => Box::new(freebsd::estimator(cfg.rto, clock)),
        RtoEstimatorKind::Solaris => Box::new(solaris::estimator(cfg.rto, clock)),
    }
}

/// `*est` becomes what [`build`]`(cfg)` builds: reset in place when the estimator can
/// ([`RttEstimator::reset`]), built anew otherwise.
pub fn reset_or_build(est: &mut Box<dyn RttEstimator>, cfg: &TcpConfig) {
    if !est.reset(cfg) {
        *est = build(cfg);
    }
}

#[cfg(test)]
mod props {
    use super::*;
    use crate::profile::Profile;
    use proptest::prelude::*;

    proptest! {
        /// Every estimator of every profile keeps its RTO within [min RTO, max RTO] for any
        /// sequence of samples (any length, any send phase) and timeouts, and never panics.
        #[test]
        fn every_profile_estimator_keeps_the_rto_within_its_bounds(
            ops in prop::collection::vec((0u8..4, 0u64..200_000_000_000, 0u64..2_000_000_000), 1..120),
        ) {
            for p in Profile::ALL {
                let cfg = p.config();
                let mut e = build(&cfg);
                let mut una = 0u32;
                for (op, r, t) in &ops {
                    match op {
                        0 => e.on_timeout(),
                        1 => e.on_handshake_retransmitted(),
                        _ => {
                            una = una.wrapping_add(1000);
                            let now = SimTime(r.saturating_add(*t));
                            e.on_sample(&RttSampleEvent { now, rtt: SimDuration(*r), snd_una: SeqNum(una), snd_nxt: SeqNum(una.wrapping_add(5000)) });
                        }
                    }
                    let rto = e.rto();
                    prop_assert!(rto >= cfg.rto.min && rto <= cfg.rto.max, "{}: {} not in [{}, {}]", p.name, rto, cfg.rto.min, cfg.rto.max);
                }
            }
        }
    }
}
