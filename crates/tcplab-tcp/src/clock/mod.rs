//! The timer framework of Aron & Druschel (TR98-318 §4): two clocks per sender.
//!
//! > "TCP expects OS to provide two different timing-related services—one for measurement and
//! > one for event scheduling." (000 §4, feature 1)
//!
//! - [`MeasurementClock`] (frequency f_rtt): RTT samples are counted in its ticks. It behaves
//!   like a BSD tick counter (`tcp_now`, or the per-connection `t_rtt` that `tcp_slowtimo`
//!   increments): an interval is the number of tick *boundaries* that passed, so a 10 ms RTT
//!   measured on a 500 ms clock is 0 or 1 tick depending on where the boundaries fall.
//! - [`EventClock`] (frequency f_ev): when a timer can fire. Three kinds:
//!   - [`EventClock::Fine`]: at any nanosecond (today's behaviour, modern hrtimers);
//!   - [`EventClock::Periodic`]: BSD's periodic software interrupts (`pr_slowtimo` every
//!     500 ms, `pr_fasttimo` every 200 ms) that "tick regularly rather than re-starting at the
//!     instant when packets are sent" (000 §4.1, footnote 6);
//!   - [`EventClock::OneShot`]: an explicit request rounded up to the clock's granularity
//!     (Linux jiffies, Windows' 100 ms timer).
//!
//! Every timer kind is bound to one of the sender's event clocks (see [`crate::timer`]): BSD
//! binds the retransmission and persist timers to the slow (500 ms) clock and the delayed ACK
//! to the fast (200 ms) clock.
//!
//! Ambiguities resolved:
//! - **Periodic countdown.** BSD's `tcp_slowtimo` decrements each armed `t_timer[]` counter on
//!   every tick and fires the timer when the counter reaches zero. A timer set to n ticks
//!   therefore fires on the n-th tick boundary *strictly after* it was armed: between
//!   (n−1)·period (exclusive) and n·period (inclusive) after arming. A timer armed exactly on
//!   a boundary does not see that boundary (the tick that runs at that instant has already
//!   run). A requested duration d becomes n = max(1, ⌈d / period⌉) ticks, so a duration that
//!   is a whole number of ticks (every tick-based estimator returns one) is exact.
//! - **One-shot rounding.** A one-shot timer fires on the first multiple of the granularity
//!   at or after the requested deadline (never early).
//! - **Phase.** Tick boundaries of a periodic clock are the instants t with
//!   t ≡ phase (mod period); the phase is the offset of the host's clock from the start of
//!   the simulation. The measurement clock has its own phase; a faithful BSD host gives the
//!   RTT clock the same tick and phase as the slow timer (both come from `pr_slowtimo`).
//! - **Boundary at the measured instants.** An interval (sent, now] counts a boundary that
//!   falls exactly on `now` but not one exactly on `sent`.

use tcplab_time::{SimDuration, SimTime};

/// BSD `PR_SLOWHZ` = 2: the slow timeout runs every 500 ms (TCP/IP Illustrated Vol. 2 §25.1).
pub const BSD_SLOW_TICK: SimDuration = SimDuration::from_millis(500);
/// BSD `PR_FASTHZ` = 5: the fast timeout (delayed ACKs) runs every 200 ms.
pub const BSD_FAST_TICK: SimDuration = SimDuration::from_millis(200);
/// One nanosecond: the tick of a measurement clock that is exact at simulator resolution.
pub const FINE_TICK: SimDuration = SimDuration::from_nanos(1);

/// The clock RTTs are measured with (f_rtt = 1 / `tick`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct MeasurementClock {
    /// Length of one tick (> 0; zero is treated as one nanosecond).
    pub tick: SimDuration,
    /// Tick boundaries are at `phase + j·tick`.
    pub phase: SimDuration,
}

impl Default for MeasurementClock {
    fn default() -> Self {
        MeasurementClock::FINE
    }
}

impl MeasurementClock {
    /// A clock that counts nanoseconds (RTT samples are exact).
    pub const FINE: MeasurementClock = MeasurementClock { tick: FINE_TICK, phase: SimDuration::ZERO };

    /// A clock with `tick` and phase zero.
    pub const fn every(tick: SimDuration) -> MeasurementClock {
        MeasurementClock { tick, phase: SimDuration::ZERO }
    }

    #[inline]
    fn tick_ns(&self) -> u64 {
        self.tick.as_nanos().max(1)
    }

    /// The tick counter at `t`: the number of boundaries in (−∞.., t] counted from a fixed
    /// origin (like BSD's `tcp_now`). Only differences are meaningful.
    #[inline]
    pub fn ticks(&self, t: SimTime) -> u64 {
        let p = self.tick_ns();
        let shift = p - self.phase.as_nanos() % p;
        // (t + shift) / p without overflow.
        t.as_nanos() / p + (t.as_nanos() % p + shift) / p
    }

    /// Ticks between `sent` and `now`: the boundaries in (sent, now], truncated like a BSD
    /// tick counter (0 when `now <= sent`).
    #[inline]
    pub fn elapsed(&self, sent: SimTime, now: SimTime) -> u64 {
        self.ticks(now).saturating_sub(self.ticks(sent))
    }

    /// Ticks for a sample of length `rtt` that ended at `now`.
    #[inline]
    pub fn sample_ticks(&self, now: SimTime, rtt: SimDuration) -> u64 {
        let sent = SimTime(now.as_nanos().saturating_sub(rtt.as_nanos()));
        self.elapsed(sent, now)
    }

    /// `n` ticks as a duration (saturating).
    #[inline]
    pub fn duration(&self, n: u64) -> SimDuration {
        SimDuration(n.saturating_mul(self.tick_ns()))
    }
}

/// When a timer may fire (f_ev).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum EventClock {
    /// Any instant: the deadline is kept as requested.
    #[default]
    Fine,
    /// BSD-style periodic software interrupt with a countdown per timer (module docs).
    Periodic { period: SimDuration, phase: SimDuration },
    /// One-shot timers rounded up to the next multiple of `granularity`.
    OneShot { granularity: SimDuration },
}

impl EventClock {
    /// BSD's 500 ms slow timer, ticking at `phase + j·500 ms`.
    pub const fn bsd_slow(phase: SimDuration) -> EventClock {
        EventClock::Periodic { period: BSD_SLOW_TICK, phase }
    }
    /// BSD's 200 ms fast timer.
    pub const fn bsd_fast(phase: SimDuration) -> EventClock {
        EventClock::Periodic { period: BSD_FAST_TICK, phase }
    }

    /// The clock's resolution 1/f_ev (one nanosecond for [`EventClock::Fine`]).
    pub fn granularity(&self) -> SimDuration {
        match *self {
            EventClock::Fine => FINE_TICK,
            EventClock::Periodic { period, .. } => SimDuration(period.as_nanos().max(1)),
            EventClock::OneShot { granularity } => SimDuration(granularity.as_nanos().max(1)),
        }
    }

    /// When a timer armed at `now` to run for `after` actually fires.
    pub fn schedule(&self, now: SimTime, after: SimDuration) -> SimTime {
        match *self {
            EventClock::Fine => now.saturating_add(after),
            EventClock::Periodic { period, phase } => {
                let p = period.as_nanos();
                if p == 0 {
                    return now.saturating_add(after);
                }
                // tcp_slowtimo countdown: n ticks, n >= 1.
                let n = after.as_nanos().div_ceil(p).max(1);
                // Offset of `now` past the last boundary (phase taken modulo the period).
                let since = (now.as_nanos() % p + (p - phase.as_nanos() % p)) % p;
                let first = now.as_nanos().saturating_add(p - since);
                SimTime(first.saturating_add((n - 1).saturating_mul(p)))
            }
            EventClock::OneShot { granularity } => {
                let g = granularity.as_nanos();
                let d = now.saturating_add(after).as_nanos();
                if g <= 1 {
                    return SimTime(d);
                }
                let up = d.div_ceil(g).saturating_mul(g);
                // Near u64::MAX the rounded value could wrap below d; keep the deadline then.
                SimTime(if up < d { d } else { up })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimDuration {
        SimDuration::from_millis(v)
    }
    fn at_ms(v: u64) -> SimTime {
        SimTime(v * 1_000_000)
    }

    #[test]
    fn a_bsd_timer_of_two_ticks_fires_on_the_second_boundary_after_arming() {
        let c = EventClock::bsd_slow(SimDuration::ZERO);
        // Armed 10 ms after a tick: the boundaries at 500 and 1000 ms -> 990 ms later.
        assert_eq!(c.schedule(at_ms(10), ms(1000)), at_ms(1000));
        // Armed 10 ms before a tick: boundaries at 500 and 1000 -> 510 ms later.
        assert_eq!(c.schedule(at_ms(490), ms(1000)), at_ms(1000));
        // Armed exactly on a boundary: that tick has run; the next two are at 1000 and 1500.
        assert_eq!(c.schedule(at_ms(500), ms(1000)), at_ms(1500));
    }

    #[test]
    fn the_phase_moves_the_tick_boundaries() {
        let c = EventClock::bsd_slow(ms(300));
        assert_eq!(c.schedule(at_ms(0), ms(500)), at_ms(300));
        assert_eq!(c.schedule(at_ms(300), ms(500)), at_ms(800));
        // A phase larger than the period is taken modulo the period.
        let d = EventClock::bsd_slow(ms(1300));
        assert_eq!(d.schedule(at_ms(0), ms(500)), at_ms(300));
    }

    #[test]
    fn a_periodic_timer_never_fires_at_the_instant_it_is_armed() {
        let c = EventClock::bsd_fast(SimDuration::ZERO);
        assert_eq!(c.schedule(at_ms(0), SimDuration::ZERO), at_ms(200));
        assert_eq!(c.schedule(at_ms(150), ms(200)), at_ms(200));
    }

    #[test]
    fn a_one_shot_timer_rounds_its_deadline_up_to_the_granularity() {
        let c = EventClock::OneShot { granularity: ms(10) };
        assert_eq!(c.schedule(at_ms(3), ms(200)), at_ms(210));
        assert_eq!(c.schedule(at_ms(10), ms(200)), at_ms(210));
        assert_eq!(c.schedule(SimTime(1), ms(10)), at_ms(20));
    }

    #[test]
    fn the_fine_clock_is_the_identity() {
        assert_eq!(EventClock::Fine.schedule(SimTime(7), SimDuration(5)), SimTime(12));
    }

    #[test]
    fn extreme_times_saturate_instead_of_overflowing() {
        for c in [
            EventClock::Fine,
            EventClock::bsd_slow(ms(7)),
            EventClock::OneShot { granularity: ms(10) },
            EventClock::Periodic { period: SimDuration::ZERO, phase: SimDuration::ZERO },
        ] {
            let t = c.schedule(SimTime(u64::MAX - 3), SimDuration(u64::MAX));
            assert!(t.as_nanos() >= u64::MAX - 3 || t.as_nanos() == u64::MAX);
        }
    }

    #[test]
    fn a_measurement_clock_counts_tick_boundaries_like_a_bsd_tick_counter() {
        let c = MeasurementClock::every(ms(500));
        // 60 ms that straddle the 500 ms boundary count as one tick ...
        assert_eq!(c.elapsed(at_ms(470), at_ms(530)), 1);
        // ... and 400 ms inside one tick as none.
        assert_eq!(c.elapsed(at_ms(510), at_ms(910)), 0);
        // A boundary exactly at the ACK counts, one exactly at the send does not.
        assert_eq!(c.elapsed(at_ms(400), at_ms(500)), 1);
        assert_eq!(c.elapsed(at_ms(500), at_ms(900)), 0);
        assert_eq!(c.sample_ticks(at_ms(530), ms(60)), 1);
    }

    #[test]
    fn a_measurement_clock_phase_shifts_its_boundaries() {
        let c = MeasurementClock { tick: ms(500), phase: ms(100) };
        assert_eq!(c.elapsed(at_ms(50), at_ms(150)), 1);
        assert_eq!(c.elapsed(at_ms(450), at_ms(550)), 0);
        assert_eq!(MeasurementClock::FINE.sample_ticks(at_ms(5), ms(2)), 2_000_000);
    }
}
