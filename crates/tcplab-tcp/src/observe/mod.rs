//! Observe mode: the sender model fed what a capture shows, to explain a real sender's
//! retransmissions with the simulating sender's own rules.
//!
//! Rewaskar, Kaur & Smith (003) §IV-A: a passive analyzer "emulates the sender's state ... as
//! each packet of the trace is processed", per candidate OS. An [`Observer`] is that
//! emulation, built from a [`TcpConfig`] (a profile): it is told each transmission and each
//! ACK with its time and keeps SND.UNA/SND.NXT, the RFC 6675 scoreboard
//! ([`crate::sender::scoreboard::Scoreboard`]), the duplicate-ACK count, the recovery phase
//! driven by the profile's [`crate::loss::LossDetector`], the profile's RTT estimator
//! ([`crate::rtt::build`]) with its backoff, and the retransmission timer on the profile's
//! own timer clock ([`crate::timer::Timers`]). For every retransmission it reports which of
//! its triggers had fired at that instant ([`Explanation`]) and what it expected next.
//!
//! Every rule is the simulating sender's, called, not copied: the duplicate-ACK definitions,
//! the DupThresh in force and the RFC 6298 timer rules (`sender/rules.rs`), RFC 6675 IsLost
//! and D-SACK recognition (`sender/scoreboard.rs`), Karn's rule ([`CumAck::karn_sample`]),
//! the loss detector's phase decisions (`loss/`), RFC 8985 TLP_calc_PTO ([`calc_pto`]).
//!
//! The observer is `Clone` (derived): a caller can fork it at any instant and replay the rest
//! of a connection through other profiles or parameter sets.
//!
//! Ambiguities resolved (what an observer cannot know):
//! - The captured transmissions define the segment boundaries. A segment that appears above
//!   SND.NXT leaves a gap whose original the capture did not show (lost upstream of the
//!   capture point); the gap is entered as one segment sent at that instant.
//! - A retransmission that spans several recorded segments retransmits each of them.
//! - The advertised-window test of RFC 5681 §2 (e) compares the raw window field of
//!   consecutive ACKs (the same scale applies to both).
//! - RTT samples come from the source the sender uses (`rules::rtt_source`): one timed
//!   segment per RTT, the per-ACK Karn sample, or RFC 7323 §4.1's "current time −
//!   SEG.TSecr". The sender's timestamp clock is read off the capture
//!   ([`Observer::note_tsval`]): the newest TSval seen plus the whole clock ticks
//!   ([`crate::timer::TS_CLOCK_TICK`]) since it was first captured, so a timestamp sample is
//!   the sender's to within one tick (its phase is unknown). Measured before this rule
//!   (`examples/infer_corpus`): with timestamps the sender's samples included retransmitted
//!   data (the echo names the copy acknowledged) and reset the timer's back-off, while the
//!   observer's Karn samples did not, so its next timeout was armed up to 2^n times late.
//!   Away from the sender every sample is the capture point's round trip.
//! - A tail loss probe of new data (RFC 8985 §7.3) is not a retransmission: new data sent
//!   once the PTO has expired is taken for the probe, and the RTO is re-armed from it.
//! - RACK (RFC 8985 §6, `loss::rack`, when the profile has it): the observer runs the
//!   sender's RACK on the capture's times; a reordering-timer expiry is applied when the
//!   capture next shows something (`Observer::advance`). A retransmission of a segment RACK
//!   marked is `rack`, or `rack_timer` when the latest marking came from the timer rather
//!   than from an ACK.

use crate::cc::RecoveryStyle;
use crate::config::{DupAckThreshold, RttSampling, TcpConfig};
use crate::loss::rack::{Rack, RackAckEvent, TCP_TIMEOUT_MIN};
use crate::loss::tlp::PtoRule;
use crate::loss::{LossAckEvent, LossDecision, LossDetector, RecoveryPhase};
use crate::rtt::{RttEstimator, RttSampleEvent};
use crate::segment::{SackBlock, Segment, TcpFlags};
use crate::sender::rules::{self, AckShape, RttSource};
use crate::sender::scoreboard::{CumAck, Scoreboard, SentSeg};
use crate::seq::SeqNum;
use crate::timer::{TimerKind, Timers};
use tcplab_time::{SimDuration, SimTime};

/// The rule that explains a retransmission (column `trigger` of the analyzer).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Trigger {
    /// RFC 5681 §3.2 step 2: the DupThresh-th duplicate ACK.
    DupThresh,
    /// RFC 6675 §4 IsLost(): enough SACKed data above the segment (entry by §5 (2), or a
    /// NextSeg() rule (1) retransmission during recovery).
    IsLost,
    /// RFC 6582 §3.2 step 5: a partial ACK in NewReno recovery reached the segment.
    PartialAck,
    /// RFC 8985 §6.2 step 5: RACK marked the segment lost on an ACK (a segment sent after it
    /// was delivered, and RACK.rtt + RACK.reo_wnd passed since it was sent).
    Rack,
    /// RFC 8985 §6.3: RACK's reordering timer expired and marked it.
    RackTimer,
    /// RFC 6675 §4 NextSeg() rules (3)/(4): an un-SACKed segment not (yet) deemed lost.
    NextSeg,
    /// RFC 8985 §7.3: the probe timeout expired with this segment the tail.
    Tlp,
    /// RFC 6298 (5.4)-(5.6): the retransmission timer expired, or go-back-N after it.
    Rto,
    /// None of the model's triggers had fired.
    Unknown,
}

impl Trigger {
    pub const ALL: [Trigger; 9] = [
        Trigger::DupThresh,
        Trigger::IsLost,
        Trigger::PartialAck,
        Trigger::Rack,
        Trigger::RackTimer,
        Trigger::NextSeg,
        Trigger::Tlp,
        Trigger::Rto,
        Trigger::Unknown,
    ];
    pub const fn name(self) -> &'static str {
        match self {
            Trigger::DupThresh => "dupthresh",
            Trigger::IsLost => "islost",
            Trigger::PartialAck => "partial_ack",
            Trigger::Rack => "rack",
            Trigger::RackTimer => "rack_timer",
            Trigger::NextSeg => "nextseg",
            Trigger::Tlp => "tlp",
            Trigger::Rto => "rto",
            Trigger::Unknown => "unknown",
        }
    }
}

/// What the observer expects the sender to do next.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    /// The next segment RFC 6675 NextSeg() rule (1) would retransmit (lost, not yet resent).
    pub retransmit: Option<SeqNum>,
    /// When the retransmission timer fires, if armed.
    pub rto_at: Option<SimTime>,
    /// When the probe timeout fires, if the profile has TLP and it is armed.
    pub pto_at: Option<SimTime>,
}

/// The observer's account of one retransmission, taken just before it is applied.
/// (What it expects after it: [`Observer::expected`].)
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    pub phase: RecoveryPhase,
    /// The retransmission starts at or below SND.UNA.
    pub at_una: bool,
    /// It ends at SND.NXT (the tail).
    pub is_tail: bool,
    /// Duplicate ACKs since SND.UNA last advanced, and the DupThresh in force.
    pub dupacks: u32,
    pub dupack_threshold: u32,
    /// When the DupThresh-th duplicate ACK arrived (since the last advance).
    pub dupthresh_at: Option<SimTime>,
    /// When the duplicate ACK after the DupThresh-th arrived (since the last advance), if one
    /// did: a fast retransmit sent after it did not answer the DupThresh-th at once.
    pub dupthresh_next_at: Option<SimTime>,
    /// RFC 6675 IsLost() holds for the retransmitted segment on the scoreboard.
    pub islost: bool,
    /// When IsLost(SND.UNA) first held since the last advance.
    pub islost_una_at: Option<SimTime>,
    /// The profile runs RACK and the segment is marked lost by it.
    pub rack_lost: bool,
    /// When RACK's reordering timer fires, if armed.
    pub rack_deadline: Option<SimTime>,
    /// When RACK last marked a segment lost (on an ACK or by its timer), if it did.
    pub rack_marked_at: Option<SimTime>,
    /// When the retransmission timer was last started, and for how long (the profile's RTO,
    /// backed off, on its timer clock).
    pub rto_started: Option<SimTime>,
    pub rto_deadline: Option<SimTime>,
    /// The timer had expired by now.
    pub rto_fired: bool,
    /// The RTO the estimator gives now (backed off, before the timer clock's rounding): the
    /// length the timer was armed with at `rto_started`.
    pub rto: SimDuration,
    /// The probe timeout (RFC 8985 §7.2) and whether it had expired.
    pub pto_deadline: Option<SimTime>,
    pub pto_fired: bool,
    /// The first of the model's triggers that fired, in the sender's order.
    pub trigger: Trigger,
}

/// What one ACK did to the observer.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct AckView {
    pub bytes_acked: u64,
    pub newly_sacked: u64,
    /// Which of the ACK's SACK blocks (bit `k`: the segment's block `k`) SACKed something
    /// for the first time (`SackUpdate::changed_blocks`).
    pub changed_blocks: u8,
    /// The first SACK block is a D-SACK (RFC 2883 §4): that block.
    pub dsack: Option<SackBlock>,
    /// A duplicate ACK by the profile's definition (RFC 6675 §2 or RFC 5681 §2).
    pub is_dupack: bool,
    /// What the cumulative acknowledgment removed (Karn's rule, send times).
    pub acked: CumAck,
    /// The loss detector's decision.
    pub decision: Option<LossDecision>,
}

/// The sender model in observe mode. See the module documentation.
#[derive(Clone, Debug)]
pub struct Observer {
    smss: u64,
    ts_ok: bool,
    dupthresh_rule: DupAckThreshold,
    episode_dupthresh: Option<u32>,
    sampling: RttSampling,
    tlp: bool,
    pto_rule: PtoRule,
    loss: Box<dyn LossDetector>,
    /// RFC 8985 §6 RACK state (inert unless the profile has RACK and SACK is in use).
    rack: Rack,
    rack_deadline: Option<SimTime>,
    /// The latest RACK marking: (when, by the reordering timer).
    rack_marked: Option<(SimTime, bool)>,
    rtt: Box<dyn RttEstimator>,
    timers: Timers,
    rto_started: Option<SimTime>,
    rtt_timing: Option<(SeqNum, SimTime)>,
    pto_deadline: Option<SimTime>,
    snd_una: SeqNum,
    snd_nxt: SeqNum,
    /// The peer's window as the sender last learnt it, scaled (`set_peer_window`, then each
    /// ACK): RFC 5681 §2 (e) compares an ACK's window with it.
    last_window: Option<u64>,
    /// The shift the peer's windows are scaled by (RFC 7323 §2.3, `Snd.Wind.Shift`; 0 until
    /// [`Observer::set_peer_window`] says otherwise).
    snd_wscale: u8,
    sb: Scoreboard,
    phase: RecoveryPhase,
    dupacks: u32,
    dupthresh_at: Option<SimTime>,
    dupthresh_next_at: Option<SimTime>,
    islost_una_at: Option<SimTime>,
    /// The RTT sample the last ACK fed the estimator (after Karn's rule), for a caller that
    /// replays the same samples through other estimator parameters (003 §IV-C what-if).
    last_sample: Option<SimDuration>,
    /// The sender's timestamp clock as the capture shows it: the newest TSval and when it was
    /// first captured (`note_tsval`).
    ts_clock: Option<(u32, SimTime)>,
    /// The capture showed this sender's FIN (`note_fin`): it occupies a sequence number above
    /// the data this observer is fed.
    fin_seen: bool,
    /// `smss` was read off a captured payload (`note_segment_size`).
    smss_seen: bool,
}

impl Observer {
    /// An observer of an established connection whose first data byte (or first byte seen)
    /// is `first_seq`, with the options the handshake negotiated.
    pub fn new(cfg: &TcpConfig, first_seq: SeqNum, sack_ok: bool, ts_ok: bool) -> Observer {
        let mut o = Observer {
            smss: u64::from(cfg.mss.max(1)),
            ts_ok,
            dupthresh_rule: cfg.dupack_threshold,
            episode_dupthresh: None,
            sampling: cfg.rtt_sampling,
            tlp: cfg.tlp && cfg.sender == crate::config::SenderModel::Rfc,
            pto_rule: cfg.tlp_pto,
            loss: crate::loss::for_connection(cfg.recovery, sack_ok),
            // RACK needs SACK (Linux `tcp_is_rack`), as in `Sender::on_established`.
            rack: Rack::new(
                cfg.rack && cfg.sender == crate::config::SenderModel::Rfc && sack_ok && cfg.recovery == crate::config::RecoveryAlgorithm::Sack,
            ),
            rack_deadline: None,
            rack_marked: None,
            rtt: crate::rtt::build(cfg),
            timers: Timers::with_clocks(Box::new(cfg.timers.slow), Box::new(cfg.timers.fast)),
            rto_started: None,
            rtt_timing: None,
            pto_deadline: None,
            snd_una: first_seq,
            snd_nxt: first_seq,
            last_window: None,
            snd_wscale: 0,
            sb: Scoreboard::new(first_seq),
            phase: RecoveryPhase::Open,
            dupacks: 0,
            dupthresh_at: None,
            dupthresh_next_at: None,
            islost_una_at: None,
            last_sample: None,
            ts_clock: None,
            fin_seen: false,
            smss_seen: false,
        };
        // RACK.fack starts at SND.UNA (`Sender::on_established` does the same).
        o.rack.fack = first_seq;
        o
    }

    /// The window the sender learnt in the handshake (`Sender::on_established`: RFC 7323
    /// §2.2, a SYN's window is never scaled, so `scaled` is the SYN-ACK's raw window for the
    /// client and the third segment's window `<< snd_wscale` for the server) and the shift
    /// of the peer's later windows. Without it the first ACK after the handshake is compared
    /// with nothing and counts as a duplicate ACK; the sender, whose window changed from the
    /// SYN's unscaled value, does not count it (RFC 5681 §2 (e)). Measured: simulated
    /// NewReno senders whose first segment was lost fast-retransmitted on the fourth ACK
    /// after the handshake, and their own profile's replay left it unexplained.
    pub fn set_peer_window(&mut self, scaled: u64, snd_wscale: u8) {
        self.last_window = Some(scaled);
        self.snd_wscale = snd_wscale;
    }

    /// The handshake's round trip as the sender measured it (SYN → SYN-ACK at the client,
    /// SYN-ACK → ACK at the server; none when a SYN was retransmitted, Karn), the first
    /// sample of the estimator as in `Connection`'s establishment.
    pub fn on_handshake_rtt(&mut self, now: SimTime, rtt: SimDuration) {
        self.rtt.on_sample(&RttSampleEvent { now, rtt, snd_una: self.snd_una, snd_nxt: self.snd_nxt });
        // RACK.min_RTT starts from the handshake (Linux tcp_update_rtt_min; as `Connection`).
        self.rack.on_handshake_rtt(rtt);
    }

    /// The handshake had to be retransmitted (RFC 6298 (5.7)).
    pub fn on_handshake_retransmitted(&mut self) {
        self.rtt.on_handshake_retransmitted();
    }

    /// A segment of this sender carried `tsval` (RFC 7323 §3: the sender's timestamp clock
    /// when it was sent), captured at `now`. Call before [`Observer::on_transmit`].
    pub fn note_tsval(&mut self, now: SimTime, tsval: u32) {
        let newer = self.ts_clock.map_or(true, |(v, _)| (tsval.wrapping_sub(v) as i32) > 0);
        if newer {
            self.ts_clock = Some((tsval, now));
        }
    }

    /// The capture shows a FIN on this sender's data (call before [`Observer::on_transmit`] of
    /// that segment). The observer is fed data lengths only; the sender's flight counts the
    /// FIN's sequence number (`SentSeg::seq_len`), which decides Linux's probe timeout for a
    /// last segment (`calc_pto_linux`: packets_out == 1 or not). Measured: without it every
    /// `linux` probe of a FIN-carrying tail was 200 ms "early" for the observer.
    pub fn note_fin(&mut self) {
        self.fin_seen = true;
    }

    /// The sender's timestamp clock at `now`, read off the capture (module docs).
    fn ts_clock_at(&self, now: SimTime) -> Option<u32> {
        let (v, t) = self.ts_clock?;
        let ticks = now.saturating_since(t).as_nanos() / crate::timer::TS_CLOCK_TICK.as_nanos().max(1);
        Some(v.wrapping_add(ticks as u32))
    }

    /// The capture shows the sender's segment size: the largest payload seen. The profile's
    /// MSS stands in only until the first payload: the sender's SMSS is the smaller of its
    /// own and the peer's MSS option (RFC 9293 §3.7.1), which the capture shows and the
    /// profile does not. Measured: the profiles' 1460 against the corpus's 1448-byte segments
    /// counted a 1448-byte tail plus FIN as one segment, not two, for Linux's probe timeout.
    pub fn note_segment_size(&mut self, len: u32) {
        if len == 0 {
            return;
        }
        self.smss = if self.smss_seen { self.smss.max(u64::from(len)) } else { u64::from(len) };
        self.smss_seen = true;
    }

    pub fn snd_una(&self) -> SeqNum {
        self.snd_una
    }
    pub fn snd_nxt(&self) -> SeqNum {
        self.snd_nxt
    }
    pub fn phase(&self) -> RecoveryPhase {
        self.phase
    }
    pub fn scoreboard(&self) -> &Scoreboard {
        &self.sb
    }
    pub fn dupacks(&self) -> u32 {
        self.dupacks
    }
    /// When the DupThresh-th duplicate ACK arrived since SND.UNA last advanced.
    pub fn dupthresh_at(&self) -> Option<SimTime> {
        self.dupthresh_at
    }
    /// When IsLost(SND.UNA) first held since SND.UNA last advanced.
    pub fn islost_una_at(&self) -> Option<SimTime> {
        self.islost_una_at
    }

    /// Bounds the state of a capture that never shows the ACKs releasing it (one direction
    /// only): beyond `max_segments` recorded segments, the oldest are forgotten as if
    /// acknowledged (SND.UNA moves up to the oldest one kept).
    pub fn bound_state(&mut self, max_segments: usize) {
        let n = self.sb.len();
        if n <= max_segments {
            return;
        }
        if let Some(keep) = self.sb.get(n - max_segments).map(|g| g.start) {
            self.sb.cum_ack(keep);
            self.snd_una = keep;
        }
    }

    pub fn smss(&self) -> u64 {
        self.smss
    }
    pub fn rtt(&self) -> &dyn RttEstimator {
        self.rtt.as_ref()
    }
    /// The recovery style the profile's loss detector runs on this connection.
    pub fn style(&self) -> RecoveryStyle {
        self.loss.style()
    }

    /// DupThresh in force now (`rules::dupack_threshold`).
    pub fn dupack_threshold(&self) -> u32 {
        rules::dupack_threshold(self.dupthresh_rule, self.episode_dupthresh, u64::from(self.snd_nxt - self.snd_una), self.smss)
    }

    /// The retransmission timer: (started at, fires at).
    pub fn rto_timer(&self) -> (Option<SimTime>, Option<SimTime>) {
        (self.rto_started, self.timers.get(TimerKind::Rto))
    }

    /// Arms/cancels through the shared RFC 6298 rules and notes when the timer (re)started.
    fn track_rto<F: FnOnce(&mut Timers)>(&mut self, now: SimTime, f: F) {
        let before = self.timers.get(TimerKind::Rto);
        f(&mut self.timers);
        let after = self.timers.get(TimerKind::Rto);
        if after.is_none() {
            self.rto_started = None;
        } else if after != before {
            self.rto_started = Some(now);
        }
    }

    /// RFC 8985 §7.2: (re)arm the PTO while data is outstanding.
    fn schedule_pto(&mut self, now: SimTime) {
        if !self.tlp {
            return;
        }
        let data = u64::from(self.snd_nxt - self.snd_una);
        // The sender's flight includes its FIN (`note_fin`).
        let flight = data + u64::from(self.fin_seen && data > 0);
        if data == 0 || matches!(self.phase, RecoveryPhase::Recovery { .. } | RecoveryPhase::Loss { .. }) {
            self.pto_deadline = None;
            return;
        }
        let rto_remaining = self.timers.get(TimerKind::Rto).map(|t| t.saturating_since(now));
        let pto = rules::probe_timeout(self.pto_rule, self.rtt.srtt(), flight, self.smss, rto_remaining);
        // On the profile's timer clock, as the sender arms it (`Sender::tlp_schedule`: a
        // one-shot jiffy clock rounds the deadline up). Measured: exact deadlines put
        // `linux` probes up to one 4 ms jiffy after the observer's PTO.
        self.timers.arm(TimerKind::Pto, now, pto);
        self.pto_deadline = self.timers.get(TimerKind::Pto);
    }

    /// A data segment the capture shows. Returns the explanation when it is a
    /// retransmission (applied with the trigger the observer found).
    pub fn on_transmit(&mut self, now: SimTime, seq: SeqNum, len: u32, fin: bool) -> Option<Explanation> {
        self.advance(now);
        let end = seq + (len + u32::from(fin));
        if !seq.lt(self.snd_nxt) {
            self.on_new_data(now, seq, len, fin);
            return None;
        }
        let ex = self.explain(now, seq, end);
        self.apply_retransmission(now, seq, end, ex.trigger);
        Some(ex)
    }

    /// New data at or above SND.NXT.
    pub fn on_new_data(&mut self, now: SimTime, seq: SeqNum, len: u32, fin: bool) {
        self.note_segment_size(len);
        if seq.gt(self.snd_nxt) {
            // The capture missed the original of [SND.NXT, seq): one segment sent now.
            let gap = seq - self.snd_nxt;
            self.sb.push(SentSeg { start: self.snd_nxt, len: gap, fin: false, sent_at: now, flags: 0 });
        }
        let g = SentSeg { start: seq, len, fin, sent_at: now, flags: 0 };
        self.sb.push(g);
        self.snd_nxt = g.end();
        let timed = rules::rtt_source(self.sampling, self.ts_ok) == RttSource::TimedSegment;
        if timed && self.rtt_timing.is_none() {
            // RFC 6298 §3: time one segment per RTT.
            self.rtt_timing = Some((self.snd_nxt, now));
        }
        let rto = self.rtt.rto();
        if self.tlp && self.pto_deadline.is_some_and(|d| d <= now) {
            // RFC 8985 §7.3: when the PTO fires the sender "transmit[s] a new segment if
            // available" as the probe, and then the RTO, not the PTO, is armed (Linux
            // `tcp_send_loss_probe` → `tcp_rearm_rto`). New data sent once the PTO has expired
            // is that probe.
            self.pto_deadline = None;
            self.track_rto(now, |t| t.arm(TimerKind::Rto, now, rto));
            return;
        }
        self.track_rto(now, |t| rules::rto_timer_on_send(t, now, rto));
        self.schedule_pto(now);
    }

    /// Which triggers had fired for a retransmission of `[seq, end)` at `now`, without
    /// changing the observer.
    pub fn explain(&self, now: SimTime, seq: SeqNum, end: SeqNum) -> Explanation {
        let dupack_threshold = self.dupack_threshold();
        let rto_deadline = self.timers.get(TimerKind::Rto);
        let rto_fired = rto_deadline.is_some_and(|d| d <= now);
        let pto_fired = self.pto_deadline.is_some_and(|d| d <= now);
        let at_una = !seq.gt(self.snd_una);
        let is_tail = !end.lt(self.snd_nxt);
        let islost = self.sb.is_lost_at(seq);
        let rack_lost = self.rack.enabled && islost && !matches!(self.phase, RecoveryPhase::Loss { .. });
        let rack = if self.rack_marked.is_some_and(|m| m.1) { Trigger::RackTimer } else { Trigger::Rack };
        let trigger = match self.phase {
            // RFC 6298 (5.4): go-back-N after a timeout, or the backed-off repeat.
            RecoveryPhase::Loss { .. } => Trigger::Rto,
            _ if rto_fired && at_una => Trigger::Rto,
            // RFC 8985 §6: with RACK, losses are marked by time, not by IsLost or DupThresh.
            _ if rack_lost => rack,
            RecoveryPhase::Recovery { style, .. } => {
                if islost && (style == RecoveryStyle::Sack || !at_una) {
                    Trigger::IsLost
                } else if at_una && style == RecoveryStyle::NewReno {
                    Trigger::PartialAck
                } else if at_una && islost {
                    Trigger::IsLost
                } else {
                    Trigger::NextSeg
                }
            }
            RecoveryPhase::Open | RecoveryPhase::Disorder { .. } => {
                if self.dupacks >= dupack_threshold {
                    Trigger::DupThresh
                } else if self.islost_una_at.is_some() {
                    Trigger::IsLost
                } else if rto_fired {
                    Trigger::Rto
                } else if pto_fired && is_tail {
                    Trigger::Tlp
                } else {
                    Trigger::Unknown
                }
            }
        };
        Explanation {
            phase: self.phase,
            at_una,
            is_tail,
            dupacks: self.dupacks,
            dupack_threshold,
            dupthresh_at: self.dupthresh_at,
            dupthresh_next_at: self.dupthresh_next_at,
            islost,
            islost_una_at: self.islost_una_at,
            rack_lost,
            rack_deadline: self.rack_deadline,
            rack_marked_at: self.rack_marked.map(|m| m.0),
            rto_started: self.rto_started,
            rto_deadline,
            rto_fired,
            rto: self.rtt.rto(),
            pto_deadline: self.pto_deadline,
            pto_fired,
            trigger,
        }
    }

    /// What the observer expects next: the segment NextSeg() rule (1) would resend (found
    /// without moving the scoreboard's cursor) and the timers' deadlines.
    pub fn expected(&self) -> Expected {
        Expected {
            retransmit: self.sb.peek_next_retransmit().and_then(|i| self.sb.get(i)).map(|g| g.start),
            rto_at: self.timers.get(TimerKind::Rto),
            pto_at: self.pto_deadline,
        }
    }

    /// Applies a retransmission of `[seq, end)` at `now` as `trigger` decided it (a caller
    /// that decides differently from [`Observer::explain`] passes its own decision).
    pub fn apply_retransmission(&mut self, now: SimTime, seq: SeqNum, end: SeqNum, trigger: Trigger) {
        // Karn (RFC 6298 §3): no RTT sample from retransmitted data.
        self.rtt_timing = None;
        // The timer's expiry itself: the first retransmission of a timeout recovery, or a
        // backed-off repeat (the timer had fired); go-back-N followers are neither.
        let expired = trigger == Trigger::Rto
            && (!matches!(self.phase, RecoveryPhase::Loss { .. }) || self.timers.get(TimerKind::Rto).is_some_and(|d| d <= now));
        match trigger {
            _ if expired => {
                // RFC 6298 (5.4)-(5.6): back off, go-back-N, restart the timer.
                self.rtt.on_timeout();
                self.sb.mark_all_lost(self.snd_una, self.snd_nxt);
                self.phase = RecoveryPhase::Loss { recover: self.snd_nxt };
                self.pto_deadline = None;
                let rto = self.rtt.rto();
                self.track_rto(now, |t| t.arm(TimerKind::Rto, now, rto));
            }
            Trigger::DupThresh | Trigger::IsLost | Trigger::Rack | Trigger::RackTimer
                if matches!(self.phase, RecoveryPhase::Open | RecoveryPhase::Disorder { .. }) =>
            {
                // RFC 5681 §3.2 step 2 / RFC 6675 (4): fast retransmit enters recovery.
                self.sb.mark_front_lost();
                self.phase = RecoveryPhase::Recovery { recover: self.snd_nxt, style: self.loss.style(), first_rtx_done: true };
                self.pto_deadline = None;
            }
            Trigger::Tlp => {
                // RFC 8985 §7.3: after a probe the RTO, not the PTO, is armed.
                self.pto_deadline = None;
                let rto = self.rtt.rto();
                self.track_rto(now, |t| t.arm(TimerKind::Rto, now, rto));
            }
            _ => {}
        }
        if let Some(mut i) = self.sb.index_covering(seq) {
            while let Some(g) = self.sb.get(i).copied() {
                if !g.start.lt(end) {
                    break;
                }
                self.sb.on_retransmit(i, now);
                self.rack.on_retransmit(g.start, now);
                i += 1;
            }
        }
        let rto = self.rtt.rto();
        self.track_rto(now, |t| rules::rto_timer_on_send(t, now, rto));
    }

    /// An acknowledgment of this direction's data. `unseen_outstanding`: the sender may have
    /// data outstanding that has not passed the capture point yet (away from the sender),
    /// which satisfies RFC 5681 §2 (a) when the capture shows nothing outstanding.
    pub fn on_ack(&mut self, now: SimTime, seg: &Segment, unseen_outstanding: bool) -> AckView {
        let mut view = AckView::default();
        if !seg.flags.contains(TcpFlags::ACK) {
            return view;
        }
        self.advance(now);
        self.last_sample = None;
        self.sb.delivered = Default::default();
        // An ACK beyond what the capture showed covers data sent upstream of it.
        let ack = if seg.ack.gt(self.snd_nxt) { self.snd_nxt } else { seg.ack };
        if ack.lt(self.snd_una) {
            return view;
        }
        // RFC 7323 §2.3: the window field is shifted by Snd.Wind.Shift (as `Sender::on_ack`).
        let window = u64::from(seg.window) << self.snd_wscale;
        let window_changed = self.last_window.is_some_and(|w| w != window);
        self.last_window = Some(window);
        let mut fin_clamped = seg.options.sack;
        if seg.options.sack.as_slice().iter().any(|b| b.right == self.snd_nxt + 1) {
            // A receiver that SACKs the FIN (Linux: blocks run to end_seq = seq + fin + len,
            // `TcpConfig::sack_covers_fin`) reports one sequence number past the data this
            // observer was fed (data lengths only): that block ends at SND.NXT here, as the
            // cumulative ACK of the FIN is clamped above. Without this the block lies beyond
            // SND.NXT and is dropped as invalid (real kernel `tail-loss`: the SACK of the
            // probed FIN segment was ignored and RACK's repair came out `unknown`).
            fin_clamped = crate::segment::SackBlocks::new();
            for b in seg.options.sack.as_slice() {
                let right = if b.right == self.snd_nxt + 1 { self.snd_nxt } else { b.right };
                fin_clamped.push(crate::segment::SackBlock { left: b.left, right });
            }
        }
        let blocks = fin_clamped.as_slice();
        if !blocks.is_empty() {
            // RFC 6675 §5 Update() and RFC 2883 §4 D-SACK recognition, on the scoreboard.
            let up = self.sb.apply_sack(blocks, self.snd_una, ack, self.snd_nxt);
            view.newly_sacked = up.newly_sacked;
            view.changed_blocks = up.changed_blocks;
            view.dsack = up.dsack.then(|| blocks[0]);
        }
        let bytes_acked = u64::from(ack - self.snd_una);
        view.bytes_acked = bytes_acked;
        let had_outstanding = self.snd_nxt != self.snd_una || unseen_outstanding;
        let mut acked_newest = None;
        if bytes_acked > 0 {
            view.acked = self.sb.cum_ack(ack);
            // Linux tcp_clean_rtx_queue: last_ackt, the newest newly acknowledged segment.
            acked_newest = view.acked.newest_sent.filter(|_| !view.acked.ever_retransmitted);
            self.snd_una = ack;
            self.take_rtt_sample(now, ack, &view.acked, seg.options.timestamps.map(|t| t.1));
            self.dupacks = 0;
            self.episode_dupthresh = None;
            self.dupthresh_at = None;
            self.dupthresh_next_at = None;
            self.islost_una_at = None;
        }
        let dupthresh = self.dupack_threshold();
        let style = self.loss.style();
        if self.rack.enabled {
            // RFC 8985 §6.2 steps 1-4.
            // Step 1's sample: Linux's ca_rtt_us (SACK, then cumulative, then the TS echo on
            // the sender's clock read off the capture), the sender's rule.
            let rtt_sample = rules::rack_min_rtt_sample(&rules::CaRttInputs {
                now,
                acked_newest,
                sacked_newest: self.sb.delivered.newest_sacked_original,
                acked: bytes_acked > 0,
                ts: seg.options.timestamps.filter(|_| self.ts_ok).and_then(|(_, tsecr)| self.ts_clock_at(now).map(|c| (c, tsecr))),
            });
            let ev = RackAckEvent {
                now,
                delivered: self.sb.delivered,
                rtt_sample,
                dsack: view.dsack.is_some(),
                snd_una: self.snd_una,
                snd_nxt: self.snd_nxt,
            };
            self.rack.on_ack(&ev);
        }
        if (view.newly_sacked > 0 || bytes_acked > 0) && style == RecoveryStyle::Sack {
            if !self.rack.enabled {
                // RFC 6675 §4 IsLost over the scoreboard.
                self.sb.update_lost(dupthresh, self.smss);
            } else if self.rack.advanced {
                // RFC 8985 §6.2 step 5 replaces IsLost.
                self.rack_detect(now, false);
            }
        }
        let shape = AckShape {
            bytes_acked,
            had_outstanding,
            seg_len: seg.len,
            syn_or_fin: seg.flags.contains(TcpFlags::SYN) || seg.flags.contains(TcpFlags::FIN),
            window_changed,
            newly_sacked: view.newly_sacked,
        };
        view.is_dupack = rules::is_dupack(&shape, style);
        if view.is_dupack {
            if self.dupacks == 0 {
                self.episode_dupthresh = Some(dupthresh);
            }
            self.dupacks = self.dupacks.saturating_add(1);
            if self.dupacks == dupthresh {
                self.dupthresh_at = Some(now);
            } else if self.dupacks == dupthresh.saturating_add(1) {
                self.dupthresh_next_at = Some(now);
            }
        }
        if !self.rack.enabled
            && self.sb.front_is_lost()
            && self.islost_una_at.is_none()
            && !matches!(self.phase, RecoveryPhase::Loss { .. })
        {
            self.islost_una_at = Some(now);
        }
        let (front_is_lost, entry_dupthresh) = rules::loss_entry_inputs(self.rack.enabled, &self.sb, dupthresh);
        let ev = LossAckEvent {
            phase: self.phase,
            snd_una: self.snd_una,
            bytes_acked,
            is_dupack: view.is_dupack,
            new_sack_info: view.newly_sacked > 0,
            front_is_lost,
            dupack_threshold: entry_dupthresh,
        };
        let d = rules::rack_entry(self.loss.on_ack(&ev), self.rack.enabled, view.newly_sacked, &self.sb);
        view.decision = Some(d);
        match d {
            LossDecision::ExitRecovery | LossDecision::ExitLoss => {
                if self.rack.enabled {
                    self.rack.on_recovery_exit();
                }
                self.phase = RecoveryPhase::Open;
            }
            LossDecision::Advance => self.phase = RecoveryPhase::Open,
            LossDecision::Dupack { dupacks } => self.phase = RecoveryPhase::Disorder { dupacks },
            // The fast retransmit itself is applied when the capture shows it.
            LossDecision::EnterRecovery => {}
            LossDecision::PartialAck if style == RecoveryStyle::NewReno => self.sb.mark_front_lost(),
            _ => {}
        }
        let rto = self.rtt.rto();
        let all = self.snd_una == self.snd_nxt;
        self.track_rto(now, |t| rules::rto_timer_on_ack(t, now, rto, all, bytes_acked));
        if bytes_acked > 0 {
            self.schedule_pto(now);
        }
        view
    }

    /// RFC 8985 §6.2 step 5 / §6.3 at `now`: marks what RACK deems lost and re-arms the
    /// reordering timer (`sender/rack.rs` does the same for the sender).
    fn rack_detect(&mut self, now: SimTime, by_timer: bool) {
        let reo_wnd = rules::rack_reo_wnd(&self.rack, self.phase, self.sb.sacked_bytes(), self.smss, self.dupack_threshold(), self.rtt.srtt());
        let out = self.rack.detect_loss(&mut self.sb, now, reo_wnd);
        // Linux tcp_rack_mark_lost: "timeout = usecs_to_jiffies(timeout) + TCP_TIMEOUT_MIN".
        self.rack_deadline = out.timeout.map(|t| now.saturating_add(t + TCP_TIMEOUT_MIN));
        if out.newly_lost > 0 {
            self.rack_marked = Some((now, by_timer));
        }
    }

    /// Applies the timers that expired before `now` and act without a packet: RACK's
    /// reordering timer (RFC 8985 §6.3; Linux `tcp_rack_reo_timeout` marks, then the sender
    /// retransmits, which the capture shows next).
    pub fn advance(&mut self, now: SimTime) {
        while let Some(d) = self.rack_deadline.filter(|&d| d <= now) {
            self.rack_deadline = None;
            if self.snd_una != self.snd_nxt {
                self.rack_detect(d, true);
            }
        }
    }

    /// The sender's sampling rule (`rules::rtt_source`, as `Sender::take_rtt_sample`).
    fn take_rtt_sample(&mut self, now: SimTime, ack: SeqNum, acked: &CumAck, tsecr: Option<u32>) {
        let rtt = match rules::rtt_source(self.sampling, self.ts_ok) {
            // RFC 7323 §4.1 on the sender's clock read off the capture.
            RttSource::Timestamps => tsecr.zip(self.ts_clock_at(now)).and_then(|(e, clock)| rules::ts_rtt_sample(clock, e)),
            RttSource::PerAckKarn => acked.karn_sample(now),
            RttSource::TimedSegment => match self.rtt_timing {
                Some((end, sent)) if ack.ge(end) => {
                    self.rtt_timing = None;
                    Some(now.saturating_since(sent))
                }
                _ => None,
            },
        };
        self.last_sample = rtt;
        if let Some(r) = rtt {
            self.rtt.on_sample(&RttSampleEvent { now, rtt: r, snd_una: self.snd_una, snd_nxt: self.snd_nxt });
        }
    }

    /// The RTT sample the latest [`Observer::on_ack`] gave the estimator, if it gave one.
    pub fn last_rtt_sample(&self) -> Option<SimDuration> {
        self.last_sample
    }

    /// The retransmission timeout the profile's estimator gives now (backed off).
    pub fn rto(&self) -> SimDuration {
        self.rtt.rto()
    }
}

#[cfg(test)]
mod tests;
