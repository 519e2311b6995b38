//! Writes a large synthetic capture for the scale measurement in docs/benchmarks.md: many
//! short connections (a fixed number open at once, each replaced by a fresh one when it
//! closes) plus a few long-lived connections that last the whole capture, with full
//! payloads and an occasional retransmission, in time order.
//!
//! `cargo run --release -p tcplab-pcap --example big_capture -- OUT.pcap [connections]
//!  [concurrent] [long_lived] [step_ns]`
//! (defaults: 100 000 short connections, 1000 open at once, 20 long-lived connections that
//! send one packet per round of the short ones, one packet every 1 ms: about 4 GB.)
//!
//! Each short connection: handshake, `SHORT_SEGMENTS` data segments of 1448 bytes, one ACK per
//! two segments, except that every 12th pair's ACK is replaced by a resend of the pair's first
//! segment (a retransmission for the analyzer to classify), FIN both ways. Long-lived
//! connections send the same pattern until the end of the capture, then close.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::net::{IpAddr, Ipv4Addr};

use tcplab_pcap::synth::{ethernet, ipv4_tcp, PcapFile, TcpSpec};

/// Data segments per short connection.
const SHORT_SEGMENTS: u32 = 24;
/// Payload per data segment (Ethernet MSS with timestamps).
const MSS: u32 = 1448;
/// Default time between two packets of the capture (1 ms: with 1000 connections open at once
/// a short connection lasts about 40 s and the capture about 70 minutes, longer than the
/// tracker's 60 s closed and idle timeouts, so finished connections are evicted as it goes).
const DEFAULT_STEP_NS: u64 = 1_000_000;
const T0: u64 = 1_700_000_000_000_000_000;

/// One connection's position in its script.
struct Conn {
    client: IpAddr,
    sport: u16,
    isn_c: u32,
    isn_s: u32,
    /// Next script step.
    step: u32,
    /// Data segments in the script (u32::MAX: long-lived).
    segments: u32,
    /// Segments sent so far (the FIN goes after them).
    high: u32,
    /// Closing: the next step of the FIN exchange.
    fin_step: Option<u32>,
}

const SYN: u8 = 0x02;
const SYNACK: u8 = 0x12;
const ACK: u8 = 0x10;
const PSHACK: u8 = 0x18;
const FINACK: u8 = 0x11;

impl Conn {
    fn new(n: u64, long: bool) -> Conn {
        let host = 0x0A00_0000u32 + (n % 60_000) as u32 + 1;
        Conn {
            client: IpAddr::V4(Ipv4Addr::from(host)),
            sport: 1024 + (n / 60_000 % 60_000) as u16,
            isn_c: (n as u32).wrapping_mul(2_654_435_761),
            isn_s: (n as u32).wrapping_mul(40_503).wrapping_add(17),
            step: 0,
            segments: if long { u32::MAX } else { SHORT_SEGMENTS },
            high: 0,
            fin_step: None,
        }
    }

    fn data_seq(&self, k: u32) -> u32 {
        self.isn_c.wrapping_add(1).wrapping_add(k.wrapping_mul(MSS))
    }

    /// The FIN exchange after the data sent so far.
    fn fin(&mut self, n: u32) -> Option<(bool, u8, u32, u32, u32)> {
        let sa = self.isn_s.wrapping_add(1);
        let last = self.data_seq(self.high);
        self.fin_step = Some(n + 1);
        match n {
            0 => Some((true, FINACK, last, sa, 0)),
            1 => Some((false, FINACK, sa, last.wrapping_add(1), 0)),
            2 => Some((true, ACK, last.wrapping_add(1), sa.wrapping_add(1), 0)),
            _ => None,
        }
    }

    /// The next packet: (from client, flags, seq, ack, payload length); `None` when done.
    fn next(&mut self) -> Option<(bool, u8, u32, u32, u32)> {
        if let Some(n) = self.fin_step {
            return self.fin(n);
        }
        let s = self.step;
        self.step += 1;
        let sa = self.isn_s.wrapping_add(1);
        // Script: 0 SYN, 1 SYN-ACK, 2 ACK, then per pair of data segments: data, data, ACK
        // (or, every 12th pair, a resend of the pair's first segment instead of the ACK).
        match s {
            0 => return Some((true, SYN, self.isn_c, 0, 0)),
            1 => return Some((false, SYNACK, self.isn_s, self.isn_c.wrapping_add(1), 0)),
            2 => return Some((true, ACK, self.isn_c.wrapping_add(1), sa, 0)),
            _ => {}
        }
        let body = s - 3;
        let per = 3; // data, data, ack
        let k2 = body / per; // pair index
        let phase = body % per;
        let end_steps = self.segments.saturating_sub(1) / 2 + 1;
        if k2 >= end_steps {
            return self.fin(0);
        }
        // Pair k2 carries segments 2*k2 and 2*k2+1.
        let k = 2 * k2;
        self.high = self.high.max(k + 2);
        let resend = k2 % 12 == 4 && phase == 2; // every 12th pair: a fast retransmit of one segment
        Some(match phase {
            0 => (true, PSHACK, self.data_seq(k), sa, MSS),
            1 => (true, PSHACK, self.data_seq(k + 1), sa, MSS),
            _ if resend => (true, PSHACK, self.data_seq(k), sa, MSS),
            _ => (false, ACK, sa, self.data_seq(k + 2), 0),
        })
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: big_capture OUT.pcap [connections] [concurrent] [long_lived] [step_ns]")?;
    let total: u64 = args.next().map(|a| a.parse()).transpose()?.unwrap_or(100_000);
    let concurrent: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(1000);
    let long_lived: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(20);
    let step_ns: u64 = args.next().map(|a| a.parse()).transpose()?.unwrap_or(DEFAULT_STEP_NS);
    let mut out = BufWriter::with_capacity(1 << 20, File::create(&path)?);
    let mut f = PcapFile::new(1, 65_535, false, true);
    out.write_all(&f.bytes)?;
    f.bytes.clear();
    let server = IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1));
    let mut started: u64 = 0;
    let mut slots: Vec<Conn> = (0..concurrent.min(total as usize))
        .map(|_| {
            started += 1;
            Conn::new(started, false)
        })
        .collect();
    let mut long: Vec<Conn> = (0..long_lived).map(|i| Conn::new(10_000_000 + i as u64, true)).collect();
    let mut ts = T0;
    let mut packets = 0u64;
    let mut spec = TcpSpec { window: 65_535, options: vec![1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 1], ..TcpSpec::default() };
    let mut emit = |c: &mut Conn, f: &mut PcapFile, ts: u64| -> bool {
        let Some((from_client, flags, seq, ack, len)) = c.next() else { return false };
        spec.src = if from_client { c.client } else { server };
        spec.dst = if from_client { server } else { c.client };
        spec.sport = if from_client { c.sport } else { 443 };
        spec.dport = if from_client { 443 } else { c.sport };
        spec.seq = seq;
        spec.ack = ack;
        spec.flags = flags;
        spec.payload_len = len;
        spec.captured_payload = len;
        f.record(ts, &ethernet(&[], &ipv4_tcp(&spec)), None);
        true
    };
    while !slots.is_empty() {
        for i in (0..slots.len()).rev() {
            ts += step_ns;
            packets += 1;
            if !emit(&mut slots[i], &mut f, ts) {
                packets -= 1;
                if started < total {
                    started += 1;
                    slots[i] = Conn::new(started, false);
                } else {
                    slots.swap_remove(i);
                }
            }
            if f.bytes.len() > 1 << 20 {
                out.write_all(&f.bytes)?;
                f.bytes.clear();
            }
        }
        {
            for c in long.iter_mut() {
                ts += step_ns;
                packets += 1;
                emit(c, &mut f, ts);
            }
        }
    }
    // Close the long-lived connections.
    for c in long.iter_mut() {
        c.fin_step = Some(0);
        loop {
            ts += step_ns;
            if !emit(c, &mut f, ts) {
                break;
            }
            packets += 1;
        }
    }
    out.write_all(&f.bytes)?;
    out.flush()?;
    let size = std::fs::metadata(&path)?.len();
    eprintln!("{path}: {packets} packets, {} connections ({long_lived} long-lived), {size} bytes", started + long_lived as u64);
    Ok(())
}
