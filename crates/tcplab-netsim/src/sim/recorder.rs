//! Trace recording into long-format tables (`events`, `timeseries`).
//!
//! Only built when `RunOptions::trace` is set; with tracing off the simulator holds no
//! recorder and pays nothing. Rows are appended to plain `Vec`s (amortised, no per-row
//! allocation). String columns are dictionary-encoded with *fixed* dictionaries (event kinds,
//! causes, drop reasons) or the node/link names in spec order, so a row stores a `u32` code
//! and nothing is looked up by string on the hot path.
//!
//! Streaming (`run_control`): [`Recorder::take_chunk`] hands over the `events` rows before a
//! given one and keeps the rest, and every `timeseries` and `queues` row (their content is
//! final when written); row numbers ([`Row`]) count from the start of the run, so a
//! retransmission row can still be marked spurious after earlier rows have left.

use super::queue::DropReason;
use tcplab_record::{ColumnData, Table};
use tcplab_tcp::{CcSnapshot, RetransCause};
use tcplab_time::SimTime;

/// Kinds of rows in the `events` table.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EventKind {
    SegmentSent,
    SegmentRetransmitted,
    AckReceived,
    RtoFired,
    RecoveryEntered,
    RecoveryExited,
    PacketDropped,
    Established,
    SendComplete,
    RttSample,
    /// A link direction stops delivering (a delay spike starts); `node` is the sending end,
    /// `link` the link, `value` the spike's length in ns, `flow` is [`NO_FLOW`].
    LinkStallStart,
    /// The spike ends and the held packets are released (same columns as the start).
    LinkStallEnd,
    /// A link's bandwidth changes (both directions); `node` is end a, `value` the new rate in
    /// bit/s, `flow` is [`NO_FLOW`].
    BandwidthChange,
    /// A spurious-timeout detector decided (`TcpEvent::SpuriousDecision`): `cause` is the
    /// detector (`frto`, `frto-sack`, `eifel`, `eifel-dsack`), `value` 1 = spurious, 0 =
    /// genuine, `ack` the ACK it decided on.
    SpuriousDecision,
    /// An RFC 8985 §7.3 Tail Loss Probe left (`TcpEvent::TlpProbe`): `seq` is its first byte,
    /// `value` 1 = new data, 0 = a retransmission (which also has its own
    /// `segment_retransmitted` row with cause `tlp`).
    TlpProbe,
}

/// Number of an `events` row, counted from the first row of the run (not of the chunk).
pub type Row = u64;

/// `flow` of rows that belong to a link, not a flow (`u32::MAX`; the column is not nullable).
pub const NO_FLOW: u32 = u32::MAX;

impl EventKind {
    pub const NAMES: [&'static str; 15] = [
        "segment_sent",
        "segment_retransmitted",
        "ack_received",
        "rto_fired",
        "recovery_entered",
        "recovery_exited",
        "packet_dropped",
        "established",
        "send_complete",
        "rtt_sample",
        "link_stall_start",
        "link_stall_end",
        "bandwidth_change",
        "spurious_decision",
        "tlp_probe",
    ];
}

/// Values of the `cause` column: retransmission causes, then recovery kinds, then detectors;
/// causes added later are appended so that existing codes keep their values.
pub const CAUSE_NAMES: [&str; 11] = [
    "rto",
    "fast_retransmit",
    "sack_recovery",
    "probe",
    "fast_recovery",
    "timeout",
    "frto",
    "frto-sack",
    "eifel",
    "eifel-dsack",
    "tlp",
];

/// A `cause` cell.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Cause {
    Retrans(RetransCause),
    Recovery(tcplab_tcp::RecoveryKind),
    /// The detector of a `spurious_decision` row.
    Detector(tcplab_tcp::SpuriousDetection),
}

impl Cause {
    fn code(self) -> u32 {
        use tcplab_tcp::RecoveryKind as K;
        match self {
            // RFC 8985 TLP came after the recovery kinds and detectors: appended.
            Cause::Retrans(RetransCause::Tlp) => 10,
            Cause::Retrans(c) => c as u32,
            // "sack_recovery" is already a retransmission cause; the recovery kind of the
            // same name maps to the same dictionary value.
            Cause::Recovery(K::FastRecovery) => 4,
            Cause::Recovery(K::SackRecovery) => 2,
            Cause::Recovery(K::Timeout) => 5,
            Cause::Detector(d) => match d {
                tcplab_tcp::SpuriousDetection::Frto => 6,
                tcplab_tcp::SpuriousDetection::FrtoSack => 7,
                tcplab_tcp::SpuriousDetection::Eifel => 8,
                // `None` never decides anything.
                tcplab_tcp::SpuriousDetection::EifelDsack | tcplab_tcp::SpuriousDetection::None => 9,
            },
        }
    }
}

/// One `events` row. `None` cells are null.
#[derive(Copy, Clone, Debug)]
pub struct EventRow {
    pub t: SimTime,
    pub flow: u32,
    pub kind: EventKind,
    pub seq: Option<u64>,
    pub len: u32,
    pub ack: Option<u64>,
    pub cause: Option<Cause>,
    pub node: u32,
    pub link: Option<u32>,
    pub reason: Option<DropReason>,
    pub value: Option<u64>,
}

impl EventRow {
    /// A row with only time, flow, kind and node set.
    pub fn new(t: SimTime, flow: u32, kind: EventKind, node: u32) -> Self {
        EventRow { t, flow, kind, seq: None, len: 0, ack: None, cause: None, node, link: None, reason: None, value: None }
    }
}

/// Column buffers of both trace tables.
#[derive(Debug, Default)]
pub struct Recorder {
    /// `events` rows already handed over in chunks: the row number of `t_ns[0]`.
    base: Row,
    t_ns: Vec<u64>,
    flow: Vec<u32>,
    kind: Vec<u32>,
    seq: Vec<u64>,
    seq_ok: Vec<bool>,
    len: Vec<u32>,
    ack: Vec<u64>,
    ack_ok: Vec<bool>,
    cause: Vec<u32>,
    cause_ok: Vec<bool>,
    spurious: Vec<bool>,
    spurious_ok: Vec<bool>,
    node: Vec<u32>,
    link: Vec<u32>,
    link_ok: Vec<bool>,
    reason: Vec<u32>,
    reason_ok: Vec<bool>,
    value: Vec<u64>,
    value_ok: Vec<bool>,
    ts: TimeSeries,
    /// The `queues` table (RED queues only).
    pub queues: QueueSeries,
}

/// Occupancy of the RED queues over time: one row per sample (`simulation.timeseries_interval`)
/// or, without an interval, per packet arriving at a RED queue.
#[derive(Debug, Default)]
pub struct QueueSeries {
    t_ns: Vec<u64>,
    link: Vec<u32>,
    /// 0: a → b, 1: b → a.
    dir: Vec<u32>,
    packets: Vec<u64>,
    bytes: Vec<u64>,
    /// RED's average queue (packets or bytes, the queue's mode).
    avg: Vec<f64>,
    marks: Vec<u64>,
    drops: Vec<u64>,
}

/// One `queues` row.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct QueueRow {
    pub t: SimTime,
    /// Link direction (`2 * link + dir`).
    pub dir: u32,
    /// Packets and bytes waiting (the one on the wire excluded).
    pub packets: u64,
    pub bytes: u64,
    pub avg: f64,
    /// Cumulative marks and drops (RED and overflow) of the direction so far.
    pub marks: u64,
    pub drops: u64,
}

impl QueueSeries {
    pub fn push(&mut self, r: QueueRow) {
        self.t_ns.push(r.t.as_nanos());
        self.link.push(r.dir / 2);
        self.dir.push(r.dir % 2);
        self.packets.push(r.packets);
        self.bytes.push(r.bytes);
        self.avg.push(r.avg);
        self.marks.push(r.marks);
        self.drops.push(r.drops);
    }

    /// The `queues` table; `links` are the link names in spec order.
    pub fn finish(self, links: &[String]) -> Table {
        let mut t = Table::new("queues");
        t.push("t_ns", ColumnData::U64(self.t_ns))
            .push("link", ColumnData::Dict { codes: self.link, values: links.to_vec() })
            .push("dir", ColumnData::U32(self.dir))
            .push("packets", ColumnData::U64(self.packets))
            .push("bytes", ColumnData::U64(self.bytes))
            .push("avg", ColumnData::F64(self.avg))
            .push("marks", ColumnData::U64(self.marks))
            .push("drops", ColumnData::U64(self.drops));
        t
    }
}

#[derive(Debug, Default)]
struct TimeSeries {
    t_ns: Vec<u64>,
    flow: Vec<u32>,
    cwnd: Vec<u64>,
    ssthresh: Vec<u64>,
    bytes_in_flight: Vec<u64>,
    srtt_ns: Vec<u64>,
    rttvar_ns: Vec<u64>,
    rto_ns: Vec<u64>,
}

fn opt<T: Default>(v: Option<T>, data: &mut Vec<T>, ok: &mut Vec<bool>) {
    ok.push(v.is_some());
    data.push(v.unwrap_or_default());
}

impl Recorder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends an `events` row; returns its number. Retransmission rows start with
    /// `spurious = false` (set later by [`Recorder::set_spurious`]); other rows have it null.
    pub fn event(&mut self, r: EventRow) -> Row {
        let row = self.base + self.t_ns.len() as Row;
        self.t_ns.push(r.t.as_nanos());
        self.flow.push(r.flow);
        self.kind.push(r.kind as u32);
        opt(r.seq, &mut self.seq, &mut self.seq_ok);
        self.len.push(r.len);
        opt(r.ack, &mut self.ack, &mut self.ack_ok);
        opt(r.cause.map(Cause::code), &mut self.cause, &mut self.cause_ok);
        let is_retrans = r.kind == EventKind::SegmentRetransmitted && r.len > 0;
        self.spurious.push(false);
        self.spurious_ok.push(is_retrans);
        self.node.push(r.node);
        opt(r.link, &mut self.link, &mut self.link_ok);
        opt(r.reason.map(|x| x as u32), &mut self.reason, &mut self.reason_ok);
        opt(r.value, &mut self.value, &mut self.value_ok);
        row
    }

    /// Appends the rows of the links' delay spikes and bandwidth changes that start before
    /// `end`, sorted by time (then link direction). They are decided ahead of time (when the
    /// run starts, or when a packet triggers a spike), so they are written at the end of the
    /// run rather than interleaved with the packet rows.
    pub fn link_dynamics(&mut self, links: &[super::link::LinkDirState], end: SimTime) {
        let mut rows: Vec<(u64, u32, EventRow)> = Vec::new();
        for (d, l) in links.iter().enumerate() {
            let Some(dy) = l.dynamics.as_deref() else { continue };
            let link = Some(d as u32 / 2);
            if let Some(sp) = &dy.spikes {
                for &(t0, t1) in sp.spikes().iter().filter(|s| s.0 < end) {
                    let value = Some(t1.0 - t0.0);
                    rows.push((t0.0, d as u32, EventRow { link, value, ..EventRow::new(t0, NO_FLOW, EventKind::LinkStallStart, l.from) }));
                    rows.push((t1.0, d as u32, EventRow { link, value, ..EventRow::new(t1, NO_FLOW, EventKind::LinkStallEnd, l.from) }));
                }
            }
            if let (Some(s), 0) = (&dy.schedule, d % 2) {
                for &(t, bw) in s.changes().iter().filter(|c| c.0 < end) {
                    let value = Some(bw.as_bps());
                    rows.push((t.0, d as u32, EventRow { link, value, ..EventRow::new(t, NO_FLOW, EventKind::BandwidthChange, l.from) }));
                }
            }
        }
        rows.sort_by_key(|r| (r.0, r.1));
        for (_, _, r) in rows {
            self.event(r);
        }
    }

    /// Marks the retransmission in `row` as spurious. The row must still be held (not yet
    /// handed over in a chunk: `SpuriousTracker::settle` keeps such rows back).
    pub fn set_spurious(&mut self, row: Row) {
        debug_assert!(row >= self.base, "row {row} was handed over before its verdict");
        if let Some(i) = row.checked_sub(self.base) {
            self.spurious[i as usize] = true;
        }
    }

    /// Number of the next `events` row.
    pub fn next_row(&self) -> Row {
        self.base + self.t_ns.len() as Row
    }

    /// Rows held in memory (all three tables).
    pub fn rows_held(&self) -> usize {
        self.t_ns.len() + self.ts.t_ns.len() + self.queues.t_ns.len()
    }

    /// Hands over the `events` rows before row `keep_from` and every `timeseries` and
    /// `queues` row, as tables like [`Recorder::finish`]'s; the `events` rows from
    /// `keep_from` on stay.
    pub fn take_chunk(&mut self, keep_from: Row, nodes: &[String], links: &[String]) -> (Table, Table, Table) {
        let n = (keep_from.clamp(self.base, self.next_row()) - self.base) as usize;
        let rest = Recorder {
            base: self.base + n as Row,
            t_ns: self.t_ns.split_off(n),
            flow: self.flow.split_off(n),
            kind: self.kind.split_off(n),
            seq: self.seq.split_off(n),
            seq_ok: self.seq_ok.split_off(n),
            len: self.len.split_off(n),
            ack: self.ack.split_off(n),
            ack_ok: self.ack_ok.split_off(n),
            cause: self.cause.split_off(n),
            cause_ok: self.cause_ok.split_off(n),
            spurious: self.spurious.split_off(n),
            spurious_ok: self.spurious_ok.split_off(n),
            node: self.node.split_off(n),
            link: self.link.split_off(n),
            link_ok: self.link_ok.split_off(n),
            reason: self.reason.split_off(n),
            reason_ok: self.reason_ok.split_off(n),
            value: self.value.split_off(n),
            value_ok: self.value_ok.split_off(n),
            ts: TimeSeries::default(),
            queues: QueueSeries::default(),
        };
        std::mem::replace(self, rest).finish(nodes, links)
    }

    /// Appends a `timeseries` row.
    pub fn sample(&mut self, t: SimTime, flow: u32, cc: &CcSnapshot) {
        let ts = &mut self.ts;
        ts.t_ns.push(t.as_nanos());
        ts.flow.push(flow);
        ts.cwnd.push(cc.cwnd);
        ts.ssthresh.push(cc.ssthresh);
        ts.bytes_in_flight.push(cc.bytes_in_flight);
        ts.srtt_ns.push(cc.srtt_ns);
        ts.rttvar_ns.push(cc.rttvar_ns);
        ts.rto_ns.push(cc.rto_ns);
    }

    /// Builds the `events` and `timeseries` tables. `nodes` and `links` are the names in spec
    /// order (the dictionaries of the `node` and `link` columns).
    pub fn finish(self, nodes: &[String], links: &[String]) -> (Table, Table, Table) {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        // `DropReason::BASE` reasons always, later ones up to the last one recorded.
        let n_reasons = self
            .reason
            .iter()
            .zip(&self.reason_ok)
            .filter(|(_, ok)| **ok)
            .map(|(r, _)| *r as usize + 1)
            .fold(DropReason::BASE, usize::max);
        let dict = |codes: Vec<u32>, values: Vec<String>| ColumnData::Dict { codes, values };
        let mut ev = Table::new("events");
        ev.push("t_ns", ColumnData::U64(self.t_ns))
            .push("flow", ColumnData::U32(self.flow))
            .push("kind", dict(self.kind, names(&EventKind::NAMES)))
            .push_nullable("seq", ColumnData::U64(self.seq), self.seq_ok)
            .push("len", ColumnData::U32(self.len))
            .push_nullable("ack", ColumnData::U64(self.ack), self.ack_ok)
            .push_nullable("cause", dict(self.cause, names(&CAUSE_NAMES)), self.cause_ok)
            .push_nullable("spurious", ColumnData::Bool(self.spurious), self.spurious_ok)
            .push("node", dict(self.node, nodes.to_vec()))
            .push_nullable("link", dict(self.link, links.to_vec()), self.link_ok)
            .push_nullable(
                "reason",
                dict(self.reason, DropReason::ALL[..n_reasons].iter().map(|r| r.name().to_string()).collect()),
                self.reason_ok,
            )
            .push_nullable("value", ColumnData::U64(self.value), self.value_ok);
        let t = self.ts;
        let mut ts = Table::new("timeseries");
        ts.push("t_ns", ColumnData::U64(t.t_ns))
            .push("flow", ColumnData::U32(t.flow))
            .push("cwnd", ColumnData::U64(t.cwnd))
            .push("ssthresh", ColumnData::U64(t.ssthresh))
            .push("bytes_in_flight", ColumnData::U64(t.bytes_in_flight))
            .push("srtt_ns", ColumnData::U64(t.srtt_ns))
            .push("rttvar_ns", ColumnData::U64(t.rttvar_ns))
            .push("rto_ns", ColumnData::U64(t.rto_ns));
        (ev, ts, self.queues.finish(links))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_retransmission_can_be_marked_spurious_afterwards() {
        let mut r = Recorder::new();
        r.event(EventRow::new(SimTime(1), 0, EventKind::Established, 0));
        let row = r.event(EventRow {
            seq: Some(1),
            len: 1448,
            cause: Some(Cause::Retrans(RetransCause::Rto)),
            ..EventRow::new(SimTime(2), 0, EventKind::SegmentRetransmitted, 0)
        });
        r.set_spurious(row);
        let (ev, ts, _) = r.finish(&["h0".into()], &[]);
        assert_eq!(ev.num_rows(), 2);
        assert_eq!(ts.num_rows(), 0);
        let sp = ev.column("spurious").unwrap();
        assert_eq!(sp.data, ColumnData::Bool(vec![false, true]));
        assert_eq!(sp.valid, Some(vec![false, true]));
        let ColumnData::Dict { codes, values } = &ev.column("cause").unwrap().data else { panic!() };
        assert_eq!(values[codes[1] as usize], "rto");
    }
}
