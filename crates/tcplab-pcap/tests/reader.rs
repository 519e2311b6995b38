//! Reader tests on hand-built captures: every decoded field, every container variant, and
//! damaged input.

use std::io::Cursor;
use std::net::{IpAddr, Ipv4Addr};

use proptest::prelude::*;
use tcplab_pcap::synth::{self, Ext, PcapFile, PcapNgFile, TcpSpec};
use tcplab_pcap::{Anomalies, CaptureFormat, CaptureReader, CapturedSegment, ReadError, ReaderConfig};
use tcplab_tcp::{Ecn, SeqNum, TcpFlags};

const LINUX_SYN_OPTS: [u8; 20] = [2, 4, 0x05, 0xB4, 4, 2, 8, 10, 0, 0, 0, 7, 0, 0, 0, 0, 1, 3, 3, 7];
const T0: u64 = 1_600_000_000_123_456_000;

fn read_all(name: &str, bytes: Vec<u8>) -> (Vec<CapturedSegment>, Anomalies, CaptureReader) {
    read_all_cfg(name, bytes, ReaderConfig::default())
}

fn read_all_cfg(
    name: &str,
    bytes: Vec<u8>,
    cfg: ReaderConfig,
) -> (Vec<CapturedSegment>, Anomalies, CaptureReader) {
    let mut r = CaptureReader::from_reader(name, Cursor::new(bytes), cfg).expect("valid capture");
    let segs: Vec<_> = r.by_ref().collect();
    let a = r.anomalies().clone();
    (segs, a, r)
}

fn syn_spec() -> TcpSpec {
    TcpSpec {
        src: IpAddr::V4(Ipv4Addr::new(192, 168, 1, 10)),
        dst: IpAddr::V4(Ipv4Addr::new(93, 184, 216, 34)),
        sport: 51515,
        dport: 443,
        seq: 0xFFFF_FF00,
        ack: 0,
        flags: 0x02 | 0x40 | 0x80, // SYN, ECE, CWR (ECN setup SYN)
        window: 64240,
        options: LINUX_SYN_OPTS.to_vec(),
        payload_len: 0,
        captured_payload: 0,
        ip_id: 0x1234,
        ttl: 57,
        ecn: 0b10,
    }
}

fn data_spec(len: u32, captured: u32) -> TcpSpec {
    TcpSpec {
        seq: 7,
        ack: 99,
        flags: 0x18,
        window: 501,
        options: vec![1, 1, 8, 10, 0, 0, 0, 9, 0, 0, 0, 8],
        payload_len: len,
        captured_payload: captured,
        ecn: 0b11,
        ..syn_spec()
    }
}

#[test]
fn ethernet_vlan_ipv4_syn_little_endian_microseconds_decodes_every_field() {
    let mut f = PcapFile::new(1, 65535, false, false);
    f.record(T0, &synth::ethernet_vlan(100, &synth::ipv4_tcp(&syn_spec())), None);
    let (segs, a, r) = read_all("vlan.pcap", f.bytes);
    assert_eq!(r.format(), Some(CaptureFormat::Pcap { nanosecond: false, big_endian: false }));
    assert!(a.is_clean(), "{a:?}");
    assert_eq!(segs.len(), 1);
    let s = &segs[0];
    assert_eq!(s.frame, 1);
    assert_eq!(s.ts_ns, T0);
    assert_eq!(s.iface, 0);
    assert_eq!(s.src, IpAddr::V4(Ipv4Addr::new(192, 168, 1, 10)));
    assert_eq!(s.dst, IpAddr::V4(Ipv4Addr::new(93, 184, 216, 34)));
    assert_eq!((s.sport, s.dport), (51515, 443));
    assert_eq!(s.segment.seq, SeqNum(0xFFFF_FF00));
    assert_eq!(s.segment.ack, SeqNum(0));
    assert_eq!(s.segment.flags, TcpFlags::SYN | TcpFlags::ECE | TcpFlags::CWR);
    assert_eq!(s.segment.window, 64240);
    assert_eq!(s.segment.len, 0);
    assert_eq!(s.segment.ecn, Ecn::Ect0);
    assert_eq!(s.segment.options.mss, Some(1460));
    assert_eq!(s.segment.options.window_scale, Some(7));
    assert!(s.segment.options.sack_permitted);
    assert_eq!(s.segment.options.timestamps, Some((7, 0)));
    assert!(s.segment.options.sack.is_empty());
    assert_eq!(s.ip_id, Some(0x1234));
    assert_eq!(s.ttl_or_hlim, 57);
    assert_eq!(s.captured_payload, 0);
    assert!(!s.tso);
}

#[test]
fn big_endian_nanosecond_pcap_with_qinq_keeps_nanoseconds_and_payload() {
    let mut f = PcapFile::new(1, 65535, true, true);
    let l3 = synth::ipv4_tcp(&data_spec(100, 100));
    f.record(T0 + 789, &synth::ethernet(&[(0x88A8, 10), (0x8100, 20)], &l3), None);
    let (segs, a, r) = read_all("qinq-be-ns.pcap", f.bytes);
    assert_eq!(r.format(), Some(CaptureFormat::Pcap { nanosecond: true, big_endian: true }));
    assert!(a.is_clean(), "{a:?}");
    let s = &segs[0];
    assert_eq!(s.ts_ns, T0 + 789);
    assert_eq!(s.segment.len, 100);
    assert_eq!(s.captured_payload, 100);
    assert_eq!(s.segment.seq, SeqNum(7));
    assert_eq!(s.segment.ack, SeqNum(99));
    assert_eq!(s.segment.flags, TcpFlags::PSH | TcpFlags::ACK);
    assert_eq!(s.segment.ecn, Ecn::Ce);
    assert_eq!(s.segment.options.timestamps, Some((9, 8)));
    assert_eq!(s.segment.options.mss, None);
}

#[test]
fn linux_cooked_v1_and_v2_are_decoded() {
    let mut f = PcapFile::new(113, 65535, false, false);
    f.record(T0, &synth::sll(0x0800, &synth::ipv4_tcp(&data_spec(10, 10))), None);
    let (segs, a, _) = read_all("sll.pcap", f.bytes);
    assert!(a.is_clean(), "{a:?}");
    assert_eq!(segs[0].segment.len, 10);
    assert_eq!(segs[0].sport, 51515);

    let spec = TcpSpec { src: synth::v6(1), dst: synth::v6(2), ..data_spec(20, 20) };
    let mut f = PcapFile::new(276, 65535, false, false);
    f.record(T0, &synth::sll2(0x86DD, &synth::ipv6_tcp(&spec, &[])), None);
    let (segs, a, _) = read_all("sll2.pcap", f.bytes);
    assert!(a.is_clean(), "{a:?}");
    assert_eq!(segs[0].src, synth::v6(1));
    assert_eq!(segs[0].dst, synth::v6(2));
    assert_eq!(segs[0].segment.len, 20);
    assert_eq!(segs[0].ip_id, None);
    assert_eq!(segs[0].ttl_or_hlim, 57);
    assert_eq!(segs[0].segment.ecn, Ecn::Ce);
}

#[test]
fn raw_ipv6_with_extension_headers_on_every_raw_link_type() {
    let spec = TcpSpec { src: synth::v6(10), dst: synth::v6(20), ..data_spec(300, 300) };
    let exts = [Ext::HopByHop, Ext::Routing, Ext::Fragment(0, false, 0xDEAD_BEEF), Ext::DestOpts];
    let pkt = synth::ipv6_tcp(&spec, &exts);
    for lt in [101u32, 229, 12, 14] {
        let mut f = PcapFile::new(lt, 65535, false, false);
        f.record(T0, &pkt, None);
        let (segs, a, _) = read_all("raw6.pcap", f.bytes);
        assert!(a.is_clean(), "linktype {lt}: {a:?}");
        assert_eq!(segs.len(), 1, "linktype {lt}");
        let s = &segs[0];
        assert_eq!(s.segment.len, 300);
        assert_eq!(s.ip_id, Some(0xDEAD_BEEF), "atomic fragment id");
        assert_eq!(s.src, synth::v6(10));
        assert_eq!(s.segment.options.timestamps, Some((9, 8)));
    }
    // 228 is IPv4 only: an IPv6 packet there is a bad header.
    let mut f = PcapFile::new(228, 65535, false, false);
    f.record(T0, &pkt, None);
    f.record(T0, &synth::ipv4_tcp(&syn_spec()), None);
    let (segs, a, _) = read_all("raw4.pcap", f.bytes);
    assert_eq!(segs.len(), 1);
    assert_eq!(segs[0].frame, 2);
    assert_eq!(a.bad_ip_header, 1);
}

#[test]
fn ipv6_non_first_fragment_is_counted_not_decoded() {
    let spec = TcpSpec { src: synth::v6(10), dst: synth::v6(20), ..data_spec(30, 30) };
    let mut f = PcapFile::new(101, 65535, false, false);
    f.record(T0, &synth::ipv6_tcp(&spec, &[Ext::Fragment(10, false, 5)]), None);
    f.record(T0, &synth::ipv6_tcp(&spec, &[Ext::Fragment(0, true, 6)]), None);
    let (segs, a, _) = read_all("frag6.pcap", f.bytes);
    assert_eq!(a.ip_fragments, 1);
    assert_eq!(a.ip_first_fragments, 1);
    assert_eq!(segs.len(), 1);
    assert_eq!(segs[0].ip_id, Some(6));
}

#[test]
fn bsd_loopback_null_in_both_byte_orders_and_openbsd_loop() {
    let v4 = synth::ipv4_tcp(&data_spec(5, 5));
    let v6 = synth::ipv6_tcp(&TcpSpec { src: synth::v6(1), dst: synth::v6(2), ..data_spec(6, 6) }, &[]);
    let mut f = PcapFile::new(0, 65535, false, false);
    f.record(T0, &synth::null_loopback(2, false, &v4), None);
    f.record(T0 + 1000, &synth::null_loopback(30, true, &v6), None);
    f.record(T0 + 2000, &synth::null_loopback(28, false, &v6), None);
    f.record(T0 + 3000, &synth::null_loopback(7, false, &v4), None); // unknown family
    let (segs, a, _) = read_all("null.pcap", f.bytes);
    assert_eq!(segs.iter().map(|s| s.segment.len).collect::<Vec<_>>(), vec![5, 6, 6]);
    assert_eq!(a.non_ip, 1);

    let mut f = PcapFile::new(108, 65535, true, false);
    f.record(T0, &synth::null_loopback(24, true, &v6), None);
    let (segs, a, _) = read_all("loop.pcap", f.bytes);
    assert!(a.is_clean(), "{a:?}");
    assert_eq!(segs[0].segment.len, 6);
}

fn two_interface_ng(big_endian: bool) -> Vec<u8> {
    let mut f = PcapNgFile::new(big_endian);
    f.interface(1, 65535, None); // Ethernet, µs (default)
    f.interface(101, 65535, Some(9)); // raw IP, ns
    f.interface(101, 0, Some(0x80 | 10)); // raw IP, 2^-10 s
    f.block(0x0000_0004, &[0, 0, 0, 0]); // Name Resolution Block (empty): skipped
    f.epb(0, T0 / 1000, &synth::ethernet(&[], &synth::ipv4_tcp(&syn_spec())), None);
    f.epb(1, T0 + 1_500, &synth::ipv4_tcp(&data_spec(40, 40)), None);
    f.block(0x0BAD_0BAD, &[1, 2, 3, 4, 5]); // unknown block type: skipped
    f.epb(2, 1024 * 3 + 512, &synth::ipv4_tcp(&data_spec(41, 41)), None);
    f.spb(&synth::ethernet(&[], &synth::ipv4_tcp(&data_spec(42, 42))), None);
    f.opb(1, T0 + 9_000, &synth::ipv4_tcp(&data_spec(43, 43)), None);
    f.bytes
}

#[test]
fn pcapng_two_interfaces_with_different_tsresol_and_all_packet_blocks() {
    for be in [false, true] {
        let (segs, a, r) = read_all("two-if.pcapng", two_interface_ng(be));
        assert_eq!(r.format(), Some(CaptureFormat::PcapNg));
        assert_eq!(segs.len(), 5, "big_endian={be}");
        assert_eq!(segs.iter().map(|s| s.iface).collect::<Vec<_>>(), vec![0, 1, 2, 0, 1]);
        assert_eq!(segs.iter().map(|s| s.frame).collect::<Vec<_>>(), vec![1, 2, 3, 4, 5]);
        assert_eq!(segs[0].ts_ns, T0);
        assert_eq!(segs[1].ts_ns, T0 + 1_500);
        assert_eq!(segs[2].ts_ns, 3_500_000_000);
        assert_eq!(segs[3].ts_ns, 3_500_000_000, "SPB takes the previous timestamp");
        assert_eq!(segs[4].ts_ns, T0 + 9_000);
        assert_eq!(segs.iter().map(|s| s.segment.len).collect::<Vec<_>>(), vec![0, 40, 41, 42, 43]);
        assert_eq!(segs[0].segment.options.mss, Some(1460));
        assert_eq!(a.skipped_blocks, 2);
        assert_eq!(a.packets_without_timestamp, 1);
        assert_eq!(a.clock_backwards, 1, "the 2^-10 s interface is at 1970");
    }
}

#[test]
fn pcapng_second_section_restarts_interface_numbers() {
    let mut f = PcapNgFile::new(false);
    f.interface(101, 0, None);
    f.epb(0, 1, &synth::ipv4_tcp(&syn_spec()), None);
    f.section_header();
    f.interface(101, 0, Some(9));
    f.epb(0, 2, &synth::ipv4_tcp(&syn_spec()), None);
    f.epb(1, 3, &synth::ipv4_tcp(&syn_spec()), None); // no such interface in this section
    let (segs, a, _) = read_all("sections.pcapng", f.bytes);
    assert_eq!(segs.iter().map(|s| (s.iface, s.ts_ns)).collect::<Vec<_>>(), vec![(0, 1000), (1, 2)]);
    assert_eq!(a.unknown_interface, 1);
}

#[test]
fn pcapng_block_with_corrupt_content_is_skipped_and_reading_goes_on() {
    let mut f = PcapNgFile::new(false);
    f.interface(101, 0, None);
    f.epb(0, 1, &synth::ipv4_tcp(&syn_spec()), None);
    let start = f.bytes.len();
    f.epb(0, 2, &synth::ipv4_tcp(&syn_spec()), None);
    // Captured length far beyond the block: the block's content is corrupt.
    f.bytes[start + 20..start + 24].copy_from_slice(&5000u32.to_le_bytes());
    f.epb(0, 3, &synth::ipv4_tcp(&syn_spec()), None);
    let (segs, a, _) = read_all("corrupt-block.pcapng", f.bytes);
    assert_eq!(segs.len(), 2);
    assert_eq!(a.corrupt_blocks, 1);
    assert_eq!(a.truncated_file, 0);
}

#[test]
fn pcapng_insane_block_length_stops_reading_without_allocating_it() {
    let mut f = PcapNgFile::new(false);
    f.interface(101, 0, None);
    f.epb(0, 1, &synth::ipv4_tcp(&syn_spec()), None);
    let start = f.bytes.len();
    f.epb(0, 2, &synth::ipv4_tcp(&syn_spec()), None);
    f.bytes[start + 4..start + 8].copy_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
    let (segs, a, _) = read_all("insane.pcapng", f.bytes);
    assert_eq!(segs.len(), 1);
    assert_eq!(a.corrupt_record_length + a.truncated_file, 1, "{a:?}");
}

#[test]
fn truncated_file_delivers_complete_records_and_counts_once() {
    let mut f = PcapFile::new(101, 65535, false, false);
    f.record(T0, &synth::ipv4_tcp(&syn_spec()), None);
    f.record(T0 + 1, &synth::ipv4_tcp(&data_spec(50, 50)), None);
    let cut = f.bytes.len() - 30;
    f.bytes.truncate(cut);
    let (segs, a, _) = read_all("cut.pcap", f.bytes);
    assert_eq!(segs.len(), 1);
    assert_eq!(a.truncated_file, 1);
    assert_eq!(a.corrupt_record_length, 0);
}

#[test]
fn corrupted_record_length_stops_reading_and_is_counted() {
    for bad in [0x7FFF_FFFFu32, 300_000] {
        let mut f = PcapFile::new(101, 65535, false, false);
        f.record(T0, &synth::ipv4_tcp(&syn_spec()), None);
        let pkt = synth::ipv4_tcp(&syn_spec());
        f.raw_record(1, 0, bad, 60, &pkt);
        f.record(T0 + 2, &pkt, None);
        f.bytes.extend_from_slice(&vec![0u8; 400_000]);
        let (segs, a, _) = read_all("badlen.pcap", f.bytes);
        assert_eq!(segs.len(), 1, "caplen {bad}");
        assert_eq!(a.corrupt_record_length, 1, "caplen {bad}: {a:?}");
    }
}

#[test]
fn fcs_bits_in_the_legacy_link_type_field_are_ignored() {
    let mut f = PcapFile::new(1 | (0x1 << 26) | (0x4 << 28), 65535, false, false);
    let mut frame = synth::ethernet(&[], &synth::ipv4_tcp(&syn_spec()));
    frame.extend_from_slice(&[0xDE, 0xAD, 0xBE, 0xEF]); // FCS
    f.record(T0, &frame, None);
    let (segs, a, _) = read_all("fcs.pcap", f.bytes);
    assert!(a.is_clean(), "{a:?}");
    assert_eq!(segs.len(), 1);
    assert_eq!(segs[0].segment.len, 0);
}

#[test]
fn unknown_link_type_is_counted_per_packet() {
    let mut f = PcapFile::new(147, 65535, false, false);
    f.record(T0, &[1, 2, 3], None);
    f.record(T0, &[4, 5, 6], None);
    let (segs, a, r) = read_all("user0.pcap", f.bytes);
    assert!(segs.is_empty());
    assert_eq!(a.unknown_link_type, 2);
    assert_eq!(a.unknown_link_types, vec![147]);
    assert_eq!(r.frames(), 2);
}

#[test]
fn garbage_missing_and_empty_files_are_one_line_errors_naming_the_file() {
    let e = CaptureReader::from_reader("garbage.bin", Cursor::new(b"hello, this is not a capture at all".to_vec()), ReaderConfig::default())
        .expect_err("garbage");
    let msg = e.to_string();
    assert!(matches!(e, ReadError::NotACapture { .. }));
    assert!(msg.contains("garbage.bin") && !msg.contains('\n'), "{msg}");

    let e = CaptureReader::open("/nonexistent/dir/x.pcap").expect_err("missing");
    assert!(matches!(e, ReadError::Io { .. }));
    assert!(e.to_string().starts_with("/nonexistent/dir/x.pcap: "), "{e}");

    let e = CaptureReader::from_reader("empty.pcap", Cursor::new(Vec::new()), ReaderConfig::default()).expect_err("empty");
    assert!(e.to_string().contains("empty.pcap"));
    let e = CaptureReader::from_reader("short.pcap", Cursor::new(vec![0xd4, 0xc3, 0xb2, 0xa1, 2]), ReaderConfig::default())
        .expect_err("short");
    assert!(matches!(e, ReadError::Damaged { .. }), "{e}");
    assert_eq!(e.to_string(), "short.pcap: damaged capture: pcap: truncated file header (5 of 24 bytes)");
}

#[test]
fn snaplen_truncated_packet_keeps_the_ip_length() {
    let mut f = PcapFile::new(1, 66, false, false);
    let frame = synth::ethernet(&[], &synth::ipv4_tcp(&data_spec(1448, 0)));
    f.record(T0, &frame, Some(frame.len() as u32 + 1448));
    let (segs, a, _) = read_all("snap.pcap", f.bytes);
    assert_eq!(segs[0].segment.len, 1448);
    assert_eq!(segs[0].captured_payload, 0);
    assert_eq!(a.snaplen_truncated_payload, 1);
    assert!(!segs[0].tso);
}

#[test]
fn truncation_inside_the_tcp_header_is_counted() {
    let mut f = PcapFile::new(1, 40, false, false);
    let frame = synth::ethernet(&[], &synth::ipv4_tcp(&syn_spec()));
    f.record(T0, &frame[..40], Some(frame.len() as u32));
    let (segs, a, _) = read_all("hdrcut.pcap", f.bytes);
    assert!(segs.is_empty());
    assert_eq!(a.truncated_headers, 1);
}

#[test]
fn tso_super_segments_keep_their_full_length_and_are_flagged() {
    let mut f = PcapFile::new(1, 65535, false, false);
    let big = synth::ethernet(&[], &synth::ipv4_tcp(&data_spec(20_000, 0)));
    f.record(T0, &big, Some(big.len() as u32 + 20_000));
    // IPv4 total length 0, as Linux captures of TSO packets often show.
    let mut zero = synth::ethernet(&[], &synth::ipv4_tcp(&data_spec(30_000, 0)));
    zero[16] = 0;
    zero[17] = 0;
    let orig = zero.len() as u32 + 30_000;
    f.record(T0 + 1, &zero, Some(orig));
    let (segs, a, _) = read_all("tso.pcap", f.bytes);
    assert_eq!(segs.len(), 2);
    assert_eq!(segs[0].segment.len, 20_000);
    assert!(segs[0].tso);
    assert_eq!(segs[1].segment.len, 30_000);
    assert!(segs[1].tso);
    assert_eq!(a.tso_segments, 2);
}

#[test]
fn large_packets_on_loopback_and_raw_links_are_not_tso() {
    let big = synth::ipv4_tcp(&data_spec(16_000, 100));
    let orig = big.len() as u32 - 100 + 16_000;
    let mut f = PcapFile::new(0, 65535, false, false);
    f.record(T0, &synth::null_loopback(2, false, &big), Some(orig + 4));
    let (segs, _, _) = read_all("lo0.pcap", f.bytes);
    assert_eq!(segs[0].segment.len, 16_000);
    assert!(!segs[0].tso);
    // Cooked capture: lo (ARPHRD_LOOPBACK 772) is not TSO; an Ethernet device is.
    let mut f = PcapFile::new(113, 65535, false, false);
    let mut lo = synth::sll(0x0800, &big);
    lo[2..4].copy_from_slice(&772u16.to_be_bytes());
    f.record(T0, &lo, Some(orig + 16));
    f.record(T0, &synth::sll(0x0800, &big), Some(orig + 16));
    let (segs, _, _) = read_all("any.pcap", f.bytes);
    assert_eq!((segs[0].tso, segs[1].tso), (false, true));
}

#[test]
fn non_ip_non_tcp_fragments_bad_headers_and_clock_are_counted() {
    let mut f = PcapFile::new(1, 65535, false, false);
    let mut arp = vec![0xFF; 12];
    arp.extend_from_slice(&[0x08, 0x06]);
    arp.extend_from_slice(&[0; 28]);
    f.record(T0, &arp, None);
    let mut udp = synth::ipv4_tcp(&syn_spec());
    udp[9] = 17;
    f.record(T0 + 5_000, &synth::ethernet(&[], &udp), None);
    let mut frag = synth::ipv4_tcp(&data_spec(100, 100));
    frag[6] = 0x00;
    frag[7] = 0x10; // offset 16*8 bytes
    f.record(T0 + 4_000, &synth::ethernet(&[], &frag), None); // clock goes back
    let mut ihl = synth::ipv4_tcp(&syn_spec());
    ihl[0] = 0x43;
    f.record(T0 + 6_000, &synth::ethernet(&[], &ihl), None);
    let mut doff = synth::ipv4_tcp(&syn_spec());
    doff[32] = 0x20; // TCP data offset 2
    f.record(T0 + 7_000, &synth::ethernet(&[], &doff), None);
    let mut badopt = syn_spec();
    badopt.options = vec![2, 4, 5, 0xB4, 3, 0, 0, 0];
    f.record(T0 + 8_000, &synth::ethernet(&[], &synth::ipv4_tcp(&badopt)), None);
    let (segs, a, r) = read_all("mixed.pcap", f.bytes);
    assert_eq!(r.frames(), 6);
    assert_eq!(segs.len(), 1);
    assert_eq!(segs[0].segment.options.mss, Some(1460));
    assert_eq!(a.non_ip, 1);
    assert_eq!(a.non_tcp, 1);
    assert_eq!(a.ip_fragments, 1);
    assert_eq!(a.bad_ip_header, 1);
    assert_eq!(a.bad_tcp_header, 1);
    assert_eq!(a.malformed_options, 1);
    assert_eq!(a.clock_backwards, 1);
    let json = serde_json::to_string(&a).expect("serialize");
    assert!(json.contains("\"clock_backwards\":1"));
}

#[test]
fn records_larger_than_the_buffer_grow_it_within_bounds() {
    let mut f = PcapFile::new(101, 262_144, false, false);
    let big = synth::ipv4_tcp(&data_spec(60_000, 60_000));
    f.record(T0, &big, None);
    f.record(T0 + 1, &synth::ipv4_tcp(&syn_spec()), None);
    let cfg = ReaderConfig { buffer_size: 4096, ..ReaderConfig::default() };
    let (segs, a, _) = read_all_cfg("big.pcap", f.bytes, cfg);
    assert!(a.corrupt_record_length == 0 && a.truncated_file == 0, "{a:?}");
    assert_eq!(segs.len(), 2);
    assert_eq!(segs[0].captured_payload, 60_000);
}

#[test]
fn open_reads_from_disk() {
    let mut f = PcapFile::new(1, 65535, false, false);
    f.record(T0, &synth::ethernet(&[], &synth::ipv4_tcp(&syn_spec())), None);
    let path = std::env::temp_dir().join(format!("tcplab-pcap-open-{}.pcap", std::process::id()));
    std::fs::write(&path, &f.bytes).expect("write temp");
    let mut r = CaptureReader::open(&path).expect("open");
    assert_eq!(r.next().map(|s| s.ts_ns), Some(T0));
    assert_eq!(r.next(), None);
    let _ = std::fs::remove_file(&path);
}

fn valid_mixed_capture() -> Vec<u8> {
    two_interface_ng(false)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, .. ProptestConfig::default() })]

    #[test]
    fn any_byte_string_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        if let Ok(r) = CaptureReader::from_reader("fuzz", Cursor::new(bytes), ReaderConfig { buffer_size: 4096, ..ReaderConfig::default() }) {
            for _ in r {}
        }
    }

    #[test]
    fn damaged_valid_captures_never_panic(
        flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..12),
        cut in any::<usize>(),
        legacy in any::<bool>(),
    ) {
        let mut bytes = if legacy {
            let mut f = PcapFile::new(1, 65535, false, false);
            f.record(T0, &synth::ethernet_vlan(3, &synth::ipv4_tcp(&syn_spec())), None);
            f.record(T0, &synth::ethernet(&[], &synth::ipv4_tcp(&data_spec(100, 100))), None);
            f.bytes
        } else {
            valid_mixed_capture()
        };
        for (pos, val) in flips {
            let n = bytes.len();
            bytes[pos % n] = val;
        }
        let keep = cut % (bytes.len() + 1);
        bytes.truncate(keep.max(bytes.len() / 2));
        if let Ok(r) = CaptureReader::from_reader("fuzz", Cursor::new(bytes), ReaderConfig { buffer_size: 4096, ..ReaderConfig::default() }) {
            let mut n = 0;
            for s in r {
                prop_assert!(s.captured_payload <= s.segment.len);
                n += 1;
            }
            prop_assert!(n <= 5);
        }
    }
}


/// Found by the `capture_reader` fuzz target: a Process Information Block claiming a total
/// length of 8 made pcap-parser subtract past zero.
#[test]
fn pcapng_block_length_below_minimum_stops_reading_without_panicking() {
    let mut f = PcapNgFile::new(false);
    f.interface(101, 0, None);
    f.epb(0, 1, &synth::ipv4_tcp(&syn_spec()), None);
    f.bytes.extend_from_slice(&0x8000_0001u32.to_le_bytes());
    f.bytes.extend_from_slice(&8u32.to_le_bytes());
    f.bytes.extend_from_slice(&[0; 32]);
    let (segs, a, _) = read_all("pib.pcapng", f.bytes);
    assert_eq!(segs.len(), 1);
    assert_eq!(a.corrupt_record_length, 1);
}

#[test]
fn fuzz_regressions_do_not_panic() {
    for entry in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fuzz_regressions")).expect("dir") {
        let bytes = std::fs::read(entry.expect("entry").path()).expect("read");
        if let Ok(r) = CaptureReader::from_reader("regression", Cursor::new(bytes), ReaderConfig { buffer_size: 4096, max_record_len: 1 << 20, ..ReaderConfig::default() }) {
            for _ in r {}
        }
    }
}
