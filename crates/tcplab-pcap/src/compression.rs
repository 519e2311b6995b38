//! Compressed captures, recognised by their magic number and decompressed as a stream, as
//! Wireshark does (its `wtap` opens gzip, zstd and lz4 files transparently; xz is added here
//! because `tcpdump -w - | xz` is common).
//!
//! | format | magic | decoder |
//! |---|---|---|
//! | gzip (RFC 1952 §2.3.1) | `1f 8b` | flate2 `MultiGzDecoder` (all members, as `gzip -d`) |
//! | zstd (RFC 8878 §3.1.1) | `28 b5 2f fd` | ruzstd `StreamingDecoder`, one per frame ([`ZstdFrames`]: all frames, skippable ones skipped, as `zstd -d`) |
//! | xz (xz file format §2.1.1.1) | `fd 37 7a 58 5a 00` | lzma-rs on a helper thread, handed over in chunks |
//! | bzip2 | `42 5a 68` ("BZh") | none: "compressed with bzip2: decompress it first" |
//! | lz4 frame | `04 22 4d 18` | none: "compressed with lz4: decompress it first" |
//!
//! Memory stays bounded: gzip and zstd decode on demand; the xz thread blocks once
//! [`XZ_CHUNKS_IN_FLIGHT`] decoded chunks wait to be read. A decoding error in the middle of
//! the stream reaches the capture reader as a read error (`read_errors`), with the records
//! before it delivered.

use std::io::{self, BufReader, Read, Write};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

/// gzip member header ID1 ID2 (RFC 1952 §2.3.1).
const GZIP_MAGIC: &[u8] = &[0x1f, 0x8b];
/// zstd frame magic 0xFD2FB528, little-endian (RFC 8878 §3.1.1).
const ZSTD_MAGIC: &[u8] = &[0x28, 0xb5, 0x2f, 0xfd];
/// RFC 8878 §3.1.2: a skippable frame's magic number is 0x184D2A5? (any low nibble),
/// little-endian; it is followed by a 4-byte little-endian Frame_Size and that many bytes.
const ZSTD_SKIPPABLE_MAGIC_MASK: u32 = 0xFFFF_FFF0;
/// RFC 8878 §3.1.2: the skippable magic with its low nibble cleared.
const ZSTD_SKIPPABLE_MAGIC: u32 = 0x184D_2A50;
/// xz stream header magic (The .xz File Format 1.2.1, §2.1.1.1).
const XZ_MAGIC: &[u8] = &[0xfd, b'7', b'z', b'X', b'Z', 0x00];
/// bzip2 stream header "BZh".
const BZIP2_MAGIC: &[u8] = b"BZh";
/// lz4 frame magic 0x184D2204, little-endian (lz4 Frame format §"General structure").
const LZ4_MAGIC: &[u8] = &[0x04, 0x22, 0x4d, 0x18];
/// Decoded xz chunks that may wait in the channel (bounds memory to a few chunks).
pub const XZ_CHUNKS_IN_FLIGHT: usize = 4;

/// The compression a file's first bytes announce.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Compression {
    Gzip,
    Zstd,
    Xz,
    /// Recognised but not decoded here.
    Bzip2,
    Lz4,
}

impl Compression {
    /// Recognises a compressed stream from its first bytes.
    pub fn sniff(head: &[u8]) -> Option<Compression> {
        [
            (GZIP_MAGIC, Compression::Gzip),
            (ZSTD_MAGIC, Compression::Zstd),
            (XZ_MAGIC, Compression::Xz),
            (BZIP2_MAGIC, Compression::Bzip2),
            (LZ4_MAGIC, Compression::Lz4),
        ]
        .into_iter()
        .find(|(m, _)| head.starts_with(m))
        .map(|(_, c)| c)
    }

    /// Name used in messages and in the summary (`gzip`, `zstd`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
            Compression::Xz => "xz",
            Compression::Bzip2 => "bzip2",
            Compression::Lz4 => "lz4",
        }
    }

    /// The decompressed stream of `source`, or `None` when this format is not decoded here.
    /// An invalid zstd frame header is an `InvalidData` error.
    pub fn decoder<R: Read + Send + 'static>(self, source: R) -> io::Result<Option<Box<dyn Read + Send>>> {
        Ok(Some(match self {
            Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(BufReader::new(source))),
            Compression::Zstd => Box::new(ZstdFrames::new(source)?),
            Compression::Xz => Box::new(XzStream::spawn(source)),
            Compression::Bzip2 | Compression::Lz4 => return Ok(None),
        }))
    }
}

/// A zstd stream of one or more frames, decoded frame after frame.
///
/// RFC 8878 §3.1: "Zstandard compressed data is made up of one or more frames. Each frame is
/// independent [...] and the decompressed content of multiple concatenated frames is the
/// concatenation of each frame's decompressed content." `zstd` writes several frames for
/// `cat a.zst b.zst`, for `zstd --adapt`/streaming writers that flush frames, and
/// pzstd/seekable-format tools; ruzstd's `StreamingDecoder` reads one frame, so this
/// wrapper starts the next one (reusing the frame decoder's buffers) when a frame ends.
/// Skippable frames (§3.1.2) are skipped without reading their content into memory.
///
/// Ambiguity resolved as `zstd -d` does: 1–3 bytes after the last frame, or a next "frame"
/// with neither magic number, are a decoding error (a read error for the capture reader,
/// with every record before it delivered), not silently ignored.
pub struct ZstdFrames<R: Read> {
    /// The frame being decoded; `None` once the stream ended or failed.
    frame: Option<ruzstd::decoding::StreamingDecoder<Pushback<R>, ruzstd::decoding::FrameDecoder>>,
    /// Frames started so far (the first one included), for messages and tests.
    frames: u64,
}

impl<R: Read> std::fmt::Debug for ZstdFrames<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZstdFrames").field("frames", &self.frames).field("ended", &self.frame.is_none()).finish()
    }
}

/// A reader with up to four bytes put back in front of it (the magic number read to find
/// out what the next frame is).
struct Pushback<R> {
    head: [u8; 4],
    at: usize,
    len: usize,
    inner: R,
}

impl<R: Read> Read for Pushback<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.at < self.len {
            let n = buf.len().min(self.len - self.at);
            buf[..n].copy_from_slice(&self.head[self.at..self.at + n]);
            self.at += n;
            return Ok(n);
        }
        self.inner.read(buf)
    }
}

fn zstd_error(what: impl std::fmt::Display) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("zstd: {what}"))
}

impl<R: Read> ZstdFrames<R> {
    /// Starts the first frame; an invalid frame header is an `InvalidData` error.
    pub fn new(source: R) -> io::Result<ZstdFrames<R>> {
        let src = Pushback { head: [0; 4], at: 0, len: 0, inner: source };
        let frame = ruzstd::decoding::StreamingDecoder::new(src).map_err(zstd_error)?;
        Ok(ZstdFrames { frame: Some(frame), frames: 1 })
    }

    /// Frames started so far (skippable frames not counted).
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// After a frame ended: finds the next frame, skipping skippable ones. `Ok(false)` at
    /// the clean end of the stream.
    fn next_frame(&mut self) -> io::Result<bool> {
        let Some(done) = self.frame.take() else { return Ok(false) };
        let (mut src, dec) = done.into_parts();
        loop {
            let mut magic = [0u8; 4];
            let got = read_up_to(&mut src, &mut magic)?;
            if got == 0 {
                return Ok(false);
            }
            if got < magic.len() {
                return Err(zstd_error(format!("{got} trailing bytes after frame {}", self.frames)));
            }
            let m = u32::from_le_bytes(magic);
            if m & ZSTD_SKIPPABLE_MAGIC_MASK == ZSTD_SKIPPABLE_MAGIC {
                let mut size = [0u8; 4];
                if read_up_to(&mut src, &mut size)? < size.len() {
                    return Err(zstd_error("truncated skippable frame header"));
                }
                let want = u64::from(u32::from_le_bytes(size));
                let skipped = io::copy(&mut (&mut src).take(want), &mut io::sink())?;
                if skipped < want {
                    return Err(zstd_error(format!("skippable frame of {want} bytes truncated after {skipped}")));
                }
                continue;
            }
            if magic.as_slice() != ZSTD_MAGIC {
                let [a, b, c, d] = magic;
                return Err(zstd_error(format!("unknown frame magic {a:02x} {b:02x} {c:02x} {d:02x} after frame {}", self.frames)));
            }
            src.head = magic;
            src.at = 0;
            src.len = magic.len();
            self.frames += 1;
            let next = ruzstd::decoding::StreamingDecoder::new_with_decoder(src, dec)
                .map_err(|e| zstd_error(format!("frame {}: {e}", self.frames)))?;
            self.frame = Some(next);
            return Ok(true);
        }
    }
}

/// Reads until `buf` is full or the stream ends; the number of bytes read.
fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

impl<R: Read> Read for ZstdFrames<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            let Some(frame) = self.frame.as_mut() else { return Ok(0) };
            match frame.read(buf) {
                Ok(0) => {
                    if !self.next_frame()? {
                        return Ok(0);
                    }
                }
                Ok(n) => return Ok(n),
                Err(e) => {
                    self.frame = None;
                    return Err(e);
                }
            }
        }
    }
}

/// Reading end of the xz helper thread: decoded chunks arrive over a bounded channel.
struct XzStream {
    rx: Receiver<io::Result<Vec<u8>>>,
    chunk: Vec<u8>,
    at: usize,
    done: bool,
    /// The decoding thread, joined on drop (found by the capture_reader fuzz target's leak
    /// check: a detached thread outlived its reader).
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for XzStream {
    /// Closes the channel first, so that a thread blocked sending a chunk returns, then
    /// waits for it.
    fn drop(&mut self) {
        let (_, closed) = sync_channel(0);
        drop(std::mem::replace(&mut self.rx, closed));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Writing end handed to lzma-rs: each write is sent as one chunk.
struct ChunkSender(SyncSender<io::Result<Vec<u8>>>);

impl Write for ChunkSender {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .send(Ok(buf.to_vec()))
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "reader gone"))?;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl XzStream {
    fn spawn<R: Read + Send + 'static>(source: R) -> XzStream {
        let (tx, rx) = sync_channel(XZ_CHUNKS_IN_FLIGHT);
        let thread = std::thread::spawn(move || {
            let mut input = BufReader::new(source);
            let mut sink = ChunkSender(tx.clone());
            if let Err(e) = lzma_rs::xz_decompress(&mut input, &mut sink) {
                let _ = tx.send(Err(io::Error::new(io::ErrorKind::InvalidData, format!("xz: {e}"))));
            }
        });
        XzStream { rx, chunk: Vec::new(), at: 0, done: false, thread: Some(thread) }
    }
}

impl Read for XzStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.chunk.len() {
            if self.done {
                return Ok(0);
            }
            match self.rx.recv() {
                Ok(Ok(c)) => {
                    self.chunk = c;
                    self.at = 0;
                }
                Ok(Err(e)) => {
                    self.done = true;
                    return Err(e);
                }
                Err(_) => {
                    self.done = true;
                    return Ok(0);
                }
            }
        }
        let n = buf.len().min(self.chunk.len() - self.at);
        buf[..n].copy_from_slice(&self.chunk[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}
