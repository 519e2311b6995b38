//! `[tcp]` and `flows[i].tcp`: the TCP knobs as written, and their merge over
//! `TcpConfig::default()` (profile first, then the explicit keys; flow over `[tcp]`) with the
//! range and cross-field checks.
//!
//! Adding a knob: a field on [`RawTcp`] with its doc comment (the schema and the docs' key
//! table are made from it), and its line in [`tcp_config`].

use super::values::{check_keys, describe, duration_of, quantity_text, unknown_name, unquote_number};
use super::values::{BytesOrInf, ByteCount, Dur, R};
use super::{p, Ctx, P};
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{Deserializer, Error as _};
use serde::Deserialize;
use std::borrow::Cow;
use tcplab_tcp::{
    DupAckThreshold, EventClock, HandshakeAck, InitialWindow, MeasurementClock, Profile, Ratio, RecoveryAlgorithm, RtoEstimatorKind,
    RttSampling, SpuriousDetection, SpuriousResponse, TcpConfig,
};
use tcplab_tcp::cc::hystart::HystartMode;
use tcplab_tcp::loss::tlp::PtoRule;
use tcplab_tcp::CongestionControl;
use tcplab_time::units::parse_duration;
use tcplab_time::SimDuration;

/// `[tcp]` and `flows[i].tcp`: every key optional; unset keys fall through to the next level
/// (flow → `[tcp]` → `TcpConfig::default()`).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("x-values" = "inline table of `[tcp]` keys"))]
pub struct RawTcp {
    /// Payload bytes per full segment, announced in the SYN. Options (timestamps) are *not*
    /// subtracted: with timestamps a full segment is a 1512-byte IP packet. 65495 = 65535 − 40.
    /// Values: size, 64B–65495B. Default from: Ethernet MTU 1500 − 40.
    pub mss: Option<ByteCount>,
    /// Initial congestion window: RFC 3390 is min(4·MSS, max(2·MSS, 4380 B)); RFC 6928 is
    /// min(10·MSS, max(2·MSS, 14600 B)). Values: integer ≥ 1 (segments), `"rfc3390"`, `"rfc6928"`.
    /// Default from: RFC 3390.
    pub initial_window: Option<RawInitialWindow>,
    /// Initial slow-start threshold. Default from: RFC 5681 §3.1 "arbitrarily high".
    pub initial_ssthresh: Option<BytesOrInf>,
    /// Offer SACK (used only if both ends offer it). Default from: RFC 2018.
    pub sack: Option<bool>,
    /// Offer timestamps. Default from: RFC 7323.
    pub timestamps: Option<bool>,
    /// Offer window scaling; the shift is derived from `recv_buffer`. Without scaling the
    /// advertised window is capped at 65535 bytes. Default from: RFC 7323 §2.
    pub window_scale: Option<bool>,
    /// Receive buffer = largest window this endpoint advertises; the maximum is 65535·2¹⁴ (RFC 7323
    /// §2.3). Values: size, 1B–1073725440B. Default from: largest unscaled window.
    pub recv_buffer: Option<ByteCount>,
    /// Limits unacknowledged data (the paper's "send window").
    pub send_buffer: Option<BytesOrInf>,
    /// Lower bound of the RTO (`"0s"` allowed, for experiments). Default from: RFC 6298 (2.4).
    pub min_rto: Option<Dur>,
    /// RTO before the first RTT sample; at most `max_rto`. Values: duration, > 0. Default from: RFC
    /// 6298 (2.1).
    pub initial_rto: Option<Dur>,
    /// Upper bound of the RTO; at least `min_rto`. Values: duration, > 0. Default from: RFC 6298
    /// (2.5).
    pub max_rto: Option<Dur>,
    /// Clock granularity G of RFC 6298 (2.2)/(2.3). Values: duration, > 0. Default from:
    /// Linux-like.
    pub clock_granularity: Option<Dur>,
    /// Delayed-ACK timeout; `false` acknowledges every segment at once. Values: duration > 0, or
    /// `false`. Default from: RFC 1122 §4.2.3.2 (≤ 500 ms); BSD/Linux-era 200 ms.
    pub delayed_ack: Option<DelayedAck>,
    /// Acknowledge at least every N full-sized segments. Values: integer ≥ 1. Default from: RFC
    /// 5681 §4.2.
    #[schemars(range(min = 1))]
    pub ack_every: Option<u32>,
    /// Duplicate ACKs that trigger fast retransmit. `"adaptive"` is Rewaskar et al.'s Smart-Config
    /// rule D = max(1, min(3, F − 2)), F the flight in segments when the first duplicate ACK of an
    /// episode arrives (D then holds for the episode). Values: integer ≥ 1, or `"adaptive"`.
    /// Default from: RFC 5681 §3.2; 003 §V-D.
    pub dupack_threshold: Option<RawDupack>,
    /// Send new data on the first two duplicate ACKs. Default from: RFC 3042.
    pub limited_transmit: Option<bool>,
    /// Loss recovery after fast retransmit; `"sack"` falls back to NewReno (RFC 6582) when SACK is
    /// not negotiated; `"reno"` is RFC 5681 §3.2 / 4.4BSD-Lite: any ACK of new data (also a partial
    /// one) ends fast recovery, so a second loss in the window needs three more duplicate ACKs or
    /// the retransmission timer. Default from: RFC 6675.
    pub recovery: Option<RawRecovery>,
    /// Named OS profile (`tcplab profiles`); sets the keys listed under "OS profiles" below
    /// before the table's other keys are applied.
    #[serde(default)]
    #[schemars(schema_with = "profile_names")]
    pub profile: Option<String>,
    /// Retransmission-timeout estimator (one file each in `crates/tcplab-tcp/src/rtt/`). Default
    /// from: RFC 6298.
    #[serde(default)]
    #[schemars(schema_with = "estimator_names")]
    pub rto_estimator: Option<String>,
    /// Which ACKs give RTT samples: `auto` = every ACK with timestamps, one timed segment per RTT
    /// without; `per-ack` = every ACK that advances SND.UNA (Linux; Karn's rule without
    /// timestamps); `per-flight` = one timed segment per RTT even with timestamps (Windows).
    /// Default from: RFC 6298 §3 / RFC 7323 §4.1.
    #[serde(default)]
    #[schemars(schema_with = "sampling_names")]
    pub rtt_sampling: Option<String>,
    /// Measurement clock f_rtt: samples are counted in its ticks (boundaries crossed, like a BSD
    /// tick counter). Used by the tick-based estimators and by the RFC 6298 family. Values:
    /// `"fine"`, duration > 0, or `{ tick = "500ms", phase = "0ms" }`.
    pub rtt_clock: Option<RawMeasurementClock>,
    /// Event clock f_ev of the retransmission and persist timers (BSD slow timer).
    pub timer_clock: Option<RawEventClock>,
    /// Event clock of the delayed-ACK timer (BSD fast timer).
    pub fast_timer: Option<RawEventClock>,
    /// Gain a of the variance: rttvar = (1 − a)·rttvar + a·|srtt − rtt|. Values: number or `"n/d"`, in (0, 1]. Default
    /// from: RFC 6298 β; 003 §II a.
    pub rto_gain_a: Option<RawRatio>,
    /// Gain b of the mean: srtt = (1 − b)·srtt + b·rtt. Values: number or `"n/d"`, in (0, 1]. Default from: RFC 6298 α;
    /// 003 §II b.
    pub rto_gain_b: Option<RawRatio>,
    /// RTO = m·srtt + max(G, k·rttvar). Values: number or `"n/d"`, > 0. Default from: 003 §II m.
    pub rto_m: Option<RawRatio>,
    /// See `rto_m`. Values: number or `"n/d"`, ≥ 0. Default from: RFC 6298 K; 003 §II k.
    pub rto_k: Option<RawRatio>,
    /// Spurious-timeout detector (one file each in `crates/tcplab-tcp/src/spurious/`): basic F-RTO
    /// (dissertation §4.2), SACK-enhanced F-RTO (§5.1, also during fast recovery), Eifel by
    /// timestamps (needs `timestamps = true`), D-SACK. `"none"` is conventional RTO recovery, the
    /// thesis' "Regular". Every decision is a `spurious_decision` event. Default from: RFC 5682 §2
    /// / §3, RFC 3522, RFC 3708.
    #[serde(default)]
    #[schemars(schema_with = "detection_names")]
    pub spurious_detection: Option<String>,
    /// What to do when a timeout is declared spurious: `conventional` = nothing beyond the detector
    /// (after F-RTO: cwnd = ssthresh = FlightSize/2, congestion avoidance — the Ch. 4 F-RTO; after
    /// Eifel/D-SACK: go-back-N continues); `cc1` halve cwnd and ssthresh; `cc2` revert to the
    /// pre-RTO values, at most 3 segments above the flight; `cc3` cwnd 1 segment, ssthresh the
    /// pre-RTO value if larger, no new data until everything outstanding is acknowledged; `eifel`
    /// RFC 4015 (resume with new data, cwnd = FlightSize + min(acked, IW), ssthresh =
    /// max(FlightSize, ssthresh) before the RTO); `linux-undo` Linux 2.4's undo (lost marks
    /// cleared, cwnd = max(cwnd, 2·ssthresh), ssthresh = the pre-RTO value if larger; dissertation
    /// L1669-1678). Default from: dissertation §5.2; RFC 4015.
    #[serde(default)]
    #[schemars(schema_with = "response_names")]
    pub spurious_response: Option<String>,
    /// Basic F-RTO: an ACK in step 2 that covers everything sent before the timeout is not taken as
    /// evidence of a spurious timeout (the thesis' Linux experiments ran without this condition,
    /// L2237-2240). Default from: RFC 4138 / RFC 5682 §2.
    pub frto_require_full_ack: Option<bool>,
    /// During the initial slow start, estimate ssthresh = bw · srtt from trains of ACKs whose
    /// segments were sent together (bw = bytes acknowledged after the train's first ACK / their
    /// arrival spread, at least 2 segments), at most once per srtt, keeping the minimum; final once
    /// an estimate is within 10 % of the minimum. Stops at the first loss.
    /// `crates/tcplab-tcp/src/startup/ssthresh_estimation.rs`. Default from: Aron & Druschel 000
    /// §4.2.1.
    pub ssthresh_estimation: Option<bool>,
    /// Needs `ssthresh_estimation`: once pthresh = ssthresh/2 is known, each srtt-long round adds N
    /// = MIN(p − d, RTT·f_ev) segments of window, one every T = MAX(1/f_ev, 1/bw), on the
    /// `timer_clock` (f_ev), until cwnd reaches pthresh. With RTT·f_ev < 1 (e.g. 60 ms on a 500 ms
    /// clock) it does nothing. `crates/tcplab-tcp/src/pacing/aron98.rs`. Default from: Aron &
    /// Druschel 000 §4.2.2.
    pub pacing: Option<bool>,
    /// `rfc` is the RFC 5681/6582/6675 sender with the seams above; `linux` is the Linux 2.4
    /// congestion-control engine (`crates/tcplab-tcp/src/linux/`): cwnd and ssthresh in packets
    /// (reported × MSS), in_flight = packets_out − (sacked_out + lost_out) + retrans_out, the
    /// Open/Disorder/CWR/Recovery/Loss states, rate-halving in Recovery, ≤ 3 segments per ACK, undo
    /// by timestamps and D-SACK, congestion window validation, ECE → CWR. `recovery = "sack"` (with
    /// SACK negotiated) gives its conservative-SACK scoreboard, otherwise NewReno marking;
    /// `dupack_threshold` is its `reordering`. Cannot be combined with `spurious_detection`,
    /// `ssthresh_estimation` or `pacing` (one-line error). Default from: dissertation Ch. 3 (seed
    /// 002 §2).
    #[serde(default)]
    #[schemars(schema_with = "sender_names")]
    pub sender: Option<String>,
    /// Linux quick ACKs: the first min(rcv_wnd / (2·MSS), 16) data segments of the connection are
    /// acknowledged at once (2 if the window is under 2 MSS); then `delayed_ack`/`ack_every` apply.
    /// Re-entry after idle and the interactive ("pingpong") switch are not modelled. Default from:
    /// dissertation L1725–1738 (seed 002 §2.9).
    pub quickack: Option<bool>,
    /// Linux sender only (error otherwise): rate-halving in Recovery, cwnd −1 per two ACKs down to
    /// ssthresh with cwnd ≤ in_flight + 1; `false` = cwnd = ssthresh on entry (the thesis' Ch. 4
    /// hosts). Default from: dissertation L1449–1454, L2471–2472.
    pub rate_halving: Option<bool>,
    /// Linux sender only: FACK loss marking (the first fackets_out − reordering segments are lost;
    /// Recovery when fackets_out > reordering), switched off when reordering is detected; `false` =
    /// conservative SACK (RFC 3517 rule). Default from: dissertation L1368–1370, L1707–1709.
    pub fack: Option<bool>,
    /// Tail Loss Probe in the RFC sender (`crates/tcplab-tcp/src/loss/tlp.rs`): with data
    /// outstanding and no ACK for PTO = 2·SRTT (+ 200 ms WCDelAckT when one segment is in flight; 1
    /// s without SRTT; never later than the RTO would fire), send one new segment past cwnd if the
    /// receive window allows (a `tlp_probe` event, not a retransmission), else retransmit the
    /// highest-sequence segment sent (cause `tlp`); at most one probe retransmission outstanding;
    /// the RTO is re-armed after the probe. An ACK above the probe without a D-SACK of it reduces
    /// cwnd as a fast recovery would. Not with `sender = "linux"` (one-line error). Default from:
    /// RFC 8985 §7.
    pub tlp: Option<bool>,
    /// TLP probe timeout: `rfc8985` is RFC 8985 §7.2's 2·SRTT (+ 200 ms WCDelAckT with one
    /// segment in flight); `linux` is `tcp_schedule_loss_probe`'s 2·SRTT + 2 jiffies (8 ms at HZ
    /// 250; + 200 ms `TCP_RTO_MIN` instead with one packet out); both never later than the RTO.
    /// Default from: RFC 8985 §7.2 (`linux` profile: `linux`).
    #[serde(default)]
    #[schemars(schema_with = "pto_names")]
    pub tlp_pto: Option<String>,
    /// Congestion controller of the RFC sender (`crates/tcplab-tcp/src/cc/`): `reno` (RFC 5681 /
    /// RFC 6582 arithmetic) or `cubic` (RFC 9438 as Linux `tcp_cubic.c`: cwnd in packets, time in
    /// 4 ms jiffies, β = 717/1024, fast convergence, the Reno-friendly region, `cubic_root`,
    /// W_max forgotten after an RTO). Not with `sender = "linux"`. Default from: RFC 5681
    /// (`linux` profile: `cubic`).
    #[serde(default)]
    #[schemars(schema_with = "cc_names")]
    pub cc: Option<String>,
    /// Leave slow start before the first loss: `linux` sets ssthresh = cwnd when an ACK train
    /// lasts longer than min RTT / 2 or a round's min RTT exceeds the minimum by clamp(min RTT /
    /// 8, 4 ms, 16 ms), with cwnd ≥ 16 (`tcp_cubic.c` `hystart_update`); `hystart++` enters
    /// Conservative Slow Start (¼ growth) on a round-min RTT rise of max(4 ms, min(last round's /
    /// 8, 16 ms)) and congestion avoidance after 5 CSS rounds (RFC 9406). Works with either `cc`.
    /// Default from: plain slow start (`linux` profile: `linux`).
    #[serde(default)]
    #[schemars(schema_with = "hystart_names")]
    pub hystart: Option<String>,
    /// Byte counting in slow start as Linux counts (`tcp_slow_start`): every acknowledged
    /// segment, capped at ssthresh, the rest into congestion avoidance, so slow start doubles per
    /// RTT with delayed ACKs (`false`: RFC 5681's one SMSS per ACK, 1.5x). Default from: RFC 5681
    /// eq. 2 (`linux` profile: `true`; RFC 3465).
    pub abc: Option<bool>,
    /// Proportional Rate Reduction for the window during SACK recovery (PRR-SSRB in packets, Linux
    /// `tcp_cwnd_reduction`) instead of RFC 6675's cwnd = ssthresh at once. Default from: RFC
    /// 6675 (`linux` profile: `true`; RFC 6937).
    pub prr: Option<bool>,
    /// RACK loss detection in the RFC sender with SACK (`crates/tcplab-tcp/src/loss/rack.rs`): a
    /// segment is lost when one sent after it was delivered and RACK.rtt + reo_wnd passed
    /// (reo_wnd = min RTT / 4, 0 in recovery or with 3 SACKed segments until reordering is seen,
    /// × (1 + D-SACK rounds) for 16 recoveries, ≤ SRTT); a reordering timer; lost retransmissions
    /// are detected and resent. Replaces DupThresh/IsLost; only lost segments are retransmitted.
    /// Not with `sender = "linux"`. Default from: RFC 6675 (`linux` profile: `true`; RFC 8985 §6).
    pub rack: Option<bool>,
    /// The receiver's delayed-ACK timeout is Linux's adaptive `ato` instead of `delayed_ack`'s
    /// fixed value: 40 ms (`TCP_ATO_MIN`) at first and for segments under 20 ms apart, ato / 2 +
    /// gap for slower ones (at most the RTO), bounded by the receiver's srtt (at least 40 ms) and
    /// 500 ms; a gap longer than the RTO gives quick ACKs again (`tcp_incr_quickack`). Default
    /// from: RFC 5681 §4.2 fixed timer (`linux` profile: `true`; Linux `tcp_event_data_recv`).
    pub ack_ato: Option<bool>,
    /// The receiver's SACK block of an out-of-order segment carrying the FIN includes the FIN's
    /// sequence number (a TLP probe of the FIN segment is then SACKed whole). Default from:
    /// RFC 2018 §3 blocks of data (`linux` profile: `true`; Linux `tcp_data_queue_ofo` on
    /// `end_seq` = seq + fin + len).
    pub sack_covers_fin: Option<bool>,
    /// The receiver's window is today's Linux's: rounddown(64 KiB, MSS) in the SYN-ACK
    /// (`tcp_rmem[1]` = 128 KiB at a 50 % payload ratio), then +2 MSS per arriving segment up to
    /// the buffer's free space (`tcp_grow_window`), the buffer autotuned once per receiver RTT to
    /// twice what was read (`tcp_rcv_space_adjust`) up to `recv_buffer` (`tcp_rmem[2]`), the
    /// offer never shrunk (`tcp_select_window`). Default from: `recv_buffer` offered from the
    /// SYN-ACK on (`linux` profile: `true`; Linux 6.16+ `tcp_input.c`).
    pub linux_rcv_window: Option<bool>,
    /// Undo the window reduction of a fast recovery when D-SACKs show every retransmission of it
    /// was unnecessary (the episode ends at once), when the ACK ending it echoes a timestamp
    /// older than its first retransmission, or when a partial ACK does so and no retransmission
    /// is in flight (with one in flight the recovery holds: new data only on that ACK):
    /// cwnd = max(cwnd, cwnd before), ssthresh = max(ssthresh, ¾ of cwnd before). RFC sender
    /// only. Default from: RFC 5681/6675 (no undo) (`linux` profile: `true`; Linux
    /// `tcp_try_undo_dsack`, `tcp_try_undo_recovery`, `tcp_try_undo_partial`).
    pub cwnd_undo: Option<bool>,
    /// The client's ACK of the SYN-ACK. `piggyback`: it rides on the first data segment (a bare ACK
    /// only when nothing can be sent), so if the first flight is lost the server stays in
    /// SYN-RECEIVED and retransmits its SYN-ACK after its initial RTO. `immediate`: a bare ACK goes
    /// out at once, ahead of the data, and the server is ESTABLISHED one RTT after its SYN-ACK
    /// whatever happens to the data. Only the active opener's setting matters. Default from: RFC
    /// 9293 §3.10.7.3; 4.4BSD `tcp_input` (`TF_ACKNOW` + one `tcp_output`); Linux
    /// `tcp_rcv_synsent_state_process` → `tcp_send_ack`.
    #[serde(default)]
    #[schemars(schema_with = "handshake_ack_names")]
    pub handshake_ack: Option<String>,
    /// RFC 3168 ECN (`crates/tcplab-tcp/src/ecn.rs`): the client sends an ECN-setup SYN
    /// (ECE+CWR), the server answers ECE if it has `ecn` too; then new data is ECT(0) (never
    /// retransmissions, pure ACKs or SYNs), the receiver sets ECE on every ACK from a CE data
    /// packet until a CWR arrives, and the sender treats ECE as a loss without retransmitting
    /// (the controller's halving, at most once per window of data; no cwnd growth on ECE ACKs in
    /// congestion avoidance) and sets CWR on the first new data after any window reduction. The
    /// Linux 2.4 sender enters its CWR state instead. Marks come from RED queues
    /// (`links.queue`). Default from: RFC 3168 is opt-in.
    pub ecn: Option<bool>,
    /// State shared with the host's other connections: `none`; `pathlet` (the Pathlet
    /// Transport Architecture, seed 004: discovery on the SYN, the initial window from the
    /// host's pathlet table, `[pathlet]`; `crates/tcplab-netsim/src/sim/pathlet/`); `host`
    /// (RFC 9040 temporal sharing of cwnd, ssthresh and RTT per destination host,
    /// `[host_cache]`; `crates/tcplab-tcp/src/startup/host_cache.rs`). Default from: every
    /// connection on its own (RFC 5681).
    #[serde(default)]
    #[schemars(schema_with = "sharing_names")]
    pub sharing: Option<String>,
    /// Quick-Start (RFC 4782; seed 002 Ch. 6–7), see `scenario/quickstart.rs`.
    pub quick_start: Option<super::quickstart::RawTcpQuickStart>,
}

/// `recovery`: the loss-recovery algorithm of the RFC sender.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RawRecovery {
    Sack,
    Newreno,
    Reno,
}

/// Initial window: a segment count, or a rule name.
#[derive(Debug, Clone, Copy)]
pub enum RawInitialWindow {
    Segments(i64),
    Rfc3390,
    Rfc6928,
}
impl<'de> Deserialize<'de> for RawInitialWindow {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        match &v {
            toml::Value::Integer(i) => Ok(RawInitialWindow::Segments(*i)),
            toml::Value::String(s) if s == "rfc3390" => Ok(RawInitialWindow::Rfc3390),
            toml::Value::String(s) if s == "rfc6928" => Ok(RawInitialWindow::Rfc6928),
            toml::Value::String(s) => Err(D::Error::custom(format!(
                "unknown variant `{s}`, expected one of `rfc3390`, `rfc6928` (or a segment count like 3)"
            ))),
            other => Err(D::Error::custom(format!(
                "expected a segment count like 3, or \"rfc3390\" or \"rfc6928\", found {}",
                describe(other)
            ))),
        }
    }
}

/// Delayed-ACK timeout, or `false` to acknowledge every segment immediately.
#[derive(Debug, Clone, Copy)]
pub struct DelayedAck(pub Option<SimDuration>);
impl<'de> Deserialize<'de> for DelayedAck {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        match &v {
            toml::Value::Boolean(false) => Ok(DelayedAck(None)),
            toml::Value::Boolean(true) => Err(D::Error::custom(
                "write the timeout itself, like \"200ms\", or false to turn delayed ACKs off",
            )),
            other => {
                let s = quantity_text(other, "200ms")
                    .map_err(|e| D::Error::custom(format!("{e} or false")))?;
                parse_duration(&s)
                    .map(|d| DelayedAck(Some(d)))
                    .map_err(|e| D::Error::custom(unquote_number(other, &s, e)))
            }
        }
    }
}

/// The fast-retransmit threshold: a count, or `"adaptive"` (003 §V-D).
#[derive(Debug, Clone, Copy)]
pub enum RawDupack {
    Fixed(i64),
    Adaptive,
}
impl<'de> Deserialize<'de> for RawDupack {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        match &v {
            toml::Value::Integer(i) => Ok(RawDupack::Fixed(*i)),
            toml::Value::String(s) if s == "adaptive" => Ok(RawDupack::Adaptive),
            other => Err(D::Error::custom(format!(
                "expected a count like 3 or \"adaptive\", found {}",
                describe(other)
            ))),
        }
    }
}

/// An exact fraction: a number (`0.25`, `4`) or a string `"1/4"`.
#[derive(Debug, Clone, Copy)]
pub struct RawRatio {
    pub num: u32,
    pub den: u32,
}
/// Denominator used to turn a decimal into a fraction (then reduced): six decimals.
const RATIO_DECIMAL_DEN: u64 = 1_000_000;
fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}
fn reduce(num: u64, den: u64) -> Result<RawRatio, String> {
    let g = gcd(num, den).max(1);
    let (n, d) = (num / g, den / g);
    match (u32::try_from(n), u32::try_from(d)) {
        (Ok(num), Ok(den)) => Ok(RawRatio { num, den }),
        _ => Err("is too large".to_string()),
    }
}
impl<'de> Deserialize<'de> for RawRatio {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        let decimal = |f: f64| {
            let scaled = (f * RATIO_DECIMAL_DEN as f64).round();
            if scaled > u32::MAX as f64 * RATIO_DECIMAL_DEN as f64 {
                Err("is too large".to_string())
            } else {
                reduce(scaled as u64, RATIO_DECIMAL_DEN)
            }
        };
        let r = match &v {
            toml::Value::Integer(i) if *i >= 0 => reduce(i.unsigned_abs(), 1),
            toml::Value::Float(f) if f.is_finite() && *f >= 0.0 => decimal(*f),
            toml::Value::String(s) => match s.split_once('/') {
                Some((a, b)) => match (a.trim().parse::<u64>(), b.trim().parse::<u64>()) {
                    (Ok(a), Ok(b)) if b > 0 => reduce(a, b),
                    _ => Err(format!("\"{s}\" is not a fraction like \"1/4\"")),
                },
                // "4" and "0.25" as strings too (`tcplab profiles --json` writes "4").
                None => match s.trim().parse::<f64>() {
                    Ok(f) if f.is_finite() && f >= 0.0 => decimal(f),
                    _ => Err(format!("\"{s}\" is not a fraction like \"1/4\" (or write a number like 0.25)")),
                },
            },
            other => Err(format!(
                "expected a non-negative number like 0.25 or a fraction like \"1/4\", found {}",
                describe(other)
            )),
        };
        r.map_err(D::Error::custom)
    }
}

/// `rtt_clock`: `"fine"`, a tick like `"500ms"`, or `{ tick = "500ms", phase = "0ms" }`.
#[derive(Debug, Clone, Copy)]
pub struct RawMeasurementClock {
    /// `None` = fine.
    pub tick: Option<SimDuration>,
    pub phase: SimDuration,
}
impl<'de> Deserialize<'de> for RawMeasurementClock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        let r = match &v {
            toml::Value::String(s) if s == "fine" => Ok(RawMeasurementClock { tick: None, phase: SimDuration::ZERO }),
            toml::Value::Table(t) => (|| {
                check_keys(t, &["tick", "phase"])?;
                let tick = duration_of(t.get("tick").ok_or("missing field `tick`")?, "tick")?;
                let phase = match t.get("phase") {
                    Some(p) => duration_of(p, "phase")?,
                    None => SimDuration::ZERO,
                };
                Ok(RawMeasurementClock { tick: Some(tick), phase })
            })(),
            other => {
                let s = quantity_text(other, "500ms").map_err(|e| format!("{e}, \"fine\" or {{ tick = ..., phase = ... }}"));
                s.and_then(|s| {
                    parse_duration(&s)
                        .map(|t| RawMeasurementClock { tick: Some(t), phase: SimDuration::ZERO })
                        .map_err(|e| format!("{} (or \"fine\")", unquote_number(other, &s, e)))
                })
            }
        };
        r.map_err(D::Error::custom)
    }
}

/// `timer_clock` / `fast_timer`: `"fine"`, a one-shot granularity like `"10ms"`,
/// `{ kind = "periodic", period = "500ms", phase = "0ms" }` or
/// `{ kind = "oneshot", granularity = "10ms" }`.
#[derive(Debug, Clone, Copy)]
pub enum RawEventClock {
    Fine,
    Periodic { period: SimDuration, phase: SimDuration },
    OneShot { granularity: SimDuration },
}
impl<'de> Deserialize<'de> for RawEventClock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        let r = match &v {
            toml::Value::String(s) if s == "fine" => Ok(RawEventClock::Fine),
            toml::Value::Table(t) => match t.get("kind").and_then(|k| k.as_str()) {
                Some("periodic") => (|| {
                    check_keys(t, &["kind", "period", "phase"])?;
                    let period = duration_of(t.get("period").ok_or("missing field `period`")?, "period")?;
                    let phase = match t.get("phase") {
                        Some(p) => duration_of(p, "phase")?,
                        None => SimDuration::ZERO,
                    };
                    Ok(RawEventClock::Periodic { period, phase })
                })(),
                Some("oneshot") => (|| {
                    check_keys(t, &["kind", "granularity"])?;
                    let g = duration_of(t.get("granularity").ok_or("missing field `granularity`")?, "granularity")?;
                    Ok(RawEventClock::OneShot { granularity: g })
                })(),
                Some("fine") => check_keys(t, &["kind"]).map(|_| RawEventClock::Fine),
                Some(k) => Err(format!("unknown variant `{k}`, expected `periodic`, `oneshot` or `fine`")),
                None => Err("missing field `kind` (\"periodic\", \"oneshot\" or \"fine\")".to_string()),
            },
            other => {
                let s = quantity_text(other, "10ms")
                    .map_err(|e| format!("{e}, \"fine\" or {{ kind = \"periodic\", period = ..., phase = ... }}"));
                s.and_then(|s| {
                    parse_duration(&s)
                        .map(|g| RawEventClock::OneShot { granularity: g })
                        .map_err(|e| format!("{} (or \"fine\")", unquote_number(other, &s, e)))
                })
            }
        };
        r.map_err(D::Error::custom)
    }
}

/// Smallest MSS accepted. RFC 9293 §3.7.1 only fixes the 536-byte default; tcplab accepts
/// down to 64 bytes for experiments with tiny segments (Linux clamps at 88).
pub const MIN_MSS: u64 = 64;
/// Largest MSS: a 65 535-byte IPv4 datagram minus 20 bytes of IP and 20 of TCP header
/// (RFC 791 total length is 16 bits).
pub const MAX_MSS: u64 = 65_495;
/// RFC 7323 §2.3: with the maximum shift of 14 the largest window is 65 535 · 2^14 bytes.
pub const MAX_RECV_BUFFER: u64 = 65_535 << 14;

/// Merge `[tcp]` and a flow's `tcp = {...}` over `TcpConfig::default()` and check it. Errors
/// name the level the offending value came from.
///
/// Order within a level: `profile` (all its fields), then the level's explicit keys. A flow's
/// `profile` therefore replaces what `[tcp]` set for the profile's fields.
pub(super) fn tcp_config(ctx: &Ctx<'_>, global: &RawTcp, flow: Option<&RawTcp>, flow_at: &P) -> R<TcpConfig> {
    let mut c = TcpConfig::default();
    let levels: [(Option<&RawTcp>, P); 2] = [(Some(global), p("tcp")), (flow, flow_at.k("tcp"))];
    for (t, at) in levels.iter() {
        let Some(t) = t else { continue };
        // A profile first, so that the table's own keys override it.
        if let Some(name) = &t.profile {
            let Some(prof) = Profile::by_name(name) else {
                let names: Vec<String> = Profile::names().map(String::from).collect();
                return Err(ctx.err(&at.k("profile"), unknown_name("profile", name, &names)));
            };
            prof.apply(&mut c);
        }
        if let Some(m) = t.mss {
            if !(MIN_MSS..=MAX_MSS).contains(&m.0) {
                return Err(ctx.err(
                    &at.k("mss"),
                    format!("{}B is out of range ({MIN_MSS}B to {MAX_MSS}B)", m.0),
                ));
            }
            c.mss = m.0 as u16;
        }
        if let Some(iw) = t.initial_window {
            c.initial_window = match iw {
                RawInitialWindow::Segments(n) if n >= 1 && n <= i64::from(u32::MAX) => {
                    InitialWindow::Segments(n as u32)
                }
                RawInitialWindow::Segments(n) => {
                    return Err(ctx
                        .err(&at.k("initial_window"), format!("{n} segments: must be at least 1")))
                }
                RawInitialWindow::Rfc3390 => InitialWindow::Rfc3390,
                RawInitialWindow::Rfc6928 => InitialWindow::Rfc6928,
            };
        }
        if let Some(s) = t.initial_ssthresh {
            if s.0 == 0 {
                return Err(
                    ctx.err(&at.k("initial_ssthresh"), "must be greater than zero (or \"inf\")")
                );
            }
            c.initial_ssthresh = s.0;
        }
        if let Some(v) = t.sack {
            c.sack = v;
        }
        if let Some(v) = t.timestamps {
            c.timestamps = v;
        }
        if let Some(v) = t.window_scale {
            c.window_scale = v;
        }
        if let Some(b) = t.recv_buffer {
            if b.0 == 0 || b.0 > MAX_RECV_BUFFER {
                return Err(ctx.err(
                    &at.k("recv_buffer"),
                    format!("{}B is out of range (1B to {MAX_RECV_BUFFER}B, the RFC 7323 maximum window)", b.0),
                ));
            }
            c.recv_buffer = b.0;
        }
        if let Some(b) = t.send_buffer {
            if b.0 == 0 {
                return Err(ctx.err(&at.k("send_buffer"), "must be greater than zero (or \"inf\")"));
            }
            c.send_buffer = b.0;
        }
        for (key, v, slot) in [
            ("min_rto", t.min_rto, &mut c.rto.min),
            ("initial_rto", t.initial_rto, &mut c.rto.initial),
            ("max_rto", t.max_rto, &mut c.rto.max),
            ("clock_granularity", t.clock_granularity, &mut c.rto.granularity),
        ] {
            if let Some(d) = v {
                if d.0 .0 == 0 && key != "min_rto" {
                    return Err(ctx.err(&at.k(key), "must be greater than zero"));
                }
                *slot = d.0;
            }
        }
        if let Some(d) = t.delayed_ack {
            if d.0 == Some(tcplab_time::SimDuration::ZERO) {
                return Err(ctx.err(
                    &at.k("delayed_ack"),
                    "must be greater than zero (or false for no delay)",
                ));
            }
            c.ack.delayed_ack = d.0;
        }
        if let Some(n) = t.ack_every {
            if n == 0 {
                return Err(ctx.err(&at.k("ack_every"), "must be at least 1"));
            }
            c.ack.ack_every = n;
        }
        match t.dupack_threshold {
            None => {}
            Some(RawDupack::Adaptive) => c.dupack_threshold = DupAckThreshold::Adaptive,
            Some(RawDupack::Fixed(n)) => {
                if n < 1 || n > i64::from(u32::MAX) {
                    return Err(ctx.err(&at.k("dupack_threshold"), "must be at least 1 (or \"adaptive\")"));
                }
                c.dupack_threshold = DupAckThreshold::Fixed(n as u32);
            }
        }
        if let Some(name) = &t.rto_estimator {
            let names: Vec<String> = RtoEstimatorKind::ALL.iter().map(|k| k.name().to_string()).collect();
            c.rto_estimator = RtoEstimatorKind::by_name(name)
                .ok_or_else(|| ctx.err(&at.k("rto_estimator"), unknown_name("estimator", name, &names)))?;
        }
        if let Some(name) = &t.rtt_sampling {
            let names: Vec<String> = RttSampling::ALL.iter().map(|k| k.name().to_string()).collect();
            c.rtt_sampling = RttSampling::by_name(name)
                .ok_or_else(|| ctx.err(&at.k("rtt_sampling"), unknown_name("sampling rule", name, &names)))?;
        }
        if let Some(rc) = t.rtt_clock {
            c.timers.rtt_clock = match rc.tick {
                None => MeasurementClock::FINE,
                Some(tick) if tick.0 == 0 => {
                    return Err(ctx.err(&at.k("rtt_clock"), "tick must be greater than zero (or \"fine\")"))
                }
                Some(tick) => MeasurementClock { tick, phase: rc.phase },
            };
        }
        for (key, v, slot) in [
            ("timer_clock", t.timer_clock, &mut c.timers.slow),
            ("fast_timer", t.fast_timer, &mut c.timers.fast),
        ] {
            if let Some(ec) = v {
                *slot = match ec {
                    RawEventClock::Fine => EventClock::Fine,
                    RawEventClock::Periodic { period, .. } if period.0 == 0 => {
                        return Err(ctx.err(&at.k(key), "period must be greater than zero"))
                    }
                    RawEventClock::Periodic { period, phase } => EventClock::Periodic { period, phase },
                    RawEventClock::OneShot { granularity } if granularity.0 == 0 => {
                        return Err(ctx.err(&at.k(key), "granularity must be greater than zero (or \"fine\")"))
                    }
                    RawEventClock::OneShot { granularity } => EventClock::OneShot { granularity },
                };
            }
        }
        for (key, v, slot, gain) in [
            ("rto_gain_a", t.rto_gain_a, &mut c.rto.gain_a, true),
            ("rto_gain_b", t.rto_gain_b, &mut c.rto.gain_b, true),
            ("rto_m", t.rto_m, &mut c.rto.m, false),
            ("rto_k", t.rto_k, &mut c.rto.k, false),
        ] {
            if let Some(r) = v {
                if gain && (r.num == 0 || r.num > r.den) {
                    return Err(ctx.err(&at.k(key), format!("{}/{} is not a gain in (0, 1]", r.num, r.den)));
                }
                if key == "rto_m" && r.num == 0 {
                    return Err(ctx.err(&at.k(key), "must be greater than zero"));
                }
                *slot = Ratio::new(r.num, r.den);
            }
        }
        if let Some(v) = t.limited_transmit {
            c.limited_transmit = v;
        }
        if let Some(name) = &t.spurious_detection {
            let names: Vec<String> = SpuriousDetection::ALL.iter().map(|k| k.name().to_string()).collect();
            c.spurious.detection = SpuriousDetection::by_name(name)
                .ok_or_else(|| ctx.err(&at.k("spurious_detection"), unknown_name("detector", name, &names)))?;
        }
        if let Some(name) = &t.spurious_response {
            let names: Vec<String> = SpuriousResponse::ALL.iter().map(|k| k.name().to_string()).collect();
            c.spurious.response = SpuriousResponse::by_name(name)
                .ok_or_else(|| ctx.err(&at.k("spurious_response"), unknown_name("response", name, &names)))?;
        }
        if let Some(v) = t.frto_require_full_ack {
            c.spurious.frto_require_full_ack = v;
        }
        if let Some(v) = t.ssthresh_estimation {
            c.startup.ssthresh_estimation = v;
        }
        if let Some(v) = t.pacing {
            c.startup.pacing = v;
        }
        if let Some(v) = t.quickack {
            c.ack.quickack = v;
        }
        if let Some(v) = t.rate_halving {
            c.linux_rate_halving = v;
        }
        if let Some(v) = t.fack {
            c.linux_fack = v;
        }
        if let Some(v) = t.tlp {
            c.tlp = v;
        }
        if let Some(name) = &t.tlp_pto {
            let names: Vec<String> = PtoRule::ALL.iter().map(|k| k.name().to_string()).collect();
            c.tlp_pto = PtoRule::by_name(name).ok_or_else(|| ctx.err(&at.k("tlp_pto"), unknown_name("PTO rule", name, &names)))?;
        }
        if let Some(name) = &t.cc {
            let names: Vec<String> = CongestionControl::ALL.iter().map(|k| k.name().to_string()).collect();
            c.cc = CongestionControl::by_name(name)
                .ok_or_else(|| ctx.err(&at.k("cc"), unknown_name("congestion controller", name, &names)))?;
        }
        if let Some(name) = &t.hystart {
            let names: Vec<String> = HystartMode::ALL.iter().map(|k| k.name().to_string()).collect();
            c.hystart = HystartMode::by_name(name).ok_or_else(|| ctx.err(&at.k("hystart"), unknown_name("hystart", name, &names)))?;
        }
        if let Some(v) = t.abc {
            c.abc = v;
        }
        if let Some(v) = t.prr {
            c.prr = v;
        }
        if let Some(v) = t.rack {
            c.rack = v;
        }
        if let Some(v) = t.ecn {
            c.ecn = v;
        }
        if let Some(name) = &t.sharing {
            let names: Vec<String> = tcplab_tcp::StateSharing::ALL.iter().map(|k| k.name().to_string()).collect();
            c.sharing = tcplab_tcp::StateSharing::by_name(name)
                .ok_or_else(|| ctx.err(&at.k("sharing"), unknown_name("state sharing", name, &names)))?;
        }
        if let Some(v) = t.ack_ato {
            c.ack_ato = v;
        }
        if let Some(v) = t.sack_covers_fin {
            c.sack_covers_fin = v;
        }
        if let Some(v) = t.linux_rcv_window {
            c.linux_rcv_window = v;
        }
        if let Some(v) = t.cwnd_undo {
            c.cwnd_undo = v;
        }
        if let Some(name) = &t.handshake_ack {
            let names: Vec<String> = HandshakeAck::ALL.iter().map(|k| k.name().to_string()).collect();
            c.handshake_ack = HandshakeAck::by_name(name)
                .ok_or_else(|| ctx.err(&at.k("handshake_ack"), unknown_name("handshake ACK", name, &names)))?;
        }
        if let Some(name) = &t.sender {
            let names: Vec<String> = tcplab_tcp::SenderModel::ALL.iter().map(|k| k.name().to_string()).collect();
            c.sender = tcplab_tcp::SenderModel::by_name(name)
                .ok_or_else(|| ctx.err(&at.k("sender"), unknown_name("sender", name, &names)))?;
        }
        if let Some(q) = &t.quick_start {
            super::quickstart::apply_tcp(ctx, &at.k("quick_start"), q, &mut c.quick_start)?;
        }
        if let Some(r) = t.recovery {
            c.recovery = match r {
                RawRecovery::Sack => RecoveryAlgorithm::Sack,
                RawRecovery::Newreno => RecoveryAlgorithm::NewReno,
                RawRecovery::Reno => RecoveryAlgorithm::Reno,
            };
        }
    }
    // Cross-field checks, reported at the innermost level that sets one of the keys.
    let which = |keys: &[&str]| -> P {
        let sets = |t: &RawTcp, k: &str| match k {
            "min_rto" => t.min_rto.is_some(),
            "max_rto" => t.max_rto.is_some(),
            "initial_rto" => t.initial_rto.is_some(),
            _ => false,
        };
        for (t, at) in levels.iter().rev() {
            if let Some(t) = t {
                if let Some(k) = keys.iter().find(|k| sets(t, k)) {
                    return at.k(k);
                }
            }
        }
        p("tcp").k(keys[0])
    };
    if c.spurious.detection == SpuriousDetection::Eifel && !c.timestamps {
        let at = levels.iter().rev().find_map(|(t, at)| t.and_then(|t| t.spurious_detection.as_ref()).map(|_| at.k("spurious_detection")));
        return Err(ctx.err(
            &at.unwrap_or_else(|| p("tcp").k("spurious_detection")),
            "\"eifel\" detects by timestamps (RFC 3522) and needs timestamps = true",
        ));
    }
    if c.sender == tcplab_tcp::SenderModel::Linux
        && (c.spurious.detection != SpuriousDetection::None || c.startup.ssthresh_estimation || c.startup.pacing)
    {
        // The Linux engine has its own undo (002 §2.7) and does not run the RFC sender's
        // spurious-detector or startup seams.
        let at = levels.iter().rev().find_map(|(t, at)| t.and_then(|t| t.sender.as_ref()).map(|_| at.k("sender")));
        return Err(ctx.err(
            &at.unwrap_or_else(|| p("tcp").k("sender")),
            "\"linux\" cannot be combined with spurious_detection, ssthresh_estimation or pacing (it undoes by timestamps/D-SACK itself)",
        ));
    }
    if c.sender == tcplab_tcp::SenderModel::Linux && c.tlp {
        // The Linux 2.4 sender model predates TLP (Linux 3.10); TLP runs in the RFC sender.
        let at = levels.iter().rev().find_map(|(t, at)| t.and_then(|t| t.sender.as_ref()).map(|_| at.k("sender")));
        return Err(ctx.err(
            &at.unwrap_or_else(|| p("tcp").k("sender")),
            "\"linux\" cannot be combined with tlp (the Linux 2.4 sender has no Tail Loss Probe; TLP runs in the RFC sender)",
        ));
    }
    if c.sender == tcplab_tcp::SenderModel::Linux
        && (c.cc != CongestionControl::Reno || c.hystart != HystartMode::Off || c.abc || c.prr || c.rack)
    {
        // The Linux 2.4 engine counts its own window (002 §2); today's Linux features run in the
        // RFC sender (profile = "linux").
        let at = levels.iter().rev().find_map(|(t, at)| t.and_then(|t| t.sender.as_ref()).map(|_| at.k("sender")));
        return Err(ctx.err(
            &at.unwrap_or_else(|| p("tcp").k("sender")),
            "\"linux\" (the Linux 2.4 engine) cannot be combined with cc = \"cubic\", hystart, abc, prr or rack (they run in the RFC sender; profile = \"linux\" is today's Linux)",
        ));
    }
    if c.sender == tcplab_tcp::SenderModel::Linux && c.quick_start.active() {
        // Quick-Start (RFC 4782) runs in the RFC sender, whatever its cc and recovery
        // (`sender/quickstart.rs`); the Linux 2.4 engine counts its window in packets itself.
        let at = levels.iter().rev().find_map(|(t, at)| t.and_then(|t| t.sender.as_ref()).map(|_| at.k("sender")));
        return Err(ctx.err(
            &at.unwrap_or_else(|| p("tcp").k("sender")),
            "\"linux\" (the Linux 2.4 engine) cannot be combined with quick_start requests or hand-off responses (they run in the RFC sender; profile = \"linux\" is today's Linux)",
        ));
    }
    let linux_only = levels.iter().rev().find_map(|(t, at)| {
        t.and_then(|t| {
            if t.rate_halving.is_some() {
                Some(at.k("rate_halving"))
            } else if t.fack.is_some() {
                Some(at.k("fack"))
            } else {
                None
            }
        })
    });
    if let (tcplab_tcp::SenderModel::Rfc, Some(at)) = (c.sender, linux_only) {
        return Err(ctx.err(&at, "applies to the Linux sender only; set sender = \"linux\""));
    }
    if c.rto.min > c.rto.max {
        return Err(ctx.err(
            &which(&["min_rto", "max_rto"]),
            format!("min_rto ({}) is larger than max_rto ({})", c.rto.min, c.rto.max),
        ));
    }
    if c.rto.initial > c.rto.max {
        return Err(ctx.err(
            &which(&["initial_rto", "max_rto"]),
            format!("initial_rto ({}) is larger than max_rto ({})", c.rto.initial, c.rto.max),
        ));
    }
    Ok(c)
}

// ---------------------------------------------------------------------------------------------
// JSON Schema of the `[tcp]` values read by hand above. Names come from the engine's own lists
// (`ALL`), so a new estimator or profile appears in the schema without an edit here.

/// `{"enum": names}`, for a key whose value names one of the engine's variants.
fn names_schema(names: impl Iterator<Item = &'static str>) -> Schema {
    let names: Vec<&str> = names.collect();
    json_schema!({ "type": "string", "enum": names })
}
fn profile_names(_: &mut SchemaGenerator) -> Schema {
    names_schema(Profile::names())
}
fn estimator_names(_: &mut SchemaGenerator) -> Schema {
    names_schema(RtoEstimatorKind::ALL.iter().map(|k| k.name()))
}
fn sampling_names(_: &mut SchemaGenerator) -> Schema {
    names_schema(RttSampling::ALL.iter().map(|k| k.name()))
}
fn detection_names(_: &mut SchemaGenerator) -> Schema {
    names_schema(SpuriousDetection::ALL.iter().map(|k| k.name()))
}
fn response_names(_: &mut SchemaGenerator) -> Schema {
    names_schema(SpuriousResponse::ALL.iter().map(|k| k.name()))
}
fn sender_names(_: &mut SchemaGenerator) -> Schema {
    names_schema(tcplab_tcp::SenderModel::ALL.iter().map(|k| k.name()))
}
fn pto_names(_: &mut SchemaGenerator) -> Schema {
    names_schema(PtoRule::ALL.iter().map(|k| k.name()))
}
fn cc_names(_: &mut SchemaGenerator) -> Schema {
    names_schema(CongestionControl::ALL.iter().map(|k| k.name()))
}
fn hystart_names(_: &mut SchemaGenerator) -> Schema {
    names_schema(HystartMode::ALL.iter().map(|k| k.name()))
}
fn handshake_ack_names(_: &mut SchemaGenerator) -> Schema {
    names_schema(HandshakeAck::ALL.iter().map(|k| k.name()))
}
fn sharing_names(_: &mut SchemaGenerator) -> Schema {
    names_schema(tcplab_tcp::StateSharing::ALL.iter().map(|k| k.name()))
}

/// A duration schema without its docs name, for use inside a larger value.
fn duration(g: &mut SchemaGenerator) -> Schema {
    g.subschema_for::<Dur>()
}

impl JsonSchema for RawInitialWindow {
    fn schema_name() -> Cow<'static, str> {
        "initial_window".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "anyOf": [
                { "type": "integer", "minimum": 1 },
                { "enum": ["rfc3390", "rfc6928"] }
            ],
            "x-values": "integer ≥ 1 (segments), `\"rfc3390\"`, `\"rfc6928\"`",
        })
    }
}

impl JsonSchema for DelayedAck {
    fn schema_name() -> Cow<'static, str> {
        "delayed_ack".into()
    }
    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "anyOf": [duration(g), { "const": false }],
            "x-values": "duration, or `false`",
        })
    }
}

impl JsonSchema for RawDupack {
    fn schema_name() -> Cow<'static, str> {
        "dupack_threshold".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "anyOf": [{ "type": "integer", "minimum": 1 }, { "const": "adaptive" }],
            "x-values": "integer ≥ 1, or `\"adaptive\"`",
        })
    }
}

impl JsonSchema for RawRatio {
    fn schema_name() -> Cow<'static, str> {
        "ratio".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "anyOf": [
                { "type": "number", "minimum": 0 },
                { "type": "string", "pattern": r"^\s*[0-9]+\s*/\s*[0-9]+\s*$" },
                { "type": "string", "pattern": r"^\s*([0-9]+(\.[0-9]*)?|\.[0-9]+)\s*$" }
            ],
            "x-values": "number or `\"n/d\"`",
            "examples": [0.25, "1/4"],
        })
    }
}

impl JsonSchema for RawMeasurementClock {
    fn schema_name() -> Cow<'static, str> {
        "measurement_clock".into()
    }
    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "anyOf": [
                { "const": "fine" },
                duration(g),
                {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["tick"],
                    "properties": { "tick": duration(g), "phase": duration(g) }
                }
            ],
            "x-values": "`\"fine\"`, duration, or `{ tick = \"500ms\", phase = \"0ms\" }`",
        })
    }
}

impl JsonSchema for RawEventClock {
    fn schema_name() -> Cow<'static, str> {
        "event_clock".into()
    }
    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "anyOf": [
                { "const": "fine" },
                duration(g),
                {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["kind", "period"],
                    "properties": {
                        "kind": { "const": "periodic" },
                        "period": duration(g),
                        "phase": duration(g)
                    }
                },
                {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["kind", "granularity"],
                    "properties": { "kind": { "const": "oneshot" }, "granularity": duration(g) }
                },
                {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["kind"],
                    "properties": { "kind": { "const": "fine" } }
                }
            ],
            "x-values": "event clock (below)",
        })
    }
}

// ---------------------------------------------------------------------------------------------
// TcpConfig → `[tcp]` values: the inverse of `tcp_config`, used for the defaults in the schema
// and docs (`TcpConfig::default()`) and for `tcplab profiles`. A test loads every rendering
// back and requires the same `TcpConfig`, and requires a value for every `RawTcp` key but
// `profile`.

/// The `[tcp]` keys a named profile sets (`Profile::apply`), in `tcplab profiles` order. A
/// test fails when a profile changes a field no key here renders.
pub const PROFILE_KEYS: &[&str] = &[
    "rto_estimator",
    "rtt_clock",
    "timer_clock",
    "fast_timer",
    "initial_rto",
    "min_rto",
    "max_rto",
    "clock_granularity",
    "rto_gain_a",
    "rto_gain_b",
    "rto_m",
    "rto_k",
    "dupack_threshold",
    "rtt_sampling",
    "initial_window",
    "delayed_ack",
    "ssthresh_estimation",
    "pacing",
    "handshake_ack",
    // Profile::features (today's Linux; off in the other profiles).
    "cc",
    "hystart",
    "abc",
    "prr",
    "rack",
    "tlp",
    "tlp_pto",
    "spurious_detection",
    "spurious_response",
    "frto_require_full_ack",
    "quickack",
    "ack_ato",
    "sack_covers_fin",
    "linux_rcv_window",
    "cwnd_undo",
];

/// A byte count as a scenario file writes it.
fn bytes_value(b: u64) -> toml::Value {
    if b == u64::MAX {
        toml::Value::String(super::values::INF.to_string())
    } else {
        toml::Value::String(format!("{b}B"))
    }
}

fn duration_value(d: SimDuration) -> toml::Value {
    toml::Value::String(d.to_string())
}

/// An event clock always as a table (`{ kind = "fine" }` too), so that tools can read `kind`.
fn event_clock_value(c: EventClock) -> toml::Value {
    let mut t = toml::Table::new();
    match c {
        EventClock::Fine => {
            t.insert("kind".into(), "fine".into());
        }
        EventClock::Periodic { period, phase } => {
            t.insert("kind".into(), "periodic".into());
            t.insert("period".into(), duration_value(period));
            t.insert("phase".into(), duration_value(phase));
        }
        EventClock::OneShot { granularity } => {
            t.insert("kind".into(), "oneshot".into());
            t.insert("granularity".into(), duration_value(granularity));
        }
    }
    toml::Value::Table(t)
}

/// Every `[tcp]` key the loader accepts with `c.sender` (all but `profile`, and the Linux-only
/// `rate_halving`/`fack` or the RFC-only `tlp`) with the value that gives `c`, written as a
/// scenario file accepts it.
pub fn tcp_values(c: &TcpConfig) -> toml::Table {
    let mut t = toml::Table::new();
    let mut put = |k: &str, v: toml::Value| {
        t.insert(k.to_string(), v);
    };
    put("mss", toml::Value::String(format!("{}B", c.mss)));
    put(
        "initial_window",
        match c.initial_window {
            InitialWindow::Segments(n) => toml::Value::Integer(i64::from(n)),
            InitialWindow::Rfc3390 => "rfc3390".into(),
            InitialWindow::Rfc6928 => "rfc6928".into(),
        },
    );
    put("initial_ssthresh", bytes_value(c.initial_ssthresh));
    put("sack", c.sack.into());
    put("timestamps", c.timestamps.into());
    put("window_scale", c.window_scale.into());
    put("recv_buffer", bytes_value(c.recv_buffer));
    put("send_buffer", bytes_value(c.send_buffer));
    put("min_rto", duration_value(c.rto.min));
    put("initial_rto", duration_value(c.rto.initial));
    put("max_rto", duration_value(c.rto.max));
    put("clock_granularity", duration_value(c.rto.granularity));
    put("delayed_ack", c.ack.delayed_ack.map_or(false.into(), duration_value));
    put("ack_every", toml::Value::Integer(i64::from(c.ack.ack_every)));
    put(
        "dupack_threshold",
        match c.dupack_threshold {
            DupAckThreshold::Fixed(n) => toml::Value::Integer(i64::from(n)),
            DupAckThreshold::Adaptive => "adaptive".into(),
        },
    );
    put("limited_transmit", c.limited_transmit.into());
    put(
        "recovery",
        match c.recovery {
            RecoveryAlgorithm::Sack => "sack",
            RecoveryAlgorithm::NewReno => "newreno",
            RecoveryAlgorithm::Reno => "reno",
        }
        .into(),
    );
    put("rto_estimator", c.rto_estimator.name().into());
    put("rtt_sampling", c.rtt_sampling.name().into());
    let rc = c.timers.rtt_clock;
    put(
        "rtt_clock",
        if rc == MeasurementClock::FINE {
            "fine".into()
        } else if rc.phase == SimDuration::ZERO {
            duration_value(rc.tick)
        } else {
            let mut clock = toml::Table::new();
            clock.insert("tick".into(), duration_value(rc.tick));
            clock.insert("phase".into(), duration_value(rc.phase));
            toml::Value::Table(clock)
        },
    );
    put("timer_clock", event_clock_value(c.timers.slow));
    put("fast_timer", event_clock_value(c.timers.fast));
    put("rto_gain_a", c.rto.gain_a.to_string().into());
    put("rto_gain_b", c.rto.gain_b.to_string().into());
    put("rto_m", c.rto.m.to_string().into());
    put("rto_k", c.rto.k.to_string().into());
    put("spurious_detection", c.spurious.detection.name().into());
    put("spurious_response", c.spurious.response.name().into());
    put("frto_require_full_ack", c.spurious.frto_require_full_ack.into());
    put("ssthresh_estimation", c.startup.ssthresh_estimation.into());
    put("pacing", c.startup.pacing.into());
    put("sender", c.sender.name().into());
    put("quickack", c.ack.quickack.into());
    put("tlp_pto", c.tlp_pto.name().into());
    put("ack_ato", c.ack_ato.into());
    put("sack_covers_fin", c.sack_covers_fin.into());
    put("linux_rcv_window", c.linux_rcv_window.into());
    put("cwnd_undo", c.cwnd_undo.into());
    // The loader rejects these two outside the Linux sender, and TLP inside it.
    if c.sender == tcplab_tcp::SenderModel::Linux {
        put("rate_halving", c.linux_rate_halving.into());
        put("fack", c.linux_fack.into());
    } else {
        put("tlp", c.tlp.into());
        put("cc", c.cc.name().into());
        put("hystart", c.hystart.name().into());
        put("abc", c.abc.into());
        put("prr", c.prr.into());
        put("rack", c.rack.into());
    }
    put("handshake_ack", c.handshake_ack.name().into());
    put("ecn", c.ecn.into());
    put("sharing", c.sharing.name().into());
    t.insert("quick_start".to_string(), toml::Value::Table(super::quickstart::tcp_values(&c.quick_start)));
    t
}

/// A named profile as `[tcp]` values: the keys in [`PROFILE_KEYS`] of `TcpConfig::default()`
/// with the profile applied.
pub fn profile_values(profile: &Profile) -> toml::Table {
    let all = tcp_values(&profile.config());
    PROFILE_KEYS.iter().filter_map(|k| all.get(*k).map(|v| (k.to_string(), v.clone()))).collect()
}
