//! Replay of one data direction's sender state from the capture.
//!
//! Rewaskar, Kaur & Smith §IV-A: "the analysis ... emulates the sender's state (the
//! unacknowledged data, the duplicate-ACK count, the recovery phase and the retransmission
//! timer) as each packet of the trace is processed", parameterised by the sender's OS
//! ([`SenderModel`]). The replay keeps, per direction:
//! - SND.UNA / SND.MAX (relative, unwrapped to `u64`), the copies of every byte range the
//!   capture saw (first/last time, TSval, copy count) down to SND.UNA;
//! - the duplicate-ACK count (RFC 5681 §2 definition: no data, ACK = SND.UNA, data
//!   outstanding, same window — or, with SACK, carrying SACK blocks, RFC 6675 §2), the SACK
//!   scoreboard above SND.UNA and the D-SACK reports (RFC 2883 §4: first block below the
//!   cumulative ACK or inside the second block);
//! - the recovery phase and the time the retransmission timer was last (re)started
//!   (RFC 6298 (5.1) first transmission with nothing outstanding, (5.3) ACK of new data,
//!   (5.6) after a timeout retransmission);
//! - the open loss episodes (`timing.rs`) and the retransmissions still waiting for
//!   evidence (`spurious.rs`).
//!
//! Memory: everything below SND.UNA is dropped as ACKs arrive, so the state is bounded by
//! the window; a retransmission is handed out (and forgotten) as soon as it is decided and
//! its episode is over. Nothing is allocated per packet in the steady state (the deques and
//! vectors keep their capacity).
//!
//! Cost per ACK: the retransmissions still waiting for evidence can be hundreds (the repair
//! of a slow-start overshoot), so an ACK does not pass over them: `Watch` finds the ones
//! this ACK can change — O(log n) each, and only inside the SACK blocks that marked something
//! new — and the hand-out pass runs only when a copy can be ready: an episode's end, or a
//! verdict on a copy whose episode is over (`drain_ready`).
//!
//! The sender's view is not the capture's. A retransmission is classified from the state
//! the sender had when it sent it: as of `horizon`, the capture time of the last ACK it can
//! have seen — its send time (capture time minus the handshake's capture→sender→capture
//! gap and the queueing read off TSval, a TSval tick of slack) and, wherever it is captured,
//! before the ACK that first covered its bytes (a sender does not resend what it knows
//! delivered; that ACK was queued below a sender-side capture point or held after a
//! receiver-side one). As of then: SND.UNA, the duplicate-ACK count (when a held ACK is
//! involved), the recovery phase (an exit the sender had not yet seen), the timer. A
//! decision taken on such an earlier phase does not carry that phase forward: the episode
//! it belongs to has ended. Where the timer cannot be read (away from the sender without
//! timestamps, or behind a held ACK) the cause is found by elimination (classify.rs).
//!
//! Away from the sender (receiver or middle capture), a segment that fills a hole was either
//! sent again or reordered on the way (§IV-A: "hole fillers"). It is a retransmission when
//! its TSval is newer than every TSval seen before (originals are sent in sequence order, so
//! a reordered original carries an older or equal TSval), and otherwise when it arrives at
//! least a capture→sender→capture round trip after its possible trigger passed here (the
//! DupThresh-th ACK since the hole opened, or the partial ACK that reached it) or the hole
//! is older than the minimum RTO; anything else is counted as reordering.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, VecDeque};

use tcplab_tcp::observe::{Explanation, Observer, Trigger};
use tcplab_tcp::{Segment, SeqNum, TcpConfig};
use tcplab_tcp::timer::ts_before;
use tcplab_time::{SimDuration, SimTime};

use crate::infer::evidence::RetxEvidence;
use crate::classify::{classify_cause, Cause, CauseInput, PhaseKind, RTO_ELAPSED_FRACTION};
use crate::model::SenderModel;
use crate::rtt::RttStats;
use crate::spurious::{self, Evidence, Verdict, NO_DSACK_WAIT_RTTS, NO_DSACK_WAIT_SLACK_NS};
use crate::timing::Episode;

const WRAP: u64 = 1 << 32;
/// Where relative sequence number 0 sits in the unwrapped space.
const SEQ_ORIGIN: u64 = WRAP;
const HALF_WRAP: u64 = 1 << 31;

/// The comparison key of a transmission sharing a retransmission's TSval: a segment with
/// data can have set TS.Recent before an ACK with cumulative point A only if it starts below
/// A (one starting at A would have moved RCV.NXT past A first); a zero-length one (a bare FIN)
/// also when it sits at A.
fn sharer_key(start: u64, len: u32) -> u64 {
    if len == 0 {
        start.saturating_sub(1)
    } else {
        start
    }
}

/// Unwraps a 32-bit relative sequence number to the `u64` nearest `reference`
/// (RFC 9293 §3.4: comparisons are valid within 2^31).
pub fn unwrap_seq(reference: u64, rel: u32) -> u64 {
    let mut c = (reference & !(WRAP - 1)) | u64::from(rel);
    if c + HALF_WRAP < reference {
        c += WRAP;
    } else if c > reference + HALF_WRAP && c >= WRAP {
        c -= WRAP;
    }
    c
}

/// Most segment copies remembered per direction (about 3 MB). A capture that holds only
/// one direction never shows the ACKs that release them; past this bound the oldest are
/// forgotten and `state_truncated` is counted, so memory stays bounded.
pub const MAX_WINDOW_SEGS: usize = 1 << 16;
/// Most SACK runs and holes remembered per direction (RFC 2018 sends at most 4 blocks per
/// ACK; a real scoreboard has far fewer runs than this).
pub const MAX_RANGES: usize = 1024;

/// ACK advances remembered to reconstruct the sender's view away from the sender.
pub const ACK_HISTORY_LEN: usize = 256;
/// Copies decided spurious and handed out, remembered for D-SACK attribution.
pub const PROVEN_DUPS_LEN: usize = 32;

/// A hole filler counts as a retransmission when it comes at least this share of the
/// handshake's capture→sender→capture gap after its possible trigger. The gap is an upper
/// estimate of the round trip (the handshake may have queued), so the share is generous:
/// half, which still leaves a reordering displacement of up to half a round trip
/// recognised as such.
pub const HOLE_FILL_RTT_FRACTION: f64 = 0.5;

/// Share of the minimum RTO the data stream must have been silent, away from the sender and
/// without timestamps, before a retransmission can be a timer expiry (see `on_data`).
pub const SILENCE_FRACTION: f64 = 0.5;

/// Capture position relative to this direction's sender.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Position {
    Sender,
    Receiver,
    Middle,
}

impl Position {
    pub const fn name(self) -> &'static str {
        match self {
            Position::Sender => "sender",
            Position::Receiver => "receiver",
            Position::Middle => "middle",
        }
    }
}

/// How the observer is told an ACK captured at some instant ([`DirReplay::ack_vantage`]):
/// the lag after which the sender acted on it and whether the capture is away from the
/// sender. One rule for the analyzer's replay and the what-if recorder (`whatif::trace`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct AckVantage {
    /// Added to an ACK's capture time: when the sender acted on it (`vantage_gap_ns`).
    pub lag_ns: u64,
    /// The capture is not at the sender: RFC 5681 §2 (a) "outstanding data" holds whatever
    /// the capture shows (`Observer::on_ack`'s `away`).
    pub away: bool,
}

impl AckVantage {
    /// When the sender acted on an ACK captured at `capture_ns`.
    pub fn at(self, capture_ns: u64) -> tcplab_time::SimTime {
        tcplab_time::SimTime(capture_ns.saturating_add(self.lag_ns))
    }
}

#[derive(Copy, Clone, Debug)]
struct TxSeg {
    start: u64,
    end: u64,
    first_ns: u64,
    last_ns: u64,
    max_tsval: Option<u32>,
    copies: u32,
    /// The first copy was seen (false for a hole filler whose original was lost upstream).
    original_seen: bool,
}

#[derive(Copy, Clone, Debug)]
struct Hole {
    start: u64,
    end: u64,
    since_ns: u64,
    gap_acks_at: u64,
    /// Capture time of the DupThresh-th ACK below SND.MAX since the hole opened.
    dupthresh_ns: Option<u64>,
    /// Capture time of the ACK advance that reached the hole (a partial ACK in recovery
    /// triggers its retransmission, RFC 6582 §3.2 step 4).
    reached_ns: Option<u64>,
}

/// One cumulative ACK advance as the capture saw it.
#[derive(Copy, Clone, Debug)]
struct AckAdvance {
    /// Capture time.
    t: u64,
    /// SND.UNA after it.
    una: u64,
    /// When the SND.UNA before it had met a fast-retransmit trigger — DupThresh duplicate
    /// ACKs or RFC 6675 IsLost — (capture time of the ACK that met it), if it did.
    dupthresh_before: Option<u64>,
}

#[derive(Clone, Debug)]
struct Pending {
    /// Order of arrival: `pending` is sorted by it (the `Watch` finds copies by it).
    pid: u64,
    frame: u64,
    ts_ns: u64,
    start: u64,
    end: u64,
    cause: Cause,
    trigger: Trigger,
    episode: u32,
    detection_ns: Option<u64>,
    tsval: Option<u32>,
    /// The lowest sequence number (its key: `sharer_key`) among the other segments sent with
    /// the same TSval, if any: an echo of that TSval may come from one of them only if it
    /// lies below the ACK's cumulative point (`timestamp_echo` needed rule).
    tsval_sharer: Option<u64>,
    /// An ACK reached the capture point after the original could have been acknowledged
    /// and before this retransmission: the ACK clock was alive, so an echo of this
    /// retransmission's TSval means the receiver lacked the bytes (not that the original's
    /// ACKs were all lost).
    ack_clock_alive: bool,
    /// An earlier segment carried this copy's TSval (same timestamp tick): an echo of it may
    /// be that segment's (`spurious::sent_after_arrival`).
    earlier_sharer: bool,
    /// SND.MAX when this copy was sent: an ACK of bytes above it answers later data.
    snd_max_at_tx: u64,
    covered: bool,
    cum_acked: bool,
    verdict: Verdict,
    /// A D-SACK has been matched to this copy (each D-SACK reports one duplicate arrival).
    dsack_matched: bool,
}

/// One classified retransmission, ready for the output table.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RetxOut {
    pub frame: u64,
    pub ts_ns: u64,
    /// Relative to the ISN (or to one before the first sequence number seen), unwrapped to
    /// 64 bits: never wraps; data from before the first segment seen is 0 or negative.
    pub seq: i64,
    pub len: u32,
    pub cause: Cause,
    /// The rule of the engine's sender model that fired (`Trigger::name`).
    pub trigger: Trigger,
    pub spurious: Option<bool>,
    pub evidence: Evidence,
    pub detection_ns: Option<u64>,
    pub recovery_ns: Option<u64>,
}

/// Per-direction counters for the connections table.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct DirCounters {
    pub retransmissions: u64,
    pub by_cause: [u64; 5],
    pub spurious: u64,
    pub needed: u64,
    pub undecided: u64,
    /// Hole fillers judged to be reordered originals.
    pub reordered: u64,
    /// Times the per-direction state hit a bound and forgot its oldest entries.
    pub state_truncated: u64,
}

/// The replayed sender of one direction. `Clone`, so a later stage can fork it to ask
/// what another model would have done from here.
#[derive(Clone, Debug)]
pub struct DirReplay {
    pos: Position,
    sack: bool,
    timestamps: bool,
    /// The profile the observer is built from (once the first data segment is seen).
    cfg: TcpConfig,
    /// The engine's sender model in observe mode: SND.UNA/SND.NXT, scoreboard, duplicate
    /// ACKs, IsLost, D-SACK recognition, recovery phase, the profile's RTO on its clocks.
    obs: Option<Observer>,
    /// Handshake round trip to seed the observer's estimator (the sender's first sample).
    handshake_rtt_ns: Option<u64>,
    min_rto_ns: u64,
    tlp_model: bool,
    /// A retransmission was classified `tlp` and no ACK has been seen since (RFC 8985 §7.3:
    /// no second probe before an RTT sample), see `CauseInput::probe_unanswered`.
    probe_unanswered: bool,
    /// The receiver reports duplicates with D-SACK: assumed from the handshake (SACK
    /// permitted, with a model whose receivers send D-SACK), proven once this connection
    /// showed one (RFC 2883 §4 is then in use, RFC 3708 §3 applies).
    dsack_receiver: bool,
    started: bool,
    base: u32,
    /// First sequence number seen (the capture may start mid-connection).
    first_seq: u64,
    /// Some ACK advanced SND.UNA in the capture.
    acked_any: bool,
    snd_una: u64,
    snd_max: u64,
    segs: VecDeque<TxSeg>,
    holes: Vec<Hole>,
    gap_acks: u64,
    phase: PhaseKind,
    cur_episode: Option<u32>,
    timer_restart_ns: u64,
    /// The last restart was caused by an ACK seen at the capture point (the sender saw it
    /// later), not by a retransmission seen here.
    restart_by_ack: bool,
    /// Capture point → sender → capture point round trip without queueing (from the
    /// handshake: the gap that contains the sender's side).
    upstream_base_ns: u64,
    /// At the sender: the handshake's capture→sender→capture gap (a capture a link away from
    /// the sender's stack sees each ACK that long before the sender acts on it). The observer
    /// is told each ACK at its capture time plus this gap — when the sender acted on it — so
    /// its timer restarts (RFC 6298 (5.3)), RTT samples and ACK-triggered instants are the
    /// sender's. Measured (`examples/infer_corpus`, captures on the senders' 2 ms access
    /// links): without it every fast retransmit showed D + 1 duplicate ACKs before it, every
    /// IsLost trigger came 2 ms "late", and Linux's srtt was 2 ms short, which put its probe
    /// timeouts 4-10 ms early.
    vantage_gap_ns: u64,
    /// A FIN was captured on this direction (`note_fin`).
    fin_seen: bool,
    /// This direction's SYN (or SYN-ACK) was sent more than once (`set_handshake_retransmitted`).
    handshake_rtx: bool,
    /// The peer's window from the handshake, scaled, and its shift (`set_peer_window`).
    peer_window: Option<(u64, u8)>,
    ts_tick_ns: u64,
    first_tsval: Option<u32>,
    /// Smallest (capture time − TSval time) seen: the queue-free sender→capture offset.
    min_ts_offset: Option<i128>,
    max_tsval: Option<u32>,
    /// Capture time of the last data segment of this direction.
    last_data_ns: u64,
    /// Capture time of the last ACK for this direction.
    last_ack_ns: Option<u64>,
    /// Recent ACK advances, to see the sender's state as of an earlier instant away from the
    /// sender (bounded ring).
    ack_history: VecDeque<AckAdvance>,
    /// The last exit from recovery: (capture time of the ACK, phase left).
    phase_exit: Option<(u64, PhaseKind)>,
    /// Latest capture→sender→capture time measured on a fast retransmit (the sender answers
    /// the DupThresh-th duplicate ACK at once, RFC 5681 §3.2 step 2).
    response_ns: Option<u64>,
    last_tx_tsval: Option<u32>,
    /// The lowest `sharer_key` of the run of transmissions with `last_tx_tsval`.
    last_tx_run_key: Option<u64>,
    pub rtt: RttStats,
    pending: Vec<Pending>,
    /// Which of `pending` an ACK can change.
    watch: Watch,
    /// Some held copy may be ready to hand out (decided, and its episode over) since the last
    /// hand-out: set when an episode ends and when a copy of an episode already over is
    /// decided, the only two ways a copy becomes ready. A verdict inside an episode still
    /// open (most of them, while an overshoot is repaired) does not set it, so `drain_done`
    /// does not pass over the hundreds of held copies on every such ACK.
    drain_ready: bool,
    /// Recent copies already decided spurious and handed out: (start, end, capture time).
    /// A later D-SACK of those bytes is theirs, not an older copy's (bounded ring).
    proven_dups: VecDeque<(u64, u64, u64)>,
    episodes: VecDeque<Episode>,
    next_episode: u32,
    pub counters: DirCounters,
    /// The last retransmission's evidence for the OS inference, until taken.
    evidence: Option<RetxEvidence>,
}

/// The rule that fired for a retransmission of cause `cause`: the observer's own finding
/// where it agrees with the cause decided from the sender's view, else the rule that the
/// decision itself rests on.
fn trigger_of(cause: Cause, i: &CauseInput, ex: Option<&Explanation>) -> Trigger {
    match cause {
        Cause::Rto => Trigger::Rto,
        Cause::Tlp => Trigger::Tlp,
        Cause::Unknown => Trigger::Unknown,
        Cause::FastRetransmit if i.rack_lost => match ex.map(|e| e.trigger) {
            Some(Trigger::RackTimer) => Trigger::RackTimer,
            _ => Trigger::Rack,
        },
        Cause::FastRetransmit if i.dupacks >= i.dupack_threshold => Trigger::DupThresh,
        Cause::FastRetransmit => Trigger::IsLost,
        Cause::SackRecovery => match ex.map(|e| (e.trigger, e.islost)) {
            Some((t @ (Trigger::IsLost | Trigger::PartialAck | Trigger::NextSeg | Trigger::Rack | Trigger::RackTimer), _)) => t,
            Some((_, true)) => Trigger::IsLost,
            _ => Trigger::NextSeg,
        },
    }
}

/// The open episode with id `id`. Episodes are created with consecutive ids
/// (`next_episode`), pushed at the back and dropped from the front, so the one asked for sits
/// at its id's offset from the front: O(1) instead of a search on every held copy of every
/// hand-out pass (the search is kept for an id not found there).
fn episode(episodes: &VecDeque<Episode>, id: u32) -> Option<&Episode> {
    let at = episodes.front().map_or(0, |f| id.wrapping_sub(f.id) as usize);
    match episodes.get(at) {
        Some(e) if e.id == id => Some(e),
        _ => episodes.iter().find(|e| e.id == id),
    }
}

/// Episode `id` is over (its recovery time is known): a decided copy of it can be handed out.
fn recovered(episodes: &VecDeque<Episode>, id: u32) -> bool {
    episode(episodes, id).is_some_and(|e| e.recovery_ns.is_some())
}

/// The pending retransmission was already cumulatively acknowledged before this ACK.
fn cum_before(p: &Pending, prev_una: u64) -> bool {
    prev_una >= p.end
}

/// The undecided retransmissions an ACK can change, so that an ACK costs O(log n) per copy it
/// may decide instead of a pass over all held copies. In the rules of
/// [`DirReplay::on_ack`] an undecided copy changes on an ACK only when
/// - it was never looked at (`fresh`: sent since the last ACK; its bytes may be SACKed already);
/// - the ACK covers it cumulatively (`by_end`: every undecided copy not yet cumulatively
///   acknowledged, by end);
/// - it is not covered yet and one of the ACK's SACK blocks that SACKed something new overlaps
///   it (`uncovered`, by start: the scoreboard marks a segment SACKed only inside a block of
///   the ACK being processed, so coverage can appear nowhere else; a block that marked
///   nothing, `AckView::changed_blocks`, leaves every copy's coverage as it was when the
///   copy was last looked at, and an uncovered copy is not cumulatively acknowledged, so
///   none of the rules below can change it);
/// - it waits out RFC 3708's no-D-SACK time (`waiting`, by capture time: cumulatively
///   acknowledged with the ACK clock alive; only looked at once the receiver sends D-SACKs);
/// - the same copies, by arrival (`ordered`), wait for an ACK the receiver sent after they
///   arrived (`spurious::no_dsack_by_order`). The copies an ACK proves arrived are a prefix
///   of them in arrival order (TSval and SND.MAX grow with it), so the first one that fails
///   ends the look.
///
/// Entries of copies decided or handed out meanwhile are dropped when met (lazily).
#[derive(Clone, Debug, Default)]
struct Watch {
    next_pid: u64,
    fresh: Vec<u64>,
    by_end: BinaryHeap<Reverse<(u64, u64)>>,
    uncovered: BTreeSet<(u64, u64)>,
    waiting: BTreeSet<(u64, u64)>,
    ordered: BTreeSet<u64>,
    /// Longest copy held so far: a block `[l, r)` overlaps copies starting in `[l - max_len, r)`.
    max_len: u64,
    /// Reused list of the pids to look at.
    scratch: Vec<u64>,
}

impl Watch {
    /// A new undecided copy.
    fn add(&mut self, pid: u64, start: u64, end: u64) {
        self.fresh.push(pid);
        self.by_end.push(Reverse((end, pid)));
        self.uncovered.insert((start, pid));
        self.max_len = self.max_len.max(end - start);
    }

    fn clear(&mut self) {
        self.fresh.clear();
        self.by_end.clear();
        self.uncovered.clear();
        self.waiting.clear();
        self.ordered.clear();
    }
}

impl DirReplay {
    pub fn new(pos: Position, sack: bool, timestamps: bool, model: &dyn SenderModel) -> DirReplay {
        DirReplay {
            pos,
            sack,
            timestamps,
            cfg: model.config().clone(),
            obs: None,
            handshake_rtt_ns: None,
            min_rto_ns: model.config().rto.min.as_nanos(),
            tlp_model: model.tail_loss_probe(),
            probe_unanswered: false,
            dsack_receiver: model.dsack_receiver(),
            started: false,
            base: 0,
            first_seq: 0,
            acked_any: false,
            snd_una: 0,
            snd_max: 0,
            segs: VecDeque::new(),
            holes: Vec::new(),
            gap_acks: 0,
            phase: PhaseKind::Open,
            cur_episode: None,
            timer_restart_ns: 0,
            restart_by_ack: false,
            upstream_base_ns: 0,
            vantage_gap_ns: 0,
            fin_seen: false,
            handshake_rtx: false,
            peer_window: None,
            ts_tick_ns: model.ts_tick_ns().max(1),
            first_tsval: None,
            min_ts_offset: None,
            max_tsval: None,
            last_data_ns: 0,
            last_ack_ns: None,
            ack_history: VecDeque::with_capacity(ACK_HISTORY_LEN),
            phase_exit: None,
            response_ns: None,
            last_tx_tsval: None,
            last_tx_run_key: None,
            rtt: RttStats::new(pos == Position::Sender, model.config().rto),
            pending: Vec::new(),
            watch: Watch::default(),
            drain_ready: false,
            proven_dups: VecDeque::with_capacity(PROVEN_DUPS_LEN),
            episodes: VecDeque::new(),
            next_episode: 0,
            counters: DirCounters::default(),
            evidence: None,
        }
    }

    pub fn position(&self) -> Position {
        self.pos
    }

    /// Sets the capture→sender→capture round trip measured on the handshake (zero at the
    /// sender).
    pub fn set_upstream_base(&mut self, ns: u64) {
        self.upstream_base_ns = if self.pos == Position::Sender { 0 } else { ns };
        self.vantage_gap_ns = if self.pos == Position::Sender { ns } else { 0 };
    }

    /// How this direction's ACKs reach the observer (set by [`Self::set_upstream_base`]).
    pub fn ack_vantage(&self) -> AckVantage {
        AckVantage { lag_ns: self.vantage_gap_ns, away: self.pos != Position::Sender }
    }

    /// The handshake's round trip, the sender's first RTT sample (set before data).
    pub fn set_handshake_rtt(&mut self, ns: Option<u64>) {
        self.handshake_rtt_ns = ns;
    }

    /// Queueing delay between the sender and the capture point for a segment with `tsval`
    /// captured at `now`: its (capture time − send time on the TSval clock) above the
    /// smallest such offset seen (RFC 7323 §4: TSval follows the sender's clock).
    fn upstream_queueing_ns(&mut self, now: u64, tsval: Option<u32>) -> u64 {
        let (Some(v), true) = (tsval, self.timestamps && self.pos != Position::Sender) else {
            return 0;
        };
        let v0 = *self.first_tsval.get_or_insert(v);
        let sent = i128::from(v.wrapping_sub(v0)) * i128::from(self.ts_tick_ns);
        let off = i128::from(now) - sent;
        let m = self.min_ts_offset.map_or(off, |m| m.min(off));
        self.min_ts_offset = Some(m);
        (off - m).max(0) as u64
    }

    /// Bytes of `[start, end)` covered by earlier copies: (all covered, any covered, first
    /// transmission time of the earliest overlapping copy, newest TSval among them).
    fn coverage(&self, start: u64, end: u64) -> (bool, bool, Option<u64>, Option<u32>) {
        // Bytes below SND.UNA reached the receiver (it acknowledged them).
        let mut cursor = start.max(self.snd_una.min(end));
        let mut any = start < self.snd_una;
        let mut first_ns: Option<u64> = None;
        let mut max_ts: Option<u32> = None;
        let mut all = true;
        let i0 = self.segs.partition_point(|s| s.end <= start);
        for s in self.segs.range(i0..) {
            if s.start >= end {
                break;
            }
            any = true;
            if s.original_seen {
                first_ns = Some(first_ns.map_or(s.first_ns, |f| f.min(s.first_ns)));
            }
            max_ts = match (max_ts, s.max_tsval) {
                (Some(a), Some(b)) => Some(if ts_before(a, b) { b } else { a }),
                (a, b) => a.or(b),
            };
            if s.start > cursor {
                all = false;
            }
            cursor = cursor.max(s.end);
        }
        if cursor < end {
            all = false;
        }
        (all, any, first_ns, max_ts)
    }

    /// The wire sequence number of unwrapped position `x`.
    fn wire(&self, x: u64) -> SeqNum {
        SeqNum(self.base.wrapping_add(x as u32))
    }

    /// Every byte of `[start, end)` is SACKed on the observer's scoreboard.
    fn sacked_covers(&self, start: u64, end: u64) -> bool {
        self.obs.as_ref().is_some_and(|o| o.scoreboard().sacked_covers(self.wire(start), self.wire(end)))
    }

    /// The DupThresh in force (the observer's, `rules::dupack_threshold`).
    fn dupack_threshold(&self) -> u32 {
        self.obs.as_ref().map_or(tcplab_tcp::config::DUPACK_THRESHOLD, |o| o.dupack_threshold())
    }

    /// Records a data transmission's TSval; returns the lowest `sharer_key` of the earlier
    /// transmissions that carried the same TSval (they are consecutive: TSvals never go back)
    /// and lowers the sharer key of the held retransmissions of that run to this one's.
    fn note_tx_tsval(&mut self, tsval: Option<u32>, start: u64, len: u32) -> Option<u64> {
        let key = sharer_key(start, len);
        let shared = tsval.is_some() && tsval == self.last_tx_tsval;
        let before = if shared { self.last_tx_run_key } else { None };
        if shared {
            for p in self.pending.iter_mut().rev().take_while(|p| p.tsval.is_none() || p.tsval == tsval) {
                if p.tsval == tsval {
                    p.tsval_sharer = Some(p.tsval_sharer.map_or(key, |k| k.min(key)));
                }
            }
            self.last_tx_run_key = Some(before.map_or(key, |k| k.min(key)));
        } else {
            self.last_tx_run_key = Some(key);
        }
        self.last_tx_tsval = tsval;
        if let Some(v) = tsval {
            self.max_tsval = Some(match self.max_tsval {
                Some(m) if !ts_before(m, v) => m,
                _ => v,
            });
        }
        before
    }

    fn push_new(&mut self, now: u64, start: u64, end: u64, tsval: Option<u32>) {
        if start > self.snd_max && self.holes.len() < MAX_RANGES {
            // A hole that opens at SND.UNA gets no `reached_ns` from the advance before it:
            // with reordering that would call late originals retransmissions (tried: 32
            // false retransmissions in the reordering rows against 5 misses saved).
            self.holes.push(Hole { start: self.snd_max, end: start, since_ns: now, gap_acks_at: self.gap_acks, dupthresh_ns: None, reached_ns: None });
        }
        if self.snd_una >= self.snd_max {
            // RFC 6298 (5.1): the timer starts with the first segment sent when nothing is
            // outstanding.
            self.timer_restart_ns = now;
            self.restart_by_ack = false;
        }
        if self.segs.len() >= MAX_WINDOW_SEGS {
            self.segs.pop_front();
            self.counters.state_truncated += 1;
        }
        let (ws, len) = (self.wire(start), end.saturating_sub(start) as u32);
        if let Some(o) = self.obs.as_mut() {
            o.on_new_data(SimTime(now), ws, len, false);
            o.bound_state(MAX_WINDOW_SEGS);
        }
        self.segs.push_back(TxSeg { start, end, first_ns: now, last_ns: now, max_tsval: tsval, copies: 1, original_seen: true });
        self.snd_max = end;
    }

    fn remove_hole_range(&mut self, start: u64, end: u64) {
        let mut k = 0;
        while k < self.holes.len() {
            let h = self.holes[k];
            if h.end <= start || h.start >= end {
                k += 1;
                continue;
            }
            self.holes.swap_remove(k);
            if h.start < start {
                self.holes.push(Hole { end: start, ..h });
            }
            if h.end > end {
                self.holes.push(Hole { start: end, ..h });
            }
        }
    }

    /// A hole filler away from the sender: a retransmission, or a reordered original?
    fn hole_filler_is_retransmission(&self, now: u64, start: u64, tsval: Option<u32>) -> bool {
        if let (Some(v), Some(m)) = (tsval, self.max_tsval) {
            if ts_before(m, v) {
                return true;
            }
            if ts_before(v, m) {
                return false;
            }
        }
        // A fast retransmit answers the DupThresh-th duplicate ACK, a recovery retransmission
        // the partial ACK that reached the hole: either reaches this point no sooner than a
        // capture→sender→capture round trip after its trigger passed here. A filler that
        // comes sooner is the late original itself.
        let round_trip = HOLE_FILL_RTT_FRACTION * self.upstream_base_ns as f64;
        self.holes.iter().filter(|h| h.start <= start && start < h.end).any(|h| {
            let trigger = match (h.dupthresh_ns, h.reached_ns) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            trigger.is_some_and(|t| now.saturating_sub(t) as f64 >= round_trip)
                || now.saturating_sub(h.since_ns) as f64 >= RTO_ELAPSED_FRACTION * self.min_rto_ns as f64
        })
    }

    /// A data segment of this direction (payload `len` > 0) at `rel_seq`.
    pub fn on_data(&mut self, now: u64, frame: u64, abs_seq: u32, rel_seq: u32, len: u32, tsval: Option<u32>) {
        if !self.started {
            self.started = true;
            self.base = abs_seq.wrapping_sub(rel_seq);
            // Relative sequence numbers live at an offset of 2^32 so that data from before
            // the first segment seen (a capture that starts mid-connection) stays below it.
            // The first segment may lie before the ISN (a stray SYN set the base): read its
            // 32-bit relative number as signed so that it lands below the origin instead of
            // 2^32 above it (found by the analyzer_structured fuzz target).
            let s = SEQ_ORIGIN.wrapping_add_signed(i64::from(rel_seq as i32));
            self.snd_una = s;
            self.first_seq = s;
            self.snd_max = s;
            self.timer_restart_ns = now;
            let mut o = Observer::new(&self.cfg, SeqNum(abs_seq), self.sack, self.timestamps);
            // As `Connection::establish`: RFC 6298 (5.7) first, then the handshake's sample —
            // by Karn's rule none from a retransmitted SYN unless timestamps name the copy.
            if self.handshake_rtx {
                o.on_handshake_retransmitted();
            }
            if let Some(r) = self.handshake_rtt_ns.filter(|_| !self.handshake_rtx || self.timestamps) {
                o.on_handshake_rtt(SimTime(now), SimDuration(r));
            }
            if self.fin_seen {
                o.note_fin();
            }
            if let Some((w, shift)) = self.peer_window {
                o.set_peer_window(w, shift);
            }
            self.obs = Some(o);
        }
        if let (Some(o), Some(v), true) = (self.obs.as_mut(), tsval, self.timestamps) {
            // RFC 7323 §4.1 samples need the sender's timestamp clock (`Observer::note_tsval`).
            o.note_tsval(SimTime(now), v);
        }
        let start = unwrap_seq(self.snd_max, rel_seq);
        let end = start + u64::from(len);
        let queueing = self.upstream_queueing_ns(now, tsval);
        let data_gap = now.saturating_sub(self.last_data_ns);
        self.last_data_ns = now;
        if start >= self.snd_max {
            self.push_new(now, start, end, tsval);
            self.note_tx_tsval(tsval, start, len);
            return;
        }
        let rend = end.min(self.snd_max);
        let (all_seen, any_seen, first_ns, _earlier_ts) = self.coverage(start, rend);
        if !any_seen && self.pos != Position::Sender && !self.hole_filler_is_retransmission(now, start, tsval) {
            // A reordered original.
            self.counters.reordered += 1;
            let at = self.segs.partition_point(|s| s.start < start);
            self.segs.insert(at, TxSeg { start, end: rend, first_ns: now, last_ns: now, max_tsval: tsval, copies: 1, original_seen: true });
            self.remove_hole_range(start, rend);
            self.note_tx_tsval(tsval, start, len);
            if end > self.snd_max {
                self.push_new(now, self.snd_max, end, tsval);
            }
            return;
        }
        // A retransmission: classify its cause from the replayed state.
        // Away from the sender and without timestamps, the queueing between the sender and
        // the capture point is invisible; a timer expiry then also needs the sender to have
        // been silent (a gap in this direction's data stream) for part of the minimum RTO,
        // since an ACK-clocked retransmission arrives within a continuous stream.
        let silent_enough = self.pos == Position::Sender
            || self.timestamps
            || !self.restart_by_ack
            || data_gap as f64 >= SILENCE_FRACTION * self.min_rto_ns as f64;
        // Capture→sender→capture time: the handshake gap (the queue-free way of an ACK from
        // here to the sender and of its answer back) plus the queueing this segment met on
        // its way here, read off TSval (relative to the quietest offset seen, so a queue
        // already present at the handshake is not counted twice); without timestamps, the
        // latest fast-retransmit response time when longer — unless this direction's data
        // stream has been silent for longer than that: the backlog the response time
        // measured has drained by then.
        let mut upstream = self.upstream_base_ns.saturating_add(queueing);
        if self.pos != Position::Sender && !self.timestamps {
            let response = self.response_ns.unwrap_or(0);
            if data_gap < response {
                upstream = upstream.max(response);
            }
        }
        // Away from the sender, the sender sent this retransmission having seen only the ACKs
        // that passed here before `horizon` (its send time minus the ACKs' way to it):
        // the timer restart, SND.UNA and the recovery phase are taken as of then.
        // The sender's view when it sent this retransmission: the ACKs that had passed here
        // before `horizon`. Away from the sender, its send time minus the ACKs' way to it.
        // Anywhere, a copy of bytes already acknowledged here left the TCP before the ACK
        // that first covered them reached it (a sender does not resend what it knows
        // delivered): at the sender it waited in a queue below the capture point (the host's
        // interface queue, e.g. a go-back-N burst after a timeout); away from it, that ACK
        // was held after it passed here (a delay spike on the ACK path). The first
        // remembered advance past `start` is the covering one only when an earlier advance
        // is remembered too (or none was forgotten).
        // `sent` estimates the send time on this capture's clock; `horizon` bounds the ACKs
        // the sender had seen. When the covering ACK was held beyond this point for a time
        // nobody here can see, the sender's wait is unobservable (`ack_held`).
        // TSval counts whole ticks, so the queueing read off it can be up to a tick long: the
        // send time is taken a tick later (an ACK the sender answered at once then still
        // counts as seen).
        let tick = if self.timestamps && self.pos != Position::Sender { self.ts_tick_ns } else { 0 };
        let sent = now.saturating_sub(upstream.saturating_sub(tick));
        let mut horizon = sent;
        let mut ack_held = false;
        let mut covered_here = false;
        if start < self.snd_una {
            let i = self.ack_history.iter().position(|a| a.una > start);
            let known = i.is_some_and(|i| i > 0 || self.ack_history.len() < ACK_HISTORY_LEN);
            if let Some(h) = i.filter(|_| known).and_then(|i| self.ack_history.get(i)).map(|a| a.t) {
                horizon = horizon.min(h.saturating_sub(1));
                covered_here = true;
                ack_held = self.pos != Position::Sender;
            }
        }
        // The engine's sender model in observe mode: which of its triggers had fired.
        let (ws, we) = (self.wire(start), self.wire(rend));
        let ex: Option<Explanation> = self.obs.as_mut().map(|o| {
            o.advance(SimTime(now));
            o.explain(SimTime(now), ws, we)
        });
        let mut phase = self.phase;
        let mut una = self.snd_una;
        let mut dupacks = ex.map_or(0, |e| e.dupacks);
        let dupack_threshold = ex.map_or(self.dupack_threshold(), |e| e.dupack_threshold);
        let mut elapsed = now.saturating_sub(self.timer_restart_ns) * u64::from(silent_enough);
        if horizon < now {
            if let Some((t, prev)) = self.phase_exit {
                if phase == PhaseKind::Open && t > horizon {
                    phase = prev;
                }
            }
            let j = self.ack_history.iter().rposition(|a| a.t <= horizon);
            let seen = j.and_then(|j| self.ack_history.get(j)).copied();
            if let Some(a) = seen {
                una = una.min(a.una);
                // The duplicate ACKs for that SND.UNA when an advance has reset the count since:
                // DupThresh of them, if they came before that advance (a fast retransmit
                // answers the DupThresh-th at once, so its time is not compared with the
                // estimated send time, which is no finer than the upstream estimate).
                // Only where the sender provably had not seen the later advance (it resent
                // bytes that advance covered):
                // elsewhere the send-time estimate is too coarse to place the advance.
                if let Some(next) = j.and_then(|j| self.ack_history.get(j + 1)).filter(|_| covered_here) {
                    dupacks = if next.dupthresh_before.is_some() { dupack_threshold } else { 0 };
                }
            }
            if self.restart_by_ack && self.pos != Position::Sender {
                let restart = seen.map(|a| a.t).filter(|&t| t < self.timer_restart_ns).unwrap_or(self.timer_restart_ns);
                elapsed = sent.saturating_sub(restart) * u64::from(silent_enough);
            }
        }
        let input = CauseInput {
            phase,
            at_una: start <= una,
            dupacks,
            dupack_threshold,
            sack_lost: ex.is_some_and(|e| e.islost_una_at.is_some()),
            rack_lost: ex.is_some_and(|e| e.rack_lost),
            elapsed_ns: elapsed,
            // The profile's minimum RTO, the bound the timer can never beat (RFC 6298 (2.4)),
            // not the observer's estimate: the observer takes its RTT samples from capture
            // times, not from the sender's timestamp clock, and its RTO drifts from the
            // sender's after delay spikes (docs/design.md, measured).
            rto_ns: self.min_rto_ns,
            is_tail: rend >= self.snd_max,
            tlp_model: self.tlp_model,
            timer_unobservable: !silent_enough || ack_held,
            probe_unanswered: self.probe_unanswered,
        };
        let d = classify_cause(&input);
        if d.cause == Cause::Tlp {
            self.probe_unanswered = true;
        }
        // What the model's observer said about this retransmission, for the OS inference
        // (`infer::evidence`): its explanation before the retransmission is applied, and how
        // well the capture time stands for the send time here.
        self.evidence = Some(RetxEvidence {
            ts_ns: now,
            sent_ns: sent,
            // The upstream gap is measured (handshake) and its queueing read off TSval: what
            // is left unknown is a TSval tick; without timestamps, the whole queueing.
            slack_ns: match (self.pos, self.timestamps) {
                (Position::Sender, _) => 0,
                (_, true) => tick,
                (_, false) => upstream.saturating_add(tick),
            },
            ack_lag_ns: self.vantage_gap_ns,
            explanation: ex,
            cause: d.cause,
            timer_expiry: d.timer_expiry,
            new_episode: d.new_episode,
            timer_unobservable: input.timer_unobservable,
        });
        let trigger = trigger_of(d.cause, &input, ex.as_ref());
        if let Some(e) = ex.filter(|e| d.cause == Cause::FastRetransmit && e.dupacks >= e.dupack_threshold) {
            if let Some(t) = e.dupthresh_at {
                self.response_ns = Some(now.saturating_sub(t.0));
            }
        }
        let (ws, we) = (self.wire(start), self.wire(rend));
        if let Some(o) = self.obs.as_mut() {
            o.apply_retransmission(SimTime(now), ws, we, trigger);
        }
        if d.new_episode || self.cur_episode.is_none() {
            let id = self.next_episode;
            self.next_episode = self.next_episode.wrapping_add(1);
            self.episodes.push_back(Episode { id, detect_ns: now, recover: self.snd_max, recovery_ns: None });
            self.cur_episode = Some(id);
        }
        // A decision taken on the phase as it was before an exit the sender had not yet seen
        // (`phase_exit` above) belongs to the episode that has since ended: the replay stays
        // in the phase it is in now. Carrying that episode's phase forward would keep, e.g.,
        // a timeout recovery alive after its ACK and call the next fast recovery `rto`.
        if phase == self.phase || d.new_episode {
            self.phase = d.next_phase;
        }
        if d.new_episode && self.phase != PhaseKind::Open && self.acked_any && self.snd_una >= self.snd_max {
            // Everything sent before the detection was acknowledged here already (the ACKs
            // were held after passing this point): the ACK that ends the recovery reaches the
            // sender with those already seen, and no later advance will come to close it.
            if let Some(e) = self.episodes.back_mut() {
                self.drain_ready |= e.on_ack(now, self.snd_una);
            }
            self.phase_exit = Some((now, self.phase));
            self.phase = PhaseKind::Open;
        }
        if d.timer_expiry {
            // RFC 6298 (5.5)-(5.6): the timer restarts (backed off) with the retransmission
            // that its expiry sent, not with the go-back-N followers (5.1: it is running).
            self.timer_restart_ns = now;
            self.restart_by_ack = false;
        }
        // Bytes sent before the capture started were never seen and never acknowledged in
        // it: no evidence either way from the capture itself.
        let before_capture = start < self.first_seq && !self.acked_any;
        let verdict = match self.pos {
            _ if before_capture => None,
            Position::Receiver => spurious::receiver_capture(all_seen),
            Position::Middle => spurious::original_not_seen(all_seen),
            Position::Sender => None,
        }
        .or_else(|| spurious::acked_before_seen(if self.acked_any { self.snd_una } else { 0 }, rend))
        .or_else(|| self.sacked_covers(start, rend).then_some((true, Evidence::AckedBeforeSeen)));
        // Record the copy.
        if any_seen {
            let i0 = self.segs.partition_point(|s| s.end <= start);
            let mut i = i0;
            while let Some(s) = self.segs.get_mut(i) {
                if s.start >= rend {
                    break;
                }
                s.copies = s.copies.saturating_add(1);
                s.last_ns = now;
                if let Some(v) = tsval {
                    s.max_tsval = Some(match s.max_tsval {
                        Some(m) if !ts_before(m, v) => m,
                        _ => v,
                    });
                }
                i += 1;
            }
        } else {
            let at = self.segs.partition_point(|s| s.start < start);
            // copies = 2: Karn's rule, no RTT sample from a retransmission.
            self.segs.insert(at, TxSeg { start, end: rend, first_ns: now, last_ns: now, max_tsval: tsval, copies: 2, original_seen: false });
        }
        self.remove_hole_range(start, rend);
        let sharer = self.note_tx_tsval(tsval, start, len);
        let ack_clock_alive = match (first_ns, self.last_ack_ns) {
            (Some(f), Some(a)) => {
                a as f64 >= f as f64 + spurious::TOO_SOON_FRACTION * self.rtt.min_ns.unwrap_or(0) as f64
            }
            (None, _) => true,
            (Some(_), None) => false,
        };
        let pid = self.watch.next_pid;
        self.watch.next_pid += 1;
        if verdict.is_none() {
            self.watch.add(pid, start, rend);
        } else {
            self.drain_ready |= recovered(&self.episodes, self.cur_episode.unwrap_or(0));
        }
        self.pending.push(Pending {
            pid,
            frame,
            ts_ns: now,
            start,
            end: rend,
            cause: d.cause,
            trigger,
            episode: self.cur_episode.unwrap_or(0),
            detection_ns: first_ns.map(|f| now.saturating_sub(f)),
            tsval: if self.timestamps { tsval } else { None },
            tsval_sharer: sharer,
            ack_clock_alive,
            earlier_sharer: sharer.is_some(),
            snd_max_at_tx: self.snd_max,
            covered: false,
            cum_acked: false,
            verdict,
            dsack_matched: false,
        });
        self.counters.retransmissions += 1;
        self.counters.by_cause[d.cause.index()] += 1;
        if end > self.snd_max {
            self.push_new(now, self.snd_max, end, tsval);
        }
    }

    fn no_dsack_wait_ns(&self) -> Option<u64> {
        self.rtt.max_ns.map(|m| NO_DSACK_WAIT_RTTS.saturating_mul(m).saturating_add(NO_DSACK_WAIT_SLACK_NS))
    }

    /// An acknowledgment for this direction's data (a segment of the other direction with
    /// the ACK flag), `rel_ack` relative to this direction's ISN.
    pub fn on_ack(&mut self, now: u64, rel_ack: u32, seg: &Segment) {
        if !self.started {
            return;
        }
        let ack = unwrap_seq(self.snd_max, rel_ack).min(self.snd_max);
        self.probe_unanswered = false;
        // Before this ACK: had SND.UNA met a fast-retransmit trigger (DupThresh duplicate
        // ACKs or RFC 6675 IsLost), and when?
        let dupthresh_before = self.obs.as_ref().and_then(|o| {
            o.dupthresh_at().filter(|_| o.dupacks() >= o.dupack_threshold()).or(o.islost_una_at()).map(|t| t.0)
        });
        // The engine's rules on the ACK: RFC 6675 Update() and IsLost on the scoreboard,
        // RFC 2883 D-SACK recognition, the duplicate-ACK definition, the RTO timer.
        // (Away from the sender, data it sent may not have passed here yet: RFC 5681 §2 (a)
        // "outstanding data" holds whatever the capture shows.)
        let v = self.ack_vantage();
        let view = self.obs.as_mut().map(|o| o.on_ack(v.at(now), seg, v.away)).unwrap_or_default();
        // A D-SACK on this connection proves the receiver sends them.
        self.dsack_receiver |= view.dsack.is_some();
        let dsack_block = view.dsack.map(|b| {
            (unwrap_seq(self.snd_max, b.left.0.wrapping_sub(self.base)), unwrap_seq(self.snd_max, b.right.0.wrapping_sub(self.base)))
        });
        let prev_una = self.snd_una;
        if ack > self.snd_una {
            let mut sample = None;
            let mut filled_by_copy = false;
            while let Some(f) = self.segs.front() {
                if f.end > ack {
                    break;
                }
                // RFC 6298 §3 (Karn): only segments sent once give a sample.
                sample = (f.copies == 1 && f.original_seen).then(|| now.saturating_sub(f.last_ns));
                filled_by_copy |= f.copies > 1 || !f.original_seen;
                self.segs.pop_front();
            }
            // Karn's rule for the whole advance: when a copy filled a hole below, this ACK
            // answers the copy, and the segments above it waited on the hole (a sample from
            // them would add that wait to the round trip).
            match sample {
                Some(s) if filled_by_copy => self.rtt.widen_max(s),
                Some(s) => self.rtt.sample(now, s),
                None => {}
            }
            self.snd_una = ack;
            self.acked_any = true;
            // RFC 6298 (5.3): restart the timer on an ACK of new data.
            self.timer_restart_ns = now;
            self.restart_by_ack = true;
            if self.ack_history.len() == ACK_HISTORY_LEN {
                self.ack_history.pop_front();
            }
            self.ack_history.push_back(AckAdvance { t: now, una: ack, dupthresh_before });
            self.holes.retain(|h| h.end > ack);
            for h in self.holes.iter_mut() {
                if ack >= h.start && h.reached_ns.is_none() {
                    h.reached_ns = Some(now);
                }
                h.start = h.start.max(ack);
            }
            let mut closed = false;
            for e in self.episodes.iter_mut() {
                closed |= e.on_ack(now, ack);
            }
            self.drain_ready |= closed;
            if self.phase != PhaseKind::Open {
                let recover = self.cur_episode.and_then(|id| episode(&self.episodes, id)).map(|e| e.recover);
                if recover.map_or(true, |r| ack >= r) {
                    self.phase_exit = Some((now, self.phase));
                    self.phase = PhaseKind::Open;
                }
            }
        }
        self.last_ack_ns = Some(now);
        if ack < self.snd_max {
            self.gap_acks += 1;
            let d = u64::from(self.dupack_threshold());
            for h in self.holes.iter_mut().filter(|h| h.dupthresh_ns.is_none()) {
                if self.gap_acks.saturating_sub(h.gap_acks_at) >= d {
                    h.dupthresh_ns = Some(now);
                }
            }
        }
        if self.pending.is_empty() {
            return;
        }
        // Evidence, in the order of spurious.rs.
        if let Some((l, r)) = dsack_block {
            // RFC 2883: each D-SACK reports one duplicate arrival. It goes to the newest copy
            // of these bytes that can have reached the receiver and been reported by now and
            // is not yet matched to a D-SACK — a retransmission is spurious when an earlier
            // copy arrived, so the newest copies are the duplicates first. A copy already
            // decided spurious (still held, or handed out: `proven_dups`) takes the D-SACK
            // without a new verdict; one decided needed cannot take it.
            let earliest_report = self.rtt.min_ns.filter(|_| self.pos != Position::Receiver).unwrap_or(0);
            let reportable = |ts: u64| now.saturating_sub(ts) as f64 >= spurious::TOO_SOON_FRACTION * earliest_report as f64;
            let proven = self
                .proven_dups
                .iter()
                .enumerate()
                .filter(|&(_, &(s, e, t))| s <= l && r <= e && reportable(t))
                .max_by_key(|&(_, &(_, _, t))| t)
                .map(|(i, &(_, _, t))| (i, t));
            let held = self.pending.iter_mut().rev().find(|p| {
                spurious::dsack(l, r, p.start, p.end).is_some()
                    && reportable(p.ts_ns)
                    && !p.dsack_matched
                    && !matches!(p.verdict, Some((false, _)))
            });
            match (held, proven) {
                (Some(p), Some((_, t))) if t < p.ts_ns => self.drain_ready |= Self::take_dsack(p, l, r) && recovered(&self.episodes, p.episode),
                (None, None) => {}
                (Some(p), None) => self.drain_ready |= Self::take_dsack(p, l, r) && recovered(&self.episodes, p.episode),
                (_, Some((i, _))) => {
                    self.proven_dups.remove(i);
                }
            }
        }
        let tsecr = seg.options.timestamps.map(|t| t.1);
        let min_rtt = match self.pos {
            Position::Receiver => None,
            _ => self.rtt.min_ns,
        };
        let wait = self.no_dsack_wait_ns();
        let (obs, base) = (self.obs.as_ref(), self.base);
        let sacked = |start: u64, end: u64| {
            obs.is_some_and(|o| o.scoreboard().sacked_covers(SeqNum(base.wrapping_add(start as u32)), SeqNum(base.wrapping_add(end as u32))))
        };
        // The copies this ACK can change (`Watch`); the rules below are applied to each.
        let watch = &mut self.watch;
        let mut cand = std::mem::take(&mut watch.scratch);
        cand.clear();
        cand.append(&mut watch.fresh);
        while let Some(&Reverse((end, pid))) = watch.by_end.peek() {
            if end > ack {
                break;
            }
            watch.by_end.pop();
            cand.push(pid);
        }
        // Only a block that SACKed something new can have covered a copy (`Watch`): the
        // scoreboard reports which did (`AckView::changed_blocks`); the repeats of earlier
        // ACKs' blocks (most of a SACK-heavy recovery's) are not searched.
        for (k, b) in seg.options.sack.as_slice().iter().enumerate() {
            if k < 8 && view.changed_blocks & (1 << k) == 0 {
                continue;
            }
            let l = unwrap_seq(self.snd_max, b.left.0.wrapping_sub(self.base));
            let r = unwrap_seq(self.snd_max, b.right.0.wrapping_sub(self.base));
            let lo = l.saturating_sub(watch.max_len);
            if lo < r {
                cand.extend(watch.uncovered.range((lo, 0)..(r, 0)).map(|&(_, pid)| pid));
            }
        }
        if let (Some(w), true) = (wait, self.sack && self.dsack_receiver) {
            while let Some(&(ts, pid)) = watch.waiting.first() {
                if now.saturating_sub(ts) < w {
                    break;
                }
                watch.waiting.pop_first();
                cand.push(pid);
            }
        }
        cand.sort_unstable();
        cand.dedup();
        for &pid in &cand {
            let Ok(i) = self.pending.binary_search_by_key(&pid, |p| p.pid) else { continue };
            let p = &mut self.pending[i];
            if p.verdict.is_some() {
                watch.uncovered.remove(&(p.start, pid));
                continue;
            }
            let cum = ack >= p.end;
            let sacked_before = p.covered && !cum_before(p, prev_una);
            if !p.covered && (cum || sacked(p.start, p.end)) {
                p.covered = true;
                p.verdict = spurious::ack_too_soon(now.saturating_sub(p.ts_ns), min_rtt);
            }
            if p.verdict.is_none() && cum && !p.cum_acked {
                p.cum_acked = true;
                // RFC 7323 §4.3: the echo is the TSval of the segment that filled the left
                // edge (TS.Recent moves only at SEG.SEQ <= Last.ACK.sent). It says which copy
                // of these bytes arrived (Eifel, RFC 3522) when they arrived with that
                // segment — at the edge, or in the same in-order run — not when they had
                // been SACKed before and this ACK was caused by another hole's filler.
                let at_left_edge = p.start <= prev_una;
                if let (Some(e), Some(v), true) = (tsecr, p.tsval, at_left_edge || !sacked_before) {
                    // RFC 7323 §4.3 / Linux tcp_replace_ts_recent ("!after(seq, tp->rcv_wup)"):
                    // only a segment starting at or below the receiver's left edge moves
                    // TS.Recent, and that edge is at most this ACK's cumulative point. A
                    // segment with the same TSval starting at or above it (new data sent in
                    // the same clock tick) cannot have set the echo (`sharer_key`).
                    let shared = p.tsval_sharer.is_some_and(|k| k < ack);
                    p.verdict = spurious::timestamp_echo(e, v, shared)
                        .filter(|&(spurious, _)| spurious || p.ack_clock_alive);
                }
            }
            if p.verdict.is_none() {
                if let Some(w) = wait {
                    p.verdict = spurious::no_dsack(self.sack, self.dsack_receiver, p.cum_acked && p.ack_clock_alive, now.saturating_sub(p.ts_ns), w);
                }
            }
            if p.covered || p.verdict.is_some() {
                watch.uncovered.remove(&(p.start, pid));
            }
            if p.verdict.is_some() {
                self.drain_ready |= recovered(&self.episodes, p.episode);
            } else if p.cum_acked && p.ack_clock_alive {
                watch.waiting.insert((p.ts_ns, pid));
                watch.ordered.insert(pid);
            }
        }
        watch.scratch = cand;
        // `no_dsack_by_order`: the copies this ACK proves the receiver had received before
        // sending it (its echo, or the highest byte it acknowledges), with no D-SACK so far.
        if self.sack && self.dsack_receiver && !watch.ordered.is_empty() {
            let acked_high = seg
                .options
                .sack
                .as_slice()
                .iter()
                .map(|b| unwrap_seq(self.snd_max, b.right.0.wrapping_sub(self.base)).min(self.snd_max))
                .fold(ack, u64::max);
            while let Some(&pid) = watch.ordered.first() {
                let Ok(i) = self.pending.binary_search_by_key(&pid, |p| p.pid) else {
                    watch.ordered.pop_first();
                    continue;
                };
                let p = &mut self.pending[i];
                if p.verdict.is_some() {
                    watch.ordered.pop_first();
                    continue;
                }
                let tsv = if self.timestamps { p.tsval } else { None };
                let later = spurious::sent_after_arrival(tsecr, tsv, p.earlier_sharer, acked_high, p.snd_max_at_tx);
                if !later {
                    break;
                }
                watch.ordered.pop_first();
                p.verdict = spurious::no_dsack_by_order(self.sack, self.dsack_receiver, p.cum_acked && p.ack_clock_alive, later);
                // `drain_done` hands a decided copy out once its episode has ended; an episode
                // that ends later sets `drain_ready` itself (`Episode::on_ack`). Asking for a
                // pass over the held copies now only when this one can go spares one pass per
                // verdict (the held copies of a SACK-heavy window are hundreds).
                if p.verdict.is_some() && recovered(&self.episodes, p.episode) {
                    self.drain_ready = true;
                }
            }
        }
    }

    /// A D-SACK matched to a held copy: its verdict unless it has one already. Returns
    /// whether the copy is decided (it may be handed out).
    fn take_dsack(p: &mut Pending, l: u64, r: u64) -> bool {
        p.dsack_matched = true;
        if p.verdict.is_none() {
            p.verdict = spurious::dsack(l, r, p.start, p.end);
        }
        p.verdict.is_some()
    }

    fn emit(p: &Pending, recovery_ns: Option<u64>, counters: &mut DirCounters) -> RetxOut {
        match p.verdict {
            Some((true, _)) => counters.spurious += 1,
            Some((false, _)) => counters.needed += 1,
            None => counters.undecided += 1,
        }
        RetxOut {
            frame: p.frame,
            ts_ns: p.ts_ns,
            // Relative to the ISN, in the unwrapped space: data from before the first
            // segment seen (below SEQ_ORIGIN) is 0 or negative, never wrapped to ~2^32.
            seq: p.start as i64 - SEQ_ORIGIN as i64,
            len: (p.end - p.start) as u32,
            cause: p.cause,
            trigger: p.trigger,
            spurious: p.verdict.map(|v| v.0),
            evidence: p.verdict.map_or(Evidence::None, |v| v.1),
            detection_ns: p.detection_ns,
            recovery_ns,
        }
    }

    /// Hands out the retransmissions that are decided and whose loss episode is over.
    ///
    /// Nothing can be ready unless an episode ended or a copy of an ended episode was decided
    /// since the last call (`drain_ready`); the pass over the held copies is skipped otherwise.
    pub fn drain_done(&mut self, out: &mut Vec<RetxOut>) {
        if self.pending.is_empty() || !self.drain_ready {
            return;
        }
        self.drain_ready = false;
        let episodes = &self.episodes;
        let counters = &mut self.counters;
        let proven = &mut self.proven_dups;
        self.pending.retain(|p| {
            let rec = episode(episodes, p.episode).and_then(|e| e.recovery_ns);
            if p.verdict.is_some() && rec.is_some() {
                if matches!(p.verdict, Some((true, _))) && !p.dsack_matched {
                    if proven.len() == PROVEN_DUPS_LEN {
                        proven.pop_front();
                    }
                    proven.push_back((p.start, p.end, p.ts_ns));
                }
                out.push(Self::emit(p, rec, counters));
                false
            } else {
                true
            }
        });
        let oldest = self.pending.iter().map(|p| p.episode).min();
        while let Some(e) = self.episodes.front() {
            if e.recovery_ns.is_some() && oldest.map_or(true, |o| e.id < o) && Some(e.id) != self.cur_episode {
                self.episodes.pop_front();
            } else {
                break;
            }
        }
    }

    /// End of the connection: every retransmission still held is handed out; undecided
    /// ones get one last chance with the D-SACK rule, then stay unknown.
    pub fn finish(&mut self, last_ns: u64, out: &mut Vec<RetxOut>) {
        let wait = self.no_dsack_wait_ns();
        self.watch.clear();
        self.drain_ready = false;
        for p in std::mem::take(&mut self.pending) {
            let mut p = p;
            if p.verdict.is_none() {
                if let Some(w) = wait {
                    p.verdict = spurious::no_dsack(self.sack, self.dsack_receiver, p.cum_acked && p.ack_clock_alive, last_ns.saturating_sub(p.ts_ns), w);
                }
            }
            let rec = episode(&self.episodes, p.episode).and_then(|e| e.recovery_ns);
            out.push(Self::emit(&p, rec, &mut self.counters));
        }
        self.episodes.clear();
        self.segs.clear();
    }

    /// The evidence of the retransmission the last [`DirReplay::on_data`] classified, if it
    /// was one (taken: a second call returns `None`). The OS inference (`infer`) scores it.
    pub fn take_evidence(&mut self) -> Option<RetxEvidence> {
        self.evidence.take()
    }

    /// The profile this replay applies.
    /// This direction's sender had to retransmit its SYN (client) or SYN-ACK (server) (set
    /// before data): RFC 6298 (5.7) and Karn's rule for the handshake sample, as the
    /// sender's `Connection::establish` applies them.
    pub fn set_handshake_retransmitted(&mut self, yes: bool) {
        self.handshake_rtx = yes;
    }

    /// The window this direction's sender learnt in the handshake, scaled, and the shift of
    /// the peer's later windows (set before data; `Observer::set_peer_window`).
    pub fn set_peer_window(&mut self, scaled: u64, snd_wscale: u8) {
        self.peer_window = Some((scaled, snd_wscale));
    }

    /// The capture shows a FIN on this direction's next data segment (`Observer::note_fin`;
    /// call before [`DirReplay::on_data`] of that segment).
    pub fn note_fin(&mut self) {
        self.fin_seen = true;
        if let Some(o) = self.obs.as_mut() {
            o.note_fin();
        }
    }

    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }

    /// Retransmissions held (for memory accounting in tests).
    pub fn held(&self) -> (usize, usize) {
        (self.pending.len(), self.segs.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unwrapping_follows_the_reference_across_the_wrap() {
        assert_eq!(unwrap_seq(10, 20), 20);
        assert_eq!(unwrap_seq(WRAP - 10, 5), WRAP + 5);
        assert_eq!(unwrap_seq(WRAP + 5, u32::MAX - 3), WRAP - 4);
        assert_eq!(unwrap_seq(0, u32::MAX), u64::from(u32::MAX));
    }
}
