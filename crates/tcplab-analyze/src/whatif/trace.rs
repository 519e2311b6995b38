//! What a connection's sender did that a what-if replay needs, recorded once by the engine's
//! sender model in observe mode (003 §IV-C: "we then re-process our traces using these
//! modified state-machines").
//!
//! The recorder runs the model's [`Observer`] over the capture (capture times, as a sender
//! would see them) and keeps, per data direction:
//! - the RTT samples the model's sampling rule took (Karn's rule applied by the observer; with
//!   timestamps RFC 7323 §4.1's "now - SEG.TSecr" on every ACK, for which the recorder
//!   shows the observer each segment's TSval) and the instants its retransmission timer
//!   backed off — the input of any RTO estimator;
//! - one [`Episode`] per interval between two advances of SND.UNA with data outstanding:
//!   when the retransmission timer guarding SND.UNA was started, the flight, the times of
//!   the first duplicate ACKs, the first retransmission (the loss detection; the rest of the
//!   episode is recovery, which 003 §V-A-2-b shows none of the six parameters affects) and
//!   the ACK that ended it.
//!
//! 003 §IV-C's assumption: "RTTs and losses are independent of TCP loss detection/recovery
//! behavior", so these times are the same under every configuration; only the deadlines
//! and thresholds they are compared with change ([`super::replay`]).
//!
//! Ambiguities resolved:
//! - Times are the capture's, and each ACK is applied when the sender acted on it, as the
//!   analyzer's replay applies it (`sender_replay::AckVantage`, one rule: the what-if pass
//!   takes it from the analyzer, [`Recorder::set_ack_vantage`]): at a capture on the
//!   sender's side, its capture time plus the handshake's capture→sender→capture gap (the
//!   episode's duplicate-ACK times, its end and the RTT samples are the sender's); away from
//!   the sender, its capture time, with RFC 5681 §2 (a)'s outstanding data taken as the
//!   capture shows it (there the samples include the capture point's offset; the report
//!   says which vantage was detected). The handshake gap stands for the lag only to within
//!   `infer::score::ACK_LAG_PRECISION_NS` (the analyzer's tolerance for it): a
//!   retransmission of SND.UNA captured less than that before the lagged timer's deadline is
//!   shown to the observer at the deadline (the sender's timer fired; measured on the
//!   corpus' tail-loss capture: 640 ns early, which left the timeout unexplained and its
//!   back-off out of every replay).
//! - An episode that can never meet any grid point's timer (it ended sooner than the
//!   smallest RTO any point can arm, [`Recorder::new`]'s `floor`) and saw no duplicate ACK
//!   and no retransmission is not kept: it cannot change under any point.
//! - An episode that begins inside a recovery (the observer's phase is fast recovery or the
//!   timeout's go-back-N when SND.UNA advances) is part of that recovery: its
//!   retransmissions (partial-ACK repairs, go-back-N) are not new detections and are not
//!   re-evaluated (003 §V-A-2-b: the parameters do not affect recovery). A retransmission
//!   lost during a recovery is therefore not replayed.
//! - At most [`MAX_DUPACK_TIMES`] duplicate-ACK times are kept (a larger D than that is
//!   refused by the grid reader).

use crate::sender_replay::AckVantage;
use tcplab_tcp::loss::RecoveryPhase;
use tcplab_tcp::observe::{Observer, Trigger};
use tcplab_tcp::rtt::RttSampleEvent;
use tcplab_tcp::{Segment, SeqNum, TcpConfig, TcpFlags};
use tcplab_time::{SimDuration, SimTime};

/// How many duplicate-ACK times an episode keeps (the largest fixed D a grid may ask for).
pub const MAX_DUPACK_TIMES: usize = 8;

/// An input of the RTO estimator, in the order the sender applied them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EstimatorInput {
    /// An RTT sample (after Karn's rule), with SND.UNA/SND.NXT as the estimator sees them.
    Sample(RttSampleEvent),
    /// The retransmission timer expired (RFC 6298 (5.5) backoff).
    Backoff,
}

/// The first retransmission of an episode: the loss detection.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Detection {
    pub at: SimTime,
    pub frame: u64,
    pub trigger: Trigger,
}

/// One interval between advances of SND.UNA (see the module doc).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Episode {
    /// When the retransmission timer guarding SND.UNA was started (before any
    /// retransmission of the episode), and how many estimator inputs preceded it.
    pub timer_start: Option<SimTime>,
    pub inputs_before: usize,
    /// Bytes in flight when the timer started or the first duplicate ACK came (the flight D
    /// is chosen on, 003 §V-D "the current flight size").
    pub flight_bytes: u64,
    pub dupacks: u32,
    pub dupack_at: [SimTime; MAX_DUPACK_TIMES],
    pub detection: Option<Detection>,
    /// The ACK that advanced SND.UNA past the episode's head, if the capture shows one.
    pub end: Option<SimTime>,
    /// The episode began inside a recovery (fast recovery or after a timeout): its
    /// retransmissions are that recovery's, not a new detection (not kept, module doc).
    pub in_recovery: bool,
}

impl Episode {
    fn new() -> Episode {
        Episode {
            timer_start: None,
            inputs_before: 0,
            flight_bytes: 0,
            dupacks: 0,
            dupack_at: [SimTime(0); MAX_DUPACK_TIMES],
            detection: None,
            end: None,
            in_recovery: false,
        }
    }

    /// When the `d`-th duplicate ACK arrived (d ≥ 1), if it did.
    pub fn dupack_time(&self, d: u32) -> Option<SimTime> {
        let i = usize::try_from(d).ok()?.checked_sub(1)?;
        (d <= self.dupacks && i < MAX_DUPACK_TIMES).then(|| self.dupack_at[i])
    }
}

/// A retransmission timer expiry of the captured sender (any episode, recoveries included):
/// the retransmission it sent and the flight when it fired (003 §V-A-3 counts every one).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Expiry {
    pub at: SimTime,
    pub frame: u64,
    pub flight_bytes: u64,
}

/// One data direction's record.
#[derive(Clone, Debug)]
pub struct DirTrace {
    pub inputs: Vec<EstimatorInput>,
    pub episodes: Vec<Episode>,
    pub expiries: Vec<Expiry>,
    pub smss: u64,
    /// RTT samples taken: count, sum, max (the connection's mean and maximum RTT).
    pub samples: u64,
    pub sample_sum_ns: u128,
    pub sample_max_ns: u64,
}

impl DirTrace {
    pub fn mean_rtt(&self) -> Option<SimDuration> {
        (self.samples > 0).then(|| SimDuration((self.sample_sum_ns / u128::from(self.samples)) as u64))
    }
}

/// The recorder of one data direction.
#[derive(Clone, Debug)]
pub struct Recorder {
    obs: Observer,
    floor: SimDuration,
    open: Episode,
    trace: DirTrace,
    vantage: AckVantage,
}

impl Recorder {
    /// A recorder of the sender `cfg` whose first data byte is `first_seq`; `floor` is the
    /// smallest timeout any configuration to be replayed can arm (episodes shorter than it
    /// with nothing in them are not kept).
    pub fn new(cfg: &TcpConfig, first_seq: SeqNum, sack: bool, ts: bool, floor: SimDuration) -> Recorder {
        Recorder {
            obs: Observer::new(cfg, first_seq, sack, ts),
            floor,
            open: Episode::new(),
            trace: DirTrace { inputs: Vec::new(), episodes: Vec::new(), expiries: Vec::new(), smss: u64::from(cfg.mss.max(1)), samples: 0, sample_sum_ns: 0, sample_max_ns: 0 },
            vantage: AckVantage::default(),
        }
    }

    /// How ACKs are applied (the analyzer's [`AckVantage`] for this direction; set before
    /// the first ACK). Default: at capture time, at the sender.
    pub fn set_ack_vantage(&mut self, v: AckVantage) {
        self.vantage = v;
    }

    /// The handshake's RTT, the estimator's first sample (as `Connection` and the analyzer do).
    pub fn on_handshake_rtt(&mut self, now: SimTime, rtt: SimDuration) {
        self.obs.on_handshake_rtt(now, rtt);
        self.note_sample(RttSampleEvent { now, rtt, snd_una: self.obs.snd_una(), snd_nxt: self.obs.snd_nxt() });
    }

    fn note_sample(&mut self, ev: RttSampleEvent) {
        self.trace.inputs.push(EstimatorInput::Sample(ev));
        self.trace.samples += 1;
        self.trace.sample_sum_ns += u128::from(ev.rtt.0);
        self.trace.sample_max_ns = self.trace.sample_max_ns.max(ev.rtt.0);
    }

    fn flight(&self) -> u64 {
        u64::from(self.obs.snd_nxt() - self.obs.snd_una())
    }

    /// Notes the timer guarding SND.UNA once it runs (before the episode's detection).
    fn note_timer(&mut self) {
        if self.open.timer_start.is_none() && self.open.detection.is_none() {
            if let (Some(start), Some(_)) = self.obs.rto_timer() {
                self.open.timer_start = Some(start);
                self.open.inputs_before = self.trace.inputs.len();
                self.open.flight_bytes = self.flight();
            }
        }
    }

    /// A data segment as the capture shows it, with its TSval if it carried one.
    pub fn on_data(&mut self, now: SimTime, frame: u64, seq: SeqNum, len: u32, fin: bool, tsval: Option<u32>) {
        if let Some(v) = tsval {
            // RFC 7323 §4.1 samples ("now - SEG.TSecr", `rules::rtt_source` with timestamps)
            // are read on the sender's timestamp clock, which the observer only knows from
            // the TSvals it is shown. Without them it took no sample after the handshake: the
            // estimator stayed at the handshake's RTO and the first timeout's back-off was
            // never collapsed, so every later timeout was replayed backed off.
            self.obs.note_tsval(now, v);
        }
        let backoff = self.obs.rtt().backoff();
        let flight = self.flight();
        let ex = self.obs.on_transmit(self.sender_time(now, seq), seq, len, fin);
        if let Some(ex) = ex {
            if self.open.detection.is_none() && self.open.timer_start.is_some() {
                self.open.detection = Some(Detection { at: now, frame, trigger: ex.trigger });
            }
        }
        if self.obs.rtt().backoff() > backoff {
            self.trace.inputs.push(EstimatorInput::Backoff);
            self.trace.expiries.push(Expiry { at: now, frame, flight_bytes: flight });
        }
        self.trace.smss = self.obs.smss();
        self.note_timer();
    }

    /// When the sender sent data captured at `now`: `now`, or, for a retransmission of
    /// SND.UNA within the ACK lag's precision before the lagged timer's deadline, the
    /// deadline (see the module doc).
    fn sender_time(&self, now: SimTime, seq: SeqNum) -> SimTime {
        if self.vantage.lag_ns == 0 || seq != self.obs.snd_una() {
            return now;
        }
        match self.obs.rto_timer() {
            (_, Some(deadline)) if deadline > now && deadline.0 - now.0 <= crate::infer::score::ACK_LAG_PRECISION_NS => deadline,
            _ => now,
        }
    }

    /// An ACK of this direction's data, captured at `captured`.
    pub fn on_ack(&mut self, captured: SimTime, seg: &Segment) {
        if !seg.flags.contains(TcpFlags::ACK) {
            return;
        }
        // When the sender acted on it (the analyzer's rule, `AckVantage`).
        let now = self.vantage.at(captured.0);
        let view = self.obs.on_ack(now, seg, self.vantage.away);
        if view.is_dupack {
            if self.open.dupacks == 0 && self.open.detection.is_none() {
                self.open.flight_bytes = self.flight();
            }
            if let Some(slot) = self.open.dupack_at.get_mut(self.open.dupacks as usize) {
                *slot = now;
            }
            self.open.dupacks = self.open.dupacks.saturating_add(1);
        }
        if view.bytes_acked > 0 {
            if let Some(rtt) = self.obs.last_rtt_sample() {
                self.note_sample(RttSampleEvent { now, rtt, snd_una: self.obs.snd_una(), snd_nxt: self.obs.snd_nxt() });
            }
            self.close_episode(Some(now));
            self.open.in_recovery = matches!(self.obs.phase(), RecoveryPhase::Recovery { .. } | RecoveryPhase::Loss { .. });
        }
        self.note_timer();
    }

    fn close_episode(&mut self, end: Option<SimTime>) {
        let mut ep = std::mem::replace(&mut self.open, Episode::new());
        ep.end = end;
        let Some(start) = ep.timer_start else { return };
        if ep.in_recovery {
            return;
        }
        let quiet = ep.dupacks == 0 && ep.detection.is_none();
        let short = end.is_some_and(|e| e.saturating_since(start) < self.floor);
        if quiet && (short || end.is_none()) {
            return;
        }
        self.trace.episodes.push(ep);
    }

    /// The connection ended: the open episode closes without an ACK.
    pub fn finish(mut self) -> DirTrace {
        self.close_episode(None);
        self.trace
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::whatif::replay;
    use tcplab_tcp::config::RecoveryAlgorithm;

    const MSS: u32 = 1000;

    fn ms(v: u64) -> SimTime {
        SimTime(v * 1_000_000)
    }

    fn seq(n: u32) -> SeqNum {
        SeqNum(10_000 + n * MSS)
    }

    fn ts_ack(a: SeqNum, tsecr: u32) -> Segment {
        let mut s = Segment { flags: TcpFlags::ACK, ack: a, window: 65535, ..Segment::default() };
        s.options.timestamps = Some((1, tsecr));
        s
    }

    // RFC 7323 §4.1 / RFC 6298 (5.5)-(5.7) with timestamps: the ACK of a timeout's
    // retransmission that echoes its TSval is a sample and ends the back-off, so the next
    // timeout is replayed on the un-backed-off RTO (1 s), when the sender's fired. The
    // recorder must show the observer the sender's TSvals: without them it took no sample
    // after the handshake and replayed the second timeout at 2 s (what-if snapshot: its
    // rto_detection_delta doubled).
    #[test]
    fn with_timestamps_the_ack_of_a_timeouts_retransmission_ends_the_back_off_in_the_replay() {
        let cfg = TcpConfig { mss: MSS as u16, sack: true, timestamps: true, recovery: RecoveryAlgorithm::Sack, ..TcpConfig::default() };
        let mut r = Recorder::new(&cfg, seq(0), true, true, SimDuration::from_millis(100));
        r.on_handshake_rtt(ms(0), SimDuration::from_millis(40));
        r.on_data(ms(0), 1, seq(0), MSS, false, Some(100));
        r.on_data(ms(0), 2, seq(1), MSS, false, Some(100));
        // The timer (RFC 6298 minimum 1 s) fires: SND.UNA is resent.
        r.on_data(ms(1000), 3, seq(0), MSS, false, Some(1100));
        // Its ACK echoes the retransmission's TSval: a 40 ms sample.
        r.on_ack(ms(1040), &ts_ack(seq(2), 1100));
        r.on_data(ms(1040), 5, seq(2), MSS, false, Some(1140));
        r.on_data(ms(1040), 6, seq(3), MSS, false, Some(1140));
        // The second timeout, 1 s after the timer was restarted.
        r.on_data(ms(2040), 7, seq(2), MSS, false, Some(2140));
        let tr = r.finish();
        let after_backoff = tr.inputs.iter().skip_while(|i| **i != EstimatorInput::Backoff).skip(1).next();
        assert!(matches!(after_backoff, Some(EstimatorInput::Sample(s)) if s.rtt == SimDuration::from_millis(40)), "{:?}", tr.inputs);
        assert_eq!(tr.episodes.len(), 2, "{:?}", tr.episodes);
        assert_eq!(tr.episodes[1].timer_start, Some(ms(1040)));
        assert_eq!(tr.episodes[1].detection.map(|d| (d.frame, d.trigger)), Some((7, Trigger::Rto)));
        let mut timers = replay::timers_for(&cfg);
        let mut dl = Vec::new();
        replay::deadlines(&tr, &cfg, &mut timers, &mut dl);
        assert_eq!(dl, vec![Some(ms(1000)), Some(ms(2040))], "the model's replay fires when the sender did");
    }

    fn ack(a: SeqNum) -> Segment {
        Segment { flags: TcpFlags::ACK, ack: a, window: 65535, ..Segment::default() }
    }

    /// Five segments sent at 0; SND.UNA's first ACK captured at 40 ms, three duplicate
    /// ACKs at 50, 51, 52 ms, the fast retransmit captured at 54 ms.
    fn lagged(v: AckVantage) -> DirTrace {
        let cfg = TcpConfig { mss: MSS as u16, sack: false, timestamps: false, ..TcpConfig::default() };
        let mut r = Recorder::new(&cfg, seq(0), false, false, SimDuration::from_millis(100));
        r.set_ack_vantage(v);
        for i in 0..5 {
            r.on_data(ms(0), u64::from(i) + 1, seq(i), MSS, false, None);
        }
        r.on_ack(ms(40), &ack(seq(1)));
        for t in [50, 51, 52] {
            r.on_ack(ms(t), &ack(seq(1)));
        }
        r.on_data(ms(54), 9, seq(1), MSS, false, None);
        r.finish()
    }

    // The analyzer's rule for when the sender acted on an ACK (`sender_replay::AckVantage`):
    // a capture on the sender's side sees each ACK the handshake's capture→sender→capture
    // gap before the sender acts on it. With a 2 ms gap the RTT sample, the timer's restart
    // (RFC 6298 (5.3)) and the duplicate-ACK times are the capture's plus 2 ms, at exact
    // instants; away from the sender (lag 0) they are the capture's.
    #[test]
    fn acks_are_applied_when_the_analyzers_rule_says_the_sender_acted_on_them() {
        for (v, lag) in [(AckVantage { lag_ns: 2_000_000, away: false }, 2), (AckVantage { lag_ns: 0, away: true }, 0)] {
            let tr = lagged(v);
            let first = tr.inputs.iter().find_map(|i| match i {
                EstimatorInput::Sample(s) => Some(s.rtt),
                EstimatorInput::Backoff => None,
            });
            assert_eq!(first, Some(SimDuration::from_millis(40 + lag)), "{v:?}");
            let ep = tr.episodes.iter().find(|e| e.dupacks > 0).unwrap_or_else(|| panic!("{v:?}: {:?}", tr.episodes));
            assert_eq!(ep.timer_start, Some(ms(40 + lag)), "{v:?}");
            assert_eq!(ep.dupacks, 3);
            assert_eq!(ep.dupack_at[..3], [ms(50 + lag), ms(51 + lag), ms(52 + lag)], "{v:?}");
            assert_eq!(ep.detection.map(|d| (d.at, d.frame, d.trigger)), Some((ms(54), 9, Trigger::DupThresh)), "{v:?}");
        }
    }

    // The handshake gap measures the ACK lag only to within the analyzer's precision
    // (`ACK_LAG_PRECISION_NS`): a timeout captured 640 ns before the lagged deadline (as on
    // the corpus' tail-loss capture) is the sender's timer, backed off; one captured 1 ms
    // before it is not a timeout.
    #[test]
    fn a_timeout_within_the_lag_precision_before_the_lagged_deadline_is_the_timer() {
        let cfg = TcpConfig { mss: MSS as u16, sack: false, timestamps: false, ..TcpConfig::default() };
        for (early_ns, timeout) in [(640, true), (1_000_000, false)] {
            let mut r = Recorder::new(&cfg, seq(0), false, false, SimDuration::from_millis(100));
            r.set_ack_vantage(AckVantage { lag_ns: 2_000_000, away: false });
            r.on_handshake_rtt(ms(0), SimDuration::from_millis(40));
            r.on_data(ms(0), 1, seq(0), MSS, false, None);
            r.on_data(ms(0), 2, seq(1), MSS, false, None);
            // SND.UNA's ACK captured at 40 ms, applied at 42 ms: the timer restarts then
            // (RFC 6298 (5.3)) and fires at 42 ms + RTO.
            r.on_ack(ms(40), &ack(seq(1)));
            let (_, Some(deadline)) = r.obs.rto_timer() else { panic!("no timer") };
            r.on_data(SimTime(deadline.0 - early_ns), 3, seq(1), MSS, false, None);
            let tr = r.finish();
            assert_eq!(tr.expiries.len(), usize::from(timeout), "{early_ns} ns early: {:?}", tr.expiries);
            assert_eq!(tr.inputs.contains(&EstimatorInput::Backoff), timeout);
        }
    }
}
