//! Timer table and the timer-clock seam.
//!
//! All of a connection's timers live in one small table keyed by [`TimerKind`]. Every deadline
//! goes through a [`TimerClock`] before it is stored: the clock maps the *requested* deadline to
//! the instant at which the host can actually act on it. Today only [`FineGrainedClock`]
//! (identity) exists; Aron & Druschel's observation that BSD measures RTTs with one clock but
//! can only fire retransmissions on the ticks of a 500 ms slow timer will be modelled by a
//! second implementation that rounds deadlines up to the next tick. Nothing else in the engine
//! needs to change for that, because nothing else stores a deadline.
//!
//! The RTT-*measurement* clock is separate: timestamps use [`TS_CLOCK_TICK`].

use tcplab_time::{SimDuration, SimTime};

/// RFC 7323 §5.4 allows a timestamp clock between 1 ms and 1 s per tick; tcplab uses 1 ms
/// (Linux's `tcp_time_stamp` resolution).
pub const TS_CLOCK_TICK: SimDuration = SimDuration::from_millis(1);

/// Added to every TSval so that no segment ever carries TSval 0 (some stacks, e.g. Linux, treat
/// TSecr 0 as "no echo"). Deterministic, unlike a real stack's random offset.
pub const TS_CLOCK_OFFSET: u32 = 1;

/// The TSval for `now` on the [`TS_CLOCK_TICK`] clock (wraps modulo 2^32 as RFC 7323 §5.2
/// expects).
#[inline]
pub fn ts_now(now: SimTime) -> u32 {
    ((now.as_nanos() / TS_CLOCK_TICK.as_nanos()) as u32).wrapping_add(TS_CLOCK_OFFSET)
}

/// The kinds of timers an endpoint arms.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TimerKind {
    /// RFC 6298 §5 retransmission timer (also SYN / SYN-ACK retransmission).
    Rto = 0,
    /// RFC 5681 §4.2 delayed-ACK timer.
    DelayedAck = 1,
    /// RFC 9293 §3.8.6.1 persist (zero-window probe) timer.
    Persist = 2,
}

/// Number of [`TimerKind`] variants (size of the timer table).
pub const TIMER_KINDS: usize = 3;

/// Maps a requested deadline to the instant the host can fire it.
///
/// Called every time a timer is armed. A fine-grained clock returns the request unchanged; a
/// tick-based clock (BSD slow timer) rounds it up to its next tick.
pub trait TimerClock: std::fmt::Debug + Send {
    /// When a timer requested for `requested` will actually fire.
    fn schedule(&self, requested: SimTime) -> SimTime;
    fn clone_box(&self) -> Box<dyn TimerClock>;
}

/// A timer clock that can fire at any nanosecond (modern Linux hrtimers; the identity map).
#[derive(Copy, Clone, Debug, Default)]
pub struct FineGrainedClock;

impl TimerClock for FineGrainedClock {
    #[inline]
    fn schedule(&self, requested: SimTime) -> SimTime {
        requested
    }
    fn clone_box(&self) -> Box<dyn TimerClock> {
        Box::new(*self)
    }
}

/// The connection's timer table.
#[derive(Debug)]
pub struct Timers {
    deadlines: [Option<SimTime>; TIMER_KINDS],
    clock: Box<dyn TimerClock>,
}

impl Clone for Timers {
    fn clone(&self) -> Self {
        Timers { deadlines: self.deadlines, clock: self.clock.clone_box() }
    }
}

impl Timers {
    pub fn new(clock: Box<dyn TimerClock>) -> Self {
        Timers { deadlines: [None; TIMER_KINDS], clock }
    }
    /// Arms (or re-arms) `kind` to fire `after` from `now`, through the timer clock.
    #[inline]
    pub fn arm(&mut self, kind: TimerKind, now: SimTime, after: SimDuration) {
        self.deadlines[kind as usize] = Some(self.clock.schedule(now.saturating_add(after)));
    }
    #[inline]
    pub fn cancel(&mut self, kind: TimerKind) {
        self.deadlines[kind as usize] = None;
    }
    #[inline]
    pub fn get(&self, kind: TimerKind) -> Option<SimTime> {
        self.deadlines[kind as usize]
    }
    #[inline]
    pub fn is_armed(&self, kind: TimerKind) -> bool {
        self.deadlines[kind as usize].is_some()
    }
    /// True (and the timer disarmed) when `kind` is due at `now`.
    #[inline]
    pub fn take_expired(&mut self, kind: TimerKind, now: SimTime) -> bool {
        match self.deadlines[kind as usize] {
            Some(t) if t <= now => {
                self.deadlines[kind as usize] = None;
                true
            }
            _ => false,
        }
    }
    /// Earliest armed deadline.
    #[inline]
    pub fn earliest(&self) -> Option<SimTime> {
        self.deadlines.iter().flatten().copied().min()
    }
    pub fn cancel_all(&mut self) {
        self.deadlines = [None; TIMER_KINDS];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamp_clock_ticks_once_per_millisecond_and_never_yields_zero() {
        assert_eq!(ts_now(SimTime(0)), 1);
        assert_eq!(ts_now(SimTime(999_999)), 1);
        assert_eq!(ts_now(SimTime(1_000_000)), 2);
    }

    #[test]
    fn take_expired_is_idempotent() {
        let mut t = Timers::new(Box::new(FineGrainedClock));
        t.arm(TimerKind::Rto, SimTime(0), SimDuration::from_millis(5));
        assert!(!t.take_expired(TimerKind::Rto, SimTime(4_999_999)));
        assert!(t.take_expired(TimerKind::Rto, SimTime(5_000_000)));
        assert!(!t.take_expired(TimerKind::Rto, SimTime(5_000_000)));
        assert_eq!(t.earliest(), None);
    }
}
