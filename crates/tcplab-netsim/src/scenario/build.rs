//! Raw structs → `SimSpec`: resolve names, apply `[tcp]` defaults, check ranges.

use super::raw::*;
use super::{p, suggestion, Ctx, ScenarioError, DEFAULT_SEED, P};
use crate::spec::*;
use std::collections::HashMap;
use tcplab_tcp::{InitialWindow, RecoveryAlgorithm, TcpConfig};

/// Smallest MSS accepted. RFC 9293 §3.7.1 only fixes the 536-byte default; tcplab accepts
/// down to 64 bytes for experiments with tiny segments (Linux clamps at 88).
pub const MIN_MSS: u64 = 64;
/// Largest MSS: a 65 535-byte IPv4 datagram minus 20 bytes of IP and 20 of TCP header
/// (RFC 791 total length is 16 bits).
pub const MAX_MSS: u64 = 65_495;
/// RFC 7323 §2.3: with the maximum shift of 14 the largest window is 65 535 · 2^14 bytes.
pub const MAX_RECV_BUFFER: u64 = 65_535 << 14;
/// Flows per `[[flows]]` entry at most (a typo like `count = 1000000` should not hang).
pub const MAX_FLOW_COUNT: u32 = 100_000;

type R<T> = Result<T, ScenarioError>;

pub(super) fn build(ctx: &Ctx<'_>, raw: RawScenario, default_name: &str) -> R<SimSpec> {
    let sim = p("simulation");
    if raw.simulation.duration.0 .0 == 0 {
        return Err(ctx.err(&sim.k("duration"), "must be greater than zero"));
    }
    let duration = raw.simulation.duration.0;
    let timeseries_interval = match raw.simulation.timeseries_interval {
        Some(d) if d.0 .0 == 0 => {
            return Err(ctx.err(&sim.k("timeseries_interval"), "must be greater than zero"))
        }
        other => other.map(|d| d.0),
    };
    let name = match raw.name {
        Some(n) if n.trim().is_empty() => return Err(ctx.err(&p("name"), "must not be empty")),
        Some(n) => n,
        None => default_name.to_string(),
    };

    // Nodes.
    let mut node_ids: HashMap<&str, NodeId> = HashMap::new();
    let mut nodes = Vec::with_capacity(raw.nodes.len());
    for (i, n) in raw.nodes.iter().enumerate() {
        let at = p("nodes").i(i);
        check_name(ctx, &at.k("name"), &n.name)?;
        if node_ids.insert(n.name.as_str(), i).is_some() {
            return Err(ctx.err(&at.k("name"), format!("node \"{}\" is defined twice", n.name)));
        }
        let kind = match n.kind {
            RawNodeKind::Host => NodeKind::Host,
            RawNodeKind::Router => NodeKind::Router,
        };
        nodes.push(NodeSpec { name: n.name.clone(), kind });
    }
    let node_names: Vec<String> = raw.nodes.iter().map(|n| n.name.clone()).collect();
    let lookup_node = |at: &P, name: &str| -> R<NodeId> {
        node_ids.get(name).copied().ok_or_else(|| {
            let hint = match suggestion(name, &node_names) {
                _ if node_names.is_empty() => " (no [[nodes]] are defined)".to_string(),
                Some(s) => format!("; did you mean \"{s}\"? (nodes are: {})", node_names.join(", ")),
                None => format!(" (nodes are: {})", node_names.join(", ")),
            };
            ctx.err(at, format!("unknown node \"{name}\"{hint}"))
        })
    };

    // Flows first (expanded), so that drop_nth can check its flow index.
    let mut flows = Vec::new();
    let mut flow_names: HashMap<&str, usize> = HashMap::new();
    for (i, f) in raw.flows.iter().enumerate() {
        let at = p("flows").i(i);
        if let Some(n) = &f.name {
            check_name(ctx, &at.k("name"), n)?;
            if flow_names.insert(n.as_str(), i).is_some() {
                return Err(ctx.err(&at.k("name"), format!("flow \"{n}\" is defined twice")));
            }
        }
        let src = lookup_node(&at.k("src"), &f.src)?;
        let dst = lookup_node(&at.k("dst"), &f.dst)?;
        for (key, id) in [("src", src), ("dst", dst)] {
            if nodes[id].kind != NodeKind::Host {
                return Err(ctx.err(
                    &at.k(key),
                    format!("\"{}\" is a router; flows run between hosts", nodes[id].name),
                ));
            }
        }
        if src == dst {
            return Err(ctx.err(&at.k("dst"), format!("same node as src (\"{}\")", f.src)));
        }
        let start = f.start.map(|d| d.0).unwrap_or_default();
        if start >= duration {
            return Err(ctx.err(
                &at.k("start"),
                format!("{start} is not before the end of the run (simulation.duration = {duration})"),
            ));
        }
        if f.size.0 == Some(0) {
            return Err(ctx.err(&at.k("size"), "must be greater than zero (or \"unlimited\")"));
        }
        let count = f.count.unwrap_or(1);
        if count == 0 || count > MAX_FLOW_COUNT {
            return Err(ctx.err(&at.k("count"), format!("must be between 1 and {MAX_FLOW_COUNT}")));
        }
        let tcp = tcp_config(ctx, &raw.tcp, f.tcp.as_ref(), &at)?;
        for _ in 0..count {
            flows.push(FlowSpec { src, dst, start, size: f.size.0, tcp: tcp.clone() });
        }
    }
    if raw.flows.is_empty() {
        // Checked the global [tcp] anyway so that its errors are not hidden.
        tcp_config(ctx, &raw.tcp, None, &p("flows"))?;
    }

    // Links.
    let mut link_ids: HashMap<String, LinkId> = HashMap::new();
    let mut links = Vec::with_capacity(raw.links.len());
    for (i, l) in raw.links.iter().enumerate() {
        let at = p("links").i(i);
        let a = lookup_node(&at.k("a"), &l.a)?;
        let b = lookup_node(&at.k("b"), &l.b)?;
        if a == b {
            return Err(ctx.err(&at.k("b"), format!("a link cannot connect \"{}\" to itself", l.a)));
        }
        let name = match &l.name {
            Some(n) => {
                check_name(ctx, &at.k("name"), n)?;
                n.clone()
            }
            None => format!("{}-{}", l.a, l.b),
        };
        if link_ids.insert(name.clone(), i).is_some() {
            let what = if l.name.is_some() { "" } else { " (the default name \"a-b\"; give the link a name)" };
            return Err(ctx.err(&at.k("name"), format!("link \"{name}\" is defined twice{what}")));
        }
        let queue = QueueSpec::DropTail { limit: l.queue.map(|q| q.0).unwrap_or(DEFAULT_QUEUE) };
        if let Some(RawQueue(tcplab_time::units::QueueLimit::Packets(0) | tcplab_time::units::QueueLimit::Bytes(0))) = l.queue {
            return Err(ctx.err(&at.k("queue"), "limit must be greater than zero"));
        }
        if l.loss.is_some() && (l.loss_ab.is_some() || l.loss_ba.is_some()) {
            return Err(ctx.err(
                &at.k("loss"),
                "sets both directions; use either loss or loss_ab/loss_ba, not both",
            ));
        }
        let conv = |key: &str, raw: &Option<RawLoss>| -> R<LossSpec> {
            match raw {
                None => Ok(LossSpec::None),
                Some(r) => loss_spec(ctx, &at.k(key), r, flows.len()),
            }
        };
        let (loss_ab, loss_ba) = if l.loss.is_some() {
            (conv("loss", &l.loss)?, conv("loss", &l.loss)?)
        } else {
            (conv("loss_ab", &l.loss_ab)?, conv("loss_ba", &l.loss_ba)?)
        };
        links.push(LinkSpec { name, a, b, bandwidth: l.bandwidth.0, delay: l.delay.0, queue, loss_ab, loss_ba });
    }
    let link_names: Vec<String> = links.iter().map(|l| l.name.clone()).collect();

    // Routes.
    let mut routes = Vec::with_capacity(raw.routes.len());
    let mut seen_routes: HashMap<(NodeId, NodeId), usize> = HashMap::new();
    for (i, r) in raw.routes.iter().enumerate() {
        let at = p("routes").i(i);
        let node = lookup_node(&at.k("node"), &r.node)?;
        let dst = lookup_node(&at.k("dst"), &r.dst)?;
        let link = *link_ids.get(&r.link).ok_or_else(|| {
            let hint = match suggestion(&r.link, &link_names) {
                Some(s) => format!("; did you mean \"{s}\"? (links are: {})", link_names.join(", ")),
                None => format!(" (links are: {})", link_names.join(", ")),
            };
            ctx.err(&at.k("link"), format!("unknown link \"{}\"{hint}", r.link))
        })?;
        let l = &links[link];
        if l.a != node && l.b != node {
            return Err(ctx.err(
                &at.k("link"),
                format!("link \"{}\" connects {} and {}, not \"{}\"", l.name, nodes[l.a].name, nodes[l.b].name, r.node),
            ));
        }
        if node == dst {
            return Err(ctx.err(&at.k("dst"), "a node needs no route to itself"));
        }
        if let Some(prev) = seen_routes.insert((node, dst), i) {
            return Err(ctx.err(&at.k("dst"), format!("routes[{prev}] already routes {} → {}", r.node, r.dst)));
        }
        routes.push(RouteSpec { node, dst, link });
    }

    Ok(SimSpec {
        name,
        duration,
        nodes,
        links,
        routes,
        flows,
        timeseries_interval,
        default_seed: raw.simulation.seed.unwrap_or(DEFAULT_SEED),
    })
}

/// ns-3's default drop-tail limit (`ns3::DropTailQueue` MaxSize "100p").
pub const DEFAULT_QUEUE: tcplab_time::units::QueueLimit = tcplab_time::units::QueueLimit::Packets(100);

fn check_name(ctx: &Ctx<'_>, at: &P, name: &str) -> R<()> {
    if name.is_empty() {
        return Err(ctx.err(at, "must not be empty"));
    }
    if name.chars().any(|c| c.is_whitespace() || c == '.') {
        return Err(ctx.err(at, format!("\"{name}\" must not contain spaces or dots")));
    }
    Ok(())
}

fn prob(ctx: &Ctx<'_>, at: &P, v: f64) -> R<f64> {
    if !(0.0..=1.0).contains(&v) {
        return Err(ctx.err(at, format!("{v} is not a probability (must be between 0 and 1)")));
    }
    Ok(v)
}

fn loss_spec(ctx: &Ctx<'_>, at: &P, r: &RawLoss, n_flows: usize) -> R<LossSpec> {
    Ok(match r {
        RawLoss::None => LossSpec::None,
        RawLoss::Bernoulli { p } => LossSpec::Bernoulli { p: prob(ctx, &at.k("p"), *p)? },
        RawLoss::GilbertElliott { p_gb, p_bg, loss_good, loss_bad } => LossSpec::GilbertElliott {
            p_gb: prob(ctx, &at.k("p_gb"), *p_gb)?,
            p_bg: prob(ctx, &at.k("p_bg"), *p_bg)?,
            loss_good: prob(ctx, &at.k("loss_good"), *loss_good)?,
            loss_bad: prob(ctx, &at.k("loss_bad"), *loss_bad)?,
        },
        RawLoss::DropNth { flow, nth } => {
            let flow_ok = usize::try_from(*flow).ok().filter(|f| *f < n_flows);
            let Some(flow) = flow_ok else {
                return Err(ctx.err(
                    &at.k("flow"),
                    format!("no flow {flow}: the scenario has {n_flows} flow{} (numbered from 0, after count expansion)", if n_flows == 1 { "" } else { "s" }),
                ));
            };
            if nth.is_empty() {
                return Err(ctx.err(&at.k("nth"), "must list at least one occurrence, like [3]"));
            }
            if let Some(j) = nth.iter().position(|n| *n == 0) {
                return Err(ctx.err(&at.k("nth").i(j), "occurrences count from 1"));
            }
            let mut sorted = nth.clone();
            sorted.sort_unstable();
            sorted.dedup();
            LossSpec::DropNth { flow, nth: sorted }
        }
    })
}

/// Merge `[tcp]` and a flow's `tcp = {...}` over `TcpConfig::default()` and check it. Errors
/// name the level the offending value came from.
fn tcp_config(ctx: &Ctx<'_>, global: &RawTcp, flow: Option<&RawTcp>, flow_at: &P) -> R<TcpConfig> {
    let mut c = TcpConfig::default();
    let levels: [(Option<&RawTcp>, P); 2] = [(Some(global), p("tcp")), (flow, flow_at.k("tcp"))];
    for (t, at) in levels.iter() {
        let Some(t) = t else { continue };
        if let Some(m) = t.mss {
            if !(MIN_MSS..=MAX_MSS).contains(&m.0) {
                return Err(ctx.err(&at.k("mss"), format!("{}B is out of range ({MIN_MSS}B to {MAX_MSS}B)", m.0)));
            }
            c.mss = m.0 as u16;
        }
        if let Some(iw) = t.initial_window {
            c.initial_window = match iw {
                RawInitialWindow::Segments(n) if n >= 1 && n <= i64::from(u32::MAX) => InitialWindow::Segments(n as u32),
                RawInitialWindow::Segments(n) => {
                    return Err(ctx.err(&at.k("initial_window"), format!("{n} segments: must be at least 1")))
                }
                RawInitialWindow::Rfc3390 => InitialWindow::Rfc3390,
                RawInitialWindow::Rfc6928 => InitialWindow::Rfc6928,
            };
        }
        if let Some(s) = t.initial_ssthresh {
            if s.0 == 0 {
                return Err(ctx.err(&at.k("initial_ssthresh"), "must be greater than zero (or \"inf\")"));
            }
            c.initial_ssthresh = s.0;
        }
        if let Some(v) = t.sack {
            c.sack = v;
        }
        if let Some(v) = t.timestamps {
            c.timestamps = v;
        }
        if let Some(v) = t.window_scale {
            c.window_scale = v;
        }
        if let Some(b) = t.recv_buffer {
            if b.0 == 0 || b.0 > MAX_RECV_BUFFER {
                return Err(ctx.err(
                    &at.k("recv_buffer"),
                    format!("{}B is out of range (1B to {MAX_RECV_BUFFER}B, the RFC 7323 maximum window)", b.0),
                ));
            }
            c.recv_buffer = b.0;
        }
        if let Some(b) = t.send_buffer {
            if b.0 == 0 {
                return Err(ctx.err(&at.k("send_buffer"), "must be greater than zero (or \"inf\")"));
            }
            c.send_buffer = b.0;
        }
        for (key, v, slot) in [
            ("min_rto", t.min_rto, &mut c.rto.min),
            ("initial_rto", t.initial_rto, &mut c.rto.initial),
            ("max_rto", t.max_rto, &mut c.rto.max),
            ("clock_granularity", t.clock_granularity, &mut c.rto.granularity),
        ] {
            if let Some(d) = v {
                if d.0 .0 == 0 && key != "min_rto" {
                    return Err(ctx.err(&at.k(key), "must be greater than zero"));
                }
                *slot = d.0;
            }
        }
        if let Some(d) = t.delayed_ack {
            if d.0 == Some(tcplab_time::SimDuration::ZERO) {
                return Err(ctx.err(&at.k("delayed_ack"), "must be greater than zero (or false for no delay)"));
            }
            c.ack.delayed_ack = d.0;
        }
        if let Some(n) = t.ack_every {
            if n == 0 {
                return Err(ctx.err(&at.k("ack_every"), "must be at least 1"));
            }
            c.ack.ack_every = n;
        }
        if let Some(n) = t.dupack_threshold {
            if n == 0 {
                return Err(ctx.err(&at.k("dupack_threshold"), "must be at least 1"));
            }
            c.dupack_threshold = n;
        }
        if let Some(v) = t.limited_transmit {
            c.limited_transmit = v;
        }
        if let Some(r) = t.recovery {
            c.recovery = match r {
                RawRecovery::Sack => RecoveryAlgorithm::Sack,
                RawRecovery::Newreno => RecoveryAlgorithm::NewReno,
            };
        }
    }
    // Cross-field checks, reported at the innermost level that sets one of the keys.
    let which = |keys: &[&str]| -> P {
        let sets = |t: &RawTcp, k: &str| match k {
            "min_rto" => t.min_rto.is_some(),
            "max_rto" => t.max_rto.is_some(),
            "initial_rto" => t.initial_rto.is_some(),
            _ => false,
        };
        for (t, at) in levels.iter().rev() {
            if let Some(t) = t {
                if let Some(k) = keys.iter().find(|k| sets(t, k)) {
                    return at.k(k);
                }
            }
        }
        p("tcp").k(keys[0])
    };
    if c.rto.min > c.rto.max {
        return Err(ctx.err(
            &which(&["min_rto", "max_rto"]),
            format!("min_rto ({}) is larger than max_rto ({})", c.rto.min, c.rto.max),
        ));
    }
    if c.rto.initial > c.rto.max {
        return Err(ctx.err(
            &which(&["initial_rto", "max_rto"]),
            format!("initial_rto ({}) is larger than max_rto ({})", c.rto.initial, c.rto.max),
        ));
    }
    Ok(c)
}
