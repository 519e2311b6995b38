//! The run's hooks on the Python side (`tcplab_netsim::RunHooks`): the simulation runs with
//! the GIL released and, every `CHECK_EVENTS` events, [`PyHooks::check`] looks at the wall
//! clock; at most every [`POLL_INTERVAL`] it takes the GIL, runs Python's signal handlers
//! (`Python::check_signals`) and calls the Python object's `poll(sim_ns, events)`, which
//! returns whether to go on (`python/tcplab/longrun.py`). Trace chunks go to its
//! `chunk(events, timeseries, queues, new_flows)`.
//!
//! A Python exception in a hook (a `KeyboardInterrupt` from the default SIGINT handler, an
//! error writing a chunk) stops the run; the binding raises it once the run has ended.

use pyo3::prelude::*;
use std::time::{Duration, Instant};
use tcplab_netsim::sim::run_control::CHECK_EVENTS;
use tcplab_netsim::{Control, RunHooks, SimError, TraceChunk};
use tcplab_time::SimTime;

/// Wall time between two calls into Python: a small part of the second issue 14 allows a
/// Ctrl-C (the rest goes to writing the rows held and leaving), long enough that the calls
/// cost nothing measurable (one call, 20-50 µs, every 20 ms: at most 0.25 %).
pub(crate) const POLL_INTERVAL: Duration = Duration::from_millis(20);

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
    fn check_every(&self) -> u64 {
        CHECK_EVENTS
    }

    fn check(&mut self, now: SimTime, events: u64) -> Control {
        self.poll(now, events)
    }

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

    fn trace_chunk(&mut self, chunk: TraceChunk) -> Result<(), SimError> {
        let Some(obj) = &self.obj else { return Ok(()) };
        let r = Python::attach(|py| -> PyResult<()> {
            let TraceChunk { events, timeseries, queues, new_flows, first_new_flow } = chunk;
            let with_queues = queues.is_some();
            let mut tables = vec![events, timeseries];
            tables.extend(queues);
            let ev = crate::tables::take_table(py, &mut tables, "events")?;
            let ts = crate::tables::take_table(py, &mut tables, "timeseries")?;
            let q = if with_queues { Some(crate::tables::take_table(py, &mut tables, "queues")?) } else { None };
            obj.call_method1(py, "chunk", (ev, ts, q, (first_new_flow, new_flows)))?;
            Ok(())
        });
        r.map_err(|e| {
            let msg = Python::attach(|py| e.value(py).to_string());
            self.error.get_or_insert(e);
            SimError::TraceChunk(msg)
        })
    }
}
