//! The run's hooks on the Python side (`tcplab_netsim::RunHooks`): the simulation runs with
//! the GIL released and, every `POLL_EVENTS` events, [`PyHooks::poll`] looks at the wall
//! clock; at most every [`POLL_INTERVAL`] it takes the GIL, runs Python's signal handlers
//! (`Python::check_signals`) and calls the Python object's `poll(sim_ns, events)`, which
//! returns whether to go on (`python/tcplab/longrun.py`). Trace chunks go to its
//! `chunk(events, timeseries)`.
//!
//! A Python exception in a hook (a `KeyboardInterrupt` from the default SIGINT handler, an
//! error writing a chunk) stops the run; the binding raises it once the run has ended.

use pyo3::prelude::*;
use std::time::{Duration, Instant};
use tcplab_netsim::{Control, RunHooks, SimError};
use tcplab_record::Table;
use tcplab_time::SimTime;

/// Wall time between two calls into Python: short enough that Ctrl-C stops a run well
/// within the second issue 14 asks, long enough that the calls cost nothing measurable.
pub(crate) const POLL_INTERVAL: Duration = Duration::from_millis(100);

pub(crate) struct PyHooks {
    /// The Python hooks object (`None`: only signals are checked).
    obj: Option<Py<PyAny>>,
    chunk_rows: Option<usize>,
    last: Instant,
    /// The first Python exception a hook raised.
    pub(crate) error: Option<PyErr>,
}

impl PyHooks {
    pub(crate) fn new(py: Python<'_>, obj: Option<Py<PyAny>>) -> PyResult<Self> {
        let chunk_rows = match &obj {
            Some(o) => o.getattr(py, "chunk_rows")?.extract::<Option<usize>>(py)?,
            None => None,
        };
        Ok(PyHooks { obj, chunk_rows, last: Instant::now(), error: None })
    }

    fn fail(&mut self, e: PyErr) -> Control {
        self.error.get_or_insert(e);
        Control::Stop
    }
}

impl RunHooks for PyHooks {
    fn poll(&mut self, now: SimTime, events: u64) -> Control {
        if self.error.is_some() {
            return Control::Stop;
        }
        if self.last.elapsed() < POLL_INTERVAL {
            return Control::Continue;
        }
        self.last = Instant::now();
        let r = Python::attach(|py| -> PyResult<bool> {
            py.check_signals()?;
            match &self.obj {
                Some(o) => o.call_method1(py, "poll", (now.as_nanos(), events))?.extract::<bool>(py),
                None => Ok(true),
            }
        });
        match r {
            Ok(true) => Control::Continue,
            Ok(false) => Control::Stop,
            Err(e) => self.fail(e),
        }
    }

    fn chunk_rows(&self) -> Option<usize> {
        self.chunk_rows
    }

    fn trace_chunk(&mut self, events: Table, timeseries: Table) -> Result<(), SimError> {
        let Some(obj) = &self.obj else { return Ok(()) };
        let r = Python::attach(|py| -> PyResult<()> {
            let mut tables = [events, timeseries];
            let ev = crate::tables::take_table(py, &mut tables, "events")?;
            let ts = crate::tables::take_table(py, &mut tables, "timeseries")?;
            obj.call_method1(py, "chunk", (ev, ts))?;
            Ok(())
        });
        r.map_err(|e| {
            let msg = Python::attach(|py| e.value(py).to_string());
            self.error.get_or_insert(e);
            SimError::TraceChunk(msg)
        })
    }
}
