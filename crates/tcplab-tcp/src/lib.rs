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

pub mod config;
pub mod conn;
pub mod event;
pub mod segment;
pub mod seq;

pub use config::{AckPolicy, InitialWindow, RecoveryAlgorithm, RtoConfig, TcpConfig};
pub use conn::{CcSnapshot, ConnState, ConnStats, Connection, Transmit};
pub use event::{RecoveryKind, RetransCause, TcpEvent};
pub use segment::{Ecn, SackBlock, SackBlocks, Segment, TcpFlags, TcpOptions};
pub use seq::SeqNum;
