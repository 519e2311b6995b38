//! Linux 2.4 congestion-control engine (002 §2, dissertation Ch. 3), selected by
//! `TcpConfig::sender = SenderModel::Linux` (scenario `[tcp] sender = "linux"`), as the
//! [`Linux24`] implementation of the sender-engine seam (`sender::recovery`).
//!
//! The engine replaces the RFC sender's loss detector, congestion controller and spurious
//! detector seams; it shares the sender's plumbing (SND.* / window / RTT sampling / FIN /
//! persist, the retransmission queue with its per-segment tags), so `Connection`'s API,
//! `Transmit` causes, `ConnStats` and events are fed the same way as by the RFC sender.
//!
//! | file | rule |
//! |---|---|
//! | `scoreboard.rs` | packet-counted in_flight = packets_out − (sacked_out + lost_out) + retrans_out (002 L1349–1410) |
//! | `mod.rs` | the Open / Disorder / CWR / Recovery / Loss state machine (002 L1412–1472), transmission rule (L1474–1481), burst avoidance (L1483–1495) |
//! | `rate_halving.rs` | cwnd −1 per two ACKs in Recovery/CWR (L1449–1454, L1802–1815) |
//! | `undo.rs` | undo by timestamps and D-SACK (L1643–1695) |
//! | `cwv.rs` | congestion window validation (L1740–1754) |
//! | `ecn.rs` | ECN echo → CWR (L1756–1766) |
//! | `mod.rs` | `reordering` update and FACK → conservative SACK switch (L1697–1709) |
//! | `engine.rs` | [`Linux24`]: the engine behind the sender-engine seam (`sender/recovery.rs`), sibling of the RFC engine |
//! | `glue.rs` | NewReno / conservative-SACK / FACK loss marking (L1368–1410); timed-out segments lost in Recovery (L1633–1641) |
//!
//! ## Reordering without SACK
//!
//! Without SACK the sender is NewReno-like ("emulated SACK": each duplicate ACK counts as one
//! SACKed segment, 002 L1373–1379), and a displaced segment that draws `reordering` duplicate
//! ACKs is fast-retransmitted although it was not lost. In Disorder every duplicate ACK releases
//! new data (in_flight falls by one), so the recovery point lies well beyond the data the late
//! segment's ACK covers, and that ACK and the ACKs of the data sent meanwhile are all partial.
//! What keeps this from turning into a retransmission per partial ACK is the timestamp undo:
//! 002 L1683–1686 ("when a partial ACK for the unnecessary retransmission arrives, the sender
//! does not mark the next unacknowledged segment lost") and Linux 2.4 `tcp_try_undo_partial`,
//! which leaves `undo_marker` set ("If the first packet was delayed, the rest ones are most
//! probably delayed as well"), clears `retrans_stamp` once no retransmission is outstanding and
//! raises `reordering` to `tcp_fackets_out + acked` (002 L1697–1706), so later displacements of
//! the same size no longer reach the dupACK threshold. Without timestamps there is no such proof
//! ("Partial ACK arrived. Force Hoe's retransmit."): every partial ACK marks the next segment lost
//! and retransmits it (002 L1399–1403), and `reordering` stays put — faithful, and costly.
//! (Until this was modelled, the first partial undo cleared `undo_marker`: the validation case
//! `reorder-1%-5ms/newreno+ts/linux` made 1637 retransmissions, 1542 of them unnecessary; now 117,
//! against 207 for the RFC NewReno sender, which keeps halving cwnd and has no reordering memory.)
//!
//! cwnd and ssthresh are counted in packets (002 L1332–1347: Linux "compares the number of
//! segments in flight with the congestion window"); `Sender::cc` mirrors them × SMSS so
//! `CcSnapshot` stays in bytes. The RTO estimator is the one `TcpConfig::rto_estimator`
//! selects (the `linux-2.4` profile's `rtt::linux`, 002 L1518–1641).

pub mod cwnd_undo;
pub mod cwv;
pub mod ecn;
pub mod engine;
pub mod rate_halving;
pub mod scoreboard;
pub mod undo;

use crate::seq::SeqNum;
use cwv::Cwv;
use scoreboard::Counters;
use tcplab_time::SimTime;
use undo::Undo;

pub use engine::Linux24;

/// Linux `tcp_recalc_ssthresh` floor: ssthresh never below two segments.
pub const MIN_SSTHRESH: u32 = 2;
/// 002 L1489–1491: "at most three segments to be transmitted for an incoming ACK"
/// (Linux `tcp_max_burst`).
pub const TCP_MAX_BURST: u32 = 3;
/// 002 L1445–1449, L1837–1838: default `reordering` (the dupACK threshold).
pub const TCP_FASTRETRANS_THRESH: u32 = 3;

/// The congestion-control state (Linux `ca_state`), with the data each state needs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CaState {
    /// 002 L1415–1420: normal; slow start below ssthresh, congestion avoidance above.
    Open,
    /// 002 L1422–1433: duplicate ACKs or SACKs seen; cwnd not adjusted.
    Disorder,
    /// 002 L1435–1443: congestion notification (ECN); cwnd reduced by rate-halving until
    /// SND.UNA passes `high_seq`.
    Cwr { high_seq: SeqNum },
    /// 002 L1445–1459: fast recovery until every segment outstanding at entry (below
    /// `high_seq`) is acknowledged.
    Recovery { high_seq: SeqNum },
    /// 002 L1461–1472: after an RTO; not interruptible; left when SND.UNA passes `high_seq`.
    Loss { high_seq: SeqNum },
}

impl CaState {
    pub fn name(self) -> &'static str {
        match self {
            CaState::Open => "open",
            CaState::Disorder => "disorder",
            CaState::Cwr { .. } => "cwr",
            CaState::Recovery { .. } => "recovery",
            CaState::Loss { .. } => "loss",
        }
    }
}

/// Linux 2.4 congestion-control variables (names after `struct tcp_opt`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinuxCa {
    pub ca_state: CaState,
    /// Congestion window in packets.
    pub snd_cwnd: u32,
    /// Slow-start threshold in packets (`u32::MAX` = "infinite").
    pub snd_ssthresh: u32,
    /// Congestion-avoidance / rate-halving ACK counter.
    pub snd_cwnd_cnt: u32,
    /// Duplicate ACKs counted as SACKs on a non-SACK connection (002 L1373–1379).
    pub reno_sacked: u32,
    /// The dupACK threshold (002 L1795–1798): starts at `dupack_threshold` and grows with the
    /// reordering seen (002 L1697–1709, [`update_reordering`]): SACK reordering, and the
    /// timestamp undo on a partial ACK in Recovery (also without SACK).
    pub reordering: u32,
    pub undo: Undo,
    pub cwv: Cwv,
    /// Rate-halving in Recovery (002 L1449–1454); off = conventional: cwnd <- ssthresh at once
    /// (002 L1907–1909, L2471–2472).
    pub rate_halving: bool,
    /// FACK loss marking (002 L1368–1370, L1408–1409; Linux 2.4's default with SACK): holes more
    /// than `reordering` segments below the forward-most SACKed segment are lost, and Recovery
    /// starts when fackets_out > reordering. Off (default) = conservative SACK, RFC 3517 style
    /// (002 L1406–1408), which the thesis' Ch. 4 hosts used. The switch from FACK to
    /// conservative SACK on detected reordering (002 L1707–1709) is not modelled.
    pub fack: bool,
    /// The first (fast) retransmission of the current Recovery has not left yet.
    pub fast_rtx_pending: bool,
    /// Initial window in packets (CWV floor after idle).
    pub initial_cwnd: u32,
    /// Most recent counters (after the last ACK / transmission), for tests and snapshots.
    pub last: Counters,
}

impl LinuxCa {
    pub fn new(now: SimTime, reordering: u32) -> Self {
        LinuxCa {
            ca_state: CaState::Open,
            snd_cwnd: 1,
            snd_ssthresh: u32::MAX,
            snd_cwnd_cnt: 0,
            reno_sacked: 0,
            reordering: reordering.max(1),
            undo: Undo::default(),
            cwv: Cwv::new(now),
            rate_halving: true,
            fack: false,
            fast_rtx_pending: false,
            initial_cwnd: 1,
            last: Counters::default(),
        }
    }

    /// Linux `tcp_current_ssthresh`: in Open/Disorder, max(ssthresh, 3/4 cwnd).
    pub fn current_ssthresh(&self) -> u32 {
        self.snd_ssthresh.max(self.snd_cwnd - self.snd_cwnd / 4)
    }

    /// Linux `tcp_recalc_ssthresh` (2.4): max(cwnd/2, 2).
    pub fn recalc_ssthresh(&self) -> u32 {
        (self.snd_cwnd / 2).max(MIN_SSTHRESH)
    }

    /// 002 L1415–1420: slow start below ssthresh (+1 per ACK), else congestion avoidance
    /// (+1 per cwnd ACKs, `snd_cwnd_cnt`). Linux 2.4 `tcp_cong_avoid`.
    pub fn cong_avoid(&mut self) {
        if self.snd_cwnd < self.snd_ssthresh {
            self.snd_cwnd += 1;
        } else {
            self.snd_cwnd_cnt += 1;
            if self.snd_cwnd_cnt >= self.snd_cwnd {
                self.snd_cwnd += 1;
                self.snd_cwnd_cnt = 0;
            }
        }
    }

    /// 002 L1483–1495 (Linux `tcp_moderate_cwnd`): cwnd <- min(cwnd, in_flight + 3).
    pub fn moderate_cwnd(&mut self, in_flight: u32) {
        self.snd_cwnd = self.snd_cwnd.min(in_flight + TCP_MAX_BURST).max(1);
    }
}

/// [EXTERNAL] Linux 2.4 `TCP_MAX_REORDERING`.
pub const TCP_MAX_REORDERING: u32 = 127;

/// 002 L1697–1709: `reordering` grows to the largest reordering distance seen; a sender using
/// FACK switches to conservative SACK (L1707–1709).
pub fn update_reordering(l: &mut LinuxCa, metric: u32) {
    let metric = metric.min(TCP_MAX_REORDERING);
    if metric > l.reordering {
        l.reordering = metric;
        l.fack = false;
    }
}

pub mod glue;
