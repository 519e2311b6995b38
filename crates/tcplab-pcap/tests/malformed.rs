//! One test per class of malformed capture, modelled on the published malformed files of
//! libpcap's and tcpdump's test suites (bad block lengths, a length not a multiple of 4,
//! truncated SHB/IDB/EPB, mismatched trailers, unknown block types, snaplen 0, huge
//! incl_len, an impossible first record length), plus compressed captures. Each file is
//! built here, and each test checks the counters against what the file contains: how many
//! records are delivered, which anomaly is counted, and that every byte of the file is either
//! used or attributed to one named `*_bytes` counter.

use std::io::{Cursor, Write};
use std::net::{IpAddr, Ipv4Addr};

use tcplab_pcap::synth::{self, PcapFile, PcapNgFile, TcpSpec};
use tcplab_pcap::{Anomalies, CaptureReader, ReadError, ReaderConfig};

const T0: u64 = 1_600_000_000_000_000_000;
/// Raw IPv4 link type (LINKTYPE_RAW = 101).
const RAW: u16 = 101;

fn pkt(seq: u32) -> Vec<u8> {
    synth::ipv4_tcp(&TcpSpec {
        src: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)),
        dst: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)),
        seq,
        flags: 0x10,
        ..TcpSpec::default()
    })
}

/// Reads the whole file; returns the delivered sequence numbers and the counters, after
/// checking that every byte is accounted for.
fn read(bytes: &[u8]) -> (Vec<u32>, Anomalies) {
    let total = bytes.len() as u64;
    let mut r = CaptureReader::from_reader("t", Cursor::new(bytes.to_vec()), ReaderConfig { buffer_size: 4096, ..ReaderConfig::default() })
        .expect("opens");
    let seqs: Vec<u32> = r.by_ref().map(|s| s.segment.seq.0).collect();
    let a = r.anomalies().clone();
    assert_eq!(r.bytes_used() + a.skipped_bytes(), total, "bytes not accounted for: {a:?}");
    (seqs, a)
}

fn open_err(bytes: &[u8]) -> String {
    CaptureReader::from_reader("t", Cursor::new(bytes.to_vec()), ReaderConfig::default())
        .expect_err("refused")
        .to_string()
}

fn ng_with_one_packet() -> PcapNgFile {
    let mut f = PcapNgFile::new(false);
    f.interface(RAW, 0, None);
    f.epb(0, 1, &pkt(1), None);
    f
}

/// A raw block: type, leading length, body, trailing length, all given as is.
fn raw_block(ty: u32, lead: u32, body: &[u8], trail: u32) -> Vec<u8> {
    let mut v = ty.to_le_bytes().to_vec();
    v.extend_from_slice(&lead.to_le_bytes());
    v.extend_from_slice(body);
    v.extend_from_slice(&trail.to_le_bytes());
    v
}

#[test]
fn block_length_below_minimum_stops_with_the_rest_unread() {
    let mut f = ng_with_one_packet();
    let bad = raw_block(6, 8, &[0; 32], 8);
    f.bytes.extend_from_slice(&bad);
    let (seqs, a) = read(&f.bytes);
    assert_eq!(seqs, vec![1]);
    assert_eq!((a.corrupt_record_length, a.block_length_too_short), (1, 1));
    assert_eq!(a.unread_bytes, bad.len() as u64);
}

#[test]
fn block_length_not_a_multiple_of_4_stops_and_is_named() {
    let mut f = ng_with_one_packet();
    let start = f.bytes.len();
    // An EPB whose length (and trailer) say 2 bytes less than its padded size.
    f.epb(0, 2, &pkt(2), None);
    let len = (f.bytes.len() - start) as u32 - 2;
    f.bytes.truncate(start);
    let mut body = vec![0u8; len as usize - 12];
    body[..4].copy_from_slice(&0u32.to_le_bytes());
    f.bytes.extend_from_slice(&raw_block(6, len, &body, len));
    f.epb(0, 3, &pkt(3), None);
    let rest = (f.bytes.len() - start) as u64;
    let (seqs, a) = read(&f.bytes);
    assert_eq!(seqs, vec![1], "nothing after the unaligned block is trusted");
    assert_eq!((a.corrupt_record_length, a.block_length_unaligned), (1, 1));
    assert_eq!(a.unread_bytes, rest);
}

#[test]
fn block_longer_than_any_sane_record_stops_without_allocating() {
    let mut f = ng_with_one_packet();
    let start = f.bytes.len();
    f.epb(0, 2, &pkt(2), None);
    f.bytes[start + 4..start + 8].copy_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
    let rest = (f.bytes.len() - start) as u64;
    let (seqs, a) = read(&f.bytes);
    assert_eq!(seqs, vec![1]);
    assert_eq!((a.corrupt_record_length, a.record_too_long, a.truncated_file), (1, 1, 0));
    assert_eq!(a.unread_bytes, rest);
}

#[test]
fn mismatched_trailer_stops_reading() {
    let mut f = ng_with_one_packet();
    let start = f.bytes.len();
    f.epb(0, 2, &pkt(2), None);
    let end = f.bytes.len();
    f.bytes[end - 4..end].copy_from_slice(&4u32.to_le_bytes());
    f.epb(0, 3, &pkt(3), None);
    let rest = (f.bytes.len() - start) as u64;
    let (seqs, a) = read(&f.bytes);
    assert_eq!(seqs, vec![1]);
    assert_eq!((a.corrupt_record_length, a.mismatched_block_trailer), (1, 1));
    assert_eq!(a.unread_bytes, rest);
}

#[test]
fn truncated_idb_is_a_corrupt_block_and_its_packets_have_no_interface() {
    let mut f = PcapNgFile::new(false);
    f.block(1, &[]); // IDB with no body: 12 bytes, linktype and snaplen missing
    f.epb(0, 1, &pkt(1), None);
    let (seqs, a) = read(&f.bytes);
    assert!(seqs.is_empty());
    assert_eq!((a.corrupt_blocks, a.corrupt_block_bytes), (1, 12));
    assert_eq!(a.unknown_interface, 1);
    assert_eq!(a.corrupt_record_length, 0);
}

#[test]
fn truncated_epb_is_skipped_and_reading_goes_on() {
    let mut f = ng_with_one_packet();
    f.block(6, &[0, 0, 0, 0]); // EPB holding only an interface id: 16 bytes
    f.epb(0, 3, &pkt(3), None);
    let (seqs, a) = read(&f.bytes);
    assert_eq!(seqs, vec![1, 3]);
    assert_eq!((a.corrupt_blocks, a.corrupt_block_bytes), (1, 16));
}

#[test]
fn epb_captured_length_beyond_its_block_is_skipped() {
    let mut f = ng_with_one_packet();
    let start = f.bytes.len();
    f.epb(0, 2, &pkt(2), None);
    let len = (f.bytes.len() - start) as u64;
    f.bytes[start + 20..start + 24].copy_from_slice(&5000u32.to_le_bytes());
    f.epb(0, 3, &pkt(3), None);
    let (seqs, a) = read(&f.bytes);
    assert_eq!(seqs, vec![1, 3]);
    assert_eq!((a.corrupt_blocks, a.corrupt_block_bytes), (1, len));
}

#[test]
fn file_cut_inside_an_epb_counts_the_partial_bytes() {
    let mut f = ng_with_one_packet();
    f.epb(0, 2, &pkt(2), None);
    let cut = f.bytes.len() - 10;
    f.bytes.truncate(cut);
    let before = ng_with_one_packet().bytes.len();
    let (seqs, a) = read(&f.bytes);
    assert_eq!(seqs, vec![1]);
    assert_eq!(a.truncated_file, 1);
    assert_eq!(a.truncated_bytes, (cut - before) as u64);
}

#[test]
fn unknown_block_types_are_skipped_with_their_bytes() {
    let mut f = ng_with_one_packet();
    f.block(0x0000_0BAD, &[1, 2, 3, 4, 5, 6, 7, 8]); // 20 bytes
    f.block(0x4000_0BAD, &[9; 4]); // custom-looking, 16 bytes
    f.epb(0, 2, &pkt(2), None);
    let (seqs, a) = read(&f.bytes);
    assert_eq!(seqs, vec![1, 2]);
    assert_eq!((a.skipped_blocks, a.skipped_block_bytes), (2, 36));
    assert!(a.is_clean(), "{a:?}");
}

#[test]
fn later_section_header_with_a_bad_byte_order_magic_stops_reading() {
    let mut f = ng_with_one_packet();
    let start = f.bytes.len();
    f.section_header();
    f.bytes[start + 8..start + 12].copy_from_slice(&[0xDE, 0xAD, 0xBE, 0xEF]);
    f.interface(RAW, 0, None);
    let rest = (f.bytes.len() - start) as u64;
    let (seqs, a) = read(&f.bytes);
    assert_eq!(seqs, vec![1]);
    assert_eq!((a.corrupt_record_length, a.bad_section_header), (1, 1));
    assert_eq!(a.unread_bytes, rest);
}

#[test]
fn snaplen_zero_is_read_as_the_libpcap_maximum() {
    let mut f = PcapFile::new(RAW as u32, 0, false, false);
    f.record(T0, &pkt(1), None);
    f.record(T0 + 1, &pkt(2), None);
    let (seqs, a) = read(&f.bytes);
    assert_eq!(seqs, vec![1, 2]);
    assert_eq!(a.zero_snaplen, 1);
    assert!(a.is_clean(), "{a:?}");
}

#[test]
fn huge_incl_len_after_good_records_stops_with_the_rest_unread() {
    let mut f = PcapFile::new(RAW as u32, 65_535, false, false);
    f.record(T0, &pkt(1), None);
    let start = f.bytes.len();
    f.raw_record(1, 0, 0x7FFF_FFFF, 60, &pkt(2));
    f.record(T0 + 2, &pkt(3), None);
    let rest = (f.bytes.len() - start) as u64;
    let (seqs, a) = read(&f.bytes);
    assert_eq!(seqs, vec![1]);
    assert_eq!((a.corrupt_record_length, a.record_too_long), (1, 1));
    assert_eq!(a.unread_bytes, rest);
}

#[test]
fn legacy_file_cut_inside_a_record_counts_the_partial_bytes() {
    let mut f = PcapFile::new(RAW as u32, 65_535, false, false);
    f.record(T0, &pkt(1), None);
    let good = f.bytes.len();
    f.record(T0 + 1, &pkt(2), None);
    f.bytes.truncate(good + 20);
    let (seqs, a) = read(&f.bytes);
    assert_eq!(seqs, vec![1]);
    assert_eq!((a.truncated_file, a.truncated_bytes), (1, 20));
}

#[test]
fn impossible_first_record_length_makes_the_file_unreadable() {
    let mut f = PcapFile::new(RAW as u32, 65_535, false, false);
    f.raw_record(1, 0, 0x0100_0000, 60, &pkt(1));
    assert_eq!(open_err(&f.bytes), "t: damaged capture: pcap: impossible first record length 16777216 (snapshot length 65535)");
}

#[test]
fn truncated_file_and_section_headers_are_named() {
    let f = ng_with_one_packet();
    assert_eq!(open_err(&f.bytes[..20]), "t: damaged capture: pcapng: truncated section header (20 of 28 bytes)");
    assert_eq!(open_err(&f.bytes[..8]), "t: damaged capture: pcapng: truncated section header (8 of 28 bytes)");
    let p = PcapFile::new(1, 65_535, false, false);
    assert_eq!(open_err(&p.bytes[..10]), "t: damaged capture: pcap: truncated file header (10 of 24 bytes)");
}

#[test]
fn impossible_section_header_lengths_are_named() {
    for (len, why) in [(7u32, "impossible section header length 7"), (30, "impossible section header length 30"), (1 << 30, "impossible section header length 1073741824")] {
        let mut f = ng_with_one_packet();
        f.bytes[4..8].copy_from_slice(&len.to_le_bytes());
        assert_eq!(open_err(&f.bytes), format!("t: damaged capture: pcapng: {why}"));
    }
    let mut f = ng_with_one_packet();
    f.bytes[8..12].copy_from_slice(&[1, 2, 3, 4]);
    assert!(open_err(&f.bytes).contains("byte-order magic"), "{}", open_err(&f.bytes));
}

#[test]
fn unknown_magic_and_tiny_files_are_not_captures() {
    assert_eq!(open_err(b"GIF89a......."), "t: not a pcap or pcapng capture (unrecognised magic number 47 49 46 38)");
    assert_eq!(open_err(b"ab"), "t: not a pcap or pcapng capture (too short for a capture header (2 bytes))");
    assert_eq!(open_err(b""), "t: not a pcap or pcapng capture (empty file)");
}

fn compressed_reads_like_plain(packed: Vec<u8>, plain: &[u8], name: &str) {
    let mut r = CaptureReader::from_reader("t", Cursor::new(packed), ReaderConfig::default()).expect("opens");
    let seqs: Vec<u32> = r.by_ref().map(|s| s.segment.seq.0).collect();
    assert_eq!(seqs, vec![1, 2], "{name}");
    assert_eq!(r.compression(), Some(name));
    assert_eq!(r.bytes_used() + r.anomalies().skipped_bytes(), plain.len() as u64);
}

#[test]
fn gzip_zstd_and_xz_captures_are_read_transparently() {
    let mut f = ng_with_one_packet();
    f.epb(0, 2, &pkt(2), None);
    let plain = f.bytes;

    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&plain).expect("gzip");
    compressed_reads_like_plain(gz.finish().expect("gzip"), &plain, "gzip");

    let zst = ruzstd::encoding::compress_to_vec(&plain[..], ruzstd::encoding::CompressionLevel::Fastest);
    compressed_reads_like_plain(zst, &plain, "zstd");

    let mut xz = Vec::new();
    lzma_rs::xz_compress(&mut &plain[..], &mut xz).expect("xz");
    compressed_reads_like_plain(xz, &plain, "xz");
}

/// A capture with `n` packets (seq 1..=n) as pcapng bytes.
fn ng_with_packets(n: u32) -> Vec<u8> {
    let mut f = ng_with_one_packet();
    for seq in 2..=n {
        f.epb(0, u64::from(seq), &pkt(seq), None);
    }
    f.bytes
}

fn zstd_frame(bytes: &[u8]) -> Vec<u8> {
    ruzstd::encoding::compress_to_vec(bytes, ruzstd::encoding::CompressionLevel::Fastest)
}

/// RFC 8878 §3.1.2: magic 0x184D2A5?, Frame_Size, then that many bytes of user data.
fn zstd_skippable(nibble: u8, data: &[u8]) -> Vec<u8> {
    let mut v = (0x184D_2A50u32 | u32::from(nibble)).to_le_bytes().to_vec();
    v.extend_from_slice(&(data.len() as u32).to_le_bytes());
    v.extend_from_slice(data);
    v
}

/// Issue 15 item 3: `cat a.zst b.zst` (and writers that emit one frame per chunk) give a
/// multi-frame zstd stream; RFC 8878 §3.1 makes its content the concatenation of the frames.
/// The capture is split at arbitrary byte positions, not at record boundaries, so records
/// straddle frames; an empty frame and skippable frames in between change nothing.
#[test]
fn a_multi_frame_zstd_capture_is_read_to_its_last_frame() {
    let plain = ng_with_packets(40);
    for cuts in [vec![plain.len() / 2], vec![7, 100, 101, 333, plain.len() - 3]] {
        let mut packed = Vec::new();
        let mut from = 0;
        for (i, &to) in cuts.iter().chain([plain.len()].iter()).enumerate() {
            packed.extend(zstd_frame(&plain[from..to]));
            if i == 0 {
                packed.extend(zstd_frame(&[]));
                packed.extend(zstd_skippable(0xe, b"user data between frames"));
                packed.extend(zstd_skippable(0x0, &[]));
            }
            from = to;
        }
        let mut r = CaptureReader::from_reader("t", Cursor::new(packed), ReaderConfig { buffer_size: 4096, ..ReaderConfig::default() })
            .expect("opens");
        let seqs: Vec<u32> = r.by_ref().map(|s| s.segment.seq.0).collect();
        assert_eq!(seqs, (1..=40).collect::<Vec<u32>>(), "cuts {cuts:?}");
        assert_eq!(r.compression(), Some("zstd"));
        let a = r.anomalies();
        assert_eq!(a.read_errors, 0, "{a:?}");
        assert_eq!(r.bytes_used() + a.skipped_bytes(), plain.len() as u64);
    }
}

/// RFC 1952 §2.2: "A gzip file consists of a series of members"; `gzip -d` writes the
/// concatenation of their contents (`cat a.gz b.gz`, `pigz`, logrotate's appended chunks).
/// The capture is split inside records, so a record straddles two members; an empty member
/// in between is allowed. Every record of every member is delivered.
#[test]
fn a_multi_member_gzip_capture_is_read_to_its_last_member() {
    let plain = ng_with_packets(40);
    let member = |bytes: &[u8]| {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(bytes).expect("gzip");
        gz.finish().expect("gzip")
    };
    let cuts = [9, plain.len() / 2, plain.len() - 5];
    let mut packed = Vec::new();
    let mut from = 0;
    for (i, &to) in cuts.iter().chain([plain.len()].iter()).enumerate() {
        packed.extend(member(&plain[from..to]));
        if i == 1 {
            packed.extend(member(&[]));
        }
        from = to;
    }
    let mut r = CaptureReader::from_reader("t", Cursor::new(packed), ReaderConfig { buffer_size: 4096, ..ReaderConfig::default() })
        .expect("opens");
    let seqs: Vec<u32> = r.by_ref().map(|s| s.segment.seq.0).collect();
    assert_eq!(seqs, (1..=40).collect::<Vec<u32>>());
    assert_eq!(r.compression(), Some("gzip"));
    let a = r.anomalies();
    assert_eq!(a.read_errors, 0, "{a:?}");
    assert_eq!(r.bytes_used() + a.skipped_bytes(), plain.len() as u64);
}

/// Garbage after the last frame is a read error (as `zstd -d` reports it), counted once,
/// with every record of the complete frames delivered first. A capture shorter than the
/// bytes read at open to recognise it meets the error while being recognised: it is
/// refused with the reason.
#[test]
fn bytes_after_the_last_zstd_frame_are_a_read_error_after_the_records() {
    let plain = ng_with_packets(200);
    assert!(plain.len() > tcplab_pcap::reader::SNIFF_LEN);
    let tails: [(&[u8], &str); 3] = [
        (b"xy", "2 trailing bytes after frame 1"),
        (b"not a zstd frame", "unknown frame magic 6e 6f 74 20 after frame 1"),
        (&[0x50, 0x2a, 0x4d, 0x18, 9, 0, 0, 0, 1], "skippable frame of 9 bytes truncated after 1"),
    ];
    for (tail, why) in tails {
        let mut packed = zstd_frame(&plain);
        packed.extend_from_slice(tail);
        let mut r = CaptureReader::from_reader("t", Cursor::new(packed), ReaderConfig::default()).expect("opens");
        let seqs: Vec<u32> = r.by_ref().map(|s| s.segment.seq.0).collect();
        assert_eq!(seqs, (1..=200).collect::<Vec<u32>>(), "tail {tail:?}");
        assert_eq!(r.anomalies().read_errors, 1, "tail {tail:?}: {:?}", r.anomalies());

        let mut small = zstd_frame(&ng_with_packets(3));
        small.extend_from_slice(tail);
        assert_eq!(open_err(&small), format!("t: not a pcap or pcapng capture (compressed with zstd, but it does not decompress: zstd: {why})"));
    }
}

#[test]
fn zstd_frames_are_counted_and_an_empty_stream_of_frames_is_empty() {
    use std::io::Read;
    let mut two = zstd_frame(b"abc");
    two.extend(zstd_skippable(3, b"zz"));
    two.extend(zstd_frame(b"defg"));
    let mut d = tcplab_pcap::compression::ZstdFrames::new(Cursor::new(two)).expect("opens");
    let mut out = Vec::new();
    d.read_to_end(&mut out).expect("decodes");
    assert_eq!(out, b"abcdefg");
    assert_eq!(d.frames(), 2);
    let mut empty = tcplab_pcap::compression::ZstdFrames::new(Cursor::new(zstd_frame(&[]))).expect("opens");
    let mut out = Vec::new();
    empty.read_to_end(&mut out).expect("decodes");
    assert!(out.is_empty());
}

#[test]
fn corrupt_or_undecoded_compression_is_named() {
    assert_eq!(open_err(b"BZh91AY&SY...."), "t: compressed with bzip2: decompress it first");
    let e = open_err(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff, 0xff]);
    assert!(e.starts_with("t: not a pcap or pcapng capture (compressed with gzip, but it does not decompress"), "{e}");
    // A gzip file that holds something else is named as such.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(b"hello world, not a capture").expect("gzip");
    let e = open_err(&gz.finish().expect("gzip"));
    assert_eq!(e, "t: not a pcap or pcapng capture (unrecognised magic number 68 65 6c 6c, after gzip decompression)");
}

#[test]
fn a_directory_and_a_missing_file_are_named_without_os_error_numbers() {
    let dir = std::env::temp_dir();
    let e = CaptureReader::open(&dir).expect_err("dir").to_string();
    assert!(e.ends_with(": is a directory, not a capture file"), "{e}");
    let e = CaptureReader::open("/nonexistent/x.pcap").expect_err("missing");
    assert!(matches!(e, ReadError::Io { .. }));
    assert_eq!(e.to_string(), "/nonexistent/x.pcap: cannot read: no such file");
}

#[test]
fn unknown_link_types_are_a_set_not_a_sum() {
    let mut f = PcapNgFile::new(false);
    f.interface(284, 0, None);
    f.interface(281, 0, None);
    f.epb(0, 1, &[1, 2, 3, 4], None);
    f.epb(1, 2, &[1, 2, 3, 4], None);
    f.epb(0, 3, &[1, 2, 3, 4], None);
    let (_, a) = read(&f.bytes);
    assert_eq!(a.unknown_link_type, 3);
    assert_eq!(a.unknown_link_types, vec![281, 284]);
}

/// Found by the capture_reader fuzz target (LeakSanitizer): the xz decoding thread must end
/// with its reader, also when the reader is dropped before the end of the stream.
#[test]
fn an_xz_reader_dropped_early_ends_its_thread() {
    let mut f = ng_with_one_packet();
    for i in 0..2000 {
        f.epb(0, 2 + i, &pkt(2 + i as u32), None);
    }
    let mut xz = Vec::new();
    lzma_rs::xz_compress(&mut &f.bytes[..], &mut xz).expect("xz");
    for _ in 0..20 {
        let mut r = CaptureReader::from_reader("t", Cursor::new(xz.clone()), ReaderConfig { buffer_size: 4096, ..ReaderConfig::default() })
            .expect("opens");
        assert!(r.next().is_some());
        drop(r); // joins the decoding thread; a hang here fails the test by timeout
    }
}
