//! Bindings of the capture analyzer (tcplab-analyze): `analyze(paths, vantage)` returns an
//! `Analysis` holding `summary_json` and the `retransmissions` / `connections` tables, handed
//! to Python as numpy buffers (moved, not copied), like `RunOutput`.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;
use std::path::PathBuf;
use std::sync::Arc;

use tcplab_analyze::{analyze_paths, AnalyzeConfig, AnalyzeError, ConfigModel, SenderModel, VantageChoice};
use tcplab_tcp::{Profile, TcpConfig};
use tcplab_record::Table;

create_exception!(
    _core,
    CaptureError,
    PyValueError,
    "Nothing in the given captures could be analysed (no such file, not a capture): args are \
     (one-line message, [one line per file])."
);

create_exception!(_core, ModelError, PyValueError, "Unknown sender model name; one line.");

/// The result of `analyze`.
#[pyclass(name = "Analysis", module = "tcplab._core")]
struct PyAnalysis {
    #[pyo3(get)]
    summary_json: String,
    tables: Vec<Table>,
    /// With a scenario's models (`scenario_model`): each model's name, the `[[flows]]` ids
    /// and the `[[workloads]]` names it replays.
    #[pyo3(get)]
    scenario_models: Vec<(String, Vec<usize>, Vec<String>)>,
}

#[pymethods]
impl PyAnalysis {
    /// Columns of table `name` ("retransmissions" or "connections") as `(name, data, valid)`;
    /// each table can be taken once (its buffers move to numpy).
    fn table<'py>(&mut self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyList>> {
        crate::tables::take_table(py, &mut self.tables, name)
    }

    /// Writes each table not yet taken as `<name>.parquet` and `<name>.csv` into the existing
    /// directory `dir` (`analyze_write.rs`: the files pyarrow would write, each on a thread of
    /// its own), GIL released; an
    /// I/O failure is an `OSError` naming the file. Returns the names of the tables written.
    fn write(&self, py: Python<'_>, dir: PathBuf) -> PyResult<Vec<String>> {
        let tables: Vec<&Table> = self.tables.iter().filter(|t| !t.columns.is_empty()).collect();
        py.detach(|| crate::analyze_write::write_tables(&tables, &dir, true))
            .map_err(|e| pyo3::exceptions::PyOSError::new_err(e.0))?;
        Ok(tables.iter().map(|t| t.name.clone()).collect())
    }
}

/// The sender model named `model`: `rfc` (the engine's defaults: RFC 5681/6675/6298) or one
/// of the engine's OS profiles (`tcplab profiles`); `tlp` overrides whether it sends tail
/// loss probes (RFC 8985 §7).
pub(crate) fn sender_model(model: &str, tlp: Option<bool>) -> PyResult<ConfigModel> {
    let mut cfg = if model == RFC_MODEL {
        TcpConfig::default()
    } else {
        Profile::by_name(model).map(|p| p.config()).ok_or_else(|| {
            let names: Vec<&str> = [DEFAULT_MODEL, RFC_MODEL].into_iter().chain(Profile::names()).collect();
            ModelError::new_err(format!("--model: {model:?} is not one of {}", names.join(", ")))
        })?
    };
    if let Some(t) = tlp {
        cfg.tlp = t;
    }
    let name = if tlp == Some(true) { format!("{model}+tlp") } else { model.to_string() };
    Ok(ConfigModel::new(name, cfg))
}

/// The engine's own defaults as a model name (`--model rfc`).
const RFC_MODEL: &str = "rfc";
/// `--model auto` (the default): infer each connection's sender among
/// `tcplab_analyze::infer::DEFAULT_CANDIDATES` (issue 11 part 1).
const DEFAULT_MODEL: &str = "auto";

/// The analysis settings for `model`: `auto` replays every candidate profile (each with the
/// `tlp` override when given), any other name forces that model.
fn analyze_config(vantage: VantageChoice, model: &str, tlp: Option<bool>) -> PyResult<AnalyzeConfig> {
    if model != DEFAULT_MODEL {
        return Ok(AnalyzeConfig { vantage, model: Arc::new(sender_model(model, tlp)?), ..Default::default() });
    }
    let candidates: Vec<Arc<dyn SenderModel>> = tcplab_analyze::infer::DEFAULT_CANDIDATES
        .iter()
        .map(|n| sender_model(n, tlp).map(|m| Arc::new(ConfigModel::new(*n, m.config().clone())) as Arc<dyn SenderModel>))
        .collect::<PyResult<_>>()?;
    Ok(AnalyzeConfig { vantage, candidates: Some(candidates.into()), ..Default::default() })
}

/// What the analysis hands back to Python: the summary as JSON and the two tables, built on
/// the analysing thread (with the GIL released, or on the prefetch thread).
type Finished = Result<(String, Vec<Table>), AnalyzeError>;

/// Reads, analyses and tabulates `paths` (no Python involved: runs on any thread).
fn run_analysis(paths: &[PathBuf], cfg: &AnalyzeConfig) -> Finished {
    let a = analyze_paths(paths, cfg)?;
    Ok((a.summary_json(), vec![a.retransmissions_table(), a.connections_table()]))
}

/// The Python result of [`run_analysis`], or its `CaptureError`.
fn into_result(done: Finished, scenario_models: Vec<(String, Vec<usize>, Vec<String>)>) -> PyResult<PyAnalysis> {
    let (summary_json, tables) = done.map_err(|e| {
        let msg = e.to_string();
        let AnalyzeError::NothingAnalysable { errors } = e;
        CaptureError::new_err((msg, errors))
    })?;
    Ok(PyAnalysis { summary_json, tables, scenario_models })
}

fn parse_vantage(vantage: &str) -> PyResult<VantageChoice> {
    VantageChoice::parse(vantage).ok_or_else(|| {
        CaptureError::new_err(format!("--vantage: {vantage:?} is not one of auto, sender, receiver, middle"))
    })
}

/// Analyses the captures (GIL released). `paths`: any path (`str` with surrogate escapes
/// for bytes that are not UTF-8, as `os.fsdecode` gives; PyO3 turns them back into the same
/// bytes). `vantage`: auto, sender, receiver or middle; `model`: `auto` (infer each
/// connection's sender, [`analyze_config`]) or a name for [`sender_model`].
///
/// `scenario`: `(toml_text, name)` of the scenario that made the captures; each connection
/// is replayed with the settings of the flow that sent it (`scenario_model.rs`) and `model`
/// is not used.
#[pyfunction]
#[pyo3(signature = (paths, vantage, model = DEFAULT_MODEL, tlp = None, scenario = None))]
fn analyze(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    vantage: &str,
    model: &str,
    tlp: Option<bool>,
    scenario: Option<(String, String)>,
) -> PyResult<PyAnalysis> {
    let v = parse_vantage(vantage)?;
    let (cfg, scenario_models) = match &scenario {
        Some((text, name)) => {
            let m = crate::scenario_model::scenario_models(text, name, tlp)
                .map_err(|e| ModelError::new_err(format!("--scenario: {e}")))?;
            let picker = m.picker.map(|p| p as Arc<dyn tcplab_analyze::ModelPicker>);
            (AnalyzeConfig { vantage: v, model: Arc::new(m.default), picker, ..Default::default() }, m.groups)
        }
        None => (analyze_config(v, model, tlp)?, Vec::new()),
    };
    into_result(py.detach(|| run_analysis(&paths, &cfg)), scenario_models)
}

/// An analysis started early on a thread of its own ([`analyze_start`]); `result()` waits
/// for it.
#[pyclass(name = "PendingAnalysis", module = "tcplab._core")]
struct PyPendingAnalysis {
    /// Taken by the first `result()`.
    thread: Option<std::thread::JoinHandle<Finished>>,
}

#[pymethods]
impl PyPendingAnalysis {
    /// Waits for the analysis (GIL released) and returns what `analyze(paths, vantage,
    /// model, tlp)` returns, or raises what it raises (a panic of the analysing thread is
    /// resumed here, so it surfaces as it would from `analyze`). Once only: a second call is
    /// a `RuntimeError`.
    fn result(&mut self, py: Python<'_>) -> PyResult<PyAnalysis> {
        let thread = self
            .thread
            .take()
            .ok_or_else(|| pyo3::exceptions::PyRuntimeError::new_err("the pending analysis was already taken"))?;
        match py.detach(|| thread.join()) {
            Ok(done) => into_result(done, Vec::new()),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}

/// Starts `analyze(paths, vantage, model, tlp)` (no scenario) on a new thread, which never
/// touches Python, and returns at once. `tcplab analyze` calls it before its command line is
/// parsed (`python/tcplab/_prefetch.py`), so that the analysis overlaps importing click and
/// the parse. A bad `vantage` or `model` raises here, as `analyze` would, before any thread
/// starts.
#[pyfunction]
#[pyo3(signature = (paths, vantage, model = DEFAULT_MODEL, tlp = None))]
fn analyze_start(paths: Vec<PathBuf>, vantage: &str, model: &str, tlp: Option<bool>) -> PyResult<PyPendingAnalysis> {
    let cfg = analyze_config(parse_vantage(vantage)?, model, tlp)?;
    let thread = std::thread::Builder::new()
        .name("tcplab-analyze".into())
        .spawn(move || run_analysis(&paths, &cfg))
        .map_err(|e| pyo3::exceptions::PyOSError::new_err(format!("cannot start the analysing thread: {e}")))?;
    Ok(PyPendingAnalysis { thread: Some(thread) })
}

/// Adds the analyzer's function, class and exception to `tcplab._core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("CaptureError", m.py().get_type::<CaptureError>())?;
    m.add("ModelError", m.py().get_type::<ModelError>())?;
    m.add_class::<PyAnalysis>()?;
    m.add_class::<PyPendingAnalysis>()?;
    m.add_function(wrap_pyfunction!(analyze, m)?)?;
    m.add_function(wrap_pyfunction!(analyze_start, m)?)?;
    Ok(())
}
