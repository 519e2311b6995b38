//! The Quick-Start sender's state machine (thesis §6.2.2, L3652–3711; §6.5.3, L4112–4180;
//! RFC 4782 §4). Pure: the caller ([`crate::sender::Sender`], `sender/quickstart.rs`) feeds it
//! the facts and applies its decisions to cwnd, ssthresh and the pacing timer.
//!
//! Phases ([`QsPhase`]):
//! 1. `Pending`: a Request is to ride on the next segment sent (SYN at connection start; the
//!    next data segment after an idle period or a hand-off notification).
//! 2. `Requested`: sent with `TTLDiff = (IP_TTL − QS_TTL) mod 256` saved (L3656–3657); the
//!    Response is looked for on the ACK that acknowledges the carrier.
//! 3. `Paced`: approved. cwnd = the QS window (eq. 6.1) and new segments leave
//!    `(MSS+H)/Rate` apart (L3681–3683), until the first QS packet is acknowledged.
//! 4. `Watch`: ACK clocking again; a loss or ECN mark below `qs_window` is a Quick-Start
//!    failure (L4122–4129) until SND.UNA passes `qs_window`.

use super::wire::{QsFunc, QsIpOption, QsRate, QsResponse, QS_NONCE_MASK};
use super::{QsRequestSize, QuickStartConfig};
use crate::seq::SeqNum;
use tcplab_time::{SimDuration, SimTime};

/// Where the sender is in a Quick-Start exchange.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum QsPhase {
    /// No exchange under way.
    #[default]
    Idle,
    /// The next segment sent carries a Request for `rate`.
    Pending { rate: QsRate },
    /// A Request rode on the segment ending at `carrier_end` (sent at `sent_at`).
    Requested { sent_at: SimTime, carrier_end: SeqNum, ttl_diff: u8, nonce: u32, rate: QsRate },
    /// Approved: QS packets are paced `spacing` apart; `first` is the first QS packet's
    /// sequence number once sent.
    Paced { approval: QsApproval, next_at: SimTime, first: Option<SeqNum> },
    /// After the QS phase: segments below `qs_window` are QS packets.
    Watch { qs_window: SeqNum },
}

/// An accepted Response, turned into a window (eq. 6.1) and a pacing interval.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct QsApproval {
    /// Approved rate in bytes/s (`5000 · 2^N`).
    pub rate_bps: u64,
    /// Eq. 6.1 in bytes: `⌊Rate · RTT / (MSS + H)⌋ · MSS`.
    pub qs_cwnd: u64,
    /// `(MSS + H) / Rate` (= RTT / cwnd, §9 item 10).
    pub spacing: SimDuration,
}

/// Why a Response did not raise the window.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum QsReject {
    /// The ACK of the carrier had no Response (option deleted, receiver unaware).
    NoResponse,
    /// Thesis L3663–3666: `TTLDiff′ ≠ TTLDiff`, some router did not process the Request.
    TtlMismatch,
    /// RFC 4782 §4.3: the echoed nonce differs.
    NonceMismatch,
    /// Rate zero: a router refused.
    ZeroRate,
    /// The carrier was retransmitted (Karn): no RTT for eq. 6.1.
    NoRtt,
    /// ns-2 `processQuickStart`: the QS window is not larger than the current cwnd.
    NotLarger,
}

/// Counters and the last exchange's figures (per-connection results).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct QsStats {
    pub requests: u32,
    pub approvals: u32,
    pub failures: u32,
    /// Rate of the last Request sent (bytes/s), 0 if none.
    pub last_requested_bps: u64,
    /// Rate of the last approval (bytes/s), 0 if none.
    pub last_approved_bps: u64,
    /// Payload bytes of the QS packets sent (new data sent in the paced QS phases): the
    /// thesis's "share of bytes carried by QS packets" (Figs 6.7, 6.15-6.17) is their sum over
    /// the connections divided by all bytes sent.
    pub qs_bytes: u64,
}

/// What the sender needs to judge a Response.
#[derive(Copy, Clone, Debug)]
pub struct QsResponseEvent {
    pub now: SimTime,
    /// The ACK's cumulative acknowledgement.
    pub ack: SeqNum,
    pub response: Option<QsResponse>,
    /// The carrier was retransmitted.
    pub carrier_retransmitted: bool,
    pub smss: u64,
    pub cwnd: u64,
}

/// Eq. 6.1 (L3668–3681): `cwnd = Rate · RTT / (MSS + H)` segments, rounded down.
/// §9 item 2: 320,000 B/s, 0.1 s, MSS 1460, H 40 → 21.33 → 21.
pub fn qs_window_segments(rate_bps: u64, rtt: SimDuration, mss: u64, h: u64) -> u64 {
    let num = u128::from(rate_bps) * u128::from(rtt.as_nanos());
    let den = u128::from(mss + h) * 1_000_000_000;
    (num / den.max(1)) as u64
}

/// §9 item 10: QS packets are spaced `(MSS + H) / Rate`.
pub fn qs_spacing(rate_bps: u64, mss: u64, h: u64) -> SimDuration {
    SimDuration((u128::from(mss + h) * 1_000_000_000 / u128::from(rate_bps.max(1))) as u64)
}

/// SplitMix64 (Steele et al. 2014), for the QS TTL and nonce "random values".
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The sender's Quick-Start state.
#[derive(Clone, Debug)]
pub struct QsHost {
    pub cfg: QuickStartConfig,
    pub phase: QsPhase,
    pub stats: QsStats,
    /// Last time a new segment left (idle detection).
    pub last_send: Option<SimTime>,
    /// Seed of the QS TTL / nonce draws (the ISS).
    seed: u64,
    /// A Quick-Start failure started the current loss recovery with the `initial-window`
    /// response: cwnd grows as in slow start during it (`Sender::qs_after_ack`).
    pub slow_start_recovery: bool,
}

impl QsHost {
    pub fn new(cfg: QuickStartConfig, iss: SeqNum) -> Self {
        QsHost {
            cfg,
            phase: QsPhase::Idle,
            stats: QsStats::default(),
            last_send: None,
            seed: u64::from(iss.0),
            slow_start_recovery: false,
        }
    }

    /// Thesis §6.5.2: the rate to request for `to_send` bytes (`None`: unknown or unlimited),
    /// or `None` for no request. Sized requests are skipped when the data fit in the initial
    /// window `iw` (L4006–4007).
    pub fn request_rate(&self, to_send: Option<u64>, iw: u64, smss: u64, srtt: Option<SimDuration>) -> Option<QsRate> {
        match self.cfg.size {
            QsRequestSize::Static { bytes_per_sec } => Some(QsRate::from_bytes_per_sec_floor(bytes_per_sec)),
            QsRequestSize::SizedToData { max_bytes_per_sec, rtt_guess } => {
                let cap = QsRate::from_bytes_per_sec_floor(max_bytes_per_sec);
                let Some(o) = to_send else { return Some(cap) };
                if o <= iw {
                    return None;
                }
                // L4107–4110: (O + (O/MSS)·H) / R, the whole object in one RTT.
                let pkts = o.div_ceil(smss.max(1));
                let bytes = o + pkts * u64::from(self.cfg.header_overhead);
                let r = srtt.unwrap_or(rtt_guess).as_nanos().max(1);
                let bps = (u128::from(bytes) * 1_000_000_000 / u128::from(r)) as u64;
                // Round *up* to the grid so that the request covers the object, then cap.
                let mut q = QsRate::from_bytes_per_sec_floor(bps);
                if q.bytes_per_sec() < bps && q < QsRate::MAX {
                    q = QsRate::new(q.n() + 1).unwrap_or(QsRate::MAX);
                }
                Some(q.min(cap))
            }
        }
    }

    /// Arms a Request for the next segment.
    pub fn arm(&mut self, rate: QsRate) {
        self.phase = QsPhase::Pending { rate };
    }

    /// The segment ending at `carrier_end` is about to be sent: its Request option, if one is
    /// pending. Thesis L3654–3657: QS TTL random, `TTLDiff = (IP_TTL − QS_TTL) mod 256` saved.
    pub fn take_request(&mut self, now: SimTime, carrier_end: SeqNum) -> Option<QsIpOption> {
        let QsPhase::Pending { rate } = self.phase else { return None };
        self.stats.requests += 1;
        let draw = splitmix64(self.seed ^ u64::from(self.stats.requests) << 32);
        let qs_ttl = draw as u8;
        let nonce = (draw >> 32) as u32 & QS_NONCE_MASK;
        let ttl_diff = self.cfg.ip_ttl.wrapping_sub(qs_ttl);
        self.stats.last_requested_bps = rate.bytes_per_sec();
        self.phase = QsPhase::Requested { sent_at: now, carrier_end, ttl_diff, nonce, rate };
        Some(QsIpOption { func: QsFunc::Request, rate, qs_ttl, nonce })
    }

    /// Whether an ACK must be judged now: a Request is outstanding and the ACK carries a
    /// Response (the receiver echoes on its next ACK, which may be a duplicate ACK when data
    /// before the carrier is missing), or it acknowledges the carrier (no Response then means
    /// the option was lost on the way or ignored).
    pub fn response_due(&self, ack: SeqNum, has_response: bool) -> bool {
        matches!(self.phase, QsPhase::Requested { carrier_end, .. } if has_response || ack.ge(carrier_end))
    }

    /// Thesis L3663–3681 / §9 item 3: judge the Response on the ACK of the carrier. Accepted
    /// iff TTLDiff′ equals the saved TTLDiff, the nonce matches and the rate is > 0; the QS
    /// window (eq. 6.1, RTT = now − carrier send time) must exceed the current cwnd.
    pub fn on_response(&mut self, ev: &QsResponseEvent) -> Result<QsApproval, QsReject> {
        let QsPhase::Requested { sent_at, ttl_diff, nonce, .. } = self.phase else {
            return Err(QsReject::NoResponse);
        };
        self.phase = QsPhase::Idle;
        let r = ev.response.ok_or(QsReject::NoResponse)?;
        if r.ttl_diff != ttl_diff {
            return Err(QsReject::TtlMismatch);
        }
        if r.nonce != nonce {
            return Err(QsReject::NonceMismatch);
        }
        if r.rate == QsRate::ZERO {
            return Err(QsReject::ZeroRate);
        }
        if ev.carrier_retransmitted {
            return Err(QsReject::NoRtt);
        }
        let rtt = ev.now.saturating_since(sent_at);
        let h = u64::from(self.cfg.header_overhead);
        let rate_bps = r.rate.bytes_per_sec();
        let qs_cwnd = qs_window_segments(rate_bps, rtt, ev.smss, h) * ev.smss;
        if qs_cwnd <= ev.cwnd {
            return Err(QsReject::NotLarger);
        }
        let approval = QsApproval { rate_bps, qs_cwnd, spacing: qs_spacing(rate_bps, ev.smss, h) };
        self.stats.approvals += 1;
        self.stats.last_approved_bps = rate_bps;
        self.phase = QsPhase::Paced { approval, next_at: ev.now, first: None };
        Ok(approval)
    }

    /// In the QS phase: the earliest time the next new segment may leave (`None`: not pacing).
    pub fn paced_until(&self) -> Option<SimTime> {
        match self.phase {
            QsPhase::Paced { next_at, .. } => Some(next_at),
            _ => None,
        }
    }

    /// A new segment starting at `seq` of `len` payload bytes left at `now`; in the QS phase
    /// it is a QS packet (paced, counted in `qs_bytes`).
    pub fn on_paced_send(&mut self, now: SimTime, seq: SeqNum, len: u32) {
        if let QsPhase::Paced { approval, first, .. } = self.phase {
            self.stats.qs_bytes += u64::from(len);
            self.phase = QsPhase::Paced { approval, next_at: now + approval.spacing, first: first.or(Some(seq)) };
        }
    }

    /// Thesis L3683–3684 / §9 item 10: the first ACK that acknowledges the first QS packet
    /// ends the QS phase. Returns the approval and marks `snd_nxt` as `qs_window`.
    pub fn end_if_first_acked(&mut self, snd_una: SeqNum, snd_nxt: SeqNum) -> Option<QsApproval> {
        let QsPhase::Paced { approval, first: Some(first), .. } = self.phase else { return None };
        if !snd_una.gt(first) {
            return None;
        }
        self.phase = QsPhase::Watch { qs_window: snd_nxt };
        Some(approval)
    }

    /// SND.UNA advanced: QS packets all acknowledged ends the watch.
    pub fn on_snd_una(&mut self, snd_una: SeqNum) {
        if let QsPhase::Watch { qs_window } = self.phase {
            if snd_una.ge(qs_window) {
                self.phase = QsPhase::Idle;
            }
        }
    }

    /// §3.6: a loss detected at `lost_seq`, or an ECN echo acknowledging data up to `lost_seq`:
    /// true (and the exchange ends) if that is a QS packet, i.e. a Quick-Start failure.
    pub fn on_congestion(&mut self, lost_seq: SeqNum) -> bool {
        let is_qs = match self.phase {
            QsPhase::Paced { first: Some(first), .. } => lost_seq.ge(first),
            QsPhase::Watch { qs_window } => lost_seq.lt(qs_window),
            _ => false,
        };
        if is_qs {
            self.stats.failures += 1;
            self.phase = QsPhase::Idle;
        }
        is_qs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::startup::quickstart::receiver::echo;

    const T0: SimTime = SimTime::ZERO;

    /// §9 item 2: "Rate 320,000 B/s (N = 6), RTT 0.1 s, MSS 1460, H = 40 → cwnd = 21.33, floor
    /// 21 segments."
    #[test]
    fn eq_6_1_gives_21_segments() {
        assert_eq!(qs_window_segments(320_000, SimDuration::from_millis(100), 1460, 40), 21);
        assert_eq!(QsRate::new(6).unwrap().bytes_per_sec(), 320_000);
        // §9 item 10: the spacing is (MSS+H)/Rate = 4.6875 ms.
        assert_eq!(qs_spacing(320_000, 1460, 40), SimDuration(4_687_500));
    }

    fn host() -> QsHost {
        QsHost::new(QuickStartConfig { request_at_start: true, ..QuickStartConfig::default() }, SeqNum(12345))
    }

    fn ev(now_ms: u64, response: Option<QsResponse>) -> QsResponseEvent {
        QsResponseEvent {
            now: T0 + SimDuration::from_millis(now_ms),
            ack: SeqNum(1),
            response,
            carrier_retransmitted: false,
            smss: 1460,
            cwnd: 3 * 1460,
        }
    }

    /// §9 item 3: accepted iff `(IP_TTL − QS_TTL) mod 256` at the receiver equals TTLDiff and
    /// the rate is > 0. Every router on a 3-router path decrements both TTLs: accepted. One
    /// router that leaves the QS TTL alone: rejected.
    #[test]
    fn the_ttl_difference_check_accepts_full_paths_only() {
        for (qs_decrements, expect_ok) in [(3u8, true), (2, false)] {
            let mut h = host();
            h.arm(QsRate::from_bytes_per_sec_floor(2_000_000));
            let mut opt = h.take_request(T0, SeqNum(1)).unwrap();
            assert!(h.response_due(SeqNum(1), false));
            assert!(!h.response_due(SeqNum(0), false));
            assert!(h.response_due(SeqNum(0), true));
            let ip_ttl_at_receiver = DEFAULT_TTL_FOR_TEST - 3;
            opt.qs_ttl = opt.qs_ttl.wrapping_sub(qs_decrements);
            opt.rate = QsRate::new(6).unwrap();
            let resp = echo(&opt, ip_ttl_at_receiver);
            let got = h.on_response(&ev(100, resp));
            if expect_ok {
                let a = got.unwrap();
                assert_eq!(a.rate_bps, 320_000);
                assert_eq!(a.qs_cwnd, 21 * 1460);
                assert_eq!(h.paced_until(), Some(T0 + SimDuration::from_millis(100)));
            } else {
                assert_eq!(got, Err(QsReject::TtlMismatch));
                assert_eq!(h.phase, QsPhase::Idle);
            }
        }
    }
    const DEFAULT_TTL_FOR_TEST: u8 = crate::startup::quickstart::DEFAULT_IP_TTL;

    #[test]
    fn zero_rate_nonce_and_missing_responses_are_rejections() {
        let mut h = host();
        h.arm(QsRate::new(8).unwrap());
        let opt = h.take_request(T0, SeqNum(1)).unwrap();
        let ok = echo(&opt, DEFAULT_TTL_FOR_TEST).unwrap();
        let mut h2 = h.clone();
        let mut h3 = h.clone();
        assert_eq!(h.on_response(&ev(100, Some(QsResponse { rate: QsRate::ZERO, ..ok }))), Err(QsReject::ZeroRate));
        assert_eq!(h2.on_response(&ev(100, Some(QsResponse { nonce: ok.nonce ^ 4, ..ok }))), Err(QsReject::NonceMismatch));
        assert_eq!(h3.on_response(&ev(100, None)), Err(QsReject::NoResponse));
        // A 1 ms RTT gives a window below IW: not used.
        let mut h4 = host();
        h4.arm(QsRate::new(8).unwrap());
        let o4 = h4.take_request(T0, SeqNum(1)).unwrap();
        assert_eq!(h4.on_response(&ev(1, echo(&o4, DEFAULT_TTL_FOR_TEST))), Err(QsReject::NotLarger));
        assert_eq!(h4.stats.requests, 1);
        assert_eq!(h4.stats.approvals, 0);
    }

    #[test]
    fn the_qs_phase_ends_at_the_first_ack_of_a_qs_packet_and_losses_below_qs_window_are_failures() {
        let mut h = host();
        h.arm(QsRate::new(6).unwrap());
        let o = h.take_request(T0, SeqNum(1)).unwrap();
        h.on_response(&ev(100, echo(&o, DEFAULT_TTL_FOR_TEST))).unwrap();
        let t = T0 + SimDuration::from_millis(100);
        h.on_paced_send(t, SeqNum(1000), 1460);
        assert_eq!(h.paced_until(), Some(t + SimDuration(4_687_500)));
        h.on_paced_send(t + SimDuration(4_687_500), SeqNum(2460), 1460);
        assert_eq!(h.stats.qs_bytes, 2920, "two QS packets");
        assert_eq!(h.end_if_first_acked(SeqNum(1000), SeqNum(3920)), None, "first QS packet not yet acked");
        assert!(h.end_if_first_acked(SeqNum(2460), SeqNum(3920)).is_some());
        h.on_paced_send(t + SimDuration::from_millis(200), SeqNum(3920), 1460);
        assert_eq!(h.stats.qs_bytes, 2920, "after the QS phase: not a QS packet");
        assert_eq!(h.phase, QsPhase::Watch { qs_window: SeqNum(3920) });
        assert!(!h.clone().on_congestion(SeqNum(3920)), "above qs_window: not a QS packet");
        assert!(h.on_congestion(SeqNum(2460)));
        assert_eq!(h.stats.failures, 1);
        assert_eq!(h.phase, QsPhase::Idle);
    }

    /// §3.4: sized requests cover the data in one RTT; none when the data fit in the IW.
    #[test]
    fn sized_requests_skip_small_transfers_and_cover_the_rest() {
        let h = QsHost::new(
            QuickStartConfig {
                size: QsRequestSize::SizedToData { max_bytes_per_sec: 2_000_000, rtt_guess: SimDuration::from_millis(100) },
                ..QuickStartConfig::default()
            },
            SeqNum(0),
        );
        assert_eq!(h.request_rate(Some(3 * 1460), 3 * 1460, 1460, None), None);
        // 30 packets of 1460 + 40: 45,000 B in 0.1 s = 450,000 B/s -> up to N = 7 (640,000).
        assert_eq!(h.request_rate(Some(30 * 1460), 3 * 1460, 1460, None).unwrap().n(), 7);
        // Capped at 2 MB/s -> N = 8.
        assert_eq!(h.request_rate(Some(10_000_000), 3 * 1460, 1460, None).unwrap().n(), 8);
        assert_eq!(h.request_rate(None, 3 * 1460, 1460, None).unwrap().n(), 8);
    }
}
