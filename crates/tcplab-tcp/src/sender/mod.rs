//! The sending half: SND.UNA/SND.NXT/SND.WND, the retransmission queue and scoreboard, the
//! recovery phase, and the algorithm seams (RTT estimator, congestion controller, loss
//! detector, startup policy, spurious detector) whose decisions it applies.
//!
//! Ambiguities resolved:
//! - SND.NXT is never pulled back after an RTO (unlike BSD's `snd_nxt = snd_una`): the
//!   go-back-N retransmission is expressed by marking every outstanding, un-SACKed segment
//!   lost and retransmitting the marked segments in order, subject to `cwnd - pipe`. This
//!   keeps one code path for SACK and non-SACK connections, and SACKed data is skipped.
//! - Which "flight" gates new data: FlightSize (SND.NXT - SND.UNA) in Open/Disorder (plus the
//!   RFC 3042 allowance) and in NewReno recovery (against the inflated cwnd); `pipe` in RFC 6675
//!   recovery and in timeout recovery.
//! - Karn's rule without timestamps: the timed segment is forgotten on *any*
//!   retransmission (as BSD does), not only when the timed segment itself is resent.
//! - Timestamp RTT samples are taken from every ACK that advances SND.UNA (RFC 7323 §4.1); the
//!   echoed TSval is that of the segment that advanced the receiver's left edge, so samples are
//!   unambiguous even for retransmitted data.
//! - Segments are sent only full-sized unless they carry the last queued byte (sender SWS
//!   avoidance, RFC 9293 §3.8.6.2.1); Nagle is off (the simulated application writes in bulk).
//! - RFC 6582 §4: the retransmission timer is reset on every partial ACK ("Slow-but-Steady"),
//!   which is what RFC 6298 (5.3) says for any ACK of new data.
//! - RTT sampling follows [`RttSampling`]: `Auto` is the rule above (timestamps on every ACK
//!   that advances SND.UNA, else one timed segment per RTT); `PerAck` without timestamps takes
//!   the send time of the oldest newly acknowledged segment, and no sample when any of them
//!   was ever retransmitted (Karn; Linux 2.4 `tcp_clean_rtx_queue`); `PerFlight` always times
//!   one segment per RTT and ignores timestamps for RTT.
//! - The adaptive dupACK threshold (003 §V-D, D = max(1, min(3, F − 2))) takes F =
//!   ⌈(SND.NXT − SND.UNA) / SMSS⌉ when the first duplicate ACK of an episode arrives (after
//!   the ACK was applied), and keeps that D while the episode lasts (Disorder, Recovery), so
//!   that RFC 3042 segments sent on the first duplicates do not raise it. The same D is
//!   RFC 6675's DupThresh for IsLost.

pub mod quickstart;
pub mod recovery;
pub mod rules;
pub mod scoreboard;
pub mod startup;
mod rack;
mod tlp;
mod undo;

use crate::cc::{CcAckEvent, CcLossEvent, CcState, CongestionController, RecoveryStyle};
use crate::config::{DupAckThreshold, RecoveryAlgorithm, RttSampling, TcpConfig};
use crate::conn::ConnStats;
use crate::event::{RecoveryKind, RetransCause, TcpEvent};
use crate::loss::{LossAckEvent, LossDecision, LossDetector, NewRenoDetector, RecoveryPhase};
use crate::rtt::{RttEstimator, RttSampleEvent};
use crate::segment::{Segment, TcpFlags};
use crate::seq::SeqNum;
use crate::spurious::response::{ResponseInput, SpuriousResponder};
use crate::spurious::{RtoAction, SpuriousAckEvent, SpuriousDetector, SpuriousRtoEvent, SpuriousVerdict};
use crate::config::SpuriousDetection;
use crate::startup::{StartupEvent, StartupPolicy};
use crate::timer::{ts_now, TimerKind, Timers};
use crate::trace::Trace;
use recovery::{AckInput, SenderRecovery};
use scoreboard::{Scoreboard, SentSeg};
use tcplab_time::{SimDuration, SimTime};

/// RFC 6675 §4 NextSeg() rule (4) ("rescue" retransmission, optional in the RFC): enabled by
/// default; one tail retransmission per recovery when nothing else can be sent.
pub const RFC6675_RESCUE_RETRANSMISSION: bool = true;

/// RFC 3042 §2: Limited Transmit may send while outstanding data stays within cwnd + 2*SMSS.
pub const LIMITED_TRANSMIT_SEGMENTS: u32 = 2;

/// F-RTO's control of transmissions after an RTO (dissertation §4.2; RFC 5682 §2/§3). `Off`
/// unless an F-RTO detector chose [`RtoAction::FrtoProbe`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FrtoGate {
    Off,
    /// Step 1: the one retransmission of the first unacknowledged segment is due.
    Probe,
    /// Steps 2/3: nothing is sent until the next ACK decides.
    Hold,
    /// Step 2a: up to `left` new segments may go regardless of cwnd (not of the peer window).
    SendNew { left: u32 },
}

/// A segment the sender wants on the wire (the connection adds ACK, window and options).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DataOut {
    pub seq: SeqNum,
    pub len: u32,
    pub fin: bool,
    pub cause: Option<RetransCause>,
}

/// Outcome of an incoming ACK.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct AckOutcome {
    /// The ACK acknowledged something not yet sent (RFC 9293: answer with an ACK, drop).
    pub ack_unsent: bool,
    /// Our FIN is acknowledged.
    pub fin_acked: bool,
}

/// The sending half of a connection.
#[derive(Clone, Debug)]
pub struct Sender {
    /// RFC 9293 SND.UNA.
    pub snd_una: SeqNum,
    /// RFC 9293 SND.NXT (never pulled back: it is also SND.MAX / RFC 6675 HighData).
    pub snd_nxt: SeqNum,
    /// RFC 9293 SND.WND in bytes (scaled).
    pub snd_wnd: u64,
    snd_wl1: SeqNum,
    snd_wl2: SeqNum,
    /// RFC 7323 Snd.Wind.Shift.
    pub snd_wscale: u8,
    /// Sender MSS (payload bytes per segment).
    pub smss: u64,
    /// RFC 5681 cwnd and ssthresh.
    pub cc: CcState,
    pub phase: RecoveryPhase,
    pub sb: Scoreboard,
    app_total: u64,
    app_sent: u64,
    unlimited: bool,
    pub fin_queued: bool,
    fin_sent: bool,
    /// Segment timed for an RTT sample without timestamps: (end sequence, send time).
    pub(crate) rtt_timing: Option<(SeqNum, SimTime)>,
    pub(crate) consecutive_rtos: u32,
    /// RFC 6675 RescueRxt (None = undefined).
    rescue_rxt: Option<SeqNum>,
    /// Use RFC 6675 rule (4) rescue retransmissions.
    pub rescue_enabled: bool,
    persist_backoff: u32,
    /// Upper bound of the persist interval (the configured maximum RTO).
    persist_max: SimDuration,
    pub sack_ok: bool,
    pub ts_ok: bool,
    established: bool,
    dupthresh: DupAckThreshold,
    /// D in force for the current duplicate-ACK episode.
    episode_dupthresh: u32,
    rtt_sampling: RttSampling,
    limited_transmit: bool,
    send_buffer: u64,
    pub(crate) recovery_cfg: RecoveryAlgorithm,
    pub rtt: Box<dyn RttEstimator>,
    pub ccalg: Box<dyn CongestionController>,
    pub loss: Box<dyn LossDetector>,
    pub startup: Box<dyn StartupPolicy>,
    pub spurious: Box<dyn SpuriousDetector>,
    /// The response applied when `spurious` declares a timeout spurious.
    pub responder: Box<dyn SpuriousResponder>,
    pub frto_gate: FrtoGate,
    /// (cwnd, ssthresh) before the first RTO of the current timeout episode (Linux
    /// `prior_cwnd` / `prior_ssthresh`).
    pub prior_cc: CcState,
    /// FlightSize when that RTO fired.
    pub flight_at_rto: u64,
    /// CC 3: no new data is sent until SND.UNA reaches this point (cleared by an RTO).
    pub hold_until: Option<SeqNum>,
    /// When the current fast recovery began (F-RTO cut-off for RTOs during fast recovery).
    recovery_started_at: Option<SimTime>,
    /// The initial window in bytes (RFC 4015's IW).
    initial_cwnd: u64,
    /// 000 §4.2 ssthresh estimation and pacing state (`startup.rs`).
    pub ss: startup::StartupState,
    /// The sender engine (`recovery.rs`): the RFC engine, or the Linux 2.4 engine
    /// (`crate::linux::Linux24`) when `TcpConfig::sender` is `Linux`, which then replaces the
    /// loss/cc/spurious seams. Taken out while one of its hooks runs (`with_recovery`).
    pub recovery: Option<Box<dyn SenderRecovery>>,
    /// RFC 8985 §7 Tail Loss Probe state (`tlp.rs`; inert unless `TcpConfig::tlp` with the
    /// RFC sender).
    pub tlp: crate::loss::tlp::Tlp,
    /// Quick-Start (`quickstart.rs`); `None` unless this endpoint requests.
    pub qs: Option<crate::startup::quickstart::QsHost>,
    /// RFC 3168 ECN state of this endpoint, both halves (`crate::ecn`).
    pub ecn: crate::ecn::EcnState,
    /// Linux `ca_rtt_us` of the ACK being processed (`cc::CcAckEvent::rtt`).
    ca_rtt: Option<SimDuration>,
    /// RFC 6937 PRR state (`loss/prr.rs`; inert unless `TcpConfig::prr`).
    pub prr: crate::loss::prr::Prr,
    /// RFC 8985 RACK state (`loss/rack.rs`, `rack.rs`; inert unless `TcpConfig::rack` with
    /// SACK).
    pub rack: crate::loss::rack::Rack,
    /// Today's Linux cwnd undo in fast recovery (`linux/cwnd_undo.rs`, `undo.rs`; inert unless
    /// `TcpConfig::cwnd_undo`).
    pub undo: crate::linux::cwnd_undo::CwndUndo,
    /// `TcpConfig::abc` (byte counting as Linux counts): the controller is credited with the
    /// bytes an ACK newly delivered, not the bytes it cumulatively acknowledged
    /// (`AckInput::delivered`, Linux `tcp_cong_control`'s `acked_sacked`).
    pub count_delivered: bool,
}

impl Sender {
    pub fn new(cfg: &TcpConfig, iss: SeqNum) -> Self {
        let smss = u64::from(cfg.mss.max(1));
        Sender {
            snd_una: iss,
            snd_nxt: iss,
            snd_wnd: 0,
            snd_wl1: SeqNum(0),
            snd_wl2: SeqNum(0),
            snd_wscale: 0,
            smss,
            cc: CcState { cwnd: smss, ssthresh: cfg.initial_ssthresh },
            phase: RecoveryPhase::Open,
            sb: Scoreboard::new(iss),
            app_total: 0,
            app_sent: 0,
            unlimited: false,
            fin_queued: false,
            fin_sent: false,
            rtt_timing: None,
            consecutive_rtos: 0,
            rescue_rxt: None,
            rescue_enabled: RFC6675_RESCUE_RETRANSMISSION,
            persist_backoff: 0,
            persist_max: cfg.rto.max,
            sack_ok: false,
            ts_ok: false,
            established: false,
            dupthresh: cfg.dupack_threshold,
            episode_dupthresh: cfg.dupack_threshold.for_flight(0),
            rtt_sampling: cfg.rtt_sampling,
            limited_transmit: cfg.limited_transmit,
            send_buffer: cfg.send_buffer,
            recovery_cfg: cfg.recovery,
            rtt: crate::rtt::build(cfg),
            ccalg: crate::cc::build(cfg),
            loss: Box::new(NewRenoDetector),
            startup: crate::startup::build(cfg),
            spurious: crate::spurious::build(&cfg.spurious),
            responder: crate::spurious::response::build(cfg.spurious.response),
            frto_gate: FrtoGate::Off,
            prior_cc: CcState { cwnd: smss, ssthresh: cfg.initial_ssthresh },
            flight_at_rto: 0,
            hold_until: None,
            recovery_started_at: None,
            initial_cwnd: smss,
            ss: startup::StartupState::new(cfg),
            recovery: Some(recovery::build(cfg)),
            tlp: crate::loss::tlp::Tlp {
                pto_rule: cfg.tlp_pto,
                ..crate::loss::tlp::Tlp::new(cfg.tlp && cfg.sender == crate::config::SenderModel::Rfc)
            },
            ca_rtt: None,
            prr: crate::loss::prr::Prr::new(cfg.prr),
            rack: crate::loss::rack::Rack::new(cfg.rack && cfg.sender == crate::config::SenderModel::Rfc),
            undo: crate::linux::cwnd_undo::CwndUndo::new(cfg.cwnd_undo && cfg.sender == crate::config::SenderModel::Rfc),
            count_delivered: cfg.abc,
            qs: (cfg.quick_start.active() && cfg.sender == crate::config::SenderModel::Rfc)
                .then(|| crate::startup::quickstart::QsHost::new(cfg.quick_start, iss)),
            ecn: crate::ecn::EcnState::new(cfg.ecn),
        }
    }

    /// Re-initialises this sender as [`Sender::new`]`(cfg, iss)` builds one, in place (called by
    /// `Connection::reset_client` / `reset_server` when a driver opens the next connection in
    /// a finished one's endpoint slot). The boxed algorithm objects are kept when they can
    /// become what `new` would build (the algorithm traits' `reset` hooks: `rtt`, `cc`,
    /// `startup` `reset_or_build`) and built anew otherwise; the zero-sized ones (loss detector,
    /// spurious detector and responder of the RFC defaults, the RFC engine) cost nothing to
    /// build. Every other field gets the value `new` gives it; the destructuring names every
    /// field, so a field added to `Sender` does not compile until it is handled here too.
    /// Equality with `new` is tested field by field (`Debug`) and by behaviour
    /// (`tests/reset.rs`).
    pub fn reset(&mut self, cfg: &TcpConfig, iss: SeqNum) {
        let smss = u64::from(cfg.mss.max(1));
        let Sender {
            snd_una,
            snd_nxt,
            snd_wnd,
            snd_wl1,
            snd_wl2,
            snd_wscale,
            smss: my_smss,
            cc,
            phase,
            sb,
            app_total,
            app_sent,
            unlimited,
            fin_queued,
            fin_sent,
            rtt_timing,
            consecutive_rtos,
            rescue_rxt,
            rescue_enabled,
            persist_backoff,
            persist_max,
            sack_ok,
            ts_ok,
            established,
            dupthresh,
            episode_dupthresh,
            rtt_sampling,
            limited_transmit,
            send_buffer,
            recovery_cfg,
            rtt,
            ccalg,
            loss,
            startup,
            spurious,
            responder,
            frto_gate,
            prior_cc,
            flight_at_rto,
            hold_until,
            recovery_started_at,
            initial_cwnd,
            ss,
            recovery,
            tlp,
            qs,
            ecn,
            ca_rtt,
            prr,
            rack,
            undo,
            count_delivered,
        } = self;
        *snd_una = iss;
        *snd_nxt = iss;
        *snd_wnd = 0;
        *snd_wl1 = SeqNum(0);
        *snd_wl2 = SeqNum(0);
        *snd_wscale = 0;
        *my_smss = smss;
        *cc = CcState { cwnd: smss, ssthresh: cfg.initial_ssthresh };
        *phase = RecoveryPhase::Open;
        sb.reset(iss);
        *app_total = 0;
        *app_sent = 0;
        *unlimited = false;
        *fin_queued = false;
        *fin_sent = false;
        *rtt_timing = None;
        *consecutive_rtos = 0;
        *rescue_rxt = None;
        *rescue_enabled = RFC6675_RESCUE_RETRANSMISSION;
        *persist_backoff = 0;
        *persist_max = cfg.rto.max;
        *sack_ok = false;
        *ts_ok = false;
        *established = false;
        *dupthresh = cfg.dupack_threshold;
        *episode_dupthresh = cfg.dupack_threshold.for_flight(0);
        *rtt_sampling = cfg.rtt_sampling;
        *limited_transmit = cfg.limited_transmit;
        *send_buffer = cfg.send_buffer;
        *recovery_cfg = cfg.recovery;
        crate::rtt::reset_or_build(rtt, cfg);
        crate::cc::reset_or_build(ccalg, cfg);
        *loss = Box::new(NewRenoDetector);
        crate::startup::reset_or_build(startup, cfg);
        *spurious = crate::spurious::build(&cfg.spurious);
        *responder = crate::spurious::response::build(cfg.spurious.response);
        *frto_gate = FrtoGate::Off;
        *prior_cc = CcState { cwnd: smss, ssthresh: cfg.initial_ssthresh };
        *flight_at_rto = 0;
        *hold_until = None;
        *recovery_started_at = None;
        *initial_cwnd = smss;
        *ss = startup::StartupState::new(cfg);
        *recovery = Some(recovery::build(cfg));
        *tlp = crate::loss::tlp::Tlp {
            pto_rule: cfg.tlp_pto,
            ..crate::loss::tlp::Tlp::new(cfg.tlp && cfg.sender == crate::config::SenderModel::Rfc)
        };
        *ca_rtt = None;
        *prr = crate::loss::prr::Prr::new(cfg.prr);
        *rack = crate::loss::rack::Rack::new(cfg.rack && cfg.sender == crate::config::SenderModel::Rfc);
        *undo = crate::linux::cwnd_undo::CwndUndo::new(cfg.cwnd_undo && cfg.sender == crate::config::SenderModel::Rfc);
        *count_delivered = cfg.abc;
        *qs = (cfg.quick_start.active() && cfg.sender == crate::config::SenderModel::Rfc)
            .then(|| crate::startup::quickstart::QsHost::new(cfg.quick_start, iss));
        *ecn = crate::ecn::EcnState::new(cfg.ecn);
    }

    /// The handshake completed. Called once, with the negotiated parameters.
    #[allow(clippy::too_many_arguments)]
    pub fn on_established(&mut self, seg: &Segment, smss: u64, snd_wscale: u8, sack_ok: bool, ts_ok: bool, handshake_rtx: bool) {
        self.smss = smss.max(1);
        self.snd_wscale = snd_wscale;
        self.sack_ok = sack_ok;
        self.ts_ok = ts_ok;
        self.snd_una = self.snd_nxt;
        self.sb.reset(self.snd_una);
        // RFC 7323 §2.2: the window of a SYN is never scaled; the server learns the window
        // from the (scaled) third segment.
        self.snd_wnd = if seg.flags.contains(TcpFlags::SYN) {
            u64::from(seg.window)
        } else {
            u64::from(seg.window) << snd_wscale
        };
        self.snd_wl1 = seg.seq;
        self.snd_wl2 = seg.ack;
        let ev = StartupEvent { smss: self.smss, handshake_retransmitted: handshake_rtx };
        self.cc = CcState { cwnd: self.startup.initial_cwnd(&ev), ssthresh: self.startup.initial_ssthresh(&ev) };
        self.initial_cwnd = self.cc.cwnd;
        // RFC 6675 needs SACK from the peer; otherwise fall back to RFC 6582.
        self.loss = crate::loss::for_connection(self.recovery_cfg, sack_ok);
        // RACK needs SACK (Linux `tcp_is_rack`; without SACK the NewReno rules run).
        self.rack.enabled &= sack_ok && self.recovery_cfg == RecoveryAlgorithm::Sack;
        // RFC 8985 §6.2 step 3 compares with RACK.fack modulo 2^32: it starts at SND.UNA (a
        // zero start reads every sequence number above 2^31 as reordering).
        self.rack.fack = self.snd_una;
        if handshake_rtx {
            self.rtt.on_handshake_retransmitted();
        }
        self.established = true;
        self.with_recovery(|r, s| r.on_established(s));
    }

    /// Runs one hook of the sender engine with the engine taken out of `self` (so it gets
    /// `&mut Sender` and its own state without aliasing). Allocation-free: the stand-in
    /// while an engine is out is never used, and the RFC engine is a zero-sized box.
    #[inline]
    fn with_recovery<R>(&mut self, f: impl FnOnce(&mut dyn SenderRecovery, &mut Sender) -> R) -> R {
        let mut r = self.recovery.take().unwrap_or_else(|| Box::new(recovery::RfcRecovery));
        let out = f(r.as_mut(), self);
        self.recovery = Some(r);
        out
    }

    pub fn send(&mut self, bytes: u64) {
        self.app_total = self.app_total.saturating_add(bytes);
    }
    pub fn send_unlimited(&mut self) {
        self.unlimited = true;
    }
    pub fn close(&mut self) {
        self.fin_queued = true;
    }

    #[inline]
    pub(crate) fn unsent(&self) -> u64 {
        if self.unlimited {
            u64::MAX
        } else {
            self.app_total - self.app_sent
        }
    }

    /// Bytes outstanding (SND.NXT - SND.UNA).
    #[inline]
    pub fn flight_size(&self) -> u64 {
        u64::from(self.snd_nxt - self.snd_una)
    }

    /// The fast-retransmit threshold D now (003 §V-D when adaptive; module docs).
    #[inline]
    pub fn dupack_threshold(&self) -> u32 {
        let episode = matches!(self.phase, RecoveryPhase::Disorder { .. } | RecoveryPhase::Recovery { .. })
            .then_some(self.episode_dupthresh);
        rules::dupack_threshold(self.dupthresh, episode, self.flight_size(), self.smss)
    }

    /// RFC 6675 pipe.
    #[inline]
    pub fn pipe(&self) -> u64 {
        self.sb.pipe(self.snd_una, self.snd_nxt)
    }

    /// The initial window chosen at establishment (bytes).
    pub fn initial_cwnd(&self) -> u64 {
        self.initial_cwnd
    }

    /// What `cc_snapshot` reports as bytes in flight.
    pub fn bytes_in_flight(&self) -> u64 {
        match self.recovery.as_deref() {
            Some(r) => r.bytes_in_flight(self),
            None => self.rfc_bytes_in_flight(),
        }
    }

    /// The RFC engine's bytes in flight: `pipe` where RFC 6675 / timeout recovery send by
    /// it, FlightSize otherwise.
    pub(crate) fn rfc_bytes_in_flight(&self) -> u64 {
        match self.phase {
            RecoveryPhase::Recovery { style: RecoveryStyle::Sack, .. } | RecoveryPhase::Loss { .. } => self.pipe(),
            _ => self.flight_size(),
        }
    }

    /// Everything written (and the FIN, if closed) is acknowledged.
    pub fn is_send_complete(&self) -> bool {
        self.established
            && !self.unlimited
            && self.app_sent == self.app_total
            && (!self.fin_queued || self.fin_sent)
            && self.snd_una == self.snd_nxt
    }

    fn fin_acked(&self) -> bool {
        self.fin_sent && self.snd_una == self.snd_nxt
    }

    /// Processes the acknowledgment part of a segment in a synchronized state.
    pub fn on_ack(&mut self, now: SimTime, seg: &Segment, timers: &mut Timers, trace: &mut Trace) -> AckOutcome {
        let mut out = AckOutcome::default();
        if !self.established || !seg.flags.contains(TcpFlags::ACK) {
            return out;
        }
        let ack = seg.ack;
        // RFC 9293 §3.10.7.4: an ACK for something not yet sent is answered and dropped.
        if ack.gt(self.snd_nxt) {
            out.ack_unsent = true;
            return out;
        }
        // RFC 9293 §3.10.7.4: old duplicate ACK, ignore.
        if ack.lt(self.snd_una) {
            return out;
        }
        // RFC 9293 §3.10.7.4: window update when SND.WL1 < SEG.SEQ, or SND.WL1 = SEG.SEQ and
        // SND.WL2 =< SEG.ACK.
        let old_wnd = self.snd_wnd;
        if self.snd_wl1.lt(seg.seq) || (self.snd_wl1 == seg.seq && self.snd_wl2.le(ack)) {
            self.snd_wnd = u64::from(seg.window) << self.snd_wscale;
            self.snd_wl1 = seg.seq;
            self.snd_wl2 = ack;
        }
        let window_changed = old_wnd != self.snd_wnd;
        if self.snd_wnd > 0 {
            timers.cancel(TimerKind::Persist);
            self.persist_backoff = 0;
        }

        // RFC 6675 §5: update the scoreboard from the SACK blocks.
        let mut newly_sacked = 0;
        let mut dsack = false;
        let prior_sacked = self.sb.sacked_bytes();
        self.sb.orig_newly_acked = false;
        self.sb.delivered = Default::default();
        let prior_snd_una = self.snd_una;
        if self.sack_ok && !seg.options.sack.is_empty() {
            let up = self.sb.apply_sack(seg.options.sack.as_slice(), self.snd_una, ack, self.snd_nxt);
            newly_sacked = up.newly_sacked;
            dsack = up.dsack;
        }

        let bytes_acked = u64::from(ack - self.snd_una);
        self.ca_rtt = None;
        let had_outstanding = self.snd_nxt != self.snd_una;
        let mut newest_sent = None;
        if bytes_acked > 0 {
            let acked = self.sb.cum_ack(ack);
            newest_sent = acked.newest_sent.filter(|_| !acked.ever_retransmitted);
            // Linux tcp_clean_rtx_queue: ca_rtt_us from the newest newly acknowledged segment.
            self.ca_rtt = newest_sent.map(|t| now.saturating_since(t));
            self.snd_una = ack;
            self.take_rtt_sample(now, seg, ack, acked, trace);
            self.consecutive_rtos = 0;
        }
        // Linux tcp_newly_delivered: "delivered = tp->delivered - prior_delivered;" (newly
        // SACKed, plus cumulatively acknowledged and not SACKed before; `AckInput::delivered`).
        let delivered = (bytes_acked + self.sb.sacked_bytes()).saturating_sub(prior_sacked);
        let a = AckInput { now, seg, prior_snd_una, bytes_acked, delivered, newly_sacked, dsack, had_outstanding, window_changed, newest_sent };
        self.with_recovery(|r, s| r.on_ack(s, &a, timers, trace));
        out.fin_acked = self.fin_acked();
        out
    }

    /// The RFC engine's ACK path (`recovery::RfcRecovery`), after the shared plumbing.
    /// `#[inline]`: its one caller is the RFC engine's hook; without the hint LLVM stopped
    /// inlining it there when the scoreboard reset changed (issue 12 session 7: +0.5 %
    /// instructions on `10x1G`).
    #[inline]
    pub(crate) fn rfc_on_ack(&mut self, a: &AckInput<'_>, timers: &mut Timers, trace: &mut Trace) {
        let AckInput { now, seg, prior_snd_una, bytes_acked, delivered, newly_sacked, dsack, had_outstanding, window_changed, newest_sent } = *a;
        let ack = seg.ack;
        if self.qs.is_some() {
            // Quick-Start: the Response (matched by its arrival: the receiver echoes on the next
            // ACK it sends, so a retransmitted carrier still gives a valid RTT for eq. 6.1), the
            // end of the QS phase, and an ECN echo on QS packets (`quickstart.rs`).
            self.qs_on_response(now, seg, false, timers);
            if bytes_acked > 0 {
                self.qs_on_ack(prior_snd_una, timers);
            }
            if seg.flags.contains(TcpFlags::ECE) {
                self.qs_on_congestion(prior_snd_una, false, timers);
            }
        }
        // A partial ACK in fast recovery (Linux: FLAG_SND_UNA_ADVANCED in TCP_CA_Recovery).
        let partial = bytes_acked > 0 && matches!(self.phase, RecoveryPhase::Recovery { recover, .. } if self.snd_una.lt(recover));
        // Linux tcp_check_dsack / tcp_try_undo_partial / tcp_try_undo_dsack (`undo.rs`); `held`:
        // the partial undo held the recovery, no losses are marked on this ACK.
        let held = self.undo.enabled && self.undo_on_ack(now, seg, dsack, partial, trace);
        let dupthresh = self.dupack_threshold();
        self.episode_dupthresh = dupthresh;
        // RFC 6675 IsLost marking only when RFC 6675 runs; NewReno (RFC 6582) retransmits
        // only the segment at SND.UNA even if the peer sends SACK blocks.
        let mut newly_lost = 0;
        if self.rack.enabled {
            // RFC 8985 §6.2 steps 1-4.
            self.rack_on_ack(now, dsack, seg, bytes_acked > 0, newest_sent);
            if partial {
                // Linux tcp_try_undo_partial: a delayed original filled the hole (`rack.rs`).
                self.rack_on_partial_ack(seg);
            }
        }
        if (newly_sacked > 0 || bytes_acked > 0) && self.loss.style() == RecoveryStyle::Sack && !held {
            newly_lost = if !self.rack.enabled {
                self.sb.update_lost(dupthresh, self.smss)
            } else if self.rack.advanced {
                // RFC 8985 step 5 replaces IsLost (Linux: no tcp_update_scoreboard with RACK).
                self.rack_detect(now, timers)
            } else {
                0
            };
        }

        // RFC 6675 §2 / RFC 5681 §2 duplicate ACK (`rules.rs`, shared with the observer).
        let shape = rules::AckShape {
            bytes_acked,
            had_outstanding,
            seg_len: seg.len,
            syn_or_fin: seg.flags.contains(TcpFlags::SYN) || seg.flags.contains(TcpFlags::FIN),
            window_changed,
            newly_sacked,
        };
        let is_dupack = rules::is_dupack(&shape, self.loss.style());
        // With RACK recovery starts on a proven loss, not on a duplicate count (`rules.rs`).
        let (front_is_lost, entry_dupthresh) = rules::loss_entry_inputs(self.rack.enabled, &self.sb, dupthresh);
        let ev = LossAckEvent {
            phase: self.phase,
            snd_una: self.snd_una,
            bytes_acked,
            is_dupack,
            new_sack_info: newly_sacked > 0,
            // With RACK, recovery starts when RACK proved a loss (Linux tcp_time_to_recover
            // "Trick#1: The loss is proven"), never by counting duplicate ACKs.
            front_is_lost,
            dupack_threshold: entry_dupthresh,
        };
        // Spurious-timeout detection (skipped entirely without a detector, so the RFC sender
        // is unchanged): F-RTO's verdicts replace the loss detector's for the ACKs it uses.
        let consumed = self.spurious.kind() != SpuriousDetection::None && {
            // RFC 5681 §2 duplicate ACK, whatever the recovery style (F-RTO, RFC 5682 §2).
            let dup5681 = rules::is_dupack_rfc5681(&shape);
            let sev = self.spurious_ack_event(now, seg, ack, prior_snd_una, bytes_acked, dup5681, dsack);
            let verdict = self.spurious.on_ack(&sev);
            self.apply_spurious(now, verdict, ack, bytes_acked, trace)
        };
        let cc_before = self.cc;
        if !consumed {
            // Linux tcp_ack_is_dubious -> tcp_time_to_recover with RACK (`rules.rs`).
            let decision = rules::rack_entry(self.loss.on_ack(&ev), self.rack.enabled, newly_sacked, &self.sb);
            // Held by tcp_try_undo_partial: "do not mark more packets lost or retransmit more"
            // (a NewReno partial ACK's retransmission of SND.UNA included).
            let decision = if held && decision == LossDecision::PartialAck { LossDecision::None } else { decision };
            let cwnd_before = self.cc.cwnd;
            // What the controller is credited with (`count_delivered`, `apply`).
            let credited = if self.count_delivered { delivered } else { bytes_acked };
            self.apply(now, decision, bytes_acked, credited, trace);
            if self.qs.is_some() {
                if decision == LossDecision::EnterRecovery {
                    // Quick-Start failure if the lost segment is a QS packet (§3.6).
                    self.qs_on_congestion(self.snd_una, false, timers);
                } else {
                    // Slow start through the recovery a failure started (`quickstart.rs`).
                    self.qs_after_ack(cwnd_before, bytes_acked, decision);
                }
            }
        }
        if self.ecn.negotiated && seg.flags.contains(TcpFlags::ECE) {
            self.ecn_on_ack(seg, cc_before);
        }
        if self.prr.active {
            // RFC 6937 / Linux tcp_cwnd_reduction: the recovery window after this ACK.
            self.prr_on_ack(bytes_acked + newly_sacked, bytes_acked > 0, newly_lost > 0);
        }
        // 000 §4.2: ssthresh estimation and pacing in the initial slow start.
        self.startup_on_ack(now, bytes_acked, newest_sent, timers);
        if self.tlp.enabled {
            // RFC 8985 §7.4: the end of a TLP episode (`tlp.rs`).
            let prior_flight = u64::from(self.snd_nxt - prior_snd_una);
            self.tlp_on_ack(seg, prior_flight, bytes_acked, newly_sacked, dsack, window_changed);
        }

        // RFC 6298 (5.2): all outstanding data acknowledged -> turn off the timer;
        // (5.3): new data acknowledged -> restart it.
        rules::rto_timer_on_ack(timers, now, self.rtt.rto(), self.snd_una == self.snd_nxt, bytes_acked);
        if self.tlp.enabled {
            // RFC 8985 §7.2: restart the PTO on an ACK of new data (after the RTO, which
            // bounds it).
            self.tlp_after_ack(now, bytes_acked, timers);
        }
    }

    fn take_rtt_sample(&mut self, now: SimTime, seg: &Segment, ack: SeqNum, acked: scoreboard::CumAck, trace: &mut Trace) {
        let mut rtt = None;
        match rules::rtt_source(self.rtt_sampling, self.ts_ok) {
            // RFC 7323 §4.1: RTT = current time - SEG.TSecr on ACKs that advance SND.UNA.
            rules::RttSource::Timestamps => rtt = seg.options.timestamps.and_then(|(_, tsecr)| rules::ts_rtt_sample(ts_now(now), tsecr)),
            rules::RttSource::PerAckKarn => {
                // Linux 2.4 tcp_clean_rtx_queue: the oldest newly acknowledged segment, unless
                // a retransmitted one was among them (Karn).
                rtt = acked.karn_sample(now);
                self.rtt_timing = None;
            }
            rules::RttSource::TimedSegment => {
                // RFC 6298 §3 / Karn: the timed segment was not retransmitted (timing is
                // cancelled on retransmission), so its ACK gives a valid sample.
                if let Some((_, sent)) = self.rtt_timing.filter(|(end, _)| ack.ge(*end)) {
                    rtt = Some(now.saturating_since(sent));
                    self.rtt_timing = None;
                }
            }
        }
        if let Some(r) = rtt {
            let ev = RttSampleEvent { now, rtt: r, snd_una: self.snd_una, snd_nxt: self.snd_nxt };
            self.rtt.on_sample(&ev);
            self.tlp.on_rtt_sample();
            trace.push(TcpEvent::RttSample { at: now, rtt_ns: r.as_nanos() });
        }
    }

    /// RFC 6937 on an ACK in SACK recovery: cwnd = pipe + sndcnt (`loss/prr.rs`).
    fn prr_on_ack(&mut self, delivered: u64, snd_una_advanced: bool, newly_lost: bool) {
        if !matches!(self.phase, RecoveryPhase::Recovery { style: RecoveryStyle::Sack, .. }) {
            self.prr.on_exit();
            return;
        }
        let ev = crate::loss::prr::PrrAckEvent {
            delivered,
            pipe: self.pipe(),
            ssthresh: self.cc.ssthresh,
            smss: self.smss,
            snd_una_advanced,
            newly_lost,
        };
        if let Some(cwnd) = self.prr.on_ack(&ev) {
            self.cc.cwnd = cwnd;
        }
    }

    fn kind_of(style: RecoveryStyle) -> RecoveryKind {
        match style {
            RecoveryStyle::NewReno => RecoveryKind::FastRecovery,
            RecoveryStyle::Sack => RecoveryKind::SackRecovery,
        }
    }

    fn ack_event(&self, now: SimTime, bytes_acked: u64) -> CcAckEvent {
        CcAckEvent { bytes_acked, smss: self.smss, now, rtt: self.ca_rtt, snd_una: self.snd_una, snd_nxt: self.snd_nxt }
    }

    fn loss_event(&self, style: RecoveryStyle) -> CcLossEvent {
        CcLossEvent { flight_size: self.flight_size(), smss: self.smss, style }
    }

    fn enter_recovery(&mut self, now: SimTime, trace: &mut Trace) {
        let style = self.loss.style();
        // Linux tcp_enter_recovery -> tcp_init_undo (`linux/cwnd_undo.rs`).
        self.undo.on_enter_recovery(self.snd_una, self.cc);
        if style == RecoveryStyle::Sack {
            // RFC 6937 §3.1 / Linux tcp_init_cwnd_reduction: RecoverFS = prior_cwnd.
            self.prr.on_enter(self.cc.cwnd, self.smss);
        }
        // RFC 5681 §3.2 step 2 / RFC 6675 (4.2): ssthresh from FlightSize.
        self.cc = self.ccalg.on_enter_recovery(self.cc, &self.loss_event(style));
        // RFC 6582 §3.2 step 2 / RFC 6675 (4.1): recover / RecoveryPoint = HighData.
        let recover = self.snd_nxt;
        // RFC 5681 §3.2 step 2 / RFC 6675 (4.3): retransmit the first unacknowledged segment.
        self.sb.mark_front_lost();
        self.phase = RecoveryPhase::Recovery { recover, style, first_rtx_done: false };
        // RFC 3168 §6.1.2: a window reduction (CWR on the next new data).
        self.ecn.on_window_reduced(recover);
        self.recovery_started_at = Some(now);
        // RFC 8985 §7.4.1: fast recovery is the response to a loss the probe revealed; the
        // TLP episode is over.
        self.tlp.reset();
        trace.push(TcpEvent::RecoveryEntered { at: now, kind: Self::kind_of(style), recovery_point: recover });
    }

    /// RFC 3168 §6.1.2, an ACK with ECE on an ECN connection (rules in `crate::ecn`): "The
    /// indication of congestion should be treated just as a congestion loss in non-ECN-Capable
    /// TCP. That is, the TCP source halves the congestion window "cwnd" and reduces the slow
    /// start threshold "ssthresh"" — the controller's loss response with RFC 6675 arithmetic
    /// (cwnd = ssthresh), no retransmission — at most once per window of data; otherwise
    /// "SHOULD NOT increase the congestion window in response to the receipt of an ECN-Echo
    /// ACK": in congestion avoidance cwnd stays at `before` (in slow start it grows, as Linux
    /// `tcp_may_raise_cwnd` allows; see `crate::ecn`).
    fn ecn_on_ack(&mut self, seg: &Segment, before: CcState) {
        let open = matches!(self.phase, RecoveryPhase::Open | RecoveryPhase::Disorder { .. });
        if open && self.ecn.should_react(seg) {
            self.cc = self.ccalg.on_enter_recovery(before, &self.loss_event(RecoveryStyle::Sack));
            self.ecn.reactions += 1;
            self.ecn.on_window_reduced(self.snd_nxt);
        } else if before.cwnd >= before.ssthresh {
            self.cc.cwnd = self.cc.cwnd.min(before.cwnd);
        }
    }

    /// Applies the loss detector's decision. `credited`: the bytes the controller's window
    /// growth counts on an ACK that may raise it — with `count_delivered` (Linux byte counting)
    /// the newly delivered bytes, as `tcp_ack` → `tcp_cong_control(sk, ack, delivered, flag,
    /// sack_state.rate)` hands them on:
    ///
    /// ```c
    /// } else if (tcp_may_raise_cwnd(sk, flag)) {
    ///     /* Advance cwnd if state allows */
    ///     tcp_cong_avoid(sk, ack, acked_sacked);
    /// }
    /// ```
    ///
    /// where `tcp_clean_rtx_queue` counts a cumulatively acknowledged segment as delivered only
    /// if it was not SACKed before ("if (sacked & TCPCB_SACKED_ACKED) { tp->sacked_out -=
    /// acked_pcount; } else if (tcp_is_sack(tp)) { tcp_count_delivered(tp, acked_pcount,
    /// ece_ack); ..."), and `tcp_sacktag_one` counts a segment when it is newly SACKed
    /// ("state->sack_delivered += pcount"). Otherwise (RFC 5681/3465 counting) every
    /// cumulatively acknowledged byte. Without SACK, Linux's "reno sacks" (`tcp_remove_reno_sacks`:
    /// "tcp_count_delivered(tp, max_t(int, acked - tp->sacked_out, 1), ece_ack)") are not
    /// modelled: the cumulative ACK is credited in full.
    fn apply(&mut self, now: SimTime, d: LossDecision, bytes_acked: u64, credited: u64, trace: &mut Trace) {
        match d {
            LossDecision::None => {}
            LossDecision::Advance => {
                self.phase = RecoveryPhase::Open;
                self.cc = self.ccalg.on_ack(self.cc, &self.ack_event(now, credited));
            }
            LossDecision::Dupack { dupacks } => self.phase = RecoveryPhase::Disorder { dupacks },
            LossDecision::EnterRecovery => self.enter_recovery(now, trace),
            LossDecision::DupackInRecovery => {
                if let RecoveryPhase::Recovery { style: RecoveryStyle::NewReno, .. } = self.phase {
                    self.cc = self.ccalg.on_dupack_in_recovery(self.cc, self.smss);
                }
            }
            LossDecision::PartialAck => {
                if let RecoveryPhase::Recovery { style: RecoveryStyle::NewReno, .. } = self.phase {
                    // RFC 6582 §3.2 step 5: retransmit the first unacknowledged segment and
                    // deflate the window.
                    self.cc = self.ccalg.on_partial_ack(self.cc, &self.ack_event(now, bytes_acked));
                    self.sb.mark_front_lost();
                }
            }
            LossDecision::ExitRecovery => {
                let style = match self.phase {
                    RecoveryPhase::Recovery { style, .. } => style,
                    _ => self.loss.style(),
                };
                // Linux tcp_try_undo_recovery (`undo.rs`), else tcp_end_cwnd_reduction: with PRR
                // (Linux's window reduction) cwnd = ssthresh in NewReno recovery as well
                // (`loss/prr.rs`); otherwise the controller's RFC 6582 / RFC 6675 exit.
                if !self.undo_at_recovery_end() {
                    self.cc = if self.prr.enabled && style == RecoveryStyle::NewReno {
                        crate::loss::prr::end_cwnd_reduction(self.cc)
                    } else {
                        self.ccalg.on_exit_recovery(self.cc, &self.loss_event(style))
                    };
                }
                self.prr.on_exit();
                if self.rack.enabled {
                    self.rack.on_recovery_exit();
                }
                self.phase = RecoveryPhase::Open;
                trace.push(TcpEvent::RecoveryExited { at: now, kind: Self::kind_of(style) });
                // No re-entry on this (cumulative) ACK: RFC 6675 §5 starts a recovery only on
                // a duplicate ACK, so losses already on the scoreboard wait for the next one.
            }
            LossDecision::LossAdvance => {
                self.cc = self.ccalg.on_ack(self.cc, &self.ack_event(now, credited));
            }
            LossDecision::ExitLoss => {
                if self.rack.enabled {
                    self.rack.on_recovery_exit();
                }
                self.cc = self.ccalg.on_ack(self.cc, &self.ack_event(now, credited));
                self.phase = RecoveryPhase::Open;
                trace.push(TcpEvent::RecoveryExited { at: now, kind: RecoveryKind::Timeout });
            }
        }
    }

    /// Can a new segment of `len` bytes go out now?
    fn can_send_new(&self, len: u32) -> bool {
        match self.recovery.as_deref() {
            Some(r) => r.can_send_new(self, len),
            None => self.rfc_can_send_new(len),
        }
    }

    /// The RFC engine's transmission rule for new data.
    pub(crate) fn rfc_can_send_new(&self, len: u32) -> bool {
        if let FrtoGate::SendNew { .. } = self.frto_gate {
            // F-RTO step 2a: new segments regardless of cwnd (L2120-2130).
            return true;
        }
        if self.tlp.probe == crate::loss::tlp::TlpProbe::SendingNewData {
            // RFC 8985 §7.3: the loss probe of new data goes regardless of cwnd.
            return true;
        }
        if let Some(h) = self.hold_until {
            // CC 3 (L3016-3017): no new data until every segment outstanding at the
            // detection is acknowledged (loss recovery of those segments may still run).
            if self.snd_una.lt(h) {
                return false;
            }
        }
        let l = u64::from(len);
        let outstanding = self.flight_size();
        let cwnd = self.cc.cwnd;
        match self.phase {
            RecoveryPhase::Open => outstanding + l <= cwnd,
            RecoveryPhase::Disorder { dupacks } => {
                // RFC 3042 §2: outstanding data may exceed cwnd by up to 2 segments, one per
                // duplicate ACK.
                let extra = if self.limited_transmit { u64::from(dupacks.min(LIMITED_TRANSMIT_SEGMENTS)) * self.smss } else { 0 };
                outstanding + l <= cwnd + extra
            }
            // RFC 6582 §3.2 step 4: new data if allowed by the (inflated) cwnd.
            RecoveryPhase::Recovery { style: RecoveryStyle::NewReno, .. } => outstanding + l <= cwnd,
            // RFC 6675 (C): cwnd - pipe >= 1 SMSS (or the final, shorter segment fits).
            RecoveryPhase::Recovery { style: RecoveryStyle::Sack, .. } | RecoveryPhase::Loss { .. } => {
                self.pipe() + l <= cwnd
            }
        }
    }

    pub(crate) fn retransmit(&mut self, i: usize, now: SimTime, cause: RetransCause, timers: &mut Timers, stats: &mut ConnStats) -> DataOut {
        let g = self.sb.on_retransmit(i, now);
        self.count_retransmit(g, now, cause, timers, stats)
    }

    fn count_retransmit(&mut self, g: SentSeg, now: SimTime, cause: RetransCause, timers: &mut Timers, stats: &mut ConnStats) -> DataOut {
        // Karn (RFC 6298 §3): no RTT sample from retransmitted data.
        self.rtt_timing = None;
        stats.retransmissions[cause as usize] += 1;
        self.prr.on_sent();
        self.undo.on_retransmit(1, ts_now(now));
        self.rack.on_retransmit(g.start, now);
        self.spurious.on_retransmit(g.start, g.len);
        stats.data_segments_sent += u64::from(g.len > 0);
        stats.bytes_sent += u64::from(g.len);
        // RFC 6298 (5.1): start the timer if it is not running.
        rules::rto_timer_on_send(timers, now, self.rtt.rto());
        DataOut { seq: g.start, len: g.len, fin: g.fin, cause: Some(cause) }
    }

    /// The next segment to send, if any (retransmissions first, then new data).
    pub fn next_segment(&mut self, now: SimTime, timers: &mut Timers, stats: &mut ConnStats) -> Option<DataOut> {
        if !self.established {
            return None;
        }
        self.with_recovery(|r, s| r.next_segment(s, now, timers, stats))
    }

    /// The RFC engine's next segment (`recovery::RfcRecovery`). `#[inline]`: as
    /// `rfc_on_ack`.
    #[inline]
    pub(crate) fn rfc_next_segment(&mut self, now: SimTime, timers: &mut Timers, stats: &mut ConnStats) -> Option<DataOut> {
        if self.tlp.probe != crate::loss::tlp::TlpProbe::Idle {
            // RFC 8985 §7.3: the probe the expired PTO decided on goes first.
            if let Some(d) = self.tlp_send_probe(now, timers, stats) {
                return Some(d);
            }
        }
        if self.frto_gate != FrtoGate::Off {
            return self.next_segment_held(now, timers, stats);
        }
        match self.phase {
            RecoveryPhase::Recovery { recover, style, first_rtx_done } => {
                if self.undo.holds_retransmissions(now) {
                    // tcp_try_undo_partial held the recovery on this instant's ACK (`undo.rs`):
                    // REXMIT_NONE, new data only (tcp_data_snd_check).
                    return self.new_data(now, timers, stats);
                }
                if !first_rtx_done {
                    self.phase = RecoveryPhase::Recovery { recover, style, first_rtx_done: true };
                    if let Some(i) = self.sb.next_retransmit(false) {
                        // RFC 5681 §3.2 step 2 / RFC 6675 (4.3): sent regardless of cwnd.
                        return Some(self.retransmit(i, now, RetransCause::FastRetransmit, timers, stats));
                    }
                }
                match style {
                    RecoveryStyle::NewReno => {
                        if let Some(i) = self.sb.next_retransmit(false) {
                            return Some(self.retransmit(i, now, RetransCause::SackRecovery, timers, stats));
                        }
                    }
                    RecoveryStyle::Sack => {
                        // RFC 6675 (C): while cwnd - pipe >= 1 SMSS ...
                        if self.pipe() + self.smss <= self.cc.cwnd {
                            // (C.1) NextSeg() rule (1): a lost segment.
                            if let Some(i) = self.sb.next_retransmit(false) {
                                return Some(self.retransmit(i, now, RetransCause::SackRecovery, timers, stats));
                            }
                            // NextSeg() rule (2): new data.
                            if let Some(d) = self.new_data(now, timers, stats) {
                                return Some(d);
                            }
                            if self.rack.enabled {
                                // Linux tcp_xmit_retransmit_queue with RACK: only segments
                                // marked lost are retransmitted (no NextSeg rules 3 and 4).
                                return None;
                            }
                            // NextSeg() rule (3): an un-SACKed segment below the highest SACK.
                            if let Some(i) = self.sb.next_retransmit(true) {
                                return Some(self.retransmit(i, now, RetransCause::SackRecovery, timers, stats));
                            }
                            // NextSeg() rule (4): one rescue retransmission per recovery, of the
                            // highest un-SACKed segment, if HighACK > RescueRxt or RescueRxt is
                            // undefined; then RescueRxt = RecoveryPoint.
                            let rescue_allowed = match self.rescue_rxt {
                                None => true,
                                Some(r) => self.snd_una.gt(r),
                            };
                            if self.rescue_enabled && rescue_allowed {
                                if let Some(i) = self.sb.rescue_candidate() {
                                    self.rescue_rxt = Some(recover);
                                    let g = self.sb.on_rescue_retransmit(i, now);
                                    return Some(self.count_retransmit(g, now, RetransCause::SackRecovery, timers, stats));
                                }
                            }
                            return None;
                        }
                    }
                }
            }
            RecoveryPhase::Loss { .. } => {
                // RFC 5681 §3.1 / RFC 6298 (5.4): go-back-N from SND.UNA over the marked
                // segments, as cwnd (slow start from one segment) allows.
                if let Some(i) = self.sb.next_retransmit(false) {
                    let len = u64::from(self.sb.get(i).map_or(0, |g| g.seq_len()));
                    let first = i == 0 && self.pipe() == 0;
                    if first || self.pipe() + len <= self.cc.cwnd {
                        return Some(self.retransmit(i, now, RetransCause::Rto, timers, stats));
                    }
                    return None;
                }
            }
            _ => {}
        }
        self.new_data(now, timers, stats)
    }

    /// New data under the sender's own rule (`can_send_new`). `inline`: once per transmitted
    /// segment; left to the compiler it was inlined or not depending on which codegen unit the
    /// release build put it in, which unrelated changes elsewhere in the crate move (+20
    /// instructions per segment when not, issue 12 session 5; +60 per bottleneck packet on
    /// `10x1G`, issue 13 session 5).
    #[inline]
    pub(crate) fn new_data(&mut self, now: SimTime, timers: &mut Timers, stats: &mut ConnStats) -> Option<DataOut> {
        if self.qs.is_some() {
            self.qs_check_idle(now);
        }
        self.new_data_gated(now, timers, stats, &|s: &Sender, len| s.can_send_new(len))
    }

    /// New data if the peer window, the send buffer and the engine's transmission rule
    /// `may_send` (called with the segment's length) allow it.
    pub(crate) fn new_data_gated(
        &mut self,
        now: SimTime,
        timers: &mut Timers,
        stats: &mut ConnStats,
        may_send: &dyn Fn(&Sender, u32) -> bool,
    ) -> Option<DataOut> {
        let unsent = self.unsent();
        let fin_pending = self.fin_queued && !self.fin_sent && !self.unlimited;
        if unsent == 0 && !fin_pending {
            return None;
        }
        let mut len = unsent.min(self.smss) as u32;
        let outstanding = self.flight_size();
        // Peer window and send buffer.
        let room = self.snd_wnd.min(self.send_buffer).saturating_sub(outstanding);
        if u64::from(len) > room {
            if room > 0 && outstanding == 0 {
                // Nothing in flight: send what the window allows rather than stall.
                len = room as u32;
            } else {
                if self.snd_wnd == 0 && outstanding == 0 && !timers.is_armed(TimerKind::Persist) {
                    // RFC 9293 §3.8.6.1: zero window -> persist timer.
                    let after = self.persist_interval();
                    timers.arm(TimerKind::Persist, now, after);
                }
                return None;
            }
        }
        if !may_send(self, len) {
            return None;
        }
        if self.qs.is_some() && !self.qs_may_send(now, timers) {
            return None;
        }
        let fin = fin_pending && u64::from(len) == unsent;
        let seq = self.snd_nxt;
        let g = SentSeg { start: seq, len, fin, sent_at: now, flags: 0 };
        self.sb.push(g);
        self.snd_nxt += g.seq_len();
        self.app_sent += u64::from(len);
        self.prr.on_sent();
        self.fin_sent |= fin;
        stats.data_segments_sent += u64::from(len > 0);
        stats.bytes_sent += u64::from(len);
        if self.qs.is_some() {
            self.qs_on_sent(now, seq, len);
        }
        let timed = rules::rtt_source(self.rtt_sampling, self.ts_ok) == rules::RttSource::TimedSegment;
        if timed && self.rtt_timing.is_none() {
            // RFC 6298 §3: time one segment per RTT.
            self.rtt_timing = Some((self.snd_nxt, now));
        }
        // RFC 6298 (5.1)
        rules::rto_timer_on_send(timers, now, self.rtt.rto());
        if self.tlp.enabled && self.tlp.probe != crate::loss::tlp::TlpProbe::SendingNewData {
            // RFC 8985 §7.2: (re)start the PTO after new data that was not itself a probe.
            self.tlp_schedule(now, timers);
        }
        Some(DataOut { seq, len, fin, cause: None })
    }

    /// The retransmission timer expired with data outstanding (RFC 6298 (5.4)-(5.6)).
    pub fn on_rto(&mut self, now: SimTime, timers: &mut Timers, stats: &mut ConnStats, trace: &mut Trace) {
        self.with_recovery(|r, s| r.on_rto(s, now, timers, stats, trace));
    }

    /// The RFC engine's timeout (`recovery::RfcRecovery`).
    pub(crate) fn rfc_on_rto(&mut self, now: SimTime, timers: &mut Timers, stats: &mut ConnStats, trace: &mut Trace) {
        if self.snd_una == self.snd_nxt {
            return;
        }
        // The timeout replaces a fast-recovery episode; its undo is F-RTO's (`spurious/`).
        self.undo.clear();
        if self.tlp.enabled {
            // RTO recovery retransmits everything outstanding: the TLP episode is over and
            // no PTO runs in RTO recovery (RFC 8985 §7.2).
            self.tlp.reset();
            timers.cancel(TimerKind::Pto);
        }
        let in_loss = matches!(self.phase, RecoveryPhase::Loss { .. });
        self.hold_until = None;
        // RFC 3168 §6.1.2: "because of a retransmit timeout" is a window reduction too.
        self.ecn.on_window_reduced(self.snd_nxt);
        if !in_loss {
            // Linux prior_cwnd / prior_ssthresh, RFC 4015 pipe_prev inputs.
            self.prior_cc = self.cc;
            self.flight_at_rto = self.flight_size();
        }
        let action = self.spurious.on_rto(&SpuriousRtoEvent {
            now,
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            in_rto_recovery: in_loss && self.frto_gate == FrtoGate::Off,
            in_fast_recovery: matches!(self.phase, RecoveryPhase::Recovery { .. }),
            rtx_tsval: self.ts_ok.then(|| ts_now(now)),
        });
        stats.timeouts += 1;
        self.prr.on_exit();
        if self.rack.enabled {
            // RACK's retransmission queue survives the RTO (`loss/rack.rs`, Linux
            // tsorted_sent_queue); its reordering timer is replaced by the RTO.
            timers.cancel(TimerKind::RackReo);
        }
        let first = self.consecutive_rtos == 0;
        self.consecutive_rtos += 1;
        if let RecoveryPhase::Recovery { style, .. } = self.phase {
            trace.push(TcpEvent::RecoveryExited { at: now, kind: Self::kind_of(style) });
        }
        // RFC 5681 eq. 4: ssthresh = max (FlightSize / 2, 2*SMSS); cwnd = LW = 1 SMSS.
        let before = self.cc;
        self.cc = self.ccalg.on_rto(self.cc, &self.loss_event(self.loss.style()), first);
        // RFC 6298 (5.5): back off the timer.
        self.rtt.on_timeout();
        self.rtt_timing = None;
        match action {
            RtoAction::Conventional => {
                self.frto_gate = FrtoGate::Off;
                // RFC 6298 (5.4): retransmit the earliest segment not yet acknowledged (and,
                // go-back-N, the rest of the window as cwnd grows).
                self.sb.mark_all_lost(self.snd_una, self.snd_nxt);
            }
            RtoAction::FrtoProbe => {
                // F-RTO step 1 (L2109-2114): ssthresh as above, "the congestion window is not
                // yet set"; only the first unacknowledged segment is retransmitted.
                self.cc.cwnd = before.cwnd.max(self.smss);
                // The probe is a retransmission of a segment deemed lost (counted once in pipe).
                self.sb.mark_front_lost();
                self.frto_gate = FrtoGate::Probe;
                if self.spurious.kind() == SpuriousDetection::FrtoSack && self.sb.orig_cutoff.is_none() {
                    // Dissertation L3331-3338: only segments sent before the recovery began.
                    let cutoff = match self.phase {
                        RecoveryPhase::Recovery { .. } => self.recovery_started_at.unwrap_or(now),
                        _ => now,
                    };
                    self.sb.orig_cutoff = Some(cutoff);
                }
            }
        }
        // RFC 6582 §3.2 step 1 / RFC 6675 §5.1: recover = HighData after a timeout.
        let recover = self.snd_nxt;
        let was_loss = matches!(self.phase, RecoveryPhase::Loss { .. });
        self.phase = RecoveryPhase::Loss { recover };
        trace.push(TcpEvent::RtoFired { at: now, backoff: self.rtt.backoff() });
        if !was_loss {
            // A repeated timeout continues the same timeout recovery (one Entered/Exited pair).
            trace.push(TcpEvent::RecoveryEntered { at: now, kind: RecoveryKind::Timeout, recovery_point: recover });
        }
        if self.qs.is_some() {
            // A timeout on a QS packet ends the exchange (its loss window stays).
            self.qs_on_congestion(self.snd_una, true, timers);
        }
        // RFC 6298 (5.6): start the timer with the backed-off RTO.
        timers.arm(TimerKind::Rto, now, self.rtt.rto());
    }

    /// RFC 9293 §3.8.6.1: the persist timer backs off exponentially like the RTO, bounded by
    /// the maximum RTO.
    fn persist_interval(&self) -> SimDuration {
        self.rtt.rto().saturating_mul(1 << self.persist_backoff.min(16)).min(self.persist_max)
    }

    /// The persist timer expired: returns true if a window probe must be sent.
    pub fn on_persist(&mut self, now: SimTime, timers: &mut Timers) -> bool {
        let pending = self.unsent() > 0 || (self.fin_queued && !self.fin_sent);
        if self.snd_wnd > 0 || !pending {
            return false;
        }
        self.persist_backoff = (self.persist_backoff + 1).min(16);
        let after = self.persist_interval();
        timers.arm(TimerKind::Persist, now, after);
        true
    }
}

impl Sender {
    /// `next_segment` while F-RTO or CC 3 holds the sender.
    fn next_segment_held(&mut self, now: SimTime, timers: &mut Timers, stats: &mut ConnStats) -> Option<DataOut> {
        match self.frto_gate {
            FrtoGate::Off => self.rfc_next_segment(now, timers, stats),
            FrtoGate::Probe => {
                // F-RTO step 1: the one retransmission, regardless of cwnd.
                self.frto_gate = FrtoGate::Hold;
                if self.sb.is_empty() {
                    return None;
                }
                Some(self.retransmit(0, now, RetransCause::Rto, timers, stats))
            }
            FrtoGate::Hold => None,
            FrtoGate::SendNew { left } => {
                let d = self.new_data(now, timers, stats);
                self.frto_gate = match (d.is_some(), left) {
                    (true, l) if l > 1 => FrtoGate::SendNew { left: l - 1 },
                    _ => FrtoGate::Hold,
                };
                d
            }
        }
    }

    /// New full segments the peer window and the application allow now (cwnd ignored), at
    /// most F-RTO's two (dissertation L2128-2130: "If the advertised window or a lack of data
    /// allows only one new segment, send one").
    fn new_segments_possible(&self) -> u32 {
        let mut unsent = if self.unlimited { u64::MAX } else { self.app_total - self.app_sent };
        let mut room = self.snd_wnd.min(self.send_buffer).saturating_sub(self.flight_size());
        let mut n = 0;
        while n < crate::spurious::frto::FRTO_NEW_SEGMENTS && unsent > 0 {
            let l = unsent.min(self.smss);
            if l > room {
                break;
            }
            n += 1;
            unsent -= l;
            room -= l;
        }
        n
    }

    #[allow(clippy::too_many_arguments)]
    fn spurious_ack_event(
        &self,
        now: SimTime,
        seg: &Segment,
        ack: SeqNum,
        prior_snd_una: SeqNum,
        bytes_acked: u64,
        is_dupack: bool,
        dsack: bool,
    ) -> SpuriousAckEvent {
        let blocks = seg.options.sack.as_slice();
        let skip = usize::from(dsack);
        let highest_sack = blocks.iter().skip(skip).map(|b| b.right).reduce(|a, b| a.max(b));
        SpuriousAckEvent {
            now,
            ack,
            prior_snd_una,
            snd_nxt: self.snd_nxt,
            bytes_acked,
            is_dupack,
            newly_acked_original: self.sb.orig_newly_acked,
            highest_sack,
            dsack: if dsack { blocks.first().map(|b| (b.left, b.right)) } else { None },
            tsecr: seg.options.timestamps.map(|t| t.1),
            new_segments_possible: self.new_segments_possible(),
        }
    }

    fn decision_event(&self, now: SimTime, spurious: bool, ack: SeqNum, trace: &mut Trace) {
        trace.push(TcpEvent::SpuriousDecision { at: now, detector: self.spurious.kind(), spurious, ack });
    }

    /// Leaves timeout recovery (F-RTO "ignore send_high", L2162-2186; RFC 4015 resume).
    fn leave_loss(&mut self, now: SimTime, trace: &mut Trace) {
        if matches!(self.phase, RecoveryPhase::Loss { .. }) {
            self.phase = RecoveryPhase::Open;
            trace.push(TcpEvent::RecoveryExited { at: now, kind: RecoveryKind::Timeout });
        }
    }

    /// Applies a detector's verdict. Returns true when the ACK is fully handled (the loss
    /// detector and window growth must not see it).
    fn apply_spurious(&mut self, now: SimTime, v: SpuriousVerdict, ack: SeqNum, bytes_acked: u64, trace: &mut Trace) -> bool {
        let frto = matches!(self.spurious.kind(), SpuriousDetection::Frto | SpuriousDetection::FrtoSack);
        match v {
            SpuriousVerdict::Idle => false,
            // F-RTO steps 2/3: cwnd unchanged, nothing sent until the next ACK.
            SpuriousVerdict::Pending => self.frto_gate != FrtoGate::Off,
            SpuriousVerdict::SendNew { segments } => {
                // Step 2a (L2120-2126): up to two new segments, "then set cwnd <- ssthresh".
                self.frto_gate = FrtoGate::SendNew { left: segments };
                self.cc.cwnd = self.cc.ssthresh.max(self.smss);
                true
            }
            SpuriousVerdict::Spurious => {
                self.decision_event(now, true, ack, trace);
                self.frto_gate = FrtoGate::Off;
                self.sb.orig_cutoff = None;
                let inp = ResponseInput {
                    prior: self.prior_cc,
                    now: self.cc,
                    flight_at_rto: self.flight_at_rto,
                    in_flight: self.flight_size(),
                    bytes_acked,
                    smss: self.smss,
                    initial_window: self.initial_cwnd,
                    snd_nxt: self.snd_nxt,
                };
                let d = self.responder.respond(&inp);
                self.cc = CcState { cwnd: d.cc.cwnd.max(self.smss), ssthresh: d.cc.ssthresh };
                self.hold_until = d.hold_until;
                if frto || d.resume_new_data {
                    self.sb.clear_lost();
                    self.leave_loss(now, trace);
                }
                frto || d.resume_new_data
            }
            SpuriousVerdict::Genuine { fallback_cwnd_segments } => {
                self.decision_event(now, false, ack, trace);
                self.sb.orig_cutoff = None;
                let Some(n) = fallback_cwnd_segments else { return false };
                // F-RTO fallback (steps 2b/3b): conventional go-back-N from SND.UNA over what
                // was sent before the RTO, keeping send_high (`recover` of the Loss phase).
                self.frto_gate = FrtoGate::Off;
                self.cc.cwnd = u64::from(n) * self.smss;
                if let RecoveryPhase::Loss { recover } = self.phase {
                    if self.snd_una.ge(recover) {
                        self.leave_loss(now, trace);
                    } else {
                        self.sb.mark_lost_below(self.snd_una, recover);
                    }
                }
                true
            }
        }
    }
}
