//! Quick-Start (RFC 4782; seed 002 Ch. 6 and 7): an explicit rate request at connection
//! start, after an idle period or after a path change, approved (or lowered, or ignored) by
//! every router on the path and echoed by the receiver.
//!
//! | file | concern |
//! |---|---|
//! | [`wire`] | rate encoding (40 kbit/s · 2^N), the IPv4 option (type 25) and the TCP Response option (kind 27) |
//! | [`host`] | the sender's state machine: which rate to request, the TTL-difference check, the QS window (eq. 6.1), pacing the QS phase, its end, failure |
//! | [`receiver`] | the receiver's echo: `TTLDiff′ = (IP TTL − QS TTL) mod 256` and the rate as received |
//! | [`analytic`] | the thesis's closed forms: eqs. 6.2 and 6.3 (RTTs to send N packets) |
//!
//! The sender-side wiring into [`crate::sender::Sender`] is `sender/quickstart.rs`; the
//! routers live in the simulator (`tcplab-netsim` `sim/quickstart/`).
//!
//! ## Choices where the sources are silent or ambiguous (seed-002-part2 §10)
//!
//! - **Units** (§10 item 5): all rates are bytes/s inside the engine and converted through
//!   `5000 · 2^N` B/s on the wire.
//! - **Rounding of a request**: down to the 2^N grid ([`wire::QsRate::from_bytes_per_sec_floor`],
//!   ns-2 `Bps_to_rate`), clamped to N = 1..=15.
//! - **QS TTL** "a random value" (thesis L3656): the engine has no RNG, so the QS TTL and the
//!   nonce are derived from the connection's ISS (which the simulator draws from the run's
//!   seed) with SplitMix64: deterministic per (scenario, seed), unpredictable to a receiver.
//! - **Nonce**: carried and echoed, and the echoed nonce must equal the one sent. RFC 4782's
//!   per-rate-step 2-bit nonce fields (§3.4) are not modelled: the thesis's simulations did not
//!   use the nonce (L3648–3649), and no router here re-randomises it.
//! - **RTT of eq. 6.1**: the RTT of the packet that carried the Request (ns-2
//!   `now − ts_echo`): the SYN's for a request at connection start, the request segment's
//!   for a mid-connection request. A retransmitted carrier (Karn) gives no RTT, hence no QS.
//! - **H** of eq. 6.1: 40 bytes (IPv4 + TCP without options), configurable.
//! - **Use only if worth it** (ns-2 `processQuickStart`): the QS window is used only when it
//!   exceeds the current cwnd (the IW at start).
//! - **End of the QS phase** (ns-2 `endQuickStart`): at the first ACK that acknowledges the
//!   first QS packet, cwnd = the data actually outstanding if that is below the QS window, never
//!   below the initial window; `qsthresh` then sets ssthresh = the QS window (§7.1).
//! - **Failure** (§3.6): loss (fast retransmit) of a packet below `qs_window` or an ECN echo
//!   acknowledging one: cwnd = the initial window, ssthresh as the loss response left it; a
//!   timeout keeps its own loss window (RFC 4782 §4.6.2 "or the loss window after an RTO").
//!   The alternative the thesis compares against (Fig 6.6 top: ordinary halving) is
//!   [`QsFailureResponse::Halve`].

pub mod analytic;
pub mod host;
pub mod receiver;
pub mod wire;

pub use host::{QsHost, QsPhase, QsApproval};
pub use wire::{QsFunc, QsIpOption, QsRate, QsResponse};

use tcplab_time::SimDuration;

/// How large a rate to request (thesis §6.5.2, L3981–4110).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum QsRequestSize {
    /// The same request for every connection, in bytes/s ("not unreasonable" for initial
    /// requests, L3988–3996; Ch. 7 uses 2 MB/s, L5032–5035).
    Static { bytes_per_sec: u64 },
    /// "Ideal" requests (L4095–4110): the data still to send, with headers, in one RTT,
    /// `(O + ⌈O/MSS⌉·H) / R`, capped at `max_bytes_per_sec`; no request when the data fit in the
    /// initial window (L4006–4007). `R` is the smoothed RTT if known, else `rtt_guess`.
    SizedToData { max_bytes_per_sec: u64, rtt_guess: SimDuration },
}

/// The response to a Quick-Start failure (a QS packet lost or ECN-marked).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum QsFailureResponse {
    /// RFC 4782 §4.6.2 / thesis L4145–4147: back to the default initial window and slow start.
    #[default]
    InitialWindow,
    /// Thesis Fig 6.6 (top), for comparison: the ordinary loss response (halving) only.
    Halve,
}

/// What the sender does when told that the path changed (a vertical hand-off, Ch. 7 §7.4,
/// L5043–5058).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum HandoffResponse {
    /// Variant `none`: ignore the notification.
    #[default]
    Ignore,
    /// Variant `slowstart`: cwnd = 1 MSS, continue in slow start (ssthresh unchanged).
    SlowStart,
    /// Variants `qs` / `qsthresh`: a new Quick-Start request on the next segment.
    QuickStart,
}

/// Quick-Start settings of one endpoint. Off by default (no option is ever sent, so existing
/// outputs are unchanged).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct QuickStartConfig {
    /// Send a Quick-Start Request on the SYN (connection start).
    pub request_at_start: bool,
    pub size: QsRequestSize,
    /// Request again after the connection was idle (nothing outstanding, nothing sent) for at
    /// least this long (thesis L3583–3586). `None`: never.
    pub request_after_idle: Option<SimDuration>,
    pub on_handoff: HandoffResponse,
    /// Chapter 7 §7.3: also set ssthresh to the QS window.
    pub qsthresh: bool,
    /// H of eq. 6.1, bytes of header per packet.
    pub header_overhead: u32,
    /// The IP TTL this host sends with (the simulator's initial TTL; must agree for the TTL
    /// check to be meaningful).
    pub ip_ttl: u8,
    pub failure: QsFailureResponse,
    /// Echo Quick-Start Requests (a receiver that does not know Quick-Start ignores them).
    pub echo: bool,
}

/// Thesis L5032–5035: "a rate request of 2 MB/s, which covers the path capacity in all cases".
pub const DEFAULT_STATIC_REQUEST_BPS: u64 = 2_000_000;
/// Eq. 6.1's H: 20 bytes IPv4 + 20 bytes TCP without options (seed-002-part2 §3.3 item 4).
pub const DEFAULT_HEADER_OVERHEAD: u32 = 40;
/// RFC 1700 / Linux `ip_default_ttl` (the simulator's `DEFAULT_TTL`).
pub const DEFAULT_IP_TTL: u8 = 64;

impl Default for QuickStartConfig {
    fn default() -> Self {
        QuickStartConfig {
            request_at_start: false,
            size: QsRequestSize::Static { bytes_per_sec: DEFAULT_STATIC_REQUEST_BPS },
            request_after_idle: None,
            on_handoff: HandoffResponse::Ignore,
            qsthresh: false,
            header_overhead: DEFAULT_HEADER_OVERHEAD,
            ip_ttl: DEFAULT_IP_TTL,
            failure: QsFailureResponse::InitialWindow,
            echo: true,
        }
    }
}

impl QuickStartConfig {
    /// Whether this endpoint ever requests.
    pub fn requests(&self) -> bool {
        self.request_at_start || self.request_after_idle.is_some() || self.on_handoff == HandoffResponse::QuickStart
    }

    /// Whether the sender keeps Quick-Start state: it requests, or it reacts to hand-off
    /// notifications (the `slowstart` variant needs no request but does need the hook).
    pub fn active(&self) -> bool {
        self.requests() || self.on_handoff != HandoffResponse::Ignore
    }
}
