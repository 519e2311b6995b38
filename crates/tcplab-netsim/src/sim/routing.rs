//! Static routing: next hops per (node, destination).
//!
//! `SimSpec::routes` entries are taken as given. Every other (node, destination) pair that a
//! flow needs uses a shortest path by hop count over paths whose interior nodes are routers
//! (hosts forward nothing, so they are only path ends), leaving on the lowest-index link
//! that starts such a shortest path. Hence ties go to the lowest link index, hop by hop, and
//! routing is deterministic. Only destinations that are flow endpoints get routes.
//!
//! What is stored, and why:
//!
//! * A node with two or more links (a router, or a multi-homed host) gets a dense row of next
//!   hops indexed by destination, so a lookup on the hot path (every packet at every router)
//!   is one index. The row comes from one breadth-first search *from that node* that carries,
//!   for every node reached, the lowest first-hop link over all its shortest paths (a node's
//!   value is the minimum over its predecessors in the previous BFS layer, all of which are
//!   final before it is expanded). That equals "the lowest-index link to a neighbour one hop
//!   closer to the destination". Cost: O(R · (N + E)) for R such nodes, and R · N entries.
//! * A node with a single link (every host of a dumbbell) needs no row: every packet leaves on
//!   that link. Its next hop towards `dst` exists exactly when the neighbour is `dst`, or is a
//!   router that reaches `dst` itself — read from the neighbour's row as the breadth-first
//!   search computed it, before explicit routes. Explicit routes of single-link nodes are kept
//!   in a small sorted list. These lookups happen only when a run is set up.
//!
//! The former all-pairs table (`N × N` entries, 16 MB and ~8 % of a 1,000-flow run filled
//! column by column) computed the same next hops; the routing tests are unchanged.

use super::error::SimError;
use super::link::{link_dir, LinkDir};
use crate::spec::{NodeKind, SimSpec};
use std::collections::VecDeque;

/// Marks "no route" in the table.
const NO_ROUTE: LinkDir = LinkDir::MAX;
/// Marks a node without a row (fewer than two links).
const NO_ROW: u32 = u32::MAX;
/// Marks an unreached node in a breadth-first search.
const UNREACHED: u32 = u32::MAX;

/// The only link of a single-link node.
#[derive(Copy, Clone, Debug)]
struct OnlyLink {
    dir: LinkDir,
    neighbour: u32,
}

/// Next-hop tables.
#[derive(Debug, Clone)]
pub struct Routes {
    n: usize,
    /// Row of each node in `rows`, or `NO_ROW`.
    row_of: Vec<u32>,
    /// Dense next-hop rows (with explicit routes applied) of the nodes with two or more links.
    rows: Vec<LinkDir>,
    /// The link of each single-link node.
    only: Vec<Option<OnlyLink>>,
    /// Flow endpoints: the only destinations with computed routes.
    needed: Vec<bool>,
    is_router: Vec<bool>,
    /// Explicit routes of single-link nodes: ((node, dst), next hop), sorted, last one wins.
    explicit_single: Vec<((u32, u32), LinkDir)>,
    /// Row entries replaced by explicit routes: ((node, dst), value the search computed).
    overridden: Vec<((u32, u32), LinkDir)>,
}

impl Routes {
    /// The link direction leaving `node` towards `dst`.
    #[inline]
    pub fn next_hop(&self, node: u32, dst: u32) -> Option<LinkDir> {
        let r = self.row_of[node as usize];
        if r != NO_ROW {
            let d = self.rows[r as usize * self.n + dst as usize];
            return (d != NO_ROUTE).then_some(d);
        }
        self.next_hop_single(node, dst)
    }

    /// `next_hop` of a node with at most one link.
    #[cold]
    fn next_hop_single(&self, node: u32, dst: u32) -> Option<LinkDir> {
        if let Ok(i) = self.explicit_single.binary_search_by_key(&(node, dst), |&(k, _)| k) {
            return Some(self.explicit_single[i].1);
        }
        let only = self.only[node as usize]?;
        let v = only.neighbour;
        let reaches = node != dst
            && self.needed[dst as usize]
            && (v == dst || (self.is_router[v as usize] && self.searched(v, dst) != NO_ROUTE));
        reaches.then_some(only.dir)
    }

    /// The next hop from `node` to `dst` as the breadth-first search found it (before
    /// explicit routes); `NO_ROUTE` for nodes without a row.
    fn searched(&self, node: u32, dst: u32) -> LinkDir {
        let r = self.row_of[node as usize];
        if r == NO_ROW {
            // A single-link router reaches nothing beyond its one neighbour (`dst` is neither).
            return NO_ROUTE;
        }
        match self.overridden.binary_search_by_key(&(node, dst), |&(k, _)| k) {
            Ok(i) => self.overridden[i].1,
            Err(_) => self.rows[r as usize * self.n + dst as usize],
        }
    }

    /// Builds the tables. The spec's indices must already be validated.
    pub fn build(spec: &SimSpec) -> Result<Routes, SimError> {
        let n = spec.nodes.len();
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
        for w in &spec.workloads {
            for &v in w.senders().iter().chain(w.receivers()) {
                needed[v] = true;
            }
        }
        let is_router: Vec<bool> = spec.nodes.iter().map(|x| x.kind == NodeKind::Router).collect();
        let dir_from = |link: usize, u: usize| if spec.links[link].a == u { 0 } else { 1 };

        let mut row_of = vec![NO_ROW; n];
        let mut only = vec![None; n];
        let mut rows = Vec::new();
        let mut dist = vec![UNREACHED; n];
        let mut first = vec![NO_ROUTE; n];
        let mut bfs = VecDeque::new();
        for u in 0..n {
            if adj[u].len() < 2 {
                only[u] = adj[u].first().map(|&(link, v)| OnlyLink { dir: link_dir(link, dir_from(link, u)), neighbour: v as u32 });
                continue;
            }
            row_of[u] = (rows.len() / n.max(1)) as u32;
            dist.iter_mut().for_each(|d| *d = UNREACHED);
            first.iter_mut().for_each(|f| *f = NO_ROUTE);
            dist[u] = 0;
            bfs.clear();
            bfs.push_back(u);
            while let Some(x) = bfs.pop_front() {
                if x != u && !is_router[x] {
                    continue; // hosts do not forward
                }
                for &(link, y) in &adj[x] {
                    let f = if x == u { link_dir(link, dir_from(link, u)) } else { first[x] };
                    if dist[y] == UNREACHED {
                        dist[y] = dist[x] + 1;
                        first[y] = f;
                        bfs.push_back(y);
                    } else if dist[y] == dist[x] + 1 && f < first[y] {
                        first[y] = f;
                    }
                }
            }
            rows.extend((0..n).map(|d| if needed[d] && d != u { first[d] } else { NO_ROUTE }));
        }
        let mut routes = Routes {
            n,
            row_of,
            rows,
            only,
            needed,
            is_router,
            explicit_single: Vec::new(),
            overridden: Vec::new(),
        };
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
            let key = (r.node as u32, r.dst as u32);
            let hop = link_dir(r.link, dir);
            let row = routes.row_of[r.node];
            if row == NO_ROW {
                routes.explicit_single.retain(|&(k, _)| k != key);
                routes.explicit_single.push((key, hop));
            } else {
                let slot = &mut routes.rows[row as usize * n + r.dst];
                if !routes.overridden.iter().any(|&(k, _)| k == key) {
                    routes.overridden.push((key, *slot));
                }
                *slot = hop;
            }
        }
        routes.explicit_single.sort_unstable_by_key(|&(k, _)| k);
        routes.overridden.sort_unstable_by_key(|&(k, _)| k);
        Ok(routes)
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
            workloads: Vec::new(),
        timeseries_interval: None,
            default_seed: crate::scenario::DEFAULT_SEED,
            quick_start: Default::default(),
            pathlet: Default::default(),
            host_cache: Default::default(),
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

    /// The former all-pairs builder (BFS from every flow endpoint, then at each node the
    /// lowest-index link to a neighbour one hop closer), kept as the reference.
    fn reference(spec: &SimSpec) -> Vec<LinkDir> {
        let n = spec.nodes.len();
        let mut next = vec![NO_ROUTE; n * n];
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
        for dst in (0..n).filter(|&d| needed[d]) {
            let mut dist = vec![u32::MAX; n];
            dist[dst] = 0;
            let mut bfs = VecDeque::from([dst]);
            while let Some(u) = bfs.pop_front() {
                if u != dst && spec.nodes[u].kind == NodeKind::Host {
                    continue;
                }
                for &(_, v) in &adj[u] {
                    if dist[v] == u32::MAX {
                        dist[v] = dist[u] + 1;
                        bfs.push_back(v);
                    }
                }
            }
            for u in (0..n).filter(|&u| u != dst && dist[u] != u32::MAX) {
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
        for r in &spec.routes {
            let dir = if spec.links[r.link].a == r.node { 0 } else { 1 };
            next[r.node * n + r.dst] = link_dir(r.link, dir);
        }
        next
    }

    /// A random graph: `kinds` (true = router), links as node pairs (no self-loops),
    /// flows and explicit routes as index pairs taken modulo the sizes.
    fn random_spec(kinds: &[bool], links: &[(usize, usize)], flows: &[(usize, usize)], routes: &[(usize, usize)]) -> SimSpec {
        let mut s = spec();
        let n = kinds.len();
        s.nodes = kinds
            .iter()
            .enumerate()
            .map(|(i, &r)| NodeSpec { name: format!("n{i}"), kind: if r { NodeKind::Router } else { NodeKind::Host } })
            .collect();
        let proto = s.links[0].clone();
        s.links = links
            .iter()
            .filter(|&&(a, b)| a % n != b % n)
            .enumerate()
            .map(|(i, &(a, b))| LinkSpec { name: format!("l{i}"), a: a % n, b: b % n, ..proto.clone() })
            .collect();
        let proto = s.flows[0].clone();
        s.flows = flows.iter().map(|&(a, b)| FlowSpec { src: a % n, dst: b % n, ..proto.clone() }).collect();
        if !s.links.is_empty() {
            for &(l, d) in routes {
                let link = l % s.links.len();
                let node = if d % 2 == 0 { s.links[link].a } else { s.links[link].b };
                s.routes.push(RouteSpec { node, dst: d % n, link });
            }
        }
        s
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

        #[test]
        fn next_hops_equal_those_of_the_all_pairs_table_on_random_graphs(
            kinds in proptest::collection::vec(proptest::bool::weighted(0.5), 1..14),
            links in proptest::collection::vec((0usize..14, 0usize..14), 0..30),
            flows in proptest::collection::vec((0usize..14, 0usize..14), 1..6),
            routes in proptest::collection::vec((0usize..30, 0usize..28), 0..4),
        ) {
            let s = random_spec(&kinds, &links, &flows, &routes);
            let n = s.nodes.len();
            let want = reference(&s);
            let r = Routes::build(&s).unwrap();
            for u in 0..n {
                for d in 0..n {
                    let w = want[u * n + d];
                    proptest::prop_assert_eq!(r.next_hop(u as u32, d as u32), (w != NO_ROUTE).then_some(w), "node {} dst {}", u, d);
                }
            }
        }
    }
}
