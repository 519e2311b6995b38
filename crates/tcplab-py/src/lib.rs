//! tcplab._core: the PyO3 bindings. Thin by design: load a scenario, run it, hand the result
//! tables to Python as numpy buffers (moved, not copied), list and build benchmark cases.
//!
//! | Python | Rust |
//! |---|---|
//! | `load_scenario(text, name, overrides)` | `tcplab_netsim::scenario::resolve_str` |
//! | `load_scenario_json(json, name, overrides)` | JSON → TOML value → `resolve_str` |
//! | `validate_overrides(text, name, overrides, is_json)` | `tcplab_netsim::scenario::validate_overrides` |
//! | `run(spec, seed, trace, pcap, hooks)` | `tcplab_netsim::run_with` (GIL released; `hooks`: see `hooks.rs`) |
//! | `RunOutput.table_ipc(name, names, labels)` | a result table with `flow_name` as Arrow IPC bytes (`ipc.rs`) |
//! | `Spec.trace_estimate` | `tcplab_netsim::sim::trace_size::estimate` |
//! | `bench_cases()`, `bench_spec(name)` | `tcplab_netsim::bench` |
//! | `schema()`, `schema_markdown()` | `tcplab_netsim::scenario::{json_schema, key_tables_markdown}` |
//! | `profiles()` | `tcplab_tcp::Profile::ALL` through `tcplab_netsim::scenario::profile_values` |
//! | `capture_packets(path, conn_id)` | `tcplab_pcap::{CaptureReader, ConnTracker}` (packets.rs) |
//! | `__git_revision__`, `__git_dirty__` | `git rev-parse HEAD` / `git status` at build time (`build.rs`) |

mod analyze;
mod analyze_write;
mod hooks;
mod ipc;
mod packets;
mod whatif;
mod tables;
mod rto_table;
mod scenario_model;

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use std::path::PathBuf;
use tcplab_netsim::spec::SimSpec;
use tcplab_record::Table;

create_exception!(
    _core,
    ScenarioError,
    PyValueError,
    "A scenario, override or run request is invalid; the message is one line naming the field."
);

/// A validated scenario (opaque to Python except for a few read-only facts).
#[pyclass(name = "Spec", module = "tcplab._core", frozen)]
struct PySpec {
    spec: SimSpec,
    /// The scenario as run (`Resolved::document`); empty for benchmark cases.
    document: String,
    flow_names: Vec<Option<String>>,
}

impl PySpec {
    fn resolved(r: tcplab_netsim::scenario::Resolved) -> Self {
        PySpec { spec: r.spec, document: r.document, flow_names: r.flow_names }
    }
}

#[pymethods]
impl PySpec {
    #[getter]
    fn name(&self) -> String {
        self.spec.name.clone()
    }
    #[getter]
    fn default_seed(&self) -> u64 {
        self.spec.default_seed
    }
    #[getter]
    fn link_names(&self) -> Vec<String> {
        self.spec.links.iter().map(|l| l.name.clone()).collect()
    }
    #[getter]
    fn node_names(&self) -> Vec<String> {
        self.spec.nodes.iter().map(|n| n.name.clone()).collect()
    }
    #[getter]
    fn num_flows(&self) -> usize {
        self.spec.flows.len()
    }
    /// The scenario as run, as TOML: overrides applied, each flow's `tcp` written out.
    #[getter]
    fn resolved_toml(&self) -> String {
        self.document.clone()
    }
    /// The `name` of each flow's `[[flows]]` entry by flow id (`None` if unnamed).
    #[getter]
    fn flow_names(&self) -> Vec<Option<String>> {
        self.flow_names.clone()
    }
    /// The `name` of each `[[workloads]]` entry, in order (the `flow_name` of the
    /// connections it opens).
    #[getter]
    fn workload_names(&self) -> Vec<String> {
        self.spec.workloads.iter().map(|w| w.name().to_string()).collect()
    }
    /// Simulated duration in nanoseconds.
    #[getter]
    fn duration_ns(&self) -> u64 {
        self.spec.duration.as_nanos()
    }
    /// The trace's size estimated before the run (`tcplab_netsim::sim::trace_size`):
    /// `(event_rows, timeseries_rows, segments)`.
    #[getter]
    fn trace_estimate(&self) -> PyResult<(f64, f64, f64)> {
        let e = tcplab_netsim::sim::trace_size::estimate(&self.spec).map_err(scenario_err)?;
        Ok((e.event_rows, e.timeseries_rows, e.segments))
    }
}

/// The raw output of one run.
#[pyclass(name = "RunOutput", module = "tcplab._core")]
struct PyRunOutput {
    #[pyo3(get)]
    summary_json: String,
    tables: Vec<Table>,
    /// The hooks stopped the run before its end: the results are partial.
    #[pyo3(get)]
    stopped: bool,
}

#[pymethods]
impl PyRunOutput {
    /// Columns of table `name` as a list of `(name, data, valid)`; `data` is a numpy array or,
    /// for dictionary-encoded strings, `(codes, values)`. Each table can be taken once (its
    /// buffers move to numpy).
    fn table<'py>(&mut self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyList>> {
        tables::take_table(py, &mut self.tables, name)
    }
    /// Table `name` as Arrow IPC stream bytes, with a `flow_name` column from `names` (the
    /// name of each flow id, None for an unnamed flow) and `labels` (the dictionary): the
    /// table `tcplab.api.add_flow_names(tcplab.tables.to_arrow(self.table(name)), names,
    /// labels)` builds, without converting anything in Python (`ipc.rs`). The table stays
    /// here (it can still be taken with `table`).
    #[pyo3(signature = (name, names = None, labels = None))]
    fn table_ipc<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        names: Option<Vec<Option<String>>>,
        labels: Option<Vec<String>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let table = self
            .tables
            .iter()
            .find(|t| t.name == name)
            .ok_or_else(|| PyValueError::new_err(format!("no table named {name:?}")))?;
        let named = match (&names, &labels) {
            (Some(n), Some(l)) => Some((n.as_slice(), l.as_slice())),
            (None, None) => None,
            _ => return Err(PyValueError::new_err("table_ipc: give both names and labels, or neither")),
        };
        let bytes = ipc::named_batch(table, named)
            .and_then(|b| ipc::ipc_stream(&b))
            .map_err(|e| PyValueError::new_err(format!("table {name:?} to Arrow IPC: {e}")))?;
        Ok(PyBytes::new(py, &bytes))
    }
    /// Names of the tables this run produced (`queues` only when a link runs RED).
    #[getter]
    fn table_names(&self) -> Vec<String> {
        self.tables.iter().map(|t| t.name.clone()).collect()
    }
}

fn scenario_err(e: impl std::fmt::Display) -> PyErr {
    ScenarioError::new_err(e.to_string())
}

#[pyfunction]
#[pyo3(signature = (text, name, overrides))]
fn load_scenario(py: Python<'_>, text: &str, name: &str, overrides: Vec<String>) -> PyResult<PySpec> {
    let r = py
        .detach(|| tcplab_netsim::scenario::resolve_str(text, name, &overrides))
        .map_err(scenario_err)?;
    Ok(PySpec::resolved(r))
}

/// TOML text of a scenario given as JSON (from a Python dict).
fn json_to_toml(json: &str) -> PyResult<String> {
    let value: toml::Value = serde_json::from_str(json)
        .map_err(|e| scenario_err(format!("scenario dict: {e}")))?;
    toml::to_string(&value)
        .map_err(|e| scenario_err(format!("scenario dict: cannot be expressed as TOML: {e}")))
}

/// Check overrides against a scenario without running it: each alone, then all together
/// (`tcplab_netsim::scenario::validate_overrides`). `is_json`: `text` is a JSON dict.
#[pyfunction]
#[pyo3(signature = (text, name, overrides, is_json = false))]
fn validate_overrides(
    text: &str,
    name: &str,
    overrides: Vec<String>,
    is_json: bool,
) -> PyResult<PySpec> {
    let text = if is_json { json_to_toml(text)? } else { text.to_string() };
    tcplab_netsim::scenario::validate_overrides(&text, name, &overrides).map_err(scenario_err)?;
    let r = tcplab_netsim::scenario::resolve_str(&text, name, &overrides).map_err(scenario_err)?;
    Ok(PySpec::resolved(r))
}

/// A scenario given as JSON (from a Python dict): converted to TOML text and loaded as usual.
#[pyfunction]
#[pyo3(signature = (json, name, overrides))]
fn load_scenario_json(json: &str, name: &str, overrides: Vec<String>) -> PyResult<PySpec> {
    let text = json_to_toml(json)?;
    let r = tcplab_netsim::scenario::resolve_str(&text, name, &overrides).map_err(scenario_err)?;
    Ok(PySpec::resolved(r))
}

/// Runs `spec`. `hooks` (optional) is the Python object of `tcplab.longrun.Hooks`; with or
/// without it, Python's signal handlers run about every 20 ms of the run (`hooks.rs`), so
/// Ctrl-C is never held until the run ends.
#[pyfunction]
#[pyo3(signature = (spec, seed, trace, pcap, hooks = None))]
fn run(
    py: Python<'_>,
    spec: &PySpec,
    seed: u64,
    trace: bool,
    pcap: Vec<(String, PathBuf)>,
    hooks: Option<Py<PyAny>>,
) -> PyResult<PyRunOutput> {
    // Paths arrive as PathBuf: any byte string, not only UTF-8 (surrogate escapes from Python).
    let opts = tcplab_netsim::RunOptions { seed, trace, pcap };
    let spec = &spec.spec;
    let mut hooks = hooks::PyHooks::new(py, hooks)?;
    let out = py.detach(|| tcplab_netsim::run_with(spec, &opts, &mut hooks));
    if let Some(e) = hooks.error.take() {
        return Err(e);
    }
    let out = out.map_err(scenario_err)?;
    let summary_json = serde_json::to_string(&out.summary)
        .map_err(|e| PyValueError::new_err(format!("summary serialization: {e}")))?;
    let mut tables = vec![out.flows, out.events, out.timeseries];
    tables.extend(out.queues);
    Ok(PyRunOutput { summary_json, tables, stopped: out.stopped })
}

#[pyfunction]
fn bench_cases() -> Vec<String> {
    tcplab_netsim::bench::BENCH_CASES.iter().map(|s| s.to_string()).collect()
}

#[pyfunction]
fn bench_spec(name: &str) -> PyResult<PySpec> {
    let flows = |s: &SimSpec| vec![None; s.flows.len()];
    tcplab_netsim::bench::bench_case(name)
        .map(|spec| PySpec { flow_names: flows(&spec), spec, document: String::new() })
        .ok_or_else(|| {
        scenario_err(format!(
            "--case: no benchmark case {name:?}; cases are: {}",
            tcplab_netsim::bench::BENCH_CASES.join(", ")
        ))
    })
}

#[pyfunction]
fn schema() -> String {
    tcplab_netsim::scenario::json_schema()
}

/// The key tables of docs/scenarios.md (`tcplab schema --markdown`).
#[pyfunction]
fn schema_markdown() -> String {
    tcplab_netsim::scenario::key_tables_markdown()
}

/// A scenario-file value as a Python object (strings, integers, floats, booleans, dicts,
/// lists).
fn toml_to_py<'py>(py: Python<'py>, v: &toml::Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        toml::Value::String(s) => s.clone().into_pyobject(py)?.into_any(),
        toml::Value::Integer(i) => i.into_pyobject(py)?.into_any(),
        toml::Value::Float(f) => f.into_pyobject(py)?.into_any(),
        toml::Value::Boolean(b) => b.into_pyobject(py)?.to_owned().into_any(),
        toml::Value::Datetime(d) => d.to_string().into_pyobject(py)?.into_any(),
        toml::Value::Array(a) => {
            let l = PyList::empty(py);
            for x in a {
                l.append(toml_to_py(py, x)?)?;
            }
            l.into_any()
        }
        toml::Value::Table(t) => {
            let d = PyDict::new(py);
            for (k, x) in t {
                d.set_item(k, toml_to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
}

/// Every named OS profile as a dict of the `[tcp]` keys it sets, with the values written as a
/// scenario file accepts them (so a dict can be pasted into a `[tcp]` table), in
/// `PROFILE_KEYS` order, plus `name` and `description`. Made from the profile table by
/// `tcplab_netsim::scenario::profile_values` (the loader's tests load every one back).
#[pyfunction]
fn profiles(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    use tcplab_netsim::scenario::{profile_values, PROFILE_KEYS};
    tcplab_tcp::Profile::ALL
        .iter()
        .map(|p| {
            let d = PyDict::new(py);
            d.set_item("name", p.name)?;
            let values = profile_values(p);
            for k in PROFILE_KEYS {
                if let Some(v) = values.get(*k) {
                    d.set_item(*k, toml_to_py(py, v)?)?;
                }
            }
            d.set_item("description", p.description)?;
            Ok(d)
        })
        .collect()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("__git_revision__", env!("TCPLAB_GIT_REVISION"))?;
    // None when the build could not tell (no git).
    let dirty = match env!("TCPLAB_GIT_DIRTY") {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    };
    m.add("__git_dirty__", dirty)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add_class::<PySpec>()?;
    m.add_class::<PyRunOutput>()?;
    m.add_function(wrap_pyfunction!(load_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(load_scenario_json, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(bench_cases, m)?)?;
    m.add_function(wrap_pyfunction!(bench_spec, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(profiles, m)?)?;
    m.add_function(wrap_pyfunction!(schema_markdown, m)?)?;
    m.add_function(wrap_pyfunction!(validate_overrides, m)?)?;
    analyze::register(m)?;
    whatif::register(m)?;
    m.add_function(wrap_pyfunction!(rto_table::fig6_rto_table, m)?)?;
    m.add_function(wrap_pyfunction!(packets::capture_packets, m)?)?;
    Ok(())
}
