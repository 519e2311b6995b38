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
//!
//! `poll_transmit` may return several segments in a row for one input (a window's worth of
//! new data after an ACK, a retransmission followed by new data, the SYN-ACK...): call it
//! until it returns `None`. A returned data segment always carries the current ACK, so a
//! pending (delayed) ACK is cleared by it.
//!
//! Handshake: `Connection::client` has its SYN ready at once; `Connection::server` sits in
//! LISTEN and answers the first SYN. Data written with `send` before ESTABLISHED waits for the
//! handshake. SYN and SYN-ACK are retransmitted on the RTO timer (with backoff, forever).
//! The client's ACK of the SYN-ACK rides on its first data segment (`HandshakeAck::Piggyback`,
//! 4.4BSD, default) or goes out at once as a bare ACK (`HandshakeAck::Immediate`, Linux).
//!
//! Retransmission causes: the SYN/SYN-ACK resent on its timer, or a SYN-ACK resent because
//! the client repeated its SYN, is tagged `Rto`; zero-window probes (a pure ACK carrying
//! SND.UNA - 1) are tagged `Probe` and counted in `retransmissions[Probe]`.
//!
//! `SendComplete` is reported each time the send side becomes complete (an endpoint that has
//! nothing to send reports it when the handshake completes).
//!
//! TIME-WAIT is entered but no 2*MSL timer is armed: the simulator never reuses a 4-tuple, so
//! the state only serves to re-acknowledge a retransmitted FIN, and leaving no timer armed lets
//! a run end as soon as both sides are done.

use crate::config::{HandshakeAck, TcpConfig, DEFAULT_MSS_IPV4, MAX_WINDOW_SCALE};
use crate::event::{RetransCause, TcpEvent};
use crate::receiver::{Receiver, RxAction, MAX_UNSCALED_WINDOW};
use crate::segment::{SackBlocks, Segment, TcpFlags, TcpOptions};
use crate::sender::{DataOut, Sender};
use crate::seq::SeqNum;
use crate::timer::{ts_now, TimerKind, Timers};
use crate::trace::Trace;
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
    /// RFC 6675 `pipe` when SACK recovery or timeout recovery (after an RTO, where SND.NXT is
    /// not pulled back and segments marked lost do not count) is active, otherwise
    /// SND.NXT - SND.UNA.
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
    pub retransmissions: [u64; crate::event::RETRANS_CAUSES],
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
/// A thin facade: the handshake and state transitions live here; data transfer is delegated
/// to [`Sender`] and [`Receiver`], which call the algorithm seams.
#[derive(Debug, Clone)]
pub struct Connection {
    cfg: TcpConfig,
    iss: SeqNum,
    state: ConnState,
    stats: ConnStats,
    trace: Trace,
    timers: Timers,
    snd: Sender,
    rcv: Receiver,
    /// The SYN (client) or SYN-ACK (server) must be (re)sent by `poll_transmit`.
    syn_pending: bool,
    /// The SYN / SYN-ACK has been sent at least once (the next one is a retransmission).
    syn_sent_once: bool,
    /// When the first SYN / SYN-ACK was sent (RTT sample without timestamps, Karn's rule).
    syn_sent_at: Option<SimTime>,
    handshake_retransmitted: bool,
    irs_seen: bool,
    /// Peer's options from its SYN / SYN-ACK.
    peer_syn: TcpOptions,
    /// Negotiated.
    sack_ok: bool,
    ts_ok: bool,
    ws_ok: bool,
    /// An ACK must be sent (immediately) by the next `poll_transmit`.
    ack_now: bool,
    /// `HandshakeAck::Immediate`: the ACK of the SYN-ACK goes out as a bare ACK ahead of any
    /// queued data (set on the SYN-SENT -> ESTABLISHED transition, cleared when sent).
    handshake_ack_pending: bool,
    /// A zero-window probe must be sent.
    probe_pending: bool,
    send_complete_reported: bool,
    /// Quick-Start Response to put on our next segment (RFC 4782 §4.2; `receiver.rs`).
    qs_echo: Option<crate::startup::quickstart::QsResponse>,
}

/// RFC 9293 §3.7.1: the MSS assumed when the peer sends no MSS option (payload bytes).
const DEFAULT_PEER_MSS: u16 = DEFAULT_MSS_IPV4;

impl Connection {
    fn new(cfg: TcpConfig, iss: SeqNum, state: ConnState) -> Connection {
        let trace = Trace { enabled: cfg.trace, events: Vec::new() };
        Connection {
            snd: Sender::new(&cfg, iss),
            rcv: Receiver::new(&cfg),
            timers: Timers::with_clocks(Box::new(cfg.timers.slow), Box::new(cfg.timers.fast)),
            iss,
            state,
            stats: ConnStats::default(),
            trace,
            syn_pending: false,
            syn_sent_once: false,
            syn_sent_at: None,
            handshake_retransmitted: false,
            irs_seen: false,
            peer_syn: TcpOptions::default(),
            sack_ok: false,
            ts_ok: false,
            ws_ok: false,
            ack_now: false,
            handshake_ack_pending: false,
            probe_pending: false,
            send_complete_reported: false,
            qs_echo: None,
            cfg,
        }
    }

    /// Active open: the SYN is ready in `poll_transmit` from `now` on.
    pub fn client(cfg: TcpConfig, iss: SeqNum, _now: SimTime) -> Connection {
        let mut c = Connection::new(cfg, iss, ConnState::SynSent);
        c.syn_pending = true;
        c
    }
    /// Passive open (LISTEN): answers the first SYN with a SYN-ACK using `iss`.
    pub fn server(cfg: TcpConfig, iss: SeqNum) -> Connection {
        Connection::new(cfg, iss, ConnState::Listen)
    }

    /// Re-initialises this endpoint as [`Connection::client`]`(cfg.clone(), iss, now)` builds
    /// one, in place: a driver that opens many connections one after another in the same
    /// endpoint slot (the simulator's `sim/lifecycle.rs`) calls it instead of building a new
    /// `Connection` and moving it over the old one. Whatever the old connection did is
    /// forgotten; only the trace buffer's capacity is kept. Equivalence with `client` is
    /// tested field by field and by behaviour (`tests/reset.rs`).
    pub fn reset_client(&mut self, cfg: &TcpConfig, iss: SeqNum, _now: SimTime) {
        self.reinit(cfg, iss, ConnState::SynSent);
        self.syn_pending = true;
    }

    /// Re-initialises this endpoint as [`Connection::server`]`(cfg.clone(), iss)` builds one,
    /// in place (see [`Connection::reset_client`]).
    pub fn reset_server(&mut self, cfg: &TcpConfig, iss: SeqNum) {
        self.reinit(cfg, iss, ConnState::Listen);
    }

    /// The in-place twin of [`Connection::new`]: every field gets the value `new` gives it.
    /// The destructuring names every field, so a field added to `Connection` does not compile
    /// until it is handled here too. The sender is reset in place (`Sender::reset`: it keeps
    /// its boxed algorithm objects when they can become what `cfg` selects), the receiver is
    /// rebuilt by its own constructor; the timer table is
    /// reset in place and keeps its clock boxes when they hold `cfg`'s clocks
    /// (`Timers::reset`).
    fn reinit(&mut self, cfg: &TcpConfig, iss: SeqNum, state: ConnState) {
        let Connection {
            cfg: my_cfg,
            iss: my_iss,
            state: my_state,
            stats,
            trace,
            timers,
            snd,
            rcv,
            syn_pending,
            syn_sent_once,
            syn_sent_at,
            handshake_retransmitted,
            irs_seen,
            peer_syn,
            sack_ok,
            ts_ok,
            ws_ok,
            ack_now,
            handshake_ack_pending,
            probe_pending,
            send_complete_reported,
            qs_echo,
        } = self;
        my_cfg.clone_from(cfg);
        *my_iss = iss;
        *my_state = state;
        *stats = ConnStats::default();
        trace.enabled = cfg.trace;
        trace.events.clear();
        timers.reset(cfg.timers.slow, cfg.timers.fast);
        snd.reset(cfg, iss);
        *rcv = Receiver::new(cfg);
        *syn_pending = false;
        *syn_sent_once = false;
        *syn_sent_at = None;
        *handshake_retransmitted = false;
        *irs_seen = false;
        *peer_syn = TcpOptions::default();
        *sack_ok = false;
        *ts_ok = false;
        *ws_ok = false;
        *ack_now = false;
        *handshake_ack_pending = false;
        *probe_pending = false;
        *send_complete_reported = false;
        *qs_echo = None;
    }
    /// The application writes `bytes` more bytes.
    pub fn send(&mut self, bytes: u64) {
        self.snd.send(bytes);
    }
    /// Bulk sender: the application always has more data.
    pub fn send_unlimited(&mut self) {
        self.snd.send_unlimited();
    }
    /// The application closes: FIN follows the last queued byte.
    ///
    /// Before ESTABLISHED (SYN-SENT, LISTEN, SYN-RECEIVED) the FIN is queued and the state
    /// becomes FIN-WAIT-1 when the handshake completes. Deviation from RFC 9293 §3.10.4
    /// (CLOSE in LISTEN deletes the TCB): a simulated server models the application on the
    /// accepted socket, which may write its whole response and close before the SYN arrives.
    pub fn close(&mut self) {
        self.snd.close();
        self.state = match self.state {
            ConnState::Established => ConnState::FinWait1,
            ConnState::CloseWait => ConnState::LastAck,
            s => s,
        };
    }

    /// RFC 7323 §2.3: the shift that lets `recv_buffer` be advertised (at most 14).
    fn our_wscale(&self) -> u8 {
        let mut s = 0u8;
        while s < MAX_WINDOW_SCALE && (MAX_UNSCALED_WINDOW << s) < self.cfg.recv_buffer {
            s += 1;
        }
        s
    }

    /// Options for our SYN (client) or SYN-ACK (server: only what the peer offered).
    fn syn_options(&self, now: SimTime) -> TcpOptions {
        let server = self.irs_seen;
        let mut o = TcpOptions { mss: Some(self.cfg.mss), ..TcpOptions::default() };
        if self.cfg.window_scale && (!server || self.peer_syn.window_scale.is_some()) {
            o.window_scale = Some(self.our_wscale());
        }
        o.sack_permitted = self.cfg.sack && (!server || self.peer_syn.sack_permitted);
        if self.cfg.timestamps && (!server || self.peer_syn.timestamps.is_some()) {
            let echo = if server { self.rcv.ts_recent } else { 0 };
            o.timestamps = Some((ts_now(now), echo));
        }
        o
    }

    /// Records the peer's SYN options and derives what is used on the connection.
    fn negotiate(&mut self, seg: &Segment) {
        // RFC 3168 §6.1.1 (before `irs_seen` is set: it tells a server from a client).
        self.snd.ecn.on_peer_syn(seg, self.state == ConnState::Listen);
        self.peer_syn = seg.options;
        self.irs_seen = true;
        // RFC 7323 §2.2 / RFC 2018 §2: used only if both ends offered them.
        self.ws_ok = self.cfg.window_scale && seg.options.window_scale.is_some();
        self.sack_ok = self.cfg.sack && seg.options.sack_permitted;
        self.ts_ok = self.cfg.timestamps && seg.options.timestamps.is_some();
        let rcv_wscale = if self.ws_ok { self.our_wscale() } else { 0 };
        self.rcv.on_syn(&self.cfg, seg, rcv_wscale);
        self.rcv.ts_ok = self.ts_ok;
        self.rcv.sack_ok = self.sack_ok;
        let peer_mss = seg.options.mss.unwrap_or(DEFAULT_PEER_MSS);
        self.rcv.rcv_mss = u32::from(self.cfg.mss.min(peer_mss).max(1));
    }

    fn establish(&mut self, now: SimTime, seg: &Segment) {
        let peer_mss = self.peer_syn.mss.unwrap_or(DEFAULT_PEER_MSS);
        let smss = u64::from(self.cfg.mss.min(peer_mss).max(1));
        // RFC 7323 §2.3: the peer's shift, capped at 14.
        let snd_wscale = if self.ws_ok { self.peer_syn.window_scale.unwrap_or(0).min(MAX_WINDOW_SCALE) } else { 0 };
        self.snd.snd_nxt = self.iss + 1;
        self.snd.on_established(seg, smss, snd_wscale, self.sack_ok, self.ts_ok, self.handshake_retransmitted);
        // RTT sample from the handshake (Karn: only if the SYN was not retransmitted).
        let rtt = if self.ts_ok {
            seg.options
                .timestamps
                .map(|(_, tsecr)| ts_now(now).wrapping_sub(tsecr))
                .filter(|t| (*t as i32) >= 0)
                .map(|t| tcplab_time::SimDuration(u64::from(t) * crate::timer::TS_CLOCK_TICK.as_nanos()))
        } else if !self.handshake_retransmitted {
            self.syn_sent_at.map(|t| now.saturating_since(t))
        } else {
            None
        };
        // Linux tcp_ack_update_rtt (the client's SYN acknowledged in tcp_clean_rtx_queue; the
        // server's tcp_synack_rtt_meas: "tcp_ack_update_rtt(sk, FLAG_SYN_ACKED, rtt_us, -1L,
        // rtt_us, &rs)") calls "tcp_update_rtt_min(sk, ca_rtt_us, flag)" with the handshake's
        // own µs RTT, so RACK.min_RTT (RFC 8985 §6.2 step 1) starts from it: a TLP probe's
        // RTT is then not "below min_rtt" when the first data ACK was slowed by queueing.
        // Karn: only from an unretransmitted SYN / SYN-ACK (Linux: `!req->num_retrans`).
        if !self.handshake_retransmitted {
            if let Some(t) = self.syn_sent_at {
                self.snd.rack.on_handshake_rtt(now.saturating_since(t));
            }
        }
        if let Some(r) = rtt {
            let (una, nxt) = (self.snd.snd_una, self.snd.snd_nxt);
            self.snd.rtt.on_sample(&crate::rtt::RttSampleEvent { now, rtt: r, snd_una: una, snd_nxt: nxt });
            self.snd.tlp.on_rtt_sample();
            self.trace.push(TcpEvent::RttSample { at: now, rtt_ns: r.as_nanos() });
        }
        self.timers.cancel(TimerKind::Rto);
        // Quick-Start Response on the SYN-ACK to the Request our SYN carried.
        self.snd.qs_on_response(now, seg, self.handshake_retransmitted, &mut self.timers);
        self.syn_pending = false;
        self.state = if self.snd.fin_queued { ConnState::FinWait1 } else { ConnState::Established };
        self.trace.push(TcpEvent::Established { at: now });
    }

    pub fn handle_segment(&mut self, now: SimTime, seg: &Segment) {
        self.stats.segments_received += 1;
        if let (Some(req), true) = (seg.qs_request, self.cfg.quick_start.echo) {
            // RFC 4782 §4.2 / thesis L3660–3663: echo on our next segment.
            self.qs_echo = crate::startup::quickstart::receiver::echo(&req, seg.ttl);
        }
        let f = seg.flags;
        match self.state {
            ConnState::Closed => {}
            ConnState::Listen => {
                if f.contains(TcpFlags::SYN) && !f.contains(TcpFlags::ACK) && !f.contains(TcpFlags::RST) {
                    self.negotiate(seg);
                    self.snd.snd_nxt = self.iss;
                    self.state = ConnState::SynReceived;
                    self.syn_pending = true;
                }
            }
            ConnState::SynSent => {
                if f.contains(TcpFlags::RST) {
                    if f.contains(TcpFlags::ACK) && seg.ack == self.iss + 1 {
                        self.reset();
                    }
                    return;
                }
                if f.contains(TcpFlags::SYN) && f.contains(TcpFlags::ACK) && seg.ack == self.iss + 1 {
                    self.negotiate(seg);
                    self.establish(now, seg);
                    // RFC 9293 §3.10.7.3 (SYN-SENT, fourth): "If SND.UNA > ISS (our SYN has
                    // been ACKed), change the connection state to ESTABLISHED, form an ACK
                    // segment <SEQ=SND.NXT><ACK=RCV.NXT><CTL=ACK> and send it. Data or
                    // controls that were queued for transmission MAY be included."
                    // Piggyback (4.4BSD): `ack_now` is cleared by the first data segment, so
                    // a bare ACK goes out only when nothing can be sent. Immediate (Linux
                    // `tcp_rcv_synsent_state_process` -> `tcp_send_ack`): a bare ACK first.
                    self.ack_now = true;
                    self.handshake_ack_pending = self.cfg.handshake_ack == HandshakeAck::Immediate;
                }
                // Simultaneous open and bad ACKs are ignored (not needed by the simulator).
            }
            ConnState::SynReceived => {
                if f.contains(TcpFlags::RST) {
                    self.reset();
                    return;
                }
                if f.contains(TcpFlags::SYN) && !f.contains(TcpFlags::ACK) {
                    if seg.seq == self.rcv.irs {
                        // Our SYN-ACK was lost: the client retransmitted its SYN.
                        self.syn_pending = true;
                    }
                    return;
                }
                if f.contains(TcpFlags::ACK) && seg.ack == self.iss + 1 {
                    self.establish(now, seg);
                    self.synchronized(now, seg);
                }
            }
            _ => self.synchronized(now, seg),
        }
        self.after_input(now);
    }

    fn reset(&mut self) {
        self.state = ConnState::Closed;
        self.timers.cancel_all();
        self.syn_pending = false;
        self.ack_now = false;
        self.handshake_ack_pending = false;
    }

    /// Segment processing in ESTABLISHED and later states (RFC 9293 §3.10.7.4, simplified).
    fn synchronized(&mut self, now: SimTime, seg: &Segment) {
        let f = seg.flags;
        if f.contains(TcpFlags::RST) {
            // RFC 9293 §3.10.7.4: accept a RST whose sequence number is in the window.
            let in_wnd = seg.seq.ge(self.rcv.rcv_nxt) && seg.seq.lt(self.rcv.rcv_nxt + self.rcv.rcv_wnd.max(1) as u32);
            if in_wnd {
                self.reset();
            }
            return;
        }
        // RFC 9293 §3.10.7.4 fifth: "if the ACK bit is off, drop the segment".
        if !f.contains(TcpFlags::ACK) {
            return;
        }
        // RFC 3168 §6.1.3: the receiver's echo (CWR stops it, CE data starts it).
        self.snd.ecn.on_segment(seg);
        {
            let out = self.snd.on_ack(now, seg, &mut self.timers, &mut self.trace);
            if out.ack_unsent {
                self.ack_now = true;
                return;
            }
            if out.fin_acked {
                self.state = match self.state {
                    ConnState::FinWait1 => ConnState::FinWait2,
                    ConnState::Closing => ConnState::TimeWait,
                    ConnState::LastAck => {
                        self.timers.cancel_all();
                        ConnState::Closed
                    }
                    s => s,
                };
            }
        }
        let had_fin = self.rcv.fin_received;
        match self.rcv.on_segment_at(seg, now, self.snd.rtt.rto()) {
            RxAction::None => {}
            RxAction::AckNow => self.ack_now = true,
            RxAction::Delay => {
                if !self.timers.is_armed(TimerKind::DelayedAck) {
                    if let Some(d) = self.cfg.ack.delayed_ack {
                        // Linux's adaptive ato with `ack_ato` (receiver/ack_policy.rs).
                        let d = self.rcv.delack_timeout(self.snd.rtt.srtt()).unwrap_or(d);
                        self.timers.arm(TimerKind::DelayedAck, now, d);
                    } else {
                        self.ack_now = true;
                    }
                }
            }
        }
        self.stats.bytes_delivered = self.rcv.bytes_delivered;
        if !had_fin && self.rcv.fin_received {
            self.state = match self.state {
                ConnState::Established => ConnState::CloseWait,
                ConnState::FinWait1 => ConnState::Closing,
                ConnState::FinWait2 => ConnState::TimeWait,
                s => s,
            };
        }
    }

    fn after_input(&mut self, now: SimTime) {
        if !self.send_complete_reported && self.snd.is_send_complete() {
            self.send_complete_reported = true;
            self.trace.push(TcpEvent::SendComplete { at: now });
        } else if self.send_complete_reported && !self.snd.is_send_complete() {
            self.send_complete_reported = false;
        }
        if self.state == ConnState::TimeWait || self.state == ConnState::Closed {
            self.timers.cancel(TimerKind::Rto);
            self.timers.cancel(TimerKind::Persist);
            self.timers.cancel(TimerKind::Pto);
            self.timers.cancel(TimerKind::RackReo);
        }
    }

    /// Idempotent: calling it when nothing is due does nothing.
    pub fn handle_timeout(&mut self, now: SimTime) {
        if self.timers.take_expired(TimerKind::DelayedAck, now) {
            self.ack_now = true;
        }
        // RFC 8985 §7.2: the PTO stands in for the RTO when both are due (it re-arms the RTO),
        // so it is looked at first. Never armed without `TcpConfig::tlp`.
        if self.timers.take_expired(TimerKind::Pto, now) {
            self.snd.on_pto(now, &mut self.timers, &mut self.trace);
        }
        // RFC 8985 §6.3 RACK reordering timer (never armed without `TcpConfig::rack`).
        if self.timers.take_expired(TimerKind::RackReo, now) {
            self.snd.on_rack_timer(now, &mut self.timers, &mut self.trace);
        }
        if self.timers.take_expired(TimerKind::Rto, now) {
            match self.state {
                ConnState::SynSent | ConnState::SynReceived => {
                    // RFC 6298 (5.5)/(5.6) for the SYN: back off and resend.
                    self.stats.timeouts += 1;
                    self.snd.rtt.on_timeout();
                    self.handshake_retransmitted = true;
                    self.syn_pending = true;
                    self.trace.push(TcpEvent::RtoFired { at: now, backoff: self.snd.rtt.backoff() });
                }
                ConnState::Closed | ConnState::Listen => {}
                _ => self.snd.on_rto(now, &mut self.timers, &mut self.stats, &mut self.trace),
            }
        }
        if self.timers.take_expired(TimerKind::Persist, now) && self.snd.on_persist(now, &mut self.timers) {
            self.probe_pending = true;
        }
        if self.timers.take_expired(TimerKind::Pacing, now) {
            self.snd.on_pacing_timer(now, &mut self.timers);
        }
    }

    fn base_segment(&mut self, now: SimTime, seq: SeqNum, flags: TcpFlags) -> Segment {
        let (ack, window, sack) = self.rcv.build_ack();
        let mut options = TcpOptions { sack, ..TcpOptions::default() };
        if self.ts_ok {
            options.timestamps = Some((ts_now(now), self.rcv.ts_recent));
        }
        if !self.sack_ok {
            options.sack = SackBlocks::new();
        }
        options.quick_start = self.qs_echo.take();
        self.ack_now = false;
        self.timers.cancel(TimerKind::DelayedAck);
        // RFC 3168 §6.1.3: ECE on every ACK while echoing.
        let flags = flags | TcpFlags::ACK | self.snd.ecn.ack_flags();
        Segment { seq, ack, flags, window, len: 0, options, ..Segment::default() }
    }

    pub fn poll_transmit(&mut self, now: SimTime) -> Option<Transmit> {
        match self.state {
            ConnState::Closed | ConnState::Listen => return None,
            ConnState::SynSent | ConnState::SynReceived => {
                if !self.syn_pending {
                    return None;
                }
                return Some(self.send_syn(now));
            }
            _ => {}
        }
        if self.handshake_ack_pending {
            // HandshakeAck::Immediate: the bare ACK of the SYN-ACK precedes queued data.
            self.handshake_ack_pending = false;
            let seg = self.base_segment(now, self.snd.snd_nxt, TcpFlags::default());
            self.stats.acks_sent += 1;
            return Some(Transmit { segment: seg, retransmission: None });
        }
        if self.probe_pending {
            self.probe_pending = false;
            // RFC 9293 §3.8.6.1 zero-window probe, Linux style: an ACK with an old sequence
            // number (SND.UNA - 1) that the peer must answer with its current window.
            let seg = self.base_segment(now, self.snd.snd_una + u32::MAX, TcpFlags::default());
            self.stats.retransmissions[RetransCause::Probe as usize] += 1;
            return Some(Transmit { segment: seg, retransmission: Some(RetransCause::Probe) });
        }
        if let Some(DataOut { seq, len, fin, cause }) = self.snd.next_segment(now, &mut self.timers, &mut self.stats) {
            let mut flags = TcpFlags::default();
            let mut ecn = crate::segment::Ecn::NotEct;
            if fin {
                flags.insert(TcpFlags::FIN);
            }
            if len > 0 {
                // RFC 3168 §6.1.2, §6.1.5: ECT on new data, CWR after a window reduction.
                let m = self.snd.ecn.data_marking(cause.is_some());
                if m.cwr {
                    flags.insert(TcpFlags::CWR);
                }
                ecn = m.ecn;
            }
            let mut seg = self.base_segment(now, seq, flags);
            seg.len = len;
            seg.ecn = ecn;
            if len > 0 {
                // A pending Quick-Start Request (after idle or a hand-off) rides on the next
                // data segment, new or retransmitted (after a hand-off the sender is often in
                // loss recovery when the notification arrives).
                seg.qs_request = self.snd.qs_take_request(now, seq + len);
            }
            return Some(Transmit { segment: seg, retransmission: cause });
        }
        if self.ack_now {
            let seq = self.snd.snd_nxt;
            let seg = self.base_segment(now, seq, TcpFlags::default());
            self.stats.acks_sent += 1;
            return Some(Transmit { segment: seg, retransmission: None });
        }
        None
    }

    fn send_syn(&mut self, now: SimTime) -> Transmit {
        self.syn_pending = false;
        let retransmission = if self.syn_sent_once {
            self.stats.retransmissions[RetransCause::Rto as usize] += 1;
            Some(RetransCause::Rto)
        } else {
            self.syn_sent_at = Some(now);
            None
        };
        self.syn_sent_once = true;
        let mut options = self.syn_options(now);
        let server = self.state == ConnState::SynReceived;
        if server {
            options.quick_start = self.qs_echo.take();
        }
        let (ack, flags) = if server {
            (self.rcv.rcv_nxt, TcpFlags::SYN | TcpFlags::ACK)
        } else {
            (SeqNum(0), TcpFlags::SYN)
        };
        // RFC 3168 §6.1.1: ECN-setup SYN / SYN-ACK.
        let flags = flags | self.snd.ecn.syn_flags(server);
        // RFC 7323 §2.2: the window in a SYN is not scaled.
        let window = crate::receiver::Receiver::syn_window(&self.cfg);
        self.snd.snd_nxt = self.iss + 1;
        // RFC 6298 (5.1) for the SYN.
        if !self.timers.is_armed(TimerKind::Rto) {
            self.timers.arm(TimerKind::Rto, now, self.snd.rtt.rto());
        }
        let mut seg = Segment { seq: self.iss, ack, flags, window, len: 0, options, ..Segment::default() };
        if !server && retransmission.is_none() {
            // Thesis L3569–3575: a Quick-Start Request at connection start rides on the SYN.
            use crate::startup::StartupPolicy as _;
            let iw = crate::startup::InitialWindowPolicy { iw: self.cfg.initial_window, ssthresh: self.cfg.initial_ssthresh }
                .initial_cwnd(&crate::startup::StartupEvent { smss: u64::from(self.cfg.mss), handshake_retransmitted: false });
            self.snd.qs_on_syn(iw);
            seg.qs_request = self.snd.qs_take_request(now, self.iss + 1);
        }
        Transmit { segment: seg, retransmission }
    }

    /// An explicit path-change (vertical hand-off) notification reached this sender
    /// (Ch. 7 §7.3): applies `quick_start.on_handoff`.
    pub fn notify_path_change(&mut self) {
        if self.state == ConnState::Established || self.state == ConnState::CloseWait || self.state == ConnState::FinWait1 {
            self.snd.qs_on_path_change();
        }
    }

    /// Quick-Start state of the sender (`None` unless it requests).
    pub fn quick_start(&self) -> Option<&crate::startup::quickstart::QsHost> {
        self.snd.quick_start()
    }

    /// Earliest armed timer (RTO, delayed ACK, persist, pacing, TLP probe timeout), if any.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.timers.earliest()
    }
    pub fn drain_events(&mut self) -> std::vec::Drain<'_, TcpEvent> {
        self.trace.events.drain(..)
    }
    pub fn state(&self) -> ConnState {
        self.state
    }
    pub fn stats(&self) -> &ConnStats {
        &self.stats
    }
    /// The Linux 2.4 engine's state (`None` with the RFC sender).
    pub fn linux(&self) -> Option<&crate::linux::LinuxCa> {
        self.snd.recovery.as_deref().and_then(|r| r.linux24())
    }
    /// Mutable access to the Linux engine (e.g. to turn rate-halving off before a run).
    pub fn linux_mut(&mut self) -> Option<&mut crate::linux::LinuxCa> {
        self.snd.recovery.as_deref_mut().and_then(|r| r.linux24_mut())
    }
    /// The Linux packet counters now (002 L1349–1410), `None` with the RFC sender.
    pub fn linux_counters(&self) -> Option<crate::linux::scoreboard::Counters> {
        self.linux().map(|_| self.snd.linux_counters())
    }
    /// The initial window the sender started with, in bytes (its startup policy's choice, or
    /// Quick-Start's; one SMSS before the connection is established).
    pub fn initial_cwnd(&self) -> u64 {
        self.snd.initial_cwnd()
    }
    /// The sender's bytes in flight (RFC 5681 FlightSize): `cc_snapshot().bytes_in_flight`
    /// without the RTT estimator's calls, for a caller at every ACK (the PTA hook).
    pub fn bytes_in_flight(&self) -> u64 {
        self.snd.bytes_in_flight()
    }
    pub fn cc_snapshot(&self) -> CcSnapshot {
        CcSnapshot {
            cwnd: self.snd.cc.cwnd,
            ssthresh: self.snd.cc.ssthresh,
            bytes_in_flight: self.snd.bytes_in_flight(),
            srtt_ns: self.snd.rtt.srtt().map_or(0, |d| d.as_nanos()),
            rttvar_ns: self.snd.rtt.rttvar().map_or(0, |d| d.as_nanos()),
            rto_ns: self.snd.rtt.rto().as_nanos(),
        }
    }
    pub fn iss(&self) -> SeqNum {
        self.iss
    }
    /// Initial receive sequence number, once the peer's SYN was seen.
    pub fn irs(&self) -> Option<SeqNum> {
        self.irs_seen.then_some(self.rcv.irs)
    }
    /// All application data (and the FIN, if closed) has been acknowledged.
    pub fn is_send_complete(&self) -> bool {
        self.snd.is_send_complete()
    }
    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }

    // ---- additions (not in the original skeleton) ----

    /// Replaces the event clock of every timer kind (default: the clocks of
    /// `TcpConfig::timers`). Call before the first poll.
    pub fn set_timer_clock(&mut self, clock: Box<dyn crate::timer::TimerClock>) {
        self.timers = Timers::new(clock);
    }
    /// Replaces the slow and fast event clocks (timer kinds keep their slots). Call before the
    /// first poll.
    pub fn set_event_clocks(&mut self, slow: Box<dyn crate::timer::TimerClock>, fast: Box<dyn crate::timer::TimerClock>) {
        self.timers = Timers::with_clocks(slow, fast);
    }
    /// Moves `kind` to the clock in `slot` (e.g. a pacing timer onto the fast clock).
    pub fn bind_timer(&mut self, kind: TimerKind, slot: crate::timer::ClockSlot) {
        self.timers.bind(kind, slot);
    }
    /// Replaces the RTT estimator (default: RFC 6298). Call before the first poll.
    pub fn set_rtt_estimator(&mut self, e: Box<dyn crate::rtt::RttEstimator>) {
        self.snd.rtt = e;
    }
    /// Replaces the congestion controller (default: RFC 5681/6582 Reno).
    pub fn set_congestion_controller(&mut self, c: Box<dyn crate::cc::CongestionController>) {
        self.snd.ccalg = c;
    }
    /// Replaces the startup policy (default: initial window from the configuration). Call
    /// before the handshake completes.
    pub fn set_startup_policy(&mut self, p: Box<dyn crate::startup::StartupPolicy>) {
        self.snd.startup = p;
    }
    /// Replaces the spurious-retransmission detector (default: none).
    pub fn set_spurious_detector(&mut self, d: Box<dyn crate::spurious::SpuriousDetector>) {
        self.snd.spurious = d;
    }

    /// SACK, timestamps and window scaling as negotiated: (sack, timestamps, window_scale).
    pub fn negotiated(&self) -> (bool, bool, bool) {
        (self.sack_ok, self.ts_ok, self.ws_ok)
    }
    /// Sender MSS in use (after negotiation).
    pub fn smss(&self) -> u64 {
        self.snd.smss
    }
    /// (SND.UNA, SND.NXT).
    pub fn snd_seq(&self) -> (SeqNum, SeqNum) {
        (self.snd.snd_una, self.snd.snd_nxt)
    }
    /// RCV.NXT (meaningful once the peer's SYN was seen).
    pub fn rcv_nxt(&self) -> SeqNum {
        self.rcv.rcv_nxt
    }
    /// The current recovery phase (for tracing).
    pub fn recovery_phase(&self) -> crate::loss::RecoveryPhase {
        self.snd.phase
    }
    /// Today's Linux cwnd undo state and counters (`TcpConfig::cwnd_undo`, `linux/cwnd_undo.rs`).
    pub fn cwnd_undo(&self) -> &crate::linux::cwnd_undo::CwndUndo {
        &self.snd.undo
    }
    /// Consistency check of the sender's scoreboard counters against a full recount
    /// (O(window); for tests and debugging only).
    #[doc(hidden)]
    pub fn debug_scoreboard_consistent(&self) -> bool {
        self.snd.sb.check_counters()
    }
    /// RFC 3168 state: negotiated, echoing, counters (`crate::ecn`).
    pub fn ecn(&self) -> &crate::ecn::EcnState {
        &self.snd.ecn
    }
    /// The peer's FIN has been received (and all data before it).
    pub fn fin_received(&self) -> bool {
        self.rcv.fin_received
    }
}
