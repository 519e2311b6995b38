//! The sender's side of Aron & Druschel's startup mechanisms (000 §4.2): feeding the startup
//! policy with ACKs of the initial slow start, applying its ssthresh estimates, and running
//! the pacer on the pacing timer. The algorithms live in [`crate::startup::ssthresh_estimation`]
//! and [`crate::pacing`]; this file only applies their decisions.
//!
//! The initial slow start ends (estimation and pacing stop) when the sender is in fast
//! recovery or timeout recovery, or when ssthresh is no longer the value the startup policy
//! left (a loss response changed it).

use super::Sender;
use crate::loss::RecoveryPhase;
use crate::pacing::{Pacer, PacingDecision, PacingEvent, SlowStartPacer};
use crate::startup::{Rate, StartupAckEvent};
use crate::timer::{TimerKind, Timers};
use tcplab_time::SimTime;

/// The sender's startup bookkeeping.
#[derive(Clone, Debug)]
pub struct StartupState {
    /// Still in the initial slow start (no loss yet) and some mechanism is on.
    active: bool,
    /// The ssthresh the startup policy (or the configuration) last set.
    ssthresh_set: u64,
    /// Pacer, when pacing is on.
    pacer: Option<Box<dyn Pacer>>,
    /// 000 §4.2.1: pthresh = ssthresh / 2 and the bandwidth estimate, once estimated.
    pub pthresh: Option<(u64, Rate)>,
}

/// 000 §4.2.1: "The value of pthresh is then set to half the value of the estimated
/// ssthresh."
pub const PTHRESH_DIVISOR: u64 = 2;

impl StartupState {
    pub fn new(cfg: &crate::config::TcpConfig) -> Self {
        StartupState {
            active: cfg.startup.ssthresh_estimation,
            ssthresh_set: cfg.initial_ssthresh,
            pacer: (cfg.startup.ssthresh_estimation && cfg.startup.pacing)
                .then(|| Box::new(SlowStartPacer::new()) as Box<dyn Pacer>),
            pthresh: None,
        }
    }
    /// Paced segments released so far.
    pub fn paced(&self) -> u64 {
        self.pacer.as_ref().map_or(0, |p| p.released())
    }
}

impl Sender {
    /// Ends the initial slow start if a loss happened; true while it goes on.
    fn startup_going_on(&mut self, timers: &mut Timers) -> bool {
        if !self.ss.active {
            return false;
        }
        let lossy = matches!(self.phase, RecoveryPhase::Recovery { .. } | RecoveryPhase::Loss { .. });
        if lossy || self.cc.ssthresh != self.ss.ssthresh_set {
            self.ss.active = false;
            self.ss.pacer = None;
            self.startup.on_slow_start_end();
            timers.cancel(TimerKind::Pacing);
            return false;
        }
        true
    }

    fn pacing_event(&self, now: SimTime, timers: &Timers) -> Option<PacingEvent> {
        let (pthresh, rate) = self.ss.pthresh?;
        let srtt = self.rtt.srtt()?;
        Some(PacingEvent {
            now,
            cwnd: self.cc.cwnd,
            flight: self.flight_size(),
            smss: self.smss,
            pthresh,
            rate,
            srtt,
            ev_tick: timers.clock_of(TimerKind::Pacing).granularity(),
        })
    }

    fn apply_pacing(&mut self, now: SimTime, d: PacingDecision, timers: &mut Timers) {
        if d.done {
            self.ss.pacer = None;
            timers.cancel(TimerKind::Pacing);
            return;
        }
        // The grant raises cwnd by at most one segment and never above pthresh (the pacer's
        // contract); the ordinary sending rules then send what cwnd allows.
        self.cc.cwnd = self.cc.cwnd.saturating_add(d.grant);
        if let Some(after) = d.arm {
            timers.arm(TimerKind::Pacing, now, after);
        }
    }

    /// 000 §4.2: an ACK of new data (called after the ACK was applied).
    pub(super) fn startup_on_ack(
        &mut self,
        now: SimTime,
        bytes_acked: u64,
        newest_sent: Option<SimTime>,
        timers: &mut Timers,
    ) {
        if bytes_acked == 0 || !self.startup_going_on(timers) {
            return;
        }
        let ev = StartupAckEvent { now, bytes_acked, newest_sent, smss: self.smss, srtt: self.rtt.srtt() };
        if let Some(est) = self.startup.on_ack(&ev) {
            // "The new ssthresh value at each estimation is set to the minimum of all
            // estimations done so far."
            self.cc.ssthresh = est.ssthresh;
            self.ss.ssthresh_set = est.ssthresh;
            self.ss.pthresh = Some((est.ssthresh / PTHRESH_DIVISOR, est.rate));
            if est.is_final && self.ss.pacer.is_none() {
                self.ss.active = false;
            }
        }
        if self.ss.pacer.is_some() {
            if let Some(pe) = self.pacing_event(now, timers) {
                let d = self.ss.pacer.as_mut().map(|p| p.on_ack(&pe)).unwrap_or_default();
                self.apply_pacing(now, d, timers);
            }
        }
    }

    /// The pacing timer fired.
    pub fn on_pacing_timer(&mut self, now: SimTime, timers: &mut Timers) {
        if self.qs_on_pacing_timer() {
            // Quick-Start's QS phase (`quickstart.rs`): the timer only wakes the sender up;
            // `new_data` releases the next paced segment.
            return;
        }
        if !self.startup_going_on(timers) || self.ss.pacer.is_none() {
            return;
        }
        if self.unsent() == 0 {
            self.apply_pacing(now, PacingDecision { done: true, ..PacingDecision::default() }, timers);
            return;
        }
        if let Some(pe) = self.pacing_event(now, timers) {
            let d = self.ss.pacer.as_mut().map(|p| p.on_timer(&pe)).unwrap_or_default();
            self.apply_pacing(now, d, timers);
        }
    }
}
