//! Per-connection settings. Every default cites where it comes from.
//!
//! The simulator builds one `TcpConfig` per flow endpoint from the scenario file; the capture
//! analyzer builds one per emulated OS profile. [`crate::profile::Profile::apply`] sets the
//! timer, RTO and dupACK fields from a named OS profile. `TcpConfig::default()` is RFC 6298
//! with exact clocks, and is what every existing test and scenario output was produced with.

use crate::clock::{EventClock, MeasurementClock};
use tcplab_time::SimDuration;

/// RFC 9293 §3.7.1: default send MSS when none is negotiated (IPv4).
pub const DEFAULT_MSS_IPV4: u16 = 536;
/// RFC 6298 (2.1): initial RTO of one second.
pub const RFC6298_INITIAL_RTO: SimDuration = SimDuration::from_secs(1);
/// RFC 6298 (2.4): RTO is rounded up to one second when below it.
pub const RFC6298_MIN_RTO: SimDuration = SimDuration::from_secs(1);
/// RFC 6298 (2.5): a maximum value may be placed on RTO provided it is at least 60 seconds.
pub const RFC6298_MAX_RTO: SimDuration = SimDuration::from_secs(60);
/// RFC 5681 §3.2: the fast retransmit threshold of three duplicate ACKs.
pub const DUPACK_THRESHOLD: u32 = 3;
/// RFC 5681 §4.2 / RFC 1122 §4.2.3.2: an ACK must be generated within 500 ms; 200 ms is the
/// common BSD/Linux-era value and the default here.
pub const DEFAULT_DELAYED_ACK_TIMEOUT: SimDuration = SimDuration::from_millis(200);
/// RFC 5681 §4.2: "an ACK SHOULD be generated for at least every second full-sized segment".
pub const DELAYED_ACK_EVERY: u32 = 2;
/// RFC 7323 §2.3: the largest shift count is 14.
pub const MAX_WINDOW_SCALE: u8 = 14;

/// How the initial congestion window is chosen.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum InitialWindow {
    /// A fixed number of segments (RFC 5681 §3.1 allows 1 to 4 depending on SMSS).
    Segments(u32),
    /// RFC 3390: min(4*MSS, max(2*MSS, 4380 bytes)).
    Rfc3390,
    /// RFC 6928: min(10*MSS, max(2*MSS, 14600)).
    Rfc6928,
}

/// Which loss recovery algorithm the sender runs after fast retransmit.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RecoveryAlgorithm {
    /// RFC 5681 §3.2 Reno (4.4BSD-Lite): a partial ACK ends fast recovery.
    Reno,
    /// RFC 6582 NewReno (used when SACK is off or not negotiated).
    NewReno,
    /// RFC 6675 conservative SACK-based loss recovery (falls back to NewReno when the peer did
    /// not agree to SACK).
    Sack,
}

/// An exact non-negative fraction `num/den`, for estimator gains and multipliers (integer
/// arithmetic keeps runs bit-identical across platforms). `den == 0` is read as 1.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ratio {
    pub num: u32,
    pub den: u32,
}

impl Ratio {
    pub const fn new(num: u32, den: u32) -> Ratio {
        Ratio { num, den }
    }
    /// The denominator, never zero.
    #[inline]
    pub const fn den(self) -> u32 {
        if self.den == 0 {
            1
        } else {
            self.den
        }
    }
    /// `v * num / den`, rounded down, saturating.
    #[inline]
    pub fn of(self, v: u64) -> u64 {
        let r = u128::from(v) * u128::from(self.num) / u128::from(self.den());
        u64::try_from(r).unwrap_or(u64::MAX)
    }
    /// `(1 - self) * old + self * new` rounded down, for a gain in [0, 1] (a gain above 1 is
    /// treated as 1). Computed as `((den - num) * old + num * new) / den`, which for 1/8 is
    /// RFC 6298's `(7*SRTT + R)/8` exactly.
    #[inline]
    pub fn ewma(self, old: u64, new: u64) -> u64 {
        let den = u128::from(self.den());
        let num = u128::from(self.num).min(den);
        let r = ((den - num) * u128::from(old) + num * u128::from(new)) / den;
        u64::try_from(r).unwrap_or(u64::MAX)
    }
    /// The value as a float (for display only).
    pub fn as_f64(self) -> f64 {
        f64::from(self.num) / f64::from(self.den())
    }
}

impl std::fmt::Display for Ratio {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.den() == 1 {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den())
        }
    }
}

/// RFC 6298 §2 / 003 §II: the RTTVAR gain a (RFC 6298 beta) = 1/4.
pub const RFC6298_GAIN_A: Ratio = Ratio::new(1, 4);
/// RFC 6298 §2 / 003 §II: the SRTT gain b (RFC 6298 alpha) = 1/8.
pub const RFC6298_GAIN_B: Ratio = Ratio::new(1, 8);
/// 003 §II: the SRTT multiplier m of RTO = m·srtt + k·rttvar; 1 in RFC 6298.
pub const RFC6298_M: Ratio = Ratio::new(1, 1);
/// RFC 6298 §2: K = 4.
pub const RFC6298_K: Ratio = Ratio::new(4, 1);

/// RTO parameters (RFC 6298 with every parameter of 003 §II / Table I exposed). Estimators
/// that do not use a parameter ignore it (each estimator's module says which it uses).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RtoConfig {
    /// RFC 6298 (2.1) initial RTO.
    pub initial: SimDuration,
    /// RFC 6298 (2.4) lower bound (003: minRTO).
    pub min: SimDuration,
    /// RFC 6298 (2.5) upper bound.
    pub max: SimDuration,
    /// Clock granularity G of RFC 6298 (2.2)/(2.3).
    pub granularity: SimDuration,
    /// 003 §II a: rttvar = (1 − a)·rttvar + a·|srtt − rtt| (RFC 6298 beta).
    pub gain_a: Ratio,
    /// 003 §II b: srtt = (1 − b)·srtt + b·rtt (RFC 6298 alpha).
    pub gain_b: Ratio,
    /// 003 §II m: RTO = m·srtt + k·rttvar.
    pub m: Ratio,
    /// 003 §II k (RFC 6298 K).
    pub k: Ratio,
}

impl RtoConfig {
    /// RFC 6298's parameters ((2.1)-(2.5), alpha = 1/8, beta = 1/4, K = 4) with a 1 ms clock
    /// granularity G. Profiles start from it and change what their source says.
    pub const RFC6298: RtoConfig = RtoConfig {
        initial: RFC6298_INITIAL_RTO,
        min: RFC6298_MIN_RTO,
        max: RFC6298_MAX_RTO,
        granularity: SimDuration::from_millis(1),
        gain_a: RFC6298_GAIN_A,
        gain_b: RFC6298_GAIN_B,
        m: RFC6298_M,
        k: RFC6298_K,
    };
}

impl Default for RtoConfig {
    fn default() -> Self {
        RtoConfig::RFC6298
    }
}

/// Which retransmission-timeout estimator the sender runs (one file each in [`crate::rtt`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum RtoEstimatorKind {
    /// RFC 6298 with a, b, m, k, minRTO, maxRTO, initial RTO and G from [`RtoConfig`].
    #[default]
    Rfc6298,
    /// 4.4BSD-Lite `tcp_xmit_timer` in ticks of the measurement clock (000 eq. 1).
    BsdLite,
    /// Brakmo & Peterson's fix: larger scaling of t_srtt / t_rttvar (000 §4.1, ref. \[5\]).
    BrakmoPeterson,
    /// Aron & Druschel: eq. 1 on the fine measurement clock, converted to event ticks by
    /// eq. 2, with the 200 ms + srtt lower bound (000 §4.1).
    Decoupled,
    /// Linux 2.4 `tcp_rtt_estimator`: mdev, mdev_max, rttvar (seed-002 spec §2.6).
    Linux,
    /// Windows XP per 003 Table I (RFC 6298 parameterisation).
    Windows,
    /// FreeBSD 5 / MacOS per 003 Table I (RFC 6298 parameterisation).
    FreeBsd,
    /// Solaris 10 per 003 Table I (RFC 6298 with m = 1.25).
    Solaris,
}

impl RtoEstimatorKind {
    /// Every estimator, in documentation order.
    pub const ALL: [RtoEstimatorKind; 8] = [
        RtoEstimatorKind::Rfc6298,
        RtoEstimatorKind::BsdLite,
        RtoEstimatorKind::BrakmoPeterson,
        RtoEstimatorKind::Decoupled,
        RtoEstimatorKind::Linux,
        RtoEstimatorKind::Windows,
        RtoEstimatorKind::FreeBsd,
        RtoEstimatorKind::Solaris,
    ];
    /// The name used in scenario files and `tcplab profiles`.
    pub const fn name(self) -> &'static str {
        match self {
            RtoEstimatorKind::Rfc6298 => "rfc6298",
            RtoEstimatorKind::BsdLite => "bsd-lite",
            RtoEstimatorKind::BrakmoPeterson => "brakmo-peterson",
            RtoEstimatorKind::Decoupled => "decoupled",
            RtoEstimatorKind::Linux => "linux",
            RtoEstimatorKind::Windows => "windows",
            RtoEstimatorKind::FreeBsd => "freebsd",
            RtoEstimatorKind::Solaris => "solaris",
        }
    }
    pub fn by_name(name: &str) -> Option<RtoEstimatorKind> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// Which ACKs yield an RTT sample (003 §V-A: "Linux updates its estimates ... once per
/// segment ... Windows (once per flight)").
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum RttSampling {
    /// The engine's historical rule: with timestamps every ACK that advances SND.UNA
    /// (RFC 7323 §4.1), without them one timed segment per RTT (RFC 6298 §3, BSD `t_rtt`).
    #[default]
    Auto,
    /// Every ACK that advances SND.UNA: from the timestamp echo when timestamps are in use,
    /// otherwise from the send time of the oldest newly acknowledged segment unless any of
    /// them was retransmitted (Linux 2.4 `tcp_clean_rtx_queue` / `tcp_ack_no_tstamp`).
    PerAck,
    /// One timed segment per flight (RTT), even when timestamps are in use.
    PerFlight,
}

impl RttSampling {
    pub const ALL: [RttSampling; 3] = [RttSampling::Auto, RttSampling::PerAck, RttSampling::PerFlight];
    pub const fn name(self) -> &'static str {
        match self {
            RttSampling::Auto => "auto",
            RttSampling::PerAck => "per-ack",
            RttSampling::PerFlight => "per-flight",
        }
    }
    pub fn by_name(name: &str) -> Option<RttSampling> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// 003 §V-D Smart-Config: D = max(1, min(3, F − 2)).
pub const ADAPTIVE_DUPACK_MAX: u32 = 3;
/// 003 §V-D: the flight-size offset F − 2.
pub const ADAPTIVE_DUPACK_OFFSET: u32 = 2;
/// 003 §V-D: D never falls below 1.
pub const ADAPTIVE_DUPACK_MIN: u32 = 1;

/// The fast-retransmit threshold D.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DupAckThreshold {
    /// A fixed D (RFC 5681 §3.2: 3; Windows XP: 2, 003 Table I).
    Fixed(u32),
    /// 003 §V-D: D = max(1, min(3, F − 2)), F the current flight size in segments (rounded
    /// up).
    Adaptive,
}

impl Default for DupAckThreshold {
    fn default() -> Self {
        DupAckThreshold::Fixed(DUPACK_THRESHOLD)
    }
}

impl DupAckThreshold {
    /// D for a flight of `flight_segments` segments (never below 1).
    pub fn for_flight(self, flight_segments: u64) -> u32 {
        match self {
            DupAckThreshold::Fixed(d) => d.max(1),
            DupAckThreshold::Adaptive => {
                let f = u32::try_from(flight_segments).unwrap_or(u32::MAX);
                f.saturating_sub(ADAPTIVE_DUPACK_OFFSET).clamp(ADAPTIVE_DUPACK_MIN, ADAPTIVE_DUPACK_MAX)
            }
        }
    }
}

/// The clocks of Aron & Druschel's timer framework (000 §4; see [`crate::clock`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct TimerConfig {
    /// f_rtt: RTT samples are counted in its ticks by tick-based estimators (BSD, Linux,
    /// decoupled) and RFC 6298 OS variants.
    pub rtt_clock: MeasurementClock,
    /// f_ev of the slow timer: retransmission and persist timers.
    pub slow: EventClock,
    /// f_ev of the fast timer: the delayed ACK.
    pub fast: EventClock,
}

/// Aron & Druschel's startup mechanisms (000 §4.2), each switched on separately. Both off by
/// default (plain slow start), so existing outputs are unchanged.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct StartupConfig {
    /// 000 §4.2.1: estimate ssthresh from the inter-arrival of closely spaced ACKs, at most
    /// once per RTT, keeping the minimum (see [`crate::startup::ssthresh_estimation`]).
    pub ssthresh_estimation: bool,
    /// 000 §4.2.2: pace N = MIN(p − d, RTT·f_ev) segments T = MAX(1/f_ev, 1/bw) apart until
    /// cwnd reaches pthresh = ssthresh / 2 (see [`crate::pacing`]). Needs an ssthresh
    /// estimate, so it does nothing without `ssthresh_estimation`.
    pub pacing: bool,
}

impl StartupConfig {
    /// Plain slow start.
    pub const OFF: StartupConfig = StartupConfig { ssthresh_estimation: false, pacing: false };
    /// 000 §4.2: ssthresh estimation and pacing.
    pub const ARON98: StartupConfig = StartupConfig { ssthresh_estimation: true, pacing: true };
}

/// State shared with other connections of the same host (seed 004; RFC 9040). The host (the
/// simulator) keeps the shared state and seeds the connection
/// (`crate::startup::seeded::SeededStartup`); the connection itself only says which.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum StateSharing {
    /// Every connection starts from the configured initial window (every earlier output).
    #[default]
    None,
    /// Pathlet Transport Architecture (004): discovery on the SYN, the host's pathlet table.
    Pathlet,
    /// RFC 9040 temporal sharing per destination host (`crate::startup::host_cache`).
    Host,
}

impl StateSharing {
    pub const ALL: [StateSharing; 3] = [StateSharing::None, StateSharing::Pathlet, StateSharing::Host];
    /// The name used in scenario files.
    pub const fn name(self) -> &'static str {
        match self {
            StateSharing::None => "none",
            StateSharing::Pathlet => "pathlet",
            StateSharing::Host => "host",
        }
    }
    pub fn by_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// Receiver acknowledgment policy.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct AckPolicy {
    /// Delayed-ACK timeout; `None` acknowledges every segment at once.
    pub delayed_ack: Option<SimDuration>,
    /// Acknowledge at least every this many full-sized segments (RFC 5681 §4.2: 2).
    pub ack_every: u32,
    /// Linux quick ACKs at connection start (002 L1725–1738; `receiver::ack_policy`).
    pub quickack: bool,
}

impl Default for AckPolicy {
    fn default() -> Self {
        AckPolicy { delayed_ack: Some(DEFAULT_DELAYED_ACK_TIMEOUT), ack_every: DELAYED_ACK_EVERY, quickack: false }
    }
}

/// Which spurious-timeout detector runs (`tcp.spurious_detection`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum SpuriousDetection {
    /// No detection: conventional RTO recovery (RFC 5681 / RFC 6298), the thesis' "Regular".
    #[default]
    None,
    /// Basic F-RTO (RFC 5682 §2; dissertation §4.2, L2105-2244).
    Frto,
    /// SACK-enhanced F-RTO (RFC 5682 §3; dissertation §5.1, L2884-2947).
    FrtoSack,
    /// Eifel detection with timestamps (RFC 3522).
    Eifel,
    /// Detection by D-SACK (RFC 3708 §3).
    EifelDsack,
}

impl SpuriousDetection {
    pub const ALL: [SpuriousDetection; 5] = [
        SpuriousDetection::None,
        SpuriousDetection::Frto,
        SpuriousDetection::FrtoSack,
        SpuriousDetection::Eifel,
        SpuriousDetection::EifelDsack,
    ];
    pub const fn name(self) -> &'static str {
        match self {
            SpuriousDetection::None => "none",
            SpuriousDetection::Frto => "frto",
            SpuriousDetection::FrtoSack => "frto-sack",
            SpuriousDetection::Eifel => "eifel",
            SpuriousDetection::EifelDsack => "eifel-dsack",
        }
    }
    pub fn by_name(name: &str) -> Option<SpuriousDetection> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// What the sender does once a timeout is declared spurious (`tcp.spurious_response`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum SpuriousResponse {
    /// No response beyond what the detector itself does: F-RTO continues with cwnd =
    /// ssthresh (halved at the RTO) in congestion avoidance (dissertation §4.2 step 3a,
    /// L2151-2160, the Ch. 4 F-RTO); Eifel / D-SACK detection only records the decision.
    #[default]
    Conventional,
    /// CC 1: halve cwnd and ssthresh (dissertation §5.2, L2990-2998).
    Cc1,
    /// CC 2: revert cwnd and ssthresh, at most 3 segments above in_flight (L3000-3010).
    Cc2,
    /// CC 3: cwnd = 1 segment, ssthresh = the pre-RTO value if larger, wait for all
    /// outstanding data before slow start (L3012-3020).
    Cc3,
    /// Eifel response (RFC 4015 §3): resume with new data, cwnd = FlightSize +
    /// min(bytes_acked, IW), ssthresh = pipe_prev.
    Eifel,
    /// Linux 2.4 undo (dissertation L1669-1678): clear the lost marks, cwnd = max(cwnd,
    /// 2*ssthresh), ssthresh = prior_ssthresh if larger.
    LinuxUndo,
}

impl SpuriousResponse {
    pub const ALL: [SpuriousResponse; 6] = [
        SpuriousResponse::Conventional,
        SpuriousResponse::Cc1,
        SpuriousResponse::Cc2,
        SpuriousResponse::Cc3,
        SpuriousResponse::Eifel,
        SpuriousResponse::LinuxUndo,
    ];
    pub const fn name(self) -> &'static str {
        match self {
            SpuriousResponse::Conventional => "conventional",
            SpuriousResponse::Cc1 => "cc1",
            SpuriousResponse::Cc2 => "cc2",
            SpuriousResponse::Cc3 => "cc3",
            SpuriousResponse::Eifel => "eifel",
            SpuriousResponse::LinuxUndo => "linux-undo",
        }
    }
    pub fn by_name(name: &str) -> Option<SpuriousResponse> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// Spurious-timeout detection settings.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct SpuriousConfig {
    pub detection: SpuriousDetection,
    pub response: SpuriousResponse,
    /// Basic F-RTO: an ACK in step 2 that covers everything sent before the RTO ends F-RTO
    /// without declaring the timeout spurious (RFC 4138 / RFC 5682 §2 step 2b's
    /// "acknowledges the whole outstanding window"; dissertation L2228-2244). Off by default,
    /// as in the thesis' Linux experiments ("omitted", L2237-2240).
    pub frto_require_full_ack: bool,
}

/// Everything one endpoint needs to know. Values describe *this* endpoint; what is used on the
/// connection is negotiated in the handshake (SACK, timestamps, window scaling are used only
/// when both ends offer them).
/// The congestion-control / loss-recovery engine of the sending half.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum SenderModel {
    /// RFC 5681 / 6582 / 6675 sender (`sender::Sender` with its seams).
    #[default]
    Rfc,
    /// Linux 2.4 congestion-control engine (002 §2, dissertation Ch. 3; `crate::linux`).
    Linux,
}

impl SenderModel {
    pub const ALL: [SenderModel; 2] = [SenderModel::Rfc, SenderModel::Linux];
    pub fn name(self) -> &'static str {
        match self {
            SenderModel::Rfc => "rfc",
            SenderModel::Linux => "linux",
        }
    }
    pub fn by_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// Which congestion controller the RFC sender runs (`tcp.cc`; `crate::cc`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum CongestionControl {
    /// RFC 5681 Reno with RFC 6582 NewReno recovery arithmetic (`cc::reno`).
    #[default]
    Reno,
    /// RFC 9438 CUBIC as Linux `tcp_cubic.c` runs it (`cc::cubic`).
    Cubic,
}

impl CongestionControl {
    pub const ALL: [CongestionControl; 2] = [CongestionControl::Reno, CongestionControl::Cubic];
    pub const fn name(self) -> &'static str {
        match self {
            CongestionControl::Reno => "reno",
            CongestionControl::Cubic => "cubic",
        }
    }
    pub fn by_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// How the active opener acknowledges the SYN-ACK (the third segment of the handshake).
///
/// RFC 9293 §3.10.7.3, SEGMENT ARRIVES, SYN-SENT STATE, fourth: "If SND.UNA > ISS (our SYN
/// has been ACKed), change the connection state to ESTABLISHED, form an ACK segment
/// <SEQ=SND.NXT><ACK=RCV.NXT><CTL=ACK> and send it. Data or controls that were queued for
/// transmission MAY be included." Both variants follow that text; they differ when data is
/// queued at the moment the SYN-ACK arrives.
///
/// Why it matters: with `Piggyback` the server leaves SYN-RECEIVED only when the first data
/// segment arrives. If that segment (or the whole first flight) is lost, the server's
/// SYN-ACK timer (initial RTO) expires and it retransmits the SYN-ACK, and its handshake RTT
/// sample is lost to Karn's rule; with `Immediate` the bare ACK completes the server's
/// handshake one RTT after the SYN-ACK was sent, whatever happens to the data.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum HandshakeAck {
    /// 4.4BSD(-Lite) and its descendants: `tcp_input`'s `TCPS_SYN_SENT` case sets
    /// `tp->t_flags |= TF_ACKNOW` and moves to ESTABLISHED; the single `tcp_output` call at the
    /// end of `tcp_input` then sends the first data segment, which carries the ACK, so no bare
    /// ACK is sent when data is queued. With nothing queued `TF_ACKNOW` makes `tcp_output`
    /// send a bare ACK at once. tcplab's default, so every output produced before this switch
    /// existed is unchanged.
    #[default]
    Piggyback,
    /// Linux (2.4 and later): `tcp_rcv_synsent_state_process` calls `tcp_send_ack` as soon as
    /// the SYN-ACK is accepted, and the queued data follows in separate segments
    /// (`tcp_data_snd_check`). Linux only "saves one ACK" when `write_pending` (a writer is
    /// blocked in `sendmsg` waiting for the connection), `defer_accept` or `ack.pingpong` is
    /// set, none of which holds for an application that calls `connect()` and then writes.
    Immediate,
}

impl HandshakeAck {
    pub const ALL: [HandshakeAck; 2] = [HandshakeAck::Piggyback, HandshakeAck::Immediate];
    /// The name used in scenario files and `tcplab profiles`.
    pub const fn name(self) -> &'static str {
        match self {
            HandshakeAck::Piggyback => "piggyback",
            HandshakeAck::Immediate => "immediate",
        }
    }
    pub fn by_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    /// MSS this endpoint announces and will send (bytes of payload per segment).
    pub mss: u16,
    pub initial_window: InitialWindow,
    /// Initial ssthresh in bytes (RFC 5681 §3.1: "arbitrarily high"); `u64::MAX` for that.
    pub initial_ssthresh: u64,
    pub sack: bool,
    pub timestamps: bool,
    /// Offer window scaling (RFC 7323 §2); the shift is derived from `recv_buffer`.
    pub window_scale: bool,
    /// Receive buffer in bytes: the largest window this endpoint advertises.
    pub recv_buffer: u64,
    /// Send buffer in bytes (limits unacknowledged data like the paper's "send window").
    pub send_buffer: u64,
    pub rto: RtoConfig,
    /// Which RTO estimator runs (default RFC 6298).
    pub rto_estimator: RtoEstimatorKind,
    /// Measurement and event clocks (default: all exact).
    pub timers: TimerConfig,
    /// Which ACKs give RTT samples.
    pub rtt_sampling: RttSampling,
    pub ack: AckPolicy,
    pub dupack_threshold: DupAckThreshold,
    /// RFC 3042 Limited Transmit.
    pub limited_transmit: bool,
    pub recovery: RecoveryAlgorithm,
    /// Spurious-retransmission detection and the response to it (default: none).
    pub spurious: SpuriousConfig,
    /// 000 §4.2 startup mechanisms (ssthresh estimation, pacing); off by default.
    pub startup: StartupConfig,
    /// Quick-Start (RFC 4782, seed 002 Ch. 6–7): requests off by default; Requests received
    /// are echoed.
    pub quick_start: crate::startup::quickstart::QuickStartConfig,
    /// Which sender model runs (default: the RFC sender; `Linux` = dissertation Ch. 3).
    pub sender: SenderModel,
    /// Linux sender: rate-halving in Recovery (002 L1449–1454; on in Linux 2.4). Off = the
    /// "conventional" cwnd = ssthresh at once, as in the thesis' Ch. 4 hosts (L2471–2472).
    pub linux_rate_halving: bool,
    /// Linux sender: FACK loss marking (002 L1368–1370); off = conservative SACK.
    pub linux_fack: bool,
    /// RFC 8985 §7 Tail Loss Probe in the RFC sender (`crate::loss::tlp`); off by default, so
    /// every earlier output is unchanged. The Linux 2.4 sender has no TLP and ignores it.
    pub tlp: bool,
    /// Active open: whether the ACK of the SYN-ACK rides on the first data segment (4.4BSD,
    /// the default) or is sent at once as a bare ACK (Linux). See [`HandshakeAck`].
    pub handshake_ack: HandshakeAck,
    /// RFC 3168 ECN: ask for it on the SYN / accept it on the SYN-ACK, ECT on new data, echo
    /// CE, react to ECE (`crate::ecn`). Off by default (RFC 3168 is opt-in).
    pub ecn: bool,
    /// Congestion controller of the RFC sender (default Reno, every earlier output).
    pub cc: CongestionControl,
    /// Slow-start exit: Linux HyStart or RFC 9406 HyStart++ (`cc::hystart`); off by default.
    pub hystart: crate::cc::hystart::HystartMode,
    /// Byte counting in slow start as Linux counts (RFC 3465; `cc::abc`); off by default
    /// (RFC 5681 eq. 2).
    pub abc: bool,
    /// RFC 6937 Proportional Rate Reduction (PRR-SSRB, Linux `tcp_cwnd_reduction`) for the
    /// window during SACK recovery (`loss::prr`); off by default (RFC 6675 cwnd = ssthresh).
    pub prr: bool,
    /// RFC 8985 RACK loss detection (time-based marking, D-SACK-adapted reordering window,
    /// reordering timer, lost retransmissions) in the RFC sender with SACK (`loss::rack`);
    /// off by default.
    pub rack: bool,
    /// The TLP probe timeout rule: RFC 8985 §7.2 or Linux `tcp_schedule_loss_probe`
    /// (`loss::tlp`); used only with `tlp`.
    pub tlp_pto: crate::loss::tlp::PtoRule,
    /// Today's Linux receiver: the adaptive delayed-ACK timeout `ato` (`tcp_event_data_recv`,
    /// `tcp_send_delayed_ack`) instead of `ack.delayed_ack`'s fixed one, and quick ACKs again
    /// after a gap longer than the RTO (`receiver::ack_policy`); off by default.
    pub ack_ato: bool,
    /// Today's Linux receiver: the SACK block of an out-of-order segment that carries the FIN
    /// includes the FIN's sequence number (Linux `tcp_data_queue_ofo` keys its SACK blocks on
    /// `TCP_SKB_CB(skb)->end_seq`, which `tcp_v4_fill_cb` sets to "seq + syn + fin + len");
    /// off: blocks cover the data bytes only (RFC 2018 §3 "contiguous block of data"). Set by
    /// profile `linux` (scenario key `sack_covers_fin`).
    pub sack_covers_fin: bool,
    /// Today's Linux receive window (`receiver::linux_window`): 64 KiB offered at first
    /// (`tcp_select_initial_window` on `tcp_rmem[1]`), grown per segment (`tcp_grow_window`)
    /// and per RTT (`tcp_rcv_space_adjust`) up to `recv_buffer` (`tcp_rmem[2]`), never shrunk
    /// (`tcp_select_window`); off: `recv_buffer` from the SYN on. Set by profile `linux`
    /// (scenario key `linux_rcv_window`).
    pub linux_rcv_window: bool,
    /// Today's Linux cwnd undo in fast recovery (`linux::cwnd_undo`): when D-SACKs show every
    /// retransmission of the episode was unnecessary (`tcp_try_undo_dsack`), or the ACK that
    /// ends it echoes a timestamp older than the first retransmission (`tcp_try_undo_recovery`),
    /// cwnd and ssthresh return to their values before the reduction and the episode ends.
    /// Off by default; set by profile `linux` (scenario key `cwnd_undo`). RFC sender only.
    pub cwnd_undo: bool,
    /// State shared with the host's other connections (PTA pathlet table, RFC 9040 host
    /// cache); none by default.
    pub sharing: StateSharing,
    /// Record `TcpEvent`s for the driver to drain. Off in benchmarks.
    pub trace: bool,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            mss: 1460,
            initial_window: InitialWindow::Rfc3390,
            initial_ssthresh: u64::MAX,
            sack: true,
            timestamps: true,
            window_scale: true,
            recv_buffer: 65_535,
            send_buffer: u64::MAX,
            rto: RtoConfig::default(),
            rto_estimator: RtoEstimatorKind::Rfc6298,
            timers: TimerConfig::default(),
            rtt_sampling: RttSampling::Auto,
            ack: AckPolicy::default(),
            dupack_threshold: DupAckThreshold::Fixed(DUPACK_THRESHOLD),
            limited_transmit: true,
            recovery: RecoveryAlgorithm::Sack,
            spurious: SpuriousConfig::default(),
            startup: StartupConfig::OFF,
            quick_start: crate::startup::quickstart::QuickStartConfig::default(),
            sender: SenderModel::Rfc,
            linux_rate_halving: true,
            linux_fack: false,
            tlp: false,
            handshake_ack: HandshakeAck::Piggyback,
            ecn: false,
            cc: CongestionControl::Reno,
            hystart: crate::cc::hystart::HystartMode::Off,
            abc: false,
            prr: false,
            rack: false,
            tlp_pto: crate::loss::tlp::PtoRule::Rfc8985,
            ack_ato: false,
            sack_covers_fin: false,
            linux_rcv_window: false,
            cwnd_undo: false,
            sharing: StateSharing::None,
            trace: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // 003 §V-D: D = max(1, min(3, F − 2)).
    #[test]
    fn the_adaptive_threshold_is_two_for_a_flight_of_four_and_never_outside_one_to_three() {
        let d = DupAckThreshold::Adaptive;
        assert_eq!(d.for_flight(4), 2);
        assert_eq!(d.for_flight(0), 1);
        assert_eq!(d.for_flight(3), 1);
        assert_eq!(d.for_flight(5), 3);
        assert_eq!(d.for_flight(u64::MAX), 3);
        assert_eq!(DupAckThreshold::Fixed(0).for_flight(9), 1);
        assert_eq!(DupAckThreshold::default(), DupAckThreshold::Fixed(3));
    }

    #[test]
    fn ratio_ewma_with_rfc_gains_is_the_rfc_integer_update() {
        assert_eq!(RFC6298_GAIN_B.ewma(100, 200), (7 * 100 + 200) / 8);
        assert_eq!(RFC6298_GAIN_A.ewma(50, 100), (3 * 50 + 100) / 4);
        assert_eq!(Ratio::new(1, 0).of(7), 7);
        assert_eq!(Ratio::new(5, 4).ewma(10, 20), 20);
        assert_eq!(RFC6298_K.of(u64::MAX), u64::MAX);
    }

    #[test]
    fn estimator_and_sampling_names_round_trip() {
        for k in RtoEstimatorKind::ALL {
            assert_eq!(RtoEstimatorKind::by_name(k.name()), Some(k));
        }
        for s in RttSampling::ALL {
            assert_eq!(RttSampling::by_name(s.name()), Some(s));
        }
        for h in HandshakeAck::ALL {
            assert_eq!(HandshakeAck::by_name(h.name()), Some(h));
        }
        assert_eq!(TcpConfig::default().handshake_ack, HandshakeAck::Piggyback);
    }
}
