//! Random Early Detection (Floyd & Jacobson, "Random Early Detection Gateways for Congestion
//! Avoidance", IEEE/ACM ToN 1(4), 1993; recommended by RFC 7567 §4.2 as an AQM), with ECN
//! marking (RFC 3168 §5, §7) and Floyd's "gentle" variant.
//!
//! RED decides, for each arriving packet, from the *average* queue size; the physical limit
//! (the link's [`super::queue::DropTail`]) still applies after it: a packet RED accepts or
//! marks is dropped if the buffer is full (`DropReason::QueueFull`).
//!
//! The paper's pseudo-code (Fig. 2, "Detailed algorithm for RED gateways"):
//!
//! ```text
//! Initialization:
//!     avg <- 0
//!     count <- -1
//! for each packet arrival
//!     calculate the new average queue size avg:
//!         if the queue is nonempty
//!             avg <- (1 - w_q) avg + w_q q
//!         else
//!             m <- f(time - q_time)
//!             avg <- (1 - w_q)^m avg
//!     if min_th <= avg < max_th
//!         increment count
//!         calculate probability p_a:
//!             p_b <- max_p (avg - min_th)/(max_th - min_th)
//!             p_a <- p_b/(1 - count · p_b)
//!         with probability p_a:
//!             mark the arriving packet
//!             count <- 0
//!     else if max_th <= avg
//!         mark the arriving packet
//!         count <- 0
//!     else count <- -1
//! when queue becomes empty
//!     q_time <- time
//! ```
//!
//! and §4: "m <- f(time - q_time) ... the gateway computes the number of packets m that might
//! have been transmitted by the gateway during the idle period ... m is (time - q_time)/s"
//! where s is "a typical transmission time for a small packet"; in byte mode (§4) "p_b <- p_b
//! · PacketSize/MaximumPacketSize", so large packets are more likely to be marked.
//!
//! "Mark" means: set CE on an ECN-capable (ECT) packet when ECN marking is on (RFC 3168 §5:
//! "the router sets the CE codepoint ... instead of dropping the packet"), drop it otherwise.
//!
//! Ambiguities settled (each switchable where it matters):
//! - **q and "the queue is nonempty".** `q` is what waits in the buffer when the packet
//!   arrives (packets, or bytes in byte mode), the packet on the wire excluded (as the
//!   drop-tail queue counts). The queue is "empty" (the idle-time branch) only when the
//!   transmitter is idle too, and `q_time` is the time the transmitter became idle (the end
//!   of the last transmission) — what ns-2's `REDQueue` does (its `idle_` is set when the
//!   link asks for a packet and finds none). While a packet is on the wire and none waits,
//!   the EWMA branch runs with `q = 0`.
//! - **m is real-valued**, `(time - q_time) / s` as the paper writes it (ns-2 truncates to an
//!   integer); `s` is the serialisation time of [`RedParams::small_packet`] bytes at the link
//!   rate (default 500 B, ns-2's and ns-3's `mean_pktsize`).
//! - **Above max_th** the paper "marks"; with ECN, marking there would let ECT traffic fill the
//!   buffer, so [`RedParams::hard_drop`] (default on, ns-3's `UseHardDrop`, ns-2's forced
//!   drop) drops every packet in the forced region; off, ECT packets are marked there too.
//! - **Gentle** (S. Floyd, "Recommendation on using the gentle_ variant of RED", 2000): between
//!   max_th and 2·max_th, "the packet-dropping probability varies from max_p to 1",
//!   `p_b = max_p + (1 - max_p)(avg - max_th)/max_th`, with the same count spacing; the forced
//!   region starts at 2·max_th.
//! - **count spacing** when `count · p_b >= 1`: p_a = 1 (the formula's pole; ns-2 does the same).
//! - **Order**: RED runs on every arriving packet, before the physical limit; a packet RED
//!   marks that then finds the buffer full is dropped and counted as a queue-full drop (and
//!   not as a mark).

use super::seed::{derive, splitmix64, unit_f64};
use crate::spec::{RedMode, RedSpec};
use rand::RngCore;
use rand_pcg::Pcg64Mcg;
use tcplab_time::{Bandwidth, SimDuration, SimTime};

/// Domain separator of the RED random streams (one per link direction).
pub const DOMAIN_RED: u64 = 0x0072_6564; // "red"

/// The parameters of one RED queue (the paper's names).
pub type RedParams = RedSpec;

/// Default min_th in packets: ns-2's `thresh_` (F&J §11 suggest min_th of at least 5).
pub const DEFAULT_MIN_TH: f64 = 5.0;
/// Default max_th in packets: ns-2's `maxthresh_` (F&J §11: at least twice min_th).
pub const DEFAULT_MAX_TH: f64 = 15.0;
/// Default max_p: 1/`linterm_` with ns-2's `linterm_ = 10`.
pub const DEFAULT_MAX_P: f64 = 0.1;
/// Default w_q: F&J §11 ("w_q >= 0.001 ... we use w_q = 0.002") and ns-2's `q_weight_`.
pub const DEFAULT_W_Q: f64 = 0.002;
/// Default "small packet" of the idle decay, bytes: ns-2's and ns-3's `mean_pktsize` (500).
pub const DEFAULT_SMALL_PACKET: u32 = 500;
/// Default MaximumPacketSize of byte mode: the 1500-byte Ethernet MTU (004 §IV-A: "The Maximum
/// Transmit Unit for each of the links is 1500 bytes").
pub const DEFAULT_MAX_PACKET: u32 = 1500;

impl Default for RedSpec {
    /// Packet mode, ECN marking on, hard drop above max_th, not gentle (ns-2's defaults, with
    /// ECN marking as RFC 3168 §7 recommends for an AQM).
    fn default() -> Self {
        RedSpec {
            min_th: DEFAULT_MIN_TH,
            max_th: DEFAULT_MAX_TH,
            max_p: DEFAULT_MAX_P,
            w_q: DEFAULT_W_Q,
            gentle: false,
            mode: RedMode::Packets,
            ecn: true,
            hard_drop: true,
            small_packet: DEFAULT_SMALL_PACKET,
            max_packet: DEFAULT_MAX_PACKET,
        }
    }
}

/// What RED does with an arriving packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RedVerdict {
    /// Enqueue unchanged.
    Pass,
    /// Enqueue with the CE codepoint set (the packet was ECN-capable).
    Mark,
    /// Drop: an early (probabilistic) drop, or `forced` in the region above max_th (2·max_th
    /// gentle).
    Drop { forced: bool },
}

/// RED's counters of one link direction.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RedStats {
    /// Packets RED marked CE (and that were then enqueued).
    pub marks: u64,
    /// Probabilistic drops (between min_th and max_th, or 2·max_th gentle).
    pub early_drops: u64,
    /// Drops in the forced region.
    pub forced_drops: u64,
    /// Packets offered to RED, and the sum of the instantaneous queue each of them found (in
    /// the mode's unit): their ratio is the mean queue seen by arriving packets.
    pub arrivals: u64,
    pub queue_sum: u64,
}

/// A packet offered to RED.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RedArrival {
    pub now: SimTime,
    /// The instantaneous queue in the mode's unit (packets or bytes waiting).
    pub q: u64,
    /// `Some(t)`: the transmitter has been idle since `t` (and nothing waits).
    pub idle_since: Option<SimTime>,
    /// Wire length in bytes.
    pub len: u32,
    /// The packet carries ECT(0) or ECT(1).
    pub ect: bool,
}

/// The state of one RED queue.
#[derive(Clone, Debug)]
pub struct Red {
    pub params: RedParams,
    /// The average queue size (mode's unit).
    pub avg: f64,
    /// Packets since the last mark (-1: avg below min_th).
    pub count: i64,
    /// s: transmission time of a small packet.
    small_tx: SimDuration,
    rng: Pcg64Mcg,
    pub stats: RedStats,
}

impl Red {
    /// RED for link `link`, direction `dir`, at rate `bw`.
    pub fn new(params: RedParams, bw: Bandwidth, seed: u64, link: usize, dir: usize) -> Red {
        let hi = derive(seed, DOMAIN_RED, link as u64, dir as u64);
        Red {
            small_tx: bw.tx_time(u64::from(params.small_packet.max(1))),
            params,
            avg: 0.0,
            count: -1,
            rng: Pcg64Mcg::new((u128::from(hi) << 64) | u128::from(splitmix64(hi))),
            stats: RedStats::default(),
        }
    }

    /// Whether the queue counts bytes.
    #[inline]
    pub fn bytes_mode(&self) -> bool {
        self.params.mode == RedMode::Bytes
    }

    /// "calculate the new average queue size avg".
    pub fn update_avg(&mut self, a: &RedArrival) {
        let w_q = self.params.w_q;
        match a.idle_since {
            None => {
                // "if the queue is nonempty: avg <- (1 - w_q) avg + w_q q"
                self.avg = (1.0 - w_q) * self.avg + w_q * a.q as f64;
            }
            Some(q_time) => {
                // "else m <- f(time - q_time); avg <- (1 - w_q)^m avg", m = (time - q_time)/s.
                let idle = a.now.saturating_since(q_time).as_nanos() as f64;
                let m = idle / (self.small_tx.as_nanos().max(1) as f64);
                self.avg *= (1.0 - w_q).powf(m);
            }
        }
    }

    /// The marking probability p_b for the current `avg` (before count spacing), `None` in the
    /// forced region, `Some(0)` below min_th.
    pub fn p_b(&self, len: u32) -> Option<f64> {
        let RedParams { min_th, max_th, max_p, gentle, .. } = self.params;
        let avg = self.avg;
        let p = if avg < min_th {
            0.0
        } else if avg < max_th {
            // "p_b <- max_p (avg - min_th)/(max_th - min_th)"
            max_p * (avg - min_th) / (max_th - min_th)
        } else if gentle && avg < 2.0 * max_th {
            // Gentle: from max_p at max_th to 1 at 2·max_th.
            max_p + (1.0 - max_p) * (avg - max_th) / max_th
        } else {
            return None;
        };
        Some(if self.bytes_mode() {
            // §4: "p_b <- p_b · PacketSize/MaximumPacketSize".
            p * f64::from(len) / f64::from(self.params.max_packet.max(1))
        } else {
            p
        })
    }

    /// The paper's per-arrival procedure; updates the counters.
    pub fn on_arrival(&mut self, a: &RedArrival) -> RedVerdict {
        self.stats.arrivals += 1;
        self.stats.queue_sum += a.q;
        self.update_avg(a);
        let verdict = match self.p_b(a.len) {
            Some(p_b) if self.avg >= self.params.min_th => {
                // "increment count; p_a <- p_b/(1 - count · p_b); with probability p_a: mark,
                // count <- 0"
                self.count += 1;
                let c = self.count as f64;
                let p_a = if c * p_b >= 1.0 { 1.0 } else { p_b / (1.0 - c * p_b) };
                if unit_f64(self.rng.next_u64()) < p_a {
                    self.count = 0;
                    self.mark(a.ect, false)
                } else {
                    RedVerdict::Pass
                }
            }
            Some(_) => {
                // "else count <- -1"
                self.count = -1;
                RedVerdict::Pass
            }
            None => {
                // "else if max_th <= avg: mark the arriving packet; count <- 0"
                self.count = 0;
                self.mark(a.ect && !self.params.hard_drop, true)
            }
        };
        match verdict {
            RedVerdict::Drop { forced: true } => self.stats.forced_drops += 1,
            RedVerdict::Drop { forced: false } => self.stats.early_drops += 1,
            _ => {}
        }
        verdict
    }

    /// "mark the arriving packet": CE if it is ECN-capable and marking is on, else drop.
    #[inline]
    fn mark(&self, ect: bool, forced: bool) -> RedVerdict {
        if ect && self.params.ecn {
            RedVerdict::Mark
        } else {
            RedVerdict::Drop { forced }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> RedParams {
        RedSpec::default()
    }

    fn red(p: RedParams) -> Red {
        Red::new(p, Bandwidth::mbps(10), 1, 0, 0)
    }

    fn busy(q: u64) -> RedArrival {
        RedArrival { now: SimTime(0), q, idle_since: None, len: 1500, ect: false }
    }

    #[test]
    fn the_average_is_an_ewma_of_the_queue_while_it_is_busy() {
        // "avg <- (1 - w_q) avg + w_q q"
        let mut r = red(params());
        r.update_avg(&busy(10));
        assert!((r.avg - 0.02).abs() < 1e-12);
        r.update_avg(&busy(10));
        assert!((r.avg - (0.998 * 0.02 + 0.02)).abs() < 1e-12);
    }

    #[test]
    fn an_idle_period_decays_the_average_as_if_m_small_packets_had_left() {
        // "m <- f(time - q_time); avg <- (1 - w_q)^m avg", m = idle / s; s = 500 B at 10 Mb/s
        // = 400 µs, so 4 ms idle is m = 10.
        let mut r = red(params());
        r.avg = 8.0;
        let a = RedArrival { now: SimTime(5_000_000), q: 0, idle_since: Some(SimTime(1_000_000)), len: 1500, ect: false };
        r.update_avg(&a);
        assert!((r.avg - 8.0 * 0.998f64.powi(10)).abs() < 1e-9, "{}", r.avg);
    }

    #[test]
    fn p_b_rises_linearly_from_min_th_to_max_p_at_max_th() {
        // "p_b <- max_p (avg - min_th)/(max_th - min_th)"
        let mut r = red(params());
        for (avg, p) in [(4.9, Some(0.0)), (5.0, Some(0.0)), (10.0, Some(0.05)), (14.999, Some(0.1 * 9.999 / 10.0))] {
            r.avg = avg;
            let got = r.p_b(1500).unwrap();
            assert!((got - p.unwrap()).abs() < 1e-12, "avg {avg}: {got}");
        }
        r.avg = 15.0;
        assert_eq!(r.p_b(1500), None, "max_th <= avg: forced");
    }

    #[test]
    fn gentle_mode_ramps_from_max_p_to_one_between_max_th_and_twice_max_th() {
        let mut r = red(RedSpec { gentle: true, ..params() });
        r.avg = 15.0;
        assert!((r.p_b(1500).unwrap() - 0.1).abs() < 1e-12);
        r.avg = 22.5;
        assert!((r.p_b(1500).unwrap() - 0.55).abs() < 1e-12);
        r.avg = 30.0;
        assert_eq!(r.p_b(1500), None);
    }

    #[test]
    fn byte_mode_scales_p_b_by_packet_size_over_maximum_packet_size() {
        // §4: "p_b <- p_b · PacketSize/MaximumPacketSize"
        let mut r = red(RedSpec { mode: RedMode::Bytes, min_th: 5000.0, max_th: 15000.0, ..params() });
        r.avg = 10_000.0;
        assert!((r.p_b(1500).unwrap() - 0.05).abs() < 1e-12);
        assert!((r.p_b(150).unwrap() - 0.005).abs() < 1e-12);
    }

    #[test]
    fn count_spaces_marks_so_that_p_a_reaches_one_after_1_over_p_b_packets() {
        // "p_a <- p_b/(1 - count · p_b)": with p_b = 0.05 (avg = 10 held fixed by w_q = 0),
        // the 20th packet after a mark is marked for certain, so gaps never exceed 20.
        let mut r = red(RedSpec { w_q: 0.0, ..params() });
        r.avg = 10.0;
        let mut gap = 0;
        let mut marks = 0;
        for _ in 0..10_000 {
            gap += 1;
            let v = r.on_arrival(&RedArrival { ect: true, ..busy(10) });
            if v == RedVerdict::Mark {
                assert!(gap <= 20, "gap {gap}");
                assert_eq!(r.count, 0);
                gap = 0;
                marks += 1;
            }
        }
        // The spacing makes marks nearly periodic: the mean gap is about 1/(2 p_b) + 1/2 ≈ 10.5
        // (F&J §7), far from the geometric 1/p_b = 20 of uniform marking.
        let mean_gap = 10_000.0 / f64::from(marks);
        assert!((9.0..12.0).contains(&mean_gap), "mean gap {mean_gap}");
        assert_eq!(r.stats.marks, 0, "the link counts marks, not RED (see LinkDirState::admit)");
    }

    #[test]
    fn below_min_th_nothing_happens_and_count_is_reset() {
        // "else count <- -1"
        let mut r = red(params());
        r.count = 7;
        assert_eq!(r.on_arrival(&busy(3)), RedVerdict::Pass);
        assert_eq!(r.count, -1);
    }

    #[test]
    fn above_max_th_ect_packets_are_dropped_with_hard_drop_and_marked_without() {
        // "else if max_th <= avg: mark the arriving packet; count <- 0"
        let mut r = red(RedSpec { w_q: 0.0, ..params() });
        r.avg = 20.0;
        let ect = RedArrival { ect: true, ..busy(20) };
        assert_eq!(r.on_arrival(&ect), RedVerdict::Drop { forced: true });
        assert_eq!(r.count, 0);
        let mut soft = red(RedSpec { w_q: 0.0, hard_drop: false, ..params() });
        soft.avg = 20.0;
        assert_eq!(soft.on_arrival(&ect), RedVerdict::Mark);
        assert_eq!(soft.on_arrival(&busy(20)), RedVerdict::Drop { forced: true }, "not ECT");
        assert_eq!(r.stats.forced_drops, 1);
    }

    #[test]
    fn without_ecn_marking_an_ect_packet_is_dropped_early() {
        let mut r = red(RedSpec { w_q: 0.0, ecn: false, ..params() });
        r.avg = 14.9;
        r.count = 100; // p_a = 1
        assert_eq!(r.on_arrival(&RedArrival { ect: true, ..busy(14) }), RedVerdict::Drop { forced: false });
        assert_eq!(r.stats.early_drops, 1);
    }
}
