//! Web traffic in the style of ns-2's PagePool/WebTraf (002 §6.4, L3845–3852: "an average of
//! 30 web pages per session, an inter-page parameter of 0.8, an average page size of 10
//! objects, an average object size of 400 packets and a ParetoII shape parameter of 1.002. We
//! use HTTP/1.0-like transactions, with one web object per TCP connection").
//!
//! The model (ns-2 `tcl/webcache/webtraf.tcl`, `webtraf.cc`):
//! - `sessions` sessions start at `start`. Each picks its **client** uniformly from
//!   `receivers` and requests `pages_per_session` pages.
//! - Pages are **open loop**, as in WebTraf: page k+1 is launched an exponential time of mean
//!   `inter_page` after page k was *launched*, whether or not page k's objects have arrived.
//!   A session's first page comes one inter-page time after `start` (this staggers the
//!   sessions).
//! - Each page picks its **server** uniformly from `senders` and has `objects_per_page`
//!   objects; the first is requested when the page is launched, each next one an exponential
//!   time of mean `inter_object` after the previous one.
//! - Each object is **one TCP connection** from the server to the client carrying the
//!   object (the HTTP request itself is not modelled: it would be a one-segment transfer the
//!   other way), of `⌈X⌉` packets of `tcp.mss` bytes, X Pareto-II (Lomax) as ns-2's
//!   `RandomVariable/ParetoII`: scale = mean·(shape − 1), X = scale·((1 − U)^(−1/shape) − 1),
//!   U uniform on [0, 1); at least one packet, at most `object_max_packets` if given.
//!
//! Draws: every session has its own random stream (run seed, the workload's index and the
//! session's index, domain [`DOMAIN_WEB`]), so that adding sessions leaves the others' traffic
//! unchanged. Per session, in time order: the client (when it starts); per page, the
//! inter-page time to it, then its server; per object, its size and then the inter-object time
//! to the next.
//!
//! The source is lazy like the Poisson one: it keeps a heap of each session's next event (a
//! page launch or an object) ordered by (time, insertion order), so it holds O(sessions) state
//! whatever the number of connections, and hands out objects in time order.
//!
//! Ambiguities settled (002 names the ns-2 parameters but not their distributions):
//! - "an average of 30 web pages per session" and "an average page size of 10 objects": the
//!   count of pages is ns-2 `create-session`'s integer argument and the page size a
//!   `RandomVariable/Constant` in ns-2's WebTraf examples, so both are fixed counts here;
//! - "an inter-page parameter of 0.8": the mean, in seconds, of the exponential inter-page time
//!   (`RandomVariable/Exponential avg_`);
//! - the inter-object time is not given; ns-2's examples use an exponential of mean 10 ms,
//!   the default of `inter_object`;
//! - a Pareto-II object with mean 400 packets and shape 1.002 is most often one packet (median
//!   scale·(2^(1/shape) − 1) ≈ 0.8 packets) with a very heavy tail; a run's sample mean is
//!   far below 400 packets unless a huge object happens to be drawn.

use super::{at, Arrival, TrafficSource};
use crate::sim::seed::{derive, splitmix64, unit_f64};
use crate::spec::{NodeId, WebSpec};
use rand::RngCore;
use rand_pcg::Pcg64Mcg;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::sync::Arc;
use tcplab_tcp::TcpConfig;
use tcplab_time::{SimDuration, SimTime};

/// 002 §6.4: "an average of 30 web pages per session".
pub const WEB_PAGES_PER_SESSION: u32 = 30;
/// 002 §6.4: "an inter-page parameter of 0.8" (seconds, the exponential mean).
pub const WEB_INTER_PAGE: SimDuration = SimDuration::from_millis(800);
/// 002 §6.4: "an average page size of 10 objects".
pub const WEB_OBJECTS_PER_PAGE: u32 = 10;
/// Not given by 002; ns-2's WebTraf examples (`tcl/ex/web-traffic.tcl`): `interObj avg_ 0.01`.
pub const WEB_INTER_OBJECT: SimDuration = SimDuration::from_millis(10);
/// 002 §6.4: "an average object size of 400 packets".
pub const WEB_OBJECT_MEAN_PACKETS: f64 = 400.0;
/// 002 §6.4: "a ParetoII shape parameter of 1.002".
pub const WEB_OBJECT_SHAPE: f64 = 1.002;

/// Domain separator of the web sessions' streams (each session has its own).
pub const DOMAIN_WEB: u64 = 0x7765_6273; // "webs"

/// What a session does next.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Step {
    /// Launch a page (pick its server, request its first object).
    Page,
    /// Request an object of the page served by `server`; `left` objects of the page remain,
    /// this one included.
    Object { server: NodeId, left: u32 },
}

/// One pending event of a session.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Pending {
    at: SimTime,
    /// Insertion order: ties in time go first in, first out.
    seq: u64,
    session: u32,
    step: Step,
}

impl Ord for Pending {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.at, self.seq).cmp(&(other.at, other.seq))
    }
}
impl PartialOrd for Pending {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A session's state.
#[derive(Debug)]
struct Session {
    rng: Pcg64Mcg,
    client: NodeId,
    /// Pages not launched yet.
    pages_left: u32,
}

/// The state of one web workload.
#[derive(Debug)]
pub struct Web {
    spec: WebSpec,
    /// `spec.tcp`, shared by every arrival.
    tcp: Arc<TcpConfig>,
    sessions: Vec<Session>,
    heap: BinaryHeap<Reverse<Pending>>,
    seq: u64,
    /// No object after this.
    stop: SimTime,
}

impl Web {
    /// Workload number `index` of a run with `seed`, ending at `end` unless the spec stops
    /// earlier.
    pub fn new(spec: WebSpec, seed: u64, index: usize, end: SimDuration) -> Web {
        let stop = at(spec.stop.map_or(end, |s| s.min(end)));
        let tcp = Arc::new(spec.tcp.clone());
        let mut web = Web { sessions: Vec::with_capacity(spec.sessions as usize), heap: BinaryHeap::new(), seq: 0, stop, spec, tcp };
        for s in 0..web.spec.sessions {
            let hi = derive(seed, DOMAIN_WEB, index as u64, u64::from(s));
            let mut rng = Pcg64Mcg::new((u128::from(hi) << 64) | u128::from(splitmix64(hi)));
            let client = pick(&mut rng, &web.spec.receivers);
            web.sessions.push(Session { rng, client, pages_left: web.spec.pages_per_session });
            if web.spec.pages_per_session > 0 {
                let first = at(web.spec.start) + exponential(&mut web.sessions[s as usize].rng, web.spec.inter_page);
                web.push(first, s, Step::Page);
            }
        }
        web
    }

    fn push(&mut self, t: SimTime, session: u32, step: Step) {
        self.heap.push(Reverse(Pending { at: t, seq: self.seq, session, step }));
        self.seq += 1;
    }

    /// Replaces the heap's top (the event just handled, of `session`) by the session's next
    /// events `next`, in the order they were drawn (which gives their insertion order). The
    /// first takes the top's place (one sift-down instead of a pop and a push: the heap's pop
    /// order depends only on the (time, insertion order) keys, which are unique).
    fn replace_top(&mut self, session: u32, next: [Option<(SimTime, Step)>; 2]) {
        let mut next = next.into_iter().flatten();
        match next.next() {
            Some((at, step)) => {
                let top = Reverse(Pending { at, seq: self.seq, session, step });
                self.seq += 1;
                if let Some(mut t) = self.heap.peek_mut() {
                    *t = top;
                }
            }
            None => {
                self.heap.pop();
            }
        }
        for (at, step) in next {
            self.push(at, session, step);
        }
    }

    /// An object's size in bytes (module docs: Pareto-II packets of `tcp.mss` bytes).
    fn object_bytes(&mut self, session: u32) -> u64 {
        let s = &self.spec;
        let scale = s.object_mean_packets * (s.object_shape - 1.0);
        let u = unit_f64(self.sessions[session as usize].rng.next_u64());
        let x = scale * ((1.0 - u).powf(-1.0 / s.object_shape) - 1.0);
        // `as` saturates: an astronomically large draw is u64::MAX packets before the cap.
        let mut packets = (x.ceil() as u64).max(1);
        if let Some(m) = s.object_max_packets {
            packets = packets.min(m);
        }
        packets.saturating_mul(u64::from(s.tcp.mss))
    }
}

/// An exponential draw of mean `mean` (rounded down to the nanosecond).
fn exponential(rng: &mut Pcg64Mcg, mean: SimDuration) -> SimDuration {
    let u = unit_f64(rng.next_u64());
    SimDuration((-(mean.as_nanos() as f64) * (1.0 - u).ln()) as u64)
}

fn pick(rng: &mut Pcg64Mcg, from: &[NodeId]) -> NodeId {
    from[(rng.next_u64() % from.len() as u64) as usize]
}

impl TrafficSource for Web {
    fn next_arrival(&mut self) -> Option<Arrival> {
        loop {
            let Reverse(p) = *self.heap.peek()?;
            if p.at > self.stop {
                // Everything left is later still.
                self.heap.clear();
                return None;
            }
            // The session's next page launch and next object, in draw order (`replace_top`).
            let mut next = [None, None];
            let (server, left) = match p.step {
                Step::Page => {
                    let sess = &mut self.sessions[p.session as usize];
                    sess.pages_left -= 1;
                    let server = pick(&mut sess.rng, &self.spec.senders);
                    if sess.pages_left > 0 {
                        next[0] = Some((p.at + exponential(&mut sess.rng, self.spec.inter_page), Step::Page));
                    }
                    if self.spec.objects_per_page == 0 {
                        self.replace_top(p.session, next);
                        continue;
                    }
                    (server, self.spec.objects_per_page)
                }
                Step::Object { server, left } => (server, left),
            };
            let size = self.object_bytes(p.session);
            if left > 1 {
                let t = p.at + exponential(&mut self.sessions[p.session as usize].rng, self.spec.inter_object);
                next[1] = Some((t, Step::Object { server, left: left - 1 }));
            }
            self.replace_top(p.session, next);
            let client = self.sessions[p.session as usize].client;
            return Some(Arrival { at: p.at, src: server, dst: client, size: Some(size), tcp: Arc::clone(&self.tcp) });
        }
    }

    fn pairs(&self) -> Vec<(NodeId, NodeId)> {
        let s = &self.spec;
        s.senders.iter().flat_map(|&a| s.receivers.iter().map(move |&b| (a, b))).collect()
    }

    fn name(&self) -> String {
        format!("workload {:?}", self.spec.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_tcp::TcpConfig;

    fn spec() -> WebSpec {
        WebSpec {
            name: "web".into(),
            senders: vec![0, 1, 2],
            receivers: vec![5, 6],
            sessions: 4,
            pages_per_session: 30,
            inter_page: SimDuration::from_millis(800),
            objects_per_page: 10,
            inter_object: SimDuration::from_millis(10),
            object_mean_packets: 400.0,
            object_shape: 1.002,
            object_max_packets: None,
            start: SimDuration::from_secs(1),
            stop: None,
            tcp: TcpConfig { mss: 1460, ..TcpConfig::default() },
        }
    }

    fn draw(s: WebSpec, seed: u64) -> Vec<Arrival> {
        let mut w = Web::new(s, seed, 0, SimDuration::from_secs(1_000_000));
        std::iter::from_fn(|| w.next_arrival()).collect()
    }

    #[test]
    fn every_session_requests_all_its_pages_of_objects_in_time_order() {
        let a = draw(spec(), 1);
        // 4 sessions × 30 pages × 10 objects, one connection each.
        assert_eq!(a.len(), 4 * 30 * 10);
        assert!(a.windows(2).all(|w| w[0].at <= w[1].at), "time order");
        assert!(a.iter().all(|x| x.at > SimTime(1_000_000_000)), "after start");
        assert!(a.iter().all(|x| [0, 1, 2].contains(&x.src) && [5, 6].contains(&x.dst)));
        // Whole packets of MSS bytes.
        assert!(a.iter().all(|x| x.size.is_some_and(|b| b >= 1460 && b % 1460 == 0)));
        // Each session keeps its client for its 30 pages of 10 objects.
        for c in [5, 6] {
            assert_eq!(a.iter().filter(|x| x.dst == c).count() % 300, 0);
        }
        assert_eq!(draw(spec(), 1), a, "a pure function of the seed");
        assert_ne!(draw(spec(), 2), a);
    }

    #[test]
    fn pages_are_launched_open_loop_with_exponential_gaps_of_the_given_mean() {
        // One object per page, one session: the arrivals are the page launches.
        let s = WebSpec { sessions: 1, pages_per_session: 20_000, objects_per_page: 1, start: SimDuration::ZERO, ..spec() };
        let a = draw(s, 3);
        assert_eq!(a.len(), 20_000);
        let gaps: Vec<f64> = a.windows(2).map(|w| (w[1].at.0 - w[0].at.0) as f64).collect();
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        assert!((mean / 0.8e9 - 1.0).abs() < 0.03, "mean gap {mean} ns");
        let above = gaps.iter().filter(|&&g| g > 0.8e9).count() as f64 / gaps.len() as f64;
        assert!((above - (-1.0f64).exp()).abs() < 0.015, "P(gap > mean) = {above}");
    }

    #[test]
    fn object_sizes_are_pareto_ii_in_packets_with_the_ns2_scale() {
        // Shape 1.5, mean 40 packets: scale 20; P(X > x) = (1 + x/scale)^-shape.
        let s = WebSpec {
            sessions: 1,
            pages_per_session: 1,
            objects_per_page: 100_000,
            object_mean_packets: 40.0,
            object_shape: 1.5,
            tcp: TcpConfig { mss: 1000, ..TcpConfig::default() },
            ..spec()
        };
        let a = draw(s.clone(), 5);
        let pk: Vec<u64> = a.iter().filter_map(|x| x.size).map(|b| b / 1000).collect();
        assert_eq!(pk.len(), 100_000);
        // ⌈X⌉ > 20 ⇔ X > 20: P = 2^-1.5 = 0.3536.
        let p20 = pk.iter().filter(|&&p| p > 20).count() as f64 / pk.len() as f64;
        assert!((p20 - 2f64.powf(-1.5)).abs() < 0.01, "P(size > 20) = {p20}");
        // ⌈X⌉ = 1 ⇔ X ≤ 1: P = 1 − (1 + 1/20)^-1.5 = 0.0706.
        let p1 = pk.iter().filter(|&&p| p == 1).count() as f64 / pk.len() as f64;
        assert!((p1 - (1.0 - 1.05f64.powf(-1.5))).abs() < 0.005, "P(size = 1) = {p1}");
        // The cap.
        let capped = draw(WebSpec { object_max_packets: Some(50), ..s }, 5);
        assert!(capped.iter().all(|x| x.size.is_some_and(|b| b <= 50_000)));
        assert!(capped.iter().any(|x| x.size == Some(50_000)));
    }

    #[test]
    fn the_thesis_parameters_give_mostly_one_packet_objects_and_stop_ends_the_source() {
        let a = draw(spec(), 9);
        let one = a.iter().filter(|x| x.size == Some(1460)).count() as f64 / a.len() as f64;
        // P(X ≤ 1) = 1 − (1 + 1/0.8)^-1.002 = 0.556.
        assert!((one - 0.556).abs() < 0.06, "{one}");
        let b = draw(WebSpec { stop: Some(SimDuration::from_secs(5)), ..spec() }, 9);
        assert!(!b.is_empty() && b.len() < a.len());
        assert!(b.iter().all(|x| x.at <= SimTime(5_000_000_000)));
        assert_eq!(b[..], a[..b.len()], "stopping cuts the same sequence");
    }

    #[test]
    fn adding_sessions_leaves_the_others_traffic_unchanged() {
        let a = draw(WebSpec { senders: vec![0], receivers: vec![5], ..spec() }, 4);
        let b = draw(WebSpec { senders: vec![0], receivers: vec![5], sessions: 5, ..spec() }, 4);
        // Session 4's objects are interleaved; the first four sessions' arrivals are a
        // subsequence of b: every arrival of a is in b.
        let mut j = 0;
        for x in &a {
            while j < b.len() && b[j] != *x {
                j += 1;
            }
            assert!(j < b.len(), "arrival {x:?} of 4 sessions missing with 5");
            j += 1;
        }
    }
}
