//! Named OS profiles: timer clocks, RTO estimator and parameters, dupACK threshold and RTT
//! sampling rule of a real stack, as data.
//!
//! | profile | source |
//! |---|---|
//! | `bsd-lite` | 4.4BSD-Lite as simulated by Aron & Druschel (000 §2–4; TCP/IP Illustrated Vol. 2) |
//! | `bsd-decoupled` | 000 §4.1's proposal on a BSD host: 1 ms measurement, 500 ms slow timer, eq. 2 |
//! | `bsd-prop-500ms`, `bsd-prop-10ms`, `bsd-prop-2ms` | 000 §5.2's prop-Lite: decoupled timers, RFC 3390 IW, ssthresh estimation and pacing, f_ev = 2 / 100 / 500 Hz |
//! | `linux-2.4` | 003 Table I (Linux column) + Linux 2.4 code via seed-002 spec §2.6 |
//! | `windows-xp` | 003 Table I (Windows column) |
//! | `freebsd-5` | 003 Table I (FreeBSD column; also MacOS) |
//! | `solaris-10` | 003 Table I (Solaris column) |
//! | `rfc6298` | RFC 6298 / RFC 5681 / RFC 3390 — `TcpConfig::default()`'s values |
//! | `linux` | today's Linux (5.x/6.x defaults): CUBIC with HyStart and byte counting, PRR, RACK-TLP with Linux's PTO, SACK-enhanced F-RTO, IW10 (RFC 6928), the mdev RTO on µs samples with 200 ms `rto_min`, 250 Hz timers, quick ACKs and the 40 ms delayed ACK, the receive window grown and autotuned from 64 KiB (`linux_rcv_window`), cwnd undo on D-SACK/timestamps (`cwnd_undo`) ([`SenderFeatures::TODAYS_LINUX`]) |
//!
//! A profile sets the fields listed in [`Profile`]; [`Profile::apply`] writes them into a
//! [`TcpConfig`] and leaves everything else (MSS, SACK, buffers, ...) alone. Scenario files
//! name a profile with `profile = "..."` and may override any field with its own key.
//!
//! Ambiguities resolved (values not given by the sources are marked "tcplab choice" in the
//! constants' docs):
//! - Table I gives no maximum RTO: RFC 6298's 60 s (Windows, Solaris), BSD's 64 s (FreeBSD),
//!   Linux's 120 s.
//! - Table I gives no initial window or delayed-ACK timeout: Linux 2.4 and FreeBSD 5 use the
//!   RFC 3390 rule (Linux `tcp_init_cwnd`); for Windows XP and Solaris 10 tcplab uses RFC 3390
//!   too (tcplab choice); every profile keeps the 200 ms delayed ACK.
//! - "Timer granularity" of Table I is used three ways: as RFC 6298's G, as the tick of the
//!   measurement clock (samples count ticks) and as a one-shot event clock (timers fire on
//!   multiples of it).
//! - The client's ACK of the SYN-ACK (`handshake_ack`): `linux-2.4` and `linux` send it at once
//!   (`tcp_rcv_synsent_state_process` -> `tcp_send_ack`, [`LINUX_HANDSHAKE_ACK`]); the BSD
//!   profiles and `freebsd-5` let it ride on the first data segment ([`BSD_HANDSHAKE_ACK`]);
//!   `windows-xp` and `solaris-10` piggyback too (tcplab choice: Table I and the seeds are
//!   silent and no source was checked); `rfc6298` piggybacks (RFC 9293 allows either, and it
//!   must equal `TcpConfig::default()`).
//! - The sender features of issue 10 ([`SenderFeatures`]: congestion controller, HyStart, byte
//!   counting, PRR, RACK, TLP and its PTO rule, F-RTO) are part of a profile: every profile but
//!   `linux` has them off, which is `TcpConfig::default()`'s setting, so applying such a profile
//!   also switches them off (a table's own keys are applied after its profile).
//! - `linux`'s delayed ACK is Linux's adaptive `ato` (`ack_ato`, `receiver::ack_policy`); its
//!   fixed `delayed_ack` fallback is 40 ms, where `ato` starts (`TCP_ATO_MIN`, HZ/25) and where
//!   a bulk receiver's stays.
//! - `linux`'s RTT samples are counted in microseconds (Linux `tcp_mstamp`), its timers fire on
//!   4 ms jiffies (`CONFIG_HZ_250`); the RTO is `tcp_set_rto`'s srtt + rttvar with rttvar ≥
//!   `rto_min` (the `rtt::linux` estimator, unchanged since 2.4 apart from the units), and
//!   `rto_min` is the per-route value of the scenario's `min_rto` key (`tcp_rto_min`).
//! - Linux 2.4 samples every ACK ("once per segment"); Windows, FreeBSD and Solaris once per
//!   flight (003 §V-A: "Linux ... (once per segment) than most other OSes (once per
//!   flight)").

pub mod syn_layout;
pub use syn_layout::{p0f_option_name, SynOption, SynOptionLayout};

use crate::clock::{EventClock, MeasurementClock, BSD_FAST_TICK, BSD_SLOW_TICK};
use crate::cc::hystart::HystartMode;
use crate::loss::tlp::PtoRule;
use crate::config::{
    CongestionControl, SpuriousConfig, SpuriousDetection, SpuriousResponse, DupAckThreshold, HandshakeAck, InitialWindow, Ratio, StartupConfig, RtoConfig, RtoEstimatorKind, RttSampling, TcpConfig, TimerConfig,
    DEFAULT_DELAYED_ACK_TIMEOUT, DUPACK_THRESHOLD, RFC6298_GAIN_A, RFC6298_GAIN_B,
    RFC6298_K, RFC6298_M,
};
use crate::rtt::{decoupled, freebsd, linux, solaris, windows};
use tcplab_time::SimDuration;

/// 4.4BSD-Lite initial `t_rxtcur`: ((TCPTV_SRTTBASE >> 2) + (TCPTV_SRTTDFLT << 2)) >> 1 =
/// 12 slow ticks = 6 s (`tcp_newtcpcb`).
pub const BSD_INITIAL_RTO: SimDuration = SimDuration::from_secs(6);
/// 4.4BSD-Lite `TCPTV_MIN`: 2 slow ticks = 1 s.
pub const BSD_MIN_RTO: SimDuration = SimDuration::from_secs(1);
/// 4.4BSD-Lite `TCPTV_REXMTMAX`: 64 s.
pub const BSD_MAX_RTO: SimDuration = SimDuration::from_secs(64);
/// 4.4BSD-Lite `tcprexmtthresh` = 3.
pub const BSD_DUPACK_THRESHOLD: u32 = 3;
/// 000 §2: "TCP enters the slow-start state with an initial congestion window of 1 segment".
pub const BSD_INITIAL_WINDOW_SEGMENTS: u32 = 1;
/// 000 §5: "the granularity of the clock used for time measurement is 1ms (i.e. f_rtt is
/// 1000Hz)".
pub const ARON98_F_RTT_TICK: SimDuration = SimDuration::from_millis(1);
/// Modern Linux (since 3.1, RFC 6298): `TCP_TIMEOUT_INIT` = 1 s.
pub const MODERN_LINUX_INITIAL_RTO: SimDuration = SimDuration::from_secs(1);
/// The initial IP TTL of a Windows host (p0f v3 `p0f.fp`, every `Windows` signature's
/// `ittl` field: 128; Windows' `DefaultTTL` registry default).
pub const WINDOWS_INITIAL_TTL: u8 = 128;
/// The initial IP TTL of the Unix stacks (p0f v3 `p0f.fp`, the Linux, FreeBSD, MacOS and
/// Solaris 10 signatures' `ittl`: 64; 4.4BSD `IPDEFTTL` = 64, Linux `sysctl_ip_default_ttl`
/// = `IPDEFTTL` = 64). Also the engine default's (RFC 1700's recommended 64).
pub const UNIX_INITIAL_TTL: u8 = 64;

/// The initial IP TTL a host running this configuration's stack sends with (the simulator's
/// IP header; the analyzer's p0f-style hint reads it back, `tcplab-analyze` `infer::hints`).
/// The Windows RTO estimator is the Windows profile's (003 Table I), so it stands for the
/// host's OS here; every other estimator is a Unix stack's or the RFC's.
pub const fn initial_ttl(cfg: &TcpConfig) -> u8 {
    match cfg.rto_estimator {
        RtoEstimatorKind::Windows => WINDOWS_INITIAL_TTL,
        _ => UNIX_INITIAL_TTL,
    }
}

/// Today's Linux: timers on jiffies of `CONFIG_HZ_250` (the distributions' default), 4 ms.
pub const MODERN_LINUX_TICK: SimDuration = crate::cc::cubic::CUBIC_JIFFY;
/// Today's Linux measures RTT in microseconds (`tcp_mstamp`, `tcp_stamp_us_delta`).
pub const MODERN_LINUX_RTT_TICK: SimDuration = SimDuration::from_micros(1);
/// Linux `TCP_ATO_MIN` = `TCP_DELACK_MIN` = HZ/25 = 40 ms: the delayed-ACK timeout of a bulk
/// receiver (module docs).
pub const MODERN_LINUX_DELACK: SimDuration = SimDuration::from_millis(40);

/// The sender features added for today's Linux (issue 10 part 2), as a profile sets them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SenderFeatures {
    pub cc: CongestionControl,
    pub hystart: HystartMode,
    pub abc: bool,
    pub prr: bool,
    pub rack: bool,
    pub tlp: bool,
    pub tlp_pto: PtoRule,
    pub spurious: SpuriousConfig,
    pub quickack: bool,
    /// Linux's adaptive delayed-ACK timeout and quick ACKs after idle (`TcpConfig::ack_ato`).
    pub ack_ato: bool,
    /// Linux's receiver SACKs an out-of-order FIN's sequence number (`TcpConfig::sack_covers_fin`).
    pub sack_covers_fin: bool,
    /// Linux's receive window: 64 KiB at first, grown and autotuned (`TcpConfig::linux_rcv_window`).
    pub linux_rcv_window: bool,
    /// Linux's cwnd undo in fast recovery on D-SACK / timestamps (`TcpConfig::cwnd_undo`).
    pub cwnd_undo: bool,
}

impl SenderFeatures {
    /// All off: `TcpConfig::default()`'s values (Reno, RFC 5681 slow start, RFC 6675 recovery
    /// window, RFC 6675 IsLost, no TLP, no spurious-timeout detection, no quick ACKs).
    pub const OFF: SenderFeatures = SenderFeatures {
        cc: CongestionControl::Reno,
        hystart: HystartMode::Off,
        abc: false,
        prr: false,
        rack: false,
        tlp: false,
        tlp_pto: PtoRule::Rfc8985,
        spurious: SpuriousConfig {
            detection: SpuriousDetection::None,
            response: SpuriousResponse::Conventional,
            frto_require_full_ack: false,
        },
        quickack: false,
        ack_ato: false,
        sack_covers_fin: false,
        linux_rcv_window: false,
        cwnd_undo: false,
    };
    /// Linux 5.x/6.x defaults: `net.ipv4.tcp_congestion_control = cubic` (HyStart on,
    /// `tcp_cubic.c` `hystart = 1`), byte counting (`tcp_slow_start`), PRR
    /// (`tcp_cwnd_reduction`), `tcp_recovery = 1` (RACK) with `tcp_early_retrans = 3` (TLP,
    /// `tcp_schedule_loss_probe`), `tcp_frto = 2` (SACK-enhanced F-RTO) whose undo restores
    /// cwnd and ssthresh (`tcp_try_undo_loss` → `tcp_undo_cwnd_reduction`, tcplab's CC 2
    /// response), quick ACKs at connection start (`tcp_incr_quickack`), the receive window of
    /// `tcp_select_initial_window` / `tcp_grow_window` / `tcp_rcv_space_adjust`, and the undo of
    /// fast recovery (`tcp_try_undo_dsack`, `tcp_try_undo_recovery`).
    pub const TODAYS_LINUX: SenderFeatures = SenderFeatures {
        cc: CongestionControl::Cubic,
        hystart: HystartMode::Linux,
        abc: true,
        prr: true,
        rack: true,
        tlp: true,
        tlp_pto: PtoRule::Linux,
        spurious: SpuriousConfig {
            detection: SpuriousDetection::FrtoSack,
            response: SpuriousResponse::Cc2,
            frto_require_full_ack: false,
        },
        quickack: true,
        ack_ato: true,
        sack_covers_fin: true,
        linux_rcv_window: true,
        cwnd_undo: true,
    };

    fn apply(&self, cfg: &mut TcpConfig) {
        cfg.cc = self.cc;
        cfg.hystart = self.hystart;
        cfg.abc = self.abc;
        cfg.prr = self.prr;
        cfg.rack = self.rack;
        cfg.tlp = self.tlp;
        cfg.tlp_pto = self.tlp_pto;
        cfg.spurious = self.spurious;
        cfg.ack.quickack = self.quickack;
        cfg.ack_ato = self.ack_ato;
        cfg.sack_covers_fin = self.sack_covers_fin;
        cfg.linux_rcv_window = self.linux_rcv_window;
        cfg.cwnd_undo = self.cwnd_undo;
    }
}

/// 4.4BSD-Lite `tcp_input`, `case TCPS_SYN_SENT`: on an acceptable SYN-ACK it sets
/// `tp->t_flags |= TF_ACKNOW` and enters ESTABLISHED; the one `tcp_output` at the end of
/// `tcp_input` sends queued data with the ACK on it. FreeBSD keeps this (`tcp_input`,
/// `TCPS_SYN_SENT`: `TF_DELACK` when the SYN-ACK carries data, else `TF_ACKNOW`, then one
/// `tcp_output`), so the BSD profiles and `freebsd-5` piggyback. RFC 9293 §3.10.7.3 allows it:
/// "Data or controls that were queued for transmission MAY be included."
pub const BSD_HANDSHAKE_ACK: HandshakeAck = HandshakeAck::Piggyback;
/// Linux `tcp_rcv_synsent_state_process` (net/ipv4/tcp_input.c), 2.4.27 (v1.241.2.1 2002/02/13):
/// `if (tp->write_pending || tp->defer_accept || tp->ack.pingpong) { /* Save one ACK. Data
/// will be ready after several ticks, if write_pending is set. */ ... delayed ACK ... } else {
/// tcp_send_ack(sk); }`. 2.4.0 tests `write_pending || defer_accept` only; current kernels
/// `sk->sk_write_pending || rskq_defer_accept || inet_csk_in_pingpong_mode(sk)`, same shape.
/// The queued data follows in its own segments (`tcp_data_snd_check` in
/// `tcp_rcv_state_process`). None of the three holds for an application
/// that calls `connect()` and then writes (pingpong starts at 0; `write_pending` counts writers
/// blocked in `sendmsg` waiting for the connection), so the ACK is sent at once.
pub const LINUX_HANDSHAKE_ACK: HandshakeAck = HandshakeAck::Immediate;

/// 000 §5.2: "the granularity of the scheduling clock is 10ms (i.e. f_ev is 100Hz)".
pub const ARON98_F_EV_10MS: SimDuration = SimDuration::from_millis(10);
/// 000 §5.2.2: "Pacing with a 2ms clock".
pub const ARON98_F_EV_2MS: SimDuration = SimDuration::from_millis(2);

/// Aron & Druschel's "prop-Lite" (000 §5.2): TCP Lite with the decoupled RTO estimator (1 ms
/// f_rtt, eq. 2 onto an f_ev clock of period `f_ev`), ssthresh estimation and pacing, and
/// 000 §4.2.1's initial window ("For a fair comparison, all simulations used an initial
/// congestion window as defined in Section 4.2.1"). The f_ev clock is periodic (a BSD-style
/// software interrupt ticking every `f_ev`, phase 0) and drives the retransmission, persist
/// and pacing timers; delayed ACKs stay on BSD's 200 ms fast timer (the receivers are TCP
/// Lite). `min_rto` is eq. 2's two ticks on the 500 ms clock (1 s) and the paper's 200 ms
/// floor on finer clocks (the decoupled estimator adds srtt: "200ms + rtt").
const fn prop_lite(name: &'static str, f_ev: SimDuration, min_rto: SimDuration, description: &'static str) -> Profile {
    Profile {
        name,
        description,
        estimator: RtoEstimatorKind::Decoupled,
        timers: TimerConfig {
            rtt_clock: MeasurementClock::every(ARON98_F_RTT_TICK),
            slow: EventClock::Periodic { period: f_ev, phase: SimDuration::ZERO },
            fast: EventClock::Periodic { period: BSD_FAST_TICK, phase: SimDuration::ZERO },
        },
        rto: RtoConfig { min: min_rto, granularity: f_ev, ..BSD_RTO },
        dupack_threshold: DupAckThreshold::Fixed(BSD_DUPACK_THRESHOLD),
        sampling: RttSampling::Auto,
        initial_window: InitialWindow::Rfc3390,
        delayed_ack: Some(BSD_FAST_TICK),
        startup: StartupConfig::ARON98,
        handshake_ack: BSD_HANDSHAKE_ACK,
        features: SenderFeatures::OFF,
    }
}

/// A named OS profile.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Profile {
    pub name: &'static str,
    /// One line: what stack and where the values come from.
    pub description: &'static str,
    pub estimator: RtoEstimatorKind,
    /// f_rtt, f_ev of the slow and fast timers.
    pub timers: TimerConfig,
    /// Initial / min / max RTO, G, a, b, m, k.
    pub rto: RtoConfig,
    pub dupack_threshold: DupAckThreshold,
    pub sampling: RttSampling,
    pub initial_window: InitialWindow,
    pub delayed_ack: Option<SimDuration>,
    /// 000 §4.2 ssthresh estimation and pacing.
    pub startup: StartupConfig,
    /// The client's ACK of the SYN-ACK: on the first data segment (BSD) or at once (Linux).
    pub handshake_ack: HandshakeAck,
    /// Today's Linux sender features ([`SenderFeatures::OFF`] except for `linux`).
    pub features: SenderFeatures,
}

const fn one_shot(g: SimDuration) -> EventClock {
    EventClock::OneShot { granularity: g }
}

const fn os_timers(g: SimDuration) -> TimerConfig {
    TimerConfig { rtt_clock: MeasurementClock::every(g), slow: one_shot(g), fast: one_shot(g) }
}

/// The BSD host's clocks: 500 ms slow timer, 200 ms fast timer, both at phase 0.
pub const BSD_TIMERS: TimerConfig = TimerConfig {
    rtt_clock: MeasurementClock::every(BSD_SLOW_TICK),
    slow: EventClock::Periodic { period: BSD_SLOW_TICK, phase: SimDuration::ZERO },
    fast: EventClock::Periodic { period: BSD_FAST_TICK, phase: SimDuration::ZERO },
};

const BSD_RTO: RtoConfig = RtoConfig {
    initial: BSD_INITIAL_RTO,
    min: BSD_MIN_RTO,
    max: BSD_MAX_RTO,
    granularity: BSD_SLOW_TICK,
    gain_a: RFC6298_GAIN_A,
    gain_b: RFC6298_GAIN_B,
    m: RFC6298_M,
    k: RFC6298_K,
};

const RFC_RTO: RtoConfig = RtoConfig::RFC6298;

const LINUX_2_4_RTO: RtoConfig = RtoConfig {
    initial: linux::TCP_TIMEOUT_INIT,
    min: linux::TCP_RTO_MIN,
    max: linux::TCP_RTO_MAX,
    granularity: linux::JIFFY_2_4,
    gain_a: RFC6298_GAIN_A,
    gain_b: RFC6298_GAIN_B,
    m: RFC6298_M,
    k: RFC6298_K,
};

impl Profile {
    pub const BSD_LITE: Profile = Profile {
        name: "bsd-lite",
        description: "4.4BSD-Lite (TCP Lite) as in Aron & Druschel 1998: 500 ms slow / 200 ms fast timers, tcp_xmit_timer in ticks",
        estimator: RtoEstimatorKind::BsdLite,
        timers: BSD_TIMERS,
        rto: BSD_RTO,
        dupack_threshold: DupAckThreshold::Fixed(BSD_DUPACK_THRESHOLD),
        sampling: RttSampling::Auto,
        initial_window: InitialWindow::Segments(BSD_INITIAL_WINDOW_SEGMENTS),
        delayed_ack: Some(BSD_FAST_TICK),
        startup: StartupConfig::OFF,
        handshake_ack: BSD_HANDSHAKE_ACK,
        features: SenderFeatures::OFF,
    };
    pub const BSD_DECOUPLED: Profile = Profile {
        name: "bsd-decoupled",
        description: "Aron & Druschel 1998 §4.1 on a BSD host: 1 ms RTT clock, eq. 2 onto the 500 ms slow timer",
        estimator: RtoEstimatorKind::Decoupled,
        timers: TimerConfig { rtt_clock: MeasurementClock::every(ARON98_F_RTT_TICK), ..BSD_TIMERS },
        rto: BSD_RTO,
        dupack_threshold: DupAckThreshold::Fixed(BSD_DUPACK_THRESHOLD),
        sampling: RttSampling::Auto,
        initial_window: InitialWindow::Segments(BSD_INITIAL_WINDOW_SEGMENTS),
        delayed_ack: Some(BSD_FAST_TICK),
        startup: StartupConfig::OFF,
        handshake_ack: BSD_HANDSHAKE_ACK,
        features: SenderFeatures::OFF,
    };
    pub const LINUX_2_4: Profile = Profile {
        name: "linux-2.4",
        description: "Linux 2.4 (003 Table I): mdev estimator, 10 ms jiffies, 200 ms minimum, per-segment samples",
        estimator: RtoEstimatorKind::Linux,
        timers: os_timers(linux::JIFFY_2_4),
        rto: LINUX_2_4_RTO,
        dupack_threshold: DupAckThreshold::Fixed(DUPACK_THRESHOLD),
        sampling: RttSampling::PerAck,
        initial_window: InitialWindow::Rfc3390,
        delayed_ack: Some(DEFAULT_DELAYED_ACK_TIMEOUT),
        startup: StartupConfig::OFF,
        handshake_ack: LINUX_HANDSHAKE_ACK,
        features: SenderFeatures::OFF,
    };
    pub const WINDOWS_XP: Profile = Profile {
        name: "windows-xp",
        description: "Windows XP/2000 (003 Table I): RFC 6298 form, 100 ms granularity, D = 2, per-flight samples",
        estimator: RtoEstimatorKind::Windows,
        timers: os_timers(windows::WINDOWS_GRANULARITY),
        rto: windows::table_i(),
        dupack_threshold: DupAckThreshold::Fixed(windows::WINDOWS_DUPACK_THRESHOLD),
        sampling: RttSampling::PerFlight,
        initial_window: InitialWindow::Rfc3390,
        delayed_ack: Some(DEFAULT_DELAYED_ACK_TIMEOUT),
        startup: StartupConfig::OFF,
        handshake_ack: HandshakeAck::Piggyback,
        features: SenderFeatures::OFF,
    };
    pub const FREEBSD_5: Profile = Profile {
        name: "freebsd-5",
        description: "FreeBSD 5.2 / MacOS (003 Table I): RFC 6298 form, 10 ms granularity, 1200 ms minimum",
        estimator: RtoEstimatorKind::FreeBsd,
        timers: os_timers(freebsd::FREEBSD_GRANULARITY),
        rto: freebsd::table_i(),
        dupack_threshold: DupAckThreshold::Fixed(freebsd::FREEBSD_DUPACK_THRESHOLD),
        sampling: RttSampling::PerFlight,
        initial_window: InitialWindow::Rfc3390,
        delayed_ack: Some(DEFAULT_DELAYED_ACK_TIMEOUT),
        startup: StartupConfig::OFF,
        handshake_ack: BSD_HANDSHAKE_ACK,
        features: SenderFeatures::OFF,
    };
    pub const SOLARIS_10: Profile = Profile {
        name: "solaris-10",
        description: "Solaris 10 (003 Table I): RTO = 1.25 srtt + 4 rttvar, 400 ms minimum, initial 3.375 s",
        estimator: RtoEstimatorKind::Solaris,
        timers: os_timers(solaris::SOLARIS_GRANULARITY),
        rto: solaris::table_i(),
        dupack_threshold: DupAckThreshold::Fixed(solaris::SOLARIS_DUPACK_THRESHOLD),
        sampling: RttSampling::PerFlight,
        initial_window: InitialWindow::Rfc3390,
        delayed_ack: Some(DEFAULT_DELAYED_ACK_TIMEOUT),
        startup: StartupConfig::OFF,
        handshake_ack: HandshakeAck::Piggyback,
        features: SenderFeatures::OFF,
    };
    pub const RFC6298: Profile = Profile {
        name: "rfc6298",
        description: "The standards (RFC 6298, RFC 5681, RFC 3390) with exact clocks: TcpConfig::default()",
        estimator: RtoEstimatorKind::Rfc6298,
        timers: TimerConfig {
            rtt_clock: MeasurementClock::FINE,
            slow: EventClock::Fine,
            fast: EventClock::Fine,
        },
        rto: RFC_RTO,
        dupack_threshold: DupAckThreshold::Fixed(DUPACK_THRESHOLD),
        sampling: RttSampling::Auto,
        initial_window: InitialWindow::Rfc3390,
        delayed_ack: Some(DEFAULT_DELAYED_ACK_TIMEOUT),
        startup: StartupConfig::OFF,
        handshake_ack: HandshakeAck::Piggyback,
        features: SenderFeatures::OFF,
    };
    pub const LINUX: Profile = Profile {
        name: "linux",
        description: "Today's Linux: CUBIC + HyStart, byte counting, PRR, RACK-TLP, F-RTO, IW10, mdev RTO on µs samples (200 ms rto_min), 250 Hz timers, quick ACKs, 40 ms delayed ACK",
        estimator: RtoEstimatorKind::Linux,
        timers: TimerConfig {
            rtt_clock: MeasurementClock::every(MODERN_LINUX_RTT_TICK),
            slow: one_shot(MODERN_LINUX_TICK),
            fast: one_shot(MODERN_LINUX_TICK),
        },
        rto: RtoConfig {
            initial: MODERN_LINUX_INITIAL_RTO,
            min: linux::TCP_RTO_MIN,
            max: linux::TCP_RTO_MAX,
            granularity: MODERN_LINUX_TICK,
            ..LINUX_2_4_RTO
        },
        dupack_threshold: DupAckThreshold::Fixed(DUPACK_THRESHOLD),
        sampling: RttSampling::PerAck,
        initial_window: InitialWindow::Rfc6928,
        delayed_ack: Some(MODERN_LINUX_DELACK),
        startup: StartupConfig::OFF,
        handshake_ack: LINUX_HANDSHAKE_ACK,
        features: SenderFeatures::TODAYS_LINUX,
    };

    /// 000 §5.2 "prop-Lite-500ms": TCP Lite "enhanced with ssthresh estimation as well as the
    /// proposed timer framework" with f_ev = 2 Hz.
    pub const BSD_PROP_500MS: Profile = prop_lite("bsd-prop-500ms", BSD_SLOW_TICK, BSD_MIN_RTO,
        "Aron & Druschel 1998 prop-Lite-500ms: bsd-decoupled timers, RFC 3390 initial window, ssthresh estimation and pacing on the 500 ms slow timer");
    /// 000 §5.2 "prop-Lite-10ms": the same with f_ev = 100 Hz.
    pub const BSD_PROP_10MS: Profile = prop_lite("bsd-prop-10ms", ARON98_F_EV_10MS, decoupled::DELAYED_ACK_ALLOWANCE,
        "Aron & Druschel 1998 prop-Lite-10ms: decoupled RTO on a 10 ms event clock (200 ms + srtt floor), ssthresh estimation, pacing every >= 10 ms");
    /// 000 §5.2.2 "prop-Lite-2ms": the same with f_ev = 500 Hz.
    pub const BSD_PROP_2MS: Profile = prop_lite("bsd-prop-2ms", ARON98_F_EV_2MS, decoupled::DELAYED_ACK_ALLOWANCE,
        "Aron & Druschel 1998 prop-Lite-2ms: decoupled RTO on a 2 ms event clock (200 ms + srtt floor), ssthresh estimation, pacing every >= 2 ms");

    /// Every profile, in the order `tcplab profiles` lists them.
    pub const ALL: [Profile; 11] = [
        Profile::BSD_LITE,
        Profile::BSD_DECOUPLED,
        Profile::BSD_PROP_500MS,
        Profile::BSD_PROP_10MS,
        Profile::BSD_PROP_2MS,
        Profile::LINUX_2_4,
        Profile::WINDOWS_XP,
        Profile::FREEBSD_5,
        Profile::SOLARIS_10,
        Profile::RFC6298,
        Profile::LINUX,
    ];

    pub fn by_name(name: &str) -> Option<Profile> {
        Profile::ALL.into_iter().find(|p| p.name == name)
    }

    /// The profile names, for messages.
    pub fn names() -> impl Iterator<Item = &'static str> {
        Profile::ALL.into_iter().map(|p| p.name)
    }

    /// Writes the profile's fields into `cfg`.
    pub fn apply(&self, cfg: &mut TcpConfig) {
        cfg.rto_estimator = self.estimator;
        cfg.timers = self.timers;
        cfg.rto = self.rto;
        cfg.dupack_threshold = self.dupack_threshold;
        cfg.rtt_sampling = self.sampling;
        cfg.initial_window = self.initial_window;
        cfg.ack.delayed_ack = self.delayed_ack;
        cfg.startup = self.startup;
        cfg.handshake_ack = self.handshake_ack;
        self.features.apply(cfg);
    }

    /// `TcpConfig::default()` with this profile applied.
    pub fn config(&self) -> TcpConfig {
        let mut c = TcpConfig::default();
        self.apply(&mut c);
        c
    }

    /// The profile as (field, value) text pairs, in a fixed order (for `tcplab profiles`).
    pub fn fields(&self) -> Vec<(&'static str, String)> {
        let iw = match self.initial_window {
            InitialWindow::Segments(n) => n.to_string(),
            InitialWindow::Rfc3390 => "rfc3390".to_string(),
            InitialWindow::Rfc6928 => "rfc6928".to_string(),
        };
        vec![
            ("name", self.name.to_string()),
            ("rto_estimator", self.estimator.name().to_string()),
            ("rtt_clock", self.timers.rtt_clock.tick.to_string()),
            ("timer_clock", event_clock_text(self.timers.slow)),
            ("fast_timer", event_clock_text(self.timers.fast)),
            ("initial_rto", self.rto.initial.to_string()),
            ("min_rto", self.rto.min.to_string()),
            ("max_rto", self.rto.max.to_string()),
            ("clock_granularity", self.rto.granularity.to_string()),
            ("rto_gain_a", self.rto.gain_a.to_string()),
            ("rto_gain_b", self.rto.gain_b.to_string()),
            ("rto_m", self.rto.m.to_string()),
            ("rto_k", self.rto.k.to_string()),
            ("dupack_threshold", dupack_text(self.dupack_threshold)),
            ("rtt_sampling", self.sampling.name().to_string()),
            ("initial_window", iw),
            ("delayed_ack", self.delayed_ack.map_or("false".to_string(), |d| d.to_string())),
            ("ssthresh_estimation", self.startup.ssthresh_estimation.to_string()),
            ("pacing", self.startup.pacing.to_string()),
            ("handshake_ack", self.handshake_ack.name().to_string()),
            ("cc", self.features.cc.name().to_string()),
            ("hystart", self.features.hystart.name().to_string()),
            ("abc", self.features.abc.to_string()),
            ("prr", self.features.prr.to_string()),
            ("rack", self.features.rack.to_string()),
            ("tlp", self.features.tlp.to_string()),
            ("tlp_pto", self.features.tlp_pto.name().to_string()),
            ("spurious_detection", self.features.spurious.detection.name().to_string()),
            ("spurious_response", self.features.spurious.response.name().to_string()),
            ("quickack", self.features.quickack.to_string()),
            ("ack_ato", self.features.ack_ato.to_string()),
            ("sack_covers_fin", self.features.sack_covers_fin.to_string()),
            ("linux_rcv_window", self.features.linux_rcv_window.to_string()),
            ("cwnd_undo", self.features.cwnd_undo.to_string()),
            ("description", self.description.to_string()),
        ]
    }
}

/// `"fine"`, `"oneshot 10ms"` or `"periodic 500ms phase 0ns"`.
pub fn event_clock_text(c: EventClock) -> String {
    match c {
        EventClock::Fine => "fine".to_string(),
        EventClock::OneShot { granularity } => format!("oneshot {granularity}"),
        EventClock::Periodic { period, phase } => format!("periodic {period} phase {phase}"),
    }
}

/// `"3"` or `"adaptive"`.
pub fn dupack_text(d: DupAckThreshold) -> String {
    match d {
        DupAckThreshold::Fixed(n) => n.to_string(),
        DupAckThreshold::Adaptive => "adaptive".to_string(),
    }
}

/// A ratio as a float, for tables.
pub fn ratio_f64(r: Ratio) -> f64 {
    r.as_f64()
}

#[cfg(test)]
mod tests {
    use super::*;

    // 003 Table I, column by column: granularity, initial RTO, minRTO, a, b, m, k, D.
    #[test]
    fn the_os_profiles_carry_the_values_of_table_i() {
        type Frac = (u32, u32);
        type Row = (&'static str, u64, u64, u64, Frac, Frac, Frac, Frac, u32);
        let rows: [Row; 4] = [
            ("linux-2.4", 10, 3000, 200, (1, 4), (1, 8), (1, 1), (4, 1), 3),
            ("windows-xp", 100, 3000, 200, (1, 4), (1, 8), (1, 1), (4, 1), 2),
            ("freebsd-5", 10, 3000, 1200, (1, 4), (1, 8), (1, 1), (4, 1), 3),
            ("solaris-10", 10, 3375, 400, (1, 4), (1, 8), (5, 4), (4, 1), 3),
        ];
        for (name, g, init, min, a, b, m, k, d) in rows {
            let p = Profile::by_name(name).unwrap_or(Profile::RFC6298);
            assert_eq!(p.name, name);
            let ms = SimDuration::from_millis;
            assert_eq!(p.rto.granularity, ms(g), "{name} granularity");
            assert_eq!(p.timers.rtt_clock.tick, ms(g), "{name} rtt clock");
            assert_eq!(p.timers.slow.granularity(), ms(g), "{name} event clock");
            assert_eq!(p.rto.initial, ms(init), "{name} initial RTO");
            assert_eq!(p.rto.min, ms(min), "{name} minRTO");
            assert_eq!(p.rto.gain_a, Ratio::new(a.0, a.1), "{name} a");
            assert_eq!(p.rto.gain_b, Ratio::new(b.0, b.1), "{name} b");
            assert_eq!(p.rto.m, Ratio::new(m.0, m.1), "{name} m");
            assert_eq!(p.rto.k, Ratio::new(k.0, k.1), "{name} k");
            assert_eq!(p.dupack_threshold, DupAckThreshold::Fixed(d), "{name} D");
        }
        assert_eq!(Profile::LINUX_2_4.sampling, RttSampling::PerAck);
        assert_eq!(Profile::WINDOWS_XP.sampling, RttSampling::PerFlight);
    }

    #[test]
    fn the_rfc6298_profile_is_the_default_configuration() {
        assert_eq!(Profile::RFC6298.config(), TcpConfig::default());
    }

    #[test]
    fn the_modern_linux_profile_has_iw10_and_a_200ms_minimum() {
        let p = Profile::by_name("linux").unwrap_or(Profile::RFC6298);
        assert_eq!(p.initial_window, InitialWindow::Rfc6928);
        assert_eq!(p.rto.min, SimDuration::from_millis(200));
    }

    // Today's Linux: every sender feature of issue 10 on, on 250 Hz jiffies with µs RTT samples;
    // every other profile leaves them at TcpConfig::default()'s values.
    #[test]
    fn the_linux_profile_is_todays_linux_and_the_others_switch_its_features_off() {
        let c = Profile::LINUX.config();
        assert_eq!(c.cc, CongestionControl::Cubic);
        assert_eq!(c.hystart, HystartMode::Linux);
        assert!(c.abc && c.prr && c.rack && c.tlp && c.ack.quickack && c.ack_ato);
        assert_eq!(c.tlp_pto, PtoRule::Linux);
        assert_eq!(c.spurious.detection, SpuriousDetection::FrtoSack);
        assert_eq!(c.timers.slow.granularity(), SimDuration::from_millis(4));
        assert_eq!(c.timers.rtt_clock.tick, SimDuration::from_micros(1));
        assert_eq!(c.ack.delayed_ack, Some(SimDuration::from_millis(40)));
        let d = TcpConfig::default();
        for p in Profile::ALL.iter().filter(|p| p.name != "linux") {
            let c = p.config();
            assert_eq!((c.cc, c.hystart, c.abc, c.prr, c.rack, c.tlp, c.tlp_pto), (d.cc, d.hystart, d.abc, d.prr, d.rack, d.tlp, d.tlp_pto), "{}", p.name);
            assert_eq!((c.spurious, c.ack.quickack, c.ack_ato), (d.spurious, d.ack.quickack, d.ack_ato), "{}", p.name);
        }
        let mut c = TcpConfig { tlp: true, rack: true, ..TcpConfig::default() };
        Profile::LINUX_2_4.apply(&mut c);
        assert!(!c.tlp && !c.rack, "a profile sets all its fields");
    }

    #[test]
    fn the_bsd_lite_profile_uses_bsds_slow_and_fast_timers() {
        let p = Profile::BSD_LITE;
        assert_eq!(p.timers.slow, EventClock::bsd_slow(SimDuration::ZERO));
        assert_eq!(p.timers.fast, EventClock::bsd_fast(SimDuration::ZERO));
        assert_eq!(p.rto.initial, SimDuration::from_secs(6));
        assert_eq!(p.rto.min, SimDuration::from_secs(1));
    }

    // 000 §5.2: prop-Lite = decoupled timers + ssthresh estimation + pacing, IW of §4.2.1, at
    // f_ev 2 / 100 / 500 Hz; every other profile leaves the startup mechanisms off.
    #[test]
    fn the_prop_lite_profiles_switch_on_estimation_and_pacing_at_their_event_clock() {
        for (p, tick) in [(Profile::BSD_PROP_500MS, 500), (Profile::BSD_PROP_10MS, 10), (Profile::BSD_PROP_2MS, 2)] {
            let c = p.config();
            assert_eq!(c.startup, StartupConfig::ARON98, "{}", p.name);
            assert_eq!(c.rto_estimator, RtoEstimatorKind::Decoupled);
            assert_eq!(c.timers.slow.granularity(), SimDuration::from_millis(tick));
            assert_eq!(c.timers.rtt_clock.tick, SimDuration::from_millis(1));
            assert_eq!(c.initial_window, InitialWindow::Rfc3390);
        }
        assert_eq!(Profile::BSD_PROP_10MS.rto.min, SimDuration::from_millis(200));
        for p in Profile::ALL.iter().filter(|p| !p.name.starts_with("bsd-prop")) {
            assert_eq!(p.startup, StartupConfig::OFF, "{}", p.name);
        }
    }

    // Linux tcp_rcv_synsent_state_process -> tcp_send_ack (2.4 and today); 4.4BSD/FreeBSD
    // TF_ACKNOW + one tcp_output (the ACK rides on the first data segment).
    #[test]
    fn linux_profiles_ack_the_syn_ack_at_once_and_bsd_profiles_piggyback() {
        for p in Profile::ALL {
            let want = if p.name.starts_with("linux") { HandshakeAck::Immediate } else { HandshakeAck::Piggyback };
            assert_eq!(p.handshake_ack, want, "{}", p.name);
            assert_eq!(p.config().handshake_ack, want, "{}", p.name);
            assert!(p.fields().contains(&("handshake_ack", want.name().to_string())), "{}", p.name);
        }
    }

    #[test]
    fn profile_names_are_unique_and_found_by_name() {
        for p in Profile::ALL {
            assert_eq!(Profile::by_name(p.name), Some(p));
            assert_eq!(Profile::ALL.iter().filter(|q| q.name == p.name).count(), 1);
        }
        assert_eq!(Profile::by_name("nope"), None);
    }

    /// p0f's initial TTLs: 128 for the Windows profile, 64 for every other.
    #[test]
    fn windows_hosts_send_ttl_128_and_the_others_64() {
        for p in Profile::ALL {
            let want = if p.name == "windows-xp" { WINDOWS_INITIAL_TTL } else { UNIX_INITIAL_TTL };
            assert_eq!(initial_ttl(&p.config()), want, "{}", p.name);
        }
        assert_eq!(initial_ttl(&TcpConfig::default()), 64);
    }
}
