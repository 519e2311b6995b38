//! tcplab._core: the PyO3 bindings. Thin by design: load a scenario, run it, hand the result
//! tables to Python as numpy buffers (moved, not copied), list and build benchmark cases.
//!
//! | Python | Rust |
//! |---|---|
//! | `load_scenario(text, name, overrides)` | `tcplab_netsim::scenario::load_str` |
//! | `load_scenario_json(json, name, overrides)` | JSON → TOML value → `load_str` |
//! | `run(spec, seed, trace, pcap)` | `tcplab_netsim::run` (GIL released) |
//! | `bench_cases()`, `bench_spec(name)` | `tcplab_netsim::bench` |
//! | `schema()` | `tcplab_netsim::scenario::json_schema` |
//! | `profiles()` | `tcplab_tcp::Profile::ALL`, each as a dict of scenario-file values |

mod analyze;
mod tables;
mod rto_table;

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
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
}

/// The raw output of one run.
#[pyclass(name = "RunOutput", module = "tcplab._core")]
struct PyRunOutput {
    #[pyo3(get)]
    summary_json: String,
    tables: Vec<Table>,
}

#[pymethods]
impl PyRunOutput {
    /// Columns of table `name` as a list of `(name, data, valid)`; `data` is a numpy array or,
    /// for dictionary-encoded strings, `(codes, values)`. Each table can be taken once (its
    /// buffers move to numpy).
    fn table<'py>(&mut self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyList>> {
        tables::take_table(py, &mut self.tables, name)
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
    let spec = py
        .detach(|| tcplab_netsim::scenario::load_str(text, name, &overrides))
        .map_err(scenario_err)?;
    Ok(PySpec { spec })
}

/// A scenario given as JSON (from a Python dict): converted to TOML text and loaded as usual.
#[pyfunction]
#[pyo3(signature = (json, name, overrides))]
fn load_scenario_json(json: &str, name: &str, overrides: Vec<String>) -> PyResult<PySpec> {
    let value: toml::Value = serde_json::from_str(json)
        .map_err(|e| scenario_err(format!("scenario dict: {e}")))?;
    let text = toml::to_string(&value)
        .map_err(|e| scenario_err(format!("scenario dict: cannot be expressed as TOML: {e}")))?;
    let spec = tcplab_netsim::scenario::load_str(&text, name, &overrides).map_err(scenario_err)?;
    Ok(PySpec { spec })
}

#[pyfunction]
#[pyo3(signature = (spec, seed, trace, pcap))]
fn run(
    py: Python<'_>,
    spec: &PySpec,
    seed: u64,
    trace: bool,
    pcap: Vec<(String, PathBuf)>,
) -> PyResult<PyRunOutput> {
    // Paths arrive as PathBuf: any byte string, not only UTF-8 (surrogate escapes from Python).
    let opts = tcplab_netsim::RunOptions { seed, trace, pcap };
    let spec = &spec.spec;
    let out = py.detach(|| tcplab_netsim::run(spec, &opts)).map_err(scenario_err)?;
    let summary_json = serde_json::to_string(&out.summary)
        .map_err(|e| PyValueError::new_err(format!("summary serialization: {e}")))?;
    let mut tables = vec![out.flows, out.events, out.timeseries];
    tables.extend(out.queues);
    Ok(PyRunOutput { summary_json, tables })
}

#[pyfunction]
fn bench_cases() -> Vec<String> {
    tcplab_netsim::bench::BENCH_CASES.iter().map(|s| s.to_string()).collect()
}

#[pyfunction]
fn bench_spec(name: &str) -> PyResult<PySpec> {
    tcplab_netsim::bench::bench_case(name).map(|spec| PySpec { spec }).ok_or_else(|| {
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

/// A duration as a scenario file writes it ("500ms").
fn dur(d: tcplab_time::SimDuration) -> String {
    d.to_string()
}

/// An event clock as a scenario-file value: "fine", or a table.
fn event_clock<'py>(py: Python<'py>, c: tcplab_tcp::EventClock) -> PyResult<Bound<'py, PyAny>> {
    use tcplab_tcp::EventClock;
    let d = PyDict::new(py);
    match c {
        EventClock::Fine => d.set_item("kind", "fine")?,
        EventClock::Periodic { period, phase } => {
            d.set_item("kind", "periodic")?;
            d.set_item("period", dur(period))?;
            d.set_item("phase", dur(phase))?;
        }
        EventClock::OneShot { granularity } => {
            d.set_item("kind", "oneshot")?;
            d.set_item("granularity", dur(granularity))?;
        }
    }
    Ok(d.into_any())
}

/// Every named OS profile as a dict whose keys are `[tcp]` scenario keys and whose values are
/// written as a scenario file accepts them (so a dict can be pasted into a `[tcp]` table),
/// plus `name` and `description`.
#[pyfunction]
fn profiles(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    use tcplab_tcp::{DupAckThreshold, InitialWindow, Profile};
    Profile::ALL
        .iter()
        .map(|p| {
            let d = PyDict::new(py);
            d.set_item("name", p.name)?;
            d.set_item("rto_estimator", p.estimator.name())?;
            let rc = p.timers.rtt_clock;
            if rc == tcplab_tcp::MeasurementClock::FINE {
                d.set_item("rtt_clock", "fine")?;
            } else if rc.phase.as_nanos() == 0 {
                d.set_item("rtt_clock", dur(rc.tick))?;
            } else {
                let t = PyDict::new(py);
                t.set_item("tick", dur(rc.tick))?;
                t.set_item("phase", dur(rc.phase))?;
                d.set_item("rtt_clock", t)?;
            }
            d.set_item("timer_clock", event_clock(py, p.timers.slow)?)?;
            d.set_item("fast_timer", event_clock(py, p.timers.fast)?)?;
            d.set_item("initial_rto", dur(p.rto.initial))?;
            d.set_item("min_rto", dur(p.rto.min))?;
            d.set_item("max_rto", dur(p.rto.max))?;
            d.set_item("clock_granularity", dur(p.rto.granularity))?;
            d.set_item("rto_gain_a", p.rto.gain_a.to_string())?;
            d.set_item("rto_gain_b", p.rto.gain_b.to_string())?;
            d.set_item("rto_m", p.rto.m.to_string())?;
            d.set_item("rto_k", p.rto.k.to_string())?;
            match p.dupack_threshold {
                DupAckThreshold::Fixed(n) => d.set_item("dupack_threshold", n)?,
                DupAckThreshold::Adaptive => d.set_item("dupack_threshold", "adaptive")?,
            }
            d.set_item("rtt_sampling", p.sampling.name())?;
            match p.initial_window {
                InitialWindow::Segments(n) => d.set_item("initial_window", n)?,
                InitialWindow::Rfc3390 => d.set_item("initial_window", "rfc3390")?,
                InitialWindow::Rfc6928 => d.set_item("initial_window", "rfc6928")?,
            }
            match p.delayed_ack {
                Some(t) => d.set_item("delayed_ack", dur(t))?,
                None => d.set_item("delayed_ack", false)?,
            }
            d.set_item("ssthresh_estimation", p.startup.ssthresh_estimation)?;
            d.set_item("pacing", p.startup.pacing)?;
            d.set_item("handshake_ack", p.handshake_ack.name())?;
            d.set_item("description", p.description)?;
            Ok(d)
        })
        .collect()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
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
    analyze::register(m)?;
    m.add_function(wrap_pyfunction!(rto_table::fig6_rto_table, m)?)?;
    Ok(())
}
