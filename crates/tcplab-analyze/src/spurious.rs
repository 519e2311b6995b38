//! Evidence rules: was a retransmission needed or spurious?
//!
//! Ground truth (the simulator's, and Rewaskar, Kaur & Smith §III-B): a retransmission is
//! *spurious* when every byte of it reached the receiver in an earlier copy. A passive
//! observer decides only on evidence; without any, the answer is `unknown`. Each rule is a
//! pure function of what the capture showed; the replay (`sender_replay.rs`) calls them in
//! the order listed and keeps the first decision.
//!
//! | evidence | verdict | source |
//! |---|---|---|
//! | `receiver_capture` | every byte seen at the receiver before → spurious; not → needed | §III-B (receiver-side traces see the duplicates) |
//! | `original_not_seen` | away from the sender, some byte never passed the capture point before → needed | §IV-A (a segment lost upstream of the monitor is retransmitted as a "hole filler") |
//! | `acked_before_seen` | the receiver had acknowledged every byte before the retransmission passed the capture point → spurious | RFC 9293 §3.10.7.4 (cumulative ACK) |
//! | `dsack` | a D-SACK block reports a duplicate of these bytes → spurious | RFC 2883 §4 / RFC 3708 §3 |
//! | `ack_too_soon` | the ACK covering the bytes arrived sooner after the retransmission than the shortest capture→receiver→capture time → triggered by an earlier copy → spurious | §III-B ("ACK arriving too soon") |
//! | `timestamp_echo` | the acceptable ACK echoes a TSval older than the retransmission's → spurious; echoes the retransmission's own TSval, carried by no other segment starting below that ACK's cumulative point → needed | RFC 3522 §2 (Eifel detection), RFC 7323 §4.3 (only a segment at the left edge moves TS.Recent; Linux `tcp_replace_ts_recent`) |
//! | `no_dsack` | SACK in use, the bytes were acknowledged, and no D-SACK came within [`NO_DSACK_WAIT_RTTS`] capture-point RTTs → needed | RFC 3708 §3 (needs a D-SACK receiver: assumed from SACK-permitted in the handshake when the model's receivers send D-SACK, proven by any D-SACK on the connection) |
//! | `no_dsack_by_order` | as `no_dsack`, but instead of the wait: an ACK passed that the receiver sent after this retransmission had arrived (it echoes a TSval of this copy's tick or later, or it acknowledges bytes first sent after this copy), with no D-SACK for the copy up to and including it → needed | RFC 2883 §4 (the D-SACK rides on the ACK the duplicate triggers, sent at once: RFC 5681 §4.2, Linux `tcp_data_queue` → `tcp_dsack_set` + quick ACK), RFC 7323 §4.3 (the echo is a segment that reached the left edge) |
//!
//! The two "needed" verdicts that rest on what the receiver echoed or did not report
//! (`timestamp_echo` = needed, `no_dsack`) also require that the ACK clock was alive: some
//! ACK passed the capture point after the original could have been acknowledged and
//! before the retransmission. Otherwise the retransmission may answer lost ACKs (the
//! original arrived, every ACK of it was lost), and an echo of the retransmission's own
//! TSval or a lost D-SACK proves nothing; the verdict is left undecided.

use serde::Serialize;

/// An ACK counts as "too soon" when it arrives less than this fraction of the shortest
/// capture→receiver→capture time measured on the connection after the retransmission.
/// Below 1 because a shorter retransmitted segment serialises faster than the data segment
/// that gave the minimum sample.
pub const TOO_SOON_FRACTION: f64 = 0.8;

/// How long (in multiples of the largest capture→receiver→capture sample) to wait for a
/// D-SACK before calling an acknowledged retransmission needed. The D-SACK of a duplicate
/// is sent at once (RFC 2883 §4, RFC 5681 §4.2: duplicates are acknowledged immediately),
/// so two round trips leave a wide margin.
pub const NO_DSACK_WAIT_RTTS: u64 = 2;
/// Added to the D-SACK wait to cover samples taken before queues built up (10 ms).
pub const NO_DSACK_WAIT_SLACK_NS: u64 = 10_000_000;

/// Which rule decided.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Evidence {
    ReceiverCapture,
    OriginalNotSeen,
    AckedBeforeSeen,
    Dsack,
    AckTooSoon,
    TimestampEcho,
    NoDsack,
    NoDsackByOrder,
    None,
}

impl Evidence {
    pub const fn name(self) -> &'static str {
        match self {
            Evidence::ReceiverCapture => "receiver_capture",
            Evidence::OriginalNotSeen => "original_not_seen",
            Evidence::AckedBeforeSeen => "acked_before_seen",
            Evidence::Dsack => "dsack",
            Evidence::AckTooSoon => "ack_too_soon",
            Evidence::TimestampEcho => "timestamp_echo",
            Evidence::NoDsack => "no_dsack",
            Evidence::NoDsackByOrder => "no_dsack_by_order",
            Evidence::None => "none",
        }
    }
}

/// A verdict: `Some(true)` spurious, `Some(false)` needed.
pub type Verdict = Option<(bool, Evidence)>;

/// Receiver-side capture: what the receiver had when the retransmission reached it.
pub fn receiver_capture(all_bytes_seen_before: bool) -> Verdict {
    Some((all_bytes_seen_before, Evidence::ReceiverCapture))
}

/// Sender-side of the receiver (middle) capture: a byte that never passed the monitor
/// before cannot have reached the receiver before (FIFO path assumed between monitor and
/// receiver only for that byte's earlier copies, which do not exist).
pub fn original_not_seen(all_bytes_seen_before: bool) -> Verdict {
    (!all_bytes_seen_before).then_some((false, Evidence::OriginalNotSeen))
}

/// The receiver had already acknowledged the bytes when the retransmission passed.
pub fn acked_before_seen(cum_ack: u64, end: u64) -> Verdict {
    (cum_ack >= end).then_some((true, Evidence::AckedBeforeSeen))
}

/// A D-SACK block `[left, right)` covers the retransmitted bytes `[start, end)`.
pub fn dsack(left: u64, right: u64, start: u64, end: u64) -> Verdict {
    (left <= start && right >= end).then_some((true, Evidence::Dsack))
}

/// The ACK covering the retransmission arrived `ack_delay_ns` after it; `min_rtt_ns` is the
/// shortest capture→receiver→capture sample.
pub fn ack_too_soon(ack_delay_ns: u64, min_rtt_ns: Option<u64>) -> Verdict {
    let m = min_rtt_ns?;
    ((ack_delay_ns as f64) < TOO_SOON_FRACTION * m as f64).then_some((true, Evidence::AckTooSoon))
}


/// RFC 3522 §2: "if the value of the Timestamp Echo Reply field of the acceptable ACK is
/// smaller than the value of the Timestamp Value field of the retransmit ... the
/// retransmission was spurious". The converse ("needed") holds only when the echo is the
/// retransmission's own TSval and no other segment that could have moved TS.Recent carried
/// the same TSval (a coarse timestamp clock makes the echo ambiguous; a newer echo comes from
/// a later segment that updated TS.Recent, RFC 7323 §4.3, and says nothing about this one).
/// `tsval_shared` is decided by the replay: only a sharer starting below the ACK's cumulative
/// point counts (`sender_replay::sharer_key`).
pub fn timestamp_echo(tsecr: u32, rtx_tsval: u32, tsval_shared: bool) -> Verdict {
    // RFC 1323 / 7323 timestamp comparison (modulo 2^32), the engine's.
    if tcplab_tcp::timer::ts_before(tsecr, rtx_tsval) {
        Some((true, Evidence::TimestampEcho))
    } else if tsecr == rtx_tsval && !tsval_shared {
        Some((false, Evidence::TimestampEcho))
    } else {
        None
    }
}

/// RFC 3708 §3: SACK in use, the bytes were acknowledged, and no D-SACK arrived in time.
pub fn no_dsack(sack_in_use: bool, dsack_receiver: bool, acked: bool, waited_ns: u64, wait_ns: u64) -> Verdict {
    (sack_in_use && dsack_receiver && acked && waited_ns >= wait_ns).then_some((false, Evidence::NoDsack))
}

/// Did the receiver send an ACK *after* a retransmission reached it? (`no_dsack_by_order`)
///
/// RFC 7323 §4.3: TS.Recent (the echo) is set only by a segment at the receiver's left edge,
/// so an ACK echoing `tsecr` was sent after a segment carrying `tsecr` arrived there. When
/// `tsecr` is after the copy's TSval, that segment was sent after the copy; when it equals
/// it, the copy or a later segment of its tick, unless an earlier segment of the same tick
/// (`earlier_sharer`) carried it too. Without timestamps: the ACK acknowledges (cumulatively
/// or by SACK: `acked_high`, the highest sequence number it covers, clipped to SND.MAX) bytes
/// above `snd_max_at_tx`, the highest sequence number sent before the copy, i.e. bytes first
/// sent after it. Either way the copy, sent first, arrived first.
pub fn sent_after_arrival(tsecr: Option<u32>, tsval: Option<u32>, earlier_sharer: bool, acked_high: u64, snd_max_at_tx: u64) -> bool {
    let by_echo = match (tsecr, tsval) {
        (Some(e), Some(v)) => tcplab_tcp::timer::ts_before(v, e) || (e == v && !earlier_sharer),
        _ => false,
    };
    by_echo || acked_high > snd_max_at_tx
}

/// RFC 2883 §4 / RFC 3708 §3 without the wait: SACK in use, a D-SACK receiver, the bytes were
/// acknowledged, and an ACK sent after the copy arrived (`sent_after_arrival`) has passed with
/// no D-SACK for it → needed.
pub fn no_dsack_by_order(sack_in_use: bool, dsack_receiver: bool, acked: bool, later_ack_passed: bool) -> Verdict {
    (sack_in_use && dsack_receiver && acked && later_ack_passed).then_some((false, Evidence::NoDsackByOrder))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_older_echoed_timestamp_marks_the_retransmission_spurious() {
        assert_eq!(timestamp_echo(100, 105, false), Some((true, Evidence::TimestampEcho)));
        assert_eq!(timestamp_echo(105, 105, false), Some((false, Evidence::TimestampEcho)));
        assert_eq!(timestamp_echo(105, 105, true), None);
        assert_eq!(timestamp_echo(110, 105, false), None);
        // Modulo 2^32.
        assert_eq!(timestamp_echo(u32::MAX, 2, false), Some((true, Evidence::TimestampEcho)));
    }

    #[test]
    fn an_ack_faster_than_the_shortest_round_trip_was_triggered_by_an_earlier_copy() {
        assert_eq!(ack_too_soon(10, Some(100)), Some((true, Evidence::AckTooSoon)));
        assert_eq!(ack_too_soon(90, Some(100)), None);
        assert_eq!(ack_too_soon(10, None), None);
    }

    #[test]
    fn a_dsack_must_cover_the_whole_retransmission() {
        assert!(dsack(10, 20, 10, 20).is_some());
        assert!(dsack(12, 20, 10, 20).is_none());
    }

    #[test]
    fn the_absence_of_a_dsack_decides_only_after_the_wait_and_with_sack() {
        assert_eq!(no_dsack(true, true, true, 10, 10), Some((false, Evidence::NoDsack)));
        assert_eq!(no_dsack(true, true, true, 9, 10), None);
        assert_eq!(no_dsack(false, true, true, 10, 10), None);
        assert_eq!(no_dsack(true, true, false, 10, 10), None);
    }

    #[test]
    fn an_ack_sent_after_the_copy_arrived_is_named_by_its_echo_or_by_later_bytes() {
        // Echo of a later tick: sent after the copy arrived.
        assert!(sent_after_arrival(Some(106), Some(105), false, 0, 10));
        // Echo of the copy's own tick: only when no earlier segment carried that TSval.
        assert!(sent_after_arrival(Some(105), Some(105), false, 0, 10));
        assert!(!sent_after_arrival(Some(105), Some(105), true, 0, 10));
        // An older echo says nothing here (Eifel's rule decides those).
        assert!(!sent_after_arrival(Some(104), Some(105), false, 0, 10));
        // Modulo 2^32.
        assert!(sent_after_arrival(Some(1), Some(u32::MAX), false, 0, 10));
        // Without timestamps: bytes first sent after the copy were acknowledged.
        assert!(sent_after_arrival(None, None, false, 11, 10));
        assert!(!sent_after_arrival(None, None, false, 10, 10));
        assert!(!sent_after_arrival(Some(105), None, false, 10, 10));
    }

    #[test]
    fn the_order_rule_needs_sack_a_dsack_receiver_an_ack_of_the_bytes_and_a_later_ack() {
        assert_eq!(no_dsack_by_order(true, true, true, true), Some((false, Evidence::NoDsackByOrder)));
        assert_eq!(no_dsack_by_order(false, true, true, true), None);
        assert_eq!(no_dsack_by_order(true, false, true, true), None);
        assert_eq!(no_dsack_by_order(true, true, false, true), None);
        assert_eq!(no_dsack_by_order(true, true, true, false), None);
    }

    #[test]
    fn captures_away_from_the_sender_decide_from_what_passed_them() {
        assert_eq!(receiver_capture(true), Some((true, Evidence::ReceiverCapture)));
        assert_eq!(receiver_capture(false), Some((false, Evidence::ReceiverCapture)));
        assert_eq!(original_not_seen(false), Some((false, Evidence::OriginalNotSeen)));
        assert_eq!(original_not_seen(true), None);
        assert_eq!(acked_before_seen(30, 30), Some((true, Evidence::AckedBeforeSeen)));
    }
}
