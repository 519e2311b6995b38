//! The Pathlet header and the Pathlet Echo header of the Pathlet Transport Architecture
//! (seed 004 §III-A, Fig. 5), and their bytes as an IPv4 option.
//!
//! 004 §III-A: "The header can be divided into a common section, a pathlet discovery section,
//! and a pathlet data section. ... the header contains the number of slots reserved for pathlet
//! identifiers during the pathlet discovery phase. If pathlet discovery is not ongoing, the
//! value of "Slots" is zero, and the pathlet discovery section is omitted. "Rsvd" stands for
//! 8-bits reserved ... Each of the pathlet ID fields contains a 32-bit pathlet router identity,
//! or zero, if the particular slot is empty. ... The "Congested Pathlet" field indicates the
//! first pathlet router that detected congestion." The echo is "identically formatted" with a
//! "different header type".
//!
//! The paper assumes an IPv6 extension header; the simulator is IPv4, so the header is an
//! IPv4 option (the paper allows it: "the same information could also be sent as a IPv4 header
//! option"). Layout chosen here, in the order of Fig. 5 (common, discovery, data):
//!
//! ```text
//!  0       8       16      24      32
//! +-------+-------+-------+-------+
//! | Type  | Len   | Slots | Rsvd  |   common section (Type/Len replace IPv6 NH/Len)
//! +-------+-------+-------+-------+
//! |      Pathlet ID 1 (0: empty)  |   discovery section: Slots × 32 bits,
//! |      ...                      |   omitted when Slots = 0
//! |      Pathlet ID Slots         |
//! +-------------------------------+
//! |      Congested Pathlet        |   data section (0: none; 0xFFFFFFFF: End-of-Path)
//! +-------------------------------+
//! ```
//!
//! Type: option number 30, the value RFC 4727 §2.4 reserves for experiments ("RFC3692-style
//! Experiment"), with the copy flag set (so fragments keep it) — 0x9E (158) for the Pathlet
//! header, class 2 ("debugging and measurement") 0xDE (222) for the Pathlet Echo. Len is the
//! whole option, 8 + 4·Slots bytes: 8 without discovery and 32 with six slots, the two sizes
//! 004 §V-B estimates ("an additional header overhead of 32 bytes ... for packets that include
//! pathlet discovery section ... and 8 bytes for packets that only contain the pathlet data
//! section"). An IPv4 header holds 40 bytes of options, so at most [`MAX_SLOTS`] = 8 slots.

/// RFC 4727 §2.4: IPv4 option number 30 is reserved for RFC 3692-style experiments. Copy flag 1,
/// class 0 (control), number 30: the Pathlet header.
pub const IPOPT_PATHLET: u8 = 0x9E;
/// Copy flag 1, class 2 (debugging and measurement), number 30 (RFC 4727 §2.4): the Pathlet
/// Echo header (004 §III-A: "as "Pathlet Echo" header with different header type").
pub const IPOPT_PATHLET_ECHO: u8 = 0xDE;
/// 004 Fig. 5: the common section (Type, Len, Slots, Rsvd) and the 32-bit Congested Pathlet
/// field: the whole header when discovery is not ongoing (004 §V-B: "8 bytes").
pub const PATHLET_FIXED_LEN: u8 = 8;
/// 004 Fig. 5: each discovery slot holds a 32-bit pathlet router ID.
pub const PATHLET_SLOT_LEN: u8 = 4;
/// RFC 791: at most 40 bytes of IPv4 options, hence (40 − 8) / 4 slots.
pub const MAX_SLOTS: usize = 8;
/// 004 §V-B: "If we assume one pathlet router per AS and maximum of 6 AS'es, this would result
/// PTA causing an additional header overhead of 32 bytes": the default slot count.
pub const DEFAULT_SLOTS: u8 = 6;
/// 004 §III-A: "zero, if the particular slot is empty"; also "no congestion" in the Congested
/// Pathlet field. Never a router ID.
pub const EMPTY_ID: u32 = 0;
/// 004 §III-B: "the receiver marks a special *End-of-Path* code to the Congested Pathlet
/// field". The code chosen here; never a router ID.
pub const END_OF_PATH: u32 = 0xFFFF_FFFF;

/// Which of the two identically formatted headers (004 §III-A).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum PathletKind {
    /// Sent by the transport sender towards the receiver; processed by pathlet routers.
    #[default]
    Pathlet,
    /// The receiver's copy back to the sender; "Intermediate pathlet routers do not process"
    /// it.
    Echo,
}

/// One Pathlet (or Pathlet Echo) header.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct PathletHeader {
    pub kind: PathletKind,
    /// Slots of the discovery section (0: no discovery, section omitted).
    pub slots: u8,
    /// The discovery section; entries past `slots` are [`EMPTY_ID`].
    pub ids: [u32; MAX_SLOTS],
    /// The Congested Pathlet field ([`EMPTY_ID`], a router ID or [`END_OF_PATH`]).
    pub congested: u32,
}

/// A malformed Pathlet option.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PathletDecodeError {
    /// Not option type 0x9E / 0xDE.
    Type(u8),
    /// Length not 8 + 4·slots, or fewer bytes than it says.
    Length,
    /// More slots than an IPv4 header holds.
    Slots(u8),
}

impl PathletHeader {
    /// A Pathlet header that asks for discovery with `slots` empty slots (004 §III-A: the
    /// sender "sets "Slots" to a large enough value ... and initializes the pathlet IDs with
    /// zeros"); `slots` is capped at [`MAX_SLOTS`].
    pub fn discovery(slots: u8) -> Self {
        PathletHeader { slots: slots.min(MAX_SLOTS as u8), ..Self::default() }
    }

    /// A Pathlet header with only the data section (004 §III-B: after discovery "the sender
    /// includes the pathlet header with pathlet data section in every outgoing packet").
    pub fn data() -> Self {
        Self::default()
    }

    /// Bytes on the wire: 8 + 4·Slots.
    pub fn wire_len(&self) -> u8 {
        PATHLET_FIXED_LEN + PATHLET_SLOT_LEN * self.slots
    }

    /// The discovered router IDs, in path order (the filled slots).
    pub fn discovered(&self) -> &[u32] {
        let n = self.ids[..usize::from(self.slots)].iter().take_while(|&&id| id != EMPTY_ID).count();
        &self.ids[..n]
    }

    /// All slots are taken (004 §V-A: "If a discovery yielded a full pathlet router section a
    /// host should consider initiating a rediscovery with a larger number of pathlet ID slots").
    pub fn is_full(&self) -> bool {
        self.slots > 0 && self.discovered().len() == usize::from(self.slots)
    }

    /// 004 §III-A: "the pathlet router adds its identifier to the first free slot in the
    /// pathlet discovery section. If all slots are full ... the remaining pathlet routers simply
    /// pass the packet forward." Returns whether a slot was written.
    pub fn record_router(&mut self, id: u32) -> bool {
        let n = self.discovered().len();
        if n < usize::from(self.slots) {
            self.ids[n] = id;
            true
        } else {
            false
        }
    }

    /// 004 §III-B: "When a pathlet router detects congestion on an incoming packet, it adds its
    /// identity to the Congested Pathlet field in the pathlet header, if this field has not been
    /// used by an earlier pathlet router." (The receiver's End-of-Path code uses the same rule.)
    /// Returns whether the field was written.
    pub fn mark_congested(&mut self, id: u32) -> bool {
        if self.congested == EMPTY_ID {
            self.congested = id;
            true
        } else {
            false
        }
    }

    /// The option bytes (module doc layout) into `out`; returns the length written.
    pub fn encode(&self, out: &mut [u8; 40]) -> usize {
        let len = usize::from(self.wire_len());
        out[0] = match self.kind {
            PathletKind::Pathlet => IPOPT_PATHLET,
            PathletKind::Echo => IPOPT_PATHLET_ECHO,
        };
        out[1] = self.wire_len();
        out[2] = self.slots;
        out[3] = 0;
        for (i, id) in self.ids[..usize::from(self.slots)].iter().enumerate() {
            out[4 + 4 * i..8 + 4 * i].copy_from_slice(&id.to_be_bytes());
        }
        out[len - 4..len].copy_from_slice(&self.congested.to_be_bytes());
        len
    }

    /// Parses one option from the start of `b`.
    pub fn decode(b: &[u8]) -> Result<PathletHeader, PathletDecodeError> {
        let kind = match b.first() {
            Some(&IPOPT_PATHLET) => PathletKind::Pathlet,
            Some(&IPOPT_PATHLET_ECHO) => PathletKind::Echo,
            Some(&t) => return Err(PathletDecodeError::Type(t)),
            None => return Err(PathletDecodeError::Length),
        };
        let (&len, &slots) = (b.get(1).ok_or(PathletDecodeError::Length)?, b.get(2).ok_or(PathletDecodeError::Length)?);
        if usize::from(slots) > MAX_SLOTS {
            return Err(PathletDecodeError::Slots(slots));
        }
        let want = PATHLET_FIXED_LEN + PATHLET_SLOT_LEN * slots;
        if len != want || b.len() < usize::from(len) {
            return Err(PathletDecodeError::Length);
        }
        let word = |at: usize| u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
        let mut h = PathletHeader { kind, slots, ..Self::default() };
        for i in 0..usize::from(slots) {
            h.ids[i] = word(4 + 4 * i);
        }
        h.congested = word(usize::from(len) - 4);
        Ok(h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_the_papers_8_and_32_bytes() {
        assert_eq!(PathletHeader::data().wire_len(), 8);
        assert_eq!(PathletHeader::discovery(DEFAULT_SLOTS).wire_len(), 32);
        assert_eq!(PathletHeader::discovery(200).slots as usize, MAX_SLOTS);
        assert_eq!(PathletHeader::discovery(200).wire_len(), 40);
    }

    #[test]
    fn routers_fill_slots_in_order_and_pass_when_full() {
        let mut h = PathletHeader::discovery(2);
        assert!(h.discovered().is_empty() && !h.is_full());
        assert!(h.record_router(7));
        assert!(h.record_router(9));
        assert!(!h.record_router(11), "all slots full: the router just forwards");
        assert_eq!(h.discovered(), &[7, 9]);
        assert!(h.is_full());
        let mut d = PathletHeader::data();
        assert!(!d.record_router(7), "no discovery section");
    }

    #[test]
    fn only_the_first_congested_router_is_recorded() {
        let mut h = PathletHeader::data();
        assert!(h.mark_congested(5));
        assert!(!h.mark_congested(6));
        assert!(!h.mark_congested(END_OF_PATH));
        assert_eq!(h.congested, 5);
    }

    #[test]
    fn bytes_follow_the_documented_layout_and_round_trip() {
        let mut h = PathletHeader::discovery(2);
        h.record_router(0x0A00_0001);
        h.congested = END_OF_PATH;
        let mut b = [0u8; 40];
        let n = h.encode(&mut b);
        assert_eq!(n, 16);
        assert_eq!(&b[..16], &[0x9E, 16, 2, 0, 10, 0, 0, 1, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]);
        assert_eq!(PathletHeader::decode(&b[..n]), Ok(h));
        let e = PathletHeader { kind: PathletKind::Echo, congested: 3, ..PathletHeader::data() };
        let n = e.encode(&mut b);
        assert_eq!(&b[..n], &[0xDE, 8, 0, 0, 0, 0, 0, 3]);
        assert_eq!(PathletHeader::decode(&b[..n]), Ok(e));
    }

    #[test]
    fn malformed_options_are_rejected() {
        assert_eq!(PathletHeader::decode(&[25, 8, 0, 0, 0, 0, 0, 0]), Err(PathletDecodeError::Type(25)));
        assert_eq!(PathletHeader::decode(&[0x9E, 12, 0, 0, 0, 0, 0, 0]), Err(PathletDecodeError::Length));
        assert_eq!(PathletHeader::decode(&[0x9E, 16, 2, 0, 0, 0, 0, 0]), Err(PathletDecodeError::Length));
        assert_eq!(PathletHeader::decode(&[0x9E, 44, 9, 0]), Err(PathletDecodeError::Slots(9)));
        assert_eq!(PathletHeader::decode(&[]), Err(PathletDecodeError::Length));
    }
}
