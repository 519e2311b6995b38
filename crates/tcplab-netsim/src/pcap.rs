//! Capture of a simulated link to a classic pcap file that opens in Wireshark and tshark.
//!
//! Format choices (decided here, also listed in docs/scenarios.md):
//! - **Classic pcap, nanosecond resolution** (magic `0xa1b23c4d`, version 2.4): simulated time
//!   is in integer nanoseconds, so no rounding. Wireshark, tshark, tcpdump ≥ 4.6 and
//!   libpcap ≥ 1.5 read it. Timestamps are simulated time since the start of the run (the
//!   capture starts at the Unix epoch, 1970-01-01).
//! - **Link type `LINKTYPE_RAW` (101)**: every record starts with the IPv4 header; there is
//!   no Ethernet framing to invent (the simulator has no MAC addresses).
//! - **Little-endian** file header and records on every machine, so a run's capture is
//!   byte-identical wherever it is produced.
//! - **Headers only**: tcplab models payload by length, so each record holds the IPv4 and
//!   TCP headers (caplen = header bytes) while `orig_len` is the full IP datagram length.
//!   Wireshark shows such records as "Packet size limited during capture", exactly as for a
//!   `tcpdump -s 96` capture, and its TCP analysis (sequence graphs, retransmission flags)
//!   works from the headers. Files stay small: ≤ 120 bytes per packet. The file header's
//!   snaplen is 65535 (see [`SNAPLEN`] for why it is not 120).
//! - **Checksums are correct**: the IPv4 header checksum (RFC 791 §3.1) and the TCP checksum
//!   (RFC 9293 §3.1) are computed as if the payload were all zero bytes, so Wireshark's
//!   checksum validation (off by default) passes for the bytes that are present.
//! - **Option layout**: on a SYN or SYN-ACK, the sending stack's
//!   (`tcplab_tcp::profile::SynOptionLayout`, [`WirePacket::syn_layout`]: Linux's
//!   `MSS, SACK_PERM, TS, NOP, WS` for `linux`, `linux-2.4` and `rfc6298`; BSD's, Windows
//!   XP's and Solaris 10's order and NOP padding for their profiles, each from its source),
//!   as a passive fingerprint (p0f's `olayout`) would see that stack. On data segments the
//!   engine's `TcpOptions::encoded_len` layout (`NOP, NOP, TS` and `NOP, NOP, SACK`), so
//!   their TCP header length equals `Segment::header_len()`. A non-Linux handshake with SACK
//!   and timestamps is 4 bytes longer in the capture than the engine's length, which the
//!   links count (the 4 bytes' serialization time is not modelled; `syn_layout`'s module
//!   docs). If options would
//!   exceed the 40-byte limit (four SACK blocks plus timestamps), trailing SACK blocks are
//!   left out, as a real stack does ("at most 3 SACK blocks ... when the Timestamp option
//!   is also used", RFC 2018 §3).
//! - **Quick-Start** (RFC 4782): a segment's Request travels as the 8-byte IPv4 option 25
//!   (IHL 7) and its Response as the 8-byte TCP option 27, appended after the other TCP
//!   options (8 bytes keep the 4-byte alignment). Wireshark's `ip.opt.qs_*` and
//!   `tcp.options.qs.*` dissectors decode both.
//! - **DF is set** on every datagram (TCP stacks do path-MTU discovery, RFC 1191); DSCP is 0
//!   and the ECN field carries the segment's codepoint (RFC 3168 §5).

use etherparse::{IpNumber, Ipv4Ecn, Ipv4Header, Ipv4Options, TcpHeader, TcpOptionElement};
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, Endianness, TsResolution};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::time::Duration;
use tcplab_tcp::startup::pathlet_header::PathletHeader;
use tcplab_tcp::profile::{SynOption, SynOptionLayout};
use tcplab_tcp::{Ecn, Segment, TcpFlags};
use tcplab_time::SimTime;

/// LINKTYPE_RAW: the packet begins with an IPv4 or IPv6 header (tcpdump.org link-layer
/// header types).
pub const LINKTYPE_RAW: u32 = 101;
/// Snapshot length in the file header: the largest IPv4 datagram (RFC 791 total length is
/// 16 bits). Records hold fewer bytes (headers only, at most [`MAX_HEADER_BYTES`]), but some
/// readers (the `pcap-file` crate among them) reject records whose `orig_len` exceeds the
/// snaplen, so the header announces the full datagram size.
pub const SNAPLEN: u32 = u16::MAX as u32;
/// Largest IPv4 header (60 bytes: IHL is 4 bits of 32-bit words, RFC 791 §3.1) plus the
/// largest TCP header (60 bytes: data offset is 4 bits, RFC 9293 §3.1).
pub const MAX_HEADER_BYTES: usize = 60 + 60;
/// RFC 9293 §3.1: TCP options may occupy at most 40 bytes (data offset ≤ 15 words).
pub const MAX_TCP_OPTION_BYTES: usize = 40;
/// Capacity of the write buffer.
const BUF_CAPACITY: usize = 64 * 1024;

/// Zero bytes standing in for payload when computing the TCP checksum (a zero-initialised
/// static costs no space in the binary). Large enough for any IPv4 payload.
static ZERO_PAYLOAD: [u8; u16::MAX as usize] = [0; u16::MAX as usize];

/// One IPv4/TCP packet as the simulator puts it on a link.
#[derive(Debug, Clone, Copy)]
pub struct WirePacket<'a> {
    pub src_ip: [u8; 4],
    pub dst_ip: [u8; 4],
    pub src_port: u16,
    pub dst_port: u16,
    /// IPv4 Identification field.
    pub ip_id: u16,
    pub ttl: u8,
    pub segment: &'a Segment,
    /// The Pathlet and Pathlet Echo headers the packet carries (seed 004; IPv4 options 0x9E /
    /// 0xDE after a Quick-Start option, `tcplab_tcp::startup::pathlet_header`).
    pub pathlet: [Option<PathletHeader>; 2],
    /// The sending stack's handshake option layout, used when the segment is a SYN.
    pub syn_layout: SynOptionLayout,
}

/// Writes the packets crossing one link (direction) to a pcap file.
#[derive(Debug)]
pub struct PcapLinkWriter {
    writer: PcapWriter<BufWriter<File>>,
    /// Reused for each record's header bytes.
    buf: Vec<u8>,
}

fn pcap_err(e: pcap_file::PcapError) -> io::Error {
    match e {
        pcap_file::PcapError::IoError(e) => e,
        other => io::Error::new(io::ErrorKind::InvalidData, other.to_string()),
    }
}

fn invalid(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

impl PcapLinkWriter {
    /// Create (truncate) `path` and write the pcap file header.
    pub fn create(path: &Path) -> io::Result<Self> {
        let file = File::create(path)?;
        let header = PcapHeader {
            version_major: 2,
            version_minor: 4,
            ts_correction: 0,
            ts_accuracy: 0,
            snaplen: SNAPLEN,
            datalink: DataLink::from(LINKTYPE_RAW),
            ts_resolution: TsResolution::NanoSecond,
            endianness: Endianness::Little,
        };
        let writer = PcapWriter::with_header(BufWriter::with_capacity(BUF_CAPACITY, file), header)
            .map_err(pcap_err)?;
        Ok(PcapLinkWriter { writer, buf: Vec::with_capacity(MAX_HEADER_BYTES) })
    }

    /// Append one packet seen at simulated time `t`.
    pub fn write(&mut self, t: SimTime, pkt: &WirePacket<'_>) -> io::Result<()> {
        let orig_len = encode(pkt, &mut self.buf)?;
        let packet = PcapPacket::new(Duration::from_nanos(t.as_nanos()), orig_len, &self.buf);
        self.writer.write_packet(&packet).map_err(pcap_err)?;
        Ok(())
    }

    /// Flush buffered records to the file. Dropping the writer without calling this also
    /// flushes, but silently ignores errors.
    pub fn finish(self) -> io::Result<()> {
        let mut w = self.writer.into_writer();
        w.flush()?;
        w.into_inner().map_err(|e| e.into_error())?.sync_all()
    }
}

/// RFC 3168 §5: the ECN field is the two low bits of the former TOS octet:
/// 00 Not-ECT, 01 ECT(1), 10 ECT(0), 11 CE.
fn ecn_bits(e: Ecn) -> Ipv4Ecn {
    match e {
        Ecn::NotEct => Ipv4Ecn::ZERO,
        Ecn::Ect1 => Ipv4Ecn::ONE,
        Ecn::Ect0 => Ipv4Ecn::TWO,
        Ecn::Ce => Ipv4Ecn::TRHEE,
    }
}

/// Most option elements [`options`] emits: MSS; NOP NOP TS (or SACK_PERM TS); NOP WS;
/// NOP NOP SACK; a SYN in its stack's layout has at most
/// `tcplab_tcp::profile::syn_layout::MAX_SYN_OPTIONS` (9).
const MAX_OPTION_ELEMENTS: usize = 9;

/// A fixed-capacity list of option elements (no allocation per packet).
struct OptionList {
    items: [TcpOptionElement; MAX_OPTION_ELEMENTS],
    len: usize,
}

impl OptionList {
    fn extend<const N: usize>(&mut self, els: [TcpOptionElement; N]) {
        for e in els {
            if let Some(slot) = self.items.get_mut(self.len) {
                *slot = e;
                self.len += 1;
            }
        }
    }
    fn push(&mut self, e: TcpOptionElement) {
        self.extend([e]);
    }
    fn as_slice(&self) -> &[TcpOptionElement] {
        &self.items[..self.len]
    }
}

/// TCP options: a SYN's in its stack's `layout`, the others in the engine's layout (see the
/// module doc), trimmed to 40 bytes by dropping trailing SACK blocks.
fn options(seg: &Segment, layout: SynOptionLayout) -> OptionList {
    use TcpOptionElement::*;
    let o = &seg.options;
    let mut v = OptionList { items: std::array::from_fn(|_| Noop), len: 0 };
    if seg.flags.contains(TcpFlags::SYN) {
        for e in layout.write(o).as_slice() {
            v.push(match *e {
                SynOption::Nop => Noop,
                SynOption::Mss(m) => MaximumSegmentSize(m),
                SynOption::WindowScale(w) => WindowScale(w),
                SynOption::SackPermitted => SelectiveAcknowledgementPermitted,
                SynOption::Timestamps(val, ecr) => Timestamp(val, ecr),
            });
        }
        return v;
    }
    if let Some(mss) = o.mss {
        v.push(MaximumSegmentSize(mss));
    }
    match (o.sack_permitted, o.timestamps) {
        (true, Some((val, ecr))) => {
            v.push(SelectiveAcknowledgementPermitted);
            v.push(Timestamp(val, ecr));
        }
        (false, Some((val, ecr))) => {
            v.extend([Noop, Noop, Timestamp(val, ecr)]);
        }
        (true, None) => v.extend([Noop, Noop, SelectiveAcknowledgementPermitted]),
        (false, None) => {}
    }
    if let Some(ws) = o.window_scale {
        v.extend([Noop, WindowScale(ws)]);
    }
    let blocks = o.sack.as_slice();
    if let Some(first) = blocks.first() {
        let used: usize = o.encoded_len().saturating_sub(4 + 8 * blocks.len());
        // NOP NOP kind len = 4 bytes, then 8 per block.
        let room = MAX_TCP_OPTION_BYTES.saturating_sub(used).saturating_sub(4) / 8;
        let n = blocks.len().min(room);
        if n > 0 {
            let mut rest = [None; 3];
            for (slot, b) in rest.iter_mut().zip(blocks.iter().skip(1).take(n - 1)) {
                *slot = Some((b.left.0, b.right.0));
            }
            v.extend([Noop, Noop, SelectiveAcknowledgement((first.left.0, first.right.0), rest)]);
        }
    }
    v
}

/// Write the IPv4 + TCP header bytes of `pkt` into `out` (cleared first); returns the full
/// IP datagram length.
fn encode(pkt: &WirePacket<'_>, out: &mut Vec<u8>) -> io::Result<u32> {
    let seg = pkt.segment;
    let f = seg.flags;
    let mut tcp = TcpHeader::new(pkt.src_port, pkt.dst_port, seg.seq.0, seg.window);
    tcp.acknowledgment_number = seg.ack.0;
    tcp.fin = f.contains(TcpFlags::FIN);
    tcp.syn = f.contains(TcpFlags::SYN);
    tcp.rst = f.contains(TcpFlags::RST);
    tcp.psh = f.contains(TcpFlags::PSH);
    tcp.ack = f.contains(TcpFlags::ACK);
    tcp.urg = f.contains(TcpFlags::URG);
    tcp.ece = f.contains(TcpFlags::ECE);
    tcp.cwr = f.contains(TcpFlags::CWR);
    tcp.set_options(options(seg, pkt.syn_layout).as_slice()).map_err(|e| invalid(format!("TCP options: {e}")))?;
    if let Some(qs) = seg.options.quick_start {
        // RFC 4782 §4.2: the Response, kind 27, after the other options.
        let mut raw = [0u8; MAX_TCP_OPTION_BYTES];
        let n = tcp.options.as_slice().len();
        let bytes = qs.encode();
        if n + bytes.len() <= MAX_TCP_OPTION_BYTES {
            raw[..n].copy_from_slice(tcp.options.as_slice());
            raw[n..n + bytes.len()].copy_from_slice(&bytes);
            tcp.set_options_raw(&raw[..n + bytes.len()]).map_err(|e| invalid(format!("TCP options: {e}")))?;
        }
    }

    let payload_len = usize::try_from(seg.len).map_err(|_| invalid("payload too large".into()))?;
    let tcp_len = tcp.header_len() + payload_len;
    let ip_opts_len = usize::from(seg.ip_options_len())
        + pkt.pathlet.iter().flatten().map(|h| usize::from(h.wire_len())).sum::<usize>();
    let ip_payload_len = u16::try_from(tcp_len)
        .ok()
        .filter(|l| usize::from(*l) + Ipv4Header::MIN_LEN + ip_opts_len <= usize::from(u16::MAX))
        .ok_or_else(|| {
            invalid(format!(
                "segment of {} payload bytes does not fit in an IPv4 datagram (65535 bytes)",
                seg.len
            ))
        })?;
    let payload =
        ZERO_PAYLOAD.get(..payload_len).ok_or_else(|| invalid("payload too large".into()))?;
    tcp.checksum = tcp
        .calc_checksum_ipv4_raw(pkt.src_ip, pkt.dst_ip, payload)
        .map_err(|e| invalid(format!("TCP checksum: {e}")))?;

    let mut ip = Ipv4Header::new(ip_payload_len, pkt.ttl, IpNumber::TCP, pkt.src_ip, pkt.dst_ip)
        .map_err(|e| invalid(format!("IPv4 header: {e}")))?;
    if seg.qs_request.is_some() || pkt.pathlet.iter().any(Option::is_some) {
        // RFC 4782 §3.1: the Quick-Start option, type 25, 8 bytes (two 32-bit words); then the
        // Pathlet header and the Pathlet Echo (8 + 4·slots bytes each). Every option is a
        // whole number of 32-bit words, so no padding is needed; `Segment::ip_options_len`
        // counts only Quick-Start, the packet's wire length counts all of them.
        let mut raw = [0u8; 40];
        let mut n = 0;
        if let Some(qs) = seg.qs_request {
            raw[..8].copy_from_slice(&qs.encode());
            n = 8;
        }
        for h in pkt.pathlet.iter().flatten() {
            let mut b = [0u8; 40];
            let k = h.encode(&mut b);
            if n + k > raw.len() {
                return Err(invalid(format!("IPv4 options of {} bytes exceed 40", n + k)));
            }
            raw[n..n + k].copy_from_slice(&b[..k]);
            n += k;
        }
        ip.options = Ipv4Options::try_from(&raw[..n]).map_err(|e| invalid(format!("IPv4 options: {e}")))?;
        ip.set_payload_len(usize::from(ip_payload_len)).map_err(|e| invalid(format!("IPv4 header: {e}")))?;
    }
    ip.identification = pkt.ip_id;
    ip.dont_fragment = true;
    ip.ecn = ecn_bits(seg.ecn);
    ip.header_checksum = ip.calc_header_checksum();

    out.clear();
    ip.write(out)?;
    tcp.write(out)?;
    Ok(u32::from(ip.total_len))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use etherparse::{LaxNetSlice, LaxSlicedPacket, TransportSlice};
    use pcap_file::pcap::PcapReader;
    use tcplab_tcp::{SackBlock, SackBlocks, SeqNum, TcpOptions};

    /// Test results: a failed I/O or decode step fails the test with its error.
    type TestResult = Result<(), Box<dyn std::error::Error>>;

    fn tmp(name: &str) -> std::io::Result<std::path::PathBuf> {
        let dir = std::env::temp_dir().join(format!("tcplab-pcap-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        Ok(dir.join(name))
    }

    fn syn() -> Segment {
        Segment {
            seq: SeqNum(1000),
            ack: SeqNum(0),
            flags: TcpFlags::SYN,
            window: 65535,
            len: 0,
            options: TcpOptions {
                mss: Some(1460),
                window_scale: Some(7),
                sack_permitted: true,
                timestamps: Some((11, 0)),
                sack: SackBlocks::new(),
                quick_start: None,
            },
            ecn: Ecn::NotEct,
            ..Segment::default()
        }
    }

    fn data_with_sack() -> Segment {
        let mut sack = SackBlocks::new();
        sack.push(SackBlock { left: SeqNum(5000), right: SeqNum(6460) });
        sack.push(SackBlock { left: SeqNum(8000), right: SeqNum(9460) });
        Segment {
            seq: SeqNum(1001),
            ack: SeqNum(2001),
            flags: TcpFlags::ACK | TcpFlags::PSH,
            window: 512,
            len: 1448,
            options: TcpOptions { timestamps: Some((100, 99)), sack, ..TcpOptions::default() },
            ecn: Ecn::Ce,
            ..Segment::default()
        }
    }

    fn fin() -> Segment {
        Segment {
            seq: SeqNum(u32::MAX - 1),
            ack: SeqNum(7),
            flags: TcpFlags::FIN | TcpFlags::ACK,
            window: 100,
            ..Segment::default()
        }
    }

    fn wire(seg: &Segment, id: u16) -> WirePacket<'_> {
        WirePacket {
            src_ip: [10, 0, 0, 1],
            dst_ip: [10, 0, 1, 2],
            src_port: 40000,
            dst_port: 5001,
            ip_id: id,
            ttl: 64,
            segment: seg,
            pathlet: [None, None],
            syn_layout: SynOptionLayout::Linux,
        }
    }

    /// One's-complement sum over 16-bit words (RFC 1071), for an independent checksum check.
    fn ones_sum(data: &[u8], mut acc: u32) -> u32 {
        for c in data.chunks(2) {
            let w = u32::from(c[0]) << 8 | c.get(1).map_or(0, |b| u32::from(*b));
            acc += w;
        }
        while acc > 0xffff {
            acc = (acc & 0xffff) + (acc >> 16);
        }
        acc
    }

    #[test]
    fn segments_read_back_with_every_field() -> TestResult {
        let path = tmp("roundtrip.pcap")?;
        let segs = [syn(), data_with_sack(), fin()];
        let times = [SimTime(0), SimTime(1_500_000_123), SimTime(30_000_000_001)];
        let mut w = PcapLinkWriter::create(&path)?;
        for (i, (s, t)) in segs.iter().zip(times).enumerate() {
            w.write(t, &wire(s, i as u16 + 1))?;
        }
        w.finish()?;

        let file = File::open(&path)?;
        let mut r = PcapReader::new(file)?;
        let h = r.header();
        assert_eq!(h.datalink, DataLink::RAW);
        assert_eq!(h.ts_resolution, TsResolution::NanoSecond);
        assert_eq!(h.snaplen, SNAPLEN);
        let mut n = 0;
        while let Some(p) = r.next_packet() {
            let p = p?;
            let seg = &segs[n];
            assert_eq!(p.timestamp, Duration::from_nanos(times[n].as_nanos()));
            // Headers only: caplen is the header bytes; orig_len the whole datagram.
            assert_eq!(p.data.len(), 20 + seg.header_len());
            assert!(p.data.len() <= MAX_HEADER_BYTES);
            assert_eq!(p.orig_len as usize, 20 + seg.header_len() + seg.len as usize);

            let sliced = LaxSlicedPacket::from_ip(&p.data)?;
            let Some(LaxNetSlice::Ipv4(ip)) = &sliced.net else { panic!("not IPv4") };
            let iph = ip.header();
            assert_eq!(iph.source(), [10, 0, 0, 1]);
            assert_eq!(iph.destination(), [10, 0, 1, 2]);
            assert_eq!(iph.identification(), n as u16 + 1);
            assert_eq!(iph.ttl(), 64);
            assert!(iph.dont_fragment());
            assert_eq!(iph.total_len() as u32, p.orig_len);
            assert_eq!(iph.ecn().value(), if n == 1 { 3 } else { 0 });
            assert_eq!(ones_sum(iph.slice(), 0), 0xffff, "IPv4 header checksum");

            let Some(TransportSlice::Tcp(tcp)) = &sliced.transport else { panic!("not TCP") };
            assert_eq!((tcp.source_port(), tcp.destination_port()), (40000, 5001));
            assert_eq!(tcp.sequence_number(), seg.seq.0);
            assert_eq!(tcp.acknowledgment_number(), seg.ack.0);
            assert_eq!(tcp.window_size(), seg.window);
            assert_eq!(tcp.syn(), seg.flags.contains(TcpFlags::SYN));
            assert_eq!(tcp.fin(), seg.flags.contains(TcpFlags::FIN));
            assert_eq!(tcp.ack(), seg.flags.contains(TcpFlags::ACK));
            assert_eq!(tcp.psh(), seg.flags.contains(TcpFlags::PSH));
            assert_eq!(tcp.header_len(), seg.header_len());

            // TCP checksum over pseudo-header + header + zero payload (RFC 9293 §3.1).
            let tcp_len = tcp.header_len() as u32 + seg.len;
            let mut pseudo = Vec::new();
            pseudo.extend_from_slice(&[10, 0, 0, 1, 10, 0, 1, 2, 0, 6]);
            pseudo.extend_from_slice(&(tcp_len as u16).to_be_bytes());
            let acc = ones_sum(&pseudo, 0);
            assert_eq!(ones_sum(tcp.header_slice(), acc), 0xffff, "TCP checksum");

            let opts = tcp.options_iterator().collect::<Result<Vec<_>, _>>()?;
            use TcpOptionElement::*;
            match n {
                0 => assert_eq!(
                    opts,
                    vec![
                        MaximumSegmentSize(1460),
                        SelectiveAcknowledgementPermitted,
                        Timestamp(11, 0),
                        Noop,
                        WindowScale(7)
                    ]
                ),
                1 => assert_eq!(
                    opts,
                    vec![
                        Noop,
                        Noop,
                        Timestamp(100, 99),
                        Noop,
                        Noop,
                        SelectiveAcknowledgement((5000, 6460), [Some((8000, 9460)), None, None])
                    ]
                ),
                _ => assert!(opts.is_empty()),
            }
            n += 1;
        }
        assert_eq!(n, 3);
        // For checking the file with tshark by hand: TCPLAB_KEEP_PCAP=/tmp/x.pcap cargo test.
        if let Some(keep) = std::env::var_os("TCPLAB_KEEP_PCAP") {
            std::fs::copy(&path, keep)?;
        }
        std::fs::remove_file(&path).ok();
        Ok(())
    }

    /// A SYN is written in its stack's layout (`SynOptionLayout`, sources in its module
    /// docs), read back option by option; the header length is the layout's and the TCP
    /// checksum still holds. A data segment ignores the layout.
    #[test]
    fn a_syn_is_written_in_its_stack_s_layout() -> TestResult {
        use TcpOptionElement::*;
        let want: [(SynOptionLayout, Vec<TcpOptionElement>); 4] = [
            (SynOptionLayout::Linux, vec![MaximumSegmentSize(1460), SelectiveAcknowledgementPermitted, Timestamp(11, 0), Noop, WindowScale(7)]),
            (SynOptionLayout::Bsd, vec![MaximumSegmentSize(1460), Noop, Noop, SelectiveAcknowledgementPermitted, Noop, WindowScale(7), Noop, Noop, Timestamp(11, 0)]),
            (SynOptionLayout::WindowsXp, vec![MaximumSegmentSize(1460), Noop, WindowScale(7), Noop, Noop, Timestamp(11, 0), Noop, Noop, SelectiveAcknowledgementPermitted]),
            (SynOptionLayout::Solaris10, vec![Noop, Noop, Timestamp(11, 0), MaximumSegmentSize(1460), Noop, WindowScale(7), Noop, Noop, SelectiveAcknowledgementPermitted]),
        ];
        for (layout, opts) in want {
            let seg = syn();
            let mut bytes = Vec::new();
            let orig_len = encode(&WirePacket { syn_layout: layout, ..wire(&seg, 1) }, &mut bytes)?;
            let sliced = LaxSlicedPacket::from_ip(&bytes)?;
            let Some(TransportSlice::Tcp(tcp)) = &sliced.transport else { panic!("not TCP") };
            assert_eq!(tcp.options_iterator().collect::<Result<Vec<_>, _>>()?, opts, "{layout:?}");
            let n = 20 + layout.write(&seg.options).encoded_len();
            assert_eq!((tcp.header_len(), orig_len as usize), (n, 20 + n), "{layout:?}");
            let mut pseudo = vec![10, 0, 0, 1, 10, 0, 1, 2, 0, 6];
            pseudo.extend_from_slice(&(n as u16).to_be_bytes());
            assert_eq!(ones_sum(tcp.header_slice(), ones_sum(&pseudo, 0)), 0xffff, "{layout:?}");
            // Data segments keep the engine's layout whatever the sender's stack.
            let d = data_with_sack();
            let mut a = Vec::new();
            encode(&WirePacket { syn_layout: layout, ..wire(&d, 2) }, &mut a)?;
            let mut b = Vec::new();
            encode(&wire(&d, 2), &mut b)?;
            assert_eq!(a, b);
        }
        Ok(())
    }

    #[test]
    fn four_sack_blocks_with_timestamps_are_trimmed_to_three() -> TestResult {
        let mut seg = data_with_sack();
        for k in 0..2u32 {
            seg.options.sack.push(SackBlock {
                left: SeqNum(20_000 + k * 4000),
                right: SeqNum(21_000 + k * 4000),
            });
        }
        assert_eq!(seg.options.sack.len(), 4);
        let mut bytes = Vec::new();
        encode(&wire(&seg, 1), &mut bytes)?;
        assert_eq!(bytes.len(), 20 + 20 + 40);
        Ok(())
    }

    #[test]
    fn an_oversized_segment_is_an_error_not_a_panic() {
        let seg = Segment { len: 70_000, flags: TcpFlags::ACK, ..Segment::default() };
        assert!(encode(&wire(&seg, 1), &mut Vec::new()).is_err());
        let seg = Segment { len: 65_535 - 40, flags: TcpFlags::ACK, ..Segment::default() };
        assert!(encode(&wire(&seg, 1), &mut Vec::new()).is_ok());
        let seg = Segment { len: 65_535 - 39, flags: TcpFlags::ACK, ..Segment::default() };
        assert!(encode(&wire(&seg, 1), &mut Vec::new()).is_err());
    }

    #[test]
    fn the_file_is_byte_identical_when_written_twice() -> TestResult {
        let write = |name: &str| -> Result<Vec<u8>, Box<dyn std::error::Error>> {
            let path = tmp(name)?;
            let mut w = PcapLinkWriter::create(&path)?;
            for (i, s) in [syn(), data_with_sack(), fin()].iter().enumerate() {
                w.write(SimTime(i as u64 * 1000), &wire(s, 9))?;
            }
            w.finish()?;
            let b = std::fs::read(&path)?;
            std::fs::remove_file(&path).ok();
            Ok(b)
        };
        let a = write("a.pcap")?;
        assert_eq!(a, write("b.pcap")?);
        // Little-endian nanosecond magic (0xa1b23c4d).
        assert_eq!(&a[..4], &[0x4d, 0x3c, 0xb2, 0xa1]);
        assert_eq!(u32::from_le_bytes(a[20..24].try_into()?), LINKTYPE_RAW);
        Ok(())
    }

    /// RFC 4782 §3.1 / §4.2: the Quick-Start Request is the IPv4 option 25 (IHL 7, 8 bytes
    /// after the fixed header) and the Response the TCP option 27 after the timestamps; both
    /// headers' lengths and checksums still agree.
    #[test]
    fn quick_start_options_are_written_in_rfc4782_layout() -> TestResult {
        use tcplab_tcp::startup::quickstart::{QsFunc, QsIpOption, QsRate, QsResponse};
        let path = tmp("quickstart.pcap")?;
        let mut seg = data_with_sack();
        seg.options.sack = SackBlocks::new();
        seg.qs_request = Some(QsIpOption { func: QsFunc::Request, rate: QsRate::new(8).ok_or("rate")?, qs_ttl: 0xa5, nonce: 0x1234_5674 });
        seg.options.quick_start = Some(QsResponse { rate: QsRate::new(6).ok_or("rate")?, ttl_diff: 200, nonce: 4 });
        let mut w = PcapLinkWriter::create(&path)?;
        w.write(SimTime(0), &wire(&seg, 1))?;
        w.finish()?;
        let mut r = PcapReader::new(File::open(&path)?)?;
        let p = r.next_packet().ok_or("no packet")??;
        let d = &p.data;
        assert_eq!(d[0], 0x47, "IPv4, IHL 7 words");
        assert_eq!(&d[20..28], &[25, 8, 0x08, 0xa5, 0x12, 0x34, 0x56, 0x74]);
        assert_eq!(ones_sum(&d[..28], 0), 0xffff, "IPv4 header checksum covers the option");
        assert_eq!(p.orig_len as usize, 28 + seg.header_len() + seg.len as usize);
        assert_eq!(seg.header_len(), 20 + 12 + 8);
        let tcp = &d[28..];
        assert_eq!(usize::from(tcp[12] >> 4) * 4, seg.header_len(), "data offset");
        assert_eq!(&tcp[32..40], &[27, 8, 0x06, 200, 0, 0, 0, 4]);
        // The engine's own decoder reads them back.
        assert_eq!(QsIpOption::decode(&d[20..28]), Ok(seg.qs_request.ok_or("req")?));
        assert_eq!(QsResponse::decode(&tcp[32..40]), Ok(seg.options.quick_start.ok_or("resp")?));
        Ok(())
    }

    /// Seed 004 §III-A as documented in `pathlet_header`: a discovery header (32 bytes, type
    /// 0x9E) after the Quick-Start option, IHL 15; an echo alone is type 0xDE; checksums hold.
    #[test]
    fn pathlet_headers_are_ipv4_options_after_quick_start() -> TestResult {
        use tcplab_tcp::startup::pathlet_header::{PathletKind, END_OF_PATH};
        use tcplab_tcp::startup::quickstart::{QsFunc, QsIpOption, QsRate};
        let path = tmp("pathlet.pcap")?;
        let mut seg = syn();
        seg.qs_request = Some(QsIpOption { func: QsFunc::Request, rate: QsRate::new(8).ok_or("rate")?, qs_ttl: 1, nonce: 4 });
        let mut h = PathletHeader::discovery(6);
        h.record_router(0x0A00_0003);
        let echo = PathletHeader { kind: PathletKind::Echo, congested: END_OF_PATH, ..PathletHeader::data() };
        let plain = fin();
        let mut w = PcapLinkWriter::create(&path)?;
        w.write(SimTime(0), &WirePacket { pathlet: [Some(h), None], ..wire(&seg, 1) })?;
        w.write(SimTime(1), &WirePacket { pathlet: [None, Some(echo)], ..wire(&plain, 2) })?;
        w.finish()?;
        let mut r = PcapReader::new(File::open(&path)?)?;
        let p = r.next_packet().ok_or("no packet")??;
        let d = &p.data;
        assert_eq!(d[0], 0x4F, "IPv4, IHL 15 words: 20 + 8 + 32");
        assert_eq!(&d[28..36], &[0x9E, 32, 6, 0, 10, 0, 0, 3]);
        assert_eq!(PathletHeader::decode(&d[28..60]), Ok(h));
        assert_eq!(ones_sum(&d[..60], 0), 0xffff);
        assert_eq!(p.orig_len as usize, 60 + seg.header_len());
        let p = r.next_packet().ok_or("no packet")??;
        assert_eq!(p.data[0], 0x47);
        assert_eq!(&p.data[20..28], &[0xDE, 8, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]);
        Ok(())
    }
}
