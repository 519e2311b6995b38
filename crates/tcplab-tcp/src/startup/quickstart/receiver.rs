//! The Quick-Start receiver (thesis §6.2.2, L3660–3663; RFC 4782 §4.2): on a segment that
//! carries a Quick-Start Request, echo the Rate Request *as received* (possibly lowered or
//! zeroed on the path), `TTLDiff′ = (IP TTL − QS TTL) mod 256` computed from the received
//! header, and the nonce, in a Quick-Start Response TCP option on the next ACK.

use super::wire::{QsFunc, QsIpOption, QsResponse};

/// The Response to send for a Request received with IP TTL `ip_ttl`; `None` for a Report
/// (Func 8), which is for routers only and gets no echo.
pub fn echo(req: &QsIpOption, ip_ttl: u8) -> Option<QsResponse> {
    if req.func != QsFunc::Request {
        return None;
    }
    Some(QsResponse { rate: req.rate, ttl_diff: ip_ttl.wrapping_sub(req.qs_ttl), nonce: req.nonce })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::startup::quickstart::wire::QsRate;

    /// §9 item 3: the receiver computes `(IP_TTL − QS_TTL) mod 256` from what it receives.
    #[test]
    fn the_echo_is_the_ttl_difference_mod_256_and_the_rate_as_received() {
        let req = QsIpOption { func: QsFunc::Request, rate: QsRate::new(6).unwrap(), qs_ttl: 250, nonce: 8 };
        let r = echo(&req, 61).unwrap();
        assert_eq!(r.ttl_diff, 67, "(61 - 250) mod 256");
        assert_eq!(r.rate.n(), 6);
        assert_eq!(r.nonce, 8);
        assert_eq!(echo(&QsIpOption { func: QsFunc::Report, ..req }, 61), None);
    }
}
