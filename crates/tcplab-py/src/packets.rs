//! `capture_packets(path, conn_id)`: every TCP packet of one capture as a table, for the
//! time-sequence graph of `tcplab plot ANALYZE_DIR` (python/tcplab/plot/capture.py).
//!
//! The capture is read and its connections tracked exactly as the analyzer does
//! (`CaptureReader` and `ConnTracker` with their default configurations, which
//! `tcplab_analyze::AnalyzeConfig::default()` uses), so `conn_id` and the relative sequence
//! numbers are those of the analyzer's `connections` and `retransmissions` tables.
//!
//! Tables (docs/outputs.md "`tcplab.analyze.packets`"):
//! - `packets`: `conn_id`, `dir` (`c2s`/`s2c`), `frame`, `ts_ns`, `kind` (the tracker's
//!   segment kind), `seq` (relative to the direction's ISN, first data byte = 1, unwrapped to
//!   64 bits from the previous packet of the direction, as the analyzer's `seq`), `len`, `ack`
//!   (relative to the peer's ISN, unwrapped the same way; null without the ACK flag or before
//!   the peer was seen), `win` (the window field as sent) and `rwnd` (bytes: `win` shifted by
//!   the sender's RFC 7323 §2.3 Shift.cnt when both SYNs carried the option, `win` itself when
//!   neither did; null when the handshake was not captured, since the shift is then unknown;
//!   RFC 7323 §2.2: "The window field in a segment where the SYN bit is set ... MUST NOT be
//!   scaled").
//! - `sack_blocks`: one row per SACK block (RFC 2018 §3): `frame` of its packet, `left`,
//!   `right` (relative to the data sender's ISN, unwrapped around the packet's `ack`).

use std::collections::HashMap;
use std::path::PathBuf;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use tcplab_pcap::{CaptureReader, ConnTracker, Dir, ReaderConfig, SegKind, TrackerConfig};
use tcplab_record::{ColumnData, DictBuilder, Table};
use tcplab_tcp::TcpFlags;

/// Per connection and direction: the last unwrapped sequence and ack numbers, and the
/// window shift announced in the direction's SYN (outer `None`: no SYN seen).
#[derive(Default)]
struct ConnState {
    last_seq: [Option<i64>; 2],
    last_ack: [Option<i64>; 2],
    shift: [Option<Option<u8>>; 2],
}

/// `rel` (32-bit, wrapping) unwrapped to the 64-bit value nearest `prev`; the first value
/// of a direction is taken as a signed 32-bit offset (data from before a mid-connection
/// capture's first byte is then 0 or negative, as in the analyzer's `seq`).
fn unwrap(prev: Option<i64>, rel: u32) -> i64 {
    match prev {
        None => i64::from(rel as i32),
        // Saturating: a capture cannot hold 2^32 wraps of one direction, but its bytes are
        // outside data and must not overflow.
        Some(p) => p.saturating_add(i64::from(rel.wrapping_sub(p as u32) as i32)),
    }
}

fn dir_index(d: Dir) -> usize {
    match d {
        Dir::ClientToServer => 0,
        Dir::ServerToClient => 1,
    }
}

fn kind_name(k: SegKind) -> &'static str {
    match k {
        SegKind::Syn => "syn",
        SegKind::SynAck => "synack",
        SegKind::Rst => "rst",
        SegKind::Data => "data",
        SegKind::Fin => "fin",
        SegKind::PureAck => "ack",
        SegKind::WindowProbe => "window_probe",
        SegKind::KeepAlive => "keepalive",
    }
}

#[derive(Default)]
struct Columns {
    conn_id: Vec<u64>,
    dir: DictBuilder,
    frame: Vec<u64>,
    ts_ns: Vec<u64>,
    kind: DictBuilder,
    seq: Vec<i64>,
    len: Vec<u32>,
    ack: Vec<i64>,
    ack_valid: Vec<bool>,
    win: Vec<u64>,
    rwnd: Vec<u64>,
    rwnd_valid: Vec<bool>,
    sack_frame: Vec<u64>,
    sack_left: Vec<i64>,
    sack_right: Vec<i64>,
}

/// Reads `path` and builds the two tables (only connection `conn` when given).
fn read_packets(path: &PathBuf, conn: Option<u64>) -> Result<Vec<Table>, String> {
    let reader = CaptureReader::open_with(path, ReaderConfig::default()).map_err(|e| e.to_string())?;
    let mut tracker = ConnTracker::new(TrackerConfig::default());
    let mut state: HashMap<u64, ConnState> = HashMap::new();
    let mut c = Columns::default();
    for seg in reader {
        let obs = tracker.observe(&seg);
        // Finished connections are of no further use here (bounded memory, as the analyzer).
        tracker.drain_finished().for_each(drop);
        if conn.is_some_and(|id| id != obs.conn_id) {
            continue;
        }
        let s = &seg.segment;
        let d = dir_index(obs.dir);
        let st = state.entry(obs.conn_id).or_default();
        if obs.new_connection {
            *st = ConnState::default();
        }
        let syn = s.flags.contains(TcpFlags::SYN);
        if syn {
            st.shift[d] = Some(s.options.window_scale);
        }
        let seq = unwrap(st.last_seq[d], obs.rel_seq);
        st.last_seq[d] = Some(seq);
        let ack = obs.rel_ack.map(|a| {
            let v = unwrap(st.last_ack[d], a);
            st.last_ack[d] = Some(v);
            v
        });
        // RFC 7323 §2.2/§2.3: scaled only when both sides offered the option, never on a SYN.
        let rwnd = match (st.shift[d], st.shift[1 - d]) {
            _ if syn => Some(u64::from(s.window)),
            (Some(Some(mine)), Some(Some(_))) => Some(u64::from(s.window) << mine.min(14)),
            (Some(_), Some(_)) => Some(u64::from(s.window)),
            _ => None,
        };
        c.conn_id.push(obs.conn_id);
        c.dir.push(tcplab_analyze::output::dir_name(obs.dir));
        c.frame.push(seg.frame);
        c.ts_ns.push(seg.ts_ns);
        c.kind.push(kind_name(obs.kind));
        c.seq.push(seq);
        c.len.push(s.len);
        c.ack.push(ack.unwrap_or(0));
        c.ack_valid.push(ack.is_some());
        c.win.push(u64::from(s.window));
        c.rwnd.push(rwnd.unwrap_or(0));
        c.rwnd_valid.push(rwnd.is_some());
        if let (Some(ack_rel), Some(ack_u)) = (obs.rel_ack, ack) {
            // The data sender's base: this packet's ack minus its relative value.
            let base = s.ack.0.wrapping_sub(ack_rel);
            for b in s.options.sack.as_slice() {
                c.sack_frame.push(seg.frame);
                c.sack_left.push(unwrap(Some(ack_u), b.left.0.wrapping_sub(base)));
                c.sack_right.push(unwrap(Some(ack_u), b.right.0.wrapping_sub(base)));
            }
        }
    }
    let mut p = Table::new("packets");
    p.push("conn_id", ColumnData::U64(c.conn_id));
    p.push("dir", c.dir.finish());
    p.push("frame", ColumnData::U64(c.frame));
    p.push("ts_ns", ColumnData::U64(c.ts_ns));
    p.push("kind", c.kind.finish());
    p.push("seq", ColumnData::I64(c.seq));
    p.push("len", ColumnData::U32(c.len));
    p.push_nullable("ack", ColumnData::I64(c.ack), c.ack_valid);
    p.push("win", ColumnData::U64(c.win));
    p.push_nullable("rwnd", ColumnData::U64(c.rwnd), c.rwnd_valid);
    let mut sb = Table::new("sack_blocks");
    sb.push("frame", ColumnData::U64(c.sack_frame));
    sb.push("left", ColumnData::I64(c.sack_left));
    sb.push("right", ColumnData::I64(c.sack_right));
    Ok(vec![p, sb])
}

/// Every TCP packet of the capture at `path` (of connection `conn_id` only, when given), as
/// the tables `(packets, sack_blocks)` (module docs). GIL released while reading. A capture
/// that cannot be opened raises `ValueError` with the reader's one-line message.
#[pyfunction]
#[pyo3(signature = (path, conn_id = None))]
pub fn capture_packets<'py>(py: Python<'py>, path: PathBuf, conn_id: Option<u64>) -> PyResult<Bound<'py, PyTuple>> {
    let mut tables = py.detach(|| read_packets(&path, conn_id)).map_err(PyValueError::new_err)?;
    let packets: Bound<'py, PyList> = crate::tables::take_table(py, &mut tables, "packets")?;
    let sacks: Bound<'py, PyList> = crate::tables::take_table(py, &mut tables, "sack_blocks")?;
    PyTuple::new(py, [packets, sacks])
}
