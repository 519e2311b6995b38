//! tcplab-tcp: the sans-IO TCP engine.
//!
//! No clock, no I/O, no RNG: every call takes `now`, and outputs are polled. The simulator
//! (tcplab-netsim) and the capture analyzer (tcplab-pcap) drive the same code.
//!
//! | where | what |
//! |---|---|
//! | [`seq`] | 32-bit sequence arithmetic |
//! | [`segment`] | wire segment, flags, options, SACK blocks |
//! | [`config`] | per-endpoint settings and their RFC defaults |
//! | [`conn`] | `Connection`: the driving API |
//! | [`event`] | typed events for tracing |
//! | [`sender`] | SND.* state, retransmission queue + RFC 6675 scoreboard |
//! | [`receiver`] | RCV.* state, reassembly, ACK policy, SACK/D-SACK generation |
//! | [`rtt`] | `RttEstimator` seam (RFC 6298) |
//! | [`cc`] | `CongestionController` seam (RFC 5681 / RFC 6582 Reno) |
//! | [`loss`] | `LossDetector` seam (dupthresh + NewReno, RFC 6675) and `RecoveryPhase` |
//! | [`startup`] | `StartupPolicy` seam (initial window) |
//! | [`spurious`] | `SpuriousDetector` seam (no-op for now) |
//! | [`timer`] | timer table and the `TimerClock` seam (slow/fast clock slots) |
//! | [`clock`] | Aron & Druschel's timer framework: measurement clock (f_rtt), event clocks (f_ev) |
//! | [`profile`] | named OS profiles (bsd-lite, linux-2.4, windows-xp, ...) as data |
//! | [`linux`] | Linux 2.4 sender model (`TcpConfig::sender = Linux`; seed 002 §2) |
//! | [`observe`] | observe mode: the sender model fed a capture, explaining each retransmission with the sender's own rules |

//!
//! ## Seams
//!
//! Every algorithm family is a trait object chosen at run time (`Box<dyn Trait>`, one
//! dispatch style everywhere; `Connection` stays `Clone` through `clone_box`):
//! [`rtt::RttEstimator`], [`cc::CongestionController`], [`loss::LossDetector`],
//! [`startup::StartupPolicy`], [`spurious::SpuriousDetector`] and [`timer::TimerClock`].
//! Hooks take small event structs and return decisions; [`sender::Sender`] owns and applies
//! all state. Recovery phases are [`loss::RecoveryPhase`] (an enum with data). Defaults come
//! from [`TcpConfig`]; `Connection::set_*` replaces a seam before the connection starts.
//!
//! ## Driving the engine (simulator / analyzer)
//!
//! - `Connection::client(cfg, iss, now)` has its SYN ready in `poll_transmit`;
//!   `Connection::server(cfg, iss)` waits in LISTEN for a SYN. Data queued with `send` /
//!   `send_unlimited` before ESTABLISHED goes out once the handshake completes; the client's
//!   first data segment carries the handshake ACK (no separate pure ACK is sent then).
//! - After *every* `handle_segment` or `handle_timeout`, call `poll_transmit(now)` until it
//!   returns `None`: one ACK can release several segments (slow start, a retransmission
//!   followed by new data, Limited Transmit). Then re-read `poll_timeout()`.
//! - `handle_timeout(now)` may be called at any time; it only acts on timers that are due.
//! - TIME-WAIT arms no timer (see `conn`), so an idle finished connection has
//!   `poll_timeout() == None`.
//!
//! ## Known simplifications
//!
//! No PAWS, no Nagle, no urgent data (ECN per RFC 3168 with `TcpConfig::ecn`, see `ecn`), no
//! simultaneous open, no SYN-with-data;
//! RST is accepted when in window but never generated; TIME-WAIT has no 2*MSL timer; the
//! receive window is always `recv_buffer` (the application reads at once); spurious-RTO
//! detection is a no-op seam; a connection is never aborted after many backoffs (BSD's
//! `TCP_MAXRXTSHIFT` drop), it keeps retransmitting at the largest backoff.
//!
//! ## Timers and OS profiles
//!
//! [`clock`] holds Aron & Druschel's two clocks (measurement f_rtt, event scheduling f_ev);
//! [`timer::Timers`] binds each timer kind to the slow or fast event clock; [`rtt`] has one
//! file per RTO estimator (RFC 6298 with a, b, m, k; 4.4BSD-Lite; Brakmo–Peterson; the
//! decoupled eq. 2 estimator; Linux; Windows/FreeBSD/Solaris per Rewaskar et al. Table I);
//! [`profile`] names the combinations (`bsd-lite`, `linux-2.4`, ...). All of it is chosen
//! through [`TcpConfig`] (`rto_estimator`, `timers`, `rtt_sampling`, `dupack_threshold`,
//! `rto`); `TcpConfig::default()` keeps the historical exact clocks and RFC 6298.

#![forbid(unsafe_code)]

pub mod cc;
pub mod clock;
pub mod config;
pub mod conn;
pub mod ecn;
pub mod event;
pub mod linux;
pub mod loss;
pub mod observe;
pub mod pacing;
pub mod profile;
pub mod receiver;
pub mod rtt;
pub mod segment;
pub mod sender;
pub mod seq;
pub mod spurious;
pub mod startup;
pub mod timer;
pub mod trace;

pub use clock::{EventClock, MeasurementClock};
pub use config::{
    AckPolicy, CongestionControl, DupAckThreshold, HandshakeAck, InitialWindow, Ratio, RecoveryAlgorithm, RtoConfig, RtoEstimatorKind, RttSampling,
    SenderModel, SpuriousConfig, SpuriousDetection, SpuriousResponse, StartupConfig, StateSharing, TcpConfig, TimerConfig,
};
pub use profile::Profile;
pub use conn::{CcSnapshot, ConnState, ConnStats, Connection, Transmit};
pub use event::{RecoveryKind, RetransCause, TcpEvent, RETRANS_CAUSES};
pub use segment::{Ecn, SackBlock, SackBlocks, Segment, TcpFlags, TcpOptions};
pub use seq::SeqNum;
