//! The traffic-source seam: what opens connections, and when.
//!
//! A [`TrafficSource`] hands the simulator [`Arrival`]s — (time, sender, receiver, size, TCP
//! settings) — in time order, one at a time ([`TrafficSource::next_arrival`]). A workload's
//! arrivals share its one `Arc<TcpConfig>`: drawing a connection copies no configuration. The simulator
//! gives each arrival the next flow id when it draws it, opens the connection at its time
//! (client and server endpoints created then, the data written and closed at once) and frees
//! the connection's state when it has ended (`Sim::maybe_free`); the flow's results stay in
//! the `flows` table.
//!
//! Drawing order:
//! - an **eager** source ([`TrafficSource::eager`]: the fixed `flows` of a scenario,
//!   [`FixedFlows`]) is drained when the run starts, so its connections get ids in list order
//!   and their start events are queued first (the order runs had before the seam existed);
//! - a **lazy** source (a workload: [`poisson::Poisson`], [`web::Web`]) is drawn one arrival ahead: its
//!   first arrival when the run starts, each next one when the previous connection opens. The
//!   simulator then holds one pending arrival per source, whatever the number of connections.
//!
//! A source decides only *what* connects *when*; it owns its random stream (seeded from the run
//! seed and the source's index, `seed::DOMAIN_TRAFFIC`) so runs stay a pure function of
//! (scenario, seed). The web-traffic model ([`web::Web`]: sessions of pages of objects, ns-2
//! PagePool/WebTraf style) implements the same trait; being open loop, like ns-2's, it needs no
//! completions. A source that must react to completions would add a hook here, called from
//! `Sim::maybe_free`.

pub mod poisson;
pub mod web;

use crate::spec::{FlowSpec, NodeId};
use std::sync::Arc;
use tcplab_tcp::TcpConfig;
use tcplab_time::{SimDuration, SimTime};

/// One connection a source wants opened.
#[derive(Clone, Debug, PartialEq)]
pub struct Arrival {
    /// When the client issues its SYN.
    pub at: SimTime,
    pub src: NodeId,
    pub dst: NodeId,
    /// Bytes the client sends, then closes; `None`: a bulk sender without end.
    pub size: Option<u64>,
    /// Settings of both endpoints: shared by every arrival of the source (one configuration
    /// per workload, a reference count per connection; issue 12's per-connection cost).
    pub tcp: Arc<TcpConfig>,
}

/// A source of connections.
pub trait TrafficSource: std::fmt::Debug {
    /// The next arrival, not earlier than the previous one; `None` when the source is done.
    fn next_arrival(&mut self) -> Option<Arrival>;
    /// Drain this source when the run starts (a short fixed list) rather than one arrival
    /// ahead.
    fn eager(&self) -> bool {
        false
    }
    /// Every (sender, receiver) pair this source may use, for the route check before the run
    /// (`name` names the source in errors).
    fn pairs(&self) -> Vec<(NodeId, NodeId)>;
    /// How errors name this source (a scenario path).
    fn name(&self) -> String;
}

/// The fixed `flows` of a scenario, in list order.
#[derive(Debug)]
pub struct FixedFlows {
    flows: std::vec::IntoIter<FlowSpec>,
    all: Vec<(NodeId, NodeId)>,
}

impl FixedFlows {
    pub fn new(flows: &[FlowSpec]) -> FixedFlows {
        FixedFlows { all: flows.iter().map(|f| (f.src, f.dst)).collect(), flows: flows.to_vec().into_iter() }
    }
}

impl TrafficSource for FixedFlows {
    fn next_arrival(&mut self) -> Option<Arrival> {
        self.flows.next().map(|f| Arrival { at: SimTime::ZERO + f.start, src: f.src, dst: f.dst, size: f.size, tcp: Arc::new(f.tcp) })
    }
    fn eager(&self) -> bool {
        true
    }
    fn pairs(&self) -> Vec<(NodeId, NodeId)> {
        self.all.clone()
    }
    fn name(&self) -> String {
        "flows".into()
    }
}

/// `t` as a time since the start of the run.
#[inline]
pub(crate) fn at(t: SimDuration) -> SimTime {
    SimTime::ZERO + t
}
