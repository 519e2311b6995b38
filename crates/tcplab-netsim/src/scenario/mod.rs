//! Scenario files: TOML → validated [`SimSpec`].
//!
//! The format is documented key by key in `docs/scenarios.md`, whose key tables are generated
//! ([`key_tables_markdown`]) from the JSON Schema ([`json_schema`]), itself generated from the
//! `Raw*` structs and their doc comments: adding a key is a field with its doc comment plus its
//! check. Pipeline:
//!
//! 1. parse the text into a `toml::Value` (syntax errors: the parser's message on one line);
//! 2. apply `--set path=value` overrides to that value ([`overrides`]);
//! 3. deserialize into the `Raw*` structs (`deny_unknown_fields`; quantities parsed with the
//!    `tcplab-time` unit parsers), tracking the field path with `serde_path_to_error`;
//! 4. resolve names and check ranges, section by section (`document::build`).
//!
//! Each section of the file has one module holding both its serde structs and its checks:
//! `simulation`, `tcp`, `link` (with `dynamics` for the wireless keys), `topology` (nodes,
//! routes, the generator), `flows` and `workloads`; `values` has the unit quantities they share.
//!
//! Every error is one line: `field.path: what is wrong (line L, column C)`. The location is
//! found by looking the field path up in a span-preserving parse (`toml_edit`); when the
//! offending value came from an override the suffix is `(from --set ...)` instead.
//!
//! Ambiguities resolved here (also in docs/scenarios.md):
//! - `drop_nth.flow` indexes the *expanded* flow list (after `count` copies), i.e. the
//!   `FlowId` that appears in every output.
//! - An override of a key that does not exist yet creates it (so `tcp.sack=false` works when
//!   the file has no `[tcp]`); a misspelt key is then caught as an unknown field.
//! - `loss` sets both directions; combining it with `loss_ab`/`loss_ba` is an error rather
//!   than a silent precedence rule.
//! - `delay_spikes` is read in two steps (a TOML value, then the list or the process table) so
//!   that errors inside it name their full path; `spike_direction` and `link_buffer` without
//!   `delay_spikes` are errors (they would do nothing).

mod docs;
mod document;
mod dynamics;
mod flows;
mod link;
mod pathlet;
mod quickstart;
pub mod overrides;
mod schema;
mod simulation;
mod tcp;
mod topology;
mod values;
mod workloads;
#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;

use crate::spec::SimSpec;
use std::fmt;
use std::path::Path;

pub use docs::{key_tables_markdown, update_docs};
pub use schema::{json_schema, schema_value};
pub use tcp::{profile_values, tcp_values, PROFILE_KEYS};

/// Seed used when neither the file (`simulation.seed`) nor the caller gives one.
pub const DEFAULT_SEED: u64 = 1;
/// Largest edit distance for a "did you mean" suggestion.
const MAX_SUGGESTION_DISTANCE: usize = 2;
/// Words longer than this get no suggestion (they are not typos, and the edit distance
/// table grows with the product of the lengths).
const MAX_SUGGESTION_LEN: usize = 64;

/// Why a scenario was rejected. `Display` is a single line naming the field path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    path: Option<String>,
    message: String,
    /// 1-based (line, column) in the scenario text.
    location: Option<(usize, usize)>,
    /// The `--set` argument the offending value came from.
    from_override: Option<String>,
}

impl ScenarioError {
    /// Dotted field path (`links[1].bandwidth`), if the error concerns one field.
    pub fn path(&self) -> Option<&str> {
        self.path.as_deref()
    }
    /// The message without path and location.
    pub fn message(&self) -> &str {
        &self.message
    }
    /// 1-based line and column in the file, when known.
    pub fn location(&self) -> Option<(usize, usize)> {
        self.location
    }
    pub(crate) fn plain(message: impl Into<String>) -> Self {
        ScenarioError {
            path: None,
            message: one_line(&message.into()),
            location: None,
            from_override: None,
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(p) = &self.path {
            write!(f, "{p}: ")?;
        }
        f.write_str(&self.message)?;
        if let Some(o) = &self.from_override {
            write!(f, " (from --set {o})")?;
        } else if let Some((l, c)) = self.location {
            write!(f, " (line {l}, column {c})")?;
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioError {}

/// Load a scenario from text. `name` is used when the file has no `name` key.
pub fn load_str(text: &str, name: &str, overrides: &[String]) -> Result<SimSpec, ScenarioError> {
    load_value(text, name, overrides).map(|(spec, _)| spec)
}

/// A loaded scenario with what a result directory records of it (provenance).
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    pub spec: SimSpec,
    /// The scenario as run, as TOML text: the file with the overrides applied, `name` set, and
    /// every `[[flows]]` and `[[workloads]]` entry's `tcp` written out in full (profiles and `[tcp]` resolved;
    /// `[tcp]` itself removed). Loading it gives the same spec.
    pub document: String,
    /// The `name` of each flow's `[[flows]]` entry, by flow id (copies made by `count` share
    /// it; `None` for unnamed entries).
    pub flow_names: Vec<Option<String>>,
}

/// [`load_str`], also giving the resolved document and the flow names ([`Resolved`]).
pub fn resolve_str(text: &str, name: &str, overrides: &[String]) -> Result<Resolved, ScenarioError> {
    let (spec, mut value) = load_value(text, name, overrides)?;
    let mut flow_names = Vec::with_capacity(spec.flows.len());
    if let Some(root) = value.as_table_mut() {
        root.insert("name".into(), toml::Value::String(spec.name.clone()));
        root.remove("tcp");
        if let Some(entries) = root.get_mut("flows").and_then(toml::Value::as_array_mut) {
            for entry in entries.iter_mut() {
                let first = flow_names.len();
                let count = entry.get("count").and_then(toml::Value::as_integer).unwrap_or(1);
                let label = entry.get("name").and_then(toml::Value::as_str).map(str::to_string);
                flow_names.extend((0..count).map(|_| label.clone()));
                if let (Some(t), Some(f)) = (entry.as_table_mut(), spec.flows.get(first)) {
                    t.insert("tcp".into(), toml::Value::Table(tcp_values(&f.tcp)));
                }
            }
        }
        // `[[workloads]]` entries likewise get their resolved `tcp` written out.
        if let Some(entries) = root.get_mut("workloads").and_then(toml::Value::as_array_mut) {
            for (entry, w) in entries.iter_mut().zip(&spec.workloads) {
                if let Some(t) = entry.as_table_mut() {
                    t.insert("tcp".into(), toml::Value::Table(tcp_values(w.tcp())));
                }
            }
        }
    }
    let document = toml::to_string(&value).map_err(|e| {
        ScenarioError::plain(format!("cannot write the resolved scenario as TOML: {e}"))
    })?;
    Ok(Resolved { spec, document, flow_names })
}

/// Parse, override, deserialize and build; also returns the overridden document.
fn load_value(
    text: &str,
    name: &str,
    overrides: &[String],
) -> Result<(SimSpec, toml::Value), ScenarioError> {
    let mut value: toml::Value = match text.parse::<toml::Table>() {
        Ok(t) => toml::Value::Table(t),
        Err(e) => {
            let location = e.span().map(|s| line_col(text, s.start));
            return Err(ScenarioError {
                path: None,
                message: format!("invalid TOML: {}", syntax_message(e.message())),
                location,
                from_override: None,
            });
        }
    };
    let original = value.clone();
    let ctx = Ctx::new(text);
    let applied = overrides::apply_all(&mut value, overrides)?;
    let ctx = Ctx { overrides: applied, ..ctx };
    match check_value(&ctx, value.clone(), name) {
        Ok(spec) => Ok((spec, value)),
        Err(e) => Err(blame_override(e, text, &original, name, overrides)),
    }
}

/// Steps 3 and 4 of the pipeline (deserialize, build) on a parsed and overridden document.
fn check_value(ctx: &Ctx<'_>, value: toml::Value, name: &str) -> Result<SimSpec, ScenarioError> {
    let raw: document::RawScenario = match serde_path_to_error::deserialize(value) {
        Ok(r) => r,
        Err(e) => return Err(ctx.serde_error(e)),
    };
    document::build(ctx, raw, name)
}

/// An error that points into the file although an override caused it: a check between two
/// fields (`workloads[0].receivers[0]: "d1" is also a sender`) fails at a field the file
/// wrote, because of the other field, which an override set. [`Ctx::err`] attributes an error
/// to an override only when the override wrote the field at fault; this finds the others by
/// loading again without each override in turn: the first override whose removal makes the
/// error go away (or change) is named, so the line ends `(from --set ...)` like every other
/// error an override causes. Runs only on the error path (one reload per override).
fn blame_override(
    e: ScenarioError,
    text: &str,
    original: &toml::Value,
    name: &str,
    overrides: &[String],
) -> ScenarioError {
    if e.from_override.is_some() || overrides.is_empty() {
        return e;
    }
    for skip in 0..overrides.len() {
        let others: Vec<String> =
            overrides.iter().enumerate().filter(|(i, _)| *i != skip).map(|(_, o)| o.clone()).collect();
        let mut value = original.clone();
        let Ok(applied) = overrides::apply_all(&mut value, &others) else { continue };
        let ctx = Ctx { overrides: applied, ..Ctx::new(text) };
        let same = match check_value(&ctx, value, name) {
            Ok(_) => false,
            Err(again) => again == e,
        };
        if !same {
            return ScenarioError { from_override: Some(overrides[skip].clone()), ..e };
        }
    }
    e
}

/// Check `overrides` against the scenario without running it: each one alone, then all
/// together, so that an invalid value is reported as its own (`tcp.min_rto=1x`) and a
/// conflict between valid ones (`tcp.sender=linux` with `tcp.tlp=true`) as what it is. Every
/// error names the override it came from. Used to validate a study's parameters up front.
pub fn validate_overrides(
    text: &str,
    name: &str,
    overrides: &[String],
) -> Result<SimSpec, ScenarioError> {
    for o in overrides {
        load_value(text, name, std::slice::from_ref(o))?;
    }
    load_str(text, name, overrides)
}

/// Load a scenario file; the name defaults to the file stem.
pub fn load_path(path: &Path, overrides: &[String]) -> Result<SimSpec, ScenarioError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ScenarioError::plain(format!("cannot read {}: {e}", path.display())))?;
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    load_str(&text, &stem, overrides)
}

// ---------------------------------------------------------------------------------------------
// Field paths

/// One step of a field path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Seg {
    Key(String),
    Index(usize),
}

pub(crate) fn render_path(segs: &[Seg]) -> String {
    let mut s = String::new();
    for seg in segs {
        match seg {
            Seg::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                // A quoted TOML key may hold any character: control characters (a newline;
                // Unicode's Cc, all below U+00A0) are escaped as paths are in every message,
                // `\xNN`, so that the message stays one line.
                for c in k.chars() {
                    if c.is_control() {
                        s.push_str(&format!("\\x{:02x}", u32::from(c)));
                    } else {
                        s.push(c);
                    }
                }
            }
            Seg::Index(i) => {
                s.push_str(&format!("[{i}]"));
            }
        }
    }
    s
}

/// Shorthand for building paths: `p(&["links"]).i(1).k("a")`.
#[derive(Debug, Clone, Default)]
pub(crate) struct P(pub Vec<Seg>);
impl P {
    pub fn k(&self, key: &str) -> P {
        let mut v = self.0.clone();
        v.push(Seg::Key(key.to_string()));
        P(v)
    }
    pub fn i(&self, idx: usize) -> P {
        let mut v = self.0.clone();
        v.push(Seg::Index(idx));
        P(v)
    }
}
pub(crate) fn p(key: &str) -> P {
    P::default().k(key)
}

/// What errors need to know about the input.
pub(crate) struct Ctx<'a> {
    text: &'a str,
    doc: Option<toml_edit::ImDocument<&'a str>>,
    /// Resolved path and original text of each applied override.
    overrides: Vec<(Vec<Seg>, String)>,
}

impl<'a> Ctx<'a> {
    fn new(text: &'a str) -> Self {
        Ctx { text, doc: toml_edit::ImDocument::parse(text).ok(), overrides: Vec::new() }
    }

    /// An error about the field at `path`.
    pub fn err(&self, path: &P, message: impl Into<String>) -> ScenarioError {
        let segs = &path.0;
        let location = self.locate(segs);
        // The value came from an override that set it or a table around it; or, when the file
        // has nothing at `path` at all (an unknown key only an override wrote, like
        // `--set nosuch.key=1` failing at `nosuch`), from an override that set something inside it.
        let from_override = self
            .overrides
            .iter()
            .rev()
            .find(|(o, _)| segs.starts_with(o))
            .or_else(|| {
                let absent = !segs.is_empty() && location.is_none();
                self.overrides.iter().rev().find(|(o, _)| absent && o.starts_with(segs))
            })
            .map(|(_, s)| s.clone());
        ScenarioError {
            path: if segs.is_empty() { None } else { Some(render_path(segs)) },
            message: one_line(&message.into()),
            location,
            from_override,
        }
    }

    /// Line and column of the deepest part of `segs` present in the file.
    fn locate(&self, segs: &[Seg]) -> Option<(usize, usize)> {
        let doc = self.doc.as_ref()?;
        let mut best: Option<std::ops::Range<usize>> = None;
        enum Cur<'d> {
            Item(&'d toml_edit::Item),
            Table(&'d toml_edit::Table),
            Value(&'d toml_edit::Value),
        }
        let mut cur = Cur::Table(doc.as_table());
        for seg in segs {
            let next = match (seg, &cur) {
                (Seg::Key(k), c) => {
                    let tl: Option<&dyn toml_edit::TableLike> = match c {
                        Cur::Item(i) => i.as_table_like(),
                        Cur::Table(t) => Some(*t as &dyn toml_edit::TableLike),
                        Cur::Value(v) => {
                            v.as_inline_table().map(|t| t as &dyn toml_edit::TableLike)
                        }
                    };
                    match tl.and_then(|t| t.get_key_value(k)) {
                        Some((key, item)) => {
                            if let Some(s) = key.span() {
                                best = Some(s);
                            }
                            Cur::Item(item)
                        }
                        None => break,
                    }
                }
                (Seg::Index(i), c) => {
                    let arr_of_tables = match c {
                        Cur::Item(it) => it.as_array_of_tables(),
                        _ => None,
                    };
                    if let Some(aot) = arr_of_tables {
                        match aot.get(*i) {
                            Some(t) => {
                                if let Some(s) = t.span() {
                                    best = Some(s);
                                }
                                Cur::Table(t)
                            }
                            None => break,
                        }
                    } else {
                        let arr = match c {
                            Cur::Item(it) => it.as_array(),
                            Cur::Value(v) => v.as_array(),
                            Cur::Table(_) => None,
                        };
                        match arr.and_then(|a| a.get(*i)) {
                            Some(v) => {
                                if let Some(s) = v.span() {
                                    best = Some(s);
                                }
                                Cur::Value(v)
                            }
                            None => break,
                        }
                    }
                }
            };
            cur = next;
        }
        best.map(|r| line_col(self.text, r.start))
    }

    /// Turn a serde error into a one-line `path: message`, with "did you mean" for unknown
    /// keys and values.
    fn serde_error(&self, e: serde_path_to_error::Error<toml::de::Error>) -> ScenarioError {
        self.serde_error_at(&P::default(), e)
    }

    /// [`Ctx::serde_error`] for a value deserialized on its own, found at `prefix`.
    pub(crate) fn serde_error_at(
        &self,
        prefix: &P,
        e: serde_path_to_error::Error<toml::de::Error>,
    ) -> ScenarioError {
        let mut segs: Vec<Seg> = prefix.0.clone();
        for s in e.path().iter() {
            match s {
                serde_path_to_error::Segment::Seq { index } => segs.push(Seg::Index(*index)),
                serde_path_to_error::Segment::Map { key } => segs.push(Seg::Key(key.clone())),
                serde_path_to_error::Segment::Enum { variant } => {
                    segs.push(Seg::Key(variant.clone()))
                }
                serde_path_to_error::Segment::Unknown => {}
            }
        }
        // The key named in the message is taken before white space is collapsed: a quoted
        // key may hold a newline, and it must match the path's last key as written.
        let (extra_key, message) = rewrite_serde_message(e.inner().message());
        let message = one_line(&message);
        if let Some(k) = extra_key {
            // The path stops at the table; unknown/missing keys belong one level down. The
            // message from a nested custom deserializer may already name the key.
            if segs.last() != Some(&Seg::Key(k.clone())) {
                segs.push(Seg::Key(k));
            }
        }
        self.err(&P(segs), message)
    }
}

/// Rewrite serde's standard messages into tcplab's style. Returns the key the message is
/// about (for unknown/missing fields) and the new message.
fn rewrite_serde_message(msg: &str) -> (Option<String>, String) {
    if let Some(rest) = msg.strip_prefix("unknown field `") {
        if let Some((field, tail)) = rest.split_once('`') {
            let expected = backticked(tail);
            return (
                Some(field.to_string()),
                format!("unknown field{}", suggest_tail(field, &expected)),
            );
        }
    }
    if let Some(rest) = msg.strip_prefix("unknown variant `") {
        if let Some((variant, tail)) = rest.split_once('`') {
            let expected = backticked(tail);
            let list = expected.iter().map(|e| format!("\"{e}\"")).collect::<Vec<_>>().join(", ");
            let mut m = format!("unknown value \"{variant}\"; expected one of {list}");
            if let Some(s) = suggestion(variant, &expected) {
                m = format!(
                    "unknown value \"{variant}\"; did you mean \"{s}\"? (expected one of {list})"
                );
            }
            return (None, m);
        }
    }
    if let Some(rest) = msg.strip_prefix("missing field `") {
        if let Some((field, _)) = rest.split_once('`') {
            return (Some(field.to_string()), "required key is missing".to_string());
        }
    }
    if let Some(rest) = msg.strip_prefix("invalid value: integer `") {
        // "invalid value: integer `-1`, expected u32"; a positive number here is one the
        // type cannot hold: say so, with the largest it can.
        if let Some((n, expected)) = rest.split_once("`, expected ") {
            if let (false, Some(max)) = (n.starts_with('-'), unsigned_max(expected)) {
                return (None, format!("{n} is too large (at most {max})"));
            }
            return (None, format!("expected {}, found {n}", humanize_expected(expected)));
        }
    }
    if let Some(rest) = msg.strip_prefix("invalid type: ") {
        // "invalid type: string \"x\", expected u32" → "expected u32, found string \"x\""
        if let Some((found, expected)) = rest.rsplit_once(", expected ") {
            // `--set key=99999999999999999999`: beyond TOML's 64-bit integers the override
            // is kept as a string; it is a number too large for the key all the same.
            let digits = found.strip_prefix("string \"").and_then(|f| f.strip_suffix('"'));
            if let (Some(n), Some(max)) = (digits, unsigned_max(expected)) {
                let too_large = !n.is_empty()
                    && n.bytes().all(|b| b.is_ascii_digit())
                    && n.parse::<u64>().map_or(true, |v| v > max);
                if too_large {
                    return (None, format!("{n} is too large (at most {max})"));
                }
            }
            return (
                None,
                format!(
                    "expected {}, found {}",
                    humanize_expected(expected),
                    found.replace('`', "")
                ),
            );
        }
    }
    (None, msg.replace('`', "\""))
}

/// The largest value of the unsigned integer type serde names (`u32` ...), for "too large".
fn unsigned_max(type_name: &str) -> Option<u64> {
    match type_name {
        "u8" => Some(u8::MAX.into()),
        "u16" => Some(u16::MAX.into()),
        "u32" => Some(u32::MAX.into()),
        "u64" => Some(u64::MAX),
        "usize" => u64::try_from(usize::MAX).ok(),
        _ => None,
    }
}

fn humanize_expected(e: &str) -> String {
    match e {
        "u8" | "u16" | "u32" | "u64" | "usize" | "i64" => "a non-negative integer".to_string(),
        "f64" => "a number".to_string(),
        "a boolean" => "true or false".to_string(),
        other => other.replace('`', "\""),
    }
}

/// `; did you mean "x"?` or `; expected one of: a, b, c`.
fn suggest_tail(word: &str, expected: &[String]) -> String {
    match suggestion(word, expected) {
        Some(s) => format!("; did you mean \"{s}\"?"),
        None if expected.is_empty() => String::new(),
        None => format!("; expected one of: {}", expected.join(", ")),
    }
}

/// The closest expected word within [`MAX_SUGGESTION_DISTANCE`] edits, if there is exactly one.
pub(crate) fn suggestion(word: &str, expected: &[String]) -> Option<String> {
    if word.chars().count() > MAX_SUGGESTION_LEN {
        return None;
    }
    let scored: Vec<(usize, &String)> = expected
        .iter()
        .filter(|e| e.chars().count() <= MAX_SUGGESTION_LEN)
        .map(|e| (edit_distance(word, e), e))
        .filter(|(d, _)| *d <= MAX_SUGGESTION_DISTANCE)
        .collect();
    let best = scored.iter().map(|(d, _)| *d).min()?;
    let mut at_best = scored.iter().filter(|(d, _)| *d == best);
    let first = at_best.next()?;
    // Two equally close candidates ("d9" vs d1 and d2): no guess.
    if at_best.next().is_some() {
        return None;
    }
    Some(first.1.clone())
}

/// Words between backticks.
fn backticked(s: &str) -> Vec<String> {
    s.split('`').skip(1).step_by(2).map(str::to_string).collect()
}

/// Optimal string alignment distance (Levenshtein plus adjacent transposition, so
/// "bandwdith" → "bandwidth" is 1).
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

/// 1-based line and column (in characters) of byte offset `pos`.
fn line_col(text: &str, pos: usize) -> (usize, usize) {
    let pos = pos.min(text.len());
    let before = text.get(..pos).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map(|l| l.chars().count()).unwrap_or(0) + 1;
    (line, col)
}

/// The parser's multi-line message as one line: lines joined with "; ".
fn syntax_message(m: &str) -> String {
    m.lines()
        .map(one_line)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
        .replace('`', "\"")
}

/// Collapse white space (including newlines) to single spaces.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
