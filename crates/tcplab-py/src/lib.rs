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

mod analyze;

use numpy::PyArray1;
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use std::path::PathBuf;
use tcplab_netsim::spec::SimSpec;
use tcplab_record::{ColumnData, Table};

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
        let idx = self
            .tables
            .iter()
            .position(|t| t.name == name)
            .ok_or_else(|| PyValueError::new_err(format!("no table named {name:?}")))?;
        let table = std::mem::take(&mut self.tables[idx]);
        self.tables[idx].name = table.name.clone();
        let out = PyList::empty(py);
        for col in table.columns {
            let data: Bound<'py, PyAny> = match col.data {
                ColumnData::U64(v) => PyArray1::from_vec(py, v).into_any(),
                ColumnData::I64(v) => PyArray1::from_vec(py, v).into_any(),
                ColumnData::U32(v) => PyArray1::from_vec(py, v).into_any(),
                ColumnData::F64(v) => PyArray1::from_vec(py, v).into_any(),
                ColumnData::Bool(v) => PyArray1::from_vec(py, v).into_any(),
                ColumnData::Dict { codes, values } => {
                    let codes = PyArray1::from_vec(py, codes).into_any();
                    let values = PyList::new(py, values)?.into_any();
                    PyTuple::new(py, [codes, values])?.into_any()
                }
            };
            let valid: Bound<'py, PyAny> = match col.valid {
                Some(v) => PyArray1::from_vec(py, v).into_any(),
                None => py.None().into_bound(py),
            };
            let name = col.name.into_pyobject(py)?.into_any();
            out.append(PyTuple::new(py, [name, data, valid])?)?;
        }
        Ok(out)
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
    pcap: Vec<(String, String)>,
) -> PyResult<PyRunOutput> {
    let opts = tcplab_netsim::RunOptions {
        seed,
        trace,
        pcap: pcap.into_iter().map(|(l, p)| (l, PathBuf::from(p))).collect(),
    };
    let spec = &spec.spec;
    let out = py.detach(|| tcplab_netsim::run(spec, &opts)).map_err(scenario_err)?;
    let summary_json = serde_json::to_string(&out.summary)
        .map_err(|e| PyValueError::new_err(format!("summary serialization: {e}")))?;
    Ok(PyRunOutput { summary_json, tables: vec![out.flows, out.events, out.timeseries] })
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
    analyze::register(m)?;
    Ok(())
}
