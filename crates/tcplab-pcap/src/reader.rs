//! The streaming capture reader: pcap (µs/ns, either byte order) and pcapng, plain or
//! compressed (gzip, zstd, xz: [`crate::compression`]), through pcap-parser's refillable
//! readers, yielding [`CapturedSegment`]s.
//!
//! Memory is bounded: a fixed buffer ([`ReaderConfig::buffer_size`]) that only grows, up to
//! [`ReaderConfig::max_record_len`], when a *plausible* record does not fit. A length field
//! beyond that bound is treated as corruption, never as an allocation size.
//!
//! Opening checks the file's first bytes ([`sniff_header`]) so that a file that cannot be
//! read at all gets one error naming the real cause: empty, compressed in a format not
//! decoded here, a truncated file or section header, an impossible section header length, an
//! impossible first record length, or an unknown magic number.
//!
//! Ambiguities resolved:
//! - Each record's length is checked on the raw bytes before parsing ([`crate::framing`]).
//!   A length that cannot be trusted (too long, below 12, not a multiple of 4, a trailer
//!   that differs, a bad later section header) ends reading: the next record's position is
//!   unknown, so no resynchronisation is tried (Wireshark stops there too). The bytes from
//!   there to the end are counted in `unread_bytes`.
//! - A pcapng block whose length is trustworthy but whose content does not parse is skipped
//!   (`corrupt_blocks`, `corrupt_block_bytes`); reading goes on.
//! - Data ending inside a record is `truncated_file` (its bytes in `truncated_bytes`); the
//!   complete records before it are delivered.
//! - `clock_backwards` counts packets earlier than the previous packet of the file; their
//!   timestamps are delivered unchanged.
//! - The legacy header's LinkType field is masked to its low 16 bits (the upper bits may
//!   carry an FCS length, pcap-savefile(5)); a snapshot length of 0 is read as libpcap's
//!   MAXIMUM_SNAPLEN (`zero_snaplen`).
//! - Frame numbers count every packet record (EPB/SPB/OPB/legacy record), TCP or not, as
//!   Wireshark numbers frames.

use std::fs::File;
use std::io::{Cursor, Read};
use std::path::Path;

use pcap_parser::traits::PcapReaderIterator;
use pcap_parser::{PcapBlockOwned, PcapError};

use crate::anomalies::Anomalies;
use crate::compression::Compression;
use crate::error::{show_path, ReadError};
use crate::framing::{self, BadLength, Framing, SHB_MIN_LEN, SHB_TYPE_BYTES};
use crate::linktype::LinkKind;
use crate::pcapng::{NgEvent, NgState};
use crate::segment::{decode_frame_into, CapturedSegment, FrameMeta, OptionStats};

/// libpcap's MAXIMUM_SNAPLEN (pcap-int.h): no sane legacy record is longer unless the file
/// header's snaplen says so.
pub const LIBPCAP_MAXIMUM_SNAPLEN: usize = 262_144;
/// Legacy pcap record header length (pcap-savefile(5)).
pub const LEGACY_RECORD_HEADER_LEN: usize = framing::LEGACY_RECORD_HEADER_LEN;
/// Legacy pcap file header length (pcap-savefile(5)).
pub const LEGACY_FILE_HEADER_LEN: usize = 24;
/// Default initial read buffer.
pub const DEFAULT_BUFFER_SIZE: usize = 1 << 20;
/// Default largest record/block accepted (TSO/GRO and BIG TCP super-packets fit easily).
pub const DEFAULT_MAX_RECORD_LEN: usize = 8 << 20;
/// Default link MTU above which an IP packet is a TSO/GSO super-segment (Ethernet).
pub const DEFAULT_LINK_MTU: u32 = 1500;
/// Bytes read at open to recognise the file (a Section Header Block with options fits).
pub const SNIFF_LEN: usize = 4096;
/// pcap-savefile(5): the header's LinkType field carries the link type in its low 16
/// bits; bits 26-31 may hold the FCS length, which does not change how IP is found.
const LEGACY_LINKTYPE_MASK: i32 = 0xFFFF;
/// Legacy magic numbers as the first four bytes read: µs and ns, either byte order.
const LEGACY_MAGICS: [([u8; 4], bool); 4] = [
    ([0xD4, 0xC3, 0xB2, 0xA1], false),
    ([0x4D, 0x3C, 0xB2, 0xA1], false),
    ([0xA1, 0xB2, 0xC3, 0xD4], true),
    ([0xA1, 0xB2, 0x3C, 0x4D], true),
];
const MICROS_TO_NANOS: u64 = 1_000;
const NANOS_PER_SEC: u64 = 1_000_000_000;

/// Reader settings.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ReaderConfig {
    pub buffer_size: usize,
    pub max_record_len: usize,
    /// IP packets longer than this are flagged `tso`.
    pub link_mtu: u32,
}

impl Default for ReaderConfig {
    fn default() -> Self {
        ReaderConfig {
            buffer_size: DEFAULT_BUFFER_SIZE,
            max_record_len: DEFAULT_MAX_RECORD_LEN,
            link_mtu: DEFAULT_LINK_MTU,
        }
    }
}

/// Container format of the file.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CaptureFormat {
    Pcap { nanosecond: bool, big_endian: bool },
    PcapNg,
}

#[derive(Debug)]
enum Format {
    /// Before the first block.
    Unknown,
    Legacy { link: LinkKind, frac_to_ns: u64, big_endian: bool, snaplen: u32 },
    Ng(NgState),
}

/// Everything except the pcap-parser reader, so blocks borrowed from it can be handled while
/// this is mutated.
#[derive(Debug)]
struct State {
    name: String,
    cfg: ReaderConfig,
    format: Format,
    anomalies: Anomalies,
    opt_stats: OptionStats,
    frame: u64,
    last_ts: Option<u64>,
    /// Bytes of records and blocks used (file header, section and interface blocks, packet
    /// records), as opposed to those counted as skipped in [`Anomalies`].
    bytes_used: u64,
    done: bool,
    /// The last TCP segment decoded: [`CaptureReader::next_ref`] lends it out, so a segment
    /// is written once, in place, and never moved (no copy per packet);
    /// [`CaptureReader::next_into`] hands the box itself over and takes the caller's in its
    /// place (a pointer swap, no copy either).
    slot: Box<CapturedSegment>,
}

/// Streaming reader of TCP segments from a pcap or pcapng file.
pub struct CaptureReader {
    inner: Box<dyn PcapReaderIterator + Send>,
    compression: Option<Compression>,
    st: State,
}

impl std::fmt::Debug for CaptureReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CaptureReader").field("state", &self.st).finish()
    }
}

/// Error classes of pcap-parser, owned so the reader can be used again.
enum Stop {
    Eof,
    Incomplete,
    UnexpectedEof,
    BufferTooSmall,
    Parse,
    Io,
}

/// Reads up to `n` bytes (fewer only at the end of the stream).
fn read_head<R: Read>(r: &mut R, n: usize) -> std::io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(n);
    r.take(n as u64).read_to_end(&mut head)?;
    Ok(head)
}

/// Recognises an uncompressed capture from its first bytes (up to [`SNIFF_LEN`]; fewer
/// means the file is that short). `Err` is the reason it cannot be read, for
/// [`ReadError::NotACapture`] (`Ok(false)` = pcap, `Ok(true)` = pcapng) or, with
/// `damaged = true`, [`ReadError::Damaged`].
pub fn sniff_header(head: &[u8], cfg: &ReaderConfig) -> Result<bool, (bool, String)> {
    let not = |r: String| Err((false, r));
    let damaged = |r: String| Err((true, r));
    if head.is_empty() {
        return not("empty file".into());
    }
    if head.len() >= 4 && head[..4] == SHB_TYPE_BYTES {
        if head.len() < 12 {
            return damaged(format!("pcapng: truncated section header ({} of {SHB_MIN_LEN} bytes)", head.len()));
        }
        return match framing::check_ng(head, false, cfg.max_record_len) {
            Framing::Whole(_) => Ok(true),
            Framing::Need(n) if head.len() >= SNIFF_LEN => {
                let _ = n; // a long section header: pcap-parser checks the rest
                Ok(true)
            }
            Framing::Need(n) => damaged(format!("pcapng: truncated section header ({} of {n} bytes)", head.len())),
            Framing::Bad(BadLength::BadSectionHeader) if framing::shb_byte_order(head).is_none() => {
                damaged("pcapng: section header byte-order magic is neither 1a2b3c4d nor 4d3c2b1a".into())
            }
            Framing::Bad(b) => {
                let be = framing::shb_byte_order(head).unwrap_or(false);
                let b4 = [head[4], head[5], head[6], head[7]];
                let len = if be { u32::from_be_bytes(b4) } else { u32::from_le_bytes(b4) };
                match b {
                    BadLength::MismatchedTrailer { .. } => damaged(format!("pcapng: section header {b}")),
                    _ => damaged(format!("pcapng: impossible section header length {len}")),
                }
            }
        };
    }
    if let Some(&(_, be)) = LEGACY_MAGICS.iter().find(|(m, _)| head.len() >= 4 && head[..4] == *m) {
        if head.len() < LEGACY_FILE_HEADER_LEN {
            return damaged(format!("pcap: truncated file header ({} of {LEGACY_FILE_HEADER_LEN} bytes)", head.len()));
        }
        let b = &head[16..20];
        let a = [b[0], b[1], b[2], b[3]];
        let snaplen = if be { u32::from_be_bytes(a) } else { u32::from_le_bytes(a) };
        let limit = legacy_limit(snaplen, cfg);
        if let Framing::Bad(BadLength::TooLong { len, .. }) = framing::check_legacy(&head[LEGACY_FILE_HEADER_LEN..], be, limit) {
            // Nothing before it can be read, so the file is unusable rather than damaged late.
            return damaged(format!("pcap: impossible first record length {len} (snapshot length {snaplen})"));
        }
        return Ok(false);
    }
    if head.len() < 4 {
        return not(format!("too short for a capture header ({} bytes)", head.len()));
    }
    not(format!(
        "unrecognised magic number {:02x} {:02x} {:02x} {:02x}",
        head[0], head[1], head[2], head[3]
    ))
}

/// Largest sane legacy captured length for a file header's snapshot length.
fn legacy_limit(snaplen: u32, cfg: &ReaderConfig) -> usize {
    (snaplen as usize).max(LIBPCAP_MAXIMUM_SNAPLEN).min(cfg.max_record_len)
}

impl CaptureReader {
    /// Opens a capture file with default settings.
    pub fn open(path: impl AsRef<Path>) -> Result<CaptureReader, ReadError> {
        Self::open_with(path, ReaderConfig::default())
    }

    /// Opens a capture file. A directory is refused ([`ReadError::Directory`]).
    pub fn open_with(path: impl AsRef<Path>, cfg: ReaderConfig) -> Result<CaptureReader, ReadError> {
        let path = path.as_ref();
        let name = show_path(path);
        if path.is_dir() {
            return Err(ReadError::Directory { path: name });
        }
        let file = File::open(path).map_err(|e| ReadError::Io { path: name.clone(), source: e })?;
        Self::from_reader(name, file, cfg)
    }

    /// Reads from any byte stream, decompressing it if its magic number says so; `name` is
    /// used in error messages.
    pub fn from_reader<R: Read + Send + 'static>(
        name: impl Into<String>,
        mut reader: R,
        cfg: ReaderConfig,
    ) -> Result<CaptureReader, ReadError> {
        let name = name.into();
        let io_err = |e: std::io::Error| ReadError::Io { path: name.clone(), source: e };
        let head = read_head(&mut reader, SNIFF_LEN).map_err(io_err)?;
        let plain = Cursor::new(head).chain(reader);
        let mut compression = Compression::sniff(plain.get_ref().0.get_ref());
        let mut stream: Box<dyn Read + Send> = match compression {
            None => Box::new(plain),
            Some(c) => match c.decoder(plain) {
                Ok(Some(d)) => d,
                Ok(None) => return Err(ReadError::Compressed { path: name, format: c.name() }),
                Err(e) => {
                    return Err(ReadError::NotACapture {
                        path: name,
                        reason: format!("compressed with {}, but it does not decompress: {e}", c.name()),
                    })
                }
            },
        };
        let head = match read_head(&mut stream, SNIFF_LEN) {
            Ok(h) => h,
            Err(e) => match compression {
                Some(c) => {
                    return Err(ReadError::NotACapture {
                        path: name,
                        reason: format!("compressed with {}, but it does not decompress: {}", c.name(), crate::error::io_reason(&e)),
                    })
                }
                None => return Err(io_err(e)),
            },
        };
        if let Err((damaged, reason)) = sniff_header(&head, &cfg) {
            let reason = match compression.take() {
                Some(c) => format!("{reason}, after {} decompression", c.name()),
                None => reason,
            };
            return Err(if damaged {
                ReadError::Damaged { path: name, reason }
            } else {
                ReadError::NotACapture { path: name, reason }
            });
        }
        let stream = Cursor::new(head).chain(stream);
        let cap = cfg.buffer_size.max(SNIFF_LEN);
        let inner = pcap_parser::create_reader(cap, stream).map_err(|e| match e {
            PcapError::ReadError => ReadError::Io { path: name.clone(), source: std::io::Error::other("read failed") },
            PcapError::Eof => ReadError::NotACapture { path: name.clone(), reason: "empty file".into() },
            PcapError::Incomplete(_) | PcapError::UnexpectedEof => ReadError::Damaged {
                path: name.clone(),
                reason: "truncated file header".into(),
            },
            _ => ReadError::Damaged { path: name.clone(), reason: "invalid file header".into() },
        })?;
        Ok(CaptureReader {
            inner,
            compression,
            st: State {
                name,
                cfg,
                format: Format::Unknown,
                anomalies: Anomalies::default(),
                opt_stats: OptionStats::default(),
                frame: 0,
                last_ts: None,
                bytes_used: 0,
                done: false,
                slot: Box::new(CapturedSegment::blank()),
            },
        })
    }

    /// The file name given at opening.
    pub fn name(&self) -> &str {
        &self.st.name
    }

    /// The compression the file was read through (`None`: an uncompressed file).
    pub fn compression(&self) -> Option<&'static str> {
        self.compression.map(Compression::name)
    }

    /// Anomalies counted so far (complete once the iterator is exhausted).
    pub fn anomalies(&self) -> &Anomalies {
        &self.st.anomalies
    }

    /// Bytes of the (decompressed) file in records and blocks the reader used; with
    /// [`Anomalies::skipped_bytes`] it adds up to the bytes read.
    pub fn bytes_used(&self) -> u64 {
        self.st.bytes_used
    }

    /// Informational option statistics.
    pub fn option_stats(&self) -> &OptionStats {
        &self.st.opt_stats
    }

    /// Packet records seen so far (TCP or not).
    pub fn frames(&self) -> u64 {
        self.st.frame
    }

    /// Container format, once the first block has been read.
    pub fn format(&self) -> Option<CaptureFormat> {
        match &self.st.format {
            Format::Unknown => None,
            Format::Legacy { frac_to_ns, big_endian, .. } => Some(CaptureFormat::Pcap {
                nanosecond: *frac_to_ns == 1,
                big_endian: *big_endian,
            }),
            Format::Ng(_) => Some(CaptureFormat::PcapNg),
        }
    }

    /// Next TCP segment, or `None` at the end of the file (or where damage stops reading).
    /// A copy of [`CaptureReader::next_ref`]'s.
    pub fn next_segment(&mut self) -> Option<CapturedSegment> {
        self.next_ref().copied()
    }

    /// Next TCP segment, lent out of the reader (decoded in place, not copied), or `None` at
    /// the end of the file (or where damage stops reading). The analyzer's loop.
    pub fn next_ref(&mut self) -> Option<&CapturedSegment> {
        if self.advance() {
            Some(&*self.st.slot)
        } else {
            None
        }
    }

    /// Next TCP segment, decoded in place and handed over by swapping boxes: `slot` receives
    /// the box the segment was decoded into and the reader keeps `slot`'s old box to decode
    /// the next one into (its content is overwritten). `false` at the end of the file (or where
    /// damage stops reading), `slot` then untouched. The pipeline's reading thread fills its
    /// batches this way (`pipeline.rs`): the segment is written once, where the analysing
    /// thread will read it.
    pub fn next_into(&mut self, slot: &mut Box<CapturedSegment>) -> bool {
        if self.advance() {
            std::mem::swap(&mut self.st.slot, slot);
            true
        } else {
            false
        }
    }

    /// Reads up to and including the next TCP segment, decoded into `st.slot`; `false` at
    /// the end.
    fn advance(&mut self) -> bool {
        let mut stalled = 0u32;
        loop {
            if self.st.done {
                return false;
            }
            let framing = self.framing();
            if let Framing::Bad(b) = framing {
                self.stop_untrusted_length(b);
                return false;
            }
            let stop = match self.inner.next() {
                Ok((offset, block)) => {
                    let out = self.st.on_block(block);
                    self.inner.consume(offset);
                    match out {
                        BlockOutcome::Segment => {
                            self.st.bytes_used += offset as u64;
                            return true;
                        }
                        BlockOutcome::Used => {
                            self.st.bytes_used += offset as u64;
                            stalled = 0;
                            continue;
                        }
                        BlockOutcome::Skipped => {
                            self.st.anomalies.skipped_blocks += 1;
                            self.st.anomalies.skipped_block_bytes += offset as u64;
                            stalled = 0;
                            continue;
                        }
                        BlockOutcome::CorruptFrame => {
                            self.st.frame += 1;
                            self.st.anomalies.corrupt_blocks += 1;
                            self.st.anomalies.corrupt_block_bytes += offset as u64;
                            stalled = 0;
                            continue;
                        }
                    }
                }
                Err(PcapError::Eof) => Stop::Eof,
                Err(PcapError::Incomplete(_)) => Stop::Incomplete,
                Err(PcapError::UnexpectedEof) => Stop::UnexpectedEof,
                Err(PcapError::BufferTooSmall) => Stop::BufferTooSmall,
                Err(PcapError::ReadError) => Stop::Io,
                Err(_) => Stop::Parse,
            };
            if !matches!(stop, Stop::Eof | Stop::Io) && matches!(self.st.format, Format::Ng(_)) {
                if let Framing::Whole(len) = framing {
                    // The block is entirely buffered with a trustworthy length, yet
                    // pcap-parser wants more or cannot parse it: its content is corrupt
                    // (e.g. a captured length beyond the block). Skip the block.
                    self.st.anomalies.corrupt_blocks += 1;
                    self.st.anomalies.corrupt_block_bytes += len as u64;
                    self.inner.consume(len);
                    continue;
                }
            }
            match stop {
                Stop::Eof => {
                    self.st.done = true;
                    return false;
                }
                Stop::Io => {
                    self.stop_read_error();
                    return false;
                }
                Stop::Incomplete => {
                    let before = self.inner.data().len();
                    if self.inner.refill().is_err() {
                        self.stop_read_error();
                        return false;
                    }
                    if self.inner.data().len() == before && !self.inner.reader_exhausted() {
                        // Buffer full and still incomplete: same as "too small".
                        stalled += 1;
                        if stalled > 1 && !self.grow_for_record() {
                            self.stop_untrusted_length(self.too_long());
                            return false;
                        }
                    }
                }
                Stop::UnexpectedEof => {
                    self.stop_truncated();
                    return false;
                }
                Stop::BufferTooSmall => {
                    if !self.grow_for_record() {
                        self.stop_untrusted_length(self.too_long());
                        return false;
                    }
                }
                Stop::Parse => {
                    self.stop_untrusted_length(self.too_long());
                    return false;
                }
            }
        }
    }

    /// The framing verdict on the record at the read position ([`crate::framing`]); before
    /// the first block the file header was checked at open.
    fn framing(&self) -> Framing {
        let d = self.inner.data();
        match &self.st.format {
            Format::Unknown => Framing::Need(0),
            Format::Legacy { big_endian, snaplen, .. } => {
                framing::check_legacy(d, *big_endian, legacy_limit(*snaplen, &self.st.cfg))
            }
            Format::Ng(ng) => framing::check_ng(d, ng.big_endian(), self.st.cfg.max_record_len),
        }
    }

    /// The "too long" verdict for the pending record, when pcap-parser could not take it.
    fn too_long(&self) -> BadLength {
        let len = self.pending_record_len().unwrap_or(0) as u64;
        BadLength::TooLong { len, limit: self.record_limit() as u64 }
    }

    /// Reading ends at a length that cannot be trusted: counted by class, and every byte
    /// from there to the end of the file in `unread_bytes`.
    fn stop_untrusted_length(&mut self, why: BadLength) {
        let a = &mut self.st.anomalies;
        a.corrupt_record_length += 1;
        match why {
            BadLength::TooLong { .. } => a.record_too_long += 1,
            BadLength::TooShort(_) => a.block_length_too_short += 1,
            BadLength::Unaligned(_) => a.block_length_unaligned += 1,
            BadLength::MismatchedTrailer { .. } => a.mismatched_block_trailer += 1,
            BadLength::BadSectionHeader => a.bad_section_header += 1,
        }
        let rest = self.drain_rest();
        self.st.anomalies.unread_bytes += rest;
        self.st.done = true;
    }

    /// The file ends inside a record: its bytes are `truncated_bytes`.
    fn stop_truncated(&mut self) {
        self.st.anomalies.truncated_file += 1;
        let rest = self.drain_rest();
        self.st.anomalies.truncated_bytes += rest;
        self.st.done = true;
    }

    /// A read error: what is buffered is `unread_bytes` (the rest cannot be read).
    fn stop_read_error(&mut self) {
        self.st.anomalies.read_errors += 1;
        self.st.anomalies.unread_bytes += self.inner.data().len() as u64;
        self.st.done = true;
    }

    /// Reads (and drops) the rest of the stream, returning its length, buffered bytes
    /// included; a read error on the way is counted in `read_errors`.
    fn drain_rest(&mut self) -> u64 {
        let mut n = 0u64;
        loop {
            let len = self.inner.data().len();
            n += len as u64;
            self.inner.consume(len);
            if self.inner.reader_exhausted() {
                return n;
            }
            if self.inner.refill().is_err() {
                self.st.anomalies.read_errors += 1;
                return n;
            }
        }
    }

    /// Length (header included) of the record/block at the read position, from its raw
    /// length field, if readable.
    fn pending_record_len(&self) -> Option<usize> {
        let d = self.inner.data();
        match &self.st.format {
            Format::Legacy { big_endian, .. } => {
                let b = d.get(8..12)?;
                let a = [b[0], b[1], b[2], b[3]];
                let caplen = if *big_endian { u32::from_be_bytes(a) } else { u32::from_le_bytes(a) };
                Some(LEGACY_RECORD_HEADER_LEN + caplen as usize)
            }
            Format::Ng(ng) => ng.raw_block_len(d).map(|l| l as usize),
            Format::Unknown => None,
        }
    }

    fn record_limit(&self) -> usize {
        match &self.st.format {
            Format::Legacy { snaplen, .. } => LEGACY_RECORD_HEADER_LEN + legacy_limit(*snaplen, &self.st.cfg),
            _ => self.st.cfg.max_record_len,
        }
    }

    /// Grows the buffer so the pending record fits, if its length is plausible.
    fn grow_for_record(&mut self) -> bool {
        let Some(need) = self.pending_record_len() else {
            return false;
        };
        if need > self.record_limit() {
            return false;
        }
        let target = need.saturating_add(1).next_power_of_two().max(self.st.cfg.buffer_size);
        let ok = self.inner.grow(target);
        if ok {
            // Make the new space usable and read into it.
            let _ = self.inner.refill();
        }
        ok
    }
}

impl Iterator for CaptureReader {
    type Item = CapturedSegment;
    fn next(&mut self) -> Option<CapturedSegment> {
        self.next_segment()
    }
}

enum BlockOutcome {
    /// A TCP segment, decoded into `State::slot`: the block was used.
    Segment,
    /// Used (a header, an interface, a packet that is not TCP).
    Used,
    /// A block type this reader does not use.
    Skipped,
    /// A packet block whose content is corrupt.
    CorruptFrame,
}

impl State {
    fn on_block(&mut self, block: PcapBlockOwned<'_>) -> BlockOutcome {
        match block {
            PcapBlockOwned::LegacyHeader(h) => {
                if h.snaplen == 0 {
                    self.anomalies.zero_snaplen += 1;
                }
                self.format = Format::Legacy {
                    link: LinkKind::from_linktype(h.network.0 & LEGACY_LINKTYPE_MASK),
                    frac_to_ns: if h.is_nanosecond_precision() { 1 } else { MICROS_TO_NANOS },
                    big_endian: h.is_bigendian(),
                    snaplen: h.snaplen,
                };
                BlockOutcome::Used
            }
            PcapBlockOwned::Legacy(rec) => {
                // The record's length was checked before parsing (`CaptureReader::framing`).
                let Format::Legacy { link, frac_to_ns, .. } = self.format else {
                    return BlockOutcome::CorruptFrame;
                };
                let frac_limit = if frac_to_ns == 1 { NANOS_PER_SEC } else { NANOS_PER_SEC / MICROS_TO_NANOS };
                if rec.ts_usec as u64 >= frac_limit {
                    self.anomalies.bad_timestamps += 1;
                }
                let ts = (rec.ts_sec as u64) * NANOS_PER_SEC + (rec.ts_usec as u64) * frac_to_ns;
                let orig_len = rec.origlen.max(rec.caplen);
                self.frame_out(link, 0, Some(ts), rec.data, orig_len)
            }
            PcapBlockOwned::NG(b) => {
                if !matches!(self.format, Format::Ng(_)) {
                    self.format = Format::Ng(NgState::default());
                }
                let Format::Ng(ng) = &mut self.format else {
                    return BlockOutcome::Used;
                };
                match ng.on_block(&b, &mut self.anomalies) {
                    NgEvent::Frame(f) => {
                        self.frame_out(f.link, f.iface, f.ts_ns, f.data, f.orig_len)
                    }
                    NgEvent::UnusableFrame => {
                        self.frame += 1;
                        BlockOutcome::Used
                    }
                    NgEvent::CorruptFrame => BlockOutcome::CorruptFrame,
                    NgEvent::Skipped => BlockOutcome::Skipped,
                    NgEvent::Other => BlockOutcome::Used,
                }
            }
        }
    }

    fn frame_out(
        &mut self,
        link: LinkKind,
        iface: u32,
        ts: Option<u64>,
        data: &[u8],
        orig_len: u32,
    ) -> BlockOutcome {
        self.frame += 1;
        let ts_ns = match ts {
            Some(t) => {
                if let Some(prev) = self.last_ts {
                    if t < prev {
                        self.anomalies.clock_backwards += 1;
                    }
                }
                self.last_ts = Some(t);
                t
            }
            None => {
                self.anomalies.packets_without_timestamp += 1;
                self.last_ts.unwrap_or(0)
            }
        };
        let meta = FrameMeta {
            frame: self.frame,
            ts_ns,
            iface,
            link,
            orig_len: orig_len.max(data.len() as u32),
            link_mtu: self.cfg.link_mtu,
        };
        if decode_frame_into(&meta, data, &mut self.anomalies, &mut self.opt_stats, &mut self.slot) {
            BlockOutcome::Segment
        } else {
            BlockOutcome::Used
        }
    }
}
