//! What the caller of a run can do while it runs: stop it early, and take the trace tables
//! in chunks instead of all at the end ([`RunHooks`], given to [`super::run_with`]).
//!
//! The simulator calls [`RunHooks::poll`] every [`POLL_EVENTS`] events (`RunHooks::poll_every`), between two events,
//! so a hook sees a consistent state and a stopped run finishes like a complete one (its
//! summary and tables cover the events processed so far; [`super::RunOutput::stopped`] says
//! it was cut short). Polling is a counter test per event; the hook itself decides how often
//! it does real work (the Python binding looks at the wall clock and calls back into Python
//! at most every 100 ms).
//!
//! Streaming (issue 14 part 4, bounded memory whatever the duration): when
//! [`RunHooks::chunk_rows`] is `Some(n)`, at a poll point where the recorder holds at least
//! `n` rows the rows whose content is final are handed to [`RunHooks::trace_chunk`] and
//! dropped from memory. A row is final unless it is a retransmission whose spurious verdict
//! could still change (`ground_truth::SpuriousTracker::settle`): that row and every row after
//! it stay for a later chunk, so the rows reach the caller in the same order and with the
//! same content as in an unchunked run; only the chunk boundaries differ.

use super::SimError;
use tcplab_record::Table;
use tcplab_time::SimTime;

/// Events between two calls of [`RunHooks::poll`]. A power of two, so that the test on the
/// hot path is a mask; 2^16 events take 10–40 ms in a release build (docs/benchmarks.md:
/// 2–6 M events/s), which keeps a stop request well within the one second issue 14 asks.
pub const POLL_EVENTS: u64 = 1 << 16;

/// What the run does after a poll.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Control {
    Continue,
    /// End the run now: the results cover the events processed so far.
    Stop,
}

/// The caller's side of a running simulation.
pub trait RunHooks {
    /// Called every [`RunHooks::poll_every`] events with the current simulated time and the number of
    /// events processed so far.
    fn poll(&mut self, now: SimTime, events: u64) -> Control;

    /// Events between two polls, rounded up to a power of two ([`POLL_EVENTS`] unless a
    /// test wants to see chunks of a short run).
    fn poll_every(&self) -> u64 {
        POLL_EVENTS
    }

    /// Stream the trace in chunks of about this many rows (`None`: keep every row until the
    /// end of the run, the default).
    fn chunk_rows(&self) -> Option<usize> {
        None
    }

    /// A chunk of the `events` and `timeseries` tables (rows in run order, following the
    /// previous chunk). Called only when [`RunHooks::chunk_rows`] is `Some`; an error ends
    /// the run with that error.
    fn trace_chunk(&mut self, _events: Table, _timeseries: Table) -> Result<(), SimError> {
        Ok(())
    }
}

/// Hooks that never stop a run and keep the whole trace in memory (`run`).
#[derive(Copy, Clone, Debug, Default)]
pub struct NoHooks;

impl RunHooks for NoHooks {
    fn poll(&mut self, _now: SimTime, _events: u64) -> Control {
        Control::Continue
    }
}
