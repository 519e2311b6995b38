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
//! - `tcp_try_undo_partial`, on a partial ACK in recovery (SND.UNA advanced, still below
//!   `high_seq`), before `tcp_try_undo_dsack` on the same ACK ([`CwndUndo::on_partial_ack`],
//!   the quote is there): when the ACK echoes a TSval older than the first retransmission
//!   (`tcp_packet_delayed`), the hole was filled by the delayed original; RACK learns the
//!   reordering (`tcp_check_sack_reordering` → `reord_seen`, `sender/rack.rs`), then with a
//!   retransmission still in flight (`retrans_out`) the ACK only clocks out new data
//!   ([`PartialUndo::Hold`]: no D-SACK undo, no loss marking, no retransmission on it), and with
//!   none the reduction is undone at once, the lost marks cleared (`tcp_undo_cwnd_reduction(sk,
//!   true)`) and the episode ends (`tcp_try_keep_open`); a loss RACK then proves on the same
//!   ACK starts a new one.
//!
//! Interplay: the RTO's undo (`tcp_try_undo_loss`, F-RTO with `tcp_frto=2`) stays with the
//! spurious-timeout module (`spurious/`, `TcpConfig::spurious`, CC 2 response); this one runs
//! only in fast recovery (the RTO replaces its episode: `on_rto`). RACK's reordering window
//! grows on D-SACK itself (`loss::rack`). `tcp_packet_delayed` is the kernel's since 6.16
//! ("tcp: fix to allow timestamp undo if no retransmits were sent", also in the stable
//! trees): with no retransmission yet (`retrans_stamp` = 0) the packet counts as delayed
//! (the non-SACK and SYN_SENT exceptions never reach this module: a NewReno recovery's
//! partial ACK is below `high_seq`, and the handshake has no undo state).
//!
//! Ambiguities resolved: `tcp_undo_cwnd_reduction` restores the window only "if
//! (tp->prior_ssthresh)" (zeroed by an ECE, `tcp_enter_cwr`); here prior_ssthresh is always
//! set at entry (ECN's CWR is not tied to this state). Leaving recovery by an undo counts as an
//! exit for RACK's `reo_wnd_persist` (RFC 8985 §6.2 step 4, as the D-SACK undo here), where
//! Linux decrements it only at a recovery end without undo. The hold is kept for the instant
//! of the ACK (`held_at`): a timer expiring at that same instant also finds it.
//! Not modelled: TLP retransmissions counted into `undo_retrans` at entry.

use crate::cc::CcState;
use crate::seq::SeqNum;
use tcplab_time::SimTime;

/// What `tcp_try_undo_partial` decides on a partial ACK in fast recovery
/// ([`CwndUndo::on_partial_ack`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PartialUndo {
    /// No undo state, or the ACK does not show the original was merely delayed ("Partial ACK
    /// arrived. Force fast retransmit."): recovery goes on.
    NotDelayed,
    /// Delayed, but retransmissions are still in flight: "we clock out new packets but do not
    /// mark more packets lost or retransmit more" (`return true`: the rest of
    /// `tcp_fastretrans_alert` is skipped for this ACK).
    Hold,
    /// Delayed and nothing retransmitted is in flight: undo the reduction now, unmark the
    /// losses and leave recovery.
    Undo,
}

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
    /// Partial undos done (Linux `TCPPartialUndo`; also counted in `undos`).
    pub partial_undos: u64,
    /// The instant of the ACK on which `tcp_try_undo_partial` held the recovery
    /// ([`PartialUndo::Hold`]): no retransmission leaves at that instant.
    pub held_at: Option<SimTime>,
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
            partial_undos: 0,
            held_at: None,
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

    /// `tcp_packet_delayed` for an ACK echoing `tsecr` (if any): "Received an echoed timestamp
    /// before the first retransmission?"
    /// ```c
    /// if (tp->retrans_stamp)
    ///     return tcp_tsopt_ecr_before(tp, tp->retrans_stamp);
    /// ...
    /// return true;	/* tp->retrans_stamp is zero; no retransmit yet */
    /// ```
    /// with `tcp_tsopt_ecr_before`: "tp->rx_opt.saw_tstamp && tp->rx_opt.rcv_tsecr &&
    /// before(tp->rx_opt.rcv_tsecr, when)" (modulo 2^32; an echo of 0 is no echo).
    pub fn packet_delayed(&self, tsecr: Option<u32>) -> bool {
        match (self.retrans_stamp, tsecr) {
            (None, _) => true,
            (Some(stamp), Some(ecr)) => ecr != 0 && crate::timer::ts_before(ecr, stamp),
            (Some(_), None) => false,
        }
    }

    /// `tcp_may_undo` at the end of the episode, for an ACK echoing `tsecr` (if any):
    /// ```c
    /// return tp->undo_marker && (!tp->undo_retrans || tcp_packet_delayed(tp));
    /// ```
    pub fn may_undo(&self, tsecr: Option<u32>) -> bool {
        self.undo_marker.is_some() && (self.undo_retrans == 0 || self.packet_delayed(tsecr))
    }

    /// Linux `tcp_try_undo_partial` (net/ipv4/tcp_input.c), called by `tcp_fastretrans_alert`
    /// in `TCP_CA_Recovery` when the ACK advanced SND.UNA ("} else if
    /// (tcp_try_undo_partial(sk, prior_snd_una, &do_lost)) return;"), before
    /// `tcp_try_undo_dsack`; `tsecr` is the ACK's echo, `retrans_out` whether a retransmission
    /// is still in flight (after this ACK's SACK blocks and cumulative acknowledgment):
    ///
    /// ```c
    /// if (tp->undo_marker && tcp_packet_delayed(tp)) {
    ///     /* Plain luck! Hole if filled with delayed
    ///      * packet, rather than with a retransmit. Check reordering.
    ///      */
    ///     tcp_check_sack_reordering(sk, prior_snd_una, 1);
    ///
    ///     /* We are getting evidence that the reordering degree is higher
    ///      * than we realized. If there are no retransmits out then we
    ///      * can undo. Otherwise we clock out new packets but do not
    ///      * mark more packets lost or retransmit more.
    ///      */
    ///     if (tp->retrans_out)
    ///         return true;
    ///
    ///     if (!tcp_any_retrans_done(sk))
    ///         tp->retrans_stamp = 0;
    ///
    ///     DBGUNDO(sk, "partial recovery");
    ///     tcp_undo_cwnd_reduction(sk, true);
    ///     NET_INC_STATS(sock_net(sk), LINUX_MIB_TCPPARTIALUNDO);
    ///     tcp_try_keep_open(sk);
    /// } else {
    ///     /* Partial ACK arrived. Force fast retransmit. */
    ///     *do_lost = tcp_force_fast_retransmit(sk);
    /// }
    /// return false;
    /// ```
    ///
    /// The reordering evidence is RACK's (`Sender::rack_on_partial_ack`); `do_lost` only feeds
    /// `tcp_update_scoreboard`, which RACK replaces; `retrans_stamp` dies with the undo state.
    pub fn on_partial_ack(&self, tsecr: Option<u32>, retrans_out: bool) -> PartialUndo {
        if !self.enabled || self.undo_marker.is_none() || !self.packet_delayed(tsecr) {
            PartialUndo::NotDelayed
        } else if retrans_out {
            PartialUndo::Hold
        } else {
            PartialUndo::Undo
        }
    }

    /// No retransmission may leave at `now`: `tcp_try_undo_partial` held the recovery on an
    /// ACK processed at this instant ([`PartialUndo::Hold`]; Linux leaves `rexmit` at
    /// `REXMIT_NONE`, so `tcp_xmit_recovery` sends nothing, while `tcp_data_snd_check` still
    /// sends new data).
    #[inline]
    pub fn holds_retransmissions(&self, now: SimTime) -> bool {
        self.held_at == Some(now)
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

    // tcp_try_undo_partial: undo_marker && tcp_packet_delayed (an echo older than retrans_stamp,
    // modulo 2^32; no echo, an echo of 0 or one at/after the stamp prove nothing), then
    // "if (tp->retrans_out) return true;" (hold) or the undo.
    #[test]
    fn a_partial_ack_echoing_before_the_first_retransmission_holds_or_undoes() {
        let mut u = CwndUndo::new(true);
        assert_eq!(u.on_partial_ack(Some(1), false), PartialUndo::NotDelayed, "no undo_marker");
        u.on_enter_recovery(SeqNum(0), cc(20_000, 30_000));
        // tcp_packet_delayed with retrans_stamp = 0: "no retransmit yet".
        assert_eq!(u.on_partial_ack(None, false), PartialUndo::Undo);
        u.on_retransmit(1, 5);
        u.on_retransmit(1, 9);
        assert_eq!(u.on_partial_ack(Some(4), true), PartialUndo::Hold);
        assert_eq!(u.on_partial_ack(Some(4), false), PartialUndo::Undo);
        for ecr in [Some(5), Some(6), Some(0), None] {
            assert_eq!(u.on_partial_ack(ecr, false), PartialUndo::NotDelayed, "{ecr:?}");
        }
        let mut w = CwndUndo::new(true);
        w.on_enter_recovery(SeqNum(0), cc(20_000, 30_000));
        w.on_retransmit(1, 3);
        assert_eq!(w.on_partial_ack(Some(u32::MAX - 2), false), PartialUndo::Undo, "before, across the wrap");
        let mut off = CwndUndo::new(false);
        off.on_enter_recovery(SeqNum(0), cc(20_000, 30_000));
        off.on_retransmit(1, 9);
        assert_eq!(off.on_partial_ack(Some(4), false), PartialUndo::NotDelayed);
        assert!(!u.holds_retransmissions(SimTime(0)));
    }
}
