//! Timer table and the timer-clock seam.
//!
//! All of a connection's timers live in one small table keyed by [`TimerKind`]. Every deadline
//! goes through a [`TimerClock`] before it is stored: the clock maps "arm at `now` for
//! `after`" to the instant at which the host can actually act on it. Each timer kind is bound
//! to one of the sender's event clocks ([`ClockSlot::Slow`] or [`ClockSlot::Fast`], Aron &
//! Druschel's f_ev; see [`crate::clock`]): by default the retransmission and persist timers run
//! on the slow clock (BSD `tcp_slowtimo`, 500 ms) and the delayed ACK on the fast clock (BSD
//! `tcp_fasttimo`, 200 ms). With [`crate::clock::EventClock::Fine`] in both slots (the
//! default configuration) every deadline is exact, which is the engine's historical behaviour.
//!
//! The pacing timer ([`TimerKind::Pacing`], 000 §4.2.2) runs on the slow slot (f_ev); another
//! binding can be chosen with [`Timers::bind`].
//!
//! The RTT-*measurement* clock is separate: timestamps use [`TS_CLOCK_TICK`]; estimators that
//! count ticks use the connection's [`crate::clock::MeasurementClock`].

use crate::clock::EventClock;
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

/// TSval `a` is before `b` in the timestamp space (RFC 7323 §5.2: "the comparison is done in
/// the manner of sequence numbers", modulo 2^32; Linux `before()`): the one comparison the
/// Eifel test, Linux's `tcp_packet_delayed` / `tcp_tsopt_ecr_before`, RACK's reordering
/// evidence and the analyzer's timestamp verdict share.
#[inline]
pub fn ts_before(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
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
    /// 000 §4.2.2 pacing in slow start: "we use the event scheduling clock to schedule the
    /// transmission" of paced segments (see [`crate::pacing`]).
    Pacing = 3,
    /// RFC 8985 §7.2 loss probe timeout (PTO) of the Tail Loss Probe (see `crate::loss::tlp`);
    /// never armed unless `TcpConfig::tlp`.
    Pto = 4,
    /// RFC 8985 §6.3 RACK reordering timer (`crate::loss::rack`; Linux `ICSK_TIME_REO_TIMEOUT`);
    /// never armed unless `TcpConfig::rack`.
    RackReo = 5,
}

/// Number of [`TimerKind`] variants (size of the timer table).
pub const TIMER_KINDS: usize = 6;

/// Maps "armed at `now` for `after`" to the instant the host fires the timer.
///
/// Called every time a timer is armed. A fine-grained clock returns `now + after`; a periodic
/// clock (BSD slow timer) counts tick boundaries; a one-shot clock rounds up.
pub trait TimerClock: std::fmt::Debug + Send {
    /// When a timer armed at `now` for `after` will actually fire (never before `now`).
    fn schedule(&self, now: SimTime, after: SimDuration) -> SimTime;
    /// The clock's resolution (1/f_ev), used by estimators that convert to event ticks.
    fn granularity(&self) -> SimDuration;
    fn clone_box(&self) -> Box<dyn TimerClock>;
    /// The clock as the configuration's [`EventClock`], if it is one (`Timers::reset`).
    fn as_event_clock(&self) -> Option<&EventClock> {
        None
    }
}

/// `Clone` for the boxed trait object, so that the structs holding one derive `Clone` (a
/// forked model is a field-by-field copy; nothing is hand-written per field).
impl Clone for Box<dyn TimerClock> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// A timer clock that can fire at any nanosecond (modern Linux hrtimers; the identity map).
#[derive(Copy, Clone, Debug, Default)]
pub struct FineGrainedClock;

impl TimerClock for FineGrainedClock {
    #[inline]
    fn schedule(&self, now: SimTime, after: SimDuration) -> SimTime {
        now.saturating_add(after)
    }
    fn granularity(&self) -> SimDuration {
        crate::clock::FINE_TICK
    }
    fn clone_box(&self) -> Box<dyn TimerClock> {
        Box::new(*self)
    }
}

impl TimerClock for EventClock {
    #[inline]
    fn schedule(&self, now: SimTime, after: SimDuration) -> SimTime {
        EventClock::schedule(self, now, after)
    }
    fn granularity(&self) -> SimDuration {
        EventClock::granularity(self)
    }
    fn clone_box(&self) -> Box<dyn TimerClock> {
        Box::new(*self)
    }
    fn as_event_clock(&self) -> Option<&EventClock> {
        Some(self)
    }
}

/// Which of the sender's event clocks a timer runs on.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ClockSlot {
    /// BSD `pr_slowtimo` (500 ms): retransmission, persist (and keepalive) timers.
    Slow = 0,
    /// BSD `pr_fasttimo` (200 ms): the delayed ACK.
    Fast = 1,
}

/// Number of [`ClockSlot`]s.
pub const CLOCK_SLOTS: usize = 2;

impl TimerKind {
    /// Where 4.4BSD runs this timer: the delayed ACK on the fast timer (`tcp_fasttimo`), the
    /// others on the slow timer (`tcp_slowtimo`, TCP/IP Illustrated Vol. 2 §25.1). The TLP probe
    /// timeout stands in for the retransmission timeout (RFC 8985 §7.2), so it runs on the
    /// RTO's clock. Pacing (000 §4.2.2) runs on the event-scheduling clock f_ev that also schedules the
    /// retransmission timer — the slow slot — so a 500 ms f_ev paces at most every 500 ms.
    pub const fn default_slot(self) -> ClockSlot {
        match self {
            TimerKind::Rto | TimerKind::Persist | TimerKind::Pacing | TimerKind::Pto | TimerKind::RackReo => ClockSlot::Slow,
            TimerKind::DelayedAck => ClockSlot::Fast,
        }
    }
    /// Every kind, in table order.
    pub const ALL: [TimerKind; TIMER_KINDS] =
        [TimerKind::Rto, TimerKind::DelayedAck, TimerKind::Persist, TimerKind::Pacing, TimerKind::Pto, TimerKind::RackReo];
}

/// The connection's timer table.
#[derive(Clone, Debug)]
pub struct Timers {
    deadlines: [Option<SimTime>; TIMER_KINDS],
    clocks: [Box<dyn TimerClock>; CLOCK_SLOTS],
    binding: [ClockSlot; TIMER_KINDS],
}

impl Timers {
    /// One clock for every timer kind.
    pub fn new(clock: Box<dyn TimerClock>) -> Self {
        let fast = clock.clone_box();
        Timers::with_clocks(clock, fast)
    }
    /// Slow and fast clocks, each timer kind bound to its [`TimerKind::default_slot`].
    pub fn with_clocks(slow: Box<dyn TimerClock>, fast: Box<dyn TimerClock>) -> Self {
        Timers {
            deadlines: [None; TIMER_KINDS],
            clocks: [slow, fast],
            binding: TimerKind::ALL.map(TimerKind::default_slot),
        }
    }
    /// Makes this table what `with_clocks(Box::new(slow), Box::new(fast))` builds, in place:
    /// nothing armed, default bindings, and a clock box kept where it already holds that
    /// `EventClock` (a clock has no state: `schedule` and `granularity` read only its value),
    /// replaced otherwise. `Connection::reset_client` / `reset_server` use it so that reusing an
    /// endpoint does not free and allocate its two clocks.
    pub fn reset(&mut self, slow: EventClock, fast: EventClock) {
        let Timers { deadlines, clocks, binding } = self;
        *deadlines = [None; TIMER_KINDS];
        *binding = TimerKind::ALL.map(TimerKind::default_slot);
        for (c, want) in clocks.iter_mut().zip([slow, fast]) {
            if c.as_event_clock() != Some(&want) {
                *c = Box::new(want);
            }
        }
    }
    /// Runs `kind` on the clock in `slot` from the next arming on.
    pub fn bind(&mut self, kind: TimerKind, slot: ClockSlot) {
        self.binding[kind as usize] = slot;
    }
    /// The clock `kind` runs on.
    pub fn clock_of(&self, kind: TimerKind) -> &dyn TimerClock {
        self.clocks[self.binding[kind as usize] as usize].as_ref()
    }
    /// Arms (or re-arms) `kind` to fire exactly at `at`, bypassing its clock: for a deadline
    /// the host keeps with a high-resolution timer whatever its jiffies (Linux paces with an
    /// hrtimer, `tcp_pacing_check` / `pacing_timer`; ns-2 schedules Quick-Start's paced packets
    /// exactly). Used by the Quick-Start phase (`sender/quickstart.rs`).
    #[inline]
    pub fn arm_at(&mut self, kind: TimerKind, at: SimTime) {
        self.deadlines[kind as usize] = Some(at);
    }
    /// Arms (or re-arms) `kind` to fire `after` from `now`, through its clock.
    #[inline]
    pub fn arm(&mut self, kind: TimerKind, now: SimTime, after: SimDuration) {
        let at = self.clock_of(kind).schedule(now, after);
        self.deadlines[kind as usize] = Some(at);
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

    // RFC 7323 §5.2: timestamps compare as sequence numbers, modulo 2^32.
    #[test]
    fn ts_before_compares_modulo_2_32() {
        assert!(ts_before(4, 5) && !ts_before(5, 5) && !ts_before(6, 5));
        assert!(ts_before(u32::MAX - 2, 3), "across the wrap");
        assert!(!ts_before(3, u32::MAX - 2));
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
