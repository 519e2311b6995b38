//! TCP endpoints on hosts, and how the simulator addresses them.
//!
//! Every open connection has two endpoints in a pair of slots: the client (index `2 * slot`) at
//! `src` and the server (`2 * slot + 1`) at `dst` (pairs are reused once a connection has
//! ended, see `lifecycle`). A packet carries its flow id and its side; the flow knows its
//! slot, so the receiving host finds the endpoint by index — no hashing of addresses and ports.
//!
//! Wake-ups are cancelled lazily: each endpoint has at most one *current* queued wake-up,
//! identified by a generation number; queuing a new one bumps the generation, and older queued
//! wake-ups are skipped when they come out of the event queue. A deadline that moves *later*
//! (the retransmission timer restarting on every ACK) queues nothing: the queued wake-up fires
//! early, sees the later deadline and re-queues itself once. Without this the heap would fill
//! with one stale entry per ACK for a whole RTO (≥ 1 s), and heap operations dominated the
//! run time (60 % in a 10 × 1 Gb/s profile).
//!
//! Addresses (for pcap output): node `i` is the IPv4 host `10.0.0.0/8 + (i + 1)`; the client
//! uses port `49152 + flow % 16384` (the IANA dynamic range, RFC 6335 §6) and the server port
//! 5001 (iperf's default).

use tcplab_tcp::{CcSnapshot, Connection, SeqNum};
use tcplab_time::SimTime;

/// RFC 6335 §6: first port of the dynamic/private range.
pub const CLIENT_PORT_BASE: u16 = 49152;
/// Size of the dynamic port range (49152..=65535).
pub const CLIENT_PORT_RANGE: u16 = 16384;
/// iperf's default server port.
pub const SERVER_PORT: u16 = 5001;

/// IPv4 address of node `i`: 10.x.y.z with x.y.z = i + 1.
pub fn node_ip(i: u32) -> [u8; 4] {
    let h = i + 1;
    [10, (h >> 16) as u8, (h >> 8) as u8, h as u8]
}

/// Port of the client (`is_client`) or server endpoint of `flow`.
pub fn port(flow: u32, is_client: bool) -> u16 {
    if is_client {
        CLIENT_PORT_BASE + (flow % u32::from(CLIENT_PORT_RANGE)) as u16
    } else {
        SERVER_PORT
    }
}

/// Index of an endpoint.
pub type EndpointId = u32;

/// The client (`from_client == false`, i.e. the packet came from the server) or server
/// endpoint that receives a packet of the connection in endpoint pair `slot`.
#[inline]
pub fn receiver_of(slot: u32, from_client: bool) -> EndpointId {
    2 * slot + u32::from(from_client)
}

/// One TCP endpoint and its driver state.
#[derive(Debug)]
pub struct Endpoint {
    pub conn: Connection,
    pub flow: u32,
    pub is_client: bool,
    pub node: u32,
    pub peer_node: u32,
    /// First hop towards the peer.
    pub out_link: u32,
    pub iss: SeqNum,
    pub ip_id: u16,
    /// Generation of the current queued wake-up; queued wake-ups with another value are stale.
    pub wake_gen: u32,
    /// The engine's deadline (`poll_timeout`, not earlier than when it was read).
    pub wake_at: Option<SimTime>,
    /// Time of the current queued wake-up, if any (≤ `wake_at` when both are set).
    pub queued_at: Option<SimTime>,
    /// Last congestion snapshot recorded (time series on change).
    pub last_cc: CcSnapshot,
}

/// What to do with a wake-up that came out of the event queue.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WakeAction {
    /// Cancelled or superseded: ignore.
    Stale,
    /// The deadline has come: call `handle_timeout`.
    Fire,
    /// The deadline moved later: queue the same wake-up again at this time.
    Defer(SimTime),
}

impl Endpoint {
    /// Records the engine's new deadline `timeout` read at `now`. Returns `(time, generation)`
    /// of a wake-up to queue, or `None` if the queued one (at or before the deadline) will do.
    #[inline]
    pub fn reschedule(&mut self, timeout: Option<SimTime>, now: SimTime) -> Option<(SimTime, u32)> {
        self.wake_at = timeout.map(|t| t.max(now));
        match (self.wake_at, self.queued_at) {
            (Some(t), Some(q)) if q <= t => None,
            (Some(t), _) => {
                self.wake_gen = self.wake_gen.wrapping_add(1);
                self.queued_at = Some(t);
                Some((t, self.wake_gen))
            }
            (None, _) => None,
        }
    }

    /// The queued wake-up of generation `gen` came out of the event queue at `now`.
    #[inline]
    pub fn on_wake(&mut self, gen: u32, now: SimTime) -> WakeAction {
        if gen != self.wake_gen || self.queued_at != Some(now) {
            return WakeAction::Stale;
        }
        self.queued_at = None;
        match self.wake_at {
            Some(t) if t <= now => {
                self.wake_at = None;
                WakeAction::Fire
            }
            Some(t) => {
                self.queued_at = Some(t);
                WakeAction::Defer(t)
            }
            None => WakeAction::Stale,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ep() -> Endpoint {
        Endpoint {
            conn: Connection::server(Default::default(), SeqNum(1)),
            flow: 0,
            is_client: false,
            node: 0,
            peer_node: 1,
            out_link: 0,
            iss: SeqNum(1),
            ip_id: 0,
            wake_gen: 0,
            wake_at: None,
            queued_at: None,
            last_cc: CcSnapshot::default(),
        }
    }

    #[test]
    fn an_earlier_deadline_queues_a_new_wake_up_and_supersedes_the_old_one() {
        let mut e = ep();
        assert_eq!(e.reschedule(Some(SimTime(20)), SimTime(0)), Some((SimTime(20), 1)));
        assert_eq!(e.reschedule(Some(SimTime(10)), SimTime(0)), Some((SimTime(10), 2)));
        assert_eq!(e.on_wake(2, SimTime(10)), WakeAction::Fire);
        assert_eq!(e.on_wake(1, SimTime(20)), WakeAction::Stale);
    }

    #[test]
    fn a_later_deadline_queues_nothing_and_the_early_wake_up_defers_itself_once() {
        let mut e = ep();
        assert_eq!(e.reschedule(Some(SimTime(10)), SimTime(0)), Some((SimTime(10), 1)));
        for t in [12, 15, 30] {
            assert_eq!(e.reschedule(Some(SimTime(t)), SimTime(1)), None);
        }
        assert_eq!(e.on_wake(1, SimTime(10)), WakeAction::Defer(SimTime(30)));
        assert_eq!(e.on_wake(1, SimTime(30)), WakeAction::Fire);
    }

    #[test]
    fn a_cancelled_deadline_makes_the_queued_wake_up_stale() {
        let mut e = ep();
        assert_eq!(e.reschedule(Some(SimTime(10)), SimTime(0)), Some((SimTime(10), 1)));
        assert_eq!(e.reschedule(None, SimTime(5)), None);
        assert_eq!(e.on_wake(1, SimTime(10)), WakeAction::Stale);
        // A new deadline after the stale one was consumed queues again.
        assert_eq!(e.reschedule(Some(SimTime(40)), SimTime(20)), Some((SimTime(40), 2)));
    }

    #[test]
    fn a_timeout_in_the_past_is_scheduled_now() {
        let mut e = ep();
        assert_eq!(e.reschedule(Some(SimTime(5)), SimTime(9)), Some((SimTime(9), 1)));
    }

    #[test]
    fn node_addresses_and_ports_follow_the_documented_plan() {
        assert_eq!(node_ip(0), [10, 0, 0, 1]);
        assert_eq!(node_ip(65_535), [10, 1, 0, 0]);
        assert_eq!(port(3, true), 49155);
        assert_eq!(port(16_384 + 3, true), 49155);
        assert_eq!(port(3, false), 5001);
        assert_eq!(receiver_of(7, true), 15);
        assert_eq!(receiver_of(7, false), 14);
    }
}
