//! RFC 8985 §7 Tail Loss Probe (TLP) for the RFC sender (`TcpConfig::tlp`).
//!
//! The sender (`sender/mod.rs`, `tlp_*` methods) owns the timer and the segments; this file
//! holds the TLP state named after RFC 8985's variables and the pure decisions:
//! - [`calc_pto`]: §7.2 TLP_calc_PTO();
//! - [`Tlp::on_pto`]: §7.3, whether the expired PTO may send a probe and which;
//! - [`Tlp::process_ack`]: §7.4 TLP_process_ack(), the end of a TLP episode and whether the
//!   probe repaired a loss (congestion response) or not.
//!
//! Sources of the quotes: the §7.3 TLP_send_probe() pseudocode is checked against
//! draft-ietf-tcpm-rack-08 §7.5.2 (quoted in gVisor's `rack.go`), and TLP_calc_PTO() against
//! the same draft's implementation there; the RFC 8985 full text was not available offline, so
//! the prose quotes of §7.2–§7.4 are from the RFC as recalled — clauses marked "(paraphrase)"
//! give the rule, not the wording. Ambiguities resolved (each also at the code):
//! - **The PTO stands in for the RTO.** "If the RTO timer would fire earlier, use it" is
//!   implemented by keeping the RFC 6298 retransmission timer armed as before and clamping the
//!   PTO deadline to it; the PTO is processed first when both are due, and re-arms the RTO
//!   (§7.3), so the PTO fires "in its place" as Linux does (`tcp_schedule_loss_probe`).
//! - **When the PTO is armed** (§7.2): after new data that was not itself a probe, and on an
//!   ACK of new data, in Open or Disorder (not in fast recovery or RTO recovery) with no SACKed
//!   data on the scoreboard; otherwise an armed PTO is cancelled. All data acknowledged cancels
//!   it.
//! - **When an episode ends** (§7.4.2, read as Linux's `tcp_process_tlp_ack`, which the RFC
//!   describes): ACKs below TLPHighRxt are not decisive; a D-SACK for the probe, or a pure
//!   duplicate ACK at TLPHighRxt (without SACK: both copies arrived), means the probe was not
//!   needed — no reduction; an ACK above TLPHighRxt without such evidence means the probe (or
//!   data after it) repaired a loss — the fast-recovery congestion response. An ACK exactly at
//!   TLPHighRxt that advances SND.UNA decides nothing yet (the original may still be D-SACKed).
//! - **The congestion response** "equivalent to fast recovery" is the controller's
//!   `on_enter_recovery` then `on_exit_recovery` in the RFC 6675 style (cwnd = ssthresh, as at
//!   the end of RFC 6675/PRR recovery), with the FlightSize before the deciding ACK (after it,
//!   FlightSize is usually 0 and RFC 5681 eq. 4 would give 2*SMSS for any flight).
//! - A fast recovery or RTO entered on the deciding ACK is the response (§7.4.1); an RTO ends
//!   the episode (every outstanding segment is retransmitted by go-back-N).

use crate::seq::SeqNum;
use tcplab_time::{SimDuration, SimTime};

/// RFC 8985 §7.2: "WCDelAckT stands for worst case delayed ACK timer. When FlightSize is 1,
/// PTO is inflated by WCDelAckT time to compensate for a potential long delayed ACK timer at
/// the receiver. The RECOMMENDED value for WCDelAckT is 200 ms."
pub const WC_DEL_ACK_T: SimDuration = SimDuration::from_millis(200);

/// RFC 8985 §7.2 TLP_calc_PTO(): "Else: PTO = 1 sec" (no SRTT sample yet).
pub const PTO_WITHOUT_SRTT: SimDuration = SimDuration::from_secs(1);

/// RFC 8985 §7.2 TLP_calc_PTO(): "PTO = 2 * SRTT".
pub const PTO_SRTT_MULTIPLIER: u64 = 2;

/// Which probe-timeout rule runs (`TcpConfig::tlp_pto`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum PtoRule {
    /// RFC 8985 §7.2 TLP_calc_PTO() ([`calc_pto`]).
    #[default]
    Rfc8985,
    /// Linux `tcp_schedule_loss_probe` ([`calc_pto_linux`]).
    Linux,
}

impl PtoRule {
    pub const ALL: [PtoRule; 2] = [PtoRule::Rfc8985, PtoRule::Linux];
    pub const fn name(self) -> &'static str {
        match self {
            PtoRule::Rfc8985 => "rfc8985",
            PtoRule::Linux => "linux",
        }
    }
    pub fn by_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// Linux `tcp_schedule_loss_probe`: "Add minimum RTO to account for delayed ack when there's
/// one outstanding packet" — `TCP_RTO_MIN` (= `TCP_DELACK_MAX`, HZ/5 = 200 ms).
pub const LINUX_PTO_ONE_PACKET_EXTRA: SimDuration = SimDuration::from_millis(200);
/// Linux `TCP_TIMEOUT_MIN` (2 jiffies at HZ = 250), added otherwise.
pub const LINUX_PTO_EXTRA: SimDuration = SimDuration::from_millis(8);
/// Linux `TCP_TIMEOUT_INIT` (1 s) when there is no RTT sample.
pub const LINUX_PTO_WITHOUT_SRTT: SimDuration = SimDuration::from_secs(1);

/// Linux `tcp_schedule_loss_probe` (net/ipv4/tcp_output.c):
///
/// ```c
/// if (tp->srtt_us) {
///     timeout = usecs_to_jiffies(tp->srtt_us >> 2);      /* 2 * srtt */
///     if (tp->packets_out == 1)
///         timeout += TCP_RTO_MIN;
///     else
///         timeout += TCP_TIMEOUT_MIN;
/// } else {
///     timeout = TCP_TIMEOUT_INIT;
/// }
/// /* If the RTO formula yields an earlier time, then use that time. */
/// rto_delta_us = ... tcp_rto_delta_us(sk);  /* How far in future is RTO? */
/// if (rto_delta_us > 0)
///     timeout = min_t(u32, timeout, usecs_to_jiffies(rto_delta_us));
/// ```
///
/// `packets_out` is the number of segments outstanding (SND.NXT − SND.UNA in SMSS, rounded
/// up). The jiffy rounding is the profile's timer clock's (a one-shot clock rounds up).
pub fn calc_pto_linux(srtt: Option<SimDuration>, packets_out: u64, rto_remaining: Option<SimDuration>) -> SimDuration {
    let mut pto = match srtt {
        Some(srtt) => {
            srtt.saturating_mul(PTO_SRTT_MULTIPLIER) + if packets_out == 1 { LINUX_PTO_ONE_PACKET_EXTRA } else { LINUX_PTO_EXTRA }
        }
        None => LINUX_PTO_WITHOUT_SRTT,
    };
    if let Some(r) = rto_remaining.filter(|r| r.as_nanos() > 0) {
        pto = SimDuration(pto.as_nanos().min(r.as_nanos()));
    }
    pto
}

/// RFC 8985 §7.2 TLP_calc_PTO(), as a pure function.
///
/// `flight_size` and `smss` in bytes; `rto_remaining` is the time left until the
/// retransmission timer fires (`None` when it is not armed).
pub fn calc_pto(srtt: Option<SimDuration>, flight_size: u64, smss: u64, rto_remaining: Option<SimDuration>) -> SimDuration {
    // RFC 8985 §7.2:
    //   If SRTT is available:
    //       PTO = 2 * SRTT
    //       If FlightSize is one segment:
    //           PTO += WCDelAckT
    //   Else:
    //       PTO = 1 sec
    let mut pto = match srtt {
        Some(srtt) => {
            let mut pto = srtt.saturating_mul(PTO_SRTT_MULTIPLIER);
            if flight_size <= smss {
                pto = pto + WC_DEL_ACK_T;
            }
            pto
        }
        None => PTO_WITHOUT_SRTT,
    };
    // RFC 8985 §7.2:
    //   If Now() + PTO > TCP_RTO_expiration():
    //       PTO = TCP_RTO_expiration() - Now()
    if let Some(r) = rto_remaining {
        pto = SimDuration(pto.as_nanos().min(r.as_nanos()));
    }
    pto
}

/// RFC 8985 TLPRxtOut and TLPHighRxt, as one enum: TLPHighRxt is meaningful only while
/// TLPRxtOut is true.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TlpRxtOut {
    /// TLPRxtOut = false: no TLP retransmission outstanding.
    False,
    /// TLPRxtOut = true: "a TLP retransmission is outstanding".
    True {
        /// RFC 8985 TLPHighRxt: "the value of SND.NXT at the time of sending a TLP
        /// retransmission".
        tlp_high_rxt: SeqNum,
        /// First sequence number of the retransmitted segment (to recognise a D-SACK of it).
        probe_start: SeqNum,
    },
}

/// What the expired PTO decided, executed by the next `poll_transmit`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TlpProbe {
    /// Nothing to send.
    Idle,
    /// RFC 8985 §7.3: "transmit the lowest-sequence unsent segment" (cwnd ignored, receive
    /// window respected).
    NewData,
    /// While the new-data probe is being built: lets it past cwnd and keeps it from arming
    /// the PTO ("new data (that was not itself a loss probe)").
    SendingNewData,
    /// RFC 8985 §7.3: "retransmit the highest-sequence segment sent so far".
    Retransmit,
}

/// Outcome of [`Tlp::process_ack`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TlpAckVerdict {
    /// No episode, or the ACK does not decide it.
    Pending,
    /// The episode ended: the probe retransmission was not needed (no loss).
    NoLoss,
    /// The episode ended: the probe repaired a loss; invoke the congestion response.
    Loss,
}

/// What an ACK tells TLP (computed by the sender after the scoreboard update).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TlpAckEvent {
    /// SEG.ACK.
    pub ack: SeqNum,
    /// The ACK advanced SND.UNA.
    pub snd_una_advanced: bool,
    /// RFC 5681 §2 duplicate ACK that also carries no new SACK information (Linux: none of
    /// FLAG_SND_UNA_ADVANCED, FLAG_NOT_DUP, FLAG_DATA_SACKED).
    pub pure_dupack: bool,
    /// The D-SACK block (RFC 2883), if the ACK carries one.
    pub dsack: Option<(SeqNum, SeqNum)>,
}

/// TLP state of one sender.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Tlp {
    /// `TcpConfig::tlp` with the RFC sender.
    pub enabled: bool,
    /// RFC 8985 TLPRxtOut / TLPHighRxt.
    pub rxt_out: TlpRxtOut,
    /// RFC 8985 §7.3 condition 2: "the sender has obtained an RTT measurement since the last
    /// loss probe transmission or the start of the connection".
    pub rtt_sample_since_probe: bool,
    /// The probe the expired PTO decided on, until `poll_transmit` sends it.
    pub probe: TlpProbe,
    /// Which PTO formula runs (`TcpConfig::tlp_pto`).
    pub pto_rule: PtoRule,
    /// The inputs of the PTO last armed and the deadline it got (`sender/tlp.rs`
    /// `tlp_schedule`): a re-arm at the same instant from the same inputs, with that deadline
    /// still armed, would arm the same deadline again and is skipped.
    pub pto_memo: Option<(PtoInputs, SimTime)>,
}

/// What a PTO computed at `now` depends on: the instant, SRTT, the RTO deadline, and whether
/// the flight is empty, one segment or more (RFC 8985 §7.2 "If FlightSize is one segment";
/// Linux `tp->packets_out == 1`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PtoInputs {
    pub now: SimTime,
    pub srtt: Option<SimDuration>,
    pub rto_at: Option<SimTime>,
    /// 0: nothing in flight, 1: at most one SMSS, 2: more.
    pub flight_class: u8,
}

impl Tlp {
    pub fn new(enabled: bool) -> Self {
        Tlp { enabled, rxt_out: TlpRxtOut::False, rtt_sample_since_probe: false, probe: TlpProbe::Idle, pto_rule: PtoRule::Rfc8985, pto_memo: None }
    }

    /// Called on every RTT sample (handshake or ACK), for §7.3 condition 2.
    #[inline]
    pub fn on_rtt_sample(&mut self) {
        self.rtt_sample_since_probe = true;
    }

    /// Called when the PTO expires with data outstanding. `new_data_possible`: an unsent
    /// segment exists and the receive window allows it. Returns the probe to send, or `Idle`
    /// when §7.3 says to skip it (the caller re-arms the RTO either way).
    pub fn on_pto(&mut self, new_data_possible: bool) -> TlpProbe {
        // RFC 8985 §7.3: "the sender MUST check whether both of the following conditions are
        // met before sending a loss probe: 1. First, there is no other previous loss probe
        // still in flight. [...] maintained using the state variable TLPRxtOut [...]
        // 2. Second, the sender has obtained an RTT measurement since the last loss probe
        // transmission or the start of the connection [...]. If either condition is not met,
        // the sender MUST skip sending a loss probe and MUST proceed to re-arm the RTO timer".
        if self.rxt_out != TlpRxtOut::False || !self.rtt_sample_since_probe {
            self.probe = TlpProbe::Idle;
            return TlpProbe::Idle;
        }
        // RFC 8985 §7.3 TLP_send_probe():
        //   If an unsent segment exists AND the receive window allows new data to be sent:
        //       Transmit the lowest-sequence unsent segment of up to SMSS
        //   Else if TLPRxtOut is not set:
        //       Retransmit the highest-sequence segment sent so far
        self.probe = if new_data_possible { TlpProbe::NewData } else { TlpProbe::Retransmit };
        self.probe
    }

    /// The probe left: a retransmission of `[probe_start, ..)` when `retransmitted`, with
    /// SND.NXT `snd_nxt` after it.
    pub fn on_probe_sent(&mut self, retransmitted: bool, probe_start: SeqNum, snd_nxt: SeqNum) {
        self.probe = TlpProbe::Idle;
        self.rtt_sample_since_probe = false;
        if retransmitted {
            // RFC 8985 §7.3: "TLPRxtOut = true; TLPHighRxt = SND.NXT".
            self.rxt_out = TlpRxtOut::True { tlp_high_rxt: snd_nxt, probe_start };
        }
    }

    /// An RTO or a fast recovery started: the episode is over (§7.4.1: the recovery is the
    /// response) and no probe is pending.
    pub fn reset(&mut self) {
        self.rxt_out = TlpRxtOut::False;
        self.probe = TlpProbe::Idle;
    }

    /// RFC 8985 §7.4 TLP_process_ack(): called on every ACK while a TLP retransmission is
    /// outstanding; ends the episode when the ACK decides it.
    pub fn process_ack(&mut self, ev: &TlpAckEvent) -> TlpAckVerdict {
        let TlpRxtOut::True { tlp_high_rxt, probe_start } = self.rxt_out else {
            return TlpAckVerdict::Pending;
        };
        // RFC 8985 §7.4.2 (paraphrase): the episode is decided by an ACK of TLPHighRxt or
        // above; lower ACKs acknowledge data sent before the probe.
        if ev.ack.lt(tlp_high_rxt) {
            return TlpAckVerdict::Pending;
        }
        // RFC 8985 §7.4.2 (paraphrase): a D-SACK for the TLP retransmission says the original
        // and the probe both arrived, so there was no loss — no congestion response.
        let dsack_of_probe = ev.dsack.is_some_and(|(l, r)| l.lt(tlp_high_rxt) && probe_start.lt(r));
        let verdict = if dsack_of_probe {
            TlpAckVerdict::NoLoss
        } else if ev.ack.gt(tlp_high_rxt) {
            // RFC 8985 §7.4.2 (paraphrase): an ACK above TLPHighRxt without that indication
            // means the probe repaired a loss; the sender invokes a congestion control
            // response equivalent to fast recovery.
            TlpAckVerdict::Loss
        } else if ev.pure_dupack {
            // A duplicate ACK at TLPHighRxt: the probe arrived after the original (without
            // SACK there is no D-SACK to say so).
            TlpAckVerdict::NoLoss
        } else {
            TlpAckVerdict::Pending
        };
        if verdict != TlpAckVerdict::Pending {
            self.rxt_out = TlpRxtOut::False;
        }
        verdict
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMSS: u64 = 1000;
    fn ms(x: u64) -> SimDuration {
        SimDuration::from_millis(x)
    }

    // Linux tcp_schedule_loss_probe: "timeout = usecs_to_jiffies(tp->srtt_us >> 2); if
    // (tp->packets_out == 1) timeout += TCP_RTO_MIN; else timeout += TCP_TIMEOUT_MIN;"
    // without srtt TCP_TIMEOUT_INIT; "If the RTO formula yields an earlier time, then use that
    // time."
    #[test]
    fn linux_pto_is_two_srtt_plus_two_jiffies_or_plus_200ms_for_one_packet() {
        assert_eq!(calc_pto_linux(Some(ms(40)), 10, None), ms(88));
        assert_eq!(calc_pto_linux(Some(ms(40)), 1, None), ms(280));
        assert_eq!(calc_pto_linux(None, 10, None), ms(1000));
        assert_eq!(calc_pto_linux(Some(ms(40)), 1, Some(ms(240))), ms(240));
        assert_eq!(PtoRule::by_name("linux"), Some(PtoRule::Linux));
    }

    #[test]
    fn pto_is_twice_srtt_with_more_than_one_segment_in_flight() {
        assert_eq!(calc_pto(Some(ms(100)), 2 * SMSS, SMSS, None), ms(200));
        assert_eq!(calc_pto(Some(ms(100)), 10 * SMSS, SMSS, Some(ms(5000))), ms(200));
    }

    #[test]
    fn pto_adds_the_worst_case_delayed_ack_timer_for_one_segment_in_flight() {
        assert_eq!(calc_pto(Some(ms(100)), SMSS, SMSS, None), ms(400));
        // A short final segment is one segment too.
        assert_eq!(calc_pto(Some(ms(100)), 300, SMSS, None), ms(400));
    }

    #[test]
    fn pto_is_one_second_without_srtt() {
        assert_eq!(calc_pto(None, 5 * SMSS, SMSS, None), ms(1000));
        // No WCDelAckT on the no-SRTT value.
        assert_eq!(calc_pto(None, SMSS, SMSS, None), ms(1000));
    }

    #[test]
    fn pto_never_fires_after_the_rto_would() {
        assert_eq!(calc_pto(Some(ms(600)), 5 * SMSS, SMSS, Some(ms(1000))), ms(1000));
        assert_eq!(calc_pto(Some(ms(100)), SMSS, SMSS, Some(ms(250))), ms(250));
        assert_eq!(calc_pto(None, SMSS, SMSS, Some(ms(0))), ms(0));
    }

    #[test]
    fn no_probe_without_an_rtt_sample_or_with_a_probe_retransmission_outstanding() {
        let mut t = Tlp::new(true);
        assert_eq!(t.on_pto(true), TlpProbe::Idle);
        t.on_rtt_sample();
        assert_eq!(t.on_pto(false), TlpProbe::Retransmit);
        t.on_probe_sent(true, SeqNum(100), SeqNum(200));
        t.on_rtt_sample();
        assert_eq!(t.on_pto(true), TlpProbe::Idle, "TLPRxtOut blocks a second probe");
    }

    #[test]
    fn a_new_data_probe_needs_a_new_rtt_sample_before_the_next_probe() {
        let mut t = Tlp::new(true);
        t.on_rtt_sample();
        assert_eq!(t.on_pto(true), TlpProbe::NewData);
        t.on_probe_sent(false, SeqNum(200), SeqNum(300));
        assert_eq!(t.rxt_out, TlpRxtOut::False);
        assert_eq!(t.on_pto(true), TlpProbe::Idle);
    }

    fn ev(ack: u32) -> TlpAckEvent {
        TlpAckEvent { ack: SeqNum(ack), snd_una_advanced: true, pure_dupack: false, dsack: None }
    }

    #[test]
    fn an_ack_above_tlp_high_rxt_without_dsack_means_the_probe_repaired_a_loss() {
        let mut t = Tlp::new(true);
        t.rxt_out = TlpRxtOut::True { tlp_high_rxt: SeqNum(200), probe_start: SeqNum(100) };
        assert_eq!(t.process_ack(&ev(150)), TlpAckVerdict::Pending);
        assert_eq!(t.process_ack(&ev(200)), TlpAckVerdict::Pending, "the original may still be D-SACKed");
        assert_eq!(t.process_ack(&ev(300)), TlpAckVerdict::Loss);
        assert_eq!(t.rxt_out, TlpRxtOut::False);
    }

    #[test]
    fn a_dsack_of_the_probe_or_a_pure_duplicate_at_tlp_high_rxt_means_no_loss() {
        let mut t = Tlp::new(true);
        t.rxt_out = TlpRxtOut::True { tlp_high_rxt: SeqNum(200), probe_start: SeqNum(100) };
        let d = TlpAckEvent { dsack: Some((SeqNum(100), SeqNum(200))), snd_una_advanced: false, ..ev(200) };
        assert_eq!(t.process_ack(&d), TlpAckVerdict::NoLoss);
        t.rxt_out = TlpRxtOut::True { tlp_high_rxt: SeqNum(200), probe_start: SeqNum(100) };
        let dup = TlpAckEvent { pure_dupack: true, snd_una_advanced: false, ..ev(200) };
        assert_eq!(t.process_ack(&dup), TlpAckVerdict::NoLoss);
        // A D-SACK of other data does not end the episode as "no loss".
        t.rxt_out = TlpRxtOut::True { tlp_high_rxt: SeqNum(200), probe_start: SeqNum(100) };
        let other = TlpAckEvent { dsack: Some((SeqNum(10), SeqNum(20))), ..ev(300) };
        assert_eq!(t.process_ack(&other), TlpAckVerdict::Loss);
    }
}
