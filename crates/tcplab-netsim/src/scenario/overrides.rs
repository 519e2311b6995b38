//! `--set path.to.key=value` overrides, applied to the parsed TOML before deserializing.
//!
//! - The path is dotted: `simulation.duration`, `tcp.sack`, `flows.0.size`.
//! - In an array, a segment is an index (`links.0`) or, for arrays of tables whose items have
//!   a `name` key, that name (`links.bottleneck`).
//! - The value is read as a TOML value when it parses as one (`true`, `3`, `0.5`, `"x"`,
//!   `{ model = "bernoulli", p = 0.01 }`), otherwise it is taken as a string (`10s`, `1MB`), so
//!   quoting units is never needed on a command line.
//! - Missing keys in tables are created (`tcp.sack=false` works without a `[tcp]` table);
//!   misspelt keys are then reported by the loader as unknown fields naming the override.

use super::{render_path, suggestion, ScenarioError, Seg};

/// The generated-topology table (its keys are required together, so `--set` cannot create it).
const TOPOLOGY: &str = "topology";

/// Apply every override in order; returns each one's resolved path (indices instead of names)
/// with its original text, for error messages.
pub(crate) fn apply_all(
    root: &mut toml::Value,
    overrides: &[String],
) -> Result<Vec<(Vec<Seg>, String)>, ScenarioError> {
    overrides.iter().map(|o| apply(root, o).map(|segs| (segs, o.clone()))).collect()
}

/// Parse the value part of an override.
pub fn parse_value(text: &str) -> toml::Value {
    let doc = format!("v = {text}");
    match doc.parse::<toml::Table>() {
        // Exactly one key: text like "1\nx = 2" is not one value.
        Ok(mut t) if t.len() == 1 => {
            t.remove("v").unwrap_or_else(|| toml::Value::String(text.to_string()))
        }
        _ => toml::Value::String(text.to_string()),
    }
}

fn apply(root: &mut toml::Value, spec: &str) -> Result<Vec<Seg>, ScenarioError> {
    let fail = |m: String| ScenarioError::plain(format!("--set {spec}: {m}"));
    let (path, value) =
        spec.split_once('=').ok_or_else(|| fail("expected path.to.key=value".to_string()))?;
    let path = path.trim();
    let value = parse_value(value.trim());
    let parts: Vec<&str> = path.split('.').collect();
    if path.is_empty() || parts.iter().any(|p| p.is_empty()) {
        return Err(fail(format!(
            "\"{path}\" is not a valid key path (write it like simulation.duration)"
        )));
    }
    let mut resolved: Vec<Seg> = Vec::new();
    let mut cur = root;
    for (n, part) in parts.iter().enumerate() {
        let last = n + 1 == parts.len();
        let here = render_path(&resolved);
        cur = match cur {
            toml::Value::Table(t) => {
                resolved.push(Seg::Key(part.to_string()));
                if last {
                    t.insert(part.to_string(), value);
                    return Ok(resolved);
                }
                if n == 0 && *part == TOPOLOGY && !t.contains_key(TOPOLOGY) {
                    // A `[topology]` made of one override would only fail on its other
                    // required keys; say what is actually wrong.
                    return Err(fail(format!(
                        "the scenario has no [{TOPOLOGY}] table (its network is [[nodes]] and [[links]]); set a link instead, e.g. links.0.bandwidth=..."
                    )));
                }
                t.entry(part.to_string()).or_insert_with(|| toml::Value::Table(toml::Table::new()))
            }
            toml::Value::Array(items) => {
                let idx = match part.parse::<usize>() {
                    Ok(i) if i < items.len() => i,
                    Ok(i) => {
                        return Err(fail(format!(
                            "{here} has {} item{}, so there is no index {i}",
                            items.len(),
                            if items.len() == 1 { "" } else { "s" }
                        )))
                    }
                    Err(_) => {
                        let names: Vec<String> = items
                            .iter()
                            .filter_map(|v| {
                                v.get("name").and_then(|n| n.as_str()).map(str::to_string)
                            })
                            .collect();
                        match names.iter().position(|n| n == part) {
                            Some(_) => items
                                .iter()
                                .position(|v| v.get("name").and_then(|n| n.as_str()) == Some(part))
                                .unwrap_or(0),
                            None => {
                                let hint = match suggestion(part, &names) {
                                    Some(s) => format!("; did you mean \"{s}\"?"),
                                    None if names.is_empty() => {
                                        " (its items have no names; use an index like 0)"
                                            .to_string()
                                    }
                                    None => format!(" (names are: {})", names.join(", ")),
                                };
                                return Err(fail(format!(
                                    "{here} has no item named \"{part}\"{hint}"
                                )));
                            }
                        }
                    }
                };
                resolved.push(Seg::Index(idx));
                if last {
                    items[idx] = value;
                    return Ok(resolved);
                }
                &mut items[idx]
            }
            other => {
                return Err(fail(format!(
                    "{here} is {}, not a table, so it has no key \"{part}\"",
                    super::values::describe(other)
                )))
            }
        };
    }
    Ok(resolved)
}
