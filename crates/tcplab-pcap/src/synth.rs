//! Synthetic captures: byte-exact pcap / pcapng files and packets built in memory, for tests,
//! fuzz seeds and the throughput measurement. Not used by the reader.
//!
//! Everything is written by hand (no pcap writer crate) so that tests control every byte,
//! including deliberately wrong ones. Checksums are left zero (the reader does not check
//! them, as captures taken at the sender carry offloaded, unfinished checksums anyway).

use std::io::{self, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use crate::linktype::{ETHERTYPE_IPV4, ETHERTYPE_IPV6, ETHERTYPE_VLAN};

/// TCP/IP fields of a synthetic packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TcpSpec {
    pub src: IpAddr,
    pub dst: IpAddr,
    pub sport: u16,
    pub dport: u16,
    pub seq: u32,
    pub ack: u32,
    pub flags: u8,
    pub window: u16,
    /// Raw option bytes (padded with EOL to a multiple of 4 when built).
    pub options: Vec<u8>,
    /// Payload length declared in the IP header.
    pub payload_len: u32,
    /// Payload bytes actually written (<= payload_len) — models the snaplen.
    pub captured_payload: u32,
    pub ip_id: u16,
    pub ttl: u8,
    /// ECN bits (2 low bits of TOS / traffic class).
    pub ecn: u8,
}

impl Default for TcpSpec {
    fn default() -> Self {
        TcpSpec {
            src: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)),
            dst: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)),
            sport: 40000,
            dport: 80,
            seq: 1000,
            ack: 0,
            flags: 0x10,
            window: 65535,
            options: Vec::new(),
            payload_len: 0,
            captured_payload: 0,
            ip_id: 1,
            ttl: 64,
            ecn: 0,
        }
    }
}

fn tcp_header(spec: &TcpSpec) -> Vec<u8> {
    let mut opts = spec.options.clone();
    while opts.len() & 3 != 0 {
        opts.push(0);
    }
    let hlen = 20 + opts.len();
    let mut t = Vec::with_capacity(hlen + spec.captured_payload as usize);
    t.extend_from_slice(&spec.sport.to_be_bytes());
    t.extend_from_slice(&spec.dport.to_be_bytes());
    t.extend_from_slice(&spec.seq.to_be_bytes());
    t.extend_from_slice(&spec.ack.to_be_bytes());
    t.push(((hlen / 4) as u8) << 4);
    t.push(spec.flags);
    t.extend_from_slice(&spec.window.to_be_bytes());
    t.extend_from_slice(&[0, 0, 0, 0]); // checksum, urgent pointer
    t.extend_from_slice(&opts);
    t
}

fn payload(n: u32) -> impl Iterator<Item = u8> {
    (0..n).map(|i| (i % 251) as u8)
}

/// IPv4 + TCP packet; IP total length covers the full declared payload.
pub fn ipv4_tcp(spec: &TcpSpec) -> Vec<u8> {
    let tcp = tcp_header(spec);
    let total = 20 + tcp.len() as u32 + spec.payload_len;
    let (IpAddr::V4(s), IpAddr::V4(d)) = (spec.src, spec.dst) else {
        return Vec::new();
    };
    let mut p = Vec::with_capacity(total as usize);
    p.push(0x45);
    p.push(spec.ecn & 3);
    p.extend_from_slice(&(total.min(u16::MAX as u32) as u16).to_be_bytes());
    p.extend_from_slice(&spec.ip_id.to_be_bytes());
    p.extend_from_slice(&[0x40, 0x00]); // DF
    p.push(spec.ttl);
    p.push(6);
    p.extend_from_slice(&[0, 0]);
    p.extend_from_slice(&s.octets());
    p.extend_from_slice(&d.octets());
    p.extend_from_slice(&tcp);
    p.extend(payload(spec.captured_payload.min(spec.payload_len)));
    p
}

/// An IPv6 extension header for [`ipv6_tcp`]: (next-header value of this header, body
/// bytes after the next-header byte). Bodies are padded to 8-byte units.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ext {
    HopByHop,
    Routing,
    /// Fragment header with (offset in 8-byte units, more fragments, identification).
    Fragment(u16, bool, u32),
    DestOpts,
}

impl Ext {
    fn number(&self) -> u8 {
        match self {
            Ext::HopByHop => 0,
            Ext::Routing => 43,
            Ext::Fragment(..) => 44,
            Ext::DestOpts => 60,
        }
    }
}

/// IPv6 + extension headers + TCP packet.
pub fn ipv6_tcp(spec: &TcpSpec, exts: &[Ext]) -> Vec<u8> {
    let tcp = tcp_header(spec);
    let (IpAddr::V6(s), IpAddr::V6(d)) = (spec.src, spec.dst) else {
        return Vec::new();
    };
    let mut ext_bytes = Vec::new();
    for (k, e) in exts.iter().enumerate() {
        let next = exts.get(k + 1).map(|n| n.number()).unwrap_or(6);
        match e {
            Ext::Fragment(off, mf, id) => {
                ext_bytes.push(next);
                ext_bytes.push(0);
                ext_bytes.extend_from_slice(&((off << 3) | (*mf as u16)).to_be_bytes());
                ext_bytes.extend_from_slice(&id.to_be_bytes());
            }
            Ext::Routing => {
                // Type 0 routing header with segments left 0, 8 bytes.
                ext_bytes.extend_from_slice(&[next, 0, 0, 0, 0, 0, 0, 0]);
            }
            Ext::HopByHop | Ext::DestOpts => {
                // 8 bytes: next, len 0, PadN option filling 6 bytes.
                ext_bytes.extend_from_slice(&[next, 0, 1, 4, 0, 0, 0, 0]);
            }
        }
    }
    let plen = ext_bytes.len() as u32 + tcp.len() as u32 + spec.payload_len;
    let mut p = Vec::new();
    let tc = spec.ecn & 3;
    p.push(0x60 | (tc >> 4));
    p.push(tc << 4);
    p.extend_from_slice(&[0, 0]);
    p.extend_from_slice(&(plen.min(u16::MAX as u32) as u16).to_be_bytes());
    p.push(exts.first().map(|e| e.number()).unwrap_or(6));
    p.push(spec.ttl);
    p.extend_from_slice(&s.octets());
    p.extend_from_slice(&d.octets());
    p.extend_from_slice(&ext_bytes);
    p.extend_from_slice(&tcp);
    p.extend(payload(spec.captured_payload.min(spec.payload_len)));
    p
}

/// Ethernet frame with the given VLAN tags (outer first; each is (TPID, VLAN id)).
pub fn ethernet(tags: &[(u16, u16)], l3: &[u8]) -> Vec<u8> {
    let mut f = vec![0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1];
    for (tpid, vid) in tags {
        f.extend_from_slice(&tpid.to_be_bytes());
        f.extend_from_slice(&vid.to_be_bytes());
    }
    let et = if l3.first().map(|b| b >> 4) == Some(6) { ETHERTYPE_IPV6 } else { ETHERTYPE_IPV4 };
    f.extend_from_slice(&et.to_be_bytes());
    f.extend_from_slice(l3);
    f
}

/// Single 802.1Q tag convenience.
pub fn ethernet_vlan(vid: u16, l3: &[u8]) -> Vec<u8> {
    ethernet(&[(ETHERTYPE_VLAN, vid)], l3)
}

/// Linux cooked v1 header + packet.
pub fn sll(protocol: u16, l3: &[u8]) -> Vec<u8> {
    let mut f = vec![0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0];
    f.extend_from_slice(&protocol.to_be_bytes());
    f.extend_from_slice(l3);
    f
}

/// Linux cooked v2 header + packet.
pub fn sll2(protocol: u16, l3: &[u8]) -> Vec<u8> {
    let mut f = Vec::new();
    f.extend_from_slice(&protocol.to_be_bytes());
    f.extend_from_slice(&[0, 0, 0, 0, 0, 3, 0, 1, 4, 6, 2, 0, 0, 0, 0, 1, 0, 0]);
    f.extend_from_slice(l3);
    f
}

/// BSD loopback (NULL) header in the given byte order + packet.
pub fn null_loopback(family: u32, big_endian: bool, l3: &[u8]) -> Vec<u8> {
    let mut f = if big_endian { family.to_be_bytes().to_vec() } else { family.to_le_bytes().to_vec() };
    f.extend_from_slice(l3);
    f
}

/// Legacy pcap file builder.
#[derive(Clone, Debug)]
pub struct PcapFile {
    pub big_endian: bool,
    pub nanos: bool,
    pub bytes: Vec<u8>,
}

impl PcapFile {
    pub fn new(linktype: u32, snaplen: u32, big_endian: bool, nanos: bool) -> PcapFile {
        let mut f = PcapFile { big_endian, nanos, bytes: Vec::new() };
        let magic: u32 = if nanos { 0xa1b2_3c4d } else { 0xa1b2_c3d4 };
        f.u32(magic);
        f.u16(2);
        f.u16(4);
        f.u32(0);
        f.u32(0);
        f.u32(snaplen);
        f.u32(linktype);
        f
    }
    fn u32(&mut self, v: u32) {
        let b = if self.big_endian { v.to_be_bytes() } else { v.to_le_bytes() };
        self.bytes.extend_from_slice(&b);
    }
    fn u16(&mut self, v: u16) {
        let b = if self.big_endian { v.to_be_bytes() } else { v.to_le_bytes() };
        self.bytes.extend_from_slice(&b);
    }
    /// Appends a record; `orig_len` defaults to the data length.
    pub fn record(&mut self, ts_ns: u64, data: &[u8], orig_len: Option<u32>) -> &mut Self {
        let sec = (ts_ns / 1_000_000_000) as u32;
        let frac = (ts_ns % 1_000_000_000) as u32;
        let frac = if self.nanos { frac } else { frac / 1000 };
        self.u32(sec);
        self.u32(frac);
        self.u32(data.len() as u32);
        self.u32(orig_len.unwrap_or(data.len() as u32));
        self.bytes.extend_from_slice(data);
        self
    }
    /// Appends a record with an explicit (possibly lying) captured length.
    pub fn raw_record(&mut self, ts_sec: u32, ts_frac: u32, caplen: u32, orig_len: u32, data: &[u8]) {
        self.u32(ts_sec);
        self.u32(ts_frac);
        self.u32(caplen);
        self.u32(orig_len);
        self.bytes.extend_from_slice(data);
    }
}

/// pcapng file builder.
#[derive(Clone, Debug)]
pub struct PcapNgFile {
    pub big_endian: bool,
    pub bytes: Vec<u8>,
}

impl PcapNgFile {
    /// Starts a file with a Section Header Block.
    pub fn new(big_endian: bool) -> PcapNgFile {
        let mut f = PcapNgFile { big_endian, bytes: Vec::new() };
        f.section_header();
        f
    }
    fn enc32(&self, v: u32) -> [u8; 4] {
        if self.big_endian { v.to_be_bytes() } else { v.to_le_bytes() }
    }
    fn enc16(&self, v: u16) -> [u8; 2] {
        if self.big_endian { v.to_be_bytes() } else { v.to_le_bytes() }
    }
    /// Appends a block of `block_type` with `body` (padded to 4 bytes).
    pub fn block(&mut self, block_type: u32, body: &[u8]) -> &mut Self {
        let mut b = body.to_vec();
        while b.len() & 3 != 0 {
            b.push(0);
        }
        let len = 12 + b.len() as u32;
        let t = self.enc32(block_type);
        let l = self.enc32(len);
        self.bytes.extend_from_slice(&t);
        self.bytes.extend_from_slice(&l);
        self.bytes.extend_from_slice(&b);
        self.bytes.extend_from_slice(&l);
        self
    }
    /// Appends another Section Header Block (new section: interface numbers restart).
    pub fn section_header(&mut self) -> &mut Self {
        let mut body = Vec::new();
        body.extend_from_slice(&self.enc32(0x1A2B_3C4D));
        body.extend_from_slice(&self.enc16(1));
        body.extend_from_slice(&self.enc16(0));
        body.extend_from_slice(&[0xFF; 8]); // section length unknown
        self.block(0x0A0D_0D0A, &body)
    }
    /// Interface Description Block with an optional if_tsresol option.
    pub fn interface(&mut self, linktype: u16, snaplen: u32, tsresol: Option<u8>) -> &mut Self {
        let mut body = Vec::new();
        body.extend_from_slice(&self.enc16(linktype));
        body.extend_from_slice(&[0, 0]);
        body.extend_from_slice(&self.enc32(snaplen));
        if let Some(r) = tsresol {
            body.extend_from_slice(&self.enc16(9)); // if_tsresol
            body.extend_from_slice(&self.enc16(1));
            body.extend_from_slice(&[r, 0, 0, 0]);
            body.extend_from_slice(&[0, 0, 0, 0]); // opt_endofopt
        }
        self.block(0x0000_0001, &body)
    }
    /// Enhanced Packet Block; `ts` in the interface's units.
    pub fn epb(&mut self, if_id: u32, ts: u64, data: &[u8], orig_len: Option<u32>) -> &mut Self {
        let mut body = Vec::new();
        body.extend_from_slice(&self.enc32(if_id));
        body.extend_from_slice(&self.enc32((ts >> 32) as u32));
        body.extend_from_slice(&self.enc32(ts as u32));
        body.extend_from_slice(&self.enc32(data.len() as u32));
        body.extend_from_slice(&self.enc32(orig_len.unwrap_or(data.len() as u32)));
        body.extend_from_slice(data);
        self.block(0x0000_0006, &body)
    }
    /// Simple Packet Block.
    pub fn spb(&mut self, data: &[u8], orig_len: Option<u32>) -> &mut Self {
        let mut body = Vec::new();
        body.extend_from_slice(&self.enc32(orig_len.unwrap_or(data.len() as u32)));
        body.extend_from_slice(data);
        self.block(0x0000_0003, &body)
    }
    /// Obsolete Packet Block.
    pub fn opb(&mut self, if_id: u16, ts: u64, data: &[u8], orig_len: Option<u32>) -> &mut Self {
        let mut body = Vec::new();
        body.extend_from_slice(&self.enc16(if_id));
        body.extend_from_slice(&self.enc16(0));
        body.extend_from_slice(&self.enc32((ts >> 32) as u32));
        body.extend_from_slice(&self.enc32(ts as u32));
        body.extend_from_slice(&self.enc32(data.len() as u32));
        body.extend_from_slice(&self.enc32(orig_len.unwrap_or(data.len() as u32)));
        body.extend_from_slice(data);
        self.block(0x0000_0002, &body)
    }
}

/// Writes a synthetic Ethernet/IPv4 legacy pcap of `conns` concurrent connections and
/// `packets` packets in total (handshakes, then interleaved data and ACKs with timestamps
/// and SACK options, then FINs), streaming to `out`. Used by the throughput measurement.
pub fn write_synthetic_capture<W: Write>(mut out: W, conns: u32, packets: u64) -> io::Result<u64> {
    let mut f = PcapFile::new(1, 262_144, false, false);
    out.write_all(&f.bytes)?;
    f.bytes.clear();
    let mut written = 0u64;
    let mut ts = 1_700_000_000_000_000_000u64;
    let per_conn = (packets / conns.max(1) as u64).max(8);
    let mut spec = TcpSpec { captured_payload: 0, ..TcpSpec::default() };
    let mut step = 0u64;
    let mut round = 0u32;
    while written < packets {
        let c = (step % conns.max(1) as u64) as u32;
        let k = step / conns.max(1) as u64; // packet index within the connection
        step += 1;
        let client = IpAddr::V4(Ipv4Addr::from(0x0A00_0000u32 + c));
        let server = IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1));
        let isn_c = 1000u32.wrapping_add(c.wrapping_mul(7919)).wrapping_add(round.wrapping_mul(1_000_003));
        let isn_s = 5000u32.wrapping_add(c.wrapping_mul(104_729)).wrapping_add(round.wrapping_mul(999_983));
        let data_seq = |n: u64| isn_c.wrapping_add(1).wrapping_add((n as u32).wrapping_mul(1448));
        let (from_client, flags, seq, ack, len, opts): (bool, u8, u32, u32, u32, Vec<u8>) = if k == 0 {
            (true, 0x02, isn_c, 0, 0, vec![2, 4, 5, 0xB4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7])
        } else if k == 1 {
            (false, 0x12, isn_s, isn_c.wrapping_add(1), 0, vec![2, 4, 5, 0xB4, 4, 2, 8, 10, 0, 0, 0, 2, 0, 0, 0, 1, 1, 3, 3, 7])
        } else if k == 2 {
            (true, 0x10, isn_c.wrapping_add(1), isn_s.wrapping_add(1), 0, vec![1, 1, 8, 10, 0, 0, 0, 3, 0, 0, 0, 2])
        } else if k + 2 >= per_conn {
            let fin_from_client = k + 2 == per_conn;
            (fin_from_client, 0x11, if fin_from_client { data_seq(per_conn) } else { isn_s.wrapping_add(1) }, if fin_from_client { isn_s.wrapping_add(1) } else { data_seq(per_conn).wrapping_add(1) }, 0, vec![])
        } else if k % 2 == 1 {
            (true, 0x18, data_seq(k / 2), isn_s.wrapping_add(1), 1448, vec![1, 1, 8, 10, 0, 0, 1, 0, 0, 0, 0, 9])
        } else {
            let a = data_seq(k / 2);
            let mut o = vec![1, 1, 8, 10, 0, 0, 1, 1, 0, 0, 1, 0, 1, 1, 5, 10];
            o.extend_from_slice(&a.wrapping_add(2896).to_be_bytes());
            o.extend_from_slice(&a.wrapping_add(4344).to_be_bytes());
            (false, 0x10, isn_s.wrapping_add(1), a, 0, o)
        };
        spec.src = if from_client { client } else { server };
        spec.dst = if from_client { server } else { client };
        spec.sport = if from_client { 40000 + (c % 20000) as u16 } else { 443 };
        spec.dport = if from_client { 443 } else { 40000 + (c % 20000) as u16 };
        spec.seq = seq;
        spec.ack = ack;
        spec.flags = flags;
        spec.options = opts;
        spec.payload_len = len;
        spec.ip_id = step as u16;
        let pkt = ethernet(&[], &ipv4_tcp(&spec));
        // Snaplen-truncated to the headers, as the simulator writes them.
        let orig = pkt.len() as u32 + len;
        ts += 10_000;
        f.record(ts, &pkt, Some(orig));
        if f.bytes.len() > 1 << 16 {
            out.write_all(&f.bytes)?;
            f.bytes.clear();
        }
        written += 1;
        if k + 1 >= per_conn && c + 1 == conns {
            // all connections finished this round; start new incarnations with new ports
            step = 0;
            round += 1;
        }
    }
    out.write_all(&f.bytes)?;
    Ok(written)
}

/// Shorthand for IPv6 documentation addresses 2001:db8::`n`.
pub fn v6(n: u16) -> IpAddr {
    IpAddr::V6(Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, n))
}
