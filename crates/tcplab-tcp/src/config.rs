//! Per-connection settings. Every default cites where it comes from.
//!
//! The simulator builds one `TcpConfig` per flow endpoint from the scenario file; the capture
//! analyzer builds one per emulated OS profile. Later issues add fields (timer clocks, OS
//! profiles, startup policy, spurious-timeout detectors); keep the defaults RFC-conformant.

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
    /// RFC 6582 NewReno (used when SACK is off or not negotiated).
    NewReno,
    /// RFC 6675 conservative SACK-based loss recovery (falls back to NewReno when the peer did
    /// not agree to SACK).
    Sack,
}

/// RFC 6298 parameters.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RtoConfig {
    /// RFC 6298 (2.1) initial RTO.
    pub initial: SimDuration,
    /// RFC 6298 (2.4) lower bound.
    pub min: SimDuration,
    /// RFC 6298 (2.5) upper bound.
    pub max: SimDuration,
    /// Clock granularity G of RFC 6298 (2.2)/(2.3).
    pub granularity: SimDuration,
}

impl Default for RtoConfig {
    fn default() -> Self {
        RtoConfig {
            initial: RFC6298_INITIAL_RTO,
            min: RFC6298_MIN_RTO,
            max: RFC6298_MAX_RTO,
            granularity: SimDuration::from_millis(1),
        }
    }
}

/// Receiver acknowledgment policy.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct AckPolicy {
    /// Delayed-ACK timeout; `None` acknowledges every segment at once.
    pub delayed_ack: Option<SimDuration>,
    /// Acknowledge at least every this many full-sized segments (RFC 5681 §4.2: 2).
    pub ack_every: u32,
}

impl Default for AckPolicy {
    fn default() -> Self {
        AckPolicy { delayed_ack: Some(DEFAULT_DELAYED_ACK_TIMEOUT), ack_every: DELAYED_ACK_EVERY }
    }
}

/// Everything one endpoint needs to know. Values describe *this* endpoint; what is used on the
/// connection is negotiated in the handshake (SACK, timestamps, window scaling are used only
/// when both ends offer them).
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
    pub ack: AckPolicy,
    pub dupack_threshold: u32,
    /// RFC 3042 Limited Transmit.
    pub limited_transmit: bool,
    pub recovery: RecoveryAlgorithm,
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
            ack: AckPolicy::default(),
            dupack_threshold: DUPACK_THRESHOLD,
            limited_transmit: true,
            recovery: RecoveryAlgorithm::Sack,
            trace: true,
        }
    }
}
