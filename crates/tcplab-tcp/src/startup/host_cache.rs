//! Per-destination temporal sharing of TCP state (RFC 9040, obsoleting RFC 2140; the Linux
//! `tcp_metrics` cache is this kind of cache): the baseline PTA is compared with (004 §II-A:
//! with no pathlet router "the performance can be expected to be similar to a standard control
//! block sharing mechanism that maintains a separate state to each host").
//!
//! RFC 9040 §8.1 (temporal sharing) lets a closing connection update a per-destination cache
//! entry (TCB_cache) and a new connection to that destination initialise its TCB from it. The
//! shared fields here, each switchable ([`HostCacheConfig`]):
//! - **RTT** (RTT, RTTVAR): at close the connection's SRTT/RTTVAR are merged into the entry with
//!   the RFC 6298 (2.3) gains (alpha = 1/8, beta = 1/4), the first one copied; a new connection
//!   starts with RTO = RTT + 4·RTTVAR (RFC 6298 (2.3)'s formula with the cached values, as
//!   Linux `tcp_init_metrics` seeds the RTO from the cached RTT).
//! - **ssthresh**: the connection's ssthresh at close if it was ever reduced (finite); a new
//!   connection starts with it.
//! - **cwnd**: the connection's cwnd at close; a new connection starts with it as its initial
//!   window (RFC 2140 §3's temporal cwnd reuse; RFC 9040 warns that it can be too aggressive
//!   after idle periods — that risk is part of what the baseline shows).
//!
//! The merge rule for RTT is one of the choices RFC 9040 leaves open; the last connection
//! overwrites cwnd and ssthresh (the simplest "TCB_cache.X = TCB.X").

use std::collections::BTreeMap;
use tcplab_time::SimDuration;

/// RFC 6298 (2.3): alpha = 1/8 for SRTT ...
pub const RTT_GAIN_DEN: u64 = 8;
/// ... and beta = 1/4 for RTTVAR.
pub const RTTVAR_GAIN_DEN: u64 = 4;
/// RFC 6298 (2.3): RTO = SRTT + max(G, K·RTTVAR), K = 4.
pub const RTO_K: u64 = 4;

/// Which fields are shared (scenario `[host_cache]`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct HostCacheConfig {
    pub cwnd: bool,
    pub ssthresh: bool,
    pub rtt: bool,
}

impl Default for HostCacheConfig {
    fn default() -> Self {
        HostCacheConfig { cwnd: true, ssthresh: true, rtt: true }
    }
}

/// One destination's TCB_cache.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct CacheEntry {
    /// Bytes.
    pub cwnd: Option<u64>,
    pub ssthresh: Option<u64>,
    pub rtt: Option<SimDuration>,
    pub rttvar: Option<SimDuration>,
}

/// What a closing connection contributes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ClosingTcb {
    pub cwnd: u64,
    /// `u64::MAX` if never reduced.
    pub ssthresh: u64,
    /// `None` without an RTT sample.
    pub srtt: Option<SimDuration>,
    pub rttvar: Option<SimDuration>,
}

/// What a new connection starts with.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct CachedStart {
    pub cwnd_segments: Option<u64>,
    pub ssthresh: Option<u64>,
    pub initial_rto: Option<SimDuration>,
}

/// The host's cache, by destination address.
#[derive(Clone, Debug, Default)]
pub struct HostCache {
    pub cfg: HostCacheConfig,
    entries: BTreeMap<u32, CacheEntry>,
}

impl HostCache {
    pub fn new(cfg: HostCacheConfig) -> Self {
        HostCache { cfg, entries: BTreeMap::new() }
    }

    pub fn get(&self, dst: u32) -> Option<&CacheEntry> {
        self.entries.get(&dst)
    }

    /// RFC 9040 §8.1 cache update when a connection to `dst` closes.
    pub fn on_close(&mut self, dst: u32, tcb: &ClosingTcb) {
        let cfg = self.cfg;
        let e = self.entries.entry(dst).or_default();
        if cfg.cwnd {
            e.cwnd = Some(tcb.cwnd);
        }
        if cfg.ssthresh && tcb.ssthresh != u64::MAX {
            e.ssthresh = Some(tcb.ssthresh);
        }
        if let (true, Some(r), Some(v)) = (cfg.rtt, tcb.srtt, tcb.rttvar) {
            (e.rtt, e.rttvar) = match (e.rtt, e.rttvar) {
                (Some(c), Some(cv)) => {
                    let (c, cv, r, v) = (c.as_nanos(), cv.as_nanos(), r.as_nanos(), v.as_nanos());
                    (
                        Some(SimDuration::from_nanos((c * (RTT_GAIN_DEN - 1) + r) / RTT_GAIN_DEN)),
                        Some(SimDuration::from_nanos((cv * (RTTVAR_GAIN_DEN - 1) + v) / RTTVAR_GAIN_DEN)),
                    )
                }
                _ => (Some(r), Some(v)),
            };
        }
    }

    /// RFC 9040 §8.1 initialisation of a new connection to `dst` (segments of `smss` bytes).
    pub fn on_open(&self, dst: u32, smss: u64, granularity: SimDuration) -> CachedStart {
        let Some(e) = self.entries.get(&dst) else { return CachedStart::default() };
        let cfg = self.cfg;
        CachedStart {
            cwnd_segments: e.cwnd.filter(|_| cfg.cwnd).map(|c| (c / smss.max(1)).max(1)),
            ssthresh: e.ssthresh.filter(|_| cfg.ssthresh),
            initial_rto: match (cfg.rtt, e.rtt, e.rttvar) {
                (true, Some(r), Some(v)) => {
                    Some(SimDuration::from_nanos(r.as_nanos() + (RTO_K * v.as_nanos()).max(granularity.as_nanos())))
                }
                _ => None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;
    fn ms(n: u64) -> SimDuration {
        SimDuration::from_nanos(n * MS)
    }

    #[test]
    fn an_unknown_destination_gives_nothing() {
        let c = HostCache::new(HostCacheConfig::default());
        assert_eq!(c.on_open(7, 1000, ms(1)), CachedStart::default());
    }

    #[test]
    fn a_closed_connection_seeds_the_next_one_to_the_same_host_only() {
        let mut c = HostCache::new(HostCacheConfig::default());
        c.on_close(7, &ClosingTcb { cwnd: 25_500, ssthresh: 12_000, srtt: Some(ms(100)), rttvar: Some(ms(10)) });
        let s = c.on_open(7, 1000, ms(1));
        assert_eq!(s, CachedStart { cwnd_segments: Some(25), ssthresh: Some(12_000), initial_rto: Some(ms(140)) });
        assert_eq!(c.on_open(8, 1000, ms(1)), CachedStart::default());
    }

    #[test]
    fn rtt_merges_with_rfc6298_gains_and_infinite_ssthresh_is_not_cached() {
        let mut c = HostCache::new(HostCacheConfig::default());
        c.on_close(7, &ClosingTcb { cwnd: 3000, ssthresh: u64::MAX, srtt: Some(ms(80)), rttvar: Some(ms(40)) });
        c.on_close(7, &ClosingTcb { cwnd: 9000, ssthresh: u64::MAX, srtt: Some(ms(160)), rttvar: Some(ms(0)) });
        let e = c.get(7).copied().unwrap_or_default();
        assert_eq!(e.rtt, Some(ms(90)));
        assert_eq!(e.rttvar, Some(ms(30)));
        assert_eq!(e.ssthresh, None);
        assert_eq!(e.cwnd, Some(9000), "the last connection's cwnd");
    }

    #[test]
    fn switched_off_fields_are_neither_kept_nor_used() {
        let mut c = HostCache::new(HostCacheConfig { cwnd: false, ssthresh: true, rtt: false });
        c.on_close(7, &ClosingTcb { cwnd: 25_000, ssthresh: 12_000, srtt: Some(ms(100)), rttvar: Some(ms(10)) });
        assert_eq!(c.on_open(7, 1000, ms(1)), CachedStart { cwnd_segments: None, ssthresh: Some(12_000), initial_rto: None });
    }
}
