//! `SimSpec`: a fully validated, unit-resolved description of one run.
//!
//! This is the contract between the scenario loader (`scenario`, TOML → `SimSpec`) and the
//! simulator (`sim`, `SimSpec` → results). Benchmarks and tests build a `SimSpec` directly.
//! Everything here is plain data; indices refer into the vectors of the same spec.

use tcplab_tcp::TcpConfig;
use tcplab_time::units::QueueLimit;
use tcplab_time::{Bandwidth, SimDuration};

/// Index into `SimSpec::nodes`.
pub type NodeId = usize;
/// Index into `SimSpec::links`.
pub type LinkId = usize;
/// Index into `SimSpec::flows`; also the flow's id in every output.
pub type FlowId = usize;

#[derive(Clone, Debug, PartialEq)]
pub struct SimSpec {
    /// Scenario name (file stem or `name` key).
    pub name: String,
    /// The run stops at this simulated time even if flows are unfinished.
    pub duration: SimDuration,
    pub nodes: Vec<NodeSpec>,
    pub links: Vec<LinkSpec>,
    /// Explicit static routes; any (node, destination) pair not listed uses the shortest path
    /// by hop count (ties broken by lowest link index, so routing is deterministic).
    pub routes: Vec<RouteSpec>,
    pub flows: Vec<FlowSpec>,
    /// Sampling of the per-flow time series; `None` records a row whenever the sender's
    /// congestion state changes.
    pub timeseries_interval: Option<SimDuration>,
    /// Seed used when the caller gives none (`simulation.seed` in the scenario file; a CLI
    /// `--seed` takes precedence). Added by the scenario loader.
    pub default_seed: u64,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// Runs TCP endpoints; forwards nothing.
    Host,
    /// Forwards packets by static route.
    Router,
}

#[derive(Clone, Debug, PartialEq)]
pub struct NodeSpec {
    pub name: String,
    pub kind: NodeKind,
}

/// Queue discipline of one link direction.
#[derive(Clone, Debug, PartialEq)]
pub enum QueueSpec {
    DropTail { limit: QueueLimit },
}

/// Loss model of one link direction; each direction gets its own RNG stream derived from the
/// run seed and the link index.
#[derive(Clone, Debug, PartialEq)]
pub enum LossSpec {
    None,
    /// Each packet is lost independently with probability `p`.
    Bernoulli { p: f64 },
    /// Two-state Markov chain (Gilbert-Elliott): per packet, move Good→Bad with `p_gb` and
    /// Bad→Good with `p_bg`, then lose the packet with `loss_good` or `loss_bad`.
    GilbertElliott { p_gb: f64, p_bg: f64, loss_good: f64, loss_bad: f64 },
    /// Deterministic, for tests: drop the listed 1-based occurrences of data segments
    /// (payload > 0, retransmissions counted) of flow `flow` crossing this link direction.
    DropNth { flow: FlowId, nth: Vec<u64> },
}

/// A full-duplex point-to-point link between nodes `a` and `b`; each direction has its own
/// transmitter, queue and loss model.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkSpec {
    pub name: String,
    pub a: NodeId,
    pub b: NodeId,
    pub bandwidth: Bandwidth,
    /// One-way propagation delay.
    pub delay: SimDuration,
    pub queue: QueueSpec,
    /// Loss model for packets travelling a → b.
    pub loss_ab: LossSpec,
    /// Loss model for packets travelling b → a.
    pub loss_ba: LossSpec,
}

/// At `node`, packets for `dst` leave over `link`.
#[derive(Clone, Debug, PartialEq)]
pub struct RouteSpec {
    pub node: NodeId,
    pub dst: NodeId,
    pub link: LinkId,
}

/// One TCP connection: `src` opens it and sends `size` bytes (or without end) to `dst`.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSpec {
    pub src: NodeId,
    pub dst: NodeId,
    /// When the sender issues its SYN.
    pub start: SimDuration,
    /// Bytes to send; `None` for a bulk (unlimited) sender.
    pub size: Option<u64>,
    /// Settings of both endpoints (the receiver uses the ACK policy and receive buffer).
    pub tcp: TcpConfig,
}
