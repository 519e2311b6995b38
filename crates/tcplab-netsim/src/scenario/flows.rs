//! `[[flows]]`: who sends how much to whom, when, with which `tcp` settings; `count` copies.

use super::tcp::{self, RawTcp};
use super::topology::NodeTable;
use super::values::{check_name, quantity_text, Dur, R};
use super::{p, Ctx};
use crate::spec::{FlowSpec, NodeKind};
use super::values::{or_word, ByteCount};
use schemars::{Schema, SchemaGenerator};
use serde::de::{Deserializer, Error as _};
use std::borrow::Cow;
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::HashMap;
use tcplab_time::units::parse_bytes;
use tcplab_time::SimDuration;

/// Written instead of a transfer size for a bulk sender.
pub const UNLIMITED: &str = "unlimited";

/// A `[[flows]]` entry.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawFlow {
    /// Label for `--set flows.NAME...`, messages and the `flow_name` output column; unique. No
    /// spaces or dots.
    pub name: Option<String>,
    /// Sending host (the active opener).
    pub src: String,
    /// Receiving host; a host other than `src`.
    pub dst: String,
    /// When the sender issues its SYN; must be before `simulation.duration`.
    #[schemars(extend("default" = "0s"))]
    pub start: Option<Dur>,
    /// Bytes to send (> 0); `"unlimited"` is a bulk sender.
    pub size: FlowSize,
    /// Per-flow overrides of `[tcp]` (same keys), applied over it key by key.
    pub tcp: Option<RawTcp>,
    /// Number of identical flows this entry stands for; flow ids are assigned in file order after
    /// expansion.
    #[schemars(range(min = 1, max = MAX_FLOW_COUNT), extend("default" = 1))]
    pub count: Option<u32>,
}

/// Transfer size: bytes, or `"unlimited"` for a bulk sender.
#[derive(Debug, Clone, Copy)]
pub struct FlowSize(pub Option<u64>);
impl JsonSchema for FlowSize {
    fn schema_name() -> Cow<'static, str> {
        "flow_size".into()
    }
    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        or_word(ByteCount::json_schema(g), UNLIMITED, "size, or `\"unlimited\"`")
    }
}
impl<'de> Deserialize<'de> for FlowSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        if v.as_str() == Some(UNLIMITED) {
            return Ok(FlowSize(None));
        }
        let s = quantity_text(&v, "100MB")
            .map_err(|e| D::Error::custom(format!("{e} or \"unlimited\"")))?;
        parse_bytes(&s)
            .map(|b| FlowSize(Some(b.0)))
            .map_err(|e| D::Error::custom(format!("{e} (or \"unlimited\" for a bulk sender)")))
    }
}

/// Flows per `[[flows]]` entry at most (a typo like `count = 1000000` should not hang).
pub const MAX_FLOW_COUNT: u32 = 100_000;

/// Check `[[flows]]` and expand `count`; each flow's `TcpConfig` merges `[tcp]` and its own
/// `tcp`. The result is indexed by `FlowId` (what `drop_nth.flow` refers to).
pub(super) fn build(
    ctx: &Ctx<'_>,
    raw: &[RawFlow],
    global_tcp: &RawTcp,
    nodes: &NodeTable,
    duration: SimDuration,
) -> R<Vec<FlowSpec>> {
    let mut flows = Vec::new();
    let mut flow_names: HashMap<&str, usize> = HashMap::new();
    for (i, f) in raw.iter().enumerate() {
        let at = p("flows").i(i);
        if let Some(n) = &f.name {
            check_name(ctx, &at.k("name"), n)?;
            if flow_names.insert(n.as_str(), i).is_some() {
                return Err(ctx.err(&at.k("name"), format!("flow \"{n}\" is defined twice")));
            }
        }
        let src = nodes.lookup(ctx, &at.k("src"), &f.src)?;
        let dst = nodes.lookup(ctx, &at.k("dst"), &f.dst)?;
        for (key, id) in [("src", src), ("dst", dst)] {
            if nodes.specs[id].kind != NodeKind::Host {
                return Err(ctx.err(
                    &at.k(key),
                    format!("\"{}\" is a router; flows run between hosts", nodes.specs[id].name),
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
                format!(
                    "{start} is not before the end of the run (simulation.duration = {duration})"
                ),
            ));
        }
        if f.size.0 == Some(0) {
            return Err(ctx.err(&at.k("size"), "must be greater than zero (or \"unlimited\")"));
        }
        let count = f.count.unwrap_or(1);
        if count == 0 || count > MAX_FLOW_COUNT {
            return Err(ctx.err(&at.k("count"), format!("must be between 1 and {MAX_FLOW_COUNT}")));
        }
        let tcp = tcp::tcp_config(ctx, global_tcp, f.tcp.as_ref(), &at)?;
        for _ in 0..count {
            flows.push(FlowSpec { src, dst, start, size: f.size.0, tcp: tcp.clone() });
        }
    }
    if raw.is_empty() {
        // Checked the global [tcp] anyway so that its errors are not hidden.
        tcp::tcp_config(ctx, global_tcp, None, &p("flows"))?;
        // A run without traffic measures nothing; it is almost always a mistake (a
        // misspelt `[[flow]]` table is caught earlier as an unknown field).
        return Err(ctx.err(
            &p("flows"),
            "the scenario defines no flows; add at least one [[flows]] table with src, dst and size",
        ));
    }
    Ok(flows)
}
