//! Pacer seam: spreading a window's growth over time on the event clock.
//!
//! A pacer receives small events (an ACK arrived, its timer fired) and returns a
//! [`PacingDecision`]: how many bytes of congestion window to grant now and when to be called
//! again. The sender applies it (raises cwnd, arms [`crate::timer::TimerKind::Pacing`], which
//! runs on the slow event clock — Aron & Druschel's f_ev). Sending itself stays governed by
//! cwnd, so a pacer can never make the sender exceed the window it granted.
//!
//! | file | pacer |
//! |---|---|
//! | [`aron98`] | 000 §4.2.2: N = MIN(p − d, RTT·f_ev) segments at T = MAX(1/f_ev, 1/bw) until cwnd reaches pthresh |

pub mod aron98;

pub use aron98::{PacingPhase, SlowStartPacer};

use crate::startup::Rate;
use tcplab_time::{SimDuration, SimTime};

/// What the pacer needs to know, on every call.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PacingEvent {
    pub now: SimTime,
    /// Current cwnd and bytes outstanding (SND.NXT − SND.UNA).
    pub cwnd: u64,
    pub flight: u64,
    pub smss: u64,
    /// 000 §4.2.1: pthresh = estimated ssthresh / 2 (bytes).
    pub pthresh: u64,
    /// Estimated bandwidth.
    pub rate: Rate,
    /// Smoothed RTT.
    pub srtt: SimDuration,
    /// 1/f_ev: the granularity of the clock the pacing timer runs on.
    pub ev_tick: SimDuration,
}

/// The pacer's answer.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct PacingDecision {
    /// Bytes to add to cwnd now (one paced segment, at most up to pthresh).
    pub grant: u64,
    /// Arm the pacing timer this long from now (`None`: leave it alone).
    pub arm: Option<SimDuration>,
    /// Pacing is over for this connection: cancel the timer.
    pub done: bool,
}

/// A pacer.
pub trait Pacer: std::fmt::Debug + Send {
    /// An ACK of new data arrived (after the sender applied it).
    fn on_ack(&mut self, ev: &PacingEvent) -> PacingDecision;
    /// The pacing timer fired.
    fn on_timer(&mut self, ev: &PacingEvent) -> PacingDecision;
    /// Paced segments released so far (for tests and traces).
    fn released(&self) -> u64;
    fn clone_box(&self) -> Box<dyn Pacer>;
}

/// `Clone` for the boxed trait object, so that the structs holding one derive `Clone` (a
/// forked model is a field-by-field copy; nothing is hand-written per field).
impl Clone for Box<dyn Pacer> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}
