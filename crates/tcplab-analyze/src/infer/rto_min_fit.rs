//! Fitting Linux's minimum RTO (issue 11 item 2; 003 §IV-A identifies minRTO as one of the
//! parameters of each connection's sender, Table I's row "minRTO").
//!
//! Linux's minimum RTO is not one number: `tcp_rto_min()` reads the route's `RTAX_RTO_MIN`
//! metric (`ip route ... rto_min TIME`, any value, rounded to jiffies) and falls back to
//! `TCP_RTO_MIN` (HZ/5 = 200 ms) without one; the estimator floors rttvar at it
//! (`tcp_rtt_estimator`: `mdev_max = max(mdev, tcp_rto_min(sk))`, `tcplab_tcp::rtt::linux`).
//! A connection on a route with a lower `rto_min` times out sooner than the profile's replay
//! expects, and the replay cannot explain its timeout (tests/fixtures/linux/rto-min-50ms:
//! 50 ms).
//!
//! The fit: the `linux` candidate is replayed once per value of [`LINUX_RTO_MIN_FIT`] besides
//! its default (each variant a full replay: the floor enters rttvar, so a deadline cannot be
//! recomputed after the fact), every variant is scored like any candidate, and at the end the
//! `linux` candidate is the variant that explains the connection best ([`merge`]: lowest cost,
//! the default first on a tie). Its `rto.min` is the inferred minRTO (`inferred_min_rto_ns`).
//! The other candidates are not fitted: Windows XP's, FreeBSD 5's, Solaris 10's and 4.4BSD's
//! minimum RTOs are compiled-in constants or system-wide tunables of 003 Table I, and
//! `rfc6298` is RFC 6298 (2.4)'s 1 s by definition.
//!
//! The values searched (tcplab choice, stated): a 1-2-5 ladder from one jiffy of the profile's
//! 250 Hz clock (4 ms, the smallest value the kernel can hold) to half the default — 4, 10,
//! 20, 50, 100 ms — plus the default 200 ms. Operators lower `rto_min` on short-RTT routes (the
//! knob's use; the harness's 50 ms); values above 200 ms are not searched, since a Linux
//! floor near 1 s would tie today's Linux with the 1 s stacks on every single timeout. A value
//! between the rungs fits only when its timeout lands within the timing tolerance
//! (`score::RTO_REL_TOLERANCE`) of a rung's; otherwise the connection stays `unknown` as
//! before. Cost: five more replays of every connection in `--model auto` until the pruning
//! (`bank::PRUNE_MARGIN`) drops them.
//!
//! Ambiguity resolved: a fitted variant competes with the other candidates only through the
//! merged `linux` candidate, so `linux` gets no more than one score in the decision; the fit
//! can make `linux` tie with a candidate it was excluded against (an `unknown` more), and can
//! name it only when the fitted replay explains every retransmission and every other
//! candidate is the margin worse (`decide.rs`, unchanged). Measured on the corpus in
//! docs/validation.md.

use std::sync::Arc;

use tcplab_time::SimDuration;

use super::decide::Candidate;
use crate::model::{ConfigModel, SenderModel};

/// The profile whose minimum RTO is fitted.
pub const FITTED_PROFILE: &str = "linux";

/// The `rto_min` values tried besides the profile's own (module docs): 1 jiffy at 250 Hz,
/// then a 1-2-5 ladder below Linux's `TCP_RTO_MIN`.
pub const LINUX_RTO_MIN_FIT: [SimDuration; 5] =
    [SimDuration::from_millis(4), SimDuration::from_millis(10), SimDuration::from_millis(20), SimDuration::from_millis(50), SimDuration::from_millis(100)];

/// The candidates with the fitted variants: each `linux` candidate whose `rto.min` is the
/// kernel's default is followed by one copy per value of [`LINUX_RTO_MIN_FIT`] (same name,
/// `rto.min` changed). `base[i]` is the index in `models` that expanded candidate `i` comes
/// from. Unchanged (no copy) for a single model (`--model NAME`).
pub fn expand(models: &Arc<[Arc<dyn SenderModel>]>) -> (Arc<[Arc<dyn SenderModel>]>, Vec<usize>) {
    if models.len() < 2 || !models.iter().any(|m| fitted(m.as_ref())) {
        return (models.clone(), (0..models.len()).collect());
    }
    let mut out: Vec<Arc<dyn SenderModel>> = Vec::with_capacity(models.len() + LINUX_RTO_MIN_FIT.len());
    let mut base = Vec::with_capacity(out.capacity());
    for (i, m) in models.iter().enumerate() {
        out.push(m.clone());
        base.push(i);
        if fitted(m.as_ref()) {
            for min in LINUX_RTO_MIN_FIT {
                let mut cfg = m.config().clone();
                cfg.rto.min = min;
                out.push(Arc::new(ConfigModel::new(m.name(), cfg)));
                base.push(i);
            }
        }
    }
    (out.into(), base)
}

fn fitted(m: &dyn SenderModel) -> bool {
    m.name() == FITTED_PROFILE && m.config().rto.min == tcplab_tcp::rtt::linux::TCP_RTO_MIN
}

/// One candidate per name: of the variants sharing a name, the one with the lowest cost (a
/// live one before a pruned one at equal cost; the first, the default, on a tie). Returns
/// the merged candidates in first-appearance order and, for each, the index of the variant
/// kept in `cands`.
pub fn merge<'a>(cands: &[Candidate<'a>]) -> (Vec<Candidate<'a>>, Vec<usize>) {
    let mut out: Vec<Candidate<'a>> = Vec::with_capacity(cands.len());
    let mut idx: Vec<usize> = Vec::with_capacity(cands.len());
    for (i, c) in cands.iter().enumerate() {
        match out.iter().position(|o| o.name == c.name) {
            Some(k) => {
                if (c.score.cost, c.pruned) < (out[k].score.cost, out[k].pruned) {
                    out[k] = c.clone();
                    idx[k] = i;
                }
            }
            None => {
                out.push(c.clone());
                idx.push(i);
            }
        }
    }
    (out, idx)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infer::score::ModelScore;

    /// `linux` gets five variants after it, each with one of the ladder's floors; the others
    /// none; a single forced model none.
    #[test]
    fn only_linux_is_expanded() {
        let models = crate::infer::default_candidates();
        let (all, base) = expand(&models);
        assert_eq!(all.len(), models.len() + LINUX_RTO_MIN_FIT.len());
        let linux: Vec<u64> = all.iter().filter(|m| m.name() == "linux").map(|m| m.config().rto.min.as_nanos() / 1_000_000).collect();
        assert_eq!(linux, vec![200, 4, 10, 20, 50, 100]);
        assert!(base.iter().zip(all.iter()).all(|(&b, m)| models[b].name() == m.name()));
        let one: Arc<[Arc<dyn SenderModel>]> = models.iter().take(1).cloned().collect();
        assert_eq!(expand(&one).0.len(), 1);
    }

    /// The merge keeps the cheapest variant of each name, the default on a tie.
    #[test]
    fn the_cheapest_variant_stands_for_its_profile() {
        let cfg = tcplab_tcp::TcpConfig::default();
        let c = |name: &'static str, cost: u64| Candidate { name, cfg: &cfg, score: ModelScore { cost, ..ModelScore::default() }, pruned: false, fitted: false };
        let v = [c("linux", 1000), c("linux", 1000), c("linux", 40), c("rfc6298", 0), c("linux", 40)];
        let (m, idx) = merge(&v);
        assert_eq!(m.iter().map(|x| (x.name, x.score.cost)).collect::<Vec<_>>(), vec![("linux", 40), ("rfc6298", 0)]);
        assert_eq!(idx, vec![2, 3]);
        let tie = [c("linux", 7), c("linux", 7)];
        assert_eq!(merge(&tie).1, vec![0]);
    }
}
