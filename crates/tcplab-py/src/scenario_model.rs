//! The analyzer's sender models from the scenario that made a capture (`tcplab analyze
//! --scenario`, issue 14 part 6): each connection is replayed with the settings of the flow
//! that sent it, found by the addresses and ports the simulator gave it.
//!
//! A simulated capture was made by known senders: every `[[flows]]` entry and every
//! `[[workloads]]` entry has its resolved `TcpConfig` (profile, `[tcp]`, its own `tcp`), the
//! very value the simulator's senders were built from. Flows with equal settings share one
//! model. How a data direction is matched to its flow (`sim/host.rs`, docs/outputs.md
//! "LINK.pcap"): the data sender is the simulator's client, node `i` has the address
//! 10.0.0.0/8 + (i + 1), flow `f`'s client port is 49152 + (f mod 16384) and the server's
//! 5001. So
//!
//! - a `[[flows]]` entry `f` is (its `src` address, port 49152 + f) → (its `dst` address,
//!   5001), exactly;
//! - a workload's connections get flow ids only as they open, so they are matched by
//!   (sender node, receiver node): a pair of one of its `senders` and one of its `receivers`.
//!   Where workloads with different settings share such a pair the sender is ambiguous and
//!   the connection gets the analysis' default model.
//!
//! Ambiguities resolved here: the default model (for directions that match no flow, e.g. the
//! ACK direction's rare data, or a capture of other hosts) is the settings most flows share, a
//! tie going to the earliest flow, as the analyzer's one model was before. A workload's
//! connection whose flow id is 16384 or more shares its client port with the fixed flow 16384
//! ids earlier; the fixed flow's settings win when both have the same nodes (a run that large
//! cannot be matched by port, as `tcplab compare` says too).

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

use tcplab_analyze::{ConfigModel, ModelPicker, SenderModel};
use tcplab_netsim::sim::host::{node_ip, port, SERVER_PORT};
use tcplab_tcp::TcpConfig;

/// The models of a scenario's senders.
pub(crate) struct ScenarioModels {
    /// The model of any direction the picker does not match (named `scenario:NAME`).
    pub default: ConfigModel,
    /// Per-connection models; `None` when every flow has the same settings (the default
    /// model is then every flow's).
    pub picker: Option<Arc<FlowPicker>>,
    /// Each distinct model: its name, the `[[flows]]` ids and the workload names using it.
    pub groups: Vec<(String, Vec<usize>, Vec<String>)>,
}

/// Finds the model of a data direction by its addresses ([`ModelPicker`]).
#[derive(Debug)]
pub(crate) struct FlowPicker {
    models: Vec<Arc<dyn SenderModel>>,
    /// (sender address and port, receiver address) of each `[[flows]]` entry → model index.
    fixed: HashMap<(SocketAddr, IpAddr), usize>,
    /// (sender, receiver) node addresses of each workload → model index (`None`: workloads
    /// with different settings share the pair).
    workloads: HashMap<(IpAddr, IpAddr), Option<usize>>,
}

impl ModelPicker for FlowPicker {
    fn pick(&self, sender: SocketAddr, receiver: SocketAddr) -> Option<Arc<dyn SenderModel>> {
        if receiver.port() != SERVER_PORT {
            return None;
        }
        let idx = match self.fixed.get(&(sender, receiver.ip())) {
            Some(&i) => Some(i),
            None => self.workloads.get(&(sender.ip(), receiver.ip())).copied().flatten(),
        };
        idx.map(|i| self.models[i].clone())
    }
}

fn addr(node: usize) -> IpAddr {
    IpAddr::V4(Ipv4Addr::from(node_ip(node as u32)))
}

/// The models of the scenario `text` (TOML: a file, or the `provenance.scenario` of a run's
/// summary.json) named `name`; `tlp` overrides every model's tail loss probes.
pub(crate) fn scenario_models(text: &str, name: &str, tlp: Option<bool>) -> Result<ScenarioModels, String> {
    let r = tcplab_netsim::scenario::resolve_str(text, name, &[]).map_err(|e| e.to_string())?;
    let spec = &r.spec;
    // Every sender: (settings, label) for the flows, then the workloads.
    let flow_label = |i: usize| r.flow_names.get(i).cloned().flatten().unwrap_or_else(|| format!("flows[{i}]"));
    let senders: Vec<(&TcpConfig, String)> = spec
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| (&f.tcp, flow_label(i)))
        .chain(spec.workloads.iter().map(|w| (w.tcp(), w.name().to_string())))
        .collect();
    if senders.is_empty() {
        return Err(format!("scenario {:?} has no flows", spec.name));
    }
    // Distinct settings in order of first appearance, with how many senders use each.
    let mut distinct: Vec<(&TcpConfig, usize)> = Vec::new();
    let group_of: Vec<usize> = senders
        .iter()
        .map(|(c, _)| match distinct.iter().position(|(d, _)| d == c) {
            Some(g) => {
                distinct[g].1 += 1;
                g
            }
            None => {
                distinct.push((c, 1));
                distinct.len() - 1
            }
        })
        .collect();
    let with_tlp = |c: &TcpConfig| {
        let mut c = c.clone();
        if let Some(t) = tlp {
            c.tlp = t;
        }
        c
    };
    let label = format!("scenario:{}", spec.name);
    let most = distinct.iter().map(|d| d.1).max().unwrap_or(0);
    let default_cfg = distinct.iter().find(|d| d.1 == most).map(|d| d.0).unwrap_or(senders[0].0);
    let default = ConfigModel::new(label.clone(), with_tlp(default_cfg));
    let n_fixed = spec.flows.len();
    let mut groups: Vec<(String, Vec<usize>, Vec<String>)> = distinct
        .iter()
        .enumerate()
        .map(|(idx, _)| {
            // A group is named after its first sender; with one group, after the scenario.
            let first = group_of.iter().position(|&g| g == idx).unwrap_or(0);
            let name = if distinct.len() == 1 { label.clone() } else { format!("{label}:{}", senders[first].1) };
            (name, Vec::new(), Vec::new())
        })
        .collect();
    for (k, &g) in group_of.iter().enumerate() {
        if k < n_fixed {
            groups[g].1.push(k);
        } else {
            groups[g].2.push(senders[k].1.clone());
        }
    }
    if distinct.len() == 1 {
        return Ok(ScenarioModels { default, picker: None, groups });
    }
    let models: Vec<Arc<dyn SenderModel>> = distinct
        .iter()
        .zip(&groups)
        .map(|((c, _), (name, _, _))| Arc::new(ConfigModel::new(name.clone(), with_tlp(c))) as Arc<dyn SenderModel>)
        .collect();
    let mut fixed = HashMap::new();
    for (i, f) in spec.flows.iter().enumerate() {
        let sender = SocketAddr::new(addr(f.src), port(i as u32, true));
        fixed.insert((sender, addr(f.dst)), group_of[i]);
    }
    let mut workloads: HashMap<(IpAddr, IpAddr), Option<usize>> = HashMap::new();
    for (k, w) in spec.workloads.iter().enumerate() {
        let g = group_of[n_fixed + k];
        for &s in w.senders() {
            for &d in w.receivers() {
                let e = workloads.entry((addr(s), addr(d))).or_insert(Some(g));
                if *e != Some(g) {
                    *e = None;
                }
            }
        }
    }
    Ok(ScenarioModels { default, picker: Some(Arc::new(FlowPicker { models, fixed, workloads })), groups })
}
