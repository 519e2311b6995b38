//! Simulated IP packets and the arena that owns them.
//!
//! A packet is one copy of a TCP segment on the wire. Packets live in a [`PacketArena`]
//! (a `Vec` plus a free list), so events carry a 4-byte [`PacketId`] and steady state does not
//! allocate: freed slots are reused.

use tcplab_tcp::Segment;
use tcplab_time::SimTime;

/// RFC 791: IPv4 header without options.
pub const IPV4_HEADER_LEN: u32 = 20;
/// RFC 1700 / Linux `net.ipv4.ip_default_ttl`: initial TTL of 64.
pub const DEFAULT_TTL: u8 = 64;

/// Index of a packet in the arena.
pub type PacketId = u32;

/// One copy of a segment in flight.
#[derive(Copy, Clone, Debug, Default)]
pub struct Packet {
    /// The TCP segment (flags, options, ECN bits); payload is modelled by length only.
    pub seg: Segment,
    /// Unique, increasing id of this copy (assigned in emission order over the whole run).
    pub copy_id: u64,
    /// Arrival time of `next` (valid while `next` is).
    pub next_at: SimTime,
    /// Flow id (index into `SimSpec::flows`): the receiving host demultiplexes on it.
    pub flow: u32,
    /// Destination node.
    pub dst_node: u32,
    /// The link direction currently carrying the packet (see `link`).
    pub link_dir: u32,
    /// Bytes on the wire: IPv4 header + IP options + TCP header with options + payload.
    pub wire_len: u32,
    /// IP options length in bytes (0 for now; Quick-Start and pathlet headers later).
    pub ip_options_len: u16,
    /// IPv4 identification field, per sending endpoint (for pcap output).
    pub ip_id: u16,
    /// True on the data side (client → server), false on the ACK side (server → client).
    pub from_client: bool,
    pub ttl: u8,
    /// The link's loss model dropped this copy (kept only until its capture is written).
    pub lost: bool,
    /// The packet behind this one in its link direction's in-flight FIFO (valid while this
    /// packet is in the FIFO and not its tail; see `LinkDirState::push_arrival`).
    pub next: PacketId,
}

impl Packet {
    /// Wire length of `seg` with `ip_options_len` bytes of IP options.
    #[inline]
    pub fn wire_len_of(seg: &Segment, ip_options_len: u16) -> u32 {
        IPV4_HEADER_LEN + u32::from(ip_options_len) + seg.header_len() as u32 + seg.len
    }
}

/// Owns every packet in flight; ids are reused after `free`.
#[derive(Debug, Default)]
pub struct PacketArena {
    slots: Vec<Packet>,
    free: Vec<PacketId>,
}

impl PacketArena {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    pub fn alloc(&mut self, p: Packet) -> PacketId {
        if let Some(id) = self.free.pop() {
            self.slots[id as usize] = p;
            id
        } else {
            self.slots.push(p);
            (self.slots.len() - 1) as PacketId
        }
    }

    #[inline]
    pub fn get(&self, id: PacketId) -> &Packet {
        &self.slots[id as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id as usize]
    }

    #[inline]
    pub fn free(&mut self, id: PacketId) {
        self.free.push(id);
    }

    /// Packets currently allocated.
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freed_slots_are_reused() {
        let mut a = PacketArena::new();
        let x = a.alloc(Packet { flow: 1, ..Packet::default() });
        let y = a.alloc(Packet { flow: 2, ..Packet::default() });
        a.free(x);
        let z = a.alloc(Packet { flow: 3, ..Packet::default() });
        assert_eq!(z, x);
        assert_eq!(a.get(y).flow, 2);
        assert_eq!(a.get(z).flow, 3);
        assert_eq!(a.live(), 2);
    }

    #[test]
    fn wire_length_counts_ip_tcp_options_and_payload() {
        let mut seg = Segment { len: 1448, ..Segment::default() };
        seg.options.timestamps = Some((1, 2));
        assert_eq!(Packet::wire_len_of(&seg, 0), 1500);
        assert_eq!(Packet::wire_len_of(&seg, 8), 1508);
    }
}
