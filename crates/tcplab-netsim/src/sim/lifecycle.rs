//! Connection lifecycle: drawing connections from the traffic sources, opening their
//! endpoints when they start, freeing them when they have ended.
//!
//! - **Draw** (`draw`): a source's arrival becomes the next flow id and a `FlowState` (the
//!   flow's row in the results, its settings held until it opens) and a `FlowStart` event at
//!   its time. Eager sources are drained when the run starts, lazy ones one ahead
//!   (`traffic`).
//! - **Open** (`open`, at `FlowStart`): the client and server endpoints are created in a free
//!   endpoint pair (`Sim::free_slots`) or a new one. ISNs are derived from the run seed and the
//!   flow id, as before the seam existed.
//! - **Free** (`maybe_free`, after every `drive` of an endpoint): a connection has ended when
//!   all its data and its FIN are acknowledged (`is_send_complete`), the server has the FIN,
//!   neither endpoint has a timer armed and none of its packets is left in the arena
//!   (`FlowState::in_flight`). Nothing can then reach either endpoint again, so freeing is
//!   invisible in the outputs: the counters and the last congestion snapshot the results need
//!   are kept ([`Closed`], a compact row in `Sim::closed`), and the pair is reused by the next connection that opens. A bulk
//!   flow never ends.
//! - **Reuse** (`open` in a free pair): the two endpoints are re-initialised in place
//!   (`Connection::reset_client` / `reset_server`, `reopen`) rather than built and moved over
//!   the old ones: a reset connection is field for field what `Connection::client` / `server`
//!   build (tested in `tcplab-tcp/tests/reset.rs`), and this saves moving two ~1 KB endpoints
//!   per connection and dropping the old ones (issue 12: the per-connection cost of `web`).
//!   A queued wake-up of a freed endpoint is stale for the next occupant: the pair's wake
//!   generation carries over.
//!
//! What outlives a connection on a host (a destination cache, a pathlet table) belongs to the
//! host, not to these slots.

use super::routing::Routes;
use super::traffic::poisson::Poisson;
use super::traffic::web::Web;
use super::traffic::{FixedFlows, TrafficSource};
use super::{seed, summary, Event, FlowState, Sim, SimError};
use crate::spec::{SimSpec, WorkloadSpec};
use tcplab_tcp::{CcSnapshot, Connection, SeqNum};
use tcplab_time::SimTime;

use super::ground_truth::{SeqUnwrap, SpuriousTracker};
use super::host::{Endpoint, EndpointId};
use super::summary::FlowSummary;
use std::sync::Arc;

/// `FlowState::slot` of a connection that is not open.
pub const NO_SLOT: u32 = u32::MAX;
/// `FlowState::source` of a flow from an eager source.
pub const NO_SOURCE: u32 = u32::MAX;
/// Offset of a flow's first data byte from its ISS in the spurious-retransmission ground
/// truth (`SpuriousTracker::with_data_from`): RFC 9293 §3.4, the SYN occupies the ISN and
/// "the first data octet is ISN+1".
pub const FIRST_DATA_OFFSET: u64 = 1;

/// The names the results rows share: one `Arc<str>` per node and per workload, built once
/// when the run ends and cloned into each flow's row (a reference count, no allocation).
pub struct SummaryNames {
    nodes: Vec<Arc<str>>,
    workloads: Vec<Arc<str>>,
}

impl SummaryNames {
    pub fn new(spec: &SimSpec) -> Self {
        SummaryNames {
            nodes: spec.nodes.iter().map(|n| Arc::from(n.name.as_str())).collect(),
            workloads: spec.workloads.iter().map(|w| Arc::from(w.name())).collect(),
        }
    }
}

/// `FlowState::closed` of a flow whose connection has not been freed.
pub const NOT_CLOSED: u32 = u32::MAX;

/// What the results need from a connection: exactly what its `flows` row and the time-series
/// sampler read. A freed connection's is kept as a compact row in `Sim::closed` (indexed by
/// `FlowState::closed`), not in a box per connection (issue 12: per-connection cost).
#[derive(Copy, Clone, Debug, Default)]
pub struct Closed {
    /// The client's counters the row reports.
    pub data_segments_sent: u64,
    pub retransmissions: [u64; tcplab_tcp::RETRANS_CAUSES],
    pub timeouts: u64,
    /// Bytes the server delivered to its application.
    pub bytes_delivered: u64,
    /// The client's congestion state when it was freed (it cannot change afterwards).
    pub cc: CcSnapshot,
    /// The client's Quick-Start counters, if it requests.
    pub qs: Option<tcplab_tcp::startup::quickstart::host::QsStats>,
    /// The client's initial window in segments (initial cwnd / SMSS).
    pub initial_window_segments: u64,
}

impl Closed {
    /// The row of the connection between `client` and `server` as it is now.
    fn of(client: &Connection, server: &Connection) -> Closed {
        let st = client.stats();
        Closed {
            data_segments_sent: st.data_segments_sent,
            retransmissions: st.retransmissions,
            timeouts: st.timeouts,
            bytes_delivered: server.stats().bytes_delivered,
            cc: client.cc_snapshot(),
            qs: client.quick_start().map(|q| q.stats),
            initial_window_segments: client.initial_cwnd() / client.smss().max(1),
        }
    }
}

/// The traffic sources of `spec`: its fixed flows, then its workloads in order. Every
/// (sender, receiver) pair a source may use must have a path both ways.
pub fn sources(spec: &SimSpec, routes: &Routes, seed: u64) -> Result<Vec<Box<dyn TrafficSource>>, SimError> {
    for (i, f) in spec.flows.iter().enumerate() {
        routes.check_path(spec, f.src, f.dst, &format!("flows[{i}].dst"))?;
        routes.check_path(spec, f.dst, f.src, &format!("flows[{i}].src"))?;
    }
    let mut out: Vec<Box<dyn TrafficSource>> = vec![Box::new(FixedFlows::new(&spec.flows))];
    for (k, w) in spec.workloads.iter().enumerate() {
        let src: Box<dyn TrafficSource> = match w {
            WorkloadSpec::Poisson(p) => Box::new(Poisson::new(p.clone(), seed, k, spec.duration)),
            WorkloadSpec::Web(w) => Box::new(Web::new(w.clone(), seed, k, spec.duration)),
        };
        for (a, b) in src.pairs() {
            routes.check_path(spec, a, b, &format!("workloads[{k}].receivers"))?;
            routes.check_path(spec, b, a, &format!("workloads[{k}].senders"))?;
        }
        out.push(src);
    }
    Ok(out)
}

impl Sim<'_> {
    /// Drains the eager sources and draws the first arrival of each lazy one.
    pub(super) fn draw_initial(&mut self) {
        for s in 0..self.sources.len() {
            if self.sources[s].eager() {
                while self.draw(s, NO_SOURCE) {}
            } else {
                self.draw(s, s as u32);
            }
        }
    }

    /// Draws the next arrival of source `s` as a new flow (`source`: recorded on the flow, so
    /// that its opening draws the one after). Returns false when the source is done.
    fn draw(&mut self, s: usize, source: u32) -> bool {
        let Some(a) = self.sources[s].next_arrival() else { return false };
        let f = self.flows.len() as u32;
        let (iss_c, iss_s) = iss_pair(self.seed, f);
        let mut tcp = a.tcp;
        if tcp.trace != self.trace {
            // Only when the run's trace switch differs from the source's settings: a copy
            // for this flow (tracing runs are the slow, detailed ones anyway).
            Arc::make_mut(&mut tcp).trace = self.trace;
        }
        self.flows.push(FlowState {
            drawn_by: s as u32,
            src: a.src as u32,
            dst: a.dst as u32,
            slot: NO_SLOT,
            in_flight: 0,
            source,
            sharing: tcp.sharing != tcplab_tcp::StateSharing::None,
            pending: Some(tcp),
            closed: NOT_CLOSED,
            start: a.at,
            size: a.size,
            fct: None,
            data_seq: SeqUnwrap::new(iss_c),
            ack_seq: SeqUnwrap::new(iss_s),
            truth: SpuriousTracker::with_data_from(FIRST_DATA_OFFSET),
        });
        self.push(a.at, Event::FlowStart(f));
        true
    }

    /// Opens flow `f` (at its start): creates its endpoints and, for a lazy source, draws the
    /// source's next arrival. Returns the client endpoint.
    pub(super) fn open(&mut self, f: u32) -> EndpointId {
        let fl = &mut self.flows[f as usize];
        let mut cfg = fl.pending.take().unwrap_or_default();
        let (src, dst, source) = (fl.src, fl.dst, fl.source);
        if self.shared.active {
            // Per-connection settings from the host's shared state: this flow's own copy.
            self.shared.prepare(Arc::make_mut(&mut cfg), src, dst);
        }
        let (iss_c, iss_s) = iss_pair(self.seed, f);
        let start = fl.start;
        let reused = self.free_slots.pop();
        let slot = reused.unwrap_or((self.endpoints.len() / 2) as u32);
        for (k, is_client, node, peer, iss) in [(0, true, src, dst, iss_c), (1, false, dst, src, iss_s)] {
            let out_link = self.out_link(node, peer);
            match reused {
                Some(_) => {
                    // Re-initialised in place (module docs: "Reuse"), not built and moved in.
                    let e = &mut self.endpoints[2 * slot as usize + k];
                    if is_client {
                        e.conn.reset_client(&cfg, iss, start);
                    } else {
                        e.conn.reset_server(&cfg, iss);
                    }
                    reopen(e, EndpointPlace { flow: f, is_client, node, peer_node: peer, out_link, iss });
                }
                None => {
                    let conn = if is_client { Connection::client((*cfg).clone(), iss, start) } else { Connection::server((*cfg).clone(), iss) };
                    self.endpoints.push(Endpoint {
                        conn,
                        flow: f,
                        is_client,
                        node,
                        peer_node: peer,
                        out_link,
                        iss,
                        ip_id: 0,
                        wake_gen: 0,
                        wake_at: None,
                        queued_at: None,
                        last_cc: Default::default(),
                    });
                }
            }
        }
        self.flows[f as usize].slot = slot;
        if self.shared.active {
            self.shared.opened(slot, src, dst, &mut self.endpoints[2 * slot as usize].conn);
        }
        if source != NO_SOURCE {
            self.draw(source as usize, source);
        }
        2 * slot
    }

    /// The first hop from `node` towards `peer`. A hand-off's route (quickstart::net) overrides
    /// the static table.
    fn out_link(&self, node: u32, peer: u32) -> u32 {
        self.qsnet.next_hop(node, peer).or_else(|| self.routes.next_hop(node, peer)).unwrap_or(0)
    }

    /// Frees packet `id` and counts it out of its flow.
    #[inline]
    pub(super) fn free_packet(&mut self, id: super::packet::PacketId) {
        let f = self.packets.get(id).flow;
        self.packets.free(id);
        let fl = &mut self.flows[f as usize];
        fl.in_flight -= 1;
    }

    /// Frees flow `f`'s endpoints if the connection has ended (module docs).
    #[inline]
    pub(super) fn maybe_free(&mut self, f: u32) {
        let fl = &self.flows[f as usize];
        if fl.in_flight != 0 || fl.slot == NO_SLOT {
            return;
        }
        let slot = fl.slot;
        let (c, s) = (&self.endpoints[2 * slot as usize].conn, &self.endpoints[2 * slot as usize + 1].conn);
        if !(c.is_send_complete() && s.fin_received() && c.poll_timeout().is_none() && s.poll_timeout().is_none()) {
            return;
        }
        self.free_connection(f, slot);
    }

    /// Frees flow `f`'s endpoint pair `slot` (its connection has ended: `maybe_free`), keeping
    /// its results row. Out of line: it runs once per connection, while `maybe_free`'s checks
    /// run after every `drive` and are inlined into the event loop (keeping this out of the
    /// loop's code measured better for the long flows, which never get here).
    #[inline(never)]
    fn free_connection(&mut self, f: u32, slot: u32) {
        let (c, s) = (&self.endpoints[2 * slot as usize].conn, &self.endpoints[2 * slot as usize + 1].conn);
        if self.shared.active {
            self.shared.on_close(self.now, slot, c);
        }
        let row = Closed::of(c, s);
        let fl = &mut self.flows[f as usize];
        fl.closed = self.closed.len() as u32;
        self.closed.push(row);
        fl.slot = NO_SLOT;
        self.free_slots.push(slot);
    }

    /// The results row of flow `i`, the run having ended at `end`.
    pub(super) fn flow_summary(&self, i: usize, end: SimTime, names: &SummaryNames) -> FlowSummary {
        let fl = &self.flows[i];
        let (row, iw) = match (fl.closed, fl.slot) {
            (NOT_CLOSED, NO_SLOT) => (Closed::default(), None),
            (NOT_CLOSED, slot) => {
                let c = &self.endpoints[2 * slot as usize].conn;
                let row = Closed::of(c, &self.endpoints[2 * slot as usize + 1].conn);
                let established = c.state() != tcplab_tcp::ConnState::SynSent;
                (row, established.then_some(row.initial_window_segments))
            }
            (k, _) => {
                let row = self.closed[k as usize];
                (row, Some(row.initial_window_segments))
            }
        };
        let span = fl.fct.unwrap_or_else(|| end.saturating_since(fl.start));
        let delivered = row.bytes_delivered;
        FlowSummary {
            id: i as u32,
            src: names.nodes[fl.src as usize].clone(),
            dst: names.nodes[fl.dst as usize].clone(),
            bytes_requested: fl.size,
            bytes_delivered: delivered,
            start_s: fl.start.as_secs_f64(),
            fct_s: fl.fct.map(|d| d.as_secs_f64()),
            goodput_bps: if span.as_nanos() == 0 { 0.0 } else { delivered as f64 * 8.0 / span.as_secs_f64() },
            data_segments_sent: row.data_segments_sent,
            retransmissions: row.retransmissions.iter().sum(),
            retransmissions_by_cause: summary::by_cause(&row.retransmissions),
            spurious_retransmissions: fl.truth.spurious(),
            timeouts: row.timeouts,
            quick_start: row.qs.map(|q| summary::FlowQsSummary {
                requests: q.requests,
                approvals: q.approvals,
                failures: q.failures,
                requested_bps: q.last_requested_bps,
                approved_bps: q.last_approved_bps,
                qs_bytes: q.qs_bytes,
            }),
            initial_window_segments: iw.filter(|_| fl.sharing),
            // `drawn_by` k + 1 is `spec.workloads[k]` (`FlowState::workload`).
            workload: (fl.drawn_by as usize).checked_sub(1).and_then(|k| names.workloads.get(k)).cloned(),
        }
    }
}

/// Where an endpoint of a newly opened connection sits (`reopen`).
struct EndpointPlace {
    flow: u32,
    is_client: bool,
    node: u32,
    peer_node: u32,
    out_link: u32,
    iss: SeqNum,
}

/// Gives a reused endpoint (its connection already reset) the driver state a new one starts
/// with (`Sim::open`'s `None` arm). Every field is named, so a field added to `Endpoint`
/// does not compile until it is handled here too. The wake generation carries over, one
/// higher: a wake-up the previous occupant left queued is stale.
fn reopen(e: &mut Endpoint, p: EndpointPlace) {
    let Endpoint { conn: _, flow, is_client, node, peer_node, out_link, iss, ip_id, wake_gen, wake_at, queued_at, last_cc } = e;
    *flow = p.flow;
    *is_client = p.is_client;
    *node = p.node;
    *peer_node = p.peer_node;
    *out_link = p.out_link;
    *iss = p.iss;
    *ip_id = 0;
    *wake_gen = wake_gen.wrapping_add(1);
    *wake_at = None;
    *queued_at = None;
    *last_cc = CcSnapshot::default();
}

/// The client's and the server's ISN of flow `f` (`seed::DOMAIN_ISS`).
fn iss_pair(seed: u64, f: u32) -> (SeqNum, SeqNum) {
    (
        SeqNum(seed::derive(seed, seed::DOMAIN_ISS, u64::from(f), 0) as u32),
        SeqNum(seed::derive(seed, seed::DOMAIN_ISS, u64::from(f), 1) as u32),
    )
}
