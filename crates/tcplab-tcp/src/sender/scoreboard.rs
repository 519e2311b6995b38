//! The sender's retransmission queue and RFC 6675 scoreboard.
//!
//! One entry per transmitted segment, in a `VecDeque` ordered by sequence number starting at
//! SND.UNA (segment boundaries are fixed at first transmission; retransmissions reuse them).
//! Per-entry flags say SACKed / lost / retransmitted-and-in-flight. Byte counters for each flag
//! are maintained incrementally, so `pipe` is O(1):
//!
//! ```text
//! pipe = (SND.NXT - SND.UNA) - sacked - lost + retransmitted
//! ```
//!
//! which is RFC 6675 SetPipe() (§4): an un-SACKed octet counts once unless IsLost, and once
//! more if it was retransmitted (at or below HighRxt).
//!
//! IsLost (RFC 6675 §4): a segment is lost when DupThresh SACKed segments or more than
//! (DupThresh-1)*SMSS SACKed bytes lie above it. Because that property is monotone in the
//! sequence number, the scoreboard keeps a watermark `lost_upto`: every un-SACKed segment
//! below it is marked lost. Each ACK finds the *IsLost point* — walking down from the highest
//! SACKed segment, the first SACKed segment at which the threshold is met — and marks the
//! segments between the old watermark and that point — amortised O(1) per segment.
//!
//! The walk itself is not done over the queue (with fewer than DupThresh SACKed segments
//! above a hole it would cross every un-SACKed segment down to the watermark, on every ACK).
//! The walk stops at the DupThresh-th SACKed segment at the latest, so only the highest
//! DupThresh SACKed segments can be the point; the scoreboard keeps exactly those in
//! `top_sacked`:
//!
//! ```text
//! top_sacked = the min(top_cap, #SACKed) highest SACKed segments, as (end, length), ascending
//! top_cap    = the largest DupThresh asked for so far (at least TOP_SACKED_MIN)
//! ```
//!
//! Marking a segment SACKed appends it (O(1): SACK edges usually grow upwards), inserts it
//! (O(top_cap)) or, below a full list, leaves it out; a cumulative ACK drops entries from the
//! bottom; the point is found among the entries in O(DupThresh) and located in the queue by
//! binary search, O(log window). A DupThresh above `top_cap` (Linux's `reordering` rising)
//! refills the list by one walk down the queue: O(window), once per new maximum.
//!
//! SACK blocks are processed against a cache of the previous ACK's blocks (as Linux does), so
//! a block that grew by one segment costs one segment of work, not the whole block.
//!
//! `high_rxt` is RFC 6675 HighRxt used as the NextSeg() cursor: NextSeg rule (1) looks only
//! at segments at or above it.
//!
//! Positions in the queue are found by search, each kind of search starting from where the
//! same kind found its answer last ([`Hint`]): the IsLost watermark, HighRxt, the SACK
//! blocks' edges and the IsLost point only move forward, by a few segments per ACK, so the
//! answer is usually at or a few entries after the previous one. A hint is checked before it
//! is used (the entries either side of the answer must satisfy and fail the search's
//! predicate, which is monotone over the queue), so a stale hint costs a binary search and
//! never a wrong answer: the result is exactly `partition_point`'s. The queue only grows at
//! the back and shrinks at the front, so a hint is kept as an absolute index (entries ever
//! popped + index), which stays right across both. On the SACK-heavy capture of
//! docs/benchmarks.md (hundreds of holes per window) the binary searches were 10 % of the
//! analyzer's time.

use crate::segment::SackBlock;
use crate::seq::SeqNum;
use std::collections::VecDeque;
use tcplab_time::SimTime;

/// Entry flag: covered by a SACK block.
pub const SACKED: u8 = 1;
/// Entry flag: deemed lost (IsLost, RTO, or NewReno hole).
pub const LOST: u8 = 2;
/// Entry flag: retransmitted and that retransmission still counts in `pipe`.
pub const RETRANS: u8 = 4;
/// Entry flag: retransmitted at least once (Karn's rule).
pub const EVER_RETRANS: u8 = 8;

/// Number of SACK blocks remembered from the previous ACK (RFC 2018 §3 maximum).
pub const SACK_CACHE: usize = 4;

/// Initial capacity of the IsLost point's candidate list (`top_sacked`): RFC 6675 §2
/// "DupThresh ... 3", the DupThresh of every sender but a Linux one that measured reordering.
pub const TOP_SACKED_MIN: usize = 3;

/// How many entries past a hint a search steps before it falls back to a binary search
/// (`Scoreboard::find`): a position usually moves by the few segments one ACK covers.
const HINT_STEPS: usize = 8;

/// The searches that keep a hint, one slot each (module doc): the IsLost watermark
/// (`lost_upto`, RACK's scan), HighRxt (NextSeg), SACK block edges, the IsLost point and
/// `index_covering`, anything else.
#[derive(Copy, Clone, Debug)]
enum Hint {
    Watermark = 0,
    HighRxt = 1,
    SackEdge = 2,
    LostPoint = 3,
    Covering = 4,
    Other = 5,
}
/// Number of [`Hint`] slots.
const HINTS: usize = 6;

/// What a cumulative ACK removed from the scoreboard.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct CumAck {
    /// Some acknowledged byte had been retransmitted (Karn's rule applies).
    pub ever_retransmitted: bool,
    /// Send time of the oldest fully acknowledged segment.
    pub oldest_sent: Option<SimTime>,
    /// Send time of the newest fully acknowledged segment.
    pub newest_sent: Option<SimTime>,
}

impl CumAck {
    /// RFC 6298 §3 (Karn's algorithm): "RTT samples MUST NOT be made using segments that
    /// were retransmitted". The per-ACK sample of the oldest newly acknowledged segment
    /// (Linux 2.4 `tcp_clean_rtx_queue`), none when any acknowledged byte was ever resent.
    #[inline]
    pub fn karn_sample(&self, now: SimTime) -> Option<tcplab_time::SimDuration> {
        if self.ever_retransmitted {
            return None;
        }
        self.oldest_sent.map(|t| now.saturating_since(t))
    }
}

/// The segments delivered (cumulatively or by SACK) by the ACK being processed, summarised for
/// RACK (RFC 8985 §6.2 steps 2–3, `crate::loss::rack`). The sender resets it before each ACK;
/// `cum_ack` and the SACK marking update it per delivered segment (O(1) each).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Delivered {
    /// The delivered segment sent last (RFC 8985 RACK_sent_after order: send time, then end
    /// sequence): (send time, end, ever retransmitted).
    pub newest: Option<(SimTime, SeqNum, bool)>,
    /// The lowest end of a delivered segment that was never retransmitted.
    pub lowest_original_end: Option<SeqNum>,
    /// The highest end delivered.
    pub highest_end: Option<SeqNum>,
    /// Send time of the newest segment this ACK newly SACKed that was never retransmitted
    /// (Linux `tcp_sacktag_one`: `state->last_sackt = xmit_time` for segments without
    /// `TCPCB_RETRANS`), the ACK's SACK RTT sample for `rules::ca_rtt_sample`.
    pub newest_sacked_original: Option<SimTime>,
}

impl Delivered {
    #[inline]
    fn note(&mut self, g: &SentSeg) {
        let end = g.end();
        let rtx = g.has(EVER_RETRANS);
        let newer = match self.newest {
            None => true,
            Some((t, e, _)) => g.sent_at > t || (g.sent_at == t && end.gt(e)),
        };
        if newer {
            self.newest = Some((g.sent_at, end, rtx));
        }
        if !rtx && self.lowest_original_end.is_none_or(|l| end.lt(l)) {
            self.lowest_original_end = Some(end);
        }
        if self.highest_end.is_none_or(|h| end.gt(h)) {
            self.highest_end = Some(end);
        }
    }
}

/// One transmitted segment.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SentSeg {
    pub start: SeqNum,
    /// Payload bytes.
    pub len: u32,
    /// Carries the FIN (occupies one extra sequence number).
    pub fin: bool,
    /// Time of the latest (re)transmission.
    pub sent_at: SimTime,
    pub flags: u8,
}

impl SentSeg {
    #[inline]
    pub fn seq_len(&self) -> u32 {
        self.len + self.fin as u32
    }
    #[inline]
    pub fn end(&self) -> SeqNum {
        self.start + self.seq_len()
    }
    #[inline]
    pub fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }
}

/// Result of processing an ACK's SACK blocks.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SackUpdate {
    /// Bytes SACKed for the first time.
    pub newly_sacked: u64,
    /// The first block was a D-SACK (RFC 2883 §4).
    pub dsack: bool,
    /// Bit `k` set: the ACK's block `k` SACKed some segment for the first time (its bytes
    /// are in `newly_sacked`). A block with its bit clear changed nothing on the scoreboard
    /// (a D-SACK, an invalid block, or one repeated from an earlier ACK), so no range's
    /// [`Scoreboard::sacked_covers`] answer can have changed inside it: the analyzer's
    /// replay looks for newly covered retransmissions only inside the blocks with their bit
    /// set (`tcplab-analyze`'s `sender_replay::Watch`). Blocks past the eighth are never
    /// flagged (RFC 2018 §3: at most 4 fit in the option).
    pub changed_blocks: u8,
}

/// Is the first SACK block of an ACK a D-SACK?
///
/// RFC 2883 (the data sender's check of an arriving SACK option):
/// "If the first SACK block is covered by the Cumulative Acknowledgement field, then it is a
/// D-SACK block, and is reporting duplicate data. Else, if the first SACK block is covered by
/// the second SACK block, then the first SACK block is a D-SACK block, and is reporting
/// duplicate data."
///
/// "The Cumulative Acknowledgement field" is SEG.ACK, the ACK field of the segment carrying the
/// blocks — not SND.UNA before that segment: an ACK that both advances SND.UNA and reports a
/// duplicate of bytes between the old SND.UNA and SEG.ACK carries a D-SACK (the receiver
/// reports a duplicate on the ACK the duplicate triggers, whatever else that ACK covers).
/// "Covered by the Cumulative Acknowledgement field" = the right edge is at or below SEG.ACK.
pub fn is_dsack(blocks: &[SackBlock], seg_ack: SeqNum) -> bool {
    let Some(first) = blocks.first() else { return false };
    let covered_by_second = blocks.get(1).is_some_and(|b| b.left.le(first.left) && first.right.le(b.right));
    first.right.le(seg_ack) || covered_by_second
}

/// Retransmission queue + scoreboard.
#[derive(Clone, Debug)]
pub struct Scoreboard {
    segs: VecDeque<SentSeg>,
    sacked: u64,
    lost: u64,
    retrans: u64,
    /// One past the highest SACKed byte (RFC 6675 "HighACK" of the SACK space), if any.
    high_sacked: Option<SeqNum>,
    /// Every un-SACKed segment that starts below this is marked lost.
    lost_upto: SeqNum,
    /// The highest SACKed segments, (end, length in sequence space), ascending: exactly the
    /// min(`top_cap`, #SACKed) highest ones (module doc). Ends are fixed even when a
    /// cumulative ACK trims the front segment, so they identify the segments.
    top_sacked: VecDeque<(SeqNum, u32)>,
    /// Capacity of `top_sacked`: the largest DupThresh `update_lost` was called with.
    top_cap: usize,
    /// RFC 6675 HighRxt, used as the NextSeg() cursor.
    pub high_rxt: SeqNum,
    cache: [SackBlock; SACK_CACHE],
    cache_len: usize,
    /// SACK-enhanced F-RTO (dissertation L3329-3338): while set, segments acknowledged
    /// (cumulatively or by SACK) that were never retransmitted and were sent before this
    /// time set [`Scoreboard::orig_newly_acked`].
    pub orig_cutoff: Option<SimTime>,
    /// See `orig_cutoff`; the sender clears it before each ACK.
    pub orig_newly_acked: bool,
    /// What the current ACK delivered (for RACK); the sender resets it before each ACK.
    pub delivered: Delivered,
    /// Entries ever popped from the front of `segs`: absolute index = `popped` + index.
    popped: u64,
    /// Per kind of search, the absolute index of its previous answer (module doc).
    hints: [std::cell::Cell<u64>; HINTS],
}

impl Scoreboard {
    pub fn new(snd_una: SeqNum) -> Self {
        Scoreboard {
            segs: VecDeque::new(),
            sacked: 0,
            lost: 0,
            retrans: 0,
            high_sacked: None,
            lost_upto: snd_una,
            top_sacked: VecDeque::with_capacity(TOP_SACKED_MIN),
            top_cap: TOP_SACKED_MIN,
            high_rxt: snd_una,
            cache: [SackBlock::default(); SACK_CACHE],
            cache_len: 0,
            orig_cutoff: None,
            orig_newly_acked: false,
            delivered: Delivered::default(),
            popped: 0,
            hints: Default::default(),
        }
    }

    /// Re-initialises this scoreboard as [`Scoreboard::new`]`(snd_una)` builds one, keeping
    /// the allocations of its two queues (`segs`, `top_sacked`): a sender resets its scoreboard
    /// when the handshake completes (`Sender::on_established`) and when a driver opens the next
    /// connection in a finished one's endpoint slot (`Sender::reset`), which with `new` cost a
    /// `top_sacked` allocation and the old queues' frees each time (issue 12: four per short
    /// connection pair). Capacity is not state: every method reads only the entries. The
    /// destructuring names every field, so a field added to `Scoreboard` does not compile until
    /// it is handled here too; equality with `new` is tested (`Debug`, below and
    /// `tests/reset.rs`). Out of line: called twice per connection, never per packet, and kept
    /// out of its callers' code.
    #[inline(never)]
    pub fn reset(&mut self, snd_una: SeqNum) {
        let Scoreboard {
            segs,
            sacked,
            lost,
            retrans,
            high_sacked,
            lost_upto,
            top_sacked,
            top_cap,
            high_rxt,
            cache,
            cache_len,
            orig_cutoff,
            orig_newly_acked,
            delivered,
            popped,
            hints,
        } = self;
        segs.clear();
        *sacked = 0;
        *lost = 0;
        *retrans = 0;
        *high_sacked = None;
        *lost_upto = snd_una;
        top_sacked.clear();
        *top_cap = TOP_SACKED_MIN;
        *high_rxt = snd_una;
        *cache = [SackBlock::default(); SACK_CACHE];
        *cache_len = 0;
        *orig_cutoff = None;
        *orig_newly_acked = false;
        *delivered = Delivered::default();
        *popped = 0;
        *hints = Default::default();
    }

    pub fn len(&self) -> usize {
        self.segs.len()
    }
    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }
    pub fn get(&self, i: usize) -> Option<&SentSeg> {
        self.segs.get(i)
    }
    pub fn front(&self) -> Option<&SentSeg> {
        self.segs.front()
    }
    pub fn sacked_bytes(&self) -> u64 {
        self.sacked
    }
    pub fn lost_bytes(&self) -> u64 {
        self.lost
    }
    pub fn retrans_bytes(&self) -> u64 {
        self.retrans
    }

    /// RFC 6675 SetPipe(), from the counters.
    #[inline]
    pub fn pipe(&self, snd_una: SeqNum, snd_nxt: SeqNum) -> u64 {
        (u64::from(snd_nxt - snd_una) + self.retrans).saturating_sub(self.sacked + self.lost)
    }

    /// A new segment was sent at SND.NXT.
    #[inline]
    pub fn push(&mut self, seg: SentSeg) {
        self.segs.push_back(seg);
    }

    /// Index of the first segment starting at or after `s`.
    #[inline]
    fn index_from(&self, s: SeqNum, hint: Hint) -> usize {
        let Some(f) = self.segs.front() else { return 0 };
        let base = f.start;
        let off = s - base;
        if s.lt(base) {
            return 0;
        }
        self.find(hint, |g| (g.start - base) < off)
    }

    /// `self.segs.partition_point(pred)` for a predicate that is monotone over the queue
    /// (true, then false), starting from the search's hint (module doc): the same answer,
    /// found in O(1) when it lies within [`HINT_STEPS`] entries after the previous one.
    #[inline]
    fn find(&self, hint: Hint, pred: impl Fn(&SentSeg) -> bool) -> usize {
        let slot = &self.hints[hint as usize];
        let n = self.segs.len();
        let start = slot.get().checked_sub(self.popped).map_or(0, |i| i.min(n as u64) as usize);
        // The answer is `start` or later iff the entry before `start` satisfies `pred`.
        if start == 0 || pred(&self.segs[start - 1]) {
            let mut i = start;
            for _ in 0..=HINT_STEPS {
                if i == n || !pred(&self.segs[i]) {
                    debug_assert_eq!(i, self.segs.partition_point(&pred), "a hinted search disagrees with the binary search");
                    slot.set(self.popped + i as u64);
                    return i;
                }
                i += 1;
            }
        }
        let i = self.segs.partition_point(&pred);
        slot.set(self.popped + i as u64);
        i
    }

    fn uncount(&mut self, flags: u8, n: u64) {
        // Saturating: the counters are exact (see `check_counters` in the tests), but a
        // malformed input must never be able to panic the engine.
        if flags & SACKED != 0 {
            self.sacked = self.sacked.saturating_sub(n);
        } else {
            if flags & LOST != 0 {
                self.lost = self.lost.saturating_sub(n);
            }
            if flags & RETRANS != 0 {
                self.retrans = self.retrans.saturating_sub(n);
            }
        }
    }

    /// Cumulative ACK up to `una`: drops fully acknowledged segments (trimming a partially
    /// acknowledged one). Returns whether any acknowledged segment had ever been
    /// retransmitted and the send times of the oldest and newest dropped ones.
    pub fn cum_ack(&mut self, una: SeqNum) -> CumAck {
        let mut ever_rtx = false;
        let mut last_sent = None;
        let mut oldest_sent = None;
        while let Some(f) = self.segs.front().copied() {
            if f.end().le(una) {
                self.note_original(&f);
                if !f.has(SACKED) {
                    self.delivered.note(&f);
                }
                self.uncount(f.flags, u64::from(f.seq_len()));
                ever_rtx |= f.has(EVER_RETRANS);
                last_sent = Some(f.sent_at);
                oldest_sent = oldest_sent.or(Some(f.sent_at));
                self.segs.pop_front();
                self.popped += 1;
            } else if f.start.lt(una) {
                self.note_original(&f);
                let d = una - f.start;
                self.uncount(f.flags, u64::from(d));
                ever_rtx |= f.has(EVER_RETRANS);
                if let Some(m) = self.segs.front_mut() {
                    m.start = una;
                    m.len -= d.min(m.len);
                }
                break;
            } else {
                break;
            }
        }
        while self.top_sacked.front().is_some_and(|t| t.0.le(una)) {
            self.top_sacked.pop_front();
        }
        // A trimmed SACKed front segment keeps its end and counts only its remaining bytes.
        if let (Some(f), Some(t)) = (self.segs.front(), self.top_sacked.front_mut()) {
            if f.has(SACKED) && t.0 == f.end() {
                t.1 = f.seq_len();
            }
        }
        self.lost_upto = self.lost_upto.max(una);
        self.high_rxt = self.high_rxt.max(una);
        if let Some(h) = self.high_sacked {
            if h.le(una) {
                self.high_sacked = None;
            }
        }
        CumAck { ever_retransmitted: ever_rtx, oldest_sent, newest_sent: last_sent }
    }

    /// F-RTO bookkeeping, see `orig_cutoff`.
    #[inline]
    fn note_original(&mut self, g: &SentSeg) {
        if let Some(c) = self.orig_cutoff {
            if !g.has(EVER_RETRANS) && !g.has(SACKED) && g.sent_at < c {
                self.orig_newly_acked = true;
            }
        }
    }

    /// Clears every lost mark of a segment not yet retransmitted (a spurious timeout was
    /// detected: RFC 4015 §3 "resume the transmission with the next unsent segment").
    pub fn clear_lost(&mut self) {
        for g in self.segs.iter_mut() {
            if g.flags & LOST != 0 {
                g.flags &= !LOST;
                if g.flags & SACKED == 0 {
                    self.lost = self.lost.saturating_sub(u64::from(g.seq_len()));
                }
            }
        }
        if let Some(f) = self.segs.front() {
            self.lost_upto = f.start;
            self.high_rxt = f.start;
        }
    }

    fn mark_sacked(&mut self, i: usize) -> u64 {
        let g = self.segs[i];
        if g.has(SACKED) {
            return 0;
        }
        self.note_original(&g);
        self.delivered.note(&g);
        if !g.has(EVER_RETRANS) && self.delivered.newest_sacked_original.is_none_or(|t| g.sent_at > t) {
            self.delivered.newest_sacked_original = Some(g.sent_at);
        }
        let n = u64::from(g.seq_len());
        self.uncount(g.flags, n);
        self.sacked += n;
        self.segs[i].flags |= SACKED;
        let end = g.end();
        self.high_sacked = Some(self.high_sacked.map_or(end, |h| h.max(end)));
        self.top_insert(end, g.seq_len());
        n
    }

    /// A segment ending at `end` became SACKed: keeps `top_sacked` the highest `top_cap`
    /// SACKed segments. O(1) above the list, O(top_cap) inside it, nothing below a full one.
    fn top_insert(&mut self, end: SeqNum, len: u32) {
        let full = self.top_sacked.len() >= self.top_cap;
        if full {
            match self.top_sacked.front() {
                Some(low) if end.gt(low.0) => {
                    self.top_sacked.pop_front();
                }
                _ => return,
            }
        }
        match self.top_sacked.back() {
            Some(high) if end.lt(high.0) => {
                let at = self.top_sacked.partition_point(|t| t.0.lt(end));
                self.top_sacked.insert(at, (end, len));
            }
            _ => self.top_sacked.push_back((end, len)),
        }
    }

    /// `top_cap` rises to `cap`: refills `top_sacked` by one walk down the queue from the
    /// highest segment (O(window); only when DupThresh exceeds every earlier one).
    fn grow_top(&mut self, cap: usize) {
        self.top_cap = cap;
        self.top_sacked.clear();
        for g in self.segs.iter().rev().filter(|g| g.has(SACKED)).take(cap) {
            self.top_sacked.push_front((g.end(), g.seq_len()));
        }
    }

    /// Marks segments whose start is in `[from, to)` and that lie fully inside `blk`.
    /// Marks the segments starting in `[from, to)` that end inside `blk`; returns the bytes
    /// newly SACKed and sets `marked` when any segment was newly marked (a zero-length one
    /// adds no bytes but changes `sacked_covers`).
    fn sack_range(&mut self, from: SeqNum, to: SeqNum, blk: SackBlock, marked: &mut bool) -> u64 {
        if !from.lt(to) {
            // Empty range (a cached block that did not grow leftwards): no search.
            return 0;
        }
        let mut n = 0;
        let mut i = self.index_from(from, Hint::SackEdge);
        while i < self.segs.len() {
            let g = self.segs[i];
            if !g.start.lt(to) || g.end().gt(blk.right) {
                break;
            }
            *marked |= !g.has(SACKED);
            n += self.mark_sacked(i);
            i += 1;
        }
        n
    }

    /// Processes the SACK blocks of one ACK (RFC 6675 §5 Update(); RFC 2883 D-SACK detection).
    ///
    /// `snd_una` is SND.UNA *before* this ACK's cumulative acknowledgment is applied, `seg_ack`
    /// the ACK field of the same segment (SEG.ACK, `snd_una <= seg_ack <= snd_nxt`). The D-SACK
    /// decision is made here, against SEG.ACK ([`is_dsack`]), for every consumer of
    /// [`SackUpdate::dsack`] (loss recovery, the spurious detectors, the Linux sender's undo,
    /// the TLP episode).
    pub fn apply_sack(&mut self, blocks: &[SackBlock], snd_una: SeqNum, seg_ack: SeqNum, snd_nxt: SeqNum) -> SackUpdate {
        let mut up = SackUpdate { newly_sacked: 0, dsack: is_dsack(blocks, seg_ack), changed_blocks: 0 };
        let mut new_cache = [SackBlock::default(); SACK_CACHE];
        let mut nc = 0;
        for (k, b) in blocks.iter().enumerate() {
            if k == 0 && up.dsack {
                continue;
            }
            // Ignore invalid blocks (RFC 6675 §5: only blocks within (SND.UNA, SND.NXT]).
            let left = b.left.max(snd_una);
            if !left.lt(b.right) || b.right.gt(snd_nxt) {
                continue;
            }
            let blk = SackBlock { left, right: b.right };
            let mut marked = false;
            if nc < SACK_CACHE {
                new_cache[nc] = blk;
                nc += 1;
            }
            let cached = self.cache[..self.cache_len]
                .iter()
                .find(|c| blk.left.le(c.left) && c.right.le(blk.right))
                .copied();
            match cached {
                Some(c) => {
                    // Segments starting in [blk.left, c.left) plus those ending past c.right.
                    up.newly_sacked += self.sack_range(blk.left, c.left, blk, &mut marked);
                    // Did not grow rightwards: every segment inside is marked already.
                    if c.right.lt(blk.right) {
                        let mut i = self.find(Hint::SackEdge, |g| g.end().le(c.right) && g.start.lt(c.right));
                        // partition_point needs a monotone predicate; segments are ordered, so
                        // the above is monotone as long as they are above SND.UNA.
                        while i < self.segs.len() {
                            let g = self.segs[i];
                            if g.end().gt(blk.right) {
                                break;
                            }
                            marked |= !g.has(SACKED);
                            up.newly_sacked += self.mark_sacked(i);
                            i += 1;
                        }
                    }
                }
                None => up.newly_sacked += self.sack_range(blk.left, blk.right, blk, &mut marked),
            }
            if marked && k < 8 {
                up.changed_blocks |= 1 << k;
            }
        }
        self.cache = new_cache;
        self.cache_len = nc;
        up
    }

    /// RFC 6675 §4 IsLost() over the scoreboard: advances the lost watermark and marks
    /// un-SACKed segments below it. Returns bytes newly marked lost.
    ///
    /// The IsLost point is found among the highest SACKed segments (`top_sacked`, module doc),
    /// so the cost is O(DupThresh + log window) plus O(1) per segment newly marked.
    pub fn update_lost(&mut self, dupthresh: u32, smss: u64) -> u64 {
        // The walk below stops at the first SACKed segment when DupThresh is 0.
        let need = (dupthresh as usize).max(1);
        if need > self.top_cap {
            self.grow_top(need);
        }
        // Walk down from the highest SACKed segment until the threshold is met.
        let (mut segs, mut bytes) = (0u32, 0u64);
        let mut point = None;
        for &(end, len) in self.top_sacked.iter().rev() {
            segs += 1;
            bytes += u64::from(len);
            // RFC 6675 §4 IsLost: DupThresh discontiguous SACKed sequences, or more than
            // (DupThresh - 1) * SMSS bytes SACKed above.
            if segs >= dupthresh || bytes > u64::from(dupthresh.saturating_sub(1)) * smss {
                point = Some((end, len));
                break;
            }
        }
        let Some((end, len)) = point else { return 0 };
        // The point segment starts at `end - len`: at or below the watermark nothing new is
        // lost (below: it lies under the watermark; at: it is the first segment above it), so
        // the usual ACK that does not move the point needs no search.
        if !self.lost_upto.lt(SeqNum(end.0.wrapping_sub(len))) {
            return 0;
        }
        let Some(f) = self.segs.front() else { return 0 };
        let base = f.start;
        let p = self.find(Hint::LostPoint, |g| (g.end() - base) < (end - base));
        let floor = self.index_from(self.lost_upto, Hint::Watermark);
        if p < floor || p >= self.segs.len() {
            // The point lies below the watermark: nothing new is lost.
            return 0;
        }
        let mut newly = 0;
        for j in floor..p {
            let g = self.segs[j];
            if !g.has(SACKED) && !g.has(LOST) {
                self.segs[j].flags |= LOST;
                let n = u64::from(g.seq_len());
                self.lost += n;
                newly += n;
            }
        }
        self.lost_upto = self.segs[p].start;
        newly
    }

    /// Index of the segment holding sequence number `s`, if one does.
    pub fn index_covering(&self, s: SeqNum) -> Option<usize> {
        let f = self.segs.front()?;
        if s.lt(f.start) {
            return None;
        }
        let base = f.start;
        let i = self.find(Hint::Covering, |g| (g.end() - base) <= (s - base));
        self.segs.get(i).filter(|g| g.start.le(s) && s.lt(g.end())).map(|_| i)
    }

    /// The segment holding `s` is deemed lost (RFC 6675 IsLost, an RTO, or a NewReno hole)
    /// and not SACKed.
    pub fn is_lost_at(&self, s: SeqNum) -> bool {
        self.index_covering(s).and_then(|i| self.segs.get(i)).is_some_and(|g| g.has(LOST) && !g.has(SACKED))
    }

    /// Every byte of `[start, end)` lies in SACKed segments (O(log n + segments in range)).
    pub fn sacked_covers(&self, start: SeqNum, end: SeqNum) -> bool {
        let Some(mut i) = self.index_covering(start) else { return false };
        let mut cursor = start;
        while cursor.lt(end) {
            match self.segs.get(i) {
                Some(g) if g.has(SACKED) && g.start.le(cursor) => cursor = g.end(),
                _ => return false,
            }
            i += 1;
        }
        true
    }

    /// Index of the first segment starting at or after `s`.
    pub fn index_at_or_after(&self, s: SeqNum) -> usize {
        let hint = if s == self.lost_upto { Hint::Watermark } else { Hint::Other };
        self.index_from(s, hint)
    }

    /// Every un-SACKed segment starting below this is deemed lost (the IsLost watermark).
    pub fn lost_upto(&self) -> SeqNum {
        self.lost_upto
    }

    /// Marks every un-SACKed, not yet lost segment that starts below `upto` lost and raises the
    /// watermark to `upto` (RACK marks a prefix of the never-retransmitted segments,
    /// `crate::loss::rack`). Amortised O(1) per segment: the watermark only rises. Returns the
    /// bytes newly marked lost.
    pub fn mark_lost_below_watermark(&mut self, upto: SeqNum) -> u64 {
        if !self.lost_upto.lt(upto) {
            return 0;
        }
        let mut i = self.index_from(self.lost_upto, Hint::Watermark);
        let mut newly = 0;
        while let Some(g) = self.segs.get(i).copied() {
            if !g.start.lt(upto) {
                break;
            }
            if !g.has(SACKED) && !g.has(LOST) {
                self.segs[i].flags |= LOST;
                let n = u64::from(g.seq_len());
                self.lost += n;
                newly += n;
            }
            i += 1;
        }
        self.lost_upto = upto;
        newly
    }

    /// The retransmission of segment `i` is lost again (RFC 8985 §6.2 step 5; Linux
    /// `tcp_rack_mark_skb_lost`: "Account for retransmits that are lost again"): it stops
    /// counting in pipe as retransmitted and NextSeg() finds it again. Returns its bytes.
    pub fn retransmission_lost(&mut self, i: usize) -> u64 {
        let Some(g) = self.segs.get(i).copied() else { return 0 };
        if g.has(SACKED) || !g.has(RETRANS) {
            return 0;
        }
        let n = u64::from(g.seq_len());
        self.retrans = self.retrans.saturating_sub(n);
        if !g.has(LOST) {
            self.lost += n;
        }
        self.segs[i].flags = (g.flags | LOST) & !RETRANS;
        self.lost_upto = self.lost_upto.max(g.end());
        if g.start.lt(self.high_rxt) {
            self.high_rxt = g.start;
        }
        n
    }

    /// The first outstanding segment is deemed lost (and not SACKed).
    pub fn front_is_lost(&self) -> bool {
        self.segs.front().is_some_and(|g| g.has(LOST) && !g.has(SACKED))
    }

    /// Marks the first outstanding segment lost so that it is retransmitted next (fast
    /// retransmit; RFC 6582 partial ACK). Clears its in-flight retransmission if any.
    pub fn mark_front_lost(&mut self) {
        let Some(g) = self.segs.front().copied() else { return };
        if g.has(SACKED) {
            return;
        }
        let n = u64::from(g.seq_len());
        if g.has(RETRANS) {
            self.retrans = self.retrans.saturating_sub(n);
        }
        if !g.has(LOST) {
            self.lost += n;
        }
        if let Some(m) = self.segs.front_mut() {
            m.flags = (m.flags | LOST) & !RETRANS;
        }
        self.high_rxt = g.start;
        self.lost_upto = self.lost_upto.max(g.end());
    }

    /// Retransmission timeout: everything outstanding and not SACKed is lost and must be
    /// sent again (go-back-N over the holes). O(window), but only on an RTO.
    pub fn mark_all_lost(&mut self, snd_una: SeqNum, snd_nxt: SeqNum) {
        self.lost = 0;
        self.retrans = 0;
        // RFC 6298 (5.4): the earliest unacknowledged segment is always retransmitted, even if
        // it was SACKed (RFC 2018 §8: the receiver may have reneged; SACK is advisory).
        if let Some(f) = self.segs.front_mut() {
            if f.flags & SACKED != 0 {
                f.flags &= !SACKED;
                self.sacked = self.sacked.saturating_sub(u64::from(f.seq_len()));
                // The lowest segment: if listed, it is the list's lowest entry.
                let end = f.end();
                if self.top_sacked.front().is_some_and(|t| t.0 == end) {
                    self.top_sacked.pop_front();
                }
            }
        }
        for g in self.segs.iter_mut() {
            g.flags &= !RETRANS;
            if !g.has(SACKED) {
                g.flags |= LOST;
                self.lost += u64::from(g.seq_len());
            }
        }
        self.lost_upto = snd_nxt;
        self.high_rxt = snd_una;
    }

    /// Like [`Scoreboard::mark_all_lost`] for the segments that start below `upto` only (F-RTO
    /// falling back to go-back-N over the data sent before the RTO, dissertation L2191-2199).
    pub fn mark_lost_below(&mut self, snd_una: SeqNum, upto: SeqNum) {
        for g in self.segs.iter_mut() {
            if !g.start.lt(upto) {
                break;
            }
            // A segment retransmitted since the RTO (the F-RTO probe) is still in flight.
            if g.flags & (SACKED | LOST | RETRANS) == 0 {
                g.flags |= LOST;
                self.lost += u64::from(g.seq_len());
            }
        }
        self.lost_upto = self.lost_upto.max(upto);
        self.high_rxt = snd_una;
    }

    /// RFC 6675 §4 NextSeg() rule (1): the first un-SACKed, lost, not yet retransmitted
    /// segment at or above HighRxt. With `rule3`, also rule (3): an un-SACKed segment above
    /// HighRxt and below the highest SACKed byte.
    ///
    /// Every un-SACKed segment below `lost_upto` is lost, so the segments the scan skips are
    /// SACKed or already retransmitted; they can never become candidates again without
    /// `mark_front_lost`/`mark_all_lost` resetting the cursor, so the cursor moves past them
    /// and the scan is amortised O(1).
    pub fn next_retransmit(&mut self, rule3: bool) -> Option<usize> {
        let mut i = self.index_from(self.high_rxt, Hint::HighRxt);
        let limit = if rule3 { self.high_sacked.unwrap_or(self.lost_upto).max(self.lost_upto) } else { self.lost_upto };
        let mut leading = true;
        while i < self.segs.len() {
            let g = self.segs[i];
            if !g.start.lt(limit) {
                return None;
            }
            let skip = g.has(SACKED) || g.has(RETRANS);
            if !skip && (g.has(LOST) || rule3) {
                return Some(i);
            }
            if skip && leading {
                self.high_rxt = self.high_rxt.max(g.end());
            } else {
                leading = false;
            }
            i += 1;
        }
        None
    }

    /// NextSeg() rule (1) as [`Scoreboard::next_retransmit`] finds it, without moving the
    /// HighRxt cursor (for an observer's "expected next"; scans from the cursor).
    pub fn peek_next_retransmit(&self) -> Option<usize> {
        let mut i = self.index_from(self.high_rxt, Hint::HighRxt);
        while let Some(g) = self.segs.get(i) {
            if !g.start.lt(self.lost_upto) {
                return None;
            }
            if !g.has(SACKED) && !g.has(RETRANS) && g.has(LOST) {
                return Some(i);
            }
            i += 1;
        }
        None
    }

    /// RFC 6675 §4 NextSeg() rule (4): the highest outstanding un-SACKed segment, if it is
    /// not already retransmitted (walks back only over the trailing SACKed run).
    pub fn rescue_candidate(&self) -> Option<usize> {
        let i = self.segs.iter().rposition(|g| !g.has(SACKED))?;
        (!self.segs[i].has(RETRANS)).then_some(i)
    }

    /// Segment `i` is being retransmitted at `now` as the rescue retransmission (RFC 6675 §4
    /// rule (4): "HighRxt MUST NOT be updated").
    pub fn on_rescue_retransmit(&mut self, i: usize, now: SimTime) -> SentSeg {
        let keep = self.high_rxt;
        let g = self.on_retransmit(i, now);
        self.high_rxt = keep;
        g
    }

    /// Segment `i` is being retransmitted at `now`.
    pub fn on_retransmit(&mut self, i: usize, now: SimTime) -> SentSeg {
        let g = self.segs[i];
        if !g.has(RETRANS) && !g.has(SACKED) {
            self.retrans += u64::from(g.seq_len());
        }
        let m = &mut self.segs[i];
        m.flags |= RETRANS | EVER_RETRANS;
        m.sent_at = now;
        self.high_rxt = self.high_rxt.max(g.end());
        *m
    }

    /// Marks segment `i` lost if it carries none of SACKED/LOST/RETRANS (Linux
    /// `TCPCB_TAGBITS`); returns whether it did.
    fn mark_untagged_lost(&mut self, i: usize) -> bool {
        let g = self.segs[i];
        if g.flags & (SACKED | LOST | RETRANS) != 0 {
            return false;
        }
        self.segs[i].flags |= LOST;
        self.lost += u64::from(g.seq_len());
        self.lost_upto = self.lost_upto.max(g.end());
        true
    }

    /// After `n` > 0 segments were newly marked lost, retransmission restarts from the front.
    fn rewind_high_rxt_if(&mut self, n: u32) {
        if n > 0 {
            if let Some(f) = self.segs.front() {
                self.high_rxt = f.start;
            }
        }
    }

    /// Linux sender only (dissertation L1636–1641; Linux 2.4 `tcp_update_scoreboard` with
    /// `tcp_head_timedout`): if the first outstanding segment was (last) sent at least `rto`
    /// ago, mark lost every segment from the front, while each was last sent at least `rto`
    /// ago, that carries none of SACKED/LOST/RETRANS (Linux `TCPCB_TAGBITS`). A recently
    /// retransmitted head therefore stops the scan. Returns the number of segments marked.
    pub fn mark_timed_out(&mut self, now: SimTime, rto: tcplab_time::SimDuration) -> u32 {
        let mut n = 0;
        for i in 0..self.segs.len() {
            let g = self.segs[i];
            if now.saturating_since(g.sent_at) < rto {
                break;
            }
            n += u32::from(self.mark_untagged_lost(i));
        }
        self.rewind_high_rxt_if(n);
        n
    }

    /// Linux sender only, FACK (dissertation L1368–1370, L1408–1409; Linux 2.4
    /// `tcp_mark_head_lost`): of the first `packets` outstanding segments, those starting below
    /// `high_seq` and carrying none of SACKED/LOST/RETRANS are marked lost. Returns how many.
    pub fn mark_head_lost(&mut self, packets: u32, high_seq: SeqNum) -> u32 {
        let mut n = 0;
        for i in 0..self.segs.len().min(packets as usize) {
            let g = self.segs[i];
            if g.end().gt(high_seq) {
                break;
            }
            n += u32::from(self.mark_untagged_lost(i));
        }
        self.rewind_high_rxt_if(n);
        n
    }

    /// Debug/test check of the incremental counters against a full recount.
    pub fn check_counters(&self) -> bool {
        let (mut s, mut l, mut r) = (0, 0, 0);
        for g in &self.segs {
            let n = u64::from(g.seq_len());
            if g.has(SACKED) {
                s += n;
            } else {
                if g.has(LOST) {
                    l += n;
                }
                if g.has(RETRANS) {
                    r += n;
                }
            }
        }
        s == self.sacked && l == self.lost && r == self.retrans
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(n: u32) -> Scoreboard {
        let mut sb = Scoreboard::new(SeqNum(0));
        for k in 0..n {
            sb.push(SentSeg { start: SeqNum(k * 100), len: 100, fin: false, sent_at: SimTime(0), flags: 0 });
        }
        sb
    }
    fn blk(l: u32, r: u32) -> SackBlock {
        SackBlock { left: SeqNum(l), right: SeqNum(r) }
    }

    #[test]
    fn three_sacked_segments_above_a_hole_make_it_lost() {
        let mut sb = board(10);
        let nxt = SeqNum(1000);
        assert_eq!(sb.apply_sack(&[blk(100, 300)], SeqNum(0), SeqNum(0), nxt).newly_sacked, 200);
        assert_eq!(sb.update_lost(3, 100), 0);
        assert!(!sb.front_is_lost());
        assert_eq!(sb.apply_sack(&[blk(100, 400)], SeqNum(0), SeqNum(0), nxt).newly_sacked, 100);
        assert_eq!(sb.update_lost(3, 100), 100);
        assert!(sb.front_is_lost());
        assert_eq!(sb.pipe(SeqNum(0), nxt), 1000 - 300 - 100);
        assert!(sb.check_counters());
    }

    #[test]
    fn multiple_holes_are_all_marked_lost_and_retransmitted_in_order() {
        let mut sb = board(10);
        let nxt = SeqNum(1000);
        // holes at 0, 200, 500; SACKed: 100, 300-500, 600-1000
        sb.apply_sack(&[blk(600, 1000), blk(300, 500), blk(100, 200)], SeqNum(0), SeqNum(0), nxt);
        sb.update_lost(3, 100);
        assert_eq!(sb.lost_bytes(), 300);
        let i = sb.next_retransmit(false).expect("hole 0");
        assert_eq!(sb.on_retransmit(i, SimTime(1)).start, SeqNum(0));
        let i = sb.next_retransmit(false).expect("hole 200");
        assert_eq!(sb.on_retransmit(i, SimTime(1)).start, SeqNum(200));
        let i = sb.next_retransmit(false).expect("hole 500");
        assert_eq!(sb.on_retransmit(i, SimTime(1)).start, SeqNum(500));
        assert_eq!(sb.next_retransmit(false), None);
        assert_eq!(sb.pipe(SeqNum(0), nxt), 300);
        sb.cum_ack(SeqNum(300));
        assert_eq!(sb.pipe(SeqNum(300), nxt), 100);
        assert!(sb.check_counters());
    }

    #[test]
    fn a_dsack_block_is_recognised_and_not_counted() {
        let mut sb = board(4);
        let up = sb.apply_sack(&[blk(0, 100)], SeqNum(100), SeqNum(100), SeqNum(400));
        assert!(up.dsack);
        assert_eq!(up.newly_sacked, 0);
    }

    // RFC 2883, clause 1: "If the first SACK block is covered by the Cumulative Acknowledgement
    // field, then it is a D-SACK block" — the ACK field of the same segment (SEG.ACK), also
    // when that ACK advances SND.UNA past the duplicate.
    #[test]
    fn a_first_block_below_seg_ack_on_an_advancing_ack_is_a_dsack() {
        let mut sb = board(4);
        // SND.UNA = 0; the ACK acknowledges [0, 200) and reports [100, 200) as a duplicate.
        let up = sb.apply_sack(&[blk(100, 200)], SeqNum(0), SeqNum(200), SeqNum(400));
        assert!(up.dsack, "right edge 200 <= SEG.ACK 200");
        assert_eq!(up.newly_sacked, 0, "a D-SACK block SACKs nothing");
        assert_eq!(sb.sacked_bytes(), 0);
        // The same block is a D-SACK whatever SND.UNA was before (the old rule compared with it).
        assert!(is_dsack(&[blk(100, 200)], SeqNum(200)));
        assert!(!is_dsack(&[blk(100, 200)], SeqNum(100)), "SEG.ACK 100 does not cover [100, 200)");
        // A D-SACK block followed by ordinary blocks: the others are processed as usual.
        let mut sb = board(6);
        let up = sb.apply_sack(&[blk(0, 100), blk(300, 500)], SeqNum(0), SeqNum(100), SeqNum(600));
        assert!(up.dsack);
        assert_eq!(up.newly_sacked, 200);
        assert!(sb.check_counters());
    }

    // RFC 2883, clause 2: "Else, if the first SACK block is covered by the second SACK block,
    // then the first SACK block is a D-SACK block" — above SEG.ACK.
    #[test]
    fn a_first_block_inside_the_second_block_is_a_dsack() {
        let mut sb = board(10);
        let nxt = SeqNum(1000);
        sb.apply_sack(&[blk(300, 600)], SeqNum(0), SeqNum(0), nxt);
        // A duplicate of [400, 500) inside the queued block [300, 600).
        let up = sb.apply_sack(&[blk(400, 500), blk(300, 600)], SeqNum(0), SeqNum(0), nxt);
        assert!(up.dsack);
        assert_eq!(up.newly_sacked, 0);
        // Equal edges are "covered" too; a block sticking out of the second one is not.
        assert!(is_dsack(&[blk(300, 600), blk(300, 600)], SeqNum(0)));
        assert!(!is_dsack(&[blk(250, 500), blk(300, 600)], SeqNum(0)));
        assert!(!is_dsack(&[blk(400, 700), blk(300, 600)], SeqNum(0)));
        assert!(sb.check_counters());
    }

    // Neither clause: an ordinary first block above SEG.ACK, on an advancing ACK too.
    #[test]
    fn a_first_block_above_seg_ack_is_an_ordinary_sack_block() {
        let mut sb = board(6);
        // SND.UNA = 0, SEG.ACK = 100; [300, 500) lies above SEG.ACK and in no second block.
        let up = sb.apply_sack(&[blk(300, 500), blk(100, 200)], SeqNum(0), SeqNum(100), SeqNum(600));
        assert!(!up.dsack);
        assert_eq!(up.newly_sacked, 300);
        // Right edge one above SEG.ACK: not covered.
        assert!(!is_dsack(&[blk(100, 201)], SeqNum(200)));
        assert!(!is_dsack(&[], SeqNum(200)));
        assert!(sb.check_counters());
    }

    #[test]
    fn a_timeout_retransmits_the_first_segment_even_if_it_was_sacked() {
        let mut sb = board(3);
        // A reneging / misbehaving peer SACKs the segment at SND.UNA.
        sb.apply_sack(&[blk(0, 100)], SeqNum(0), SeqNum(0), SeqNum(300));
        sb.mark_all_lost(SeqNum(0), SeqNum(300));
        assert_eq!(sb.next_retransmit(false), Some(0));
        assert!(sb.check_counters());
    }

    #[test]
    fn a_growing_block_only_processes_the_new_segments() {
        let mut sb = board(10);
        let nxt = SeqNum(1000);
        sb.apply_sack(&[blk(200, 400)], SeqNum(0), SeqNum(0), nxt);
        let up = sb.apply_sack(&[blk(200, 600)], SeqNum(0), SeqNum(0), nxt);
        assert_eq!(up.newly_sacked, 200);
        assert!(sb.check_counters());
    }

    /// `reset` gives exactly what `new` gives (every field, `Debug`) after a scoreboard has
    /// been through SACKs, losses, retransmissions, a raised `top_cap` and cumulative ACKs, and
    /// keeps the queues' allocations.
    #[test]
    fn a_reset_scoreboard_equals_a_new_one_and_keeps_its_buffers() {
        let mut sb = board(20);
        let nxt = SeqNum(2000);
        sb.apply_sack(&[blk(300, 600), blk(900, 1200), blk(1500, 1700)], SeqNum(0), SeqNum(0), nxt);
        assert!(sb.update_lost(6, 100) > 0, "a DupThresh above 3 raises top_cap");
        if let Some(i) = sb.next_retransmit(false) {
            sb.on_retransmit(i, SimTime(7));
        }
        sb.cum_ack(SeqNum(150));
        sb.orig_cutoff = Some(SimTime(3));
        assert_ne!(format!("{sb:?}"), format!("{:?}", Scoreboard::new(SeqNum(150))));
        let (segs_cap, top_cap) = (sb.segs.capacity(), sb.top_sacked.capacity());
        sb.reset(SeqNum(4_000_000_000));
        assert_eq!(format!("{sb:?}"), format!("{:?}", Scoreboard::new(SeqNum(4_000_000_000))));
        assert_eq!((sb.segs.capacity(), sb.top_sacked.capacity()), (segs_cap, top_cap));
        assert!(segs_cap >= 20 && top_cap >= 6);
    }

    // `SackUpdate::changed_blocks`: the blocks that SACKed a segment for the first time (the
    // analyzer searches for newly covered retransmissions only inside them).
    #[test]
    fn only_blocks_that_sack_something_new_are_flagged_changed() {
        let mut sb = board(10);
        let nxt = SeqNum(1000);
        // Two new blocks: both flagged.
        let up = sb.apply_sack(&[blk(600, 700), blk(300, 400)], SeqNum(0), SeqNum(0), nxt);
        assert_eq!(up.changed_blocks, 0b11);
        // The newest block grows, the older is repeated: only the first is flagged.
        let up = sb.apply_sack(&[blk(600, 800), blk(300, 400)], SeqNum(0), SeqNum(0), nxt);
        assert_eq!((up.changed_blocks, up.newly_sacked), (0b01, 100));
        // A new block reported third, behind two repeats (also when the cache misses it:
        // the repeat of [300, 400) is not the cached block of the previous ACK's first slot).
        let up = sb.apply_sack(&[blk(600, 800), blk(300, 400), blk(100, 200)], SeqNum(0), SeqNum(0), nxt);
        assert_eq!(up.changed_blocks, 0b100);
        // Nothing new at all.
        let up = sb.apply_sack(&[blk(100, 200), blk(300, 400), blk(600, 800)], SeqNum(0), SeqNum(0), nxt);
        assert_eq!((up.changed_blocks, up.newly_sacked), (0, 0));
        // A block that covers no whole segment marks nothing.
        let up = sb.apply_sack(&[blk(450, 480)], SeqNum(0), SeqNum(0), nxt);
        assert_eq!(up.changed_blocks, 0);
        // A D-SACK (below SEG.ACK) is never flagged; an ordinary block behind it is.
        let up = sb.apply_sack(&[blk(0, 100), blk(400, 500)], SeqNum(0), SeqNum(100), nxt);
        assert!(up.dsack);
        assert_eq!(up.changed_blocks, 0b10);
        assert!(sb.check_counters());
    }
}

/// `update_lost` against the walk it replaced (kept here only, as the reference).
#[cfg(test)]
mod props {
    use super::*;
    use proptest::prelude::*;

    /// The walk down the queue that `update_lost` did before `top_sacked` (O(window) per ACK
    /// with fewer than DupThresh SACKed segments above a hole): the reference.
    fn reference_update_lost(sb: &mut Scoreboard, dupthresh: u32, smss: u64) -> u64 {
        let Some(hs) = sb.high_sacked else { return 0 };
        let Some(f) = sb.segs.front() else { return 0 };
        let base = f.start;
        let top = sb.segs.partition_point(|g| (g.start - base) < (hs - base));
        let floor = sb.index_from(sb.lost_upto, Hint::Other);
        let (mut segs, mut bytes) = (0u32, 0u64);
        let mut point = None;
        let mut i = top;
        while i > floor {
            i -= 1;
            let g = sb.segs[i];
            if g.has(SACKED) {
                segs += 1;
                bytes += u64::from(g.seq_len());
                if segs >= dupthresh || bytes > u64::from(dupthresh.saturating_sub(1)) * smss {
                    point = Some(i);
                    break;
                }
            }
        }
        let Some(p) = point else { return 0 };
        let mut newly = 0;
        for j in floor..p {
            let g = sb.segs[j];
            if !g.has(SACKED) && !g.has(LOST) {
                sb.segs[j].flags |= LOST;
                let n = u64::from(g.seq_len());
                sb.lost += n;
                newly += n;
            }
        }
        sb.lost_upto = sb.segs[p].start;
        newly
    }

    /// The `top_sacked` invariant, recomputed from the queue.
    fn top_is_exact(sb: &Scoreboard) -> bool {
        let want: Vec<(SeqNum, u32)> = {
            let mut v: Vec<_> = sb.segs.iter().rev().filter(|g| g.has(SACKED)).take(sb.top_cap).map(|g| (g.end(), g.seq_len())).collect();
            v.reverse();
            v
        };
        sb.top_sacked.iter().copied().eq(want)
    }

    /// One step of a random exchange: (operation, three parameters).
    type Op = (u8, u32, u32, u32);

    fn ops() -> impl Strategy<Value = Vec<Op>> {
        prop::collection::vec((0u8..11, any::<u32>(), any::<u32>(), any::<u32>()), 1..120)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

        #[test]
        fn update_lost_marks_what_the_walk_down_the_queue_marks(isn in any::<u32>(), ops in ops()) {
            let una0 = SeqNum(isn);
            let mut sb = Scoreboard::new(una0);
            let (mut una, mut nxt) = (una0, una0);
            for (k, (op, a, b, c)) in ops.into_iter().enumerate() {
                let now = SimTime(k as u64);
                let outstanding = nxt - una;
                match op {
                    // New data: 1-4 segments of 50, 100 or 150 bytes (SMSS is 100 or so).
                    0 => {
                        for j in 0..=(a % 4) {
                            let len = 50 * (1 + (b >> (2 * j)) % 3);
                            sb.push(SentSeg { start: nxt, len, fin: false, sent_at: now, flags: 0 });
                            nxt += len;
                        }
                    }
                    // Up to three SACK blocks anywhere in [SND.UNA, SND.NXT], 50-byte grid.
                    1 if outstanding > 0 => {
                        let mut blocks = [SackBlock::default(); 3];
                        let n = 1 + (a % 3) as usize;
                        for (j, blk) in blocks.iter_mut().enumerate().take(n) {
                            let x = [a, b, c][j];
                            let l = (x % (outstanding / 50 + 1)) * 50;
                            let r = (l + 50 * (1 + (x >> 16) % 12)).min(outstanding);
                            *blk = SackBlock { left: una + l.min(outstanding), right: una + r };
                        }
                        sb.apply_sack(&blocks[..n], una, una, nxt);
                    }
                    // Cumulative ACK, possibly inside a segment.
                    2 => {
                        let adv = if b % 2 == 0 { (a % (outstanding / 50 + 1)) * 50 } else { a % (outstanding + 1) };
                        una += adv.min(outstanding);
                        sb.cum_ack(una);
                    }
                    3 => {
                        let dupthresh = if c % 5 == 0 { a % 12 } else { 1 + a % 4 };
                        let smss = 50 + u64::from(b % 151);
                        let mut reference = sb.clone();
                        let want = reference_update_lost(&mut reference, dupthresh, smss);
                        let got = sb.update_lost(dupthresh, smss);
                        prop_assert_eq!(got, want);
                        prop_assert_eq!(&sb.segs, &reference.segs);
                        prop_assert_eq!(sb.lost_upto, reference.lost_upto);
                        prop_assert_eq!(sb.lost, reference.lost);
                    }
                    4 => sb.mark_all_lost(una, nxt),
                    5 => sb.clear_lost(),
                    6 => {
                        if let Some(i) = sb.next_retransmit(a % 2 == 0) {
                            sb.on_retransmit(i, now);
                        }
                    }
                    7 => sb.mark_front_lost(),
                    8 if !sb.is_empty() => {
                        sb.retransmission_lost(a as usize % sb.len());
                    }
                    9 => {
                        sb.mark_lost_below_watermark(una + a % (outstanding + 1));
                    }
                    10 => {
                        sb.mark_head_lost(a % 6, nxt);
                    }
                    _ => {}
                }
                prop_assert!(sb.check_counters());
                prop_assert!(top_is_exact(&sb), "top_sacked {:?} after op {}", sb.top_sacked, op);
            }
        }
    }
}
