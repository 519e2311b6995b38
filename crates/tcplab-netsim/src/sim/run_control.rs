//! What the caller of a run can do while it runs: stop it early, and take the trace tables
//! in chunks instead of all at the end ([`RunHooks`], given to [`super::run_with`]).
//!
//! The simulator calls [`RunHooks::poll`] every [`POLL_EVENTS`] events (`RunHooks::poll_every`), between two events,
//! so a hook sees a consistent state and a stopped run finishes like a complete one (its
//! summary and tables cover the events processed so far; [`super::RunOutput::stopped`] says
//! it was cut short). Between two polls, [`RunHooks::check`] is called every
//! [`RunHooks::check_every`] events: a cheap question "stop now?" that costs the simulator
//! nothing else (no settling of the ground truth, no chunk), so that a stop request is seen
//! within a few milliseconds of simulation even on a loaded machine. Both are a counter test
//! per event; the hook itself decides how often it does real work (the Python binding looks
//! at the wall clock and calls back into Python at most every 20 ms).
//!
//! Streaming (issue 14 part 4, bounded memory whatever the duration): when
//! [`RunHooks::chunk_rows`] is `Some(n)`, at a poll or check point where the recorder holds
//! at least `n` rows the rows whose content is final are handed to [`RunHooks::trace_chunk`]
//! and dropped from memory (at checks too, because one event can write hundreds of rows: a
//! 1 ms sample of 180 flows and 14 RED queues made chunks of 900 000 rows between polls). A row is final unless it is a retransmission whose spurious verdict
//! could still change (`ground_truth::SpuriousTracker::settle`): that row and every row after
//! it stay for a later chunk, so the rows reach the caller in the same order and with the
//! same content as in an unchunked run; only the chunk boundaries differ. The `queues` table
//! (RED queues) has no verdict to wait for: all of its rows go with every chunk. Each chunk
//! also names the `[[workloads]]` entry of every connection opened since the previous one
//! ([`TraceChunk::new_flows`]), so the caller can label rows of workload connections by
//! their workload while the run goes on.

use super::SimError;
use tcplab_record::Table;
use tcplab_time::SimTime;

/// Events between two calls of [`RunHooks::poll`]. A power of two, so that the test on the
/// hot path is a mask; 2^16 events take 10–40 ms in a release build (docs/benchmarks.md:
/// 2–6 M events/s), which keeps a stop request well within the one second issue 14 asks.
pub const POLL_EVENTS: u64 = 1 << 16;

/// Events between two calls of [`RunHooks::check`] in the Python binding: 2^12 events take
/// 1–2 ms in a release build, 10–20 ms when the process gets a tenth of a CPU.
pub const CHECK_EVENTS: u64 = 1 << 12;

/// A piece of the trace handed over during a run ([`RunHooks::trace_chunk`]).
#[derive(Debug)]
pub struct TraceChunk {
    pub events: Table,
    pub timeseries: Table,
    /// The `queues` rows since the previous chunk; `None` when the run has no RED queue
    /// (and so no `queues` table).
    pub queues: Option<Table>,
    /// For each connection opened since the previous chunk, in flow-id order starting at
    /// [`TraceChunk::first_new_flow`]: the name of the `[[workloads]]` entry that opened it
    /// (`None` for a `[[flows]]` entry, named by the scenario).
    pub new_flows: Vec<Option<String>>,
    /// Flow id of `new_flows[0]`.
    pub first_new_flow: u32,
}

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

    /// Called every [`RunHooks::check_every`] events that are not a poll: only whether to
    /// stop (no chunk is offered). The default never stops.
    fn check(&mut self, _now: SimTime, _events: u64) -> Control {
        Control::Continue
    }

    /// Events between two checks, rounded up to a power of two; a value at or above
    /// [`RunHooks::poll_every`] means no checks between polls (the default).
    fn check_every(&self) -> u64 {
        self.poll_every()
    }

    /// Stream the trace in chunks of about this many rows (`None`: keep every row until the
    /// end of the run, the default).
    fn chunk_rows(&self) -> Option<usize> {
        None
    }

    /// A chunk of the trace tables (rows in run order, following the previous chunk).
    /// Called only when [`RunHooks::chunk_rows`] is `Some`; an error ends the run with that
    /// error.
    fn trace_chunk(&mut self, _chunk: TraceChunk) -> Result<(), SimError> {
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
