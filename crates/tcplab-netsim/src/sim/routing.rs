//! Static routing: a next-hop table per node, indexed by destination node.
//!
//! `SimSpec::routes` entries are taken as given. Every other (node, destination) pair that a
//! flow needs uses a shortest path by hop count: a breadth-first search from the destination
//! over routers (hosts forward nothing, so they are only path ends), then at each node the
//! lowest-index link to a neighbour one hop closer. Hence ties go to the lowest link index,
//! hop by hop, and routing is deterministic.
//!
//! The table is dense (`nodes × nodes` `u32`s, 16 MB for 2000 nodes) so a lookup on the hot
//! path is one index; columns are computed only for destinations that are flow endpoints.

use super::error::SimError;
use super::link::{link_dir, LinkDir};
use crate::spec::{NodeKind, SimSpec};
use std::collections::VecDeque;

/// Marks "no route" in the table.
const NO_ROUTE: LinkDir = LinkDir::MAX;

/// Next-hop table.
#[derive(Debug, Clone)]
pub struct Routes {
    n: usize,
    next: Vec<LinkDir>,
}

impl Routes {
    /// The link direction leaving `node` towards `dst`.
    #[inline]
    pub fn next_hop(&self, node: u32, dst: u32) -> Option<LinkDir> {
        let d = self.next[node as usize * self.n + dst as usize];
        (d != NO_ROUTE).then_some(d)
    }

    /// Builds the table. The spec's indices must already be validated.
    pub fn build(spec: &SimSpec) -> Result<Routes, SimError> {
        let n = spec.nodes.len();
        let mut next = vec![NO_ROUTE; n * n];
        // Adjacency in link-index order: (link, neighbour).
        let mut adj: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
        for (i, l) in spec.links.iter().enumerate() {
            adj[l.a].push((i, l.b));
            adj[l.b].push((i, l.a));
        }
        let mut needed = vec![false; n];
        for f in &spec.flows {
            needed[f.src] = true;
            needed[f.dst] = true;
        }
        let mut dist = vec![u32::MAX; n];
        let mut bfs = VecDeque::new();
        for dst in (0..n).filter(|&d| needed[d]) {
            dist.iter_mut().for_each(|d| *d = u32::MAX);
            dist[dst] = 0;
            bfs.clear();
            bfs.push_back(dst);
            while let Some(u) = bfs.pop_front() {
                if u != dst && spec.nodes[u].kind == NodeKind::Host {
                    continue; // hosts do not forward
                }
                for &(_, v) in &adj[u] {
                    if dist[v] == u32::MAX {
                        dist[v] = dist[u] + 1;
                        bfs.push_back(v);
                    }
                }
            }
            for u in 0..n {
                if u == dst || dist[u] == u32::MAX {
                    continue;
                }
                let hop = adj[u].iter().find(|&&(_, v)| {
                    dist[v] != u32::MAX
                        && dist[v] + 1 == dist[u]
                        && (v == dst || spec.nodes[v].kind == NodeKind::Router)
                });
                if let Some(&(link, _)) = hop {
                    let dir = if spec.links[link].a == u { 0 } else { 1 };
                    next[u * n + dst] = link_dir(link, dir);
                }
            }
        }
        for (i, r) in spec.routes.iter().enumerate() {
            let l = &spec.links[r.link];
            let dir = if l.a == r.node {
                0
            } else if l.b == r.node {
                1
            } else {
                return Err(SimError::invalid(
                    format!("routes[{i}].link"),
                    format!(
                        "link \"{}\" does not touch node \"{}\"",
                        l.name, spec.nodes[r.node].name
                    ),
                ));
            };
            next[r.node * n + r.dst] = link_dir(r.link, dir);
        }
        Ok(Routes { n, next })
    }

    /// Follows the table from `src` to `dst`; checks that a route exists, that it does not
    /// pass through a host and does not loop. `field` names the flow in errors.
    pub fn check_path(&self, spec: &SimSpec, src: usize, dst: usize, field: &str) -> Result<(), SimError> {
        let name = |i: usize| spec.nodes[i].name.clone();
        let mut node = src;
        for _ in 0..=spec.nodes.len() {
            if node == dst {
                return Ok(());
            }
            if node != src && spec.nodes[node].kind == NodeKind::Host {
                return Err(SimError::invalid(
                    "routes",
                    format!(
                        "packets from \"{}\" to \"{}\" are routed through host \"{}\", which does not forward",
                        name(src),
                        name(dst),
                        name(node)
                    ),
                ));
            }
            let Some(d) = self.next_hop(node as u32, dst as u32) else {
                return Err(SimError::NoRoute { field: field.to_string(), from: name(src), to: name(dst) });
            };
            let l = &spec.links[d as usize / 2];
            node = if d % 2 == 0 { l.b } else { l.a };
        }
        Err(SimError::invalid(
            "routes",
            format!("packets from \"{}\" to \"{}\" loop", name(src), name(dst)),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{FlowSpec, LinkSpec, LossSpec, NodeSpec, QueueSpec, RouteSpec};
    use tcplab_time::units::QueueLimit;
    use tcplab_time::{Bandwidth, SimDuration};

    /// h0 - r1 - r2 - h3 with a second, longer path r1 - r4 - r5 - r2 and a parallel r1 = r2.
    fn spec() -> SimSpec {
        let node = |name: &str, kind| NodeSpec { name: name.into(), kind };
        let link = |name: &str, a, b| LinkSpec {
            name: name.into(),
            a,
            b,
            bandwidth: Bandwidth::mbps(10),
            delay: SimDuration::from_millis(1),
            queue: QueueSpec::DropTail { limit: QueueLimit::Packets(10) },
            loss_ab: LossSpec::None,
            loss_ba: LossSpec::None,
            dynamics: Default::default(),
        };
        SimSpec {
            name: "r".into(),
            duration: SimDuration::from_secs(1),
            nodes: vec![
                node("h0", NodeKind::Host),
                node("r1", NodeKind::Router),
                node("r2", NodeKind::Router),
                node("h3", NodeKind::Host),
                node("r4", NodeKind::Router),
                node("r5", NodeKind::Router),
            ],
            links: vec![
                link("h0-r1", 0, 1),
                link("r1-r4", 1, 4),
                link("r4-r5", 4, 5),
                link("r5-r2", 5, 2),
                link("r1-r2 slow", 1, 2),
                link("r1-r2 fast", 1, 2),
                link("r2-h3", 2, 3),
            ],
            routes: vec![],
            flows: vec![FlowSpec {
                src: 0,
                dst: 3,
                start: SimDuration::ZERO,
                size: Some(1000),
                tcp: Default::default(),
            }],
            timeseries_interval: None,
            default_seed: crate::scenario::DEFAULT_SEED,
        }
    }

    #[test]
    fn shortest_path_by_hops_takes_the_lowest_index_of_parallel_links() {
        let s = spec();
        let r = Routes::build(&s).unwrap();
        assert_eq!(r.next_hop(0, 3), Some(link_dir(0, 0)));
        assert_eq!(r.next_hop(1, 3), Some(link_dir(4, 0)), "r1 → r2 over link 4, not 5 or r4");
        assert_eq!(r.next_hop(2, 3), Some(link_dir(6, 0)));
        assert_eq!(r.next_hop(3, 0), Some(link_dir(6, 1)));
        assert_eq!(r.next_hop(2, 0), Some(link_dir(4, 1)));
        r.check_path(&s, 0, 3, "flows[0].dst").unwrap();
    }

    #[test]
    fn explicit_routes_override_the_shortest_path() {
        let mut s = spec();
        s.routes.push(RouteSpec { node: 1, dst: 3, link: 1 });
        let r = Routes::build(&s).unwrap();
        assert_eq!(r.next_hop(1, 3), Some(link_dir(1, 0)));
        assert_eq!(r.next_hop(4, 3), Some(link_dir(1, 1)), "r4 goes back: shortest path");
        assert!(r.check_path(&s, 0, 3, "flows[0].dst").is_err(), "r1 → r4 → r1 loops");
        s.routes.push(RouteSpec { node: 4, dst: 3, link: 2 });
        let r = Routes::build(&s).unwrap();
        r.check_path(&s, 0, 3, "flows[0].dst").unwrap();
    }

    #[test]
    fn a_disconnected_destination_has_no_route() {
        let mut s = spec();
        s.links.pop();
        let r = Routes::build(&s).unwrap();
        let e = r.check_path(&s, 0, 3, "flows[0].dst").unwrap_err();
        assert_eq!(e.to_string(), "flows[0].dst: no route from \"h0\" to \"h3\"");
    }

    #[test]
    fn an_explicit_route_over_a_link_that_does_not_touch_the_node_is_rejected() {
        let mut s = spec();
        s.routes.push(RouteSpec { node: 0, dst: 3, link: 6 });
        let e = Routes::build(&s).unwrap_err().to_string();
        assert_eq!(e, "routes[0].link: link \"r2-h3\" does not touch node \"h0\"");
    }
}
