//! Binding of the what-if replay (`tcplab_analyze::whatif`, 003 §IV-C/D): `whatif(paths,
//! vantage, model, tlp, points, only, on_rows=None, batch_rows=16384)` returns a `WhatIf`
//! with the `whatif`, `retransmissions` and `connections` tables and per-capture errors.
//! With `on_rows`, the `whatif` rows are not kept: each batch of whole connections (at least
//! `batch_rows` rows, in the table's order) is handed to `on_rows(columns)` as the
//! connections finish (the GIL taken for the call), and the returned `whatif` table is empty
//! (its columns only); an exception in `on_rows` stops the pass and is raised. Grid points come from
//! Python as tuples (`tcplab.whatif.grid` reads grid files); `only` names parameters to
//! cross with 003's values; neither: 003's default grid.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::Arc;

use tcplab_analyze::whatif::grid::{default_grid, only_grid, GridPoint, GridSet, Param};
use tcplab_analyze::whatif::trace::MAX_DUPACK_TIMES;
use tcplab_analyze::whatif::{output, whatif_stream, RowBatch, TableMeta, WhatIfConfig};
use tcplab_analyze::{AnalyzeConfig, AnalyzeError, VantageChoice};
use tcplab_record::Table;
use tcplab_tcp::config::{DupAckThreshold, Ratio};
use tcplab_time::SimDuration;

use crate::analyze::{sender_model, CaptureError};

/// A grid point from Python: (D: int or "adaptive" or None, a, b, m, k: (num, den) or None,
/// min_rto_ns or None).
type PyPoint = (Option<String>, Option<(u32, u32)>, Option<(u32, u32)>, Option<(u32, u32)>, Option<(u32, u32)>, Option<u64>);

/// The result of `whatif`.
#[pyclass(name = "WhatIf", module = "tcplab._core")]
struct PyWhatIf {
    /// Per input capture: `(path, error or None)`.
    #[pyo3(get)]
    captures: Vec<(String, Option<String>)>,
    #[pyo3(get)]
    grid_points: usize,
    tables: Vec<Table>,
}

#[pymethods]
impl PyWhatIf {
    /// Columns of table `name` (`whatif`, `retransmissions`, `connections`); once each.
    fn table<'py>(&mut self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyList>> {
        crate::tables::take_table(py, &mut self.tables, name)
    }
}

fn ratio(what: &str, r: Option<(u32, u32)>) -> PyResult<Option<Ratio>> {
    match r {
        None => Ok(None),
        Some((n, d)) if d > 0 && n > 0 => Ok(Some(Ratio::new(n, d))),
        Some((n, d)) => Err(PyValueError::new_err(format!("{what}: {n}/{d} is not a positive fraction"))),
    }
}

fn point(p: PyPoint) -> PyResult<GridPoint> {
    let d = match p.0.as_deref() {
        None => None,
        Some("adaptive") => Some(DupAckThreshold::Adaptive),
        Some(s) => match s.parse::<u32>() {
            Ok(n) if (1..=MAX_DUPACK_TIMES as u32).contains(&n) => Some(DupAckThreshold::Fixed(n)),
            _ => return Err(PyValueError::new_err(format!("D: {s:?} is not 1..{MAX_DUPACK_TIMES} or \"adaptive\""))),
        },
    };
    Ok(GridPoint {
        set: GridSet::Custom,
        d,
        a: ratio("a", p.1)?,
        b: ratio("b", p.2)?,
        m: ratio("m", p.3)?,
        k: ratio("k", p.4)?,
        min_rto: p.5.map(SimDuration),
    })
}

/// `--model auto`: the sender OS inference chooses each connection's model.
const AUTO_MODEL: &str = "auto";

/// Rows per batch handed to `on_rows` by default: a Parquet row group of the `whatif`
/// table (16384 rows of 37 columns: about 4 MB as Arrow, the bound of what the streamed
/// output holds beside the open connections; 003's 725-point grid: 22 connections a batch).
const BATCH_ROWS: usize = 16_384;

/// Runs the what-if study (GIL released, taken only to call `on_rows`).
#[pyfunction]
#[pyo3(signature = (paths, vantage, model = AUTO_MODEL, tlp = None, points = None, only = None, on_rows = None, batch_rows = BATCH_ROWS))]
#[allow(clippy::too_many_arguments)]
fn whatif(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    vantage: &str,
    model: &str,
    tlp: Option<bool>,
    points: Option<Vec<PyPoint>>,
    only: Option<Vec<String>>,
    on_rows: Option<Py<PyAny>>,
    batch_rows: usize,
) -> PyResult<PyWhatIf> {
    let v = VantageChoice::parse(vantage).ok_or_else(|| {
        CaptureError::new_err(format!("--vantage: {vantage:?} is not one of auto, sender, receiver, middle"))
    })?;
    let grid = match (points, only) {
        (Some(ps), _) => ps.into_iter().map(point).collect::<PyResult<Vec<_>>>()?,
        (None, Some(names)) => {
            let params = names
                .iter()
                .map(|n| Param::parse(n).ok_or_else(|| PyValueError::new_err(format!("--only: {n:?} is not one of D, a, b, m, k, minRTO"))))
                .collect::<PyResult<Vec<_>>>()?;
            only_grid(&params)
        }
        (None, None) => default_grid(),
    };
    // `auto`: every candidate profile records the connection and its inferred model is used
    // (tcplab_analyze::infer); otherwise the named model.
    let analyze = if model == AUTO_MODEL {
        AnalyzeConfig { vantage: v, ..AnalyzeConfig::auto() }
    } else {
        AnalyzeConfig { vantage: v, model: Arc::new(sender_model(model, tlp)?), ..Default::default() }
    };
    let cfg = WhatIfConfig { analyze, grid };
    let mut failed: Option<PyErr> = None;
    let mut kept = RowBatch::default();
    let streaming = on_rows.is_some();
    let mut sink = |meta: &TableMeta<'_>, b: &RowBatch| match &on_rows {
        None => {
            kept.conns.extend_from_slice(&b.conns);
            kept.events.extend_from_slice(&b.events);
            kept.delta_s.extend_from_slice(&b.delta_s);
            ControlFlow::Continue(())
        }
        Some(f) => {
            let mut t = [output::whatif_table(meta, b)];
            Python::attach(|py| match crate::tables::take_table(py, &mut t, "whatif").and_then(|cols| f.call1(py, (cols,))) {
                Ok(_) => ControlFlow::Continue(()),
                Err(e) => {
                    failed = Some(e);
                    ControlFlow::Break(())
                }
            })
        }
    };
    let batch = if streaming { batch_rows.max(1) } else { usize::MAX };
    let w = py.detach(|| whatif_stream(&paths, &cfg, batch, &mut sink)).map_err(|e| {
        let msg = e.to_string();
        let AnalyzeError::NothingAnalysable { errors } = e;
        CaptureError::new_err((msg, errors))
    });
    if let Some(e) = failed {
        return Err(e);
    }
    let w = w?;
    let captures = w.captures.iter().zip(&w.errors).map(|(c, e)| (c.path.clone(), e.clone())).collect();
    Ok(PyWhatIf {
        captures,
        grid_points: cfg.grid.len(),
        tables: vec![output::whatif_table(&w.meta(), &kept), w.retransmissions_table(), w.connections_table()],
    })
}

/// Adds the what-if function and class to `tcplab._core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyWhatIf>()?;
    m.add_function(wrap_pyfunction!(whatif, m)?)?;
    Ok(())
}
