//! Writes the committed fuzz seed corpus (hand-built captures and option lists) into
//! `fuzz/corpus/<target>/`.
//!
//! `cargo run -p tcplab-pcap --example write_fuzz_seeds -- fuzz/corpus`

use std::net::{IpAddr, Ipv4Addr};
use std::path::PathBuf;

use tcplab_pcap::synth::{self, Ext, PcapFile, PcapNgFile, TcpSpec};

const T0: u64 = 1_600_000_000_000_000_000;

fn main() -> std::io::Result<()> {
    let root = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "fuzz/corpus".into()));
    let cap = root.join("capture_reader");
    let opt = root.join("tcp_options");
    std::fs::create_dir_all(&cap)?;
    std::fs::create_dir_all(&opt)?;

    let syn_opts = vec![2, 4, 5, 0xB4, 4, 2, 8, 10, 0, 0, 0, 7, 0, 0, 0, 0, 1, 3, 3, 7];
    let sack_opts = vec![1, 1, 8, 10, 0, 0, 0, 9, 0, 0, 0, 8, 1, 1, 5, 18, 0, 0, 0, 10, 0, 0, 0, 20, 0, 0, 0, 30, 0, 0, 0, 40];
    let syn = TcpSpec { flags: 0x02, options: syn_opts.clone(), ..TcpSpec::default() };
    let data = TcpSpec { flags: 0x18, options: sack_opts.clone(), payload_len: 1448, captured_payload: 16, ..TcpSpec::default() };
    let v6 = TcpSpec { src: synth::v6(1), dst: synth::v6(2), ..data.clone() };

    let mut f = PcapFile::new(1, 65535, false, false);
    f.record(T0, &synth::ethernet_vlan(7, &synth::ipv4_tcp(&syn)), None);
    let frame = synth::ethernet(&[], &synth::ipv4_tcp(&data));
    f.record(T0 + 1000, &frame, Some(frame.len() as u32 + 1432));
    std::fs::write(cap.join("ethernet_vlan_le_us.pcap"), &f.bytes)?;

    let mut f = PcapFile::new(113, 96, true, true);
    f.record(T0, &synth::sll(0x0800, &synth::ipv4_tcp(&data)), None);
    std::fs::write(cap.join("sll_be_ns.pcap"), &f.bytes)?;

    let mut f = PcapFile::new(276, 65535, false, false);
    f.record(T0, &synth::sll2(0x86DD, &synth::ipv6_tcp(&v6, &[Ext::HopByHop, Ext::Fragment(0, false, 9)])), None);
    std::fs::write(cap.join("sll2_ipv6_ext.pcap"), &f.bytes)?;

    let mut f = PcapFile::new(0, 65535, false, false);
    f.record(T0, &synth::null_loopback(30, false, &synth::ipv6_tcp(&v6, &[Ext::Routing, Ext::DestOpts])), None);
    std::fs::write(cap.join("null_ipv6.pcap"), &f.bytes)?;

    let mut ng = PcapNgFile::new(false);
    ng.interface(1, 65535, None);
    ng.interface(101, 65535, Some(9));
    ng.epb(0, T0 / 1000, &synth::ethernet(&[], &synth::ipv4_tcp(&syn)), None);
    ng.epb(1, T0, &synth::ipv4_tcp(&data), None);
    ng.spb(&synth::ethernet(&[], &synth::ipv4_tcp(&data)), None);
    ng.opb(1, T0 + 5, &synth::ipv4_tcp(&syn), None);
    std::fs::write(cap.join("two_interfaces.pcapng"), &ng.bytes)?;

    let mut ng = PcapNgFile::new(true);
    ng.interface(101, 0, Some(0x80 | 20));
    let reply = TcpSpec {
        src: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)),
        dst: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)),
        sport: 80,
        dport: 40000,
        flags: 0x12,
        ..syn.clone()
    };
    ng.epb(0, 1 << 20, &synth::ipv4_tcp(&syn), None);
    ng.epb(0, 2 << 20, &synth::ipv4_tcp(&reply), None);
    std::fs::write(cap.join("big_endian_pow2.pcapng"), &ng.bytes)?;

    let mut small = Vec::new();
    synth::write_synthetic_capture(&mut small, 2, 24)?;
    std::fs::write(cap.join("synthetic_two_connections.pcap"), &small)?;

    malformed_seeds(&cap, &syn)?;
    compressed_and_quickstart_seeds(&cap, &small, &syn)?;

    std::fs::write(opt.join("linux_syn"), &syn_opts)?;
    std::fs::write(opt.join("ts_sack"), &sack_opts)?;
    std::fs::write(opt.join("unknown_then_mss"), [30u8, 4, 0xAA, 0xBB, 2, 4, 2, 0x18])?;
    std::fs::write(opt.join("malformed"), [1u8, 5, 3, 0, 0, 8, 1])?;
    Ok(())
}

/// One seed per malformed-capture class of `tests/malformed.rs` (libpcap's and tcpdump's
/// published malformed files as the model), so the fuzzer starts at each damage path.
fn malformed_seeds(cap: &std::path::Path, syn: &TcpSpec) -> std::io::Result<()> {
    let pkt = synth::ipv4_tcp(syn);
    let good = || {
        let mut f = PcapNgFile::new(false);
        f.interface(101, 0, None);
        f.epb(0, 1, &pkt, None);
        f
    };
    let raw_block = |ty: u32, lead: u32, body: &[u8], trail: u32| {
        let mut v = ty.to_le_bytes().to_vec();
        v.extend_from_slice(&lead.to_le_bytes());
        v.extend_from_slice(body);
        v.extend_from_slice(&trail.to_le_bytes());
        v
    };
    let mut f = good();
    f.bytes.extend(raw_block(6, 8, &[0; 32], 8));
    std::fs::write(cap.join("bad_block_length_short.pcapng"), &f.bytes)?;
    let mut f = good();
    f.bytes.extend(raw_block(6, 30, &[0; 18], 30));
    f.epb(0, 2, &pkt, None);
    std::fs::write(cap.join("bad_block_length_unaligned.pcapng"), &f.bytes)?;
    let mut f = good();
    f.bytes.extend(raw_block(6, 32, &[0; 20], 36));
    std::fs::write(cap.join("mismatched_trailer.pcapng"), &f.bytes)?;
    let mut f = PcapNgFile::new(false);
    f.block(1, &[]);
    f.epb(0, 1, &pkt, None);
    std::fs::write(cap.join("truncated_idb.pcapng"), &f.bytes)?;
    let mut f = good();
    f.block(6, &[0, 0, 0, 0]);
    f.epb(0, 3, &pkt, None);
    std::fs::write(cap.join("truncated_epb.pcapng"), &f.bytes)?;
    let mut f = good();
    f.block(0x0BAD, &[1; 8]);
    f.epb(0, 3, &pkt, None);
    std::fs::write(cap.join("unknown_block_type.pcapng"), &f.bytes)?;
    let f = good();
    std::fs::write(cap.join("truncated_shb.pcapng"), &f.bytes[..20])?;
    let mut f = good();
    f.bytes[4..8].copy_from_slice(&7u32.to_le_bytes());
    std::fs::write(cap.join("impossible_shb_length.pcapng"), &f.bytes)?;
    let mut f = PcapFile::new(101, 0, false, false);
    f.record(T0, &pkt, None);
    std::fs::write(cap.join("snaplen_0.pcap"), &f.bytes)?;
    let mut f = PcapFile::new(101, 65535, false, false);
    f.record(T0, &pkt, None);
    f.raw_record(1, 0, 0x7FFF_FFFF, 60, &pkt);
    std::fs::write(cap.join("huge_incl_len.pcap"), &f.bytes)?;
    let mut f = PcapFile::new(101, 65535, false, false);
    f.raw_record(1, 0, 0x0100_0000, 60, &pkt);
    std::fs::write(cap.join("impossible_first_record.pcap"), &f.bytes)?;
    let mut f = PcapFile::new(101, 65535, false, false);
    f.record(T0, &pkt, None);
    f.record(T0 + 1, &pkt, None);
    let n = f.bytes.len() - 7;
    std::fs::write(cap.join("truncated_record.pcap"), &f.bytes[..n])?;
    Ok(())
}


/// Seeds for the paths added by issue 15 item 3 and the Quick-Start decoders: a zstd capture
/// in two frames with a skippable frame between them (RFC 8878 §3.1.2), a gzip capture in two
/// members, an xz capture (no corpus input of this campaign decompressed any xz data), and a SYN carrying
/// the IPv4 Quick-Start option (type 25) and the TCP
/// Quick-Start Response (kind 27), RFC 4782 §3.1 and §4.2.
fn compressed_and_quickstart_seeds(cap: &std::path::Path, small: &[u8], syn: &TcpSpec) -> std::io::Result<()> {
    use std::io::Write;
    let half = small.len() / 2;
    let mut zst = ruzstd::encoding::compress_to_vec(&small[..half], ruzstd::encoding::CompressionLevel::Fastest);
    zst.extend(0x184D_2A5Au32.to_le_bytes());
    zst.extend(3u32.to_le_bytes());
    zst.extend(b"abc");
    zst.extend(ruzstd::encoding::compress_to_vec(&small[half..], ruzstd::encoding::CompressionLevel::Fastest));
    std::fs::write(cap.join("two_frames.pcap.zst"), &zst)?;
    let mut gz = Vec::new();
    for part in [&small[..half], &small[half..]] {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(part)?;
        gz.extend(e.finish()?);
    }
    std::fs::write(cap.join("two_members.pcap.gz"), &gz)?;
    let mut xz = Vec::new();
    lzma_rs::xz_compress(&mut &small[..], &mut xz)?;
    std::fs::write(cap.join("synthetic.pcap.xz"), &xz)?;

    let qs_tcp = TcpSpec { options: vec![27, 8, 0x06, 200, 0, 0, 0, 4], ..syn.clone() };
    let mut ip = synth::ipv4_tcp(&qs_tcp);
    // Insert the 8-byte IP option after the fixed header: IHL 5 -> 7, total length + 8.
    let qs_ip = [25u8, 8, 0x08, 0xa5, 0x12, 0x34, 0x56, 0x74];
    ip.splice(20..20, qs_ip);
    ip[0] = 0x47;
    let total = u16::from_be_bytes([ip[2], ip[3]]).saturating_add(8);
    ip[2..4].copy_from_slice(&total.to_be_bytes());
    let mut f = PcapFile::new(101, 65535, false, false);
    f.record(T0, &ip, None);
    std::fs::write(cap.join("quickstart_syn.pcap"), &f.bytes)?;
    Ok(())
}
