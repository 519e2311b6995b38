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
//! | [`timer`] | timer table and the `TimerClock` seam |

#![forbid(unsafe_code)]

pub mod cc;
pub mod config;
pub mod conn;
pub mod event;
pub mod loss;
pub mod receiver;
pub mod rtt;
pub mod segment;
pub mod sender;
pub mod seq;
pub mod spurious;
pub mod startup;
pub mod timer;
pub mod trace;

pub use config::{AckPolicy, InitialWindow, RecoveryAlgorithm, RtoConfig, TcpConfig};
pub use conn::{CcSnapshot, ConnState, ConnStats, Connection, Transmit};
pub use event::{RecoveryKind, RetransCause, TcpEvent};
pub use segment::{Ecn, SackBlock, SackBlocks, Segment, TcpFlags, TcpOptions};
pub use seq::SeqNum;
