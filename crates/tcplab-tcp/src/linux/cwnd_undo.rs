//! Today's Linux cwnd undo in fast recovery (`TcpConfig::cwnd_undo`, scenario key
//! `cwnd_undo`; RFC 2883 §5 / RFC 3708 D-SACK, RFC 7323 timestamps): when every
//! retransmission of a recovery episode turns out to have been unnecessary, the window
//! reduction is taken back and the episode ends (`net/ipv4/tcp_input.c`):
//!
//! - `tcp_enter_recovery` → `tcp_init_undo`: `undo_marker` = SND.UNA, `undo_retrans` = the
//!   retransmissions in flight (-1 for none: "avoid 0, because undo_retrans==0 means 'can undo
//!   now'"), `prior_ssthresh` = `tcp_current_ssthresh` (max(ssthresh, ¾ cwnd)), and
//!   `tcp_init_cwnd_reduction`: `prior_cwnd` = cwnd;
//! - every retransmission (`tcp_retransmit_skb`): "if (tp->undo_retrans < 0) tp->undo_retrans =
//!   0; tp->undo_retrans += tcp_skb_pcount(skb);" and the first one's time is `retrans_stamp`;
//! - every D-SACK of a retransmission (`tcp_check_dsack`, `tcp_sacktag_one`): undo_retrans -=
//!   the segments it covers;
//! - `tcp_try_undo_dsack` on every ACK in recovery: "if (tp->undo_marker && !tp->undo_retrans)"
//!   → `tcp_undo_cwnd_reduction` and `tcp_try_keep_open` (the episode ends: state Open or
//!   Disorder, `high_seq` = SND.NXT);
//! - `tcp_try_undo_recovery` when SND.UNA reaches `high_seq`: `tcp_may_undo` = undo_marker &&
//!   (!undo_retrans || `tcp_packet_delayed`: the ACK echoes a TSval older than
//!   `retrans_stamp`) → `tcp_undo_cwnd_reduction` instead of `tcp_end_cwnd_reduction`;
//! - `tcp_undo_cwnd_reduction`: cwnd = `undo_cwnd` (Reno and CUBIC: max(cwnd, prior_cwnd)),
//!   ssthresh = prior_ssthresh if larger, `undo_marker` = 0, "tp->rack.advanced = 1; /* Force
//!   RACK to re-exam losses */".
//!
//! Interplay: the RTO's undo (`tcp_try_undo_loss`, F-RTO with `tcp_frto=2`) stays with the
//! spurious-timeout module (`spurious/`, `TcpConfig::spurious`, CC 2 response); this one runs
//! only in fast recovery (the RTO replaces its episode: `on_rto`). RACK's reordering window
//! grows on D-SACK itself (`loss::rack`); `tcp_try_undo_partial`'s reordering evidence is in
//! `sender/rack.rs`. Not modelled: the partial undo of the window while retransmissions are
//! still out (Linux undoes it only when none are, which a partial ACK in this engine's recovery
//! rarely meets), and TLP retransmissions counted into `undo_retrans` at entry.

use crate::cc::CcState;
use crate::seq::SeqNum;

/// The undo state of one connection (module docs).
#[derive(Copy, Clone, Debug)]
pub struct CwndUndo {
    pub enabled: bool,
    /// `tp->undo_marker`: SND.UNA at the start of the episode; `None` = nothing to undo.
    undo_marker: Option<SeqNum>,
    /// `tp->undo_retrans` (-1: no retransmission yet).
    undo_retrans: i64,
    /// `tp->prior_cwnd`, `tp->prior_ssthresh`.
    prior: CcState,
    /// `tp->retrans_stamp` as the TSval the first retransmission carried.
    retrans_stamp: Option<u32>,
    /// Undos done (Linux `TCPDSACKUndo` + `TCPFullUndo`).
    pub undos: u64,
    /// TSecr of the ACK being processed (for `tcp_packet_delayed`).
    pub last_tsecr: Option<u32>,
}

impl CwndUndo {
    pub fn new(enabled: bool) -> Self {
        CwndUndo {
            enabled,
            undo_marker: None,
            undo_retrans: -1,
            prior: CcState { cwnd: 0, ssthresh: 0 },
            retrans_stamp: None,
            undos: 0,
            last_tsecr: None,
        }
    }

    /// `tcp_enter_recovery` (before the window is reduced): `cc` = cwnd and ssthresh now.
    pub fn on_enter_recovery(&mut self, snd_una: SeqNum, cc: CcState) {
        if !self.enabled {
            return;
        }
        self.undo_marker = Some(snd_una);
        self.undo_retrans = -1;
        self.retrans_stamp = None;
        // tcp_current_ssthresh: "max(tp->snd_ssthresh, ((tcp_snd_cwnd(tp) >> 1) + (tcp_snd_cwnd(tp) >> 2)))".
        let current = cc.ssthresh.max((cc.cwnd >> 1) + (cc.cwnd >> 2));
        self.prior = CcState { cwnd: cc.cwnd, ssthresh: current };
    }

    /// A retransmission of `segs` segments left with TSval `tsval`.
    pub fn on_retransmit(&mut self, segs: i64, tsval: u32) {
        if self.undo_marker.is_none() {
            return;
        }
        if self.undo_retrans < 0 {
            self.undo_retrans = 0;
        }
        self.undo_retrans += segs;
        self.retrans_stamp.get_or_insert(tsval);
    }

    /// A D-SACK block `[left, right)` arrived (`tcp_check_dsack`: "if (dup_sack &&
    /// tp->undo_marker && tp->undo_retrans > 0 && ... after(end_seq_0, tp->undo_marker))
    /// tp->undo_retrans = max_t(int, 0, tp->undo_retrans - dup_segs);").
    pub fn on_dsack(&mut self, right: SeqNum, segs: i64) {
        if let Some(m) = self.undo_marker {
            if self.undo_retrans > 0 && right.gt(m) {
                self.undo_retrans = (self.undo_retrans - segs).max(0);
            }
        }
    }

    /// `tcp_try_undo_dsack`: every retransmission of the episode was D-SACKed.
    pub fn dsack_undo_due(&self) -> bool {
        self.undo_marker.is_some() && self.undo_retrans == 0
    }

    /// `tcp_may_undo` at the end of the episode, for an ACK echoing `tsecr` (if any):
    /// ```c
    /// return tp->undo_marker && (!tp->undo_retrans || tcp_packet_delayed(tp));
    /// ```
    /// `tcp_packet_delayed`: "tp->retrans_stamp && tcp_tsopt_ecr_before(tp, tp->retrans_stamp)"
    /// or nothing was retransmitted.
    pub fn may_undo(&self, tsecr: Option<u32>) -> bool {
        if self.undo_marker.is_none() {
            return false;
        }
        let delayed = match (self.retrans_stamp, tsecr) {
            (None, _) => true,
            (Some(stamp), Some(ecr)) => (ecr.wrapping_sub(stamp) as i32) < 0,
            (Some(_), None) => false,
        };
        self.undo_retrans == 0 || delayed
    }

    /// `tcp_undo_cwnd_reduction`: the window to go on with (module docs); ends the undo state.
    pub fn undo(&mut self, cc: CcState) -> CcState {
        self.undo_marker = None;
        self.undos += 1;
        CcState { cwnd: cc.cwnd.max(self.prior.cwnd), ssthresh: cc.ssthresh.max(self.prior.ssthresh) }
    }

    /// The episode ended without an undo, or an RTO replaced it.
    pub fn clear(&mut self) {
        self.undo_marker = None;
        self.retrans_stamp = None;
        self.undo_retrans = -1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cc(cwnd: u64, ssthresh: u64) -> CcState {
        CcState { cwnd, ssthresh }
    }

    // tcp_init_undo + tcp_check_dsack + tcp_try_undo_dsack: two retransmissions, both D-SACKed:
    // the undo restores max(cwnd, prior_cwnd) and max(ssthresh, prior_ssthresh), where
    // prior_ssthresh = max(ssthresh, 3/4 cwnd) at entry (infinite in the first slow start).
    #[test]
    fn all_retransmissions_dsacked_undo_the_reduction() {
        let mut u = CwndUndo::new(true);
        u.on_enter_recovery(SeqNum(1000), cc(40_000, u64::MAX));
        assert!(!u.dsack_undo_due(), "undo_retrans = -1 before any retransmission");
        u.on_retransmit(1, 100);
        u.on_retransmit(1, 101);
        u.on_dsack(SeqNum(2000), 1);
        assert!(!u.dsack_undo_due());
        // A D-SACK at or below the undo marker is not this episode's.
        u.on_dsack(SeqNum(1000), 1);
        assert!(!u.dsack_undo_due());
        u.on_dsack(SeqNum(3000), 1);
        assert!(u.dsack_undo_due());
        assert_eq!(u.undo(cc(28_000, 28_000)), cc(40_000, u64::MAX));
        assert!(!u.dsack_undo_due() && !u.may_undo(None), "undone once");
        assert_eq!(u.undos, 1);
    }

    // tcp_may_undo at the end of recovery: an ACK echoing a TSval older than the first
    // retransmission proves the original arrived (tcp_packet_delayed); one echoing it does not.
    #[test]
    fn an_echo_older_than_the_first_retransmission_allows_the_undo_at_the_end() {
        let mut u = CwndUndo::new(true);
        u.on_enter_recovery(SeqNum(0), cc(20_000, 30_000));
        u.on_retransmit(1, 500);
        assert!(u.may_undo(Some(499)));
        assert!(!u.may_undo(Some(500)));
        assert!(!u.may_undo(None));
        // prior_ssthresh = max(30 000, 15 000).
        assert_eq!(u.undo(cc(14_000, 14_000)), cc(20_000, 30_000));
        let mut off = CwndUndo::new(false);
        off.on_enter_recovery(SeqNum(0), cc(20_000, 30_000));
        assert!(!off.may_undo(Some(1)));
    }
}
