//! Nodes, routes and the `[topology]` generator: `[[nodes]]`, `[[routes]]`, `[topology]`.

use super::link::{LinkTable, RawLink, RawLinkParams};
use super::values::{check_name, R};
use super::{p, suggestion, Ctx, P};
use crate::spec::{NodeId, NodeKind, NodeSpec, RouteSpec};
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::HashMap;

/// `[topology]`: generate a standard topology instead of listing nodes and links.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawTopology {
    /// The only generator so far.
    pub kind: RawTopologyKind,
    /// Hosts `s1..sN` attached to `r1`.
    #[schemars(range(min = 1, max = MAX_TOPOLOGY_HOSTS))]
    pub senders: u32,
    /// Hosts `d1..dM` attached to `r2`; defaults to `senders`.
    #[schemars(range(min = 1, max = MAX_TOPOLOGY_HOSTS))]
    pub receivers: Option<u32>,
    /// The `r1`–`r2` link, named `"bottleneck"`.
    pub bottleneck: RawLinkParams,
    /// Each host link, named `"s{i}-r1"` / `"r2-d{i}"`.
    pub access: RawLinkParams,
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RawTopologyKind {
    /// Senders – `r1` – bottleneck – `r2` – receivers.
    Dumbbell,
}

/// `kind` of a `[[nodes]]` entry.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RawNodeKind {
    /// Runs TCP endpoints; forwards nothing.
    Host,
    /// Forwards by route.
    Router,
}

/// A `[[nodes]]` entry.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawNode {
    /// Unique node name; no spaces or dots.
    pub name: String,
    /// Hosts run TCP endpoints and forward nothing; routers forward by route.
    pub kind: RawNodeKind,
}

/// A `[[routes]]` entry: at `node`, packets for `dst` leave on `link`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawRoute {
    /// Where the route applies.
    pub node: String,
    /// Destination (≠ `node`); one route per (node, dst).
    pub dst: String,
    /// Outgoing link; must be attached to `node`.
    pub link: String,
}

/// Most hosts per side a `[topology]` generator accepts.
pub const MAX_TOPOLOGY_HOSTS: u32 = 10_000;

/// Expand `[topology]` into nodes and links, each with the path errors should name.
///
/// Dumbbell: senders `s1..sN` – router `r1` – link "bottleneck" – router `r2` – receivers
/// `d1..dM`; access links are named `s{i}-r1` and `r2-d{i}` (the default `a-b` names). The
/// order (senders, r1, r2, receivers; bottleneck, sender links, receiver links) matches
/// scenarios/dumbbell.toml.
#[allow(clippy::type_complexity)]
pub(super) fn generate(ctx: &Ctx<'_>, t: &RawTopology) -> R<(Vec<(RawNode, P)>, Vec<(RawLink, P)>)> {
    let at = p("topology");
    let RawTopologyKind::Dumbbell = t.kind;
    let senders = t.senders;
    let receivers = t.receivers.unwrap_or(senders);
    for (key, n) in [("senders", senders), ("receivers", receivers)] {
        if n == 0 || n > MAX_TOPOLOGY_HOSTS {
            return Err(ctx.err(&at.k(key), format!("must be between 1 and {MAX_TOPOLOGY_HOSTS}")));
        }
    }
    let node = |name: String, kind: RawNodeKind, key: &str| (RawNode { name, kind }, at.k(key));
    let mut nodes = Vec::new();
    nodes.extend((1..=senders).map(|i| node(format!("s{i}"), RawNodeKind::Host, "senders")));
    nodes.push(node("r1".into(), RawNodeKind::Router, "kind"));
    nodes.push(node("r2".into(), RawNodeKind::Router, "kind"));
    nodes.extend((1..=receivers).map(|i| node(format!("d{i}"), RawNodeKind::Host, "receivers")));
    let link = |name: Option<String>, a: String, b: String, lp: &RawLinkParams, key: &str| {
        (
            RawLink {
                name,
                a,
                b,
                bandwidth: lp.bandwidth,
                delay: lp.delay,
                queue: lp.queue,
                loss: lp.loss.clone(),
                loss_ab: lp.loss_ab.clone(),
                loss_ba: lp.loss_ba.clone(),
                delay_spikes: lp.delay_spikes.clone(),
                spike_direction: lp.spike_direction,
                link_buffer: lp.link_buffer,
                bandwidth_schedule: lp.bandwidth_schedule.clone(),
                reorder: lp.reorder.clone(),
                reorder_ab: lp.reorder_ab.clone(),
                reorder_ba: lp.reorder_ba.clone(),
            },
            at.k(key),
        )
    };
    let mut links = vec![link(
        Some("bottleneck".into()),
        "r1".into(),
        "r2".into(),
        &t.bottleneck,
        "bottleneck",
    )];
    links.extend(
        (1..=senders).map(|i| link(None, format!("s{i}"), "r1".into(), &t.access, "access")),
    );
    links.extend(
        (1..=receivers).map(|i| link(None, "r2".into(), format!("d{i}"), &t.access, "access")),
    );
    Ok((nodes, links))
}


/// The checked nodes with their names, for resolving references from flows, links and routes.
pub(super) struct NodeTable {
    ids: HashMap<String, NodeId>,
    names: Vec<String>,
    pub specs: Vec<NodeSpec>,
}

impl NodeTable {
    /// Check names (non-empty, no spaces or dots, unique); `origin` tells a generated node's
    /// duplicate apart from a listed one.
    pub(super) fn build(ctx: &Ctx<'_>, all_nodes: &[(RawNode, P, &str)]) -> R<NodeTable> {
        let mut ids: HashMap<String, NodeId> = HashMap::new();
        let mut specs = Vec::with_capacity(all_nodes.len());
        for (i, (n, at, origin)) in all_nodes.iter().enumerate() {
            let name_at = if origin.is_empty() { at.k("name") } else { at.clone() };
            check_name(ctx, &name_at, &n.name)?;
            if ids.insert(n.name.clone(), i).is_some() {
                return Err(
                    ctx.err(&name_at, format!("node \"{}\" is defined twice{origin}", n.name))
                );
            }
            let kind = match n.kind {
                RawNodeKind::Host => NodeKind::Host,
                RawNodeKind::Router => NodeKind::Router,
            };
            specs.push(NodeSpec { name: n.name.clone(), kind });
        }
        let names: Vec<String> = all_nodes.iter().map(|(n, _, _)| n.name.clone()).collect();
        Ok(NodeTable { ids, names, specs })
    }

    /// The node called `name`, or an error at `at` listing the nodes (with a suggestion).
    pub(super) fn lookup(&self, ctx: &Ctx<'_>, at: &P, name: &str) -> R<NodeId> {
        self.ids.get(name).copied().ok_or_else(|| {
            let node_names = &self.names;
            let hint = match suggestion(name, node_names) {
                _ if node_names.is_empty() => " (no [[nodes]] are defined)".to_string(),
                Some(s) => {
                    format!("; did you mean \"{s}\"? (nodes are: {})", node_names.join(", "))
                }
                None => format!(" (nodes are: {})", node_names.join(", ")),
            };
            ctx.err(at, format!("unknown node \"{name}\"{hint}"))
        })
    }
}

/// Check `[[routes]]`: known nodes, a known link attached to the node, no route to itself, no
/// two routes for the same (node, destination).
pub(super) fn routes(
    ctx: &Ctx<'_>,
    raw: &[RawRoute],
    nodes: &NodeTable,
    links: &LinkTable,
) -> R<Vec<RouteSpec>> {
    let link_names: Vec<String> = links.specs.iter().map(|l| l.name.clone()).collect();
    let mut routes = Vec::with_capacity(raw.len());
    let mut seen_routes: HashMap<(NodeId, NodeId), usize> = HashMap::new();
    for (i, r) in raw.iter().enumerate() {
        let at = p("routes").i(i);
        let node = nodes.lookup(ctx, &at.k("node"), &r.node)?;
        let dst = nodes.lookup(ctx, &at.k("dst"), &r.dst)?;
        let link = *links.ids.get(&r.link).ok_or_else(|| {
            let hint = match suggestion(&r.link, &link_names) {
                Some(s) => {
                    format!("; did you mean \"{s}\"? (links are: {})", link_names.join(", "))
                }
                None => format!(" (links are: {})", link_names.join(", ")),
            };
            ctx.err(&at.k("link"), format!("unknown link \"{}\"{hint}", r.link))
        })?;
        let l = &links.specs[link];
        if l.a != node && l.b != node {
            return Err(ctx.err(
                &at.k("link"),
                format!(
                    "link \"{}\" connects {} and {}, not \"{}\"",
                    l.name, nodes.specs[l.a].name, nodes.specs[l.b].name, r.node
                ),
            ));
        }
        if node == dst {
            return Err(ctx.err(&at.k("dst"), "a node needs no route to itself"));
        }
        if let Some(prev) = seen_routes.insert((node, dst), i) {
            return Err(ctx.err(
                &at.k("dst"),
                format!("routes[{prev}] already routes {} → {}", r.node, r.dst),
            ));
        }
        routes.push(RouteSpec { node, dst, link });
    }
    Ok(routes)
}
