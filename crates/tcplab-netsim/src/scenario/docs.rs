//! The key tables of docs/scenarios.md, generated from the JSON Schema ([`super::schema`]):
//! one row per key with its values (from the schema's types, or the `x-values` name a
//! hand-written value schema gives), its default (the schema's `default`, "required", or "—")
//! and its meaning (the field's doc comment).
//!
//! In the docs each table sits between `<!-- keys:SECTION -->` and `<!-- /keys -->`;
//! [`update_docs`] rewrites them, and a test fails while the committed tables differ from the
//! generated ones (so a key without docs cannot land). `tcplab schema --markdown` prints them.

use serde_json::{Map, Value};

/// The documented sections: marker name and the `$defs` entry holding its keys (`None`: the
/// top level).
pub const SECTIONS: &[(&str, Option<&str>)] = &[
    ("top", None),
    ("simulation", Some("RawSimulation")),
    ("tcp", Some(super::schema::TCP_DEF)),
    ("topology", Some("RawTopology")),
    ("nodes", Some("RawNode")),
    ("links", Some("RawLink")),
    ("routes", Some("RawRoute")),
    ("flows", Some("RawFlow")),
    ("workloads", Some("RawWorkload")),
    ("pathlet", Some("RawPathlet")),
    ("host_cache", Some("RawHostCache")),
];

/// Tagged choices documented as one row per variant: marker name, `$defs` entry, tag key.
pub const VARIANTS: &[(&str, &str, &str)] = &[("loss", "RawLoss", "model")];

/// Closing marker of a generated table.
const END_MARKER: &str = "<!-- /keys -->";

fn begin_marker(section: &str) -> String {
    format!("<!-- keys:{section} (generated from the loader's types: edit their doc comments, then run TCPLAB_UPDATE_DOCS=1 cargo test -p tcplab-netsim docs_key_tables) -->")
}

/// The schema object a `$ref` points to (only local `#/$defs/...` references exist).
fn resolve<'a>(schema: &'a Value, v: &'a Value) -> &'a Value {
    match v.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/")) {
        Some(name) => schema.pointer(&format!("/$defs/{name}")).unwrap_or(v),
        None => v,
    }
}

/// A JSON value as a scenario file writes it, in backticks.
fn toml_text(v: &Value) -> String {
    fn inner(v: &Value) -> String {
        match v {
            Value::String(s) => format!("\"{s}\""),
            Value::Object(m) if m.is_empty() => "{}".to_string(),
            Value::Object(m) => format!(
                "{{ {} }}",
                m.iter().map(|(k, x)| format!("{k} = {}", inner(x))).collect::<Vec<_>>().join(", ")
            ),
            Value::Array(a) => {
                format!("[{}]", a.iter().map(inner).collect::<Vec<_>>().join(", "))
            }
            other => other.to_string(),
        }
    }
    format!("`{}`", inner(v))
}

/// The "values" cell of a property.
fn values(schema: &Value, v: &Value) -> String {
    if let Some(x) = v.get("x-values").and_then(Value::as_str) {
        return x.to_string();
    }
    if v.get("$ref").is_some() {
        let target = resolve(schema, v);
        if target.get("type") == Some(&Value::from("object")) && target.get("x-values").is_none() {
            return "table".to_string();
        }
        return values(schema, target);
    }
    if let Some(e) = v.get("enum").and_then(Value::as_array) {
        return e.iter().map(toml_text).collect::<Vec<_>>().join(", ");
    }
    if let Some(c) = v.get("const") {
        return toml_text(c);
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(alts) = v.get(key).and_then(Value::as_array) {
            return alts.iter().map(|a| values(schema, a)).collect::<Vec<_>>().join(", ");
        }
    }
    let min = v.get("minimum").and_then(Value::as_f64);
    let max = v.get("maximum").and_then(Value::as_f64);
    match v.get("type").and_then(Value::as_str) {
        Some("boolean") => "bool".to_string(),
        Some("integer") => match (min, max) {
            (Some(a), Some(b)) => format!("integer {a}–{b}"),
            (Some(a), None) if a > 0.0 => format!("integer ≥ {a}"),
            _ => "integer ≥ 0".to_string(),
        },
        Some("number") => match (min, max) {
            (Some(a), Some(b)) if a == 0.0 && b == 1.0 => "probability".to_string(),
            _ => "number".to_string(),
        },
        Some("string") => "string".to_string(),
        Some("array") => match v.get("items") {
            Some(items) => format!("list of {}", values(schema, items)),
            None => "list".to_string(),
        },
        Some("object") => "table".to_string(),
        _ => "value".to_string(),
    }
}

/// One table cell: no line breaks, `|` escaped.
fn cell(s: &str) -> String {
    s.replace('\n', " ").replace('|', "\\|")
}

/// The markdown table of one section's keys.
pub fn key_table(schema: &Value, section: &str) -> Option<String> {
    let def = SECTIONS.iter().find(|(s, _)| *s == section)?.1;
    let obj = match def {
        None => schema,
        Some(d) => schema.pointer(&format!("/$defs/{d}"))?,
    };
    let empty = Map::new();
    let props = obj.get("properties").and_then(Value::as_object).unwrap_or(&empty);
    let required: Vec<&str> = obj
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = String::from("| key | values | default | meaning |\n|---|---|---|---|\n");
    for (key, p) in props {
        let default = match p.get("default") {
            Some(d) => toml_text(d),
            None if required.contains(&key.as_str()) => "required".to_string(),
            None => "—".to_string(),
        };
        let meaning = p.get("description").and_then(Value::as_str).unwrap_or("");
        out.push_str(&format!(
            "| `{key}` | {} | {} | {} |\n",
            cell(&values(schema, p)),
            cell(&default),
            cell(meaning)
        ));
    }
    Some(out)
}

/// The markdown table of a tagged choice: one row per variant with its tag value, its other
/// keys (with their defaults) and its doc comment.
pub fn variant_table(schema: &Value, def: &str, tag: &str) -> Option<String> {
    let alts = schema.pointer(&format!("/$defs/{def}/oneOf"))?.as_array()?;
    let mut out = format!("| {tag} | keys | meaning |\n|---|---|---|\n");
    for alt in alts {
        let props = alt.get("properties").and_then(Value::as_object);
        let value = props.and_then(|p| p.get(tag)).and_then(|t| t.get("const"))?;
        let keys: Vec<String> = props
            .into_iter()
            .flatten()
            .filter(|(k, _)| k.as_str() != tag)
            .map(|(k, p)| match p.get("default") {
                Some(d) => format!("`{k}` (default {})", toml_text(d)),
                None => format!("`{k}`"),
            })
            .collect();
        let keys = if keys.is_empty() { "—".to_string() } else { keys.join(", ") };
        let meaning = alt.get("description").and_then(Value::as_str).unwrap_or("");
        out.push_str(&format!("| {} | {} | {} |\n", toml_text(value), cell(&keys), cell(meaning)));
    }
    Some(out)
}

/// Every generated table by marker name.
fn all_tables(schema: &Value) -> Vec<(&'static str, String)> {
    let keys = SECTIONS.iter().map(|(s, _)| (*s, key_table(schema, s)));
    let variants = VARIANTS.iter().map(|(s, def, tag)| (*s, variant_table(schema, def, tag)));
    keys.chain(variants).map(|(s, t)| (s, t.unwrap_or_default())).collect()
}

/// Every section's table with its markers (`tcplab schema --markdown`).
pub fn key_tables_markdown() -> String {
    let schema = super::schema::schema_value();
    all_tables(&schema)
        .iter()
        .map(|(s, t)| format!("{}\n{t}{END_MARKER}\n", begin_marker(s)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` (docs/scenarios.md) with every generated table replaced by the current one. Errors
/// name a section whose markers are missing or unclosed.
pub fn update_docs(text: &str) -> Result<String, String> {
    let schema = super::schema::schema_value();
    let mut out = text.to_string();
    for (section, table) in all_tables(&schema) {
        let begin = begin_marker(section);
        let start = out
            .find(&begin)
            .ok_or_else(|| format!("docs: no marker {begin}"))?;
        let body = start + begin.len();
        let end = out[body..]
            .find(END_MARKER)
            .map(|e| body + e)
            .ok_or_else(|| format!("docs: section {section} has no closing {END_MARKER}"))?;
        out.replace_range(body..end, &format!("\n{table}"));
    }
    Ok(out)
}
