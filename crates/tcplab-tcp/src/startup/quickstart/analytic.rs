//! The thesis's closed forms for the number of round trips a transfer needs (§6.5.1).

/// Eq. 6.2 (L3889–3914): RTTs to send `n` packets in slow start from an initial window of `w`
/// packets with an ACK per segment, on top of the SYN exchange: `⌈log2(N/W + 1)⌉`.
pub fn eq_6_2_rtts(n: u64, w: u64) -> u64 {
    if n == 0 {
        return 0;
    }
    let w = w.max(1);
    // Smallest k with W·(2^k − 1) >= N, i.e. 2^k >= N/W + 1 (exact integer form of the ceiling).
    let mut k = 0;
    while w.saturating_mul((1u64 << k) - 1) < n {
        k += 1;
    }
    k
}

/// Eq. 6.3 (L3936–3980): the analytic bound `R = log2(max(min(N,M)/W + 1, 2)) + ⌈N/M⌉` with
/// `M = bandwidth·RTT/packet` (packets per RTT), one RTT of which is the SYN exchange.
/// `ceil_log`: the extraction shows no ceiling on the log term (seed-002-part2 §10 item 8);
/// `false` implements it as printed, `true` the variant with `⌈·⌉` as in eq. 6.2.
pub fn eq_6_3_rtts(n: f64, w: f64, m: f64, ceil_log: bool) -> f64 {
    let l = (n.min(m) / w + 1.0).max(2.0).log2();
    let l = if ceil_log { l.ceil() } else { l };
    l + (n / m).ceil()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// §9 item 4: "N = 30, W = 3 → 4 RTTs (+ SYN). N = 30, W = 25 → 2 RTTs (+ SYN)".
    #[test]
    fn eq_6_2_thirty_packets() {
        assert_eq!(eq_6_2_rtts(30, 3), 4);
        assert_eq!(eq_6_2_rtts(30, 25), 2);
        assert_eq!(eq_6_2_rtts(3, 3), 1);
        assert_eq!(eq_6_2_rtts(4, 3), 2);
        assert_eq!(eq_6_2_rtts(0, 3), 0);
    }

    /// §9 item 5: "For N ≤ M and W large, R → 1 + 1 = 2 (the log term bottoms out at 1)".
    #[test]
    fn eq_6_3_bottoms_out_at_two() {
        assert_eq!(eq_6_3_rtts(10.0, 1000.0, 100.0, false), 2.0);
        // N = 30, W = 3, M large: log2(11) + 1.
        let r = eq_6_3_rtts(30.0, 3.0, 1e6, false);
        assert!((r - (11f64.log2() + 1.0)).abs() < 1e-12);
        assert_eq!(eq_6_3_rtts(30.0, 3.0, 1e6, true), 5.0);
        // N = 3M: three BDP rounds after the start-up.
        assert_eq!(eq_6_3_rtts(300.0, 1e9, 100.0, false), 1.0 + 3.0);
    }
}
