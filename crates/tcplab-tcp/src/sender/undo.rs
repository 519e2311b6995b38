//! The sender's side of today's Linux cwnd undo in fast recovery (`TcpConfig::cwnd_undo`,
//! rules and state in `crate::linux::cwnd_undo`). Nothing here runs unless `undo.enabled`.

use super::Sender;
use crate::cc::RecoveryStyle;
use crate::event::TcpEvent;
use crate::linux::cwnd_undo::PartialUndo;
use crate::loss::RecoveryPhase;
use crate::segment::Segment;
use crate::trace::Trace;
use tcplab_time::SimTime;

impl Sender {
    /// After the scoreboard took the ACK's SACK blocks and its cumulative acknowledgment:
    /// `tcp_check_dsack` (a D-SACK of a retransmission counts down `undo_retrans`); on a
    /// `partial` ACK in recovery `tcp_try_undo_partial` ([`CwndUndo::on_partial_ack`]); then
    /// `tcp_try_undo_dsack`:
    ///
    /// ```c
    /// if (tp->undo_marker && !tp->undo_retrans) {
    ///     tcp_undo_cwnd_reduction(sk, false);
    ///     NET_INC_STATS(sock_net(sk), LINUX_MIB_TCPDSACKUNDO);
    ///     return true; }
    /// ```
    /// and `tcp_fastretrans_alert`'s "if (tcp_try_undo_dsack(sk)) tcp_try_keep_open(sk);": the
    /// episode ends (a loss RACK proves on the same ACK starts a new one: "Undo reverts the
    /// recovery state. If loss is evident, starts a new recovery").
    ///
    /// Returns true when `tcp_try_undo_partial` held the recovery on this ACK
    /// ([`PartialUndo::Hold`]): the caller marks no losses on it and no retransmission leaves
    /// at this instant (`CwndUndo::holds_retransmissions`).
    ///
    /// [`CwndUndo::on_partial_ack`]: crate::linux::cwnd_undo::CwndUndo::on_partial_ack
    pub(super) fn undo_on_ack(&mut self, now: SimTime, seg: &Segment, dsack: bool, partial: bool, trace: &mut Trace) -> bool {
        self.undo.last_tsecr = if self.ts_ok { seg.options.timestamps.map(|(_, ecr)| ecr) } else { None };
        self.undo.held_at = None;
        if dsack {
            if let Some(b) = seg.options.sack.as_slice().first() {
                let segs = u64::from(b.right - b.left).div_ceil(self.smss.max(1)) as i64;
                self.undo.on_dsack(b.right, segs);
            }
        }
        if partial {
            // tcp_fastretrans_alert, TCP_CA_Recovery: "} else if (tcp_try_undo_partial(sk,
            // prior_snd_una, &do_lost)) return;" — before tcp_try_undo_dsack.
            match self.undo.on_partial_ack(self.undo.last_tsecr, self.sb.retrans_bytes() > 0) {
                PartialUndo::NotDelayed => {}
                PartialUndo::Hold => {
                    self.undo.held_at = Some(now);
                    return true;
                }
                PartialUndo::Undo => {
                    self.partial_undo(now, trace);
                    return false;
                }
            }
        }
        if !self.undo.dsack_undo_due() {
            return false;
        }
        if matches!(self.phase, RecoveryPhase::Open | RecoveryPhase::Disorder { .. }) {
            // A D-SACK after the episode ended (tcp_fastretrans_alert's default case: "if
            // (icsk->icsk_ca_state <= TCP_CA_Disorder) tcp_try_undo_dsack(sk);"): the
            // reduction of the episode before is undone.
            self.cc = self.undo.undo(self.cc);
            if self.rack.enabled {
                self.rack.advanced = true;
            }
            return false;
        }
        if let RecoveryPhase::Recovery { style, .. } = self.phase {
            self.end_recovery_undone(style, now, trace);
        }
        false
    }

    /// The end of a recovery episode whose reduction is undone (`tcp_try_undo_dsack` and
    /// `tcp_try_undo_partial` alike): the window restored (`tcp_undo_cwnd_reduction`), PRR
    /// and RACK's episode state closed — "tp->rack.advanced = 1; /* Force RACK to re-exam
    /// losses */" — then `tcp_try_keep_open`: Open, or Disorder while SACKed/lost data is
    /// outstanding; either way no recovery episode (this sender's Disorder counts duplicate
    /// ACKs only without RACK, where a new DupThresh count starts).
    fn end_recovery_undone(&mut self, style: RecoveryStyle, now: SimTime, trace: &mut Trace) {
        self.cc = self.undo.undo(self.cc);
        self.prr.on_exit();
        if self.rack.enabled {
            self.rack.on_recovery_exit();
            self.rack.advanced = true;
        }
        self.phase = RecoveryPhase::Open;
        trace.push(TcpEvent::RecoveryExited { at: now, kind: Self::kind_of(style) });
    }

    /// `tcp_try_undo_partial` with no retransmission in flight: `tcp_undo_cwnd_reduction(sk,
    /// true)` — "TCP_SKB_CB(skb)->sacked &= ~TCPCB_LOST; ... tp->lost_out = 0;" on every
    /// segment (`Scoreboard::clear_lost`; nothing retransmitted is in flight, so every mark it
    /// clears is a loss not yet repaired), the window restored as for the D-SACK undo,
    /// "tp->rack.advanced = 1; /* Force RACK to re-exam losses */" — then `tcp_try_keep_open`:
    /// the episode ends (Open; a loss RACK proves again on this ACK starts a new one).
    fn partial_undo(&mut self, now: SimTime, trace: &mut Trace) {
        let RecoveryPhase::Recovery { style, .. } = self.phase else { return };
        self.sb.clear_lost();
        self.undo.partial_undos += 1;
        self.end_recovery_undone(style, now, trace);
    }

    /// `tcp_try_undo_recovery` when SND.UNA reaches the recovery point: true when the
    /// reduction was undone (`tcp_may_undo`), so `tcp_end_cwnd_reduction` must not run.
    /// Otherwise `undo_marker` stays: a D-SACK of the episode's retransmissions arriving later
    /// still undoes it (`undo_on_ack`).
    pub(super) fn undo_at_recovery_end(&mut self) -> bool {
        if !self.undo.may_undo(self.undo.last_tsecr) {
            return false;
        }
        self.cc = self.undo.undo(self.cc);
        if self.rack.enabled {
            self.rack.advanced = true;
        }
        true
    }
}
