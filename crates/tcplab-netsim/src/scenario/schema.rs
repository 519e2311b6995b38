//! The JSON Schema (draft 2020-12) of scenario files, generated with schemars from the `Raw*`
//! structs of each section: their doc comments are the descriptions, the unit quantities have
//! hand-written schemas next to their parsers (`values`), and the `[tcp]` defaults are
//! `TcpConfig::default()` rendered by `tcp::tcp_values`. Nothing here is kept by hand per key:
//! a new key appears once its field exists, and a test fails while it has no doc comment.
//!
//! The loader stays the authority (ranges that depend on other keys, whole numbers of the base
//! unit); a file the loader accepts is valid against the schema (tested on every shipped
//! scenario with a real validator, `tests/test_schema.py`).

use super::document::RawScenario;
use super::tcp::tcp_values;
use schemars::generate::SchemaSettings;
use serde_json::Value;
use tcplab_tcp::{SenderModel, TcpConfig};

/// The `$defs` entry of `[tcp]`.
pub(super) const TCP_DEF: &str = "RawTcp";

/// The schema as a JSON value.
pub fn schema_value() -> Value {
    let generator = SchemaSettings::draft2020_12().for_deserialize().into_generator();
    let mut v = generator.into_root_schema_for::<RawScenario>().to_value();
    strip_null(&mut v);
    if let Some(root) = v.as_object_mut() {
        root.insert("title".into(), "tcplab scenario".into());
        root.insert(
            "description".into(),
            "A tcplab scenario file (TOML); see docs/scenarios.md. Generated from the loader's types."
                .into(),
        );
    }
    // The Linux-only keys' defaults come from the Linux sender's rendering.
    let mut defaults = tcp_values(&TcpConfig::default());
    let linux = TcpConfig { sender: SenderModel::Linux, ..TcpConfig::default() };
    for (k, v) in tcp_values(&linux) {
        defaults.entry(k).or_insert(v);
    }
    if let Some(props) =
        v.pointer_mut(&format!("/$defs/{TCP_DEF}/properties")).and_then(Value::as_object_mut)
    {
        for (key, prop) in props.iter_mut() {
            if let (Some(d), Some(p)) = (defaults.get(key), prop.as_object_mut()) {
                if let Ok(j) = serde_json::to_value(d) {
                    p.insert("default".into(), j);
                }
            }
        }
    }
    v
}

/// The schema as pretty-printed JSON (`tcplab schema`).
pub fn json_schema() -> String {
    serde_json::to_string_pretty(&schema_value()).unwrap_or_default()
}

/// TOML has no null: drop the `null` alternatives schemars adds for `Option` fields. Doc
/// comments' line breaks become spaces (paragraph breaks stay).
fn strip_null(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if m.get("default") == Some(&Value::Null) {
                m.remove("default");
            }
            if let Some(Value::String(d)) = m.get_mut("description") {
                *d = d.split("\n\n").map(|p| p.replace('\n', " ")).collect::<Vec<_>>().join("\n\n");
            }
            if let Some(Value::Array(types)) = m.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let t = types.remove(0);
                    m.insert("type".into(), t);
                }
            }
            for key in ["anyOf", "oneOf"] {
                let single = match m.get_mut(key) {
                    Some(Value::Array(alts)) => {
                        alts.retain(|a| a.get("type") != Some(&Value::from("null")));
                        (alts.len() == 1).then(|| alts.remove(0))
                    }
                    _ => None,
                };
                if let Some(Value::Object(only)) = single {
                    m.remove(key);
                    for (k, x) in only {
                        m.entry(k).or_insert(x);
                    }
                }
            }
            m.values_mut().for_each(strip_null);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_null),
        _ => {}
    }
}
