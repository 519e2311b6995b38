//! Checks of a `SimSpec` before a run: indices in range, probabilities in [0, 1], flows
//! between distinct hosts, positive bandwidths and intervals, unique link names. Routes are
//! checked when the routing table is built (`routing`). Every error names its field.

use super::error::SimError;
use crate::spec::{NodeKind, SimSpec};
use std::collections::HashMap;
use tcplab_time::SimDuration;

/// Checks indices and values the simulator relies on.
pub fn validate(spec: &SimSpec) -> Result<(), SimError> {
    let n = spec.nodes.len();
    fn bad(field: impl Into<String>, msg: impl Into<String>) -> SimError {
        SimError::invalid(field, msg)
    }
    // First index of each link name: one lookup per link instead of a scan of the earlier
    // links (quadratic, ~2 % of a 1,000-flow run). Only membership is looked up, so the
    // hash map's iteration order never matters.
    let mut first_with_name: HashMap<&str, usize> = HashMap::with_capacity(spec.links.len());
    for (i, l) in spec.links.iter().enumerate() {
        for (end, v) in [("a", l.a), ("b", l.b)] {
            if v >= n {
                return Err(bad(format!("links[{i}].{end}"), format!("node index {v} out of range ({n} nodes)")));
            }
        }
        if l.a == l.b {
            return Err(bad(format!("links[{i}]"), format!("link \"{}\" connects node \"{}\" to itself", l.name, spec.nodes[l.a].name)));
        }
        if l.bandwidth.as_bps() == 0 {
            return Err(bad(format!("links[{i}].bandwidth"), "must be greater than zero"));
        }
        if let Some(&j) = first_with_name.get(l.name.as_str()) {
            return Err(bad(format!("links[{i}].name"), format!("\"{}\" is also the name of links[{j}]", l.name)));
        }
        first_with_name.insert(&l.name, i);
        for (field, loss) in [("loss_ab", &l.loss_ab), ("loss_ba", &l.loss_ba)] {
            super::loss::validate(loss, spec.flows.len()).map_err(|m| bad(format!("links[{i}].{field}"), m))?;
        }
        super::delay_spike::validate(&l.dynamics, spec.duration).map_err(|(f, m)| bad(format!("links[{i}].{f}"), m))?;
        for (field, r) in [("reorder_ab", &l.dynamics.reorder_ab), ("reorder_ba", &l.dynamics.reorder_ba)] {
            if let Some(r) = r {
                super::reorder::validate(r).map_err(|(f, m)| bad(format!("links[{i}].{field}.{f}"), m))?;
            }
        }
        for (field, r) in [("reorder_ab", &l.dynamics.reorder_nth_ab), ("reorder_ba", &l.dynamics.reorder_nth_ba)] {
            if let Some(r) = r {
                super::reorder::validate_nth(r, spec.flows.len()).map_err(|(f, m)| bad(format!("links[{i}].{field}.{f}"), m))?;
            }
        }
    }
    for (i, r) in spec.routes.iter().enumerate() {
        for (field, v, max) in [("node", r.node, n), ("dst", r.dst, n), ("link", r.link, spec.links.len())] {
            if v >= max {
                return Err(bad(format!("routes[{i}].{field}"), format!("index {v} out of range")));
            }
        }
    }
    if spec.flows.len() * 2 > super::MAX_ENDPOINTS {
        return Err(bad("flows", format!("at most {} flows are supported", super::MAX_ENDPOINTS / 2)));
    }
    for (i, f) in spec.flows.iter().enumerate() {
        for (field, v) in [("src", f.src), ("dst", f.dst)] {
            if v >= n {
                return Err(bad(format!("flows[{i}].{field}"), format!("node index {v} out of range ({n} nodes)")));
            }
            if spec.nodes[v].kind != NodeKind::Host {
                return Err(bad(format!("flows[{i}].{field}"), format!("node \"{}\" is a router; flows run between hosts", spec.nodes[v].name)));
            }
        }
        if f.src == f.dst {
            return Err(bad(format!("flows[{i}].dst"), "source and destination are the same node"));
        }
        if f.tcp.mss == 0 {
            return Err(bad(format!("flows[{i}].tcp.mss"), "must be greater than zero"));
        }
    }
    for (k, w) in spec.workloads.iter().enumerate() {
        let at = |f: &str| format!("workloads[{k}].{f}");
        for (field, list) in [("senders", w.senders()), ("receivers", w.receivers())] {
            if list.is_empty() {
                return Err(bad(at(field), "must name at least one host"));
            }
            for &v in list {
                if v >= n {
                    return Err(bad(at(field), format!("node index {v} out of range ({n} nodes)")));
                }
                if spec.nodes[v].kind != NodeKind::Host {
                    return Err(bad(at(field), format!("node \"{}\" is a router; flows run between hosts", spec.nodes[v].name)));
                }
            }
        }
        if let Some(v) = w.senders().iter().find(|v| w.receivers().contains(v)) {
            return Err(bad(at("receivers"), format!("node \"{}\" is also a sender", spec.nodes[*v].name)));
        }
        match w {
            crate::spec::WorkloadSpec::Poisson(p) => {
                if p.mean_interarrival == SimDuration::ZERO {
                    return Err(bad(at("mean_interarrival"), "must be greater than zero"));
                }
                match p.size {
                    crate::spec::SizeDist::Fixed(0) => return Err(bad(at("size"), "must be greater than zero")),
                    crate::spec::SizeDist::Pareto { mean, .. } if !(mean >= 1.0 && mean.is_finite()) => {
                        return Err(bad(at("size.mean"), format!("must be at least 1 byte, got {mean}")))
                    }
                    crate::spec::SizeDist::Pareto { shape, .. } if !(shape > 1.0 && shape.is_finite()) => {
                        return Err(bad(at("size.shape"), format!("must be greater than 1 (a finite mean), got {shape}")))
                    }
                    _ => {}
                }
            }
            crate::spec::WorkloadSpec::Web(web) => {
                if !(web.object_mean_packets > 0.0 && web.object_mean_packets.is_finite()) {
                    return Err(bad(at("object_size.mean"), format!("must be greater than zero, got {}", web.object_mean_packets)));
                }
                if !(web.object_shape > 1.0 && web.object_shape.is_finite()) {
                    return Err(bad(at("object_size.shape"), format!("must be greater than 1 (a finite mean), got {}", web.object_shape)));
                }
                if web.object_max_packets == Some(0) {
                    return Err(bad(at("object_size.max"), "must be at least one packet"));
                }
            }
        }
        if w.tcp().mss == 0 {
            return Err(bad(at("tcp.mss"), "must be greater than zero"));
        }
    }
    if spec.timeseries_interval == Some(SimDuration::ZERO) {
        return Err(bad("timeseries_interval", "must be greater than zero"));
    }
    Ok(())
}
