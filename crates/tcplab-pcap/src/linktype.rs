//! Link layers: from a captured frame to the start of its IP header.
//!
//! Link-type values are from the tcpdump.org list (<https://www.tcpdump.org/linktypes.html>).
//! Ambiguities resolved here:
//! - `LINKTYPE_NULL` (0) stores the address family in the *capturing* host's byte order; as
//!   tcpdump does, a value with a non-zero upper half is taken to be byte-swapped. AF_INET6
//!   differs by OS (Linux 10, NetBSD/OpenBSD 24, FreeBSD 28, Darwin 30); all are accepted.
//! - DLT_RAW is 12 on most systems and 14 on OpenBSD; both are read as raw IP, and the
//!   version nibble decides IPv4 vs IPv6 (as for LINKTYPE_RAW, 101).
//! - VLAN tags (802.1Q 0x8100, 802.1ad 0x88A8, the pre-standard QinQ 0x9100/0x9200) are
//!   skipped, up to [`MAX_VLAN_TAGS`] deep, after Ethernet and after the Linux cooked headers
//!   (which keep the tag when the NIC did not strip it).
//! - An Ethernet type/length field <= 1500 is an 802.3 length (LLC frame): not IP.

/// BSD loopback; 4-byte address family in host byte order.
pub const LINKTYPE_NULL: i32 = 0;
/// IEEE 802.3 Ethernet (DIX).
pub const LINKTYPE_ETHERNET: i32 = 1;
/// DLT_RAW as used by most platforms' libpcap (raw IPv4/IPv6).
pub const DLT_RAW_12: i32 = 12;
/// DLT_RAW as defined on OpenBSD.
pub const DLT_RAW_14: i32 = 14;
/// Raw IP; the first nibble gives the version.
pub const LINKTYPE_RAW: i32 = 101;
/// OpenBSD loopback; 4-byte address family in network byte order.
pub const LINKTYPE_LOOP: i32 = 108;
/// Linux "cooked" capture v1 (16-byte header).
pub const LINKTYPE_LINUX_SLL: i32 = 113;
/// Raw IPv4.
pub const LINKTYPE_IPV4: i32 = 228;
/// Raw IPv6.
pub const LINKTYPE_IPV6: i32 = 229;
/// Linux "cooked" capture v2 (20-byte header).
pub const LINKTYPE_LINUX_SLL2: i32 = 276;

/// EtherType of IPv4 (IEEE registry).
pub const ETHERTYPE_IPV4: u16 = 0x0800;
/// EtherType of IPv6.
pub const ETHERTYPE_IPV6: u16 = 0x86DD;
/// IEEE 802.1Q VLAN tag.
pub const ETHERTYPE_VLAN: u16 = 0x8100;
/// IEEE 802.1ad service tag (QinQ outer tag).
pub const ETHERTYPE_QINQ: u16 = 0x88A8;
/// Pre-standard QinQ tags still seen in the wild.
pub const ETHERTYPE_QINQ_OLD1: u16 = 0x9100;
pub const ETHERTYPE_QINQ_OLD2: u16 = 0x9200;
/// Values up to this are 802.3 length fields, not EtherTypes (IEEE 802.3 §3.2.6).
pub const ETHER_MAX_LENGTH_FIELD: u16 = 1500;
/// Deepest VLAN stack that is unwrapped.
pub const MAX_VLAN_TAGS: usize = 8;

/// BSD address families (socket.h of each OS).
pub const AF_INET: u32 = 2;
pub const AF_INET6_LINUX: u32 = 10;
pub const AF_INET6_BSD: u32 = 24;
pub const AF_INET6_FREEBSD: u32 = 28;
pub const AF_INET6_DARWIN: u32 = 30;

const ETHERNET_HEADER_LEN: usize = 14;
const VLAN_TAG_LEN: usize = 4;
const SLL_HEADER_LEN: usize = 16;
const SLL_PROTOCOL_OFFSET: usize = 14;
const SLL2_HEADER_LEN: usize = 20;
const NULL_HEADER_LEN: usize = 4;

/// Link layers this reader decodes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LinkKind {
    Null,
    Loop,
    Ethernet,
    /// Raw IP, version from the first nibble (LINKTYPE_RAW, DLT_RAW 12/14).
    Raw,
    Ipv4,
    Ipv6,
    Sll,
    Sll2,
    /// Any other link type (value kept for the anomaly report).
    Unsupported(i32),
}

impl LinkKind {
    pub fn from_linktype(lt: i32) -> LinkKind {
        match lt {
            LINKTYPE_NULL => LinkKind::Null,
            LINKTYPE_LOOP => LinkKind::Loop,
            LINKTYPE_ETHERNET => LinkKind::Ethernet,
            LINKTYPE_RAW | DLT_RAW_12 | DLT_RAW_14 => LinkKind::Raw,
            LINKTYPE_IPV4 => LinkKind::Ipv4,
            LINKTYPE_IPV6 => LinkKind::Ipv6,
            LINKTYPE_LINUX_SLL => LinkKind::Sll,
            LINKTYPE_LINUX_SLL2 => LinkKind::Sll2,
            other => LinkKind::Unsupported(other),
        }
    }
}

/// Which IP version the link layer announced (`Any`: decide from the version nibble).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum IpVersionHint {
    V4,
    V6,
    Any,
}

/// Why a frame yields no IP packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LinkSkip {
    /// Frame shorter than its link header.
    Truncated,
    /// Not IPv4/IPv6.
    NonIp,
    /// Link type not supported.
    Unsupported(i32),
}

#[inline]
fn be16(d: &[u8], at: usize) -> Option<u16> {
    let b = d.get(at..at + 2)?;
    Some(u16::from_be_bytes([b[0], b[1]]))
}

/// Follows an EtherType (and any VLAN tags after it) starting at `off`, where `ethertype`
/// was read from the two bytes just before `off`.
fn follow_ethertype(
    data: &[u8],
    mut ethertype: u16,
    mut off: usize,
) -> Result<(usize, IpVersionHint), LinkSkip> {
    for _ in 0..=MAX_VLAN_TAGS {
        match ethertype {
            ETHERTYPE_IPV4 => return Ok((off, IpVersionHint::V4)),
            ETHERTYPE_IPV6 => return Ok((off, IpVersionHint::V6)),
            ETHERTYPE_VLAN | ETHERTYPE_QINQ | ETHERTYPE_QINQ_OLD1 | ETHERTYPE_QINQ_OLD2 => {
                // Tag: 2 bytes TCI, then the inner EtherType.
                ethertype = be16(data, off + 2).ok_or(LinkSkip::Truncated)?;
                off += VLAN_TAG_LEN;
            }
            _ => return Err(LinkSkip::NonIp),
        }
    }
    Err(LinkSkip::NonIp)
}

fn family_to_hint(family: u32) -> Result<IpVersionHint, LinkSkip> {
    match family {
        AF_INET => Ok(IpVersionHint::V4),
        AF_INET6_LINUX | AF_INET6_BSD | AF_INET6_FREEBSD | AF_INET6_DARWIN => {
            Ok(IpVersionHint::V6)
        }
        _ => Err(LinkSkip::NonIp),
    }
}

/// Returns the offset of the IP header in `data` and the announced IP version.
pub fn ip_offset(link: LinkKind, data: &[u8]) -> Result<(usize, IpVersionHint), LinkSkip> {
    match link {
        LinkKind::Ethernet => {
            if data.len() < ETHERNET_HEADER_LEN {
                return Err(LinkSkip::Truncated);
            }
            let et = be16(data, 12).ok_or(LinkSkip::Truncated)?;
            if et <= ETHER_MAX_LENGTH_FIELD {
                return Err(LinkSkip::NonIp);
            }
            follow_ethertype(data, et, ETHERNET_HEADER_LEN)
        }
        LinkKind::Sll => {
            if data.len() < SLL_HEADER_LEN {
                return Err(LinkSkip::Truncated);
            }
            let proto = be16(data, SLL_PROTOCOL_OFFSET).ok_or(LinkSkip::Truncated)?;
            follow_ethertype(data, proto, SLL_HEADER_LEN)
        }
        LinkKind::Sll2 => {
            if data.len() < SLL2_HEADER_LEN {
                return Err(LinkSkip::Truncated);
            }
            let proto = be16(data, 0).ok_or(LinkSkip::Truncated)?;
            follow_ethertype(data, proto, SLL2_HEADER_LEN)
        }
        LinkKind::Null | LinkKind::Loop => {
            let b = data.get(..NULL_HEADER_LEN).ok_or(LinkSkip::Truncated)?;
            let raw = [b[0], b[1], b[2], b[3]];
            let family = if link == LinkKind::Loop {
                u32::from_be_bytes(raw)
            } else {
                // Host byte order of the capturing machine: families are small, so a value
                // with bits in the upper half was written by the other byte order.
                let le = u32::from_le_bytes(raw);
                if le & 0xFFFF_0000 != 0 {
                    le.swap_bytes()
                } else {
                    le
                }
            };
            family_to_hint(family).map(|h| (NULL_HEADER_LEN, h))
        }
        LinkKind::Raw => Ok((0, IpVersionHint::Any)),
        LinkKind::Ipv4 => Ok((0, IpVersionHint::V4)),
        LinkKind::Ipv6 => Ok((0, IpVersionHint::V6)),
        LinkKind::Unsupported(lt) => Err(LinkSkip::Unsupported(lt)),
    }
}

/// ARPHRD_ETHER (Linux if_arp.h): the device type in the cooked headers for Ethernet.
pub const ARPHRD_ETHER: u16 = 1;
const SLL_ARPHRD_OFFSET: usize = 2;
const SLL2_ARPHRD_OFFSET: usize = 8;

/// True when the frame was captured on an Ethernet device, so an IP packet longer than the
/// Ethernet MTU can only be a TSO/GSO super-segment (or a jumbo frame: see
/// `ReaderConfig::link_mtu`). Loopback (NULL/LOOP, or cooked captures of `lo`, ARPHRD 772)
/// and raw-IP links have no such bound here.
pub fn has_ethernet_mtu(link: LinkKind, data: &[u8]) -> bool {
    match link {
        LinkKind::Ethernet => true,
        LinkKind::Sll => be16(data, SLL_ARPHRD_OFFSET) == Some(ARPHRD_ETHER),
        LinkKind::Sll2 => be16(data, SLL2_ARPHRD_OFFSET) == Some(ARPHRD_ETHER),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qinq_double_tag_is_unwrapped() {
        let mut f = vec![0u8; 12];
        f.extend_from_slice(&[0x88, 0xA8, 0x00, 0x64, 0x81, 0x00, 0x00, 0xC8, 0x08, 0x00]);
        f.extend_from_slice(&[0x45; 20]);
        assert_eq!(ip_offset(LinkKind::Ethernet, &f), Ok((22, IpVersionHint::V4)));
    }

    #[test]
    fn llc_frames_are_not_ip() {
        let mut f = vec![0u8; 12];
        f.extend_from_slice(&[0x00, 0x40, 0xAA, 0xAA]);
        assert_eq!(ip_offset(LinkKind::Ethernet, &f), Err(LinkSkip::NonIp));
    }

    #[test]
    fn null_family_in_either_byte_order() {
        assert_eq!(ip_offset(LinkKind::Null, &[2, 0, 0, 0]), Ok((4, IpVersionHint::V4)));
        assert_eq!(ip_offset(LinkKind::Null, &[0, 0, 0, 2]), Ok((4, IpVersionHint::V4)));
        assert_eq!(ip_offset(LinkKind::Null, &[30, 0, 0, 0]), Ok((4, IpVersionHint::V6)));
        assert_eq!(ip_offset(LinkKind::Loop, &[0, 0, 0, 24]), Ok((4, IpVersionHint::V6)));
        assert_eq!(ip_offset(LinkKind::Null, &[2, 0]), Err(LinkSkip::Truncated));
    }

    #[test]
    fn truncated_vlan_tag_is_reported() {
        let mut f = vec![0u8; 12];
        f.extend_from_slice(&[0x81, 0x00, 0x00]);
        assert_eq!(ip_offset(LinkKind::Ethernet, &f), Err(LinkSkip::Truncated));
    }
}
