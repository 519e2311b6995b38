//! Any bytes through the Quick-Start option finders and decoders of the capture reader
//! (`tcplab_pcap::quickstart`, RFC 4782): the IPv4 Quick-Start option (type 25) among IPv4
//! header options and the Quick-Start Response TCP option (kind 27) among TCP options.
//!
//! The input is used three ways: as the start of an IPv4 header (`ip_request`), as a TCP
//! option list (`tcp_response`), and as a raw option to the decoders themselves.
//! Invariants: no panic; a decoded value has a rate N ≤ 15 (RFC 4782 §3.1, 4-bit field) and
//! a nonce with its two low bits clear (the nonce is the upper 30 bits of the last word);
//! re-encoding a decoded option gives the canonical form of the input bytes (type, length 8,
//! function and rate nibble, QS TTL for a Request or 0 for a Report, masked nonce).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tcplab_pcap::quickstart::{ip_request, tcp_response};
use tcplab_tcp::startup::quickstart::wire::{QS_FUNC_REPORT, QS_NONCE_MASK, QS_RATE_MAX_N};
use tcplab_tcp::startup::quickstart::{QsFunc, QsIpOption, QsResponse};

/// The option bytes a decoder of `raw` (a well-formed 8-byte option) must re-encode to.
fn canonical(raw: &[u8], is_ip: bool) -> [u8; 8] {
    let nonce = (u32::from_be_bytes([raw[4], raw[5], raw[6], raw[7]]) & QS_NONCE_MASK).to_be_bytes();
    let (b2, b3) = if is_ip {
        let report = raw[2] >> 4 == QS_FUNC_REPORT;
        (raw[2], if report { 0 } else { raw[3] })
    } else {
        // RFC 4782 §4.2: the upper nibble of byte 2 is reserved (ignored, sent as zero).
        (raw[2] & 0x0f, raw[3])
    };
    [raw[0], raw[1], b2, b3, nonce[0], nonce[1], nonce[2], nonce[3]]
}

fn check_ip(o: QsIpOption) {
    assert!(o.rate.n() <= QS_RATE_MAX_N);
    assert_eq!(o.nonce & !QS_NONCE_MASK, 0);
    let again = QsIpOption::decode(&o.encode()).expect("an encoded option decodes");
    assert_eq!(again.encode(), o.encode());
    assert_eq!((again.func, again.rate, again.nonce), (o.func, o.rate, o.nonce));
    if o.func == QsFunc::Request {
        assert_eq!(again.qs_ttl, o.qs_ttl);
    }
}

fn check_tcp(r: QsResponse) {
    assert!(r.rate.n() <= QS_RATE_MAX_N);
    assert_eq!(r.nonce & !QS_NONCE_MASK, 0);
    assert_eq!(QsResponse::decode(&r.encode()), Ok(r));
}

fuzz_target!(|data: &[u8]| {
    if let Some(o) = ip_request(data) {
        check_ip(o);
    }
    if let Some(r) = tcp_response(data) {
        check_tcp(r);
    }
    if let Ok(o) = QsIpOption::decode(data) {
        check_ip(o);
        assert_eq!(o.encode(), canonical(data, true));
    }
    if let Ok(r) = QsResponse::decode(data) {
        check_tcp(r);
        assert_eq!(r.encode(), canonical(data, false));
    }
});
