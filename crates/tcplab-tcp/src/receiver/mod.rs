//! The receiving half: RCV.NXT, reassembly, ACK policy, SACK/D-SACK generation, TS.Recent and
//! the advertised window.
//!
//! Ambiguities resolved:
//! - The application reads immediately, so the advertised window is always `recv_buffer`
//!   (clamped to 65535 << Rcv.Wind.Shift); out-of-order data does not shrink it. The right edge
//!   RCV.NXT + RCV.WND is never moved left (RFC 9293 §3.8.6.2.2 / RFC 7323 §2.4).
//!   With `TcpConfig::linux_rcv_window` the window is today's Linux's instead: 64 KiB at first,
//!   grown by `tcp_grow_window` and receive-buffer autotuning up to `recv_buffer`
//!   (`linux_window`).
//! - PAWS (RFC 7323 §5) is not implemented: the simulator never carries segments old enough to
//!   wrap a 2^32 sequence space, and retransmissions carry fresh TSvals.

pub mod ack_policy;
pub mod linux_window;
pub mod reassembly;
pub mod sack_gen;

use crate::config::TcpConfig;
use crate::segment::{SackBlocks, Segment, TcpFlags};
use crate::seq::SeqNum;
use ack_policy::{AckAction, AckState, DataArrival};
use linux_window::{DataSeg, LinuxRcvWindow};
use reassembly::Reassembly;
use sack_gen::SackGen;

/// Segments claiming more payload than this are malformed and ignored: RFC 7323 §2.3 limits
/// the window to 2^30 bytes, so no acceptable segment can be longer.
pub const MAX_SEGMENT_LEN: u32 = 1 << 30;

/// RFC 9293 §3.1: the window field is 16 bits.
pub const MAX_UNSCALED_WINDOW: u64 = 65_535;

/// What the connection must do after the receiver processed a segment.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RxAction {
    /// Nothing to acknowledge (pure ACK, or nothing new).
    None,
    /// Acknowledge now.
    AckNow,
    /// Start the delayed-ACK timer if it is not running.
    Delay,
}

/// The receiving half of a connection.
#[derive(Clone, Debug)]
pub struct Receiver {
    /// RFC 9293 IRS.
    pub irs: SeqNum,
    /// RFC 9293 RCV.NXT.
    pub rcv_nxt: SeqNum,
    /// RFC 9293 RCV.WND in bytes (what is advertised, before scaling).
    pub rcv_wnd: u64,
    /// RFC 7323 Rcv.Wind.Shift (0 when window scaling was not negotiated).
    pub rcv_wscale: u8,
    /// Right edge of the last advertised window (never moved left).
    rcv_adv_right: SeqNum,
    /// Largest segment the peer sends (what counts as full-sized).
    pub rcv_mss: u32,
    /// RFC 7323 TS.Recent.
    pub ts_recent: u32,
    /// RFC 7323 Last.ACK.sent.
    pub last_ack_sent: SeqNum,
    pub ts_ok: bool,
    pub sack_ok: bool,
    reasm: Reassembly,
    sack: SackGen,
    ack: AckState,
    /// Sequence number of the peer's FIN once seen.
    fin_seq: Option<SeqNum>,
    /// The FIN has been consumed (RCV.NXT moved past it).
    pub fin_received: bool,
    /// Bytes delivered in order to the application.
    pub bytes_delivered: u64,
    /// `TcpConfig::sack_covers_fin`.
    sack_covers_fin: bool,
    /// Today's Linux receive window (`TcpConfig::linux_rcv_window`), from the peer's SYN on.
    linux: Option<LinuxRcvWindow>,
    /// Out-of-order bytes in the reassembly queue (what `linux` charges against the buffer).
    ooo_bytes: u64,
}

impl Receiver {
    pub fn new(cfg: &TcpConfig) -> Self {
        Receiver {
            irs: SeqNum(0),
            rcv_nxt: SeqNum(0),
            rcv_wnd: cfg.recv_buffer.min(MAX_UNSCALED_WINDOW),
            rcv_wscale: 0,
            rcv_adv_right: SeqNum(0),
            rcv_mss: u32::from(cfg.mss),
            ts_recent: 0,
            last_ack_sent: SeqNum(0),
            ts_ok: false,
            sack_ok: false,
            reasm: Reassembly::default(),
            sack: SackGen::default(),
            ack: AckState::with_linux_ato(cfg.ack, cfg.ack_ato),
            fin_seq: None,
            fin_received: false,
            bytes_delivered: 0,
            sack_covers_fin: cfg.sack_covers_fin,
            linux: None,
            ooo_bytes: 0,
        }
    }

    /// The window field of our SYN or SYN-ACK (RFC 7323 §2.2: never scaled): `recv_buffer`, or
    /// with `linux_rcv_window` Linux's first offer (`tcp_select_initial_window`).
    pub fn syn_window(cfg: &TcpConfig) -> u16 {
        if cfg.linux_rcv_window {
            LinuxRcvWindow::syn_window(cfg.recv_buffer, u32::from(cfg.mss)) as u16
        } else {
            cfg.recv_buffer.min(MAX_UNSCALED_WINDOW) as u16
        }
    }

    /// The Linux receive-window state, when `linux_rcv_window` is on.
    pub fn linux_window(&self) -> Option<&LinuxRcvWindow> {
        self.linux.as_ref()
    }

    /// The peer's SYN was accepted; `rcv_wscale` is 0 unless both sides offered scaling.
    pub fn on_syn(&mut self, cfg: &TcpConfig, seg: &Segment, rcv_wscale: u8) {
        self.irs = seg.seq;
        self.rcv_nxt = seg.seq + 1;
        self.last_ack_sent = self.rcv_nxt;
        self.rcv_wscale = rcv_wscale;
        // RFC 7323 §2.3: the largest window representable with the shift.
        self.rcv_wnd = cfg.recv_buffer.min(MAX_UNSCALED_WINDOW << rcv_wscale);
        if cfg.linux_rcv_window {
            let ts = cfg.timestamps && seg.options.timestamps.is_some();
            let mut lw = LinuxRcvWindow::new(cfg.recv_buffer, u32::from(cfg.mss), ts);
            self.rcv_wnd = lw.on_syn(rcv_wscale, self.rcv_nxt);
            self.linux = Some(lw);
        }
        self.rcv_adv_right = self.rcv_nxt + self.rcv_wnd as u32;
        if let Some((tsval, _)) = seg.options.timestamps {
            self.ts_recent = tsval;
        }
    }

    /// Processes the sequence-space part of a synchronized-state segment (data and FIN).
    /// Never panics; out-of-window data is answered with an ACK (RFC 9293 §3.10.7.4).
    pub fn on_segment(&mut self, seg: &Segment) -> RxAction {
        self.on_segment_at(seg, tcplab_time::SimTime::ZERO, tcplab_time::SimDuration::ZERO)
    }

    /// [`Receiver::on_segment`] with the arrival time and this endpoint's RTO (Linux's
    /// adaptive delayed-ACK timeout, `TcpConfig::ack_ato`; `ack_policy`).
    pub fn on_segment_at(&mut self, seg: &Segment, now: tcplab_time::SimTime, rto: tcplab_time::SimDuration) -> RxAction {
        if seg.len > MAX_SEGMENT_LEN {
            return RxAction::None;
        }
        let syn = seg.flags.contains(TcpFlags::SYN);
        let fin = seg.flags.contains(TcpFlags::FIN);
        if let Some(lw) = &mut self.linux {
            lw.on_established(now);
            // The reader consumed what an earlier arrival queued.
            lw.finish_read();
        }
        // Data starts after a SYN (a retransmitted SYN-ACK carries none here).
        let mut left = if syn { seg.seq + 1 } else { seg.seq };
        let seg_data_end = left + seg.len;
        let mut right = seg_data_end;

        // RFC 7323 §4.3 (2) / RFC 1323 §3.4 (2): "If Last.ACK.sent falls within the range of
        // sequence numbers of an incoming segment: SEG.SEQ <= Last.ACK.sent < SEG.SEQ +
        // SEG.LEN then the TSval from the segment is copied to TS.Recent" (upper bound taken
        // as <=, as 4.4BSD does, so that a segment ending exactly at Last.ACK.sent and pure
        // ACKs still update it), and only if SEG.TSval >= TS.Recent. A duplicate segment
        // wholly below Last.ACK.sent is answered with the older TS.Recent: the echo Eifel
        // relies on (RFC 3522 §3.1), and the source of its false positive in the
        // dissertation's bursty-loss tests (L2632-2678).
        if self.ts_ok {
            if let Some((tsval, _)) = seg.options.timestamps {
                let seg_end = seg.seq + seg.len + u32::from(seg.flags.contains(TcpFlags::SYN)) + u32::from(seg.flags.contains(TcpFlags::FIN));
                if tsval.wrapping_sub(self.ts_recent) as i32 >= 0
                    && seg.seq.le(self.last_ack_sent)
                    && self.last_ack_sent.le(seg_end)
                {
                    self.ts_recent = tsval;
                }
            }
        }

        if seg.len == 0 && !fin {
            if syn {
                // Retransmitted SYN(-ACK): our ACK was lost; acknowledge again.
                return RxAction::AckNow;
            }
            // Pure ACK. A zero-length segment below RCV.NXT is a window probe: answer it.
            return if seg.seq.lt(self.rcv_nxt) { RxAction::AckNow } else { RxAction::None };
        }
        let wnd_right = if self.linux.is_some() {
            // Linux tcp_sequence: up to RCV.NXT + tcp_receive_window (the advertised edge).
            self.rcv_adv_right.max(self.rcv_nxt + 1)
        } else {
            self.rcv_nxt + self.rcv_wnd.max(1) as u32
        };
        // Entirely old: a duplicate (RFC 2883 D-SACK), acknowledged at once.
        if seg.len > 0 && right.le(self.rcv_nxt) {
            if self.sack_ok {
                self.sack.on_duplicate(left, right);
            }
            return RxAction::AckNow;
        }
        if seg.len == 0 && fin && seg_data_end.lt(self.rcv_nxt) {
            return RxAction::AckNow; // retransmitted FIN already consumed
        }
        // Beyond the window: RFC 9293 §3.10.7.4 "send an acknowledgment" and drop.
        if left.ge(wnd_right) && seg.len > 0 {
            return RxAction::AckNow;
        }
        let mut action_now = false;
        if left.lt(self.rcv_nxt) {
            // Partially old: report the duplicate part (RFC 2883 §4).
            if self.sack_ok {
                self.sack.on_duplicate(left, self.rcv_nxt);
            }
            left = self.rcv_nxt;
            action_now = true;
        }
        let mut fin_in_window = fin;
        if right.gt(wnd_right) {
            right = wnd_right;
            fin_in_window = false;
        }
        if fin_in_window && self.fin_seq.is_none() {
            self.fin_seq = Some(seg_data_end);
        }

        let had_holes = !self.reasm.is_empty();
        let before = self.rcv_nxt;
        let mut queued_ooo = 0u64;
        if left.lt(right) {
            if left == self.rcv_nxt && !had_holes {
                // Fast path: in order, nothing queued.
                self.rcv_nxt = right;
            } else {
                let ins = self.reasm.insert(self.rcv_nxt, left, right);
                queued_ooo = ins.new_bytes;
                if let Some((l, r)) = ins.duplicate {
                    if self.sack_ok {
                        self.sack.on_duplicate(l, r);
                    }
                    action_now = true;
                }
                if left != self.rcv_nxt && self.sack_ok {
                    self.sack.on_ooo_segment(&self.reasm, self.rcv_nxt, left);
                }
                while let Some(r) = self.reasm.pop_contiguous(self.rcv_nxt) {
                    self.rcv_nxt = self.rcv_nxt.max(r);
                }
                if self.sack_ok {
                    self.sack.prune(self.rcv_nxt);
                }
            }
        }
        let advance = u64::from(self.rcv_nxt - before);
        self.bytes_delivered += advance;
        let mut window_grew = false;
        if let Some(lw) = &mut self.linux {
            if had_holes || !self.reasm.is_empty() {
                self.ooo_bytes = (self.ooo_bytes + queued_ooo).saturating_sub(advance);
            }
            let ds = DataSeg {
                now,
                len: seg.len,
                tsecr: if self.ts_ok { seg.options.timestamps.map(|(_, ecr)| ecr) } else { None },
                rcv_nxt: self.rcv_nxt,
                ooo_bytes: self.ooo_bytes,
                ooo_right: self.reasm.ranges().last().map(|r| r.right),
                sack: self.sack_ok,
            };
            if advance > 0 {
                let own = u64::from(right - left);
                window_grew = lw.on_in_order(&ds, advance.saturating_sub(own));
            } else if queued_ooo > 0 && lw.on_out_of_order(&ds) {
                // tcp_grow_window's "inet_csk(sk)->icsk_ack.quick |= 1".
                self.ack.grant_quick_ack();
            }
        }

        // The FIN is consumed once all data before it has arrived.
        if !self.fin_received && self.fin_seq == Some(self.rcv_nxt) {
            self.rcv_nxt += 1;
            self.fin_received = true;
            action_now = true;
        }
        if action_now || self.rcv_nxt == before && seg.len > 0 {
            if window_grew {
                self.ack.grant_quick_ack();
            }
            return RxAction::AckNow;
        }
        match self.ack.on_data(DataArrival {
            len: seg.len,
            in_order_no_holes: !had_holes && self.reasm.is_empty() && left == before,
            rcv_mss: self.rcv_mss,
            rcv_wnd: self.rcv_wnd,
            now,
            rto,
            window_grew,
            psh: seg.flags.contains(TcpFlags::PSH),
        }) {
            AckAction::Now => RxAction::AckNow,
            AckAction::Delay => {
                // The reader runs before the delayed ACK leaves (module docs of `linux_window`).
                if let Some(lw) = &mut self.linux {
                    lw.finish_read();
                }
                // Linux __tcp_cleanup_rbuf after that read: ICSK_ACK_PUSHED (`ack_policy`).
                if self.ack.ack_after_read(self.reasm.is_empty()) {
                    return RxAction::AckNow;
                }
                RxAction::Delay
            }
        }
    }

    /// The delayed-ACK timeout to arm now with `TcpConfig::ack_ato` (Linux
    /// `tcp_send_delayed_ack`), else `None`.
    pub fn delack_timeout(&self, srtt: Option<tcplab_time::SimDuration>) -> Option<tcplab_time::SimDuration> {
        self.ack.delack_timeout(srtt)
    }

    /// Fields for an outgoing segment's ACK: (ack, window field, SACK blocks). Records
    /// Last.ACK.sent and restarts the ACK-every-N count.
    pub fn build_ack(&mut self) -> (SeqNum, u16, SackBlocks) {
        let right = if let Some(lw) = &mut self.linux {
            // Linux tcp_select_window (never shrinks, `linux_window`); the reader runs after.
            let cur = if self.rcv_adv_right.gt(self.rcv_nxt) { u64::from(self.rcv_adv_right - self.rcv_nxt) } else { 0 };
            let new = lw.select_window(cur).min(MAX_UNSCALED_WINDOW << self.rcv_wscale);
            lw.finish_read();
            self.rcv_wnd = new;
            self.rcv_nxt + new as u32
        } else {
            // Never shrink: keep the right edge at or beyond what was advertised.
            (self.rcv_nxt + self.rcv_wnd as u32).max(self.rcv_adv_right)
        };
        self.rcv_adv_right = right;
        let wnd = u64::from(right - self.rcv_nxt);
        let field = (wnd >> self.rcv_wscale).min(MAX_UNSCALED_WINDOW) as u16;
        let mut blocks = if self.sack_ok {
            self.sack.build(&self.reasm, self.rcv_nxt, self.ts_ok)
        } else {
            SackBlocks::new()
        };
        if let Some(fin) = self.fin_seq.filter(|_| self.sack_covers_fin && !self.fin_received && !blocks.is_empty()) {
            // Linux: SACK blocks run to TCP_SKB_CB(skb)->end_seq, which counts the FIN
            // ("seq + syn + fin + len", tcp_v4_fill_cb): a block ending where the queued FIN
            // sits includes it (`TcpConfig::sack_covers_fin`).
            let mut with_fin = SackBlocks::new();
            for b in blocks.as_slice() {
                let right = if b.right == fin { fin + 1 } else { b.right };
                with_fin.push(crate::segment::SackBlock { left: b.left, right });
            }
            blocks = with_fin;
        }
        self.last_ack_sent = self.rcv_nxt;
        self.ack.on_ack_sent();
        (self.rcv_nxt, field, blocks)
    }

    /// Out-of-order ranges currently queued.
    pub fn ooo_ranges(&self) -> usize {
        self.reasm.len()
    }
}
