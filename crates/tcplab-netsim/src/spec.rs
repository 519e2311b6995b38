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
    /// Traffic sources that open connections during the run (`sim::traffic`), beside the
    /// fixed `flows`. Their connections get flow ids after the fixed flows', in the order
    /// they are drawn.
    pub workloads: Vec<WorkloadSpec>,
    /// Sampling of the per-flow time series; `None` records a row whenever the sender's
    /// congestion state changes.
    pub timeseries_interval: Option<SimDuration>,
    /// Seed used when the caller gives none (`simulation.seed` in the scenario file; a CLI
    /// `--seed` takes precedence). Added by the scenario loader.
    pub default_seed: u64,
    /// Quick-Start routers and vertical hand-offs (seed 002 Ch. 6–7); empty by default.
    pub quick_start: QuickStartSpec,
    /// Pathlet routers and the hosts' pathlet tables (seed 004; `sim::pathlet`), used by
    /// connections with `TcpConfig::sharing = Pathlet`.
    pub pathlet: PathletSpec,
    /// The hosts' RFC 9040 destination caches, used by connections with
    /// `TcpConfig::sharing = Host`.
    pub host_cache: tcplab_tcp::startup::host_cache::HostCacheConfig,
}

/// Seed 004: which nodes are pathlet routers, and how the hosts run their pathlet tables
/// (`[pathlet]` in a scenario).
#[derive(Clone, Debug, PartialEq)]
pub struct PathletSpec {
    /// Pathlet routers (their ID is their IPv4 address, `sim::host::node_ip`).
    pub routers: Vec<NodeId>,
    /// Discovery slots a sender allocates (004 §III-A; 1..=8).
    pub slots: u8,
    /// N and the period before an RTT is known (004 §III-C).
    pub table: tcplab_tcp::startup::pathlet_table::PathletTableConfig,
    /// Sharing of the initial window among flows started within an RTT (004 §III-D).
    pub share: tcplab_tcp::startup::pathlet::IwShare,
    /// 004 §V-C: a loss (retransmission) without pathlet information counts as congestion on
    /// every pathlet of the path.
    pub loss_is_congestion: bool,
    /// 004 §II-B: the initial RTO from MIN_RTT / AVG_RTT (of the last path discovered to the
    /// destination).
    pub initial_rto: bool,
    /// 004 §II-B: the initial ssthresh from SAFE_SSTHRESH.
    pub ssthresh: bool,
}

impl Default for PathletSpec {
    fn default() -> Self {
        PathletSpec {
            routers: Vec::new(),
            slots: tcplab_tcp::startup::pathlet_header::DEFAULT_SLOTS,
            table: Default::default(),
            share: Default::default(),
            loss_is_congestion: true,
            initial_rto: false,
            ssthresh: false,
        }
    }
}

/// Quick-Start capable router interfaces and scheduled vertical hand-offs.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct QuickStartSpec {
    pub routers: Vec<QsRouterSpec>,
    pub handoffs: Vec<HandoffSpec>,
}

/// Router `node` processes Quick-Start Requests on its interfaces `links` (all of its links
/// when empty).
#[derive(Clone, Debug, PartialEq)]
pub struct QsRouterSpec {
    pub node: NodeId,
    pub links: Vec<LinkId>,
    pub config: crate::sim::quickstart::QsRouterConfig,
}

/// A vertical hand-off (seed 002 Ch. 7 §7.4): at `at` the links `down` stop carrying packets
/// (break-before-make: everything queued or in flight on them, and sent onto them later, is
/// lost); at `at + gap` the routes `routes` take effect (make-before-break: `gap` = 0 and
/// `down` empty, so packets in flight on the old path still arrive). At
/// `at + gap + notify_delay` the data sender of every flow to or from `mobile` receives the
/// explicit hand-off notification.
#[derive(Clone, Debug, PartialEq)]
pub struct HandoffSpec {
    pub at: SimDuration,
    pub gap: SimDuration,
    pub mobile: NodeId,
    pub down: Vec<LinkId>,
    pub routes: Vec<RouteSpec>,
    pub notify: bool,
    pub notify_delay: SimDuration,
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
    /// Random Early Detection (`sim::red`) in front of a buffer of `limit`.
    Red { limit: QueueLimit, red: RedSpec },
}

impl QueueSpec {
    /// The physical buffer limit.
    pub fn limit(&self) -> QueueLimit {
        match *self {
            QueueSpec::DropTail { limit } | QueueSpec::Red { limit, .. } => limit,
        }
    }
}

/// Whether RED measures the queue in packets or bytes (Floyd & Jacobson §4).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum RedMode {
    #[default]
    Packets,
    Bytes,
}

/// RED parameters (Floyd & Jacobson 1993; semantics and defaults in `sim::red`). Thresholds
/// are in the mode's unit (packets or bytes).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RedSpec {
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    /// EWMA weight of the average queue.
    pub w_q: f64,
    /// Floyd's gentle variant (p from max_p to 1 between max_th and 2·max_th).
    pub gentle: bool,
    pub mode: RedMode,
    /// Mark ECN-capable packets CE instead of dropping them (RFC 3168 §5).
    pub ecn: bool,
    /// Drop every packet (ECT or not) in the forced region.
    pub hard_drop: bool,
    /// Bytes of the "small packet" whose transmission time is the idle-decay unit s.
    pub small_packet: u32,
    /// MaximumPacketSize of byte mode.
    pub max_packet: u32,
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
    /// Time-driven link outages (Sarolahti Ch. 4 "bursty losses"): Good and Bad periods
    /// alternate, starting with Good; their lengths are drawn from `good` and `bad`; every
    /// packet that starts transmission during Bad is lost. The realisation depends on the run
    /// seed and the link only, so both directions with this model share their Bad periods ("all
    /// packets in both directions are lost").
    Outages { good: DurationDist, bad: DurationDist },
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
    /// Wireless-path dynamics: delay spikes, link-layer buffering during spikes, bandwidth
    /// changes. `LinkDynamics::default()` is a plain wired link (no change in behaviour).
    pub dynamics: LinkDynamics,
}

/// A random (or fixed) duration, drawn from a seeded stream.
#[derive(Clone, Debug, PartialEq)]
pub enum DurationDist {
    Fixed(SimDuration),
    /// Exponentially distributed with this mean.
    Exponential { mean: SimDuration },
    /// Uniform on `[lo, hi]`.
    Uniform { lo: SimDuration, hi: SimDuration },
}

/// Which direction(s) of a link delay spikes hit.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum SpikeDirection {
    /// a → b only.
    AtoB,
    /// b → a only.
    BtoA,
    /// Both directions (the default: the thesis does not say, see `sim::delay_spike`).
    #[default]
    Both,
}

impl SpikeDirection {
    /// Does the spike process apply to direction `dir` (0 = a → b, 1 = b → a)?
    pub fn hits(self, dir: usize) -> bool {
        matches!((self, dir), (SpikeDirection::Both, _) | (SpikeDirection::AtoB, 0) | (SpikeDirection::BtoA, 1))
    }
}

/// When delay spikes happen. Semantics in `sim::delay_spike`: during a spike `[t0, t1)` the
/// link direction delivers nothing; whatever would have arrived is delivered at `t1`, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum DelaySpikeSpec {
    #[default]
    None,
    /// Spikes at fixed (start, duration) pairs, times from the start of the run.
    Fixed(Vec<(SimDuration, SimDuration)>),
    /// `count` spikes (or without end when `None`) starting at `first`, `first + period`, ...
    Periodic { first: SimDuration, period: SimDuration, duration: SimDuration, count: Option<u64> },
    /// An alternating renewal process: a gap drawn from `interval` (end of one spike to the
    /// start of the next; the first gap counts from time 0), then a spike drawn from `duration`.
    Random { interval: DurationDist, duration: DurationDist },
    /// Each packet entering the link starts a spike with probability `p` (Sarolahti's "a packet
    /// is delayed with a probability of 0.02", type I "1 % per packet"); the spike starts when
    /// that packet would have arrived and lasts `duration`.
    PerPacket { p: f64, duration: DurationDist },
    /// Sarolahti's type II (hand-over): at the end of every `period`, with probability `p`, a
    /// hand-over: a spike of `duration`, after which the link bandwidth is redrawn uniformly from
    /// `bandwidths` (both directions).
    Handover { period: SimDuration, p: f64, duration: DurationDist, bandwidths: Vec<Bandwidth> },
}

/// Time-varying behaviour of one link (both directions unless said otherwise).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkDynamics {
    pub delay_spikes: DelaySpikeSpec,
    pub spike_direction: SpikeDirection,
    /// Bytes the link layer can still take in during a spike (packets sent but held at the
    /// far end); the next packet that does not fit waits in the queue until the spike ends.
    /// `None`: unlimited (the queue keeps draining into the link).
    pub link_buffer: Option<u64>,
    /// Piecewise-constant rate: from each `(time, bandwidth)` on, the link (both directions)
    /// serialises at that rate. Sorted by time, times distinct; before the first step the
    /// link's `bandwidth` applies.
    pub bandwidth_schedule: Vec<(SimDuration, Bandwidth)>,
    /// Packet reordering of the a → b direction (`sim::reorder`); `None`: FIFO delivery.
    pub reorder_ab: Option<ReorderSpec>,
    /// Packet reordering of the b → a direction.
    pub reorder_ba: Option<ReorderSpec>,
    /// Deterministic reordering of the a → b direction: listed data packets of one flow held
    /// back (`sim::reorder`, `reorder_ab = { flow, nth, extra }`).
    pub reorder_nth_ab: Option<ReorderNthSpec>,
    /// Deterministic reordering of the b → a direction.
    pub reorder_nth_ba: Option<ReorderNthSpec>,
}

/// Deterministic reordering of one link direction (see `sim::reorder`): the `nth` (1-based)
/// data packets (payload > 0, retransmissions counted, counted as `LossSpec::DropNth` counts)
/// of flow `flow` that start transmission arrive `extra` later than they would otherwise;
/// packets sent after them overtake them. The counterpart of the real-kernel harness's
/// "delay segment i by d" (`validation/linux/forwarder.py`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReorderNthSpec {
    pub flow: FlowId,
    /// Sorted, deduplicated, from 1.
    pub nth: Vec<u64>,
    /// Extra propagation delay of each listed packet (> 0).
    pub extra: SimDuration,
}

/// Reordering of one link direction, after Linux netem's `delay … reorder` and jitter (see
/// `sim::reorder` for the exact semantics). Every packet that starts transmission is, with
/// probability `p`, delivered `extra` later than it would otherwise be, and every packet's
/// delivery is further delayed by a uniform draw in `[0, jitter)`. Serialisation (line rate)
/// is unchanged; packets sent after a delayed one may arrive before it.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct ReorderSpec {
    /// Probability that a packet is held back by `extra`, in [0, 1].
    pub p: f64,
    /// Extra propagation delay of a packet picked with probability `p`.
    pub extra: SimDuration,
    /// Upper bound (exclusive) of the uniform extra delay of every packet; 0: none.
    pub jitter: SimDuration,
}

impl LinkDynamics {
    /// True when nothing time-varying is configured (a plain link).
    pub fn is_static(&self) -> bool {
        self.delay_spikes == DelaySpikeSpec::None && self.bandwidth_schedule.is_empty()
    }
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

/// A traffic source (`sim::traffic`).
#[derive(Clone, Debug, PartialEq)]
pub enum WorkloadSpec {
    /// Connections arriving as a Poisson process (`sim::traffic::poisson`).
    Poisson(PoissonSpec),
    /// Web sessions of pages of objects, one connection per object (`sim::traffic::web`).
    Web(WebSpec),
}

impl WorkloadSpec {
    /// The label of the workload.
    pub fn name(&self) -> &str {
        match self {
            WorkloadSpec::Poisson(p) => &p.name,
            WorkloadSpec::Web(w) => &w.name,
        }
    }
    /// The hosts that send data (web: the servers).
    pub fn senders(&self) -> &[NodeId] {
        match self {
            WorkloadSpec::Poisson(p) => &p.senders,
            WorkloadSpec::Web(w) => &w.senders,
        }
    }
    /// The hosts that receive data (web: the clients).
    pub fn receivers(&self) -> &[NodeId] {
        match self {
            WorkloadSpec::Poisson(p) => &p.receivers,
            WorkloadSpec::Web(w) => &w.receivers,
        }
    }
    /// Settings of the workload's connections.
    pub fn tcp(&self) -> &TcpConfig {
        match self {
            WorkloadSpec::Poisson(p) => &p.tcp,
            WorkloadSpec::Web(w) => &w.tcp,
        }
    }
}

/// ns-2 PagePool/WebTraf-style web traffic (002 §6.4; `sim::traffic::web`): `sessions`
/// sessions, each with a client picked from `receivers`, of `pages_per_session` pages spaced
/// by exponential times of mean `inter_page`; each page from a server picked from `senders`,
/// of `objects_per_page` objects spaced by exponential times of mean `inter_object`; one
/// connection per object, server to client, of a Pareto-II size in packets of `tcp.mss` bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct WebSpec {
    pub name: String,
    /// The web servers (they send the objects).
    pub senders: Vec<NodeId>,
    /// The web clients.
    pub receivers: Vec<NodeId>,
    pub sessions: u32,
    pub pages_per_session: u32,
    pub inter_page: SimDuration,
    pub objects_per_page: u32,
    pub inter_object: SimDuration,
    /// Mean object size in packets (ns-2 `RandomVariable/ParetoII` `avg_`).
    pub object_mean_packets: f64,
    /// Pareto-II shape (ns-2 `shape_`), > 1.
    pub object_shape: f64,
    /// Objects larger than this many packets are cut to it (`None`: no cap).
    pub object_max_packets: Option<u64>,
    /// Sessions begin at this time (each one's first page one inter-page time later).
    pub start: SimDuration,
    /// No object after this time (`None`: the end of the run).
    pub stop: Option<SimDuration>,
    pub tcp: TcpConfig,
}

/// Flow sizes of a workload.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum SizeDist {
    /// Every flow has this many bytes.
    Fixed(u64),
    /// Pareto (type I) with this mean (bytes) and shape α > 1: scale x_m = mean (α − 1) / α.
    Pareto { mean: f64, shape: f64 },
}

/// Poisson arrivals of finite flows from `senders` to `receivers` (each connection picks
/// one of each uniformly at random), exponential inter-arrival times of mean
/// `mean_interarrival`, sizes from `size`; arrivals from `start` until `stop` or
/// `max_flows`.
#[derive(Clone, Debug, PartialEq)]
pub struct PoissonSpec {
    pub name: String,
    pub senders: Vec<NodeId>,
    pub receivers: Vec<NodeId>,
    pub mean_interarrival: SimDuration,
    pub size: SizeDist,
    /// Time of the first possible arrival (the first one comes one inter-arrival later).
    pub start: SimDuration,
    /// No arrival after this time (`None`: the end of the run).
    pub stop: Option<SimDuration>,
    /// At most this many connections (`None`: no limit).
    pub max_flows: Option<u64>,
    pub tcp: TcpConfig,
}
