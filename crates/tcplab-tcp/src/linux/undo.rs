//! Undo of congestion-window reductions (002 §2.7, L1643–1709).
//!
//! - 002 L1652–1653: on entering Recovery or Loss the old ssthresh is kept (`prior_ssthresh`).
//! - 002 L1655–1667: unnecessary retransmissions are detected (a) by D-SACK, (b) by the echoed
//!   timestamp. [EXTERNAL, spec §2.7] `tcp_packet_delayed`: undo is allowed if nothing was
//!   retransmitted, or if TSecr < `retrans_stamp` (the TSval of the first retransmission).
//! - 002 L1669–1678 / L1680–1686: undo = `cwnd <- max(cwnd, 2*ssthresh)`,
//!   `ssthresh <- prior_ssthresh` (Linux `tcp_undo_cwr`).
//! - 002 L1688–1695: `undo_retrans` counts the retransmissions of the episode, minus one per
//!   D-SACK block; at 0 the same undo applies.

use crate::seq::SeqNum;

/// Undo bookkeeping of one recovery episode.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Undo {
    /// SND.UNA when the episode (Recovery or Loss) began; `None` = no undo possible.
    pub undo_marker: Option<SeqNum>,
    /// Retransmissions of the episode not (yet) reported as duplicates by D-SACK.
    pub undo_retrans: u32,
    /// Retransmissions made in the episode (so that "0 left" means "all D-SACKed").
    pub retrans_made: u32,
    /// TSval of the first retransmission of the episode (Linux `retrans_stamp`).
    pub retrans_stamp: Option<u32>,
    /// ssthresh before the reduction (Linux `prior_ssthresh`; 0 = none).
    pub prior_ssthresh: u32,
    /// After the episode ends, late D-SACKs may still undo until SND.UNA passes this point
    /// (SND.NXT when the episode ended). Modelling choice: one more window.
    pub horizon: Option<SeqNum>,
}

impl Undo {
    /// A new episode starts at `snd_una` (`tcp_enter_recovery` / `tcp_enter_loss`).
    pub fn start(&mut self, snd_una: SeqNum, prior_ssthresh: u32) {
        self.undo_marker = Some(snd_una);
        self.undo_retrans = 0;
        self.retrans_made = 0;
        self.retrans_stamp = None;
        self.prior_ssthresh = prior_ssthresh;
        self.horizon = None;
    }

    /// A retransmission left during the episode.
    pub fn on_retransmit(&mut self, tsval: Option<u32>) {
        if self.undo_marker.is_some() {
            self.undo_retrans += 1;
            self.retrans_made += 1;
            if self.retrans_stamp.is_none() {
                self.retrans_stamp = tsval;
            }
        }
    }

    /// A D-SACK block `[left, right)` arrived (002 L1688–1692).
    pub fn on_dsack(&mut self, left: SeqNum) {
        if let Some(m) = self.undo_marker {
            if left.ge(m) {
                self.undo_retrans = self.undo_retrans.saturating_sub(1);
            }
        }
    }

    /// [EXTERNAL] `tcp_packet_delayed`: the ACK was triggered by an original transmission.
    pub fn packet_delayed(&self, tsecr: Option<u32>) -> bool {
        match self.retrans_stamp {
            None => true,
            Some(rs) => tsecr.is_some_and(|t| crate::timer::ts_before(t, rs)),
        }
    }

    /// Timestamp-based undo is possible (002 L1669–1686).
    pub fn may_undo_ts(&self, tsecr: Option<u32>) -> bool {
        self.undo_marker.is_some() && self.packet_delayed(tsecr)
    }

    /// D-SACK undo is possible: every retransmission of the episode was D-SACKed (002 AF-8).
    pub fn may_undo_dsack(&self) -> bool {
        self.undo_marker.is_some() && self.retrans_made > 0 && self.undo_retrans == 0
    }
}

/// 002 L1674–1677 (Linux `tcp_undo_cwr`): `cwnd <- max(cwnd, 2*ssthresh)`,
/// `ssthresh <- prior_ssthresh` (never lowering it).
pub fn undo_cwr(snd_cwnd: &mut u32, snd_ssthresh: &mut u32, prior_ssthresh: u32) {
    if prior_ssthresh > 0 {
        *snd_cwnd = (*snd_cwnd).max(snd_ssthresh.saturating_mul(2));
        if prior_ssthresh > *snd_ssthresh {
            *snd_ssthresh = prior_ssthresh;
        }
    } else {
        *snd_cwnd = (*snd_cwnd).max(*snd_ssthresh);
    }
}

/// [EXTERNAL] Linux 2.4 `tcp_undo_cwr(tp, 0)`, the partial undo of `tcp_try_undo_partial`:
/// `cwnd <- max(cwnd, 2*ssthresh)` (`max(cwnd, ssthresh)` without a `prior_ssthresh`);
/// ssthresh stays reduced until the full undo at the end of Recovery.
pub fn undo_cwr_keep_ssthresh(snd_cwnd: &mut u32, snd_ssthresh: u32, prior_ssthresh: u32) {
    if prior_ssthresh > 0 {
        *snd_cwnd = (*snd_cwnd).max(snd_ssthresh.saturating_mul(2));
    } else {
        *snd_cwnd = (*snd_cwnd).max(snd_ssthresh);
    }
}
