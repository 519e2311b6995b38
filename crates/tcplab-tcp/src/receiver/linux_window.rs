//! Today's Linux receive window (`TcpConfig::linux_rcv_window`, scenario key
//! `linux_rcv_window`): the initial offer, `rcv_ssthresh` growth, receive-buffer autotuning
//! (Dynamic Right-Sizing) and the window an ACK advertises, as Linux 6.16+ computes them
//! (`net/ipv4/tcp_input.c`, `tcp_output.c`, `include/net/tcp.h`). Without it the receiver offers
//! `recv_buffer` from the SYN-ACK on.
//!
//! The rules, each quoted above its code:
//! - `tcp_select_initial_window`: the SYN(-ACK) offers the socket's full space (`sk_rcvbuf` =
//!   `tcp_rmem[1]`, 128 KiB, at the default 50 % payload/truesize ratio: 64 KiB) rounded down
//!   to a multiple of the MSS: 65 160 bytes for MSS 1448; `rcv_ssthresh` starts there;
//! - `tcp_init_buffer_space` at establishment: `window_clamp` = the full space less one segment
//!   ("Force reservation of one segment"), `rcvq_space.space` = min(rcv_ssthresh, rcv_wnd,
//!   10 · advmss);
//! - `tcp_measure_rcv_mss`: the first full-sized segment (longer than the initial 536-byte
//!   `rcv_mss` guess) measures `scaling_ratio` = len · 256 / truesize and moves `window_clamp`
//!   to the buffer's space at that ratio (`tcp_set_window_clamp`);
//! - `tcp_grow_window` for every data segment of at least 128 bytes (out-of-order ones too,
//!   with SACK): `rcv_ssthresh` += 2 · advmss up to the free space (and the receiver gets one
//!   quick ACK: `icsk_ack.quick |= 1`);
//! - `tcp_rcv_space_adjust` / `tcp_rcvbuf_grow` once per receiver RTT (`tcp_rcv_rtt_update` on
//!   timestamps, else once per window): when more was read in the last RTT than in the one
//!   before, the buffer becomes the space of twice that plus twice the growth extrapolated
//!   ("slow start: allow the sender to double its rate") plus the out-of-order span, at most
//!   `tcp_rmem[2]` (`recv_buffer`), and `window_clamp` follows. Checked against the real
//!   `baseline` capture: the third round trip's segments raise the window from 79 to 131 × 1024
//!   and no further, which is this rule with the receiver's smoothed timestamp RTT (the
//!   adjustment at 46 ms after the handshake: 20 segments read in the RTT before, 12 in the one
//!   before that: clamp 135 146, free space 133 705);
//! - `tcp_select_window` / `__tcp_select_window`: the free space, at most `rcv_ssthresh`,
//!   rounded up to the window-scale unit; never less than what is still offered (never shrink).
//!
//! Model of `skb->truesize` (the kernel charges each queued skb's whole allocation against
//! `sk_rcvbuf`): a frame copied into one linear kmalloc'd buffer, as AF_PACKET transmission
//! (`packet_alloc_skb`: "Under a page? Don't bother with paged skb.") and veth hand it to the
//! receiver on the harness's path (`validation/linux/`): head = NET_SKB_PAD-like headroom 16 +
//! Ethernet/IP/TCP headers + payload, cache-line aligned, plus `skb_shared_info` (320), rounded
//! up to the kmalloc size class; truesize = that class − 320 + `SKB_TRUESIZE` overhead (256 +
//! 320). For a 1448-byte payload with timestamps (a 1514-byte frame) that is 2048 → 2304 bytes,
//! ratio 160/256: the window_clamp of a 128 KiB buffer is 81 920, its free space with one
//! segment queued 80 480, which is where the real receiver's window stops in the first RTT
//! (`tail-loss` capture: 65 160 in the SYN-ACK, then 67, 70, 73, 75, 78, 79 × 1024). Other NICs
//! allocate differently (page fragments, GRO): the constants below describe this path only.
//!
//! Cost (issue 10's per-packet goal): every rule is O(1); `tcp_grow_window` returns before
//! computing `tcp_space` when `rcv_ssthresh` already reached `window_clamp` (its `room` cannot
//! be positive). A memo of `select_window`'s inputs was tried (session 6) and cost more than it
//! saved: autotuning moves `rcv_ssthresh`, `sk_rcvbuf` and the queued bytes between ACKs, so it
//! rarely hit (+85 instructions per packet on `linux_today cost 7`). Session 7: the common
//! outcome of each per-segment rule is decided inline and only the rest is a call (the read
//! against a precomputed `adjust_at` instant, `tcp_grow_window` at the clamp,
//! `tcp_measure_rcv_mss` on a full-sized segment), `tcp_full_space` is kept with its two
//! inputs, and the receiver's timestamp clock is read only when an echo gives a sample.
//! Every output is unchanged (docs/benchmarks.md, "Engine alone").
//!
//! Ambiguities resolved / not modelled:
//! - The application reads everything in order as soon as it arrives, after the ACK that
//!   arrival triggers is sent (the kernel sends it from the softirq before the reader runs): an
//!   ACK sent at once counts the arriving segment (and the out-of-order ones it released) as
//!   queued, a delayed ACK does not. `tcp_rcv_space_adjust` runs at that read.
//! - Out-of-order data is charged per segment of `rcv_mss` (the queue keeps ranges, not skbs).
//! - No memory pressure (`tcp_under_memory_pressure` false), no `SO_RCVBUF` lock, no
//!   `tcp_shrink_window`, no window-update ACK from `tcp_cleanup_rbuf` (the reader never lets
//!   the window fill), no pruning/collapsing of the queue.
//! - The active opener offers rounddown(64 KiB, MSS) too; Linux uses the MSS without the
//!   timestamp option there (64 240 for 1460), a difference only in the data-less direction.

use crate::seq::SeqNum;
use tcplab_time::SimTime;

/// Linux `tcp_rmem[1]` default (`net.ipv4.tcp_rmem` = 4096 131072 33554432 since 6.16): the
/// receive buffer a socket starts with.
pub const TCP_RMEM_DEFAULT: u64 = 131_072;
/// `TCP_RMEM_TO_WIN_SCALE` (include/net/tcp.h): `scaling_ratio` is in 1/256ths.
pub const TCP_RMEM_TO_WIN_SCALE: u32 = 8;
/// `TCP_DEFAULT_SCALING_RATIO`: "Assume a 50% default for skb->len/skb->truesize ratio."
pub const TCP_DEFAULT_SCALING_RATIO: u64 = 1 << (TCP_RMEM_TO_WIN_SCALE - 1);
/// `TCP_INIT_CWND` (include/net/tcp.h): the first `rcvq_space.space` is 10 segments.
pub const TCP_INIT_CWND: u64 = 10;
/// `TCP_MIN_RCVMSS` (include/net/tcp.h): `tcp_initialize_rcv_mss`'s first guess is at most 536.
pub const TCP_MIN_RCVMSS: u32 = 536;
/// `TCP_MIN_MSS` (include/net/tcp.h): the smallest `rcv_mss` guess.
pub const TCP_MIN_MSS: u32 = 88;
/// `net.ipv4.tcp_app_win` default 31: the share of the buffer kept for the application is
/// `maxwin >> 31` (none) plus one reserved segment.
pub const TCP_APP_WIN: u32 = 31;
/// `tcp_event_data_recv`: "if (skb->len >= 128) tcp_grow_window(sk, skb, true);".
pub const GROW_MIN_LEN: u32 = 128;
/// `SOCK_MIN_RCVBUF` / 2: `tcp_set_window_clamp`'s lower bound (2 · (2048 + sizeof(sk_buff)) / 2).
pub const MIN_WINDOW_CLAMP: u64 = 2048 + 256;

/// truesize model (module docs): headroom reserved in front of the frame (`LL_RESERVED_SPACE`
/// of an Ethernet device, 16).
pub const SKB_HEADROOM: u32 = 16;
/// Ethernet + IPv4 + TCP headers without options (14 + 20 + 20).
pub const FRAME_HEADERS: u32 = 54;
/// The TCP timestamp option as sent (NOP, NOP, 10 bytes).
pub const TS_OPTION_LEN: u32 = 12;
/// `SKB_DATA_ALIGN` on x86-64 (`SMP_CACHE_BYTES`).
pub const SMP_CACHE_BYTES: u32 = 64;
/// `SKB_DATA_ALIGN(sizeof(struct skb_shared_info))` on x86-64.
pub const SKB_SHINFO_SIZE: u32 = 320;
/// `SKB_DATA_ALIGN(sizeof(struct sk_buff))` on x86-64.
pub const SKB_STRUCT_SIZE: u32 = 256;

/// `skb->truesize` of a received segment with `len` payload bytes (module docs).
pub fn truesize(len: u32, timestamps: bool) -> u64 {
    let frame = SKB_HEADROOM + FRAME_HEADERS + if timestamps { TS_OPTION_LEN } else { 0 } + len;
    let aligned = frame.div_ceil(SMP_CACHE_BYTES) * SMP_CACHE_BYTES;
    let alloc = u64::from(aligned + SKB_SHINFO_SIZE);
    // kmalloc size classes: 96, 192 and the powers of two.
    let class = match alloc {
        0..=64 => 64,
        65..=96 => 96,
        97..=128 => 128,
        129..=192 => 192,
        n => n.next_power_of_two(),
    };
    class - u64::from(SKB_SHINFO_SIZE) + u64::from(SKB_STRUCT_SIZE + SKB_SHINFO_SIZE)
}

/// include/net/tcp.h `__tcp_win_from_space`: "return (space * scaling_ratio) >> TCP_RMEM_TO_WIN_SCALE;".
fn win_from_space(ratio: u64, space: u64) -> u64 {
    (space * ratio) >> TCP_RMEM_TO_WIN_SCALE
}

/// include/net/tcp.h `__tcp_space_from_win`: "return div_u64((u64)win << TCP_RMEM_TO_WIN_SCALE, scaling_ratio);".
fn space_from_win(ratio: u64, win: u64) -> u64 {
    (win << TCP_RMEM_TO_WIN_SCALE) / ratio.max(1)
}

/// `ALIGN(x, a)` for a power of two `a` (include/linux/align.h: `(x + a - 1) & ~(a - 1)`).
fn align_up(x: u64, a: u64) -> u64 {
    debug_assert!(a.is_power_of_two());
    (x + (a - 1)) & !(a - 1)
}

/// What the receiver tells the model about an arriving data segment.
#[derive(Copy, Clone, Debug)]
pub struct DataSeg {
    pub now: SimTime,
    /// Payload bytes of the segment.
    pub len: u32,
    /// The segment's TSecr when timestamps are in use (the receiver's own clock now,
    /// `timer::ts_now(now)`, is read only when the echo gives a sample).
    pub tsecr: Option<u32>,
    /// RCV.NXT after the segment (and what it released from the out-of-order queue).
    pub rcv_nxt: SeqNum,
    /// Out-of-order bytes queued after the segment.
    pub ooo_bytes: u64,
    /// The right edge of the out-of-order queue (`ooo_last_skb`'s end), if any.
    pub ooo_right: Option<SeqNum>,
    /// SACK is in use (out-of-order segments grow the window only then).
    pub sack: bool,
}

/// Linux's receive-window state of one connection (module docs).
#[derive(Clone, Debug)]
pub struct LinuxRcvWindow {
    /// `tcp_rmem[2]`: autotuning's ceiling (`TcpConfig::recv_buffer`).
    rmem_max: u64,
    /// `tp->advmss`: our MSS (`TcpConfig::mss`, options already excluded).
    advmss: u64,
    timestamps: bool,
    /// `sk->sk_rcvbuf`.
    sk_rcvbuf: u64,
    /// `tp->scaling_ratio` (1/256ths).
    scaling_ratio: u64,
    /// `tcp_full_space` = `__tcp_win_from_space(scaling_ratio, sk_rcvbuf)`, kept with the two
    /// (they change a few times per connection; every ACK reads it in `select_window`).
    full_space: u64,
    /// `tp->window_clamp`.
    window_clamp: u64,
    /// `tp->rcv_ssthresh`.
    rcv_ssthresh: u64,
    /// `tp->rcv_wnd` (the last window advertised).
    rcv_wnd: u64,
    /// `tp->rx_opt.rcv_wscale`.
    rcv_wscale: u8,
    /// `icsk->icsk_ack.rcv_mss`.
    rcv_mss: u32,
    /// `truesize(rcv_mss)`, kept with `rcv_mss` (what a queued segment costs; per-ACK path).
    mss_truesize: u64,
    /// `tp->rcvq_space`: bytes read in the last measured RTT, and where/when it started.
    rcvq_space: u64,
    rcvq_seq: SeqNum,
    rcvq_time: Option<SimTime>,
    /// `tp->rcv_rtt_est.rtt_us` (<< 3, as the kernel keeps it), 0 = no sample.
    rcv_rtt_us8: u64,
    /// When the next read may adjust the buffer: `rcvq_time` + `rcv_rtt_us8 >> 3` µs, kept with
    /// the two ([`LinuxRcvWindow::set_adjust_at`]) so that the per-segment read decides
    /// "not yet" without a call (`linux_today cost 7`, docs/benchmarks.md "Engine alone").
    adjust_at: SimTime,
    /// `tp->rcv_rtt_est.seq` / `.time` (the per-window measurement without timestamps).
    rcv_rtt_seq: SeqNum,
    rcv_rtt_time: Option<SimTime>,
    /// `tp->rcv_rtt_last_tsecr`.
    rcv_rtt_last_tsecr: Option<u32>,
    /// Truesize of in-order data the application has not read yet (module docs).
    unread: u64,
    /// Out-of-order bytes queued (charged per `rcv_mss` segment).
    ooo_bytes: u64,
    /// The out-of-order queue's right edge (`ooo_last_skb`'s end), if anything is queued.
    ooo_right: Option<SeqNum>,
    /// A read is due at this instant (after the ACK of that arrival), with RCV.NXT then.
    read_due: Option<(SimTime, SeqNum)>,
}

impl LinuxRcvWindow {
    /// A socket with `tcp_rmem[1]` of buffer (at most `rmem_max`) and MSS `advmss`.
    pub fn new(rmem_max: u64, advmss: u32, timestamps: bool) -> Self {
        let sk_rcvbuf = TCP_RMEM_DEFAULT.min(rmem_max.max(1));
        LinuxRcvWindow {
            rmem_max,
            advmss: u64::from(advmss.max(1)),
            timestamps,
            sk_rcvbuf,
            scaling_ratio: TCP_DEFAULT_SCALING_RATIO,
            full_space: win_from_space(TCP_DEFAULT_SCALING_RATIO, sk_rcvbuf),
            window_clamp: 0,
            rcv_ssthresh: 0,
            rcv_wnd: 0,
            rcv_wscale: 0,
            rcv_mss: TCP_MIN_RCVMSS,
            mss_truesize: truesize(TCP_MIN_RCVMSS, timestamps),
            rcvq_space: 0,
            rcvq_seq: SeqNum(0),
            rcvq_time: None,
            rcv_rtt_us8: 0,
            adjust_at: SimTime::MAX,
            rcv_rtt_seq: SeqNum(0),
            rcv_rtt_time: None,
            rcv_rtt_last_tsecr: None,
            unread: 0,
            ooo_bytes: 0,
            ooo_right: None,
            read_due: None,
        }
    }

    /// `tcp_full_space`: "return tcp_win_from_space(sk, READ_ONCE(sk->sk_rcvbuf));".
    fn full_space(&self) -> u64 {
        debug_assert_eq!(self.full_space, win_from_space(self.scaling_ratio, self.sk_rcvbuf));
        self.full_space
    }

    /// `tcp_space`: the buffer less what is queued, at the current ratio.
    fn space(&self) -> u64 {
        let ooo = if self.ooo_bytes == 0 { 0 } else { self.ooo_bytes.div_ceil(u64::from(self.rcv_mss.max(1))) * self.mss_truesize };
        let rmem = self.unread + ooo;
        win_from_space(self.scaling_ratio, self.sk_rcvbuf.saturating_sub(rmem))
    }

    /// The window a SYN or SYN-ACK offers (unscaled, RFC 7323 §2.2), before any state exists.
    pub fn syn_window(rmem_max: u64, mss: u32) -> u64 {
        let space = win_from_space(TCP_DEFAULT_SCALING_RATIO, TCP_RMEM_DEFAULT.min(rmem_max.max(1)));
        rounddown_mss(space, u64::from(mss.max(1))).min(super::MAX_UNSCALED_WINDOW)
    }

    /// The peer's SYN was accepted; `rcv_wscale` was negotiated. Returns the window offered.
    ///
    /// `tcp_select_initial_window`:
    /// ```c
    /// if (window_clamp == 0) window_clamp = (U16_MAX << TCP_MAX_WSCALE);
    /// space = min(window_clamp, space);
    /// /* Quantize space offering to a multiple of mss if possible. */
    /// if (space > mss) space = rounddown(space, mss);
    /// ...  (*rcv_wnd) = space;
    /// WRITE_ONCE(*__window_clamp, min_t(__u32, U16_MAX << (*rcv_wscale), window_clamp));
    /// ```
    /// then (`tcp_openreq_init_rwin` / `tcp_connect_init`) `rcv_ssthresh = rcv_wnd`, and at
    /// establishment `tcp_init_buffer_space`:
    /// ```c
    /// maxwin = tcp_full_space(sk);
    /// if (tp->window_clamp >= maxwin) { WRITE_ONCE(tp->window_clamp, maxwin);
    ///     if (tcp_app_win && maxwin > 4 * tp->advmss)
    ///         WRITE_ONCE(tp->window_clamp, max(maxwin - (maxwin >> tcp_app_win), 4 * tp->advmss)); }
    /// /* Force reservation of one segment. */
    /// if (tcp_app_win && tp->window_clamp > 2 * tp->advmss && tp->window_clamp + tp->advmss > maxwin)
    ///     WRITE_ONCE(tp->window_clamp, max(2 * tp->advmss, maxwin - tp->advmss));
    /// tp->rcv_ssthresh = min(tp->rcv_ssthresh, tp->window_clamp);
    /// tp->rcvq_space.space = min3(tp->rcv_ssthresh, tp->rcv_wnd, (u32)TCP_INIT_CWND * tp->advmss);
    /// ```
    /// (nothing between the SYN and the establishment changes these, so both run here).
    pub fn on_syn(&mut self, rcv_wscale: u8, rcv_nxt: SeqNum) -> u64 {
        self.rcv_wscale = rcv_wscale;
        let space = self.full_space();
        self.rcv_wnd = if space > self.advmss { rounddown_mss(space, self.advmss) } else { space };
        self.window_clamp = super::MAX_UNSCALED_WINDOW << rcv_wscale;
        self.rcv_ssthresh = self.rcv_wnd;
        // tcp_init_buffer_space.
        let maxwin = self.full_space();
        if self.window_clamp >= maxwin {
            self.window_clamp = maxwin;
            if maxwin > 4 * self.advmss {
                self.window_clamp = (maxwin - (maxwin >> TCP_APP_WIN)).max(4 * self.advmss);
            }
        }
        if self.window_clamp > 2 * self.advmss && self.window_clamp + self.advmss > maxwin {
            self.window_clamp = (2 * self.advmss).max(maxwin.saturating_sub(self.advmss));
        }
        self.rcv_ssthresh = self.rcv_ssthresh.min(self.window_clamp);
        self.rcvq_space = self.rcv_ssthresh.min(self.rcv_wnd).min(TCP_INIT_CWND * self.advmss);
        self.rcvq_seq = rcv_nxt;
        self.set_rcv_mss((self.advmss as u32).min((self.rcv_wnd / 2) as u32).min(TCP_MIN_RCVMSS).max(TCP_MIN_MSS));
        self.rcv_wnd
    }

    /// The connection's first segment after the SYN: `tcp_init_buffer_space`'s
    /// "tp->rcvq_space.time = tp->tcp_mstamp".
    pub fn on_established(&mut self, now: SimTime) {
        if self.rcvq_time.is_none() {
            self.rcvq_time = Some(now);
            self.set_adjust_at();
        }
    }

    /// The last window advertised (`tp->rcv_wnd`) and `rcv_ssthresh`, `window_clamp`,
    /// `sk_rcvbuf` (for tests and traces).
    pub fn state(&self) -> (u64, u64, u64, u64) {
        (self.rcv_wnd, self.rcv_ssthresh, self.window_clamp, self.sk_rcvbuf)
    }

    /// `tcp_set_window_clamp(sk, val)` when the clamp grows or shrinks:
    /// ```c
    /// u32 new_window_clamp = max_t(int, SOCK_MIN_RCVBUF / 2, val);
    /// if (new_window_clamp == old_window_clamp) return 0;
    /// WRITE_ONCE(tp->window_clamp, new_window_clamp);
    /// if (new_window_clamp < old_window_clamp) { __tcp_adjust_rcv_ssthresh(sk, tp->window_clamp); }
    /// else { new_rcv_ssthresh = min(tp->rcv_wnd, tp->window_clamp);
    ///        tp->rcv_ssthresh = max(new_rcv_ssthresh, tp->rcv_ssthresh); }
    /// ```
    /// (`__tcp_adjust_rcv_ssthresh` without memory pressure: rcv_ssthresh ≤ the new clamp.)
    fn set_window_clamp(&mut self, val: u64) {
        let new = val.max(MIN_WINDOW_CLAMP);
        if new == self.window_clamp {
            return;
        }
        let old = self.window_clamp;
        self.window_clamp = new;
        if new < old {
            self.rcv_ssthresh = self.rcv_ssthresh.min(new);
        } else {
            self.rcv_ssthresh = self.rcv_ssthresh.max(self.rcv_wnd.min(new));
        }
    }

    /// `tcp_measure_rcv_mss` (the part that touches the window):
    /// ```c
    /// len = skb_shinfo(skb)->gso_size ?: skb->len;
    /// if (len >= icsk->icsk_ack.rcv_mss) {
    ///     if (unlikely(len != icsk->icsk_ack.rcv_mss)) {
    ///         u64 val = (u64)skb->len << TCP_RMEM_TO_WIN_SCALE;
    ///         do_div(val, skb->truesize);
    ///         tcp_sk(sk)->scaling_ratio = val ? val : 1;
    ///         if (old_ratio != tcp_sk(sk)->scaling_ratio) {
    ///             val = tcp_win_from_space(sk, sk->sk_rcvbuf);
    ///             tcp_set_window_clamp(sk, val);
    ///             if (tp->window_clamp < tp->rcv_ssthresh) tp->rcv_ssthresh = tp->window_clamp; } }
    ///     icsk->icsk_ack.rcv_mss = min_t(unsigned int, len, tcp_sk(sk)->advmss); }
    /// ```
    ///
    /// A segment shorter than `rcv_mss`, or of exactly `rcv_mss` bytes when that is within
    /// `advmss` (the common full-sized segment), changes nothing: that test is inlined, the
    /// rest is not.
    #[inline]
    fn measure_rcv_mss(&mut self, len: u32) {
        if len < self.rcv_mss || (len == self.rcv_mss && u64::from(len) <= self.advmss) {
            return;
        }
        if len == self.rcv_mss {
            self.set_rcv_mss(len.min(self.advmss as u32));
        } else {
            self.measure_rcv_mss_larger(len);
        }
    }

    /// [`LinuxRcvWindow::measure_rcv_mss`] for a segment longer than `rcv_mss`.
    #[inline(never)]
    fn measure_rcv_mss_larger(&mut self, len: u32) {
        let old = self.scaling_ratio;
        let val = (u64::from(len) << TCP_RMEM_TO_WIN_SCALE) / truesize(len, self.timestamps);
        self.scaling_ratio = val.max(1);
        self.full_space = win_from_space(self.scaling_ratio, self.sk_rcvbuf);
        if old != self.scaling_ratio {
            self.set_window_clamp(win_from_space(self.scaling_ratio, self.sk_rcvbuf));
            self.rcv_ssthresh = self.rcv_ssthresh.min(self.window_clamp);
        }
        self.set_rcv_mss(len.min(self.advmss as u32));
    }

    fn set_rcv_mss(&mut self, mss: u32) {
        if mss != self.rcv_mss {
            self.rcv_mss = mss;
            self.mss_truesize = truesize(mss, self.timestamps);
        }
    }

    /// `truesize(len)`, from the cache for full-sized segments.
    fn seg_truesize(&self, len: u32) -> u64 {
        if len == self.rcv_mss {
            self.mss_truesize
        } else {
            truesize(len, self.timestamps)
        }
    }

    /// `tcp_rcv_rtt_update`:
    /// ```c
    /// u32 new_sample, old_sample = tp->rcv_rtt_est.rtt_us;
    /// long m = sample << 3;
    /// if (old_sample == 0 || m < old_sample) { new_sample = m; }
    /// else { if (win_dep) return;
    ///        /* Do not use this sample if receive queue is not empty. */
    ///        if (tp->rcv_nxt != tp->copied_seq) return;
    ///        new_sample = old_sample - (old_sample >> 3) + sample; }
    /// tp->rcv_rtt_est.rtt_us = new_sample;
    /// ```
    /// (the reader keeps the queue empty: the last test always passes).
    fn rcv_rtt_update(&mut self, sample_us: u64, win_dep: bool) {
        let m = sample_us << 3;
        let old = self.rcv_rtt_us8;
        if old == 0 || m < old {
            self.rcv_rtt_us8 = m;
        } else if !win_dep {
            self.rcv_rtt_us8 = old - (old >> 3) + sample_us;
        }
        self.set_adjust_at();
    }

    /// `tcp_rcv_rtt_measure` (once per window of data, without timestamps' help):
    /// ```c
    /// if (tp->rcv_rtt_est.time == 0) goto new_measure;
    /// if (before(tp->rcv_nxt, tp->rcv_rtt_est.seq)) return;
    /// delta_us = tcp_stamp_us_delta(tp->tcp_mstamp, tp->rcv_rtt_est.time);
    /// if (!delta_us) delta_us = 1;
    /// tcp_rcv_rtt_update(tp, delta_us, 1);
    /// new_measure:
    /// tp->rcv_rtt_est.seq = tp->rcv_nxt + tp->rcv_wnd;
    /// tp->rcv_rtt_est.time = tp->tcp_mstamp;
    /// ```
    fn rcv_rtt_measure(&mut self, now: SimTime, rcv_nxt: SeqNum) {
        if let Some(t) = self.rcv_rtt_time {
            if rcv_nxt.lt(self.rcv_rtt_seq) {
                return;
            }
            let us = (now.saturating_since(t).as_nanos() / 1_000).max(1);
            self.rcv_rtt_update(us, true);
        }
        self.rcv_rtt_seq = rcv_nxt + self.rcv_wnd as u32;
        self.rcv_rtt_time = Some(now);
    }

    /// `tcp_rcv_rtt_measure_ts`:
    /// ```c
    /// if (tp->rx_opt.rcv_tsecr == tp->rcv_rtt_last_tsecr) return;
    /// tp->rcv_rtt_last_tsecr = tp->rx_opt.rcv_tsecr;
    /// if (TCP_SKB_CB(skb)->end_seq - TCP_SKB_CB(skb)->seq >= inet_csk(sk)->icsk_ack.rcv_mss) {
    ///     s32 delta = tcp_rtt_tsopt_us(tp, 0);
    ///     if (delta > 0) tcp_rcv_rtt_update(tp, delta, 0); }
    /// ```
    /// (TSval ticks are the receiver's own 1 ms clock, `timer::TS_CLOCK_TICK`.)
    fn rcv_rtt_measure_ts(&mut self, seg: &DataSeg) {
        let Some(tsecr) = seg.tsecr else { return };
        if tsecr == 0 || self.rcv_rtt_last_tsecr == Some(tsecr) {
            return;
        }
        self.rcv_rtt_last_tsecr = Some(tsecr);
        if seg.len >= self.rcv_mss {
            let delta = crate::timer::ts_now(seg.now).wrapping_sub(tsecr) as i32;
            if delta > 0 {
                let us = u64::from(delta as u32) * (crate::timer::TS_CLOCK_TICK.as_nanos() / 1_000);
                self.rcv_rtt_update(us, false);
            }
        }
    }

    /// `__tcp_grow_window` ("Slow part of check#2"):
    /// ```c
    /// int truesize = tcp_win_from_space(sk, skbtruesize) >> 1;
    /// int window = tcp_win_from_space(sk, READ_ONCE(sock_net(sk)->ipv4.sysctl_tcp_rmem[2])) >> 1;
    /// while (tp->rcv_ssthresh <= window) {
    ///     if (truesize <= skb->len) return 2 * inet_csk(sk)->icsk_ack.rcv_mss;
    ///     truesize >>= 1; window >>= 1; }
    /// return 0;
    /// ```
    fn grow_window_slow(&self, len: u32, skb_truesize: u64) -> u64 {
        let mut ts = win_from_space(self.scaling_ratio, skb_truesize) >> 1;
        let mut window = win_from_space(self.scaling_ratio, self.rmem_max) >> 1;
        while self.rcv_ssthresh <= window {
            if ts <= u64::from(len) {
                return 2 * u64::from(self.rcv_mss);
            }
            ts >>= 1;
            window >>= 1;
        }
        0
    }

    /// `tcp_grow_window`; true when `rcv_ssthresh` grew (the caller grants a quick ACK):
    /// ```c
    /// room = min_t(int, tp->window_clamp, tcp_space(sk)) - tp->rcv_ssthresh;
    /// if (room <= 0) return;
    /// /* Check #1 */
    /// if (!tcp_under_memory_pressure(sk)) {
    ///     unsigned int truesize = truesize_adjust(adjust, skb);
    ///     /* Check #2. Increase window, if skb with such overhead will fit to rcvbuf in future. */
    ///     if (tcp_win_from_space(sk, truesize) <= skb->len) incr = 2 * tp->advmss;
    ///     else incr = __tcp_grow_window(sk, skb, truesize);
    ///     if (incr) { incr = max_t(int, incr, 2 * skb->len);
    ///                 tp->rcv_ssthresh += min(room, incr);
    ///                 inet_csk(sk)->icsk_ack.quick |= 1; } }
    /// ```
    /// (`truesize_adjust` changes nothing for a linear skb.)
    #[inline]
    fn grow_window(&mut self, len: u32) -> bool {
        // room <= window_clamp - rcv_ssthresh: no room, without computing tcp_space (inlined:
        // with the clamp reached, the common case, no call).
        if self.rcv_ssthresh >= self.window_clamp {
            return false;
        }
        self.grow_window_room(len)
    }

    /// [`LinuxRcvWindow::grow_window`] below the clamp.
    #[inline(never)]
    fn grow_window_room(&mut self, len: u32) -> bool {
        let room = self.window_clamp.min(self.space()) as i64 - self.rcv_ssthresh as i64;
        if room <= 0 {
            return false;
        }
        let ts = self.seg_truesize(len);
        let mut incr = if win_from_space(self.scaling_ratio, ts) <= u64::from(len) {
            2 * self.advmss
        } else {
            self.grow_window_slow(len, ts)
        };
        if incr == 0 {
            return false;
        }
        incr = incr.max(2 * u64::from(len));
        self.rcv_ssthresh += incr.min(room as u64);
        true
    }

    /// An in-order data segment was queued (`tcp_event_data_recv`'s window part, and
    /// `tcp_rcv_established`'s `tcp_rcv_rtt_measure_ts`). `released` = out-of-order bytes it
    /// moved to the receive queue. True when the receiver should grant one quick ACK
    /// (`icsk_ack.quick |= 1`). The caller completed the read an earlier arrival left due
    /// ([`LinuxRcvWindow::finish_read`]; `Receiver::on_segment_at` does so on entry).
    #[inline]
    pub fn on_in_order(&mut self, seg: &DataSeg, released: u64) -> bool {
        debug_assert!(self.read_due.is_none(), "on_in_order: a read is still due");
        self.rcv_rtt_measure_ts(seg);
        self.measure_rcv_mss(seg.len);
        self.rcv_rtt_measure(seg.now, seg.rcv_nxt);
        // The segment and what it released stay queued until the reader runs.
        let released = if released == 0 { 0 } else { released.div_ceil(u64::from(self.rcv_mss.max(1))) * self.mss_truesize };
        self.unread = self.seg_truesize(seg.len) + released;
        self.ooo_bytes = seg.ooo_bytes;
        self.ooo_right = seg.ooo_right;
        self.read_due = Some((seg.now, seg.rcv_nxt));
        seg.len >= GROW_MIN_LEN && self.grow_window(seg.len)
    }

    /// An out-of-order segment was queued (`tcp_data_queue_ofo`'s end):
    /// ```c
    /// if (skb) { /* For non sack flows, do not grow window to force DUPACK and trigger fast retransmit. */
    ///     if (tcp_is_sack(tp)) tcp_grow_window(sk, skb, false); ... }
    /// /* do not grow rcvbuf for not-yet-accepted or orphaned sockets. */
    /// if (sk->sk_socket) tcp_rcvbuf_grow(sk, tp->rcvq_space.space);
    /// ```
    pub fn on_out_of_order(&mut self, seg: &DataSeg) -> bool {
        debug_assert!(self.read_due.is_none(), "on_out_of_order: a read is still due");
        self.ooo_bytes = seg.ooo_bytes;
        self.ooo_right = seg.ooo_right;
        let grew = seg.sack && self.grow_window(seg.len);
        self.rcvbuf_grow(seg.rcv_nxt, self.rcvq_space);
        grew
    }

    /// `tcp_rcvbuf_grow(sk, newval)`:
    /// ```c
    /// oldval = tp->rcvq_space.space;
    /// tp->rcvq_space.space = newval;
    /// /* DRS is always one RTT late. */
    /// rcvwin = newval << 1;
    /// /* slow start: allow the sender to double its rate. */
    /// grow = (u64)rcvwin * (newval - oldval);
    /// do_div(grow, oldval);
    /// rcvwin += grow << 1;
    /// if (!RB_EMPTY_ROOT(&tp->out_of_order_queue))
    ///     rcvwin += TCP_SKB_CB(tp->ooo_last_skb)->end_seq - tp->rcv_nxt;
    /// cap = READ_ONCE(net->ipv4.sysctl_tcp_rmem[2]);
    /// rcvbuf = min_t(u32, tcp_space_from_win(sk, rcvwin), cap);
    /// if (rcvbuf > sk->sk_rcvbuf) { WRITE_ONCE(sk->sk_rcvbuf, rcvbuf);
    ///     /* Make the window clamp follow along.  */
    ///     WRITE_ONCE(tp->window_clamp, tcp_win_from_space(sk, rcvbuf)); }
    /// ```
    fn rcvbuf_grow(&mut self, rcv_nxt: SeqNum, newval: u64) {
        let oldval = self.rcvq_space.max(1);
        self.rcvq_space = newval;
        let mut rcvwin = newval << 1;
        let grow = rcvwin * newval.saturating_sub(oldval) / oldval;
        rcvwin += grow << 1;
        if let Some(r) = self.ooo_right {
            rcvwin += u64::from(r - rcv_nxt);
        }
        let rcvbuf = space_from_win(self.scaling_ratio, rcvwin).min(self.rmem_max);
        if rcvbuf > self.sk_rcvbuf {
            self.sk_rcvbuf = rcvbuf;
            self.full_space = win_from_space(self.scaling_ratio, rcvbuf);
            self.window_clamp = win_from_space(self.scaling_ratio, rcvbuf);
        }
    }

    /// The reader consumed what was queued (module docs): `tcp_rcv_space_adjust`:
    /// ```c
    /// if (unlikely(!tp->rcv_rtt_est.rtt_us)) return;
    /// time = tcp_stamp_us_delta(tp->tcp_mstamp, tp->rcvq_space.time);
    /// if (time < (tp->rcv_rtt_est.rtt_us >> 3)) return;
    /// /* Number of bytes copied to user in last RTT */
    /// copied = tp->copied_seq - tp->rcvq_space.seq;
    /// /* Number of bytes in receive queue. */
    /// inq = tp->rcv_nxt - tp->copied_seq;
    /// copied -= inq;
    /// if (copied <= tp->rcvq_space.space) goto new_measure;
    /// tcp_rcvbuf_grow(sk, copied);
    /// new_measure:
    /// tp->rcvq_space.seq = tp->copied_seq;
    /// tp->rcvq_space.time = tp->tcp_mstamp;
    /// ```
    /// (the reader reads everything: inq = 0 after the read.) Called several times per
    /// segment, mostly with no read due: that check is inlined, the read is not.
    /// The first three tests (no RTT sample, no start time, less than an RTT since) are
    /// one comparison with [`LinuxRcvWindow::set_adjust_at`]'s instant, inlined; the rest is
    /// not.
    #[inline]
    pub fn finish_read(&mut self) {
        if let Some((now, copied_seq)) = self.read_due.take() {
            self.unread = 0;
            if now >= self.adjust_at {
                self.read(now, copied_seq);
            }
        }
    }

    /// `adjust_at` for the current `rcvq_time` and `rcv_rtt_us8`: [`LinuxRcvWindow::finish_read`]
    /// skips the read exactly when `tcp_rcv_space_adjust` returns early — never with no RTT
    /// sample or no start time (`SimTime::MAX`); with an RTT of 0 µs never skips (`time < 0`
    /// is false: `SimTime::ZERO`); else "time < rtt_us >> 3" with time = whole µs since
    /// `rcvq_time` ⇔ now < rcvq_time + (rtt_us >> 3) µs (integers: ⌊d / 1000⌋ < r ⇔ d < 1000 r).
    fn set_adjust_at(&mut self) {
        let rtt_us = self.rcv_rtt_us8 >> 3;
        self.adjust_at = match self.rcvq_time {
            _ if self.rcv_rtt_us8 == 0 => SimTime::MAX,
            None => SimTime::MAX,
            Some(_) if rtt_us == 0 => SimTime::ZERO,
            Some(t0) => t0.saturating_add(tcplab_time::SimDuration::from_micros(rtt_us)),
        };
    }

    /// The read [`LinuxRcvWindow::finish_read`] found due at or after `adjust_at`
    /// (`tcp_rcv_space_adjust` past its early returns).
    #[inline(never)]
    fn read(&mut self, now: SimTime, copied_seq: SeqNum) {
        let copied = u64::from(copied_seq - self.rcvq_seq);
        if copied > self.rcvq_space {
            self.rcvbuf_grow(copied_seq, copied);
        }
        self.rcvq_seq = copied_seq;
        self.rcvq_time = Some(now);
        self.set_adjust_at();
    }

    /// The window for an outgoing ACK (`tcp_select_window`), `cur_win` = what the last one
    /// still offers beyond RCV.NXT (`tcp_receive_window`). The caller completes the pending
    /// read afterwards ([`LinuxRcvWindow::finish_read`]).
    ///
    /// `__tcp_select_window` (no shrink sysctl, no memory pressure):
    /// ```c
    /// int mss = icsk->icsk_ack.rcv_mss; int free_space = tcp_space(sk);
    /// int allowed_space = tcp_full_space(sk);
    /// full_space = min_t(int, tp->window_clamp, allowed_space);
    /// if (unlikely(mss > full_space)) { mss = full_space; if (mss <= 0) return 0; }
    /// if (free_space < (full_space >> 1)) { icsk->icsk_ack.quick = 0;
    ///     free_space = round_down(free_space, 1 << tp->rx_opt.rcv_wscale);
    ///     if (free_space < (allowed_space >> 4) || free_space < mss) return 0; }
    /// if (free_space > tp->rcv_ssthresh) free_space = tp->rcv_ssthresh;
    /// if (tp->rx_opt.rcv_wscale) { window = free_space;
    ///     window = ALIGN(window, (1 << tp->rx_opt.rcv_wscale)); }
    /// else { window = tp->rcv_wnd;
    ///     if (window <= free_space - mss || window > free_space) window = rounddown(free_space, mss);
    ///     else if (mss == full_space && free_space > window + (full_space >> 1)) window = free_space; }
    /// ```
    /// and `tcp_select_window`: "if (new_win < cur_win) { ... /* Never shrink the offered window */
    /// new_win = ALIGN(cur_win, 1 << tp->rx_opt.rcv_wscale); } tp->rcv_wnd = new_win;".
    #[inline]
    pub fn select_window(&mut self, cur_win: u64) -> u64 {
        let free_space0 = self.space();
        let allowed = self.full_space();
        let full_space = self.window_clamp.min(allowed);
        let mss = u64::from(self.rcv_mss).min(full_space);
        let unit = 1u64 << self.rcv_wscale;
        let mut new_win = 'sel: {
            if mss == 0 {
                break 'sel 0;
            }
            let mut free_space = free_space0;
            if free_space < full_space >> 1 {
                // round_down(free_space, 1 << rcv_wscale)
                free_space &= !(unit - 1);
                if free_space < allowed >> 4 || free_space < mss {
                    break 'sel 0;
                }
            }
            free_space = free_space.min(self.rcv_ssthresh);
            if self.rcv_wscale > 0 {
                align_up(free_space, unit)
            } else {
                let window = self.rcv_wnd;
                if window + mss <= free_space || window > free_space {
                    rounddown_mss(free_space, mss)
                } else if mss == full_space && free_space > window + (full_space >> 1) {
                    free_space
                } else {
                    window
                }
            }
        };
        if new_win < cur_win {
            new_win = align_up(cur_win, unit);
        }
        self.rcv_wnd = new_win;
        new_win
    }
}

/// `rounddown(space, mss)`.
fn rounddown_mss(space: u64, mss: u64) -> u64 {
    space / mss * mss
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1448;
    /// This machine's `tcp_rmem[2]` (32 MiB, wscale 10).
    const RMEM_MAX: u64 = 33_554_432;

    fn seg(now_ms: u64, rcv_nxt: u32) -> DataSeg {
        DataSeg {
            now: SimTime::from_nanos(now_ms * 1_000_000),
            len: MSS,
            tsecr: None,
            rcv_nxt: SeqNum(rcv_nxt),
            ooo_bytes: 0,
            ooo_right: None,
            sack: true,
        }
    }

    // The truesize model: a 1514-byte frame lives in a 2048-byte kmalloc head: 2304.
    #[test]
    fn a_full_sized_frame_is_charged_2304_bytes() {
        assert_eq!(truesize(1448, true), 2304);
        assert_eq!(truesize(1460, false), 2304);
        // A 100-byte segment: 16 + 66 + 100 = 182 -> 192 + 320 = 512 -> 512 - 320 + 576 = 768.
        assert_eq!(truesize(100, true), 768);
    }

    // tcp_select_initial_window on tcp_rmem[1] = 128 KiB at the default ratio: 64 KiB rounded
    // down to the MSS, 65 160 (the real SYN-ACK's window); tcp_init_buffer_space reserves one
    // segment: window_clamp 65 536 - 1448, rcv_ssthresh the same; rcvq_space 10 * MSS.
    #[test]
    fn the_first_offer_is_64k_rounded_down_to_the_mss() {
        assert_eq!(LinuxRcvWindow::syn_window(RMEM_MAX, MSS), 65_160);
        let mut w = LinuxRcvWindow::new(RMEM_MAX, MSS, true);
        assert_eq!(w.on_syn(10, SeqNum(1)), 65_160);
        assert_eq!(w.state(), (65_160, 64_088, 64_088, 131_072));
        assert_eq!(w.rcvq_space, 14_480);
        assert_eq!(w.rcv_mss, TCP_MIN_RCVMSS);
    }

    // The real receiver (`tail-loss` capture, wscale 10): 65 160 in the SYN-ACK, then ACKs
    // advertising 67, 70, 73, 75, 78, 79, 79 units of 1024. The first segment measures the
    // ratio (1448 * 256 / 2304 = 160), the clamp becomes 81 920 and rcv_ssthresh 65 160; each
    // segment adds 2 * 1448 until the free space with one segment queued, (131 072 - 2304) *
    // 160 / 256 = 80 480, stops it.
    #[test]
    fn the_window_grows_by_two_segments_per_segment_up_to_the_free_space() {
        let mut w = LinuxRcvWindow::new(RMEM_MAX, MSS, true);
        w.on_syn(10, SeqNum(1));
        w.on_established(SimTime::ZERO);
        let mut adv = vec![];
        let mut right = 1 + 65_160;
        for k in 1..=7u32 {
            let rcv_nxt = 1 + k * MSS;
            let grew = w.on_in_order(&seg(u64::from(k), rcv_nxt), 0);
            assert_eq!(grew, k <= 6, "segment {k}");
            let win = w.select_window(u64::from(right - rcv_nxt));
            w.finish_read();
            right = rcv_nxt + win as u32;
            adv.push(win >> 10);
        }
        assert_eq!(adv, vec![67, 70, 73, 75, 78, 79, 79]);
        assert_eq!(w.state().1, 80_480);
        assert_eq!(w.state().2, 81_920);
    }

    // tcp_rcv_space_adjust: nothing before the first RTT sample; then once per RTT, when more
    // was read than in the last RTT, the buffer becomes the space of twice that
    // (tcp_rcvbuf_grow), at most tcp_rmem[2], and the clamp follows.
    #[test]
    fn the_buffer_follows_twice_what_was_read_per_rtt() {
        let mut w = LinuxRcvWindow::new(RMEM_MAX, MSS, true);
        w.on_syn(10, SeqNum(0));
        w.on_established(SimTime::ZERO);
        // Timestamps: a TSecr 20 ticks before the receiver's clock now: a 20 ms sample.
        let first = DataSeg { tsecr: Some(crate::timer::ts_now(SimTime::ZERO).wrapping_sub(20)), ..seg(0, MSS) };
        w.on_in_order(&first, 0);
        w.finish_read();
        assert_eq!(w.rcv_rtt_us8 >> 3, 20_000);
        // 39 more segments read over the next 19.5 ms, more than rcvq_space (14 480).
        let mut rcv_nxt = MSS;
        for k in 1..=39u64 {
            rcv_nxt += MSS;
            w.on_in_order(&seg(k / 2, rcv_nxt), 0);
            w.finish_read();
        }
        assert_eq!(w.state().3, 131_072, "19.5 ms: less than one RTT");
        rcv_nxt += MSS;
        w.on_in_order(&seg(20, rcv_nxt), 0);
        w.finish_read();
        // copied = 41 segments = 59 368 at 20 ms (one RTT), was 14 480: rcvwin = 2 * 59 368
        // + 2 * (2 * 59 368 * (59 368 - 14 480) / 14 480) = 854 898; rcvbuf = its space at ratio
        // 160/256 (1 367 836), the clamp that buffer's window.
        assert_eq!(w.rcvq_space, 59_368);
        let rcvwin = 2 * 59_368 + 2 * (2 * 59_368 * (59_368 - 14_480) / 14_480);
        assert_eq!(rcvwin, 854_898);
        assert_eq!(rcvwin * 256 / 160, 1_367_836);
        assert_eq!(w.state().3, rcvwin * 256 / 160);
        assert_eq!(w.state().2, (rcvwin * 256 / 160) * 160 / 256);
        // At most tcp_rmem[2].
        let mut small = LinuxRcvWindow::new(150_000, MSS, true);
        small.on_syn(2, SeqNum(0));
        small.rcvbuf_grow(SeqNum(0), 1_000_000);
        assert_eq!(small.state().3, 150_000);
    }

    // tcp_select_window never shrinks the offer: with the queue full of out-of-order data the
    // free space falls, yet the right edge stays where it was (rounded up to the scale unit).
    #[test]
    fn the_offered_window_never_shrinks() {
        let mut w = LinuxRcvWindow::new(RMEM_MAX, MSS, true);
        w.on_syn(7, SeqNum(0));
        let grew = w.on_out_of_order(&DataSeg { ooo_bytes: 40 * u64::from(MSS), ooo_right: Some(SeqNum(41 * MSS)), ..seg(1, 0) });
        assert!(!grew, "no room: 40 queued segments fill the 128 KiB buffer");
        assert_eq!(w.select_window(60_000), align_up(60_000, 128));
        // Without window scaling: rounddown(free space, mss) unless within one mss of it.
        let mut u = LinuxRcvWindow::new(RMEM_MAX, MSS, true);
        u.on_syn(0, SeqNum(0));
        assert_eq!(u.select_window(0), 64_088 / 536 * 536);
    }
}
