//! Router approval algorithms (seed 002 §6.6.1, Figs 6.9 and 6.10; seed-002-part2 §4.3–4.4).
//! All quantities are bytes/s. Pure functions: the router ([`super::QsRouter`]) supplies the
//! link's bandwidth, the utilisation estimate and `recent_qs_approvals`.

/// Which algorithm a router runs.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum QsAlgorithm {
    /// Fig 6.10: approve only while projected utilisation stays below `qs_thresh`.
    Target { qs_thresh: f64 },
    /// Fig 6.9 (from [156]): a fraction `alloc_rate` of the unused bandwidth, at any
    /// utilisation.
    Share { alloc_rate: f64 },
    /// ns-2 `algorithm_ = 4`: approves every request unchanged (to provoke Quick-Start
    /// failures, Fig 6.6).
    Broken,
}

/// The inputs of one decision.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct QsDecisionInput {
    /// Output link bandwidth, bytes/s.
    pub bandwidth: f64,
    /// Utilisation estimate in [0, 1].
    pub utilization: f64,
    /// Aggregate recently approved rate, bytes/s.
    pub recent_qs_approvals: f64,
    /// The request, bytes/s.
    pub rate_request: f64,
}

impl QsAlgorithm {
    /// The approved rate (bytes/s, before quantisation); 0 means not approved.
    pub fn approve(&self, i: &QsDecisionInput) -> f64 {
        match *self {
            QsAlgorithm::Target { qs_thresh } => target(i, qs_thresh),
            QsAlgorithm::Share { alloc_rate } => share(i, alloc_rate),
            QsAlgorithm::Broken => i.rate_request,
        }
    }
}

/// Fig 6.10, verbatim:
/// ```text
/// util_bw = bandwidth * utilization;
/// util_bw = util_bw + recent_qs_approvals;
/// if (util_bw < qs_thresh * bandwidth) {
///     approved = qs_thresh * bandwidth - util_bw;
///     if (rate_request < approved) approved = rate_request;
///     recent_qs_approvals += approved;      // by the caller
/// }
/// ```
pub fn target(i: &QsDecisionInput, qs_thresh: f64) -> f64 {
    let util_bw = i.bandwidth * i.utilization + i.recent_qs_approvals;
    if util_bw < qs_thresh * i.bandwidth {
        (qs_thresh * i.bandwidth - util_bw).min(i.rate_request)
    } else {
        0.0
    }
}

/// Fig 6.9, verbatim:
/// ```text
/// avail_bw = bandwidth * (1 - utilization);
/// avail_bw = avail_bw - recent_qs_approvals;
/// approved = avail_bw * ALLOC_RATE;
/// if (rate_request < approved) approved = rate_request;
/// recent_qs_approvals += approved;          // by the caller
/// ```
/// [INTERP] (seed-002-part2 §4.3): `approved ≤ 0` is no approval.
pub fn share(i: &QsDecisionInput, alloc_rate: f64) -> f64 {
    let avail_bw = i.bandwidth * (1.0 - i.utilization) - i.recent_qs_approvals;
    (avail_bw * alloc_rate).min(i.rate_request).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_tcp::startup::quickstart::QsRate;

    const BW: f64 = 1_250_000.0;

    fn input(utilization: f64, recent: f64, req: f64) -> QsDecisionInput {
        QsDecisionInput { bandwidth: BW, utilization, recent_qs_approvals: recent, rate_request: req }
    }

    /// §9 item 6: "bandwidth = 1,250,000 B/s (10 Mbps), utilisation 0.5, recent approvals 0,
    /// qs_thresh 0.9: util_bw = 625,000 < 1,125,000, so approve 500,000 B/s, or less if
    /// requested less; recent_qs_approvals += 500,000; an identical immediate second request
    /// gets 0 ...; on the wire, 500,000 B/s quantises to N = 6 (320,000 B/s)."
    #[test]
    fn target_fig_6_10() {
        let a = QsAlgorithm::Target { qs_thresh: 0.9 };
        let first = a.approve(&input(0.5, 0.0, 10e6));
        assert_eq!(first, 500_000.0);
        assert_eq!(a.approve(&input(0.5, 0.0, 200_000.0)), 200_000.0);
        assert_eq!(a.approve(&input(0.5, first, 10e6)), 0.0);
        assert_eq!(QsRate::approve_floor(first as u64).bytes_per_sec(), 320_000);
        assert_eq!(a.approve(&input(0.95, 0.0, 10e6)), 0.0);
    }

    /// §9 item 7: "Same link, utilisation 0.5, ALLOC_RATE 0.5: approved = 0.5 · 625,000 =
    /// 312,500 B/s. ... at utilisation 0.95: 0.5 · 62,500 = 31,250 B/s."
    #[test]
    fn share_fig_6_9() {
        let a = QsAlgorithm::Share { alloc_rate: 0.5 };
        assert_eq!(a.approve(&input(0.5, 0.0, 10e6)), 312_500.0);
        assert!((a.approve(&input(0.95, 0.0, 10e6)) - 31_250.0).abs() < 1e-6);
        assert_eq!(a.approve(&input(0.5, 700_000.0, 10e6)), 0.0, "negative availability approves nothing");
        assert_eq!(QsAlgorithm::Broken.approve(&input(1.0, 1e9, 7.0)), 7.0);
    }
}
