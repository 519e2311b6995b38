//! The sender's side of today's Linux cwnd undo in fast recovery (`TcpConfig::cwnd_undo`,
//! rules and state in `crate::linux::cwnd_undo`). Nothing here runs unless `undo.enabled`.

use super::Sender;
use crate::event::TcpEvent;
use crate::loss::RecoveryPhase;
use crate::segment::Segment;
use crate::trace::Trace;
use tcplab_time::SimTime;

impl Sender {
    /// After the scoreboard took the ACK's SACK blocks: `tcp_check_dsack` (a D-SACK of a
    /// retransmission counts down `undo_retrans`), then in recovery `tcp_try_undo_dsack`:
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
    pub(super) fn undo_on_ack(&mut self, now: SimTime, seg: &Segment, dsack: bool, trace: &mut Trace) {
        self.undo.last_tsecr = if self.ts_ok { seg.options.timestamps.map(|(_, ecr)| ecr) } else { None };
        if dsack {
            if let Some(b) = seg.options.sack.as_slice().first() {
                let segs = u64::from(b.right - b.left).div_ceil(self.smss.max(1)) as i64;
                self.undo.on_dsack(b.right, segs);
            }
        }
        if !self.undo.dsack_undo_due() {
            return;
        }
        if matches!(self.phase, RecoveryPhase::Open | RecoveryPhase::Disorder { .. }) {
            // A D-SACK after the episode ended (tcp_fastretrans_alert's default case: "if
            // (icsk->icsk_ca_state <= TCP_CA_Disorder) tcp_try_undo_dsack(sk);"): the
            // reduction of the episode before is undone.
            self.cc = self.undo.undo(self.cc);
            if self.rack.enabled {
                self.rack.advanced = true;
            }
            return;
        }
        if let RecoveryPhase::Recovery { style, .. } = self.phase {
            {
                self.cc = self.undo.undo(self.cc);
                self.prr.on_exit();
                if self.rack.enabled {
                    self.rack.on_recovery_exit();
                    // "tp->rack.advanced = 1; /* Force RACK to re-exam losses */"
                    self.rack.advanced = true;
                }
                // tcp_try_keep_open: Open, or Disorder while SACKed/lost data is outstanding;
                // either way no recovery episode (this sender's Disorder counts duplicate ACKs
                // only without RACK, where a new DupThresh count starts).
                self.phase = RecoveryPhase::Open;
                trace.push(TcpEvent::RecoveryExited { at: now, kind: Self::kind_of(style) });
            }
        }
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
