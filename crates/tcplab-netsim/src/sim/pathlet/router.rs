//! The pathlet router (seed 004 §III-A, §III-B): what it does to a packet it forwards.
//!
//! - Discovery: "As a packet with pathlet header passes a pathlet router, and has "Slots" value
//!   larger than zero, the pathlet router adds its identifier to the first free slot in the
//!   pathlet discovery section. If all slots are full ... the remaining pathlet routers simply
//!   pass the packet forward."
//! - Congestion: "When a pathlet router encounters a "Congestion Experienced" bit in an incoming
//!   IP header, it adds its identification to the packet, if no earlier pathlet router had done
//!   so."
//! - Its own congestion: "If pathlet router itself is congested ... the pathlet router can
//!   signal it by simply placing an ECN Congestion Established mark on the packet" — that is
//!   the RED queue of its outgoing link (`sim::red`), which runs after this hook; the next
//!   pathlet router (or the receiver's End-of-Path code) then names the pathlet.
//! - "Intermediate pathlet routers do not process the "Pathlet Echo" header."
//!
//! A router's ID is its IPv4 address (004 §II-A: "The identifier format is free: it could be
//! based on IP addresses"), never 0 (empty slot) nor 0xFFFFFFFF (End-of-Path).

use crate::sim::packet::{PacketArena, PacketId};
use tcplab_tcp::Ecn;

/// What a router did, for its counters.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RouterStats {
    /// Discovery slots this router filled.
    pub discoveries: u64,
    /// Discovery packets that found no free slot.
    pub full: u64,
    /// Congested Pathlet fields this router set.
    pub congested_marks: u64,
}

/// Router `id` forwards packet `pkt`.
#[inline]
pub fn on_forward(id: u32, pkt: PacketId, packets: &mut PacketArena, stats: &mut RouterStats) {
    let p = packets.get(pkt);
    let ce = p.ecn() == Ecn::Ce;
    // A plain data section (no slots, no Congested Pathlet) on a packet without CE needs no
    // rewrite (the common case: no side-pool slot is taken, no header is built).
    match packets.pathlet_plain(p, false) {
        None => return,
        Some(true) if !ce => return,
        Some(_) => {}
    }
    let Some(h) = packets.pathlet(p, false) else { return };
    if h.slots == 0 && !(ce && h.congested == 0) {
        return;
    }
    let Some(h) = packets.pathlet_mut(pkt) else { return };
    if h.slots > 0 {
        if h.record_router(id) {
            stats.discoveries += 1;
        } else {
            stats.full += 1;
        }
    }
    if ce && h.mark_congested(id) {
        stats.congested_marks += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::packet::Packet;
    use tcplab_tcp::startup::pathlet_header::{PathletHeader, PathletKind};
    use tcplab_tcp::Segment;

    fn packet(a: &mut PacketArena, ecn: Ecn, h: Option<PathletHeader>) -> PacketId {
        let id = a.alloc(&Segment { ecn, len: 100, ..Segment::default() }, Packet::default());
        if let Some(h) = h {
            a.set_pathlet(id, h);
        }
        id
    }

    #[test]
    fn discovery_slots_fill_in_path_order_until_full() {
        let mut a = PacketArena::new();
        let mut st = RouterStats::default();
        let id = packet(&mut a, Ecn::Ect0, Some(PathletHeader::discovery(2)));
        for r in [11, 22, 33] {
            on_forward(r, id, &mut a, &mut st);
        }
        let h = a.pathlet(a.get(id), false).unwrap_or_default();
        assert_eq!(h.discovered(), &[11, 22]);
        assert_eq!(h.congested, 0);
        assert_eq!(st, RouterStats { discoveries: 2, full: 1, congested_marks: 0 });
    }

    #[test]
    fn the_first_router_to_see_ce_names_the_pathlet() {
        let mut a = PacketArena::new();
        let mut st = RouterStats::default();
        let id = packet(&mut a, Ecn::Ect0, Some(PathletHeader::data()));
        on_forward(11, id, &mut a, &mut st); // not yet marked
        a.get_mut(id).set_ecn(Ecn::Ce); // a queue after router 11 marks it
        on_forward(22, id, &mut a, &mut st);
        on_forward(33, id, &mut a, &mut st);
        assert_eq!(a.pathlet(a.get(id), false).map(|h| h.congested), Some(22));
        assert_eq!(st.congested_marks, 1);
    }

    #[test]
    fn echoes_and_packets_without_a_header_pass_untouched() {
        let mut a = PacketArena::new();
        let mut st = RouterStats::default();
        let echo = PathletHeader { kind: PathletKind::Echo, slots: 2, ..PathletHeader::data() };
        let e = packet(&mut a, Ecn::Ce, Some(echo));
        let n = packet(&mut a, Ecn::Ce, None);
        on_forward(11, e, &mut a, &mut st);
        on_forward(11, n, &mut a, &mut st);
        assert_eq!(a.pathlet(a.get(e), true), Some(echo));
        assert_eq!(a.pathlet(a.get(n), false), None);
        assert_eq!(st, RouterStats::default());
    }
}
