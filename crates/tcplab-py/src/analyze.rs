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
    /// With a scenario's model (`scenario_model`): the flows whose `[tcp]` settings are not
    /// the ones replayed.
    #[pyo3(get)]
    other_flows: Vec<usize>,
}

#[pymethods]
impl PyAnalysis {
    /// Columns of table `name` ("retransmissions" or "connections") as `(name, data, valid)`;
    /// each table can be taken once (its buffers move to numpy).
    fn table<'py>(&mut self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyList>> {
        crate::tables::take_table(py, &mut self.tables, name)
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

/// The sender model of the scenario that made the capture (`tcplab analyze --scenario`,
/// issue 14 part 6): the `[tcp]` settings of its flows as resolved (profile, `[tcp]`,
/// per-flow `tcp`), so the replay applies the rules the simulated sender applied. The
/// analyzer replays one sender, so when flows differ (the dumbbell's flow 5 has another
/// initial window) the settings most flows share are replayed (a tie: the earliest flow's),
/// and the ids of the other flows are returned so that the caller can say so. `text` is the
/// scenario as TOML (a file, or the `provenance.scenario` of a run's summary.json).
fn scenario_model(text: &str, name: &str, tlp: Option<bool>) -> PyResult<(ConfigModel, Vec<usize>)> {
    let r = tcplab_netsim::scenario::resolve_str(text, name, &[])
        .map_err(|e| ModelError::new_err(format!("--scenario: {e}")))?;
    let spec = &r.spec;
    let all: Vec<&TcpConfig> = spec.flows.iter().map(|f| &f.tcp).chain(spec.workloads.iter().map(|w| w.tcp())).collect();
    // (settings, flows with them) in order of first appearance.
    let mut distinct: Vec<(&TcpConfig, usize)> = Vec::new();
    for c in &all {
        match distinct.iter_mut().find(|(d, _)| d == c) {
            Some(e) => e.1 += 1,
            None => distinct.push((c, 1)),
        }
    }
    let most = distinct.iter().map(|d| d.1).max().unwrap_or(0);
    let Some(&(chosen, _)) = distinct.iter().find(|d| d.1 == most) else {
        return Err(ModelError::new_err(format!("--scenario: scenario {:?} has no flows", spec.name)));
    };
    let others = spec.flows.iter().enumerate().filter(|(_, f)| &f.tcp != chosen).map(|(i, _)| i).collect();
    let mut cfg = chosen.clone();
    if let Some(t) = tlp {
        cfg.tlp = t;
    }
    Ok((ConfigModel::new(format!("scenario:{}", spec.name), cfg), others))
}

/// Analyses the captures (GIL released). `paths`: any path (`str` with surrogate escapes
/// for bytes that are not UTF-8, as `os.fsdecode` gives; PyO3 turns them back into the same
/// bytes). `vantage`: auto, sender, receiver or middle; `model`: `auto` (infer each
/// connection's sender, [`analyze_config`]) or a name for [`sender_model`].
///
/// `scenario`: `(toml_text, name)` of the scenario that made the captures; its senders'
/// settings are the model (see [`scenario_model`]) and `model` is not used.
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
    let v = VantageChoice::parse(vantage).ok_or_else(|| {
        CaptureError::new_err(format!("--vantage: {vantage:?} is not one of auto, sender, receiver, middle"))
    })?;
    let (cfg, other_flows) = match &scenario {
        Some((text, name)) => {
            let (m, others) = scenario_model(text, name, tlp)?;
            (AnalyzeConfig { vantage: v, model: Arc::new(m), ..Default::default() }, others)
        }
        None => (analyze_config(v, model, tlp)?, Vec::new()),
    };
    let a = py.detach(|| analyze_paths(&paths, &cfg)).map_err(|e| {
        let msg = e.to_string();
        let AnalyzeError::NothingAnalysable { errors } = e;
        CaptureError::new_err((msg, errors))
    })?;
    Ok(PyAnalysis {
        summary_json: a.summary_json(),
        tables: vec![a.retransmissions_table(), a.connections_table()],
        other_flows,
    })
}

/// Adds the analyzer's function, class and exception to `tcplab._core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("CaptureError", m.py().get_type::<CaptureError>())?;
    m.add("ModelError", m.py().get_type::<ModelError>())?;
    m.add_class::<PyAnalysis>()?;
    m.add_function(wrap_pyfunction!(analyze, m)?)?;
    Ok(())
}
