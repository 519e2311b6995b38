//! STAND-IN for `src/pcap.rs`, which is being written on branch `scenario`.
//!
//! Same interface as the real writer (`PcapLinkWriter::create / write / finish`,
//! `WirePacket`) so the simulator compiles and its capture path can be tested. At merge, delete
//! this file and the `#[path = "pcap_stub.rs"]` attribute in `lib.rs`.
//!
//! What it writes: a classic pcap file (nanosecond timestamps, magic 0xa1b23c4d,
//! LINKTYPE_RAW = 101, i.e. bare IPv4) with, per packet, the 20-byte IPv4 header and the
//! 20-byte TCP header without options; `orig_len` is the full wire length.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use tcplab_tcp::{Ecn, Segment};
use tcplab_time::SimTime;

/// pcap magic for nanosecond-resolution timestamps.
const PCAP_MAGIC_NS: u32 = 0xa1b2_3c4d;
/// LINKTYPE_RAW (tcpdump.org link-layer header types): raw IPv4/IPv6.
const LINKTYPE_RAW: u32 = 101;
/// Bytes captured per packet: IPv4 header + TCP header without options.
const CAPTURED: u32 = 40;

/// The headers of one packet as it goes on the wire.
#[derive(Debug, Clone, Copy)]
pub struct WirePacket<'a> {
    pub src_ip: [u8; 4],
    pub dst_ip: [u8; 4],
    pub src_port: u16,
    pub dst_port: u16,
    pub ip_id: u16,
    pub ttl: u8,
    pub segment: &'a Segment,
}

/// Writes the packets of one link to a pcap file.
#[derive(Debug)]
pub struct PcapLinkWriter {
    out: BufWriter<File>,
}

impl PcapLinkWriter {
    pub fn create(path: &Path) -> io::Result<PcapLinkWriter> {
        let mut out = BufWriter::new(File::create(path)?);
        out.write_all(&PCAP_MAGIC_NS.to_le_bytes())?;
        out.write_all(&2u16.to_le_bytes())?;
        out.write_all(&4u16.to_le_bytes())?;
        out.write_all(&0i32.to_le_bytes())?;
        out.write_all(&0u32.to_le_bytes())?;
        out.write_all(&65_535u32.to_le_bytes())?;
        out.write_all(&LINKTYPE_RAW.to_le_bytes())?;
        Ok(PcapLinkWriter { out })
    }

    pub fn write(&mut self, t: SimTime, hdr: &WirePacket<'_>) -> io::Result<()> {
        let seg = hdr.segment;
        let orig = 20 + seg.header_len() as u32 + seg.len;
        let ns = t.as_nanos();
        self.out.write_all(&((ns / 1_000_000_000) as u32).to_le_bytes())?;
        self.out.write_all(&((ns % 1_000_000_000) as u32).to_le_bytes())?;
        self.out.write_all(&CAPTURED.to_le_bytes())?;
        self.out.write_all(&orig.to_le_bytes())?;
        let ecn = match seg.ecn {
            Ecn::NotEct => 0,
            Ecn::Ect1 => 1,
            Ecn::Ect0 => 2,
            Ecn::Ce => 3,
        };
        let mut ip = [0u8; 20];
        ip[0] = 0x45;
        ip[1] = ecn;
        ip[2..4].copy_from_slice(&(orig.min(65_535) as u16).to_be_bytes());
        ip[4..6].copy_from_slice(&hdr.ip_id.to_be_bytes());
        ip[8] = hdr.ttl;
        ip[9] = 6; // TCP
        ip[12..16].copy_from_slice(&hdr.src_ip);
        ip[16..20].copy_from_slice(&hdr.dst_ip);
        let mut sum: u32 = ip.chunks(2).map(|c| u32::from(u16::from_be_bytes([c[0], c[1]]))).sum();
        while sum > 0xffff {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        ip[10..12].copy_from_slice(&(!(sum as u16)).to_be_bytes());
        let mut tcp = [0u8; 20];
        tcp[0..2].copy_from_slice(&hdr.src_port.to_be_bytes());
        tcp[2..4].copy_from_slice(&hdr.dst_port.to_be_bytes());
        tcp[4..8].copy_from_slice(&seg.seq.0.to_be_bytes());
        tcp[8..12].copy_from_slice(&seg.ack.0.to_be_bytes());
        tcp[12] = 5 << 4; // options omitted from the capture
        tcp[13] = seg.flags.0;
        tcp[14..16].copy_from_slice(&seg.window.to_be_bytes());
        self.out.write_all(&ip)?;
        self.out.write_all(&tcp)
    }

    pub fn finish(mut self) -> io::Result<()> {
        self.out.flush()
    }
}
