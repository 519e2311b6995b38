//! The sender model the replay emulates: the per-OS knobs that decide which event a
//! retransmission answers (duplicate-ACK threshold, SACK loss rule, minimum RTO, TLP) and
//! what the receiver is assumed to do (D-SACK).
//!
//! Rewaskar, Kaur & Smith §IV: "we emulate the sender state ... for each of the
//! candidate OS implementations" — the classification depends on the sender's
//! dupthresh, RTO bounds and recovery algorithm, so the model is a trait chosen per run
//! (one model per OS profile; the later OS-inference issue replays one connection through
//! several models and keeps the most consistent). [`ConfigModel`] derives a model from the
//! engine's own [`TcpConfig`], so a simulated sender and its analysis share one source of
//! truth.

use tcplab_tcp::{DupAckThreshold, RecoveryAlgorithm, RtoConfig, TcpConfig};

/// What the replay needs to know about the sender (and its peer).
pub trait SenderModel: std::fmt::Debug + Send + Sync {
    /// Name shown in outputs.
    fn name(&self) -> &str;
    /// RFC 5681 §3.2: duplicate ACKs that trigger a fast retransmit (DupThresh), for a
    /// large flight.
    fn dupack_threshold(&self) -> u32;
    /// The rule behind it: fixed, or adaptive to the flight (003 §V-D). The replay evaluates
    /// an adaptive rule on the flight when the first duplicate ACK of an episode arrives, as
    /// the engine freezes it then (sender/mod.rs `episode_dupthresh`).
    fn dupack_rule(&self) -> DupAckThreshold {
        DupAckThreshold::Fixed(self.dupack_threshold())
    }
    /// RFC 6675 §4 IsLost(): more than (DupThresh - 1) * SMSS bytes SACKed above a
    /// segment marks it lost even with fewer duplicate ACKs.
    fn sack_loss_rule(&self) -> bool;
    /// RFC 6298 (2.1)-(2.5) bounds of the retransmission timer.
    fn rto(&self) -> RtoConfig;
    /// RFC 8985 §7 tail loss probes.
    fn tail_loss_probe(&self) -> bool;
    /// The receiver reports duplicates with D-SACK (RFC 2883) whenever SACK is in use, so
    /// that the absence of a D-SACK after a retransmission was delivered is evidence
    /// (RFC 3708 §3).
    fn dsack_receiver(&self) -> bool;
    /// Period of the sender's TCP timestamp clock (RFC 7323 §5.4 allows 1 ms to 1 s), used
    /// to read the sender's send time off TSval away from the sender.
    fn ts_tick_ns(&self) -> u64;
}

/// A model read off an engine configuration.
#[derive(Clone, Debug)]
pub struct ConfigModel {
    name: String,
    cfg: TcpConfig,
}

impl ConfigModel {
    pub fn new(name: impl Into<String>, cfg: TcpConfig) -> ConfigModel {
        ConfigModel { name: name.into(), cfg }
    }
    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }
}

impl Default for ConfigModel {
    /// The engine's defaults: RFC 5681/6675/6298 (DupThresh 3, min RTO 1 s, SACK recovery).
    fn default() -> Self {
        ConfigModel::new("rfc", TcpConfig::default())
    }
}

impl SenderModel for ConfigModel {
    fn name(&self) -> &str {
        &self.name
    }
    /// The configured D for a large flight (an adaptive D, 003 §V-D, is 3 there).
    fn dupack_threshold(&self) -> u32 {
        self.cfg.dupack_threshold.for_flight(u64::MAX)
    }
    fn dupack_rule(&self) -> DupAckThreshold {
        self.cfg.dupack_threshold
    }
    fn sack_loss_rule(&self) -> bool {
        matches!(self.cfg.recovery, RecoveryAlgorithm::Sack)
    }
    fn rto(&self) -> RtoConfig {
        self.cfg.rto
    }
    fn tail_loss_probe(&self) -> bool {
        // RFC 8985 §7 TLP (`tcp.tlp`, RetransCause::Tlp) runs in the RFC sender only; the
        // Linux 2.4 sender model has none (the scenario loader rejects the combination).
        self.cfg.tlp && self.cfg.sender == tcplab_tcp::SenderModel::Rfc
    }
    fn dsack_receiver(&self) -> bool {
        // The engine's receiver (receiver/sack_gen.rs) reports D-SACK whenever SACK is on.
        true
    }
    fn ts_tick_ns(&self) -> u64 {
        tcplab_tcp::timer::TS_CLOCK_TICK.as_nanos()
    }
}
