//! The public face of the engine: one TCP endpoint as a sans-IO state machine.
//!
//! Driving loop (simulator and analyzer alike):
//! 1. deliver an arriving segment with [`Connection::handle_segment`], or, when the time given
//!    by [`Connection::poll_timeout`] is reached, call [`Connection::handle_timeout`];
//! 2. call [`Connection::poll_transmit`] until it returns `None` and put each segment on the
//!    wire;
//! 3. drain [`Connection::drain_events`] and re-read `poll_timeout`.
//!
//! Time is always passed in; the engine never reads a clock.

use crate::config::TcpConfig;
use crate::event::{RetransCause, TcpEvent};
use crate::segment::Segment;
use crate::seq::SeqNum;
use tcplab_time::SimTime;

/// A segment to put on the wire, with what the engine knows about why it is sent.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Transmit {
    pub segment: Segment,
    /// `Some(cause)` when any byte of the payload (or the SYN/FIN) was sent before.
    pub retransmission: Option<RetransCause>,
}

/// RFC 9293 §3.3.2 connection states (the subset a simulated endpoint passes through).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ConnState {
    Closed,
    Listen,
    SynSent,
    SynReceived,
    Established,
    FinWait1,
    FinWait2,
    CloseWait,
    Closing,
    LastAck,
    TimeWait,
}

/// Congestion-control state for time series, sampled by the driver after each call.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct CcSnapshot {
    pub cwnd: u64,
    pub ssthresh: u64,
    /// RFC 6675 `pipe` when SACK recovery is active, otherwise SND.NXT - SND.UNA.
    pub bytes_in_flight: u64,
    /// Smoothed RTT and variance in ns (0 before the first sample).
    pub srtt_ns: u64,
    pub rttvar_ns: u64,
    /// Current RTO including backoff, in ns.
    pub rto_ns: u64,
}

/// Counters kept by the endpoint.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct ConnStats {
    /// Data segments (payload > 0) sent, including retransmissions.
    pub data_segments_sent: u64,
    /// Payload bytes sent, including retransmissions.
    pub bytes_sent: u64,
    /// Retransmitted segments by cause, indexed by `RetransCause as usize`.
    pub retransmissions: [u64; 4],
    /// Retransmission-timer expirations.
    pub timeouts: u64,
    /// Bytes delivered in order to the receiving application.
    pub bytes_delivered: u64,
    /// ACK-only segments sent.
    pub acks_sent: u64,
    /// Segments received (any kind).
    pub segments_received: u64,
}

/// One TCP endpoint (both its sending and its receiving half).
///
/// SKELETON: the method signatures below are the engine's contract with the simulator and the
/// analyzer. The bodies are being written (issue 2); this placeholder only lets dependants
/// compile and must not land on main as is.
#[derive(Debug, Clone)]
pub struct Connection {
    cfg: TcpConfig,
    iss: SeqNum,
    state: ConnState,
    stats: ConnStats,
    events: Vec<TcpEvent>,
}

impl Connection {
    /// Active open: the SYN is ready in `poll_transmit` from `now` on.
    pub fn client(cfg: TcpConfig, iss: SeqNum, _now: SimTime) -> Connection {
        Connection { cfg, iss, state: ConnState::SynSent, stats: ConnStats::default(), events: Vec::new() }
    }
    /// Passive open (LISTEN): answers the first SYN with a SYN-ACK using `iss`.
    pub fn server(cfg: TcpConfig, iss: SeqNum) -> Connection {
        Connection { cfg, iss, state: ConnState::Listen, stats: ConnStats::default(), events: Vec::new() }
    }
    /// The application writes `bytes` more bytes.
    pub fn send(&mut self, _bytes: u64) {}
    /// Bulk sender: the application always has more data.
    pub fn send_unlimited(&mut self) {}
    /// The application closes: FIN follows the last queued byte.
    pub fn close(&mut self) {}
    pub fn handle_segment(&mut self, _now: SimTime, _seg: &Segment) {}
    /// Idempotent: calling it when nothing is due does nothing.
    pub fn handle_timeout(&mut self, _now: SimTime) {}
    pub fn poll_transmit(&mut self, _now: SimTime) -> Option<Transmit> {
        None
    }
    /// Earliest armed timer (RTO, delayed ACK, ...), if any.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        None
    }
    pub fn drain_events(&mut self) -> std::vec::Drain<'_, TcpEvent> {
        self.events.drain(..)
    }
    pub fn state(&self) -> ConnState {
        self.state
    }
    pub fn stats(&self) -> &ConnStats {
        &self.stats
    }
    pub fn cc_snapshot(&self) -> CcSnapshot {
        CcSnapshot::default()
    }
    pub fn iss(&self) -> SeqNum {
        self.iss
    }
    /// Initial receive sequence number, once the peer's SYN was seen.
    pub fn irs(&self) -> Option<SeqNum> {
        None
    }
    /// All application data (and the FIN, if closed) has been acknowledged.
    pub fn is_send_complete(&self) -> bool {
        false
    }
    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }
}
