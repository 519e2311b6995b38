//! Explicit Congestion Notification in TCP (RFC 3168 §6.1): negotiation, the ECT codepoint
//! on data, the receiver's ECN-Echo, the sender's CWR and its once-per-window reaction.
//!
//! One [`EcnState`] per endpoint holds both halves (an endpoint sends and receives). The
//! connection asks it, in order:
//! - on its SYN / SYN-ACK: [`EcnState::syn_flags`] (§6.1.1 "ECN-setup SYN" = ECE|CWR,
//!   "ECN-setup SYN-ACK" = ECE), and records the peer's with [`EcnState::on_peer_syn`];
//! - on every arriving segment: [`EcnState::on_segment`] (§6.1.3 receiver: CWR stops the echo,
//!   a CE data packet starts it);
//! - on every segment it builds: [`EcnState::ack_flags`] (ECE while echoing) and, for data,
//!   [`EcnState::data_marking`] (ECT(0) on new data, CWR on the first new data after a window
//!   reduction; nothing on retransmissions, §6.1.5);
//! - the sender, when it reduces its window for any reason, calls
//!   [`EcnState::on_window_reduced`]; on an ACK with ECE it asks [`EcnState::should_react`]
//!   (the once-per-window rule), and reduces as for a loss without retransmitting.
//!
//! The congestion response itself is the sender model's: the RFC sender asks its congestion
//! controller for the loss response ([`crate::cc::CongestionController::on_enter_recovery`]
//! with RFC 6675 arithmetic, cwnd = ssthresh; `sender::Sender::ecn_on_ack`); the Linux 2.4 sender enters its CWR state
//! ([`crate::linux::ecn`], rate-halving).
//!
//! Ambiguities settled:
//! - **Once per window** (§6.1.2: "should not react to congestion indications more than once
//!   every window of data"): after a reduction at SND.NXT = H (any reduction: ECN, fast
//!   retransmit, RTO), an ECE is acted on only when its ACK acknowledges beyond H, i.e. the
//!   echo can be for data sent after the reduction. ECE during fast recovery or timeout
//!   recovery is never acted on (H is at least the recovery point).
//! - **No cwnd growth on ECE ACKs** (§6.1.2: "SHOULD NOT increase the congestion window in
//!   response to the receipt of an ECN-Echo ACK packet"): an ECE ACK that is not acted on does
//!   not grow cwnd in congestion avoidance; in slow start it does (Linux `tcp_may_raise_cwnd`:
//!   `!(flag & FLAG_ECE) || snd_cwnd < snd_ssthresh`). Without that exception a sender in
//!   timeout recovery stays at one segment until its go-back-N ends: retransmissions carry no
//!   CWR (§6.1.5), so the receiver keeps echoing the whole time.
//! - **The cwnd of one segment** (§6.1.2: with cwnd already one segment the sender "MUST reset
//!   the retransmit timer" and send on its expiry) is not modelled: the reduction stops at
//!   the controller's minimum ssthresh (2·SMSS for Reno).
//! - **The receiver's ACK policy** is unchanged by CE (RFC 3168 does not require an immediate
//!   ACK; the echo rides on the next ACK the policy sends, delayed or not: "the ECN-Echo flag
//!   in the ACK packet will be set to '1' if the CE codepoint is set in any of the data
//!   packets being acknowledged").
//! - **ECT codepoint**: ECT(0) (§5: "Senders are free to use either"; Linux and FreeBSD use
//!   ECT(0)).
//! - **The Linux 2.4 sender** reacts to ECE as it did before this module (on any ACK, without
//!   looking at negotiation: its tests drive it with hand-made ACKs); a peer only echoes after
//!   negotiation, so in a simulation the two agree.

use crate::segment::{Ecn, Segment, TcpFlags};
use crate::seq::SeqNum;

/// RFC 3168 §6.1 state of one endpoint.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct EcnState {
    /// `TcpConfig::ecn`: this endpoint is ECN-capable and asks for / accepts ECN.
    pub enabled: bool,
    /// Both ends agreed during the handshake (§6.1.1).
    pub negotiated: bool,
    /// Receiver (§6.1.3): a CE data packet arrived and no CWR since; ECE on every ACK.
    pub echoing: bool,
    /// Sender (§6.1.2): the window was reduced; the next new data segment carries CWR.
    pub cwr_pending: bool,
    /// Sender: SND.NXT at the last window reduction (the once-per-window horizon).
    pub reduced_at: Option<SeqNum>,
    /// Counters: CE data packets received, ECE ACKs acted on, CWR segments sent.
    pub ce_received: u64,
    pub reactions: u64,
    pub cwr_sent: u64,
}

/// What a data segment carries (§6.1.2, §6.1.5).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DataMarking {
    pub ecn: Ecn,
    /// Set CWR in the TCP header.
    pub cwr: bool,
}

impl EcnState {
    pub fn new(enabled: bool) -> EcnState {
        EcnState { enabled, ..EcnState::default() }
    }

    /// §6.1.1: flags of our SYN (client: "ECN-setup SYN", ECE and CWR) or SYN-ACK (server:
    /// "ECN-setup SYN-ACK", ECE without CWR, only if the peer's SYN was an ECN-setup SYN).
    /// "A host MUST NOT set ECT on SYN or SYN-ACK packets": the codepoint stays Not-ECT.
    pub fn syn_flags(&self, server: bool) -> TcpFlags {
        match (self.enabled, server) {
            (false, _) => TcpFlags::default(),
            (true, false) => TcpFlags::ECE | TcpFlags::CWR,
            (true, true) if self.negotiated => TcpFlags::ECE,
            (true, true) => TcpFlags::default(),
        }
    }

    /// §6.1.1: records the peer's SYN (`server`: we are the server and this is the client's
    /// SYN) or SYN-ACK. The server agrees to an ECN-setup SYN (ECE and CWR set); the client
    /// counts ECN as negotiated on an ECN-setup SYN-ACK (ECE set, CWR clear).
    pub fn on_peer_syn(&mut self, seg: &Segment, server: bool) {
        let f = seg.flags;
        let setup = if server {
            f.contains(TcpFlags::ECE) && f.contains(TcpFlags::CWR)
        } else {
            f.contains(TcpFlags::ECE) && !f.contains(TcpFlags::CWR)
        };
        self.negotiated = self.enabled && setup;
    }

    /// §6.1.3, for every segment received after the handshake: "When a receiver receives a
    /// packet with CWR set, it stops setting ECE ... unless the CE codepoint is set on this
    /// packet" — so CWR is applied first; "When TCP receives a CE data packet at the
    /// destination end-system, the TCP data receiver sets the ECN-Echo flag in the TCP header
    /// of the subsequent ACK packet ... continues to set the ECE flag in all subsequent ACK
    /// packets until it receives a CWR packet".
    pub fn on_segment(&mut self, seg: &Segment) {
        if !self.negotiated {
            return;
        }
        if seg.flags.contains(TcpFlags::CWR) {
            self.echoing = false;
        }
        if seg.len > 0 && seg.ecn == Ecn::Ce {
            self.echoing = true;
            self.ce_received += 1;
        }
    }

    /// Flags every segment we send after the handshake carries: ECE while echoing.
    #[inline]
    pub fn ack_flags(&self) -> TcpFlags {
        if self.echoing {
            TcpFlags::ECE
        } else {
            TcpFlags::default()
        }
    }

    /// The codepoint and CWR of a data segment. §6.1.2: data packets of an ECN connection are
    /// ECT; §6.1.5: "the TCP data sender MUST NOT set either an ECT codepoint or the CWR bit
    /// on retransmitted data packets"; §6.1.2: "the TCP sender sets the CWR flag in the TCP
    /// header of the first new data packet sent after the window reduction". Pure ACKs and
    /// window probes (§6.1.4, §6.1.6) never come here: they stay Not-ECT.
    pub fn data_marking(&mut self, retransmission: bool) -> DataMarking {
        if !self.negotiated || retransmission {
            return DataMarking { ecn: Ecn::NotEct, cwr: false };
        }
        let cwr = std::mem::take(&mut self.cwr_pending);
        self.cwr_sent += u64::from(cwr);
        DataMarking { ecn: Ecn::Ect0, cwr }
    }

    /// The sender reduced its window (ECN reaction, fast retransmit or RTO) with SND.NXT =
    /// `snd_nxt`: the next new data carries CWR, and ECE for data sent before is ignored.
    pub fn on_window_reduced(&mut self, snd_nxt: SeqNum) {
        if self.negotiated {
            self.cwr_pending = true;
            self.reduced_at = Some(snd_nxt);
        }
    }

    /// §6.1.2 once-per-window rule: does an ACK of `ack` carrying ECE call for a reduction?
    pub fn should_react(&self, seg: &Segment) -> bool {
        self.negotiated
            && seg.flags.contains(TcpFlags::ECE)
            && self.reduced_at.is_none_or(|h| seg.ack.gt(h))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(flags: TcpFlags, len: u32, ecn: Ecn) -> Segment {
        Segment { flags, len, ecn, ..Segment::default() }
    }

    fn negotiated() -> EcnState {
        EcnState { negotiated: true, ..EcnState::new(true) }
    }

    #[test]
    fn an_ecn_setup_syn_has_ece_and_cwr_and_the_syn_ack_ece_alone() {
        // §6.1.1
        let mut client = EcnState::new(true);
        let mut server = EcnState::new(true);
        let syn = seg(TcpFlags::SYN | client.syn_flags(false), 0, Ecn::NotEct);
        assert_eq!(client.syn_flags(false), TcpFlags::ECE | TcpFlags::CWR);
        server.on_peer_syn(&syn, true);
        assert!(server.negotiated);
        assert_eq!(server.syn_flags(true), TcpFlags::ECE);
        client.on_peer_syn(&seg(TcpFlags::SYN | TcpFlags::ACK | server.syn_flags(true), 0, Ecn::NotEct), false);
        assert!(client.negotiated);
    }

    #[test]
    fn ecn_is_off_unless_both_ends_want_it() {
        let mut server = EcnState::new(false);
        server.on_peer_syn(&seg(TcpFlags::SYN | TcpFlags::ECE | TcpFlags::CWR, 0, Ecn::NotEct), true);
        assert!(!server.negotiated);
        assert_eq!(server.syn_flags(true), TcpFlags::default());
        // A client whose SYN-ACK has no ECE (a non-ECN server), or ECE and CWR (§6.1.1: a
        // reflected SYN, "not an ECN-setup SYN-ACK"), does not use ECN.
        let mut client = EcnState::new(true);
        client.on_peer_syn(&seg(TcpFlags::SYN | TcpFlags::ACK, 0, Ecn::NotEct), false);
        assert!(!client.negotiated);
        client.on_peer_syn(&seg(TcpFlags::SYN | TcpFlags::ACK | TcpFlags::ECE | TcpFlags::CWR, 0, Ecn::NotEct), false);
        assert!(!client.negotiated);
        // Not negotiated: data is Not-ECT and CE is not echoed.
        assert_eq!(client.data_marking(false).ecn, Ecn::NotEct);
        client.on_segment(&seg(TcpFlags::ACK, 100, Ecn::Ce));
        assert_eq!(client.ack_flags(), TcpFlags::default());
    }

    #[test]
    fn the_receiver_echoes_ce_on_every_ack_until_a_cwr_arrives() {
        // §6.1.3
        let mut r = negotiated();
        r.on_segment(&seg(TcpFlags::ACK, 1000, Ecn::Ect0));
        assert_eq!(r.ack_flags(), TcpFlags::default());
        r.on_segment(&seg(TcpFlags::ACK, 1000, Ecn::Ce));
        assert_eq!(r.ack_flags(), TcpFlags::ECE);
        r.on_segment(&seg(TcpFlags::ACK, 1000, Ecn::Ect0));
        assert_eq!(r.ack_flags(), TcpFlags::ECE, "still echoing");
        r.on_segment(&seg(TcpFlags::ACK | TcpFlags::CWR, 1000, Ecn::Ect0));
        assert_eq!(r.ack_flags(), TcpFlags::default());
        // "unless the CE codepoint is set on this packet"
        r.on_segment(&seg(TcpFlags::ACK | TcpFlags::CWR, 1000, Ecn::Ce));
        assert_eq!(r.ack_flags(), TcpFlags::ECE);
        assert_eq!(r.ce_received, 2);
        // A CE pure ACK is not a "CE data packet".
        let mut r = negotiated();
        r.on_segment(&seg(TcpFlags::ACK, 0, Ecn::Ce));
        assert!(!r.echoing);
    }

    #[test]
    fn new_data_is_ect0_and_retransmissions_carry_neither_ect_nor_cwr() {
        // §6.1.2, §6.1.5
        let mut s = negotiated();
        assert_eq!(s.data_marking(false), DataMarking { ecn: Ecn::Ect0, cwr: false });
        s.on_window_reduced(SeqNum(5000));
        assert_eq!(s.data_marking(true), DataMarking { ecn: Ecn::NotEct, cwr: false });
        assert_eq!(s.data_marking(false), DataMarking { ecn: Ecn::Ect0, cwr: true }, "first new data");
        assert_eq!(s.data_marking(false), DataMarking { ecn: Ecn::Ect0, cwr: false });
        assert_eq!(s.cwr_sent, 1);
    }

    #[test]
    fn the_sender_reacts_once_per_window_of_data() {
        // §6.1.2: ECE for data sent before the reduction at SND.NXT = 5000 is ignored.
        let mut s = negotiated();
        let ece = |ack: u32| Segment { ack: SeqNum(ack), ..seg(TcpFlags::ACK | TcpFlags::ECE, 0, Ecn::NotEct) };
        assert!(s.should_react(&ece(1000)));
        s.on_window_reduced(SeqNum(5000));
        assert!(!s.should_react(&ece(3000)));
        assert!(!s.should_react(&ece(5000)));
        assert!(s.should_react(&ece(5001)));
        let plain = Segment { ack: SeqNum(9000), ..seg(TcpFlags::ACK, 0, Ecn::NotEct) };
        assert!(!s.should_react(&plain));
        assert!(!EcnState::new(true).should_react(&ece(1)), "not negotiated");
    }
}
