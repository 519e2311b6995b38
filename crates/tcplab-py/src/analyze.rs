//! Bindings of the capture analyzer (tcplab-analyze): `analyze(paths, vantage)` returns an
//! `Analysis` holding `summary_json` and the `retransmissions` / `connections` tables, handed
//! to Python as numpy buffers (moved, not copied), like `RunOutput`.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;
use tcplab_analyze::{analyze_paths, AnalyzeConfig, VantageChoice};
use tcplab_record::Table;

create_exception!(
    _core,
    CaptureError,
    PyValueError,
    "Nothing in the given captures could be analysed (no such file, not a capture); one line."
);

/// The result of `analyze`.
#[pyclass(name = "Analysis", module = "tcplab._core")]
struct PyAnalysis {
    #[pyo3(get)]
    summary_json: String,
    tables: Vec<Table>,
}

#[pymethods]
impl PyAnalysis {
    /// Columns of table `name` ("retransmissions" or "connections") as `(name, data, valid)`;
    /// each table can be taken once (its buffers move to numpy).
    fn table<'py>(&mut self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyList>> {
        crate::tables::take_table(py, &mut self.tables, name)
    }
}

/// Analyses the captures (GIL released). `vantage`: auto, sender, receiver or middle.
#[pyfunction]
#[pyo3(signature = (paths, vantage))]
fn analyze(py: Python<'_>, paths: Vec<String>, vantage: &str) -> PyResult<PyAnalysis> {
    let v = VantageChoice::parse(vantage).ok_or_else(|| {
        CaptureError::new_err(format!("--vantage: {vantage:?} is not one of auto, sender, receiver, middle"))
    })?;
    let cfg = AnalyzeConfig { vantage: v, ..Default::default() };
    let a = py.detach(|| analyze_paths(&paths, &cfg)).map_err(|e| CaptureError::new_err(e.to_string()))?;
    Ok(PyAnalysis { summary_json: a.summary_json(), tables: vec![a.retransmissions_table(), a.connections_table()] })
}

/// Adds the analyzer's function, class and exception to `tcplab._core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("CaptureError", m.py().get_type::<CaptureError>())?;
    m.add_class::<PyAnalysis>()?;
    m.add_function(wrap_pyfunction!(analyze, m)?)?;
    Ok(())
}
