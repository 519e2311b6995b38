//! Simulated IP packets and the arena that owns them.
//!
//! A packet is one copy of a TCP segment on the wire. Packets live in a [`PacketArena`]
//! (a `Vec` plus a free list), so events carry a 4-byte [`PacketId`] and steady state does not
//! allocate: freed slots are reused.
//!
//! A [`Packet`] is one 64-byte cache line (`repr(C, align(64))`): a packet sits in the arena for
//! a round trip and is read cold at every hop (at 1000 flows, thousands are in flight), so each
//! line it spans is a cache miss per hop. It therefore does not hold a whole [`Segment`] (72
//! bytes, 40 of them SACK blocks and handshake options that most segments do not carry): the
//! segment's per-packet fields are inline, and the rarely set options (MSS, window scale,
//! SACK-permitted, SACK blocks, the Quick-Start Request and Response, a Pathlet header that is
//! more than its 8-byte data section) live in a side pool of the arena ([`RareOptions`], indexed by
//! `Packet::rare`, slots reused through a free list like the packets', so no allocation per
//! packet either). [`PacketArena::segment`] rebuilds the `Segment` where one is needed (delivery
//! to the endpoint, pcap).

use tcplab_tcp::startup::pathlet_header::{PathletHeader, PathletKind, EMPTY_ID, MAX_SLOTS};
use tcplab_tcp::startup::quickstart::{QsIpOption, QsResponse};
use tcplab_tcp::profile::SynOptionLayout;
use tcplab_tcp::{Ecn, SackBlocks, Segment, SeqNum, TcpFlags, TcpOptions};
use tcplab_time::SimTime;

/// RFC 791: IPv4 header without options.
pub const IPV4_HEADER_LEN: u32 = 20;
/// RFC 1700 / Linux `net.ipv4.ip_default_ttl`: initial TTL of 64.
pub const DEFAULT_TTL: u8 = 64;

/// Index of a packet in the arena.
pub type PacketId = u32;

/// `Packet::rare` when the segment carries none of the rare options.
const NO_RARE: u32 = u32::MAX;

/// `Packet::bits`: the segment's ECN codepoint (two bits), then flags.
const BITS_ECN: u8 = 0b11;
const BIT_TIMESTAMPS: u8 = 1 << 2;
const BIT_FROM_CLIENT: u8 = 1 << 3;
const BIT_LOST: u8 = 1 << 4;
/// The packet carries a Pathlet header (seed 004 §III-A; `sim::pathlet`): a plain data section
/// (no discovery slots, Congested Pathlet empty) when it has no side-pool copy.
const BIT_PATHLET: u8 = 1 << 5;
/// The packet carries a Pathlet Echo header (same convention).
const BIT_PATHLET_ECHO: u8 = 1 << 6;

/// The two ECN bits of the IP header (RFC 3168 §5: ECT(1) = 01, ECT(0) = 10, CE = 11).
#[inline]
const fn ecn_bits(e: Ecn) -> u8 {
    match e {
        Ecn::NotEct => 0,
        Ecn::Ect1 => 1,
        Ecn::Ect0 => 2,
        Ecn::Ce => 3,
    }
}

/// One copy of a segment in flight: the segment's per-packet fields (seq, ack, length, window,
/// flags, ECN, timestamps; the rest in the arena's side pool) and the simulator's own.
///
/// The segment fields are written only by `PacketArena::alloc` (the `pub(super)` ones are
/// visible to the simulator for `..Packet::default()`) and read back whole with
/// `PacketArena::segment`. No link direction is stored: arrival events carry it, and capture
/// events the pcap writer's index.
#[derive(Copy, Clone, Debug, Default)]
#[repr(C, align(64))]
pub struct Packet {
    /// Unique, increasing id of this copy (assigned in emission order over the whole run).
    pub copy_id: u64,
    /// Arrival time of `next` (valid while `next` is).
    pub next_at: SimTime,
    pub seq: SeqNum,
    pub ack: SeqNum,
    /// Payload length in bytes (`Segment::len`).
    pub len: u32,
    /// Timestamps option (TSval, TSecr), if `bits & BIT_TIMESTAMPS`.
    pub(super) ts_val: u32,
    pub(super) ts_ecr: u32,
    /// Flow id (index into `SimSpec::flows`): the receiving host demultiplexes on it.
    pub flow: u32,
    /// Destination node.
    pub dst_node: u32,
    /// Bytes on the wire: IPv4 header + IP options + TCP header with options + payload.
    pub wire_len: u32,
    /// The packet behind this one in its link direction's in-flight FIFO (valid while this
    /// packet is in the FIFO and not its tail; see `LinkDirState::push_arrival`).
    pub next: PacketId,
    /// Slot of the segment's rare options in `PacketArena::rare` (`NO_RARE`: none).
    pub(super) rare: u32,
    /// Window field as sent.
    pub(super) window: u16,
    /// IPv4 identification field, per sending endpoint (for pcap output).
    pub ip_id: u16,
    pub flags: TcpFlags,
    /// ECN codepoint, timestamps present, data side, lost (`BITS_*`, `BIT_*`).
    pub(super) bits: u8,
    pub ttl: u8,
    /// IP options length in bytes (8 with a Quick-Start Request; at most 40).
    pub ip_options_len: u8,
}

/// The options most segments do not carry (handshake options, SACK blocks, Quick-Start),
/// out of line.
#[derive(Copy, Clone, Debug, Default)]
struct RareOptions {
    mss: Option<u16>,
    window_scale: Option<u8>,
    sack_permitted: bool,
    sack: SackBlocks,
    /// RFC 4782 §3.1 IPv4 option (routers rewrite it in flight: [`PacketArena::qs_request_mut`]).
    qs_request: Option<QsIpOption>,
    /// RFC 4782 §4.2 TCP option.
    quick_start: Option<QsResponse>,
    /// The Pathlet and Pathlet Echo headers when they are more than a plain data section
    /// (routers rewrite the former in flight: [`PacketArena::pathlet_mut`]).
    pathlet: Option<PathletHeader>,
    pathlet_echo: Option<PathletHeader>,
    /// The sending stack's handshake option layout, on a SYN or SYN-ACK (the capture writes
    /// the options in it; `tcplab_tcp::profile::syn_layout`).
    syn_layout: SynOptionLayout,
}

impl Packet {
    /// Wire length of `seg` with `ip_options_len` bytes of IP options.
    #[inline]
    pub fn wire_len_of(seg: &Segment, ip_options_len: u8) -> u32 {
        IPV4_HEADER_LEN + u32::from(ip_options_len) + seg.header_len() as u32 + seg.len
    }

    /// True on the data side (client → server), false on the ACK side (server → client).
    #[inline]
    pub fn from_client(&self) -> bool {
        self.bits & BIT_FROM_CLIENT != 0
    }

    #[inline]
    pub fn set_from_client(&mut self, v: bool) {
        self.set_bit(BIT_FROM_CLIENT, v);
    }

    /// The link's loss model dropped this copy (kept only until its capture is written).
    #[inline]
    pub fn lost(&self) -> bool {
        self.bits & BIT_LOST != 0
    }

    #[inline]
    pub fn set_lost(&mut self, v: bool) {
        self.set_bit(BIT_LOST, v);
    }

    /// The IP ECN codepoint (RFC 3168 §5).
    #[inline]
    pub fn ecn(&self) -> Ecn {
        match self.bits & BITS_ECN {
            0 => Ecn::NotEct,
            1 => Ecn::Ect1,
            2 => Ecn::Ect0,
            _ => Ecn::Ce,
        }
    }

    /// Sets the ECN codepoint (a router marking CE).
    #[inline]
    pub fn set_ecn(&mut self, e: Ecn) {
        self.bits = (self.bits & !BITS_ECN) | ecn_bits(e);
    }

    #[inline]
    fn set_bit(&mut self, bit: u8, v: bool) {
        self.bits = if v { self.bits | bit } else { self.bits & !bit };
    }
}

/// Owns every packet in flight (and their rare options); ids are reused after `free`.
#[derive(Debug, Default)]
pub struct PacketArena {
    slots: Vec<Packet>,
    free: Vec<PacketId>,
    rare: Vec<RareOptions>,
    rare_free: Vec<u32>,
}

impl PacketArena {
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores `p` carrying segment `seg` (its segment fields are set from `seg`).
    #[inline]
    pub fn alloc(&mut self, seg: &Segment, mut p: Packet) -> PacketId {
        let o = &seg.options;
        (p.seq, p.ack, p.len, p.window, p.flags) = (seg.seq, seg.ack, seg.len, seg.window, seg.flags);
        p.bits = (p.bits & !(BITS_ECN | BIT_TIMESTAMPS)) | ecn_bits(seg.ecn);
        if let Some((v, e)) = o.timestamps {
            (p.ts_val, p.ts_ecr) = (v, e);
            p.bits |= BIT_TIMESTAMPS;
        }
        p.rare = if o.mss.is_none()
            && o.window_scale.is_none()
            && !o.sack_permitted
            && o.sack.is_empty()
            && seg.qs_request.is_none()
            && o.quick_start.is_none()
        {
            NO_RARE
        } else {
            self.alloc_rare(RareOptions {
                mss: o.mss,
                window_scale: o.window_scale,
                sack_permitted: o.sack_permitted,
                sack: o.sack,
                qs_request: seg.qs_request,
                quick_start: o.quick_start,
                pathlet: None,
                pathlet_echo: None,
                syn_layout: SynOptionLayout::default(),
            })
        };
        if let Some(id) = self.free.pop() {
            self.slots[id as usize] = p;
            id
        } else {
            self.slots.push(p);
            (self.slots.len() - 1) as PacketId
        }
    }

    #[inline(never)]
    fn alloc_rare(&mut self, r: RareOptions) -> u32 {
        if let Some(i) = self.rare_free.pop() {
            self.rare[i as usize] = r;
            i
        } else {
            self.rare.push(r);
            (self.rare.len() - 1) as u32
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

    /// The TCP segment `p` (a packet of this arena) carries.
    #[inline]
    pub fn segment(&self, p: &Packet) -> Segment {
        let r = if p.rare == NO_RARE { RareOptions::default() } else { self.rare[p.rare as usize] };
        Segment {
            seq: p.seq,
            ack: p.ack,
            flags: p.flags,
            window: p.window,
            len: p.len,
            options: TcpOptions {
                mss: r.mss,
                window_scale: r.window_scale,
                sack_permitted: r.sack_permitted,
                timestamps: (p.bits & BIT_TIMESTAMPS != 0).then_some((p.ts_val, p.ts_ecr)),
                sack: r.sack,
                quick_start: r.quick_start,
            },
            ecn: p.ecn(),
            qs_request: r.qs_request,
            ttl: p.ttl,
        }
    }

    /// The Quick-Start Request packet `id` carries, for a router to rewrite (`None`: none).
    #[inline]
    pub fn qs_request_mut(&mut self, id: PacketId) -> Option<&mut QsIpOption> {
        let rare = self.slots[id as usize].rare;
        if rare == NO_RARE {
            return None;
        }
        self.rare[rare as usize].qs_request.as_mut()
    }

    /// Adds Pathlet header `h` (or an Echo, by its kind) to packet `id`: its bytes count in the
    /// IP options and on the wire. A plain data section takes no side-pool slot.
    #[inline]
    pub fn set_pathlet(&mut self, id: PacketId, h: PathletHeader) {
        // `h == PathletHeader { kind: h.kind, ..PathletHeader::data() }`, cheapest test first.
        let plain = h.slots == 0 && h.congested == EMPTY_ID && h.ids == [EMPTY_ID; MAX_SLOTS];
        let (bit, len) = (if h.kind == PathletKind::Echo { BIT_PATHLET_ECHO } else { BIT_PATHLET }, h.wire_len());
        let p = &mut self.slots[id as usize];
        p.bits |= bit;
        p.ip_options_len += len;
        p.wire_len += u32::from(len);
        if !plain {
            self.store_pathlet(id, h);
        }
    }

    /// [`Self::set_pathlet`] for a header that is more than a plain data section.
    #[cold]
    #[inline(never)]
    fn store_pathlet(&mut self, id: PacketId, h: PathletHeader) {
        let r = self.rare_of(id);
        match h.kind {
            PathletKind::Pathlet => r.pathlet = Some(h),
            PathletKind::Echo => r.pathlet_echo = Some(h),
        }
    }

    /// The Pathlet header (`echo` false) or Pathlet Echo header packet `p` carries.
    #[inline]
    pub fn pathlet(&self, p: &Packet, echo: bool) -> Option<PathletHeader> {
        let bit = if echo { BIT_PATHLET_ECHO } else { BIT_PATHLET };
        if p.bits & bit == 0 {
            return None;
        }
        let kind = if echo { PathletKind::Echo } else { PathletKind::Pathlet };
        let stored = (p.rare != NO_RARE).then(|| {
            let r = &self.rare[p.rare as usize];
            if echo {
                r.pathlet_echo
            } else {
                r.pathlet
            }
        });
        Some(stored.flatten().unwrap_or(PathletHeader { kind, ..PathletHeader::data() }))
    }

    /// Whether the Pathlet header (`echo` false) or Pathlet Echo header of packet `p` is a plain
    /// data section (no discovery section, no Congested Pathlet: not in the side pool), `None`
    /// without one: what a caller of [`Self::pathlet`] may need to know, without building it.
    #[inline]
    pub fn pathlet_plain(&self, p: &Packet, echo: bool) -> Option<bool> {
        let bit = if echo { BIT_PATHLET_ECHO } else { BIT_PATHLET };
        if p.bits & bit == 0 {
            return None;
        }
        if p.rare == NO_RARE {
            return Some(true);
        }
        let r = &self.rare[p.rare as usize];
        Some(if echo { r.pathlet_echo.is_none() } else { r.pathlet.is_none() })
    }

    /// The Pathlet header of packet `id` for a router to rewrite (moved to the side pool if it
    /// was a plain data section); `None` without one.
    pub fn pathlet_mut(&mut self, id: PacketId) -> Option<&mut PathletHeader> {
        if self.slots[id as usize].bits & BIT_PATHLET == 0 {
            return None;
        }
        let r = self.rare_of(id);
        Some(r.pathlet.get_or_insert(PathletHeader::data()))
    }

    /// Records the handshake option layout of the stack that sent packet `id` (a SYN or
    /// SYN-ACK; read back by the capture writer). The engine's own (Linux) takes no slot.
    pub fn set_syn_layout(&mut self, id: PacketId, layout: SynOptionLayout) {
        if layout != SynOptionLayout::default() {
            self.rare_of(id).syn_layout = layout;
        }
    }

    /// The handshake option layout packet `p` was sent with.
    #[inline]
    pub fn syn_layout(&self, p: &Packet) -> SynOptionLayout {
        if p.rare == NO_RARE {
            SynOptionLayout::default()
        } else {
            self.rare[p.rare as usize].syn_layout
        }
    }

    /// Packet `id`'s side-pool slot, allocated if it had none.
    fn rare_of(&mut self, id: PacketId) -> &mut RareOptions {
        if self.slots[id as usize].rare == NO_RARE {
            let r = self.alloc_rare(RareOptions::default());
            self.slots[id as usize].rare = r;
        }
        let r = self.slots[id as usize].rare;
        &mut self.rare[r as usize]
    }

    #[inline]
    pub fn free(&mut self, id: PacketId) {
        let rare = self.slots[id as usize].rare;
        if rare != NO_RARE {
            self.rare_free.push(rare);
        }
        self.free.push(id);
    }

    /// Packets currently allocated.
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// The smallest `copy_id` of the packets currently allocated (`None` when there are
    /// none). Linear in the arena's size: for occasional use (`SpuriousTracker::settle`).
    pub fn oldest_live_copy(&self) -> Option<u64> {
        let mut free = vec![false; self.slots.len()];
        for &id in &self.free {
            free[id as usize] = true;
        }
        self.slots.iter().zip(&free).filter(|(_, &f)| !f).map(|(p, _)| p.copy_id).min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_tcp::SackBlock;

    #[test]
    fn freed_slots_are_reused() {
        let mut a = PacketArena::new();
        let seg = Segment::default();
        let x = a.alloc(&seg, Packet { flow: 1, ..Packet::default() });
        let y = a.alloc(&seg, Packet { flow: 2, ..Packet::default() });
        a.free(x);
        let z = a.alloc(&seg, Packet { flow: 3, ..Packet::default() });
        assert_eq!(z, x);
        assert_eq!(a.get(y).flow, 2);
        assert_eq!(a.get(z).flow, 3);
        assert_eq!(a.live(), 2);
    }

    #[test]
    fn a_packet_is_one_cache_line() {
        assert_eq!(std::mem::size_of::<Packet>(), 64);
        assert_eq!(std::mem::align_of::<Packet>(), 64);
    }

    #[test]
    fn the_segment_comes_back_unchanged_and_rare_option_slots_are_reused() {
        let mut a = PacketArena::new();
        let mut sack = SackBlocks::new();
        sack.push(SackBlock { left: SeqNum(100), right: SeqNum(200) });
        sack.push(SackBlock { left: SeqNum(300), right: SeqNum(u32::MAX) });
        let syn = Segment {
            seq: SeqNum(7),
            flags: TcpFlags::SYN,
            window: 65535,
            options: TcpOptions {
                mss: Some(1448),
                window_scale: Some(7),
                sack_permitted: true,
                timestamps: Some((1, 0)),
                sack: SackBlocks::new(),
                quick_start: None,
            },
            ecn: Ecn::Ect0,
            ..Segment::default()
        };
        let ack = Segment {
            seq: SeqNum(8),
            ack: SeqNum(u32::MAX),
            flags: TcpFlags::ACK | TcpFlags::ECE,
            window: 512,
            len: 1448,
            options: TcpOptions { timestamps: Some((u32::MAX, 3)), sack, ..TcpOptions::default() },
            ecn: Ecn::Ce,
            ..Segment::default()
        };
        let plain = Segment { seq: SeqNum(9), len: 100, ecn: Ecn::Ect1, ..Segment::default() };
        let ids: Vec<PacketId> = [syn, ack, plain]
            .iter()
            .map(|s| {
                let mut p = Packet::default();
                p.set_from_client(true);
                a.alloc(s, p)
            })
            .collect();
        for (id, s) in ids.iter().zip([syn, ack, plain]) {
            let p = *a.get(*id);
            assert_eq!(a.segment(&p), s);
            assert!(p.from_client() && !p.lost());
        }
        assert_eq!(a.get(ids[2]).rare, NO_RARE);
        a.free(ids[1]);
        let again = a.alloc(&ack, Packet::default());
        assert_eq!(a.get(again).rare, 1, "the freed SACK slot is reused");
        assert_eq!(a.segment(a.get(again)), ack);
        assert!(!a.get(again).from_client());
    }

    #[test]
    fn wire_length_counts_ip_tcp_options_and_payload() {
        let mut seg = Segment { len: 1448, ..Segment::default() };
        seg.options.timestamps = Some((1, 2));
        assert_eq!(Packet::wire_len_of(&seg, 0), 1500);
        assert_eq!(Packet::wire_len_of(&seg, 8), 1508);
    }

    #[test]
    fn pathlet_headers_count_on_the_wire_and_only_rewritten_ones_take_a_side_slot() {
        let mut a = PacketArena::new();
        let seg = Segment { len: 1000, ..Segment::default() };
        let plain = a.alloc(&seg, Packet { wire_len: Packet::wire_len_of(&seg, 0), ..Packet::default() });
        a.set_pathlet(plain, PathletHeader::data());
        let p = *a.get(plain);
        assert_eq!((p.ip_options_len, p.wire_len, p.rare), (8, 20 + 20 + 1000 + 8, NO_RARE));
        assert_eq!(a.pathlet(&p, false), Some(PathletHeader::data()));
        assert_eq!(a.pathlet(&p, true), None);
        assert_eq!((a.pathlet_plain(&p, false), a.pathlet_plain(&p, true)), (Some(true), None));
        // A router marks the congested pathlet: the header moves to the side pool.
        a.pathlet_mut(plain).map(|h| h.mark_congested(42));
        let p = *a.get(plain);
        assert_ne!(p.rare, NO_RARE);
        assert_eq!(a.pathlet_plain(&p, false), Some(false));
        assert_eq!(a.pathlet(&p, false).map(|h| h.congested), Some(42));
        // Discovery (32 bytes) and an echo on one packet.
        let d = a.alloc(&seg, Packet::default());
        a.set_pathlet(d, PathletHeader::discovery(6));
        let echo = PathletHeader { kind: PathletKind::Echo, congested: 7, ..PathletHeader::data() };
        a.set_pathlet(d, echo);
        let p = *a.get(d);
        assert_eq!(p.ip_options_len, 40);
        assert_eq!(a.pathlet(&p, false).map(|h| h.slots), Some(6));
        assert_eq!(a.pathlet(&p, true), Some(echo));
        assert_eq!((a.pathlet_plain(&p, false), a.pathlet_plain(&p, true)), (Some(false), Some(false)));
        // A plain echo beside a stored header is plain.
        let e = a.alloc(&seg, Packet::default());
        a.set_pathlet(e, PathletHeader::discovery(2));
        a.set_pathlet(e, PathletHeader { kind: PathletKind::Echo, ..PathletHeader::data() });
        let p = *a.get(e);
        assert_eq!((a.pathlet_plain(&p, false), a.pathlet_plain(&p, true)), (Some(false), Some(true)));
        let none = a.alloc(&seg, Packet::default());
        assert!(a.pathlet_mut(none).is_none(), "no header, nothing to rewrite");
    }
}
