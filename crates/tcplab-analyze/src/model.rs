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

use std::net::SocketAddr;
use std::sync::Arc;
use tcplab_tcp::TcpConfig;

/// What the replay needs to know about the sender (and its peer). The sender's rules
/// themselves (DupThresh, IsLost, the recovery style, the RTO estimator and its clocks, TLP)
/// come from [`SenderModel::config`] through the engine's observer
/// ([`tcplab_tcp::observe::Observer`]); the model adds only what an observer assumes.
pub trait SenderModel: std::fmt::Debug + Send + Sync {
    /// Name shown in outputs.
    fn name(&self) -> &str;
    /// The engine configuration (profile) whose rules the replay applies.
    fn config(&self) -> &TcpConfig;
    /// The receiver reports duplicates with D-SACK (RFC 2883) whenever SACK is in use, so
    /// that the absence of a D-SACK after a retransmission was delivered is evidence
    /// (RFC 3708 §3), even before the connection showed one.
    fn dsack_receiver(&self) -> bool;
    /// Period of the sender's TCP timestamp clock (RFC 7323 §5.4 allows 1 ms to 1 s), used
    /// to read the sender's send time off TSval away from the sender.
    fn ts_tick_ns(&self) -> u64;
    /// RFC 8985 §7 tail loss probes (`TcpConfig::tlp`, RFC sender only).
    fn tail_loss_probe(&self) -> bool {
        self.config().tlp && self.config().sender == tcplab_tcp::SenderModel::Rfc
    }
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
    fn config(&self) -> &TcpConfig {
        &self.cfg
    }
    fn dsack_receiver(&self) -> bool {
        // The engine's receiver (receiver/sack_gen.rs) reports D-SACK whenever SACK is on.
        true
    }
    fn ts_tick_ns(&self) -> u64 {
        tcplab_tcp::timer::TS_CLOCK_TICK.as_nanos()
    }
}

/// The sender model of each connection when the capture's senders are known one by one — a
/// simulated capture whose scenario gives every flow its own `[tcp]` settings (`tcplab analyze
/// --scenario`): the replay of a data direction emulates the sender that sent it, found by
/// the direction's addresses and ports.
pub trait ModelPicker: std::fmt::Debug + Send + Sync {
    /// The model of the sender of the data going from `sender` to `receiver` (called once per
    /// data direction, at its first data segment); `None` when the addresses are not one of
    /// the known senders' (the analysis' own model or candidates are used).
    fn pick(&self, sender: SocketAddr, receiver: SocketAddr) -> Option<Arc<dyn SenderModel>>;
}
