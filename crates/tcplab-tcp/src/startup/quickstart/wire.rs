//! Quick-Start on the wire: the rate encoding, the IPv4 Quick-Start option (RFC 4782 §3.1,
//! type 25) and the TCP Quick-Start Response option (RFC 4782 §4.2, kind 27), both 8 bytes.
//!
//! ```text
//! IPv4 option (RFC 4782 Fig. 1 / Fig. 2)          TCP option (RFC 4782 Fig. 9)
//!  0       8       16  20   24      32             0       8       16  20   24      32
//! +-------+-------+----+----+-------+             +-------+-------+----+----+--------+
//! | 25    | 8     |Func|Rate|QS TTL |             | 27    | 8     |Resv|Rate|TTL Diff|
//! +-------+-------+----+----+-------+             +-------+-------+----+----+--------+
//! |        QS Nonce (30)        |R(2)|             |        QS Nonce (30)        |R(2)|
//! +-----------------------------+----+             +-----------------------------+----+
//! ```
//!
//! Func 0 is a Rate Request, Func 8 a Report of Approved Rate (byte 3 is then "Not Used").
//! Field positions and masks agree with Wireshark's dissector (`QS_FUNC_MASK 0xf0`,
//! `QS_RATE_MASK 0x0f`, nonce mask `0xFFFFFFFC`; seed-002-part2 §3.2 [EXT]).
//!
//! Rates: the thesis (§6.2.1, L3612–3617) encodes `rate = K · 2^N` bit/s with K = 40 kbit/s,
//! N = 0 meaning zero. Everything in this crate is in **bytes per second** (the thesis's
//! sender and router pseudo-code use B/s, L3654–3655), converted through
//! `rate_Bps(N) = 5000 · 2^N` (seed-002-part2 §10 item 5).

/// RFC 4782 §3.1: IPv4 option type of Quick-Start (copy flag 0, class 0, number 25).
pub const IPOPT_QUICK_START: u8 = 25;
/// RFC 4782 §4.2: TCP option kind of the Quick-Start Response.
pub const TCPOPT_QUICK_START: u8 = 27;
/// RFC 4782 §3.1 / §4.2: both options are 8 bytes long.
pub const QS_OPTION_LEN: u8 = 8;
/// RFC 4782 §3.1: Func field value of a Quick-Start Request.
pub const QS_FUNC_REQUEST: u8 = 0;
/// RFC 4782 §3.1: Func field value of a Report of Approved Rate.
pub const QS_FUNC_REPORT: u8 = 8;
/// RFC 4782 §3.1: the nonce occupies the upper 30 bits of the last word (Wireshark
/// `0xFFFFFFFC`); the low two bits are reserved.
pub const QS_NONCE_MASK: u32 = 0xFFFF_FFFC;
/// Thesis L3612–3613: K = 40 kbit/s, i.e. 5000 bytes/s.
pub const QS_RATE_UNIT_BPS: u64 = 5000;
/// Thesis L3615–3617 / RFC 4782 §3.1: N = 15 (1,310,720 kbit/s) is the largest rate.
pub const QS_RATE_MAX_N: u8 = 15;

/// A 4-bit Quick-Start rate value N (0 = zero rate, 1..=15 = 40 kbit/s · 2^N).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct QsRate(u8);

impl QsRate {
    pub const ZERO: QsRate = QsRate(0);
    pub const MAX: QsRate = QsRate(QS_RATE_MAX_N);

    /// The rate with field value `n` (`None` above 15).
    pub const fn new(n: u8) -> Option<QsRate> {
        if n <= QS_RATE_MAX_N {
            Some(QsRate(n))
        } else {
            None
        }
    }

    /// The 4-bit field value.
    pub const fn n(self) -> u8 {
        self.0
    }

    /// Thesis L3612: rate = 40 kbit/s · 2^N; 0 for N = 0.
    pub const fn bits_per_sec(self) -> u64 {
        self.bytes_per_sec() * 8
    }

    /// `5000 · 2^N` bytes/s; 0 for N = 0.
    pub const fn bytes_per_sec(self) -> u64 {
        if self.0 == 0 {
            0
        } else {
            QS_RATE_UNIT_BPS << self.0
        }
    }

    /// The largest encodable rate not above `bps` bytes/s: `N = floor(log2(bps / 5000))`,
    /// clamped to 1..=15 (ns-2 `Bps_to_rate` rounds down, seed-002-part2 §3.3 item 1).
    /// A positive rate below 10,000 B/s still encodes as N = 1 (a request is never zero
    /// because the wanted rate is small); `bps == 0` encodes as zero.
    pub const fn from_bytes_per_sec_floor(bps: u64) -> QsRate {
        if bps == 0 {
            return QsRate::ZERO;
        }
        let q = bps / QS_RATE_UNIT_BPS;
        if q < 2 {
            return QsRate(1);
        }
        let n = 63 - q.leading_zeros() as u8; // floor(log2(q)) for q >= 2
        if n > QS_RATE_MAX_N {
            QsRate::MAX
        } else {
            QsRate(n)
        }
    }

    /// A router's quantisation of an approved amount (bytes/s): the largest N with
    /// `rate_Bps(N) <= bps`, or zero when even N = 1 is above it (unlike
    /// [`QsRate::from_bytes_per_sec_floor`], which never returns zero for a positive rate:
    /// a router must not approve more than it computed).
    pub const fn approve_floor(bps: u64) -> QsRate {
        if bps < QS_RATE_UNIT_BPS * 2 {
            QsRate::ZERO
        } else {
            QsRate::from_bytes_per_sec_floor(bps)
        }
    }
}

/// The Func field of the IP option.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum QsFunc {
    /// RFC 4782 §3.1 Func 0: Quick-Start Request; byte 3 is the QS TTL.
    #[default]
    Request,
    /// RFC 4782 §3.1 Func 8: Report of Approved Rate; byte 3 is not used.
    Report,
}

/// The IPv4 Quick-Start option as it travels (routers may lower `rate` and decrement `qs_ttl`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct QsIpOption {
    pub func: QsFunc,
    /// Rate Request (or Rate Report).
    pub rate: QsRate,
    /// QS TTL (Request only; 0 in a Report).
    pub qs_ttl: u8,
    /// QS Nonce: the upper 30 bits of the last word (`QS_NONCE_MASK` applied).
    pub nonce: u32,
}

/// The TCP Quick-Start Response option: what the receiver echoes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct QsResponse {
    /// The Rate Request as received (possibly lowered or zeroed on the path).
    pub rate: QsRate,
    /// `(IP TTL − QS TTL) mod 256` as received (thesis L3660–3663).
    pub ttl_diff: u8,
    pub nonce: u32,
}

/// A malformed Quick-Start option (capture reader input).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum QsDecodeError {
    /// Not the expected type/kind byte.
    WrongKind(u8),
    /// Length byte or buffer shorter/other than 8.
    BadLength(usize),
    /// Func neither 0 nor 8.
    UnknownFunc(u8),
}

impl std::fmt::Display for QsDecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            QsDecodeError::WrongKind(k) => write!(f, "option kind {k} is not Quick-Start"),
            QsDecodeError::BadLength(n) => write!(f, "Quick-Start option length {n}, expected 8"),
            QsDecodeError::UnknownFunc(x) => write!(f, "Quick-Start function {x} is neither request (0) nor report (8)"),
        }
    }
}

impl QsIpOption {
    /// The 8 option bytes (RFC 4782 §3.1).
    pub fn encode(&self) -> [u8; 8] {
        let func = match self.func {
            QsFunc::Request => QS_FUNC_REQUEST,
            QsFunc::Report => QS_FUNC_REPORT,
        };
        let ttl = match self.func {
            QsFunc::Request => self.qs_ttl,
            QsFunc::Report => 0,
        };
        let n = (self.nonce & QS_NONCE_MASK).to_be_bytes();
        [IPOPT_QUICK_START, QS_OPTION_LEN, func << 4 | self.rate.n(), ttl, n[0], n[1], n[2], n[3]]
    }

    /// Parses the option starting at `b[0]` (type byte); `b` may be longer than 8.
    ///
    /// RFC 4782 §3.1: "The third byte includes a four-bit Function field." With Function
    /// "0000" the rest of that byte is the Rate Request and "the fourth byte contains the
    /// Quick-Start TTL"; with "1000" it is the Rate Report and "the fourth byte of the
    /// Quick-Start Option is not used". "Bytes 5-8 contain a 30-bit QS Nonce and a 2-bit
    /// Reserved field" in both formats (Figs. 1 and 2). So a Report's byte 3 is ignored
    /// (`qs_ttl` is 0, as [`QsIpOption::encode`] writes it) and its nonce is kept; the
    /// Reserved bits are masked off in both.
    pub fn decode(b: &[u8]) -> Result<QsIpOption, QsDecodeError> {
        let (_, rest) = decode_common(b, IPOPT_QUICK_START)?;
        let (func, qs_ttl) = match rest[0] >> 4 {
            QS_FUNC_REQUEST => (QsFunc::Request, rest[1]),
            QS_FUNC_REPORT => (QsFunc::Report, 0),
            other => return Err(QsDecodeError::UnknownFunc(other)),
        };
        Ok(QsIpOption {
            func,
            rate: QsRate(rest[0] & 0x0f),
            qs_ttl,
            nonce: u32::from_be_bytes([rest[2], rest[3], rest[4], rest[5]]) & QS_NONCE_MASK,
        })
    }
}

impl QsResponse {
    /// The 8 option bytes (RFC 4782 §4.2).
    pub fn encode(&self) -> [u8; 8] {
        let n = (self.nonce & QS_NONCE_MASK).to_be_bytes();
        [TCPOPT_QUICK_START, QS_OPTION_LEN, self.rate.n(), self.ttl_diff, n[0], n[1], n[2], n[3]]
    }

    /// Parses the option starting at `b[0]` (kind byte); the reserved nibble is ignored.
    pub fn decode(b: &[u8]) -> Result<QsResponse, QsDecodeError> {
        let (_, rest) = decode_common(b, TCPOPT_QUICK_START)?;
        Ok(QsResponse {
            rate: QsRate(rest[0] & 0x0f),
            ttl_diff: rest[1],
            nonce: u32::from_be_bytes([rest[2], rest[3], rest[4], rest[5]]) & QS_NONCE_MASK,
        })
    }
}

fn decode_common(b: &[u8], kind: u8) -> Result<(u8, &[u8]), QsDecodeError> {
    let k = *b.first().ok_or(QsDecodeError::BadLength(0))?;
    if k != kind {
        return Err(QsDecodeError::WrongKind(k));
    }
    let len = *b.get(1).ok_or(QsDecodeError::BadLength(b.len()))? as usize;
    if len != QS_OPTION_LEN as usize || b.len() < len {
        return Err(QsDecodeError::BadLength(len.min(b.len())));
    }
    Ok((k, &b[2..8]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// seed-002-part2 §9 item 1: "rate_bps(N) = 40,000 · 2^N for N = 1..15, and 0 for N = 0.
    /// rate_bps(1) = 80,000; rate_bps(15) = 1,310,720,000 (1,310,720 Kbps). In bytes:
    /// rate_Bps(N) = 5000 · 2^N."
    #[test]
    fn rate_encoding_is_40kbps_times_two_to_the_n() {
        assert_eq!(QsRate::ZERO.bits_per_sec(), 0);
        assert_eq!(QsRate::new(1).unwrap().bits_per_sec(), 80_000);
        assert_eq!(QsRate::new(15).unwrap().bits_per_sec(), 1_310_720_000);
        for n in 1..=15u8 {
            let r = QsRate::new(n).unwrap();
            assert_eq!(r.bits_per_sec(), 40_000 * (1 << n));
            assert_eq!(r.bytes_per_sec(), 5000 * (1 << n));
        }
        assert_eq!(QsRate::new(16), None);
    }

    /// §9 item 1: "Encoding a byte rate rounds down: N = floor(log2(Bps/5000)), clamped to
    /// [1, 15]. Example: 2 MB/s = 2,000,000 B/s → N = 8 → 1,280,000 B/s (10.24 Mbps)."
    #[test]
    fn encoding_a_byte_rate_rounds_down_and_clamps() {
        let r = QsRate::from_bytes_per_sec_floor(2_000_000);
        assert_eq!(r.n(), 8);
        assert_eq!(r.bytes_per_sec(), 1_280_000);
        assert_eq!(r.bits_per_sec(), 10_240_000);
        assert_eq!(QsRate::from_bytes_per_sec_floor(1_279_999).n(), 7);
        assert_eq!(QsRate::from_bytes_per_sec_floor(1_280_000).n(), 8);
        assert_eq!(QsRate::from_bytes_per_sec_floor(1).n(), 1, "clamped up to 1");
        assert_eq!(QsRate::from_bytes_per_sec_floor(0).n(), 0);
        assert_eq!(QsRate::from_bytes_per_sec_floor(u64::MAX).n(), 15, "clamped down to 15");
        // §7.3 [INTERP]: Target caps on an idle WLAN / EGPRS link.
        assert_eq!(QsRate::approve_floor(593_750).n(), 6);
        assert_eq!(QsRate::approve_floor(23_750).n(), 2);
        // §9 item 6: 500,000 B/s quantises to N = 6 (320,000 B/s).
        assert_eq!(QsRate::approve_floor(500_000).bytes_per_sec(), 320_000);
        assert_eq!(QsRate::approve_floor(9_999), QsRate::ZERO, "a router never approves more than it computed");
    }

    /// §9 item 3 [EXT]: "IPv4 option type 25, length 8; Func 0 = request, 8 = report; TCP
    /// option kind 27, length 8."
    #[test]
    fn option_bytes_follow_rfc4782() {
        let req = QsIpOption { func: QsFunc::Request, rate: QsRate(8), qs_ttl: 0xa5, nonce: 0x1234_5677 };
        assert_eq!(req.encode(), [25, 8, 0x08, 0xa5, 0x12, 0x34, 0x56, 0x74]);
        let back = QsIpOption::decode(&req.encode()).unwrap();
        assert_eq!(back, QsIpOption { nonce: 0x1234_5674, ..req });
        let rep = QsIpOption { func: QsFunc::Report, rate: QsRate(6), qs_ttl: 9, nonce: 0 };
        assert_eq!(rep.encode(), [25, 8, 0x86, 0, 0, 0, 0, 0]);
        assert_eq!(QsIpOption::decode(&rep.encode()).unwrap().func, QsFunc::Report);
        let resp = QsResponse { rate: QsRate(6), ttl_diff: 200, nonce: 0xffff_ffff };
        assert_eq!(resp.encode(), [27, 8, 0x06, 200, 0xff, 0xff, 0xff, 0xfc]);
        assert_eq!(QsResponse::decode(&resp.encode()).unwrap(), QsResponse { nonce: 0xffff_fffc, ..resp });
    }

    /// RFC 4782 §3.1: in a Report of Approved Rate (Func "1000") "the fourth byte of the
    /// Quick-Start Option is not used", while "Bytes 5-8 contain a 30-bit QS Nonce and a
    /// 2-bit Reserved field"; in a Request the fourth byte is the QS TTL.
    #[test]
    fn a_report_ignores_its_fourth_byte_and_keeps_its_nonce() {
        // A Report whose unused byte is not zero, with both Reserved bits set.
        let rep = QsIpOption::decode(&[25, 8, 0x86, 0x5a, 0x12, 0x34, 0x56, 0x7b]).unwrap();
        assert_eq!(rep, QsIpOption { func: QsFunc::Report, rate: QsRate(6), qs_ttl: 0, nonce: 0x1234_5678 });
        // The same bytes with Func 0000 are a Request: byte 3 is then its QS TTL.
        let req = QsIpOption::decode(&[25, 8, 0x06, 0x5a, 0x12, 0x34, 0x56, 0x7b]).unwrap();
        assert_eq!(req, QsIpOption { func: QsFunc::Request, rate: QsRate(6), qs_ttl: 0x5a, nonce: 0x1234_5678 });
        // A decoded Report encodes back to the bytes RFC 4782 Fig. 2 defines (unused byte 0).
        assert_eq!(rep.encode(), [25, 8, 0x86, 0, 0x12, 0x34, 0x56, 0x78]);
    }

    #[test]
    fn malformed_options_are_errors_not_panics() {
        assert_eq!(QsIpOption::decode(&[]), Err(QsDecodeError::BadLength(0)));
        assert_eq!(QsIpOption::decode(&[25]), Err(QsDecodeError::BadLength(1)));
        assert_eq!(QsIpOption::decode(&[25, 8, 0, 0]), Err(QsDecodeError::BadLength(4)));
        assert_eq!(QsIpOption::decode(&[25, 6, 0, 0, 0, 0, 0, 0]), Err(QsDecodeError::BadLength(6)));
        assert_eq!(QsIpOption::decode(&[27, 8, 0, 0, 0, 0, 0, 0]), Err(QsDecodeError::WrongKind(27)));
        assert_eq!(QsIpOption::decode(&[25, 8, 0x41, 0, 0, 0, 0, 0]), Err(QsDecodeError::UnknownFunc(4)));
        assert_eq!(QsResponse::decode(&[25, 8, 0, 0, 0, 0, 0, 0]), Err(QsDecodeError::WrongKind(25)));
    }
}
