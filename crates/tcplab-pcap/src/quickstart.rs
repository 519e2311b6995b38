//! Quick-Start (RFC 4782) options in captured packets: the IPv4 Quick-Start option (type 25)
//! among the IPv4 header options, and the Quick-Start Response TCP option (kind 27) among the
//! TCP options. The byte layout and its decoders are the engine's
//! (`tcplab_tcp::startup::quickstart::wire`); this file only finds the options.
//!
//! Ambiguities resolved: a malformed Quick-Start option (wrong length, unknown function) is
//! ignored (the segment is still decoded, as for other malformed options); the first
//! Quick-Start option of a header wins.

use tcplab_tcp::startup::quickstart::wire::{IPOPT_QUICK_START, TCPOPT_QUICK_START};
use tcplab_tcp::startup::quickstart::{QsIpOption, QsResponse};

/// RFC 791 §3.1: option type 0 ends the option list, type 1 is a one-byte NOP (the TCP
/// option kinds 0 and 1 have the same meaning, RFC 9293 §3.1).
const OPT_END: u8 = 0;
const OPT_NOP: u8 = 1;
/// RFC 791: IPv4 header without options.
const IPV4_MIN_HEADER: usize = 20;

/// The option of type `kind` in a type-length-value option list, as a slice from its type
/// byte (`None` if absent or if the list is malformed before it).
fn find(opts: &[u8], kind: u8) -> Option<&[u8]> {
    let mut i = 0;
    while let Some(&k) = opts.get(i) {
        match k {
            OPT_END => return None,
            OPT_NOP => i += 1,
            _ => {
                let len = usize::from(*opts.get(i + 1)?);
                if len < 2 {
                    return None;
                }
                if k == kind {
                    return opts.get(i..);
                }
                i += len;
            }
        }
    }
    None
}

/// The Quick-Start option of the IPv4 header at the start of `l3` (`None` for IPv6, for no
/// option, or a malformed one).
pub fn ip_request(l3: &[u8]) -> Option<QsIpOption> {
    let first = *l3.first()?;
    if first >> 4 != 4 {
        return None;
    }
    let ihl = usize::from(first & 0x0f) * 4;
    let opts = l3.get(IPV4_MIN_HEADER..ihl)?;
    QsIpOption::decode(find(opts, IPOPT_QUICK_START)?).ok()
}

/// The Quick-Start Response among the TCP options bytes `opts` (after the fixed header).
pub fn tcp_response(opts: &[u8]) -> Option<QsResponse> {
    QsResponse::decode(find(opts, TCPOPT_QUICK_START)?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_tcp::startup::quickstart::QsFunc;

    fn ipv4_with_options(opts: &[u8]) -> Vec<u8> {
        let ihl = (20 + opts.len()) / 4;
        let mut v = vec![0x40 | ihl as u8];
        v.extend([0u8; 19]);
        v.extend(opts);
        v
    }

    #[test]
    fn the_ip_request_is_found_after_other_options() {
        let qs = [25, 8, 0x08, 0xa5, 0x12, 0x34, 0x56, 0x74];
        let mut opts = vec![1, 1, 7, 3, 0]; // NOP NOP, record route stub (len 3)
        opts.extend(qs);
        opts.extend([0, 0, 0]); // END + padding to a 4-byte multiple
        let got = ip_request(&ipv4_with_options(&opts));
        assert_eq!(got.map(|g| (g.func, g.rate.n(), g.qs_ttl, g.nonce)), Some((QsFunc::Request, 8, 0xa5, 0x1234_5674)));
        assert_eq!(ip_request(&ipv4_with_options(&[])), None);
        assert_eq!(ip_request(&[0x60, 0, 0]), None, "IPv6 carries it elsewhere");
        assert_eq!(ip_request(&ipv4_with_options(&[25, 6, 0, 0, 0, 0, 0, 0])), None, "bad length");
        assert_eq!(ip_request(&[0x47, 0, 0]), None, "truncated header");
    }

    #[test]
    fn the_tcp_response_is_found_among_timestamps() {
        let mut opts = vec![1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2];
        opts.extend([27, 8, 0x06, 200, 0, 0, 0, 4]);
        let r = tcp_response(&opts);
        assert_eq!(r.map(|r| (r.rate.n(), r.ttl_diff, r.nonce)), Some((6, 200, 4)));
        assert_eq!(tcp_response(&[1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2]), None);
        assert_eq!(tcp_response(&[27, 1]), None, "malformed length");
        assert_eq!(tcp_response(&[5, 0]), None);
    }
}
