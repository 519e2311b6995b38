//! The simulator's Quick-Start state: a [`QsRouter`] per Quick-Start capable interface, and
//! what scheduled vertical hand-offs change (links down, route overrides). Kept here so the
//! core (`sim/mod.rs`) only calls four hooks: `next_hop`, `is_down`, `on_forward` and
//! `handoff_stage`.

use super::QsRouter;
use crate::sim::packet::{PacketArena, PacketId};
use crate::spec::{HandoffSpec, SimSpec};
use serde::Serialize;
use tcplab_time::SimTime;

/// One Quick-Start interface's counters in `summary.json` (`quick_start_routers`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QsRouterSummary {
    pub node: String,
    pub link: String,
    pub requests: u64,
    pub approved: u64,
}

/// Quick-Start state of a run (empty vectors when the scenario has none: no cost).
#[derive(Debug, Default)]
pub struct QsNet {
    /// Per link direction (`2·link + dir`), the router interface, if Quick-Start capable.
    routers: Vec<Option<Box<QsRouter>>>,
    /// Per link direction: the link is down (hand-off).
    down: Vec<bool>,
    /// (node, destination, link direction) routes installed by hand-offs, newest last.
    overrides: Vec<(u32, u32, u32)>,
}

/// What a hand-off stage asks of the core.
#[derive(Debug, Default)]
pub struct HandoffEffect {
    /// (node, destination, new out direction) for endpoints to update.
    pub reroutes: Vec<(u32, u32, u32)>,
    /// Notify the senders of flows to or from this node.
    pub notify: Option<u32>,
}

impl QsNet {
    /// `dir_of(link, from_node)` gives the direction index of `link` leaving `from_node`.
    pub fn new(spec: &SimSpec, dir_from: impl Fn(usize, usize) -> Option<u32>) -> QsNet {
        let qs = &spec.quick_start;
        if qs.routers.is_empty() && qs.handoffs.is_empty() {
            return QsNet::default();
        }
        let n = spec.links.len() * 2;
        let mut routers: Vec<Option<Box<QsRouter>>> = (0..n).map(|_| None).collect();
        for r in &qs.routers {
            for (i, l) in spec.links.iter().enumerate() {
                if !r.links.is_empty() && !r.links.contains(&i) {
                    continue;
                }
                if let Some(d) = dir_from(i, r.node) {
                    routers[d as usize] = Some(Box::new(QsRouter::new(r.config, l.bandwidth.as_bps())));
                }
            }
        }
        QsNet { routers, down: vec![false; n], overrides: Vec::new() }
    }

    /// A hand-off route that overrides the static table.
    #[inline]
    pub fn next_hop(&self, node: u32, dst: u32) -> Option<u32> {
        self.overrides.iter().rev().find(|o| o.0 == node && o.1 == dst).map(|o| o.2)
    }

    #[inline]
    pub fn is_down(&self, dir: u32) -> bool {
        self.down.get(dir as usize).copied().unwrap_or(false)
    }

    /// Router `src`-side processing of packet `id` leaving through `dir` at `now`: utilisation
    /// sample and, for a Request, the approval decision (`src` = the packet's source node).
    #[inline]
    pub fn on_forward(&mut self, now: SimTime, dir: u32, id: PacketId, src: u32, packets: &mut PacketArena) {
        let Some(Some(r)) = self.routers.get_mut(dir as usize) else { return };
        let p = packets.get(id);
        let (flow, bytes) = (p.flow, p.wire_len);
        r.on_packet(now, flow, bytes);
        if let Some(q) = packets.qs_request_mut(id) {
            r.process(now, flow, src, q);
        }
    }

    /// Stage 0 (`at`): links down; stage 1 (`at + gap`): routes; stage 2: notification.
    pub fn handoff_stage(&mut self, h: &HandoffSpec, stage: u8, dir_from: impl Fn(usize, usize) -> Option<u32>) -> HandoffEffect {
        let mut eff = HandoffEffect::default();
        match stage {
            0 => {
                for &l in &h.down {
                    for d in [2 * l, 2 * l + 1] {
                        if let Some(x) = self.down.get_mut(d) {
                            *x = true;
                        }
                    }
                }
            }
            1 => {
                for r in &h.routes {
                    if let Some(d) = dir_from(r.link, r.node) {
                        self.overrides.push((r.node as u32, r.dst as u32, d));
                        eff.reroutes.push((r.node as u32, r.dst as u32, d));
                    }
                }
            }
            _ => eff.notify = Some(h.mobile as u32),
        }
        eff
    }

    /// Counters of every Quick-Start interface.
    pub fn summaries(&self, spec: &SimSpec) -> Vec<QsRouterSummary> {
        let mut v = Vec::new();
        for (d, r) in self.routers.iter().enumerate() {
            if let Some(r) = r {
                let l = &spec.links[d / 2];
                let node = if d % 2 == 0 { l.a } else { l.b };
                v.push(QsRouterSummary {
                    node: spec.nodes[node].name.clone(),
                    link: l.name.clone(),
                    requests: r.stats.requests,
                    approved: r.stats.approved,
                });
            }
        }
        v
    }
}
