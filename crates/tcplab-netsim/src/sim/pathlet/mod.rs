//! The Pathlet Transport Architecture in the simulator (seed 004 §II-§III) and the RFC 9040
//! destination cache it is compared with: pathlet routers, the Pathlet header on the wire, and
//! the host state that outlives connections.
//!
//! | file | concern |
//! |---|---|
//! | [`router`] | what a pathlet router does to a forwarded packet (discovery slot, Congested Pathlet) |
//! | this file | per host: the pathlet table / destination cache; per connection: header on emit, End-of-Path and echo at the receiver, echo processing at the sender |
//!
//! The rules themselves are in `tcplab-tcp` (`startup::{pathlet_header, pathlet_table,
//! pathlet, host_cache, seeded}`); this module calls them at the right moments:
//!
//! - **Open** ([`SharedNet::prepare`], [`SharedNet::opened`]): a `Host` connection starts from
//!   its destination's cache entry (initial window, ssthresh, initial RTO); a `Pathlet`
//!   connection takes its initial RTO from the last path discovered to its destination, when
//!   `[pathlet] initial_rto` is on.
//! - **Emit** ([`SharedNet::on_emit`]): the client's SYN carries a discovery header with the
//!   configured number of slots (004 §III-A "Pathlet discovery is done in the beginning of a
//!   transport connection"); after discovery every client packet carries the 8-byte data
//!   section (004 §III-B); a rediscovery rides on the client's next packet (the paper also
//!   allows a separate probe; a piggy-backed one changes no TCP behaviour). The server copies
//!   what it received into its next packet as the Pathlet Echo ("it copies the content of the
//!   Pathlet header into the first packet that goes back"); its SYN-ACK always carries the
//!   discovery echo, so a retransmitted SYN-ACK still delivers it.
//! - **Receive at the server** ([`SharedNet::on_server_receive`]): "In this case the receiver
//!   marks a special End-of-Path code to the Congested Pathlet field, if it detects an ECN
//!   mark". Headers received before the next echo is sent are merged: the first congestion
//!   indication and the latest discovery section are kept.
//! - **Receive at the client** ([`SharedNet::on_client_receive`], before the engine sees the
//!   segment): the echo's discovery section gives the path; on the SYN-ACK the initial window
//!   is chosen from the table (004 §III-D) and installed as the connection's startup policy.
//!   Every ACK gives the flow's FlightSize to the table; a Congested Pathlet field a congestion
//!   indication for the pathlet it names (an unknown router: every pathlet, and rediscovery,
//!   004 §V-A). A SYN-ACK without an echo (a receiver without PTA) leaves the path as one
//!   pathlet per destination (004 §II-A: "the sender falls back to normal end-host based
//!   connection state sharing").
//! - **Loss** ([`SharedNet::after_drive`]): 004 §V-C "in the case of a confirmed lost packet
//!   without the relevant pathlet information, a sender needs to assume that congestion may
//!   have occurred on any of the used pathlets" — each new retransmission of the client counts
//!   on every pathlet of its path (`[pathlet] loss_is_congestion`).
//! - **Close** ([`SharedNet::on_close`]): the table gets the connection's final SRTT as an
//!   RTT sample; a `Host` connection updates its destination's cache entry (RFC 9040 §8.1).
//! - **Hand-off notification**: the connections of the mobile node rediscover (004 §III-A "if
//!   a mobile host knows that a hand-off has occurred, it must initiate pathlet discovery").
//!
//! Not done, and why (docs/design.md): no reverse-direction discovery (004 §III-A's hint is
//! for a receiver that also sends data; ours send pure ACKs), and MAX_MTU is recorded but not
//! used (the simulator has no path MTU to discover).
//!
//! RTT samples for MIN_RTT / AVG_RTT: the handshake RTT of each connection whose SYN was sent
//! once (SYN to SYN-ACK), and its SRTT when it closes.
//!
//! Only connections with `TcpConfig::sharing` other than `None` reach any of this: a run
//! without them skips every hook on one flag, and its outputs are unchanged.

pub mod router;

use crate::sim::host::node_ip;
use crate::sim::packet::{Packet, PacketArena, PacketId};
use crate::spec::{PathletSpec, SimSpec};
use router::RouterStats;
use std::collections::BTreeMap;
use tcplab_tcp::startup::host_cache::{ClosingTcb, HostCache, HostCacheConfig};
use tcplab_tcp::startup::pathlet::{choose_initial_window, initial_rto, Congested, IwSharing, Path};
use tcplab_tcp::startup::pathlet_header::{PathletHeader, PathletKind, EMPTY_ID, END_OF_PATH, MAX_SLOTS};
use tcplab_tcp::startup::pathlet_table::{FlowFlight, PathletTable};
use tcplab_tcp::startup::seeded::SeededStartup;
use tcplab_tcp::{Connection, Ecn, Segment, StateSharing, TcpConfig, TcpFlags};
use tcplab_time::{SimDuration, SimTime};

/// 004 §V-A: after a discovery that filled every slot, the rediscovery asks for this many more
/// (up to `MAX_SLOTS`).
pub const REDISCOVERY_EXTRA_SLOTS: u8 = 2;

/// A node's ID as a pathlet router, and its address in the tables: its IPv4 address.
pub fn node_id(node: u32) -> u32 {
    u32::from_be_bytes(node_ip(node))
}

/// What a host keeps across connections.
#[derive(Debug)]
struct HostState {
    table: PathletTable,
    sharing: IwSharing,
    /// The last path discovered to each destination (initial RTO, rediscovery decisions).
    last_path: BTreeMap<u32, Path>,
    cache: HostCache,
}

/// One open connection's PTA / cache state (by endpoint-pair slot).
#[derive(Copy, Clone, Debug, Default)]
struct ConnState {
    mode: StateSharing,
    src: u32,
    dst: u32,
    /// Client: discovery slots of its next discovery.
    slots: u8,
    /// Client: the discovered path (`None` until the SYN-ACK).
    path: Option<Path>,
    /// Client: its next packet carries a discovery header.
    discover: bool,
    /// Client: SYNs sent and when the first left.
    syns: u32,
    syn_at: SimTime,
    /// Client: retransmissions + timeouts seen (loss as congestion).
    losses_seen: u64,
    /// Client: its FlightSize_F per pathlet of its path (004 §III-C).
    flight: FlowFlight,
    /// Server: the echo to send with its next packet, and the discovery echo for SYN-ACKs.
    echo: Option<PathletHeader>,
    syn_echo: Option<PathletHeader>,
}

/// Counters of one pathlet router (summary).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PathletRouterSummary {
    pub node: String,
    pub id: u32,
    pub discoveries: u64,
    pub full: u64,
    pub congested_marks: u64,
}

/// One row of a host's pathlet table at the end of the run (summary).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PathletRowSummary {
    pub host: String,
    pub from: u32,
    pub to: u32,
    pub safe_cwnd: Option<u64>,
    pub safe_ssthresh: Option<u64>,
    pub min_rtt_s: Option<f64>,
    pub avg_rtt_s: Option<f64>,
    pub max_mtu: u32,
    pub congestion_indications: u64,
    /// What the update algorithm and the initial-window choice did on this pathlet over the
    /// run (`PathletStats`; docs/outputs.md).
    pub periods: u64,
    pub congested_periods: u64,
    pub cuts: u64,
    pub raises: u64,
    pub held: u64,
    /// Mean SAFE_CWND over the counted periods that had one (bytes).
    pub safe_cwnd_period_mean: Option<f64>,
    /// Mean MIN_F(FlightSize_F/2) of the congested periods: what rule (b) cut to (bytes).
    pub cut_to_mean: Option<f64>,
    /// Initial windows chosen with this pathlet as the bottleneck, and their means: SAFE_CWND
    /// in segments before sharing, the flows shared among, the window given (segments).
    pub iw_choices: u64,
    pub iw_safe_segments_mean: Option<f64>,
    pub iw_share_k_mean: Option<f64>,
    pub iw_given_mean: Option<f64>,
}

/// `sum / n` as a mean, `None` for no values (summary).
fn ratio(sum: u64, n: u64) -> Option<f64> {
    (n > 0).then(|| sum as f64 / n as f64)
}

/// A PTA client's FlightSize_F at an ACK, before the ACK is processed (004 §III-C; module doc
/// of `pathlet_table`). It counts data: before the handshake completes the only byte in flight
/// is the SYN's sequence number, so it is 0.
#[inline]
fn client_flight(client: &Connection) -> u64 {
    if client.state() == tcplab_tcp::ConnState::SynSent {
        0
    } else {
        client.bytes_in_flight()
    }
}

/// The client of `c` sends packet `id` (a SYN when `syn`) at `now` with a discovery header
/// of its configured slot count (module doc, Emit), and counts its SYNs for the handshake RTT
/// sample. Out of line: once or twice per connection.
#[cold]
#[inline(never)]
fn client_discovery(c: &mut ConnState, now: SimTime, syn: bool, id: PacketId, packets: &mut PacketArena) {
    if syn {
        if c.syns == 0 {
            c.syn_at = now;
        }
        c.syns += 1;
    }
    c.discover = false;
    packets.set_pathlet(id, PathletHeader::discovery(c.slots));
}

/// Host `node`'s state in `hosts`, created on first use (a free function so that a caller can
/// hold a connection's state in `SharedNet::conns` at the same time, without copying it).
fn host_in(
    hosts: &mut [Option<Box<HostState>>],
    table: tcplab_tcp::startup::pathlet_table::PathletTableConfig,
    cache: HostCacheConfig,
    node: u32,
) -> &mut HostState {
    hosts[node as usize].get_or_insert_with(|| {
        Box::new(HostState {
            table: PathletTable::new(table),
            sharing: IwSharing::default(),
            last_path: BTreeMap::new(),
            cache: HostCache::new(cache),
        })
    })
}

/// The pathlet routers and every host's shared state.
#[derive(Debug, Default)]
pub struct SharedNet {
    /// Some connection of the run shares state (otherwise every hook returns at once).
    pub active: bool,
    cfg: PathletSpec,
    cache_cfg: HostCacheConfig,
    /// Router ID by node (0: not a pathlet router).
    router_id: Vec<u32>,
    router_stats: Vec<RouterStats>,
    hosts: Vec<Option<Box<HostState>>>,
    conns: Vec<ConnState>,
}

impl SharedNet {
    pub fn new(spec: &SimSpec) -> SharedNet {
        let shares = |c: &TcpConfig| c.sharing != StateSharing::None;
        let active = spec.flows.iter().any(|f| shares(&f.tcp))
            || spec.workloads.iter().any(|w| shares(w.tcp()));
        let mut router_id = vec![0; spec.nodes.len()];
        for &r in &spec.pathlet.routers {
            router_id[r] = node_id(r as u32);
        }
        SharedNet {
            active,
            cfg: spec.pathlet.clone(),
            cache_cfg: spec.host_cache,
            router_stats: vec![RouterStats::default(); spec.nodes.len()],
            router_id,
            hosts: (0..spec.nodes.len()).map(|_| None).collect(),
            conns: Vec::new(),
        }
    }

    fn host(&mut self, node: u32) -> &mut HostState {
        host_in(&mut self.hosts, self.cfg.table, self.cache_cfg, node)
    }

    /// Router hook: packet `id` is forwarded by `node`.
    #[inline]
    pub fn on_forward(&mut self, node: u32, id: PacketId, packets: &mut PacketArena) {
        let rid = self.router_id[node as usize];
        if rid != 0 {
            router::on_forward(rid, id, packets, &mut self.router_stats[node as usize]);
        }
    }

    /// Before the endpoints of a connection from `src` to `dst` are created: settings that must
    /// be in the configuration (the initial RTO).
    pub fn prepare(&mut self, cfg: &mut TcpConfig, src: u32, dst: u32) {
        let dst_addr = node_id(dst);
        let rto = match cfg.sharing {
            StateSharing::None => None,
            StateSharing::Host => {
                let g = cfg.rto.granularity;
                self.host(src).cache.on_open(dst_addr, u64::from(cfg.mss), g).initial_rto
            }
            StateSharing::Pathlet if self.cfg.initial_rto => {
                let g = cfg.rto.granularity;
                let h = self.host(src);
                h.last_path.get(&dst_addr).and_then(|p| initial_rto(&h.table, p, g))
            }
            StateSharing::Pathlet => None,
        };
        if let Some(r) = rto {
            cfg.rto.initial = r.max(cfg.rto.min).min(cfg.rto.max);
        }
    }

    /// The connection in pair `slot` from `src` to `dst` was opened; `client` is its client.
    pub fn opened(&mut self, slot: u32, src: u32, dst: u32, client: &mut Connection) {
        let i = slot as usize;
        if self.conns.len() <= i {
            self.conns.resize(i + 1, ConnState::default());
        }
        let mode = client.config().sharing;
        self.conns[i] = ConnState { mode, src, dst, slots: self.cfg.slots, ..ConnState::default() };
        if mode == StateSharing::Host {
            let cfg = client.config().clone();
            let s = self.host(src).cache.on_open(node_id(dst), u64::from(cfg.mss), cfg.rto.granularity);
            client.set_startup_policy(Box::new(SeededStartup {
                cwnd_segments: s.cwnd_segments,
                ssthresh: s.ssthresh,
                fallback: tcplab_tcp::startup::build(&cfg),
            }));
        }
    }

    /// Packet `id` carrying `seg` leaves endpoint (`slot`, `is_client`) at `now`.
    ///
    /// Called at every packet a PTA connection sends: the client's data sections and the
    /// server's echoes are handled inline; a client's discovery (its SYN, a rediscovery) goes to
    /// [`client_discovery`], out of line. Never inlined into the simulator's emit path: a
    /// run without PTA keeps that path's code as small as if this hook did not exist (inlined,
    /// it cost the `10x1G` case ~80 instructions per packet in calls LLVM then stopped inlining).
    #[inline(never)]
    pub fn on_emit(&mut self, now: SimTime, slot: u32, is_client: bool, seg: &Segment, id: PacketId, packets: &mut PacketArena) {
        let Some(c) = self.conns.get_mut(slot as usize) else { return };
        if c.mode != StateSharing::Pathlet {
            return;
        }
        let syn = seg.flags.contains(TcpFlags::SYN);
        if is_client {
            if syn || c.discover {
                client_discovery(c, now, syn, id, packets);
            } else if c.path.is_some() {
                packets.set_pathlet(id, PathletHeader::data());
            }
        } else {
            let echo = c.echo.take();
            if let Some(e) = if syn { c.syn_echo.or(echo) } else { echo } {
                packets.set_pathlet(id, e);
            }
        }
    }

    /// The server of `slot` receives packet `p` (its Pathlet header `h`).
    pub fn on_server_receive(&mut self, slot: u32, p: &Packet, h: Option<PathletHeader>) {
        let Some(c) = self.conns.get_mut(slot as usize) else { return };
        let Some(mut h) = h else { return };
        if c.mode != StateSharing::Pathlet {
            return;
        }
        let ce = p.ecn() == Ecn::Ce;
        if c.echo.is_some() && !ce && h.slots == 0 && h.congested == EMPTY_ID {
            // A plain data section without CE adds nothing to a pending echo (the merge below
            // keeps the pending one's discovery section and congestion indication).
            return;
        }
        if ce {
            // 004 §III-B: the receiver's End-of-Path code.
            h.mark_congested(END_OF_PATH);
        }
        h.kind = PathletKind::Echo;
        if h.slots > 0 {
            c.syn_echo = Some(PathletHeader { congested: 0, ..h });
        }
        c.echo = Some(match c.echo {
            None => h,
            Some(prev) => {
                let d = if h.slots > 0 { h } else { prev };
                PathletHeader { congested: if prev.congested != 0 { prev.congested } else { h.congested }, ..d }
            }
        });
    }

    /// The client of `slot` is about to receive `seg` with Pathlet Echo `echo` at `now`.
    ///
    /// Called at every packet a PTA client receives. The common case — an ACK of a connection
    /// whose path is known, with an echo that carries neither a discovery section nor a
    /// Congested Pathlet — only gives the flow's FlightSize to the table, and is handled here
    /// inline; everything else (the SYN-ACK, discovery, congestion) goes to
    /// [`Self::client_receive_full`], kept out of line so that the per-ACK code stays small.
    /// Not inlined into the simulator's delivery path either (see [`Self::on_emit`]).
    #[inline(never)]
    pub fn on_client_receive(&mut self, now: SimTime, slot: u32, seg: &Segment, echo: Option<PathletHeader>, client: &mut Connection) {
        let Some(c) = self.conns.get_mut(slot as usize) else { return };
        if c.mode != StateSharing::Pathlet {
            return;
        }
        let plain = echo.is_none_or(|e| e.slots == 0 && e.congested == EMPTY_ID);
        if plain && !seg.flags.contains(TcpFlags::SYN) {
            if let (Some(path), Some(h)) = (&c.path, self.hosts[c.src as usize].as_deref_mut()) {
                // What the full hook does in this case, and nothing else: no discovery to
                // record, no initial window to choose, `Path::congested(EMPTY_ID)` is `None`.
                let flight = client_flight(client);
                if flight > 0 {
                    h.table.observe_flow_flight(now, path.pathlets(), flight, &mut c.flight);
                }
                return;
            }
        }
        self.client_receive_full(now, slot, seg, echo, client);
    }

    /// [`Self::on_client_receive`], every case.
    #[cold]
    #[inline(never)]
    fn client_receive_full(&mut self, now: SimTime, slot: u32, seg: &Segment, echo: Option<PathletHeader>, client: &mut Connection) {
        let Some(c) = self.conns.get_mut(slot as usize) else { return };
        let flight = client_flight(client);
        let syn_ack = seg.flags.contains(TcpFlags::SYN | TcpFlags::ACK);
        let (src, dst_addr) = (c.src, node_id(c.dst));
        let (share, ssthresh) = (self.cfg.share, self.cfg.ssthresh);
        let h = host_in(&mut self.hosts, self.cfg.table, self.cache_cfg, src);
        let discovered = echo.filter(|e| e.slots > 0);
        if let Some(e) = discovered {
            let path = Path::new(e.discovered(), dst_addr);
            h.last_path.insert(dst_addr, path);
            c.path = Some(path);
            if e.is_full() && usize::from(c.slots) < MAX_SLOTS {
                c.slots = (c.slots + REDISCOVERY_EXTRA_SLOTS).min(MAX_SLOTS as u8);
                c.discover = true;
            }
        } else if syn_ack && c.path.is_none() {
            c.path = Some(Path::new(&[], dst_addr));
        }
        if syn_ack && client.state() == tcplab_tcp::ConnState::SynSent {
            if let Some(path) = c.path {
                if c.syns == 1 {
                    let mtu = u32::from(client.config().mss) + 40;
                    h.table.on_rtt(now, path.pathlets(), now.saturating_since(c.syn_at), mtu);
                }
                let (mss, fallback) = (client.config().mss, tcplab_tcp::startup::build(client.config()));
                let iw = choose_initial_window(&mut h.table, &mut h.sharing, share, now, &path, u64::from(mss));
                let st = if ssthresh {
                    path.pathlets().iter().filter_map(|p| h.table.get(p).and_then(|e| e.safe_ssthresh)).min()
                } else {
                    None
                };
                client.set_startup_policy(Box::new(SeededStartup { cwnd_segments: iw, ssthresh: st, fallback }));
            }
        }
        if let Some(path) = &c.path {
            if flight > 0 {
                h.table.observe_flow_flight(now, path.pathlets(), flight, &mut c.flight);
            }
            if let Some(e) = echo {
                match path.congested(e.congested) {
                    Congested::None => {}
                    Congested::Pathlet(p) => {
                        let i = path.pathlets().iter().position(|&q| q == p).unwrap_or(0);
                        let f = h.table.congested_flight(now, i, p, flight, &c.flight);
                        h.table.on_congestion(now, p, f);
                    }
                    Congested::Unknown => {
                        for (i, &p) in path.pathlets().iter().enumerate() {
                            let f = h.table.congested_flight(now, i, p, flight, &c.flight);
                            h.table.on_congestion(now, p, f);
                        }
                        c.discover = true;
                    }
                }
            }
        }
    }

    /// After the client of `slot` was driven: new retransmissions count as congestion on every
    /// pathlet (004 §V-C), when switched on.
    pub fn after_drive(&mut self, now: SimTime, slot: u32, client: &Connection) {
        let Some(c) = self.conns.get_mut(slot as usize) else { return };
        if c.mode != StateSharing::Pathlet || !self.cfg.loss_is_congestion {
            return;
        }
        let s = client.stats();
        let losses = s.retransmissions.iter().sum::<u64>() + s.timeouts;
        if losses == c.losses_seen {
            return;
        }
        c.losses_seen = losses;
        let (src, path, flow) = (c.src, c.path, c.flight);
        let Some(path) = path else { return };
        let flight = client.bytes_in_flight().max(client.smss());
        let h = self.host(src);
        for (i, &p) in path.pathlets().iter().enumerate() {
            let f = h.table.congested_flight(now, i, p, flight, &flow);
            h.table.on_congestion(now, p, f);
        }
    }

    /// The connection of `slot` has ended (its endpoints are about to be freed).
    pub fn on_close(&mut self, now: SimTime, slot: u32, client: &Connection) {
        let Some(c) = self.conns.get(slot as usize).copied() else { return };
        let cc = client.cc_snapshot();
        let srtt = (cc.srtt_ns > 0).then(|| SimDuration::from_nanos(cc.srtt_ns));
        match c.mode {
            StateSharing::None => {}
            StateSharing::Pathlet => {
                if let (Some(path), Some(r)) = (c.path, srtt) {
                    let mtu = u32::from(client.config().mss) + 40;
                    self.host(c.src).table.on_rtt(now, path.pathlets(), r, mtu);
                }
            }
            StateSharing::Host => {
                let tcb = ClosingTcb {
                    cwnd: cc.cwnd,
                    ssthresh: cc.ssthresh,
                    srtt,
                    rttvar: srtt.map(|_| SimDuration::from_nanos(cc.rttvar_ns)),
                };
                self.host(c.src).cache.on_close(node_id(c.dst), &tcb);
            }
        }
        self.conns[slot as usize].mode = StateSharing::None;
    }

    /// A hand-off notification reached the connection of `slot`: rediscover.
    pub fn rediscover(&mut self, slot: u32) {
        if let Some(c) = self.conns.get_mut(slot as usize) {
            if c.mode == StateSharing::Pathlet {
                c.discover = true;
            }
        }
    }

    /// Router counters, in node order.
    pub fn router_summaries(&self, spec: &SimSpec) -> Vec<PathletRouterSummary> {
        spec.pathlet
            .routers
            .iter()
            .map(|&n| {
                let s = self.router_stats[n];
                PathletRouterSummary {
                    node: spec.nodes[n].name.clone(),
                    id: self.router_id[n],
                    discoveries: s.discoveries,
                    full: s.full,
                    congested_marks: s.congested_marks,
                }
            })
            .collect()
    }

    /// Every host's pathlet table at the end of the run, by host then pathlet.
    pub fn table_summaries(&self, spec: &SimSpec) -> Vec<PathletRowSummary> {
        let mut out = Vec::new();
        for (n, h) in self.hosts.iter().enumerate() {
            let Some(h) = h else { continue };
            for (p, e) in h.table.iter() {
                let st = e.stats;
                out.push(PathletRowSummary {
                    host: spec.nodes[n].name.clone(),
                    from: p.from,
                    to: p.to,
                    safe_cwnd: e.safe_cwnd,
                    safe_ssthresh: e.safe_ssthresh,
                    min_rtt_s: e.min_rtt.map(|d| d.as_secs_f64()),
                    avg_rtt_s: e.avg_rtt.map(|d| d.as_secs_f64()),
                    max_mtu: e.max_mtu,
                    congestion_indications: e.congestion_total,
                    periods: st.periods,
                    congested_periods: st.congested_periods,
                    cuts: st.cuts,
                    raises: st.raises,
                    held: st.held,
                    safe_cwnd_period_mean: ratio(st.safe_cwnd_sum, st.safe_cwnd_known),
                    cut_to_mean: ratio(st.cut_to_sum, st.congested_periods),
                    iw_choices: st.iw_choices,
                    iw_safe_segments_mean: ratio(st.iw_safe_segments_sum, st.iw_choices),
                    iw_share_k_mean: ratio(st.iw_share_k_sum, st.iw_choices),
                    iw_given_mean: ratio(st.iw_given_sum, st.iw_choices),
                });
            }
        }
        out
    }
}
