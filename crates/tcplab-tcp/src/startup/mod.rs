//! Startup seam: what the sender starts with once the connection is established, and what it
//! learns during the initial slow start.
//!
//! | file | policy |
//! |---|---|
//! | [`initial_window`] | initial window (RFC 3390 / RFC 6928 / fixed) and the configured initial ssthresh |
//! | [`ssthresh_estimation`] | Aron & Druschel 000 §4.2.1: ssthresh from ACK trains, repeated once per RTT, minimum kept, 10 % stop rule |
//! | [`quickstart`] | Quick-Start (RFC 4782, seed 002 Ch. 6–7): wire encoding, sender state machine, receiver echo |
//! | [`pathlet_header`] | Pathlet Transport Architecture (seed 004 §III-A): the Pathlet / Pathlet Echo header as an IPv4 option |
//! | [`pathlet_table`] | 004 §II-B, §III-C: the host's pathlet table and its SAFE_CWND update algorithm |
//! | [`pathlet`] | 004 §III-D: pathlets of a path, the Congested Pathlet field, initial window and its sharing, initial RTO |
//! | [`host_cache`] | RFC 9040 temporal sharing per destination host (cwnd, ssthresh, RTT) |
//! | [`seeded`] | the startup policy that uses what a pathlet table or a host cache chose |
//!
//! Pacing (000 §4.2.2) is a separate seam, [`crate::pacing`], fed with the estimate.

pub mod host_cache;
pub mod initial_window;
pub mod pathlet;
pub mod pathlet_header;
pub mod pathlet_table;
pub mod quickstart;
pub mod seeded;
pub mod ssthresh_estimation;

pub use initial_window::InitialWindowPolicy;
pub use ssthresh_estimation::{Rate, SsthreshEstimation};

use crate::config::TcpConfig;
use tcplab_time::{SimDuration, SimTime};

/// Facts known when the sender starts.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct StartupEvent {
    /// Sender MSS after negotiation.
    pub smss: u64,
    /// The SYN or SYN-ACK was retransmitted (RFC 5681 §3.1 / RFC 6928 §2: IW is then one
    /// segment).
    pub handshake_retransmitted: bool,
}

/// An ACK that advanced SND.UNA during the initial slow start.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct StartupAckEvent {
    /// Arrival time (the measurement the paper takes with `currentTime()`).
    pub now: SimTime,
    /// Bytes newly acknowledged.
    pub bytes_acked: u64,
    /// Send time of the newest segment the ACK acknowledges fully; `None` when any of the
    /// acknowledged data had been retransmitted (or nothing was fully acknowledged).
    pub newest_sent: Option<SimTime>,
    pub smss: u64,
    /// The RTT estimator's smoothed RTT, if it has one.
    pub srtt: Option<SimDuration>,
}

/// A new ssthresh from the startup policy.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SsthreshEstimate {
    /// The ssthresh to use now (bytes).
    pub ssthresh: u64,
    /// The bandwidth estimate behind it.
    pub rate: Rate,
    /// No further estimates will follow.
    pub is_final: bool,
}

/// Chooses the initial congestion state (and may refine ssthresh during slow start).
pub trait StartupPolicy: std::fmt::Debug + Send {
    /// Called once when the connection is established.
    fn initial_cwnd(&self, ev: &StartupEvent) -> u64;
    /// Called once when the connection is established.
    fn initial_ssthresh(&self, ev: &StartupEvent) -> u64;
    /// An ACK of new data arrived during the initial slow start; returns a new ssthresh if the
    /// policy estimates one.
    fn on_ack(&mut self, _ev: &StartupAckEvent) -> Option<SsthreshEstimate> {
        None
    }
    /// The initial slow start ended with a loss (fast retransmit or timeout).
    fn on_slow_start_end(&mut self) {}
    fn clone_box(&self) -> Box<dyn StartupPolicy>;
    /// Called when the sender is re-initialised in place for a new connection
    /// (`Connection::reset_client` / `reset_server`, a driver reusing an endpoint slot) instead
    /// of being built again. A policy that is the type [`build`]`(cfg)` builds sets itself to
    /// exactly the value `build(cfg)` gives and returns true, so the sender keeps its box;
    /// otherwise it returns false and the sender builds a new one ([`reset_or_build`]). The
    /// default is false ("rebuild me"): always correct, it only costs the allocation. A policy
    /// a driver installed (`Connection::set_startup_policy`, e.g. `seeded::SeededStartup`) is
    /// never what `build` builds and keeps the default.
    fn reset(&mut self, _cfg: &TcpConfig) -> bool {
        false
    }
}

/// `Clone` for the boxed trait object, so that the structs holding one derive `Clone` (a
/// forked model is a field-by-field copy; nothing is hand-written per field).
impl Clone for Box<dyn StartupPolicy> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// `*policy` becomes what [`build`]`(cfg)` builds: reset in place when the policy can
/// ([`StartupPolicy::reset`]), built anew otherwise.
pub fn reset_or_build(policy: &mut Box<dyn StartupPolicy>, cfg: &TcpConfig) {
    if !policy.reset(cfg) {
        *policy = build(cfg);
    }
}

/// The policy `cfg` asks for.
pub fn build(cfg: &TcpConfig) -> Box<dyn StartupPolicy> {
    let iw = InitialWindowPolicy::for_config(cfg);
    if cfg.startup.ssthresh_estimation {
        Box::new(SsthreshEstimation::new(iw))
    } else {
        Box::new(iw)
    }
}
