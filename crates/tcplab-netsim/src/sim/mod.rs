//! The discrete-event simulator: `SimSpec` + seed → results.
//!
//! | file | concern |
//! |---|---|
//! | [`event_queue`] | monotone radix heap by (time, insertion counter) |
//! | [`packet`] | packets and their arena |
//! | [`link`] | one link direction: transmitter, queue, loss, delay |
//! | [`queue`] | DropTail |
//! | [`red`] | RED (Floyd & Jacobson) with ECN marking, in front of the drop-tail buffer |
//! | [`loss`] | Bernoulli, Gilbert-Elliott, DropNth |
//! | [`delay_spike`] | delay spikes (link stalls) and hand-overs on wireless links |
//! | [`reorder`] | packet reordering (netem-like extra delay and jitter) |
//! | [`bandwidth_schedule`] | piecewise-constant link bandwidth |
//! | [`seed`] | per-component seeds (SplitMix64) |
//! | [`routing`] | static next-hop tables (explicit + BFS) |
//! | [`quickstart`] | Quick-Start routers (Target/Share/Broken, utilisation estimators, Extreme QS) |
//! | [`pathlet`] | pathlet routers, the Pathlet header on the wire, the hosts' pathlet tables and RFC 9040 destination caches |
//! | [`host`] | TCP endpoints, wake-ups, addresses |
//! | [`traffic`] | the traffic-source seam: fixed flows, Poisson workloads; when connections open |
//! | `lifecycle` | opening a connection's endpoints at its start, freeing them when it has ended |
//! | [`ground_truth`] | spurious-retransmission ground truth |
//! | [`recorder`] | `events` / `timeseries` tables |
//! | [`run_control`] | stopping a run early, streaming the trace in chunks ([`run_with`]) |
//! | [`summary`] | `Summary` and the `flows` table |
//! | [`trace_size`] | the trace's size estimated before a run (`--max-trace`) |
//! | [`error`] | `SimError` |
//! | [`validate`] | checks of a `SimSpec` before a run |
//!
//! Events: the next packet arriving at the far end of a link direction (`Arrive`), an
//! endpoint's timer (`Wake`), a flow's start, a time-series sampling tick, and — only on
//! captured links — a packet starting transmission (`CaptureTx`, to write the pcap record in
//! time order). Queue departures need no event (see [`queue`]), so a packet costs one event
//! per hop.
//!
//! Packets in flight on a link direction arrive in the order they were sent (FIFO
//! transmitter, constant delay), so each direction keeps them in a FIFO (`LinkDirState`: the
//! head inline, the rest linked through the packet arena) and only the head has an entry in the event heap. The heap then
//! holds about one entry per busy link direction and per endpoint instead of one per packet in
//! flight (thousands at 1 Gb/s × 44 ms), which more than halved the time spent in heap
//! operations. The queue itself is a radix heap whose cost per event does not grow with the
//! number of far-future wake-ups (see [`event_queue`]).
//!
//! A direction with a reordering model ([`reorder`]) is the exception: its arrivals are not in
//! send order, so it keeps its packets in flight in a heap, and its arrival events
//! (`ArriveReordered`) carry a generation so that an event superseded by an overtaking packet
//! is skipped. FIFO directions use `Arrive` and the path above, unchanged.
//!
//! A run is a pure function of (spec, seed): no wall clock, no global RNG, FIFO tie-breaking.

pub mod bandwidth_schedule;
pub mod delay_spike;
pub mod error;
pub mod event_queue;
pub mod ground_truth;
pub mod host;
pub mod link;
pub mod loss;
pub mod packet;
pub mod pathlet;
pub mod queue;
pub mod quickstart;
pub mod recorder;
pub mod red;
pub mod reorder;
pub mod routing;
pub mod run_control;
mod sampler;
pub mod seed;
pub mod summary;
pub mod trace_size;
pub mod traffic;
pub mod validate;

pub use error::SimError;
pub use run_control::{Control, NoHooks, RunHooks, TraceChunk};
pub use summary::{FlowSummary, LinkSummary, Summary};

use crate::pcap::{PcapLinkWriter, WirePacket};
use crate::spec::SimSpec;
use event_queue::EventQueue;
use ground_truth::{SeqUnwrap, SpuriousTracker};
use host::{node_ip, port, receiver_of, Endpoint, EndpointId, WakeAction};
use link::{Admit, LinkDir, LinkDirState, Offer};
use packet::{Packet, PacketArena, PacketId};
use queue::DropReason;
use recorder::{Cause, EventKind, EventRow, Recorder};
use routing::Routes;
use std::path::PathBuf;
use tcplab_record::Table;
use tcplab_tcp::{Ecn, TcpEvent, TcpFlags, Transmit};
use tcplab_tcp::profile::SynOptionLayout;
use tcplab_time::{SimDuration, SimTime};

/// What a `packet_dropped` row says of the dropped packet (copied out before it is freed).
#[derive(Copy, Clone, Debug)]
struct Dropped {
    flow: u32,
    from_client: bool,
    seq: tcplab_tcp::SeqNum,
    ack: Option<tcplab_tcp::SeqNum>,
    len: u32,
}

impl Dropped {
    fn of(p: &Packet) -> Dropped {
        Dropped {
            flow: p.flow,
            from_client: p.from_client(),
            seq: p.seq,
            ack: p.flags.contains(TcpFlags::ACK).then_some(p.ack),
            len: p.len,
        }
    }
}

/// Options of one run (not part of the scenario).
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    pub seed: u64,
    /// Record the `events` and `timeseries` tables (and engine events). Off in benchmarks.
    pub trace: bool,
    /// Capture these links (by name) to pcap files.
    pub pcap: Vec<(String, PathBuf)>,
}

/// Everything a run produces.
#[derive(Clone, Debug)]
pub struct RunOutput {
    pub summary: Summary,
    pub flows: Table,
    /// Empty (zero rows, same columns) unless `RunOptions::trace`.
    pub events: Table,
    pub timeseries: Table,
    /// Occupancy of the RED queues over time (`recorder::QueueSeries`); `None` when no link
    /// runs RED.
    pub queues: Option<Table>,
    /// The hooks stopped the run before its end (`run_with`): the results are partial, up
    /// to `summary.sim_time_s`.
    pub stopped: bool,
}

/// Wake-ups pack the endpoint into 28 bits.
pub(crate) const MAX_ENDPOINTS: usize = 1 << 28;

/// A simulator event, packed into a `u64` in the queue (tag in the top 4 bits).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Event {
    /// The head of link direction `dir`'s in-flight FIFO arrives.
    Arrive(LinkDir),
    /// The earliest packet in flight on reordering direction `dir` arrives, if `gen` is still
    /// the direction's current generation (see [`reorder`]).
    ArriveReordered { dir: LinkDir, gen: u32 },
    /// Packet `id` starts transmission on a link captured by pcap writer `cap` (the packet does
    /// not record its link direction: see `packet`).
    CaptureTx { cap: u32, id: PacketId },
    Wake { ep: EndpointId, gen: u32 },
    FlowStart(u32),
    Sample,
    /// Stage `stage` of hand-off `idx` (see [`quickstart::net`]).
    Handoff { idx: u32, stage: u8 },
}

impl Event {
    #[inline]
    fn pack(self) -> u64 {
        match self {
            Event::Arrive(p) => u64::from(p),
            Event::CaptureTx { cap, id } => 1 << 60 | u64::from(cap) << 32 | u64::from(id),
            Event::Wake { ep, gen } => 2 << 60 | u64::from(ep) << 32 | u64::from(gen),
            Event::FlowStart(f) => 3 << 60 | u64::from(f),
            Event::Sample => 4 << 60,
            Event::ArriveReordered { dir, gen } => 5 << 60 | u64::from(gen) << 32 | u64::from(dir),
            Event::Handoff { idx, stage } => 6 << 60 | u64::from(stage) << 32 | u64::from(idx),
        }
    }
    #[inline]
    fn unpack(x: u64) -> Event {
        let lo = x as u32;
        match x >> 60 {
            0 => Event::Arrive(lo),
            1 => Event::CaptureTx { cap: ((x >> 32) & 0x0FFF_FFFF) as u32, id: lo },
            2 => Event::Wake { ep: ((x >> 32) & 0x0FFF_FFFF) as u32, gen: lo },
            3 => Event::FlowStart(lo),
            5 => Event::ArriveReordered { dir: lo, gen: ((x >> 32) & 0x0FFF_FFFF) as u32 },
            6 => Event::Handoff { idx: lo, stage: ((x >> 32) & 0xFF) as u8 },
            _ => Event::Sample,
        }
    }
}

/// Per-flow driver state (one per connection ever drawn: the `flows` table's rows). The
/// connection's endpoints live in `Sim::endpoints` only while it is open (`slot`).
#[derive(Debug)]
struct FlowState {
    /// Sender and receiver nodes.
    src: u32,
    dst: u32,
    /// The endpoint pair (`2 * slot`, `2 * slot + 1`) while the connection is open;
    /// `lifecycle::NO_SLOT` before it opens and after it is freed.
    slot: u32,
    /// Packets of this flow in the arena (in flight, or waiting for their capture record).
    in_flight: u32,
    /// The lazy source that drew this flow (its next arrival is drawn when this one opens),
    /// or `lifecycle::NO_SOURCE`.
    source: u32,
    /// The traffic source that drew it (0: the fixed flows, k + 1: `spec.workloads[k]`).
    drawn_by: u32,
    /// Settings, held from the draw until the connection opens: the drawing source's shared
    /// configuration (a reference count, no copy per connection).
    pending: Option<std::sync::Arc<tcplab_tcp::TcpConfig>>,
    /// The connection shares state with the host's others (`TcpConfig::sharing`).
    sharing: bool,
    /// What the results need once the endpoints are freed: its row in `Sim::closed`, or
    /// `lifecycle::NOT_CLOSED`.
    closed: u32,
    start: SimTime,
    size: Option<u64>,
    fct: Option<SimDuration>,
    /// Client (data) sequence space, relative to the client's ISS.
    data_seq: SeqUnwrap,
    /// Server sequence space (ACK side).
    ack_seq: SeqUnwrap,
    truth: SpuriousTracker,
}

impl FlowState {
    /// The name of the `[[workloads]]` entry that drew this flow (`None` for a `[[flows]]`
    /// entry): its `workload` in the summary, its `flow_name` in the trace tables.
    fn workload<'s>(&self, spec: &'s SimSpec) -> Option<&'s str> {
        (self.drawn_by as usize).checked_sub(1).and_then(|k| spec.workloads.get(k)).map(|w| w.name())
    }
}

/// One open pcap capture.
struct Capture {
    path: PathBuf,
    writer: PcapLinkWriter,
}

struct Sim<'a> {
    spec: &'a SimSpec,
    queue: EventQueue<u64>,
    now: SimTime,
    end: SimTime,
    packets: PacketArena,
    links: Vec<LinkDirState>,
    routes: Routes,
    endpoints: Vec<Endpoint>,
    /// Endpoint pairs free for reuse.
    free_slots: Vec<u32>,
    /// The results rows of the freed connections (`FlowState::closed`), in the order freed.
    closed: Vec<lifecycle::Closed>,
    flows: Vec<FlowState>,
    /// Where connections come from (`traffic`).
    sources: Vec<Box<dyn traffic::TrafficSource>>,
    seed: u64,
    trace: bool,
    next_copy: u64,
    events: u64,
    /// Time of the last event processed.
    last_t: SimTime,
    rec: Option<Box<Recorder>>,
    /// The flows the fixed-interval timeseries sampler visits (`sampler`).
    sampled: sampler::SampleSchedule,
    captures: Vec<Capture>,
    ev_buf: Vec<TcpEvent>,
    /// Quick-Start routers and hand-off state (empty unless the scenario has them).
    qsnet: quickstart::net::QsNet,
    /// The hooks ended the run early.
    stopped: bool,
    /// Flows whose workload a trace chunk has named (`TraceChunk::new_flows`).
    flows_reported: u32,
    /// Pathlet routers and the state hosts share across connections (inactive unless a
    /// connection shares state).
    shared: pathlet::SharedNet,
    /// Test probe: (arrival time, copy id) of packets delivered to hosts.
    #[cfg(test)]
    delivered: Vec<(SimTime, u64)>,
}

/// Runs `spec` with `opts`.
pub fn run(spec: &SimSpec, opts: &RunOptions) -> Result<RunOutput, SimError> {
    run_with(spec, opts, &mut NoHooks)
}

/// Runs `spec` with `opts`, calling `hooks` as it goes: they can stop the run early and take
/// the trace in chunks ([`run_control`]). With [`NoHooks`] this is [`run`].
pub fn run_with(spec: &SimSpec, opts: &RunOptions, hooks: &mut dyn RunHooks) -> Result<RunOutput, SimError> {
    validate::validate(spec)?;
    let mut sim = Sim::new(spec, opts)?;
    sim.schedule_initial();
    sim.run_loop_with(hooks)?;
    sim.finish(opts)
}

impl<'a> Sim<'a> {
    fn new(spec: &'a SimSpec, opts: &RunOptions) -> Result<Self, SimError> {
        let routes = Routes::build(spec)?;
        let mut links = Vec::with_capacity(spec.links.len() * 2);
        for (i, l) in spec.links.iter().enumerate() {
            for dir in 0..2 {
                links.push(LinkDirState::new(l, i, dir, opts.seed).with_dynamics(l, i, dir, opts.seed, spec.duration));
            }
        }
        let mut captures = Vec::new();
        for (name, path) in &opts.pcap {
            let Some(i) = spec.links.iter().position(|l| &l.name == name) else {
                let known = spec.links.iter().map(|l| l.name.as_str()).collect::<Vec<_>>().join(", ");
                return Err(SimError::UnknownPcapLink { name: name.clone(), known });
            };
            let writer = PcapLinkWriter::create(path)
                .map_err(|source| SimError::PcapCreate { path: path.clone(), source })?;
            let idx = captures.len() as u32;
            links[2 * i].set_capture(idx);
            links[2 * i + 1].set_capture(idx);
            captures.push(Capture { path: path.clone(), writer });
        }
        let sources = lifecycle::sources(spec, &routes, opts.seed)?;
        let qsnet = quickstart::net::QsNet::new(spec, |l, n| dir_from(spec, l, n));
        Ok(Sim {
            qsnet,
            stopped: false,
            flows_reported: 0,
            shared: pathlet::SharedNet::new(spec),
            spec,
            queue: EventQueue::with_capacity(1024),
            now: SimTime::ZERO,
            end: SimTime::ZERO + spec.duration,
            packets: PacketArena::new(),
            links,
            routes,
            endpoints: Vec::new(),
            free_slots: Vec::new(),
            closed: Vec::new(),
            flows: Vec::with_capacity(spec.flows.len()),
            sources,
            seed: opts.seed,
            trace: opts.trace,
            next_copy: 0,
            events: 0,
            last_t: SimTime::ZERO,
            rec: opts.trace.then(|| Box::new(Recorder::new())),
            sampled: sampler::SampleSchedule::default(),
            captures,
            ev_buf: Vec::new(),
            #[cfg(test)]
            delivered: Vec::new(),
        })
    }

    #[inline]
    fn push(&mut self, t: SimTime, ev: Event) {
        self.queue.push(t, ev.pack());
    }

    fn schedule_initial(&mut self) {
        self.draw_initial();
        for (i, h) in self.spec.quick_start.handoffs.iter().enumerate() {
            let (at, up) = (SimTime::ZERO + h.at, SimTime::ZERO + h.at + h.gap);
            self.push(at, Event::Handoff { idx: i as u32, stage: 0 });
            self.push(up, Event::Handoff { idx: i as u32, stage: 1 });
            if h.notify {
                self.push(up + h.notify_delay, Event::Handoff { idx: i as u32, stage: 2 });
            }
        }
        if self.rec.is_some() {
            if let Some(iv) = self.spec.timeseries_interval {
                self.push(SimTime::ZERO + iv, Event::Sample);
            }
        }
    }

    #[cfg(test)]
    fn run_loop(&mut self) -> Result<(), SimError> {
        self.run_loop_with(&mut NoHooks)
    }

    fn run_loop_with(&mut self, hooks: &mut dyn RunHooks) -> Result<(), SimError> {
        let poll_mask = hooks.poll_every().max(1).next_power_of_two() - 1;
        // Checks between polls (a power of two not above the poll's, so every poll point is
        // also a check point and one masked test per event serves both).
        let check_mask = hooks.check_every().max(1).next_power_of_two().min(poll_mask + 1) - 1;
        // Pop, then look at the time: the queue finds its minimum while popping, and an event
        // after `end` is simply dropped with the rest of the queue.
        while let Some((t, ev)) = self.queue.pop() {
            if t > self.end {
                break;
            }
            self.now = t;
            let ev = Event::unpack(ev);
            match ev {
                Event::Arrive(dir) | Event::ArriveReordered { dir, .. } => {
                    let link = &mut self.links[dir as usize];
                    let (id, next) = if let Event::ArriveReordered { gen, .. } = ev {
                        // A superseded event is not counted.
                        let Some((id, next)) = link.pop_reordered(gen) else { continue };
                        (id, next.map(|(t, gen)| (t, Event::ArriveReordered { dir, gen })))
                    } else {
                        let id = link.pop_arrival(&self.packets);
                        (id, link.next_arrival().map(|t| (t, Event::Arrive(dir))))
                    };
                    // One call site each for the push and for `on_arrive`: both stay inlined
                    // here as they were before reordering existed.
                    if let Some((t, ev)) = next {
                        self.push(t, ev);
                    }
                    self.on_arrive(dir, id);
                }
                Event::CaptureTx { cap, id } => self.on_capture(cap, id)?,
                Event::Wake { ep, gen } => match self.endpoints[ep as usize].on_wake(gen, t) {
                    WakeAction::Stale => continue,
                    WakeAction::Defer(at) => {
                        self.push(at, Event::Wake { ep, gen });
                        continue;
                    }
                    WakeAction::Fire => {
                        self.endpoints[ep as usize].conn.handle_timeout(t);
                        self.drive(ep);
                    }
                },
                Event::FlowStart(f) => self.on_flow_start(f),
                Event::Sample => self.on_sample(),
                Event::Handoff { idx, stage } => self.on_handoff(idx, stage),
            }
            self.events += 1;
            self.last_t = t;
            if self.events & check_mask == 0 {
                let c = self.poll(hooks, self.events & poll_mask == 0)?;
                if c == Control::Stop {
                    self.stopped = true;
                    break;
                }
            }
        }
        Ok(())
    }

    /// Every `RunHooks::check_every` events; `at_poll` every `RunHooks::poll_every`: at a
    /// poll, retire settled ground truth; at a poll or a check where the recorder holds a
    /// chunk's rows, also stream them (so a chunk is at most the rows of one check interval
    /// over the size, however many rows an event writes: a sample of many flows and queues
    /// writes hundreds); then ask the hooks whether to go on (`poll` at a poll, else `check`).
    #[cold]
    #[inline(never)]
    fn poll(&mut self, hooks: &mut dyn RunHooks, at_poll: bool) -> Result<Control, SimError> {
        let full = hooks.chunk_rows().zip(self.rec.as_deref()).is_some_and(|(n, rec)| rec.rows_held() >= n);
        if !at_poll && !full {
            return Ok(hooks.check(self.now, self.events));
        }
        let oldest = self.packets.oldest_live_copy().unwrap_or(self.next_copy);
        let mut keep_from = self.rec.as_deref().map_or(0, Recorder::next_row);
        for fl in &mut self.flows {
            if let Some(row) = fl.truth.settle(oldest) {
                keep_from = keep_from.min(row);
            }
        }
        if full {
            let (nodes, links) = self.names();
            if let Some(rec) = self.rec.as_deref_mut() {
                for fl in &mut self.flows {
                    for r in fl.truth.take_spurious_rows() {
                        rec.set_spurious(r);
                    }
                }
                let (events, timeseries, queues) = rec.take_chunk(keep_from, &nodes, &links);
                let queues = self.links.iter().any(|l| l.red.is_some()).then_some(queues);
                let first_new_flow = self.flows_reported;
                let new_flows = self.flows[first_new_flow as usize..]
                    .iter()
                    .map(|fl| fl.workload(self.spec).map(str::to_string))
                    .collect();
                self.flows_reported = self.flows.len() as u32;
                hooks.trace_chunk(TraceChunk { events, timeseries, queues, new_flows, first_new_flow })?;
            }
        }
        Ok(if at_poll { hooks.poll(self.now, self.events) } else { hooks.check(self.now, self.events) })
    }

    /// Node and link names in spec order (the dictionaries of the trace's name columns).
    fn names(&self) -> (Vec<String>, Vec<String>) {
        (
            self.spec.nodes.iter().map(|n| n.name.clone()).collect(),
            self.spec.links.iter().map(|l| l.name.clone()).collect(),
        )
    }

    fn on_flow_start(&mut self, f: u32) {
        let ep = self.open(f);
        let conn = &mut self.endpoints[ep as usize].conn;
        match self.flows[f as usize].size {
            Some(n) => {
                conn.send(n);
                conn.close();
            }
            None => conn.send_unlimited(),
        }
        self.drive(ep);
    }

    /// A hand-off stage (seed 002 Ch. 7): links down, new routes (endpoints on the mobile
    /// node re-pick their first hop), or the explicit notification to the data senders.
    fn on_handoff(&mut self, idx: u32, stage: u8) {
        let spec = self.spec;
        let Some(h) = spec.quick_start.handoffs.get(idx as usize) else { return };
        let eff = self.qsnet.handoff_stage(h, stage, |l, n| dir_from(spec, l, n));
        for (node, dst, dir) in eff.reroutes {
            for e in self.endpoints.iter_mut().filter(|e| e.node == node && e.peer_node == dst) {
                e.out_link = dir;
            }
        }
        if let Some(m) = eff.notify {
            for f in 0..self.flows.len() {
                let fl = &self.flows[f];
                if fl.slot != lifecycle::NO_SLOT && (fl.src == m || fl.dst == m) {
                    let ep = 2 * fl.slot;
                    self.shared.rediscover(fl.slot);
                    self.endpoints[ep as usize].conn.notify_path_change();
                    self.drive(ep);
                }
            }
        }
    }

    fn on_sample(&mut self) {
        let now = self.now;
        for d in 0..self.links.len() {
            if self.links[d].red.is_some() {
                self.record_queue(d as u32);
            }
        }
        if let Some(rec) = self.rec.as_deref_mut() {
            // Flows from their start to their first tick after they ended (`sampler`).
            let (flows, endpoints, closed) = (&self.flows, &self.endpoints, &self.closed);
            self.sampled.tick(now, flows.len(), |f| flows[f as usize].start, |f| {
                let fl = &flows[f as usize];
                let (cc, visit) = match (fl.closed, fl.slot) {
                    (lifecycle::NOT_CLOSED, lifecycle::NO_SLOT) => return sampler::Visit::Skipped, // drawn, opens at this very time
                    (lifecycle::NOT_CLOSED, slot) => (endpoints[2 * slot as usize].conn.cc_snapshot(), sampler::Visit::Sampled),
                    (k, _) => (closed[k as usize].cc, sampler::Visit::Last),
                };
                rec.sample(now, f, &cc);
                visit
            });
        }
        if let Some(iv) = self.spec.timeseries_interval {
            let next = now + iv;
            if next <= self.end {
                self.push(next, Event::Sample);
            }
        }
    }

    /// After any input to endpoint `ep`: transmit what it has, record its events, re-arm its
    /// wake-up.
    fn drive(&mut self, ep: EndpointId) {
        let now = self.now;
        while let Some(tx) = self.endpoints[ep as usize].conn.poll_transmit(now) {
            self.emit(ep, tx);
        }
        let e = &mut self.endpoints[ep as usize];
        if self.shared.active && e.is_client {
            self.shared.after_drive(now, ep / 2, &e.conn);
        }
        if let Some(rec) = self.rec.as_deref_mut() {
            self.ev_buf.extend(e.conn.drain_events());
            let (flow, node) = (e.flow, e.node);
            let fl = &mut self.flows[flow as usize];
            for &te in &self.ev_buf {
                rec.event(engine_row(te, flow, node, if e.is_client { &mut fl.data_seq } else { &mut fl.ack_seq }));
            }
            self.ev_buf.clear();
            if e.is_client && self.spec.timeseries_interval.is_none() {
                let cc = e.conn.cc_snapshot();
                if cc != e.last_cc {
                    e.last_cc = cc;
                    rec.sample(now, flow, &cc);
                }
            }
        } else {
            e.conn.drain_events().for_each(drop);
        }
        let flow = e.flow;
        if let Some((t, gen)) = e.reschedule(e.conn.poll_timeout(), now) {
            self.push(t, Event::Wake { ep, gen });
        }
        self.maybe_free(flow);
    }

    /// Puts one segment from endpoint `ep` on its first link.
    fn emit(&mut self, ep: EndpointId, tx: Transmit) {
        let now = self.now;
        let e = &mut self.endpoints[ep as usize];
        let seg = tx.segment;
        e.ip_id = e.ip_id.wrapping_add(1);
        let copy_id = self.next_copy;
        self.next_copy += 1;
        let fl = &mut self.flows[e.flow as usize];
        fl.in_flight += 1;
        let (own, peer) =
            if e.is_client { (&mut fl.data_seq, &mut fl.ack_seq) } else { (&mut fl.ack_seq, &mut fl.data_seq) };
        let rel = own.rel(seg.seq);
        let mut row = None;
        if let Some(rec) = self.rec.as_deref_mut() {
            if tx.retransmission.is_some() || seg.len > 0 || seg.flags.contains(TcpFlags::SYN) || seg.flags.contains(TcpFlags::FIN) {
                let kind = if tx.retransmission.is_some() { EventKind::SegmentRetransmitted } else { EventKind::SegmentSent };
                let ack = seg.flags.contains(TcpFlags::ACK).then(|| peer.rel(seg.ack));
                row = Some(rec.event(EventRow {
                    seq: Some(rel),
                    len: seg.len,
                    ack,
                    cause: tx.retransmission.map(Cause::Retrans),
                    ..EventRow::new(now, e.flow, kind, e.node)
                }));
            }
        }
        if e.is_client && seg.len > 0 && tx.retransmission.is_some() {
            fl.truth.on_retransmit(rel, rel + u64::from(seg.len), copy_id, row);
        }
        let mut pkt = Packet {
            copy_id,
            flow: e.flow,
            dst_node: e.peer_node,
            wire_len: Packet::wire_len_of(&seg, seg.ip_options_len()),
            ip_options_len: seg.ip_options_len(),
            ip_id: e.ip_id,
            // The sender's OS's initial TTL (p0f's `ittl`; `profile::initial_ttl`).
            ttl: tcplab_tcp::profile::initial_ttl(e.conn.config()),
            ..Packet::default()
        };
        pkt.set_from_client(e.is_client);
        // The sender's OS's handshake option layout (`profile::syn_layout`), for the capture.
        let layout = seg.flags.contains(TcpFlags::SYN).then(|| SynOptionLayout::of(e.conn.config()));
        let (dir, is_client) = (e.out_link, e.is_client);
        let id = self.packets.alloc(&seg, pkt);
        if let Some(l) = layout {
            self.packets.set_syn_layout(id, l);
        }
        if self.shared.active {
            self.shared.on_emit(now, ep / 2, is_client, &seg, id, &mut self.packets);
        }
        self.send_on_link(dir, id);
    }

    /// Offers packet `id` to link direction `dir`.
    #[inline]
    fn send_on_link(&mut self, dir: u32, id: PacketId) {
        let now = self.now;
        if self.qsnet.is_down(dir) {
            // A hand-off took the link down: the packet is lost (counted as a loss-model drop).
            let what = Dropped::of(self.packets.get(id));
            self.free_packet(id);
            self.links[dir as usize].stats.drops_loss += 1;
            self.record_drop(now, what, dir, DropReason::LossModel);
            return;
        }
        let link = &mut self.links[dir as usize];
        let p = self.packets.get_mut(id);
        let ect = matches!(p.ecn(), Ecn::Ect0 | Ecn::Ect1);
        let admit = link.admit(Offer { wire_len: p.wire_len, flow: p.flow, payload: p.len, ect }, now);
        if link.red.is_some() && self.rec.is_some() && self.spec.timeseries_interval.is_none() {
            self.record_queue(dir);
        }
        let link = &mut self.links[dir as usize];
        let p = self.packets.get_mut(id);
        match admit {
            Admit::Dropped(reason) => {
                let what = Dropped::of(p);
                self.free_packet(id);
                self.record_drop(now, what, dir, reason);
            }
            Admit::Transmit { start, arrive, lost, marked } => {
                p.set_lost(lost);
                if marked {
                    // RFC 3168 §5: "the router sets the CE codepoint".
                    p.set_ecn(Ecn::Ce);
                }
                let what = Dropped::of(p);
                let capture = link.capture();
                let head = if lost {
                    None
                } else if link.reordered() {
                    link.push_reordered(arrive, id).map(|gen| Event::ArriveReordered { dir, gen })
                } else {
                    link.push_arrival(arrive, id, &mut self.packets).then_some(Event::Arrive(dir))
                };
                if let Some(cap) = capture {
                    self.push(start, Event::CaptureTx { cap, id });
                }
                if let Some(ev) = head {
                    self.push(arrive, ev);
                }
                if lost {
                    if capture.is_none() {
                        self.free_packet(id);
                    }
                    self.record_drop(start, what, dir, DropReason::LossModel);
                }
            }
        }
    }

    /// A `queues` row for RED link direction `dir` now (when tracing).
    #[inline(never)]
    fn record_queue(&mut self, dir: u32) {
        let now = self.now;
        let Some(rec) = self.rec.as_deref_mut() else { return };
        let l = &mut self.links[dir as usize];
        let (packets, bytes) = (l.queue.len_at(now) as u64, l.queue.bytes_at(now));
        let Some(red) = l.red.as_deref() else { return };
        rec.queues.push(recorder::QueueRow {
            t: now,
            dir,
            packets,
            bytes,
            avg: red.avg,
            marks: red.stats.marks,
            drops: l.stats.drops_queue,
        });
    }

    /// A `packet_dropped` row: which segment (relative seq and ack in its own direction's
    /// numbering, payload length), where and why.
    fn record_drop(&mut self, t: SimTime, what: Dropped, dir: u32, reason: DropReason) {
        if let Some(rec) = self.rec.as_deref_mut() {
            let fl = &self.flows[what.flow as usize];
            let (own, peer) = if what.from_client { (&fl.data_seq, &fl.ack_seq) } else { (&fl.ack_seq, &fl.data_seq) };
            rec.event(EventRow {
                seq: Some(own.peek(what.seq)),
                len: what.len,
                ack: what.ack.map(|a| peer.peek(a)),
                link: Some(dir / 2),
                reason: Some(reason),
                ..EventRow::new(t, what.flow, EventKind::PacketDropped, self.links[dir as usize].from)
            });
        }
    }

    fn on_capture(&mut self, c: u32, id: PacketId) -> Result<(), SimError> {
        let p = *self.packets.get(id);
        let seg = self.packets.segment(&p);
        let fl = &self.flows[p.flow as usize];
        let (src, dst) = (fl.src, fl.dst);
        let (src, dst) = if p.from_client() { (src, dst) } else { (dst, src) };
        let wire = WirePacket {
            src_ip: node_ip(src),
            dst_ip: node_ip(dst),
            src_port: port(p.flow, p.from_client()),
            dst_port: port(p.flow, !p.from_client()),
            ip_id: p.ip_id,
            ttl: p.ttl,
            segment: &seg,
            syn_layout: self.packets.syn_layout(&p),
            pathlet: [self.packets.pathlet(&p, false), self.packets.pathlet(&p, true)],
        };
        let cap = &mut self.captures[c as usize];
        cap.writer
            .write(self.now, &wire)
            .map_err(|source| SimError::PcapWrite { path: cap.path.clone(), source })?;
        if p.lost() {
            self.free_packet(id);
        }
        Ok(())
    }

    /// The last bit of packet `id` reached the far end of link direction `dir`.
    fn on_arrive(&mut self, dir: LinkDir, id: PacketId) {
        let node = self.links[dir as usize].to;
        if self.qsnet.is_down(dir) {
            // In flight when a hand-off took the link down: lost.
            let what = Dropped::of(self.packets.get(id));
            self.free_packet(id);
            self.links[dir as usize].stats.drops_loss += 1;
            self.record_drop(self.now, what, dir, DropReason::LossModel);
            return;
        }
        let p = self.packets.get_mut(id);
        if node == p.dst_node {
            let p = *p;
            let seg = self.packets.segment(&p);
            // The Pathlet header the endpoint reads (a server the Pathlet header, a client the
            // Echo) is read before the packet (and its side-pool slot) is freed.
            let ph = if self.shared.active { self.packets.pathlet(&p, !p.from_client()) } else { None };
            self.free_packet(id);
            self.deliver(node, &p, &seg, ph);
            return;
        }
        // A router (paths never transit hosts: checked at start).
        p.ttl = p.ttl.saturating_sub(1);
        let (what, dst, ttl) = (Dropped::of(p), p.dst_node, p.ttl);
        if ttl == 0 {
            self.free_packet(id);
            let dir = self.routes.next_hop(node, dst).unwrap_or(0);
            self.record_drop(self.now, what, dir, DropReason::TtlExpired);
            return;
        }
        match self.qsnet.next_hop(node, dst).or_else(|| self.routes.next_hop(node, dst)) {
            Some(dir) => {
                let src = if what.from_client { self.flows[what.flow as usize].src } else { self.flows[what.flow as usize].dst };
                self.qsnet.on_forward(self.now, dir, id, src, &mut self.packets);
                if self.shared.active {
                    self.shared.on_forward(node, id, &mut self.packets);
                }
                self.send_on_link(dir, id)
            }
            None => self.free_packet(id), // unreachable after check_path
        }
    }

    /// Hands packet `p`, carrying `seg` and `ph` (its Pathlet header towards a server, its
    /// Pathlet Echo towards a client), to its endpoint at host `node`.
    fn deliver(&mut self, node: u32, p: &Packet, seg: &tcplab_tcp::Segment, ph: Option<tcplab_tcp::startup::pathlet_header::PathletHeader>) {
        let now = self.now;
        #[cfg(test)]
        self.delivered.push((now, p.copy_id));
        let fl = &mut self.flows[p.flow as usize];
        debug_assert_ne!(fl.slot, lifecycle::NO_SLOT, "a packet outlived its connection");
        let ep = receiver_of(fl.slot, p.from_client());
        if p.from_client() && seg.len > 0 {
            let rel = fl.data_seq.rel(seg.seq);
            fl.truth.on_arrival(rel, rel + u64::from(seg.len), p.copy_id);
        }
        let e = &mut self.endpoints[ep as usize];
        debug_assert_eq!(e.node, node);
        if self.shared.active {
            if p.from_client() {
                self.shared.on_server_receive(fl.slot, p, ph);
            } else {
                self.shared.on_client_receive(now, fl.slot, seg, ph, &mut e.conn);
            }
        }
        e.conn.handle_segment(now, seg);
        if p.from_client() {
            if let (Some(size), None) = (fl.size, fl.fct) {
                if e.conn.stats().bytes_delivered >= size {
                    fl.fct = Some(now.saturating_since(fl.start));
                }
            }
        } else if let Some(rec) = self.rec.as_deref_mut() {
            if seg.flags.contains(TcpFlags::ACK) {
                rec.event(EventRow {
                    seq: Some(fl.ack_seq.rel(seg.seq)),
                    len: seg.len,
                    ack: Some(fl.data_seq.rel(seg.ack)),
                    ..EventRow::new(now, p.flow, EventKind::AckReceived, node)
                });
            }
        }
        self.drive(ep);
    }

    fn finish(mut self, opts: &RunOptions) -> Result<RunOutput, SimError> {
        // (If the real writer's `finish` takes `&mut self`, this needs `for mut c`.)
        for c in std::mem::take(&mut self.captures) {
            c.writer
                .finish()
                .map_err(|source| SimError::PcapWrite { path: c.path.clone(), source })?;
        }
        let spec = self.spec;
        let end = self.last_t;
        let names = lifecycle::SummaryNames::new(spec);
        let flows: Vec<FlowSummary> = (0..self.flows.len()).map(|i| self.flow_summary(i, end, &names)).collect();
        let links = spec
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let (ab, ba) = (&self.links[2 * i], &self.links[2 * i + 1]);
                LinkSummary {
                    name: l.name.clone(),
                    bandwidth_bps: l.bandwidth.as_bps(),
                    delay_ns: l.delay.as_nanos(),
                    packets_ab: ab.stats.packets,
                    packets_ba: ba.stats.packets,
                    bytes_ab: ab.stats.bytes,
                    bytes_ba: ba.stats.bytes,
                    drops_ab: ab.stats.drops_queue + ab.stats.drops_loss,
                    drops_ba: ba.stats.drops_queue + ba.stats.drops_loss,
                    max_queue_ab: ab.queue.max_packets(),
                    max_queue_ba: ba.queue.max_packets(),
                    red_ab: red_summary(ab),
                    red_ba: red_summary(ba),
                }
            })
            .collect();
        let summary = Summary {
            scenario: spec.name.clone(),
            seed: opts.seed,
            sim_time_s: end.as_secs_f64(),
            events: self.events,
            flows,
            links,
            quick_start_routers: self.qsnet.summaries(spec),
            pathlet_routers: self.shared.router_summaries(spec),
            pathlet_tables: self.shared.table_summaries(spec),
        };
        let tracing = self.rec.is_some();
        let mut rec = self.rec.take().map(|b| *b).unwrap_or_default();
        if tracing {
            // A stopped run has no link rows after its last event.
            rec.link_dynamics(&self.links, if self.stopped { end } else { self.end });
        }
        for fl in &mut self.flows {
            for r in fl.truth.take_spurious_rows() {
                rec.set_spurious(r);
            }
        }
        let (node_names, link_names) = self.names();
        let (events, timeseries, queues) = rec.finish(&node_names, &link_names);
        let queues = self.links.iter().any(|l| l.red.is_some()).then_some(queues);
        Ok(RunOutput {
            flows: summary::flows_table(&summary.flows),
            summary,
            events,
            timeseries,
            queues,
            stopped: self.stopped,
        })
    }
}

/// The direction index of `link` leaving node `node` (`None` if not attached).
fn dir_from(spec: &SimSpec, link: usize, node: usize) -> Option<u32> {
    let l = spec.links.get(link)?;
    if l.a == node {
        Some(2 * link as u32)
    } else if l.b == node {
        Some(2 * link as u32 + 1)
    } else {
        None
    }
}

/// RED's counters of a link direction, if it runs RED.
fn red_summary(d: &LinkDirState) -> Option<summary::RedSummary> {
    d.red.as_deref().map(|r| summary::RedSummary {
        marks: r.stats.marks,
        early_drops: r.stats.early_drops,
        forced_drops: r.stats.forced_drops,
        overflow_drops: d.stats.drops_queue - r.stats.early_drops - r.stats.forced_drops,
        avg_end: r.avg,
        mean_queue: if r.stats.arrivals == 0 { 0.0 } else { r.stats.queue_sum as f64 / r.stats.arrivals as f64 },
    })
}

/// The `events` row of an engine event at endpoint (`flow`, `node`); `seq` unwraps the
/// endpoint's own sequence numbers.
fn engine_row(te: TcpEvent, flow: u32, node: u32, seq: &mut SeqUnwrap) -> EventRow {
    match te {
        TcpEvent::Established { at } => EventRow::new(at, flow, EventKind::Established, node),
        TcpEvent::RttSample { at, rtt_ns } => {
            EventRow { value: Some(rtt_ns), ..EventRow::new(at, flow, EventKind::RttSample, node) }
        }
        TcpEvent::RtoFired { at, backoff } => {
            EventRow { value: Some(u64::from(backoff)), ..EventRow::new(at, flow, EventKind::RtoFired, node) }
        }
        TcpEvent::RecoveryEntered { at, kind, recovery_point } => EventRow {
            seq: Some(seq.rel(recovery_point)),
            cause: Some(Cause::Recovery(kind)),
            ..EventRow::new(at, flow, EventKind::RecoveryEntered, node)
        },
        TcpEvent::RecoveryExited { at, kind } => EventRow {
            cause: Some(Cause::Recovery(kind)),
            ..EventRow::new(at, flow, EventKind::RecoveryExited, node)
        },
        TcpEvent::SendComplete { at } => EventRow::new(at, flow, EventKind::SendComplete, node),
        TcpEvent::SpuriousDecision { at, detector, spurious, ack } => EventRow {
            ack: Some(seq.rel(ack)),
            cause: Some(Cause::Detector(detector)),
            value: Some(u64::from(spurious)),
            ..EventRow::new(at, flow, EventKind::SpuriousDecision, node)
        },
        TcpEvent::TlpProbe { at, seq: s, new_data } => EventRow {
            seq: Some(seq.rel(s)),
            value: Some(u64::from(new_data)),
            ..EventRow::new(at, flow, EventKind::TlpProbe, node)
        },
    }
}

mod lifecycle;
#[cfg(test)]
mod tests;
