//! Reading, decoding and connection tracking on a thread of their own (issue 10 part 5:
//! `tcplab analyze` faster than `tcptrace -n -l` end to end).
//!
//! [`for_each_tracked`] drives a [`CaptureReader`] and a [`ConnTracker`] and hands every TCP
//! segment, with the tracker's [`Observation`] of it and the connections its arrival
//! finished, to a callback, in capture order. With [`Threading::Pipelined`] the reader and
//! the tracker run on a second thread and the callback (the analyzer's replay) on the
//! calling one, so on a machine with a free core the two overlap: the analysis then waits
//! only for the slower of the two halves instead of their sum. The callback sees exactly the
//! same sequence as with [`Threading::OneThread`] (the tracker is still fed in capture order,
//! by one thread), so results do not depend on the threading.
//!
//! How segments cross: in batches of [`BATCH_SEGMENTS`] through a bounded channel of
//! [`BATCHES_IN_FLIGHT`] full batches; emptied batches go back to the reading thread through
//! a second channel and are refilled, so after the first batches no memory is allocated per
//! packet. A segment is not copied either: each batch slot is a box the reader decodes into
//! and swaps with its own (`CaptureReader::next_into`; copying the ≈190-byte segment into
//! the batch was 2.5 % of the instructions of the whole analysis on the SACK-heavy capture,
//! docs/benchmarks.md, session 8). A
//! connection the tracker finishes is recorded with the index of the segment whose arrival
//! finished it, and handed out just before that segment, as
//! [`ConnTracker::drain_finished`] gives it to a caller that observes one segment at a time.
//!
//! Ambiguity resolved: the reading thread runs ahead of the analysis by at most
//! `BATCHES_IN_FLIGHT + 1` batches (memory bounded at about 0.4 MB per batch); a panic on
//! either thread propagates to the caller as it would on one thread.

use std::sync::mpsc::sync_channel;

use crate::conn_tracker::{ConnRecord, ConnTracker, Observation};
use crate::reader::CaptureReader;
use crate::segment::CapturedSegment;

/// Segments per batch handed from the reading thread to the analysing one. Each hand-over
/// may find the other thread waiting (the channel then spins and yields before it sleeps):
/// on the SACK-heavy capture (docs/benchmarks.md, session 6) the CPU added by pipelining was
/// about 0.037 s with 512 segments per batch and about 0.02 s with 2048 or 4096; 2048 x about
/// 190 bytes is 0.4 MB per batch, a negligible change of the analysis' peak memory (30 MB).
pub const BATCH_SEGMENTS: usize = 2048;

/// Full batches queued between the threads: lets the reading thread run ahead across a
/// burst of slow-to-analyse segments (a SACK-heavy recovery) without unbounded memory.
pub const BATCHES_IN_FLIGHT: usize = 4;

/// How [`for_each_tracked`] runs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Threading {
    /// Reader, tracker and callback on the calling thread.
    OneThread,
    /// Reader and tracker on a second thread, the callback on the calling one.
    Pipelined,
    /// `Pipelined` when the machine reports more than one core
    /// (`std::thread::available_parallelism`), else `OneThread`.
    Auto,
}

impl Threading {
    /// What `Auto` resolves to on this machine; the others as they are.
    pub fn resolve(self) -> Threading {
        match self {
            Threading::Auto => match std::thread::available_parallelism() {
                Ok(n) if n.get() > 1 => Threading::Pipelined,
                _ => Threading::OneThread,
            },
            t => t,
        }
    }
}

/// One segment as the tracker saw it, handed to [`for_each_tracked`]'s callback.
#[derive(Copy, Clone, Debug)]
pub struct Tracked<'a> {
    pub seg: &'a CapturedSegment,
    pub obs: Observation,
    /// The connections the tracker finished when this segment arrived (before it was
    /// applied), in the tracker's order: what `drain_finished` returns right after
    /// `observe(seg)`.
    pub finished: &'a [ConnRecord],
}

/// A batch of tracked segments (see the module doc).
struct Batch {
    /// The boxes are allocated on a slot's first fill and kept: `segs[..obs.len()]` hold
    /// this fill's segments, any others the boxes last swapped in (content unspecified).
    /// Boxed on purpose: a box is what the reader swaps with its own slot instead of copying
    /// the segment (`CaptureReader::next_into`).
    #[allow(clippy::vec_box)]
    segs: Vec<Box<CapturedSegment>>,
    /// The tracker's observation of each segment of this fill.
    obs: Vec<Observation>,
    /// The connections finished while the batch was filled, in order, and beside each the
    /// index in `segs` of the segment whose arrival finished it.
    finished: Vec<ConnRecord>,
    finished_at: Vec<usize>,
}

impl Batch {
    fn new() -> Batch {
        Batch { segs: Vec::with_capacity(BATCH_SEGMENTS), obs: Vec::with_capacity(BATCH_SEGMENTS), finished: Vec::new(), finished_at: Vec::new() }
    }

    /// Reads and tracks up to `BATCH_SEGMENTS` segments into the (emptied) batch; `false`
    /// once the reader is exhausted.
    fn fill(&mut self, reader: &mut CaptureReader, tracker: &mut ConnTracker) -> bool {
        self.obs.clear();
        self.finished.clear();
        self.finished_at.clear();
        while self.obs.len() < BATCH_SEGMENTS {
            let i = self.obs.len();
            if i == self.segs.len() {
                // First fill of this slot: its box (once per slot and batch, not per packet).
                self.segs.push(Box::new(CapturedSegment::blank()));
            }
            if !reader.next_into(&mut self.segs[i]) {
                return false;
            }
            let obs = tracker.observe(&self.segs[i]);
            for r in tracker.drain_finished() {
                self.finished.push(r);
                self.finished_at.push(i);
            }
            self.obs.push(obs);
        }
        true
    }

    /// Hands every segment of the batch to `each`, in order.
    fn hand_out(&self, each: &mut impl FnMut(Tracked<'_>)) {
        let mut f = 0;
        for (i, (seg, obs)) in self.segs.iter().zip(&self.obs).enumerate() {
            let start = f;
            while f < self.finished_at.len() && self.finished_at[f] == i {
                f += 1;
            }
            each(Tracked { seg, obs: *obs, finished: &self.finished[start..f] });
        }
    }
}

/// Reads `reader` to its end, observes every segment with `tracker` and calls `each` for it,
/// in capture order (see the module doc for `threading`). The tracker is left as after the
/// last `observe` (call [`ConnTracker::finish`] for the connections still open).
pub fn for_each_tracked(
    reader: &mut CaptureReader,
    tracker: &mut ConnTracker,
    threading: Threading,
    mut each: impl FnMut(Tracked<'_>),
) {
    if threading.resolve() == Threading::OneThread {
        let mut finished = Vec::new();
        while let Some(seg) = reader.next_ref() {
            let obs = tracker.observe(seg);
            finished.clear();
            finished.extend(tracker.drain_finished());
            each(Tracked { seg, obs, finished: &finished });
        }
        return;
    }
    std::thread::scope(|s| {
        // Both channels live inside the scope's closure: if `each` panics, unwinding drops
        // `full_rx` and `empty_tx` before the scope waits for the reading thread, whose next
        // `send` or `recv` then fails and ends it (the panic reaches the caller instead of
        // the two threads waiting for each other).
        let (full_tx, full_rx) = sync_channel::<Batch>(BATCHES_IN_FLIGHT);
        let (empty_tx, empty_rx) = sync_channel::<Batch>(BATCHES_IN_FLIGHT + 1);
        for _ in 0..=BATCHES_IN_FLIGHT {
            // Cannot fail: the receiver is alive and the channel has room for all of them.
            let _ = empty_tx.send(Batch::new());
        }
        let reading = s.spawn(move || {
            while let Ok(mut b) = empty_rx.recv() {
                let more = b.fill(reader, tracker);
                if full_tx.send(b).is_err() || !more {
                    break;
                }
            }
            // `full_tx` dropped here: the analysing loop below ends after the last batch.
        });
        for b in full_rx.iter() {
            b.hand_out(&mut each);
            // The reading thread may have finished (its receiver dropped): nothing to do.
            let _ = empty_tx.send(b);
        }
        // Joined here rather than left to the scope: the scope only waits until the thread's
        // closure has returned, and the operating-system thread may then still be running
        // its thread-local destructors after this function returns (the `analyzer` fuzz
        // target's leak check caught glibc's `__cxa_thread_atexit_impl` record of such a
        // thread, 2026-11-25). `join` waits for the thread itself; a panic of the reading
        // thread reaches the caller as before.
        if let Err(panic) = reading.join() {
            std::panic::resume_unwind(panic);
        }
    });
}
