//! Passive OS hints, p0f-style (Zalewski's p0f, the fingerprinting 003 §IV-A validated its
//! OS identification with): what a sender's SYN or SYN-ACK says about its stack without any
//! retransmission — the initial TTL (the observed TTL rounded up to the usual initial
//! values 32, 64, 128, 255), the advertised window, the MSS, the window scale and which
//! options it carries.
//!
//! They are reported apart from the replay evidence. One of them enters the decision, and
//! only to break a tie the replay left (`decide::decide_with_hint`, `model_basis`
//! `replay+hint`): the initial TTL excludes the candidates of the other OS family (128:
//! every Unix stack; 64: Windows), as p0f separates Windows from Linux 2.4 by it, and the
//! replay's rule then decides among the rest. Where candidates remain tied, the candidate
//! the hint's OS family picks (exactly one tied candidate in the family) is reported as
//! `os_hint_model`. The simulator sends each profile's initial TTL
//! (`tcplab_tcp::profile::initial_ttl`), so the corpus exercises the rule.
//!
//! Families (p0f v3 signature database, `p0f.fp`: `ittl` 64 for Linux, FreeBSD/MacOS and
//! Solaris 10, 128 for Windows):
//! - initial TTL 128: `windows-xp`;
//! - initial TTL 64: `linux`, `linux-2.4`, `freebsd-5`, `solaris-10`, `bsd-lite` (4.4BSD
//!   `IPDEFTTL` = 64).
//! `rfc6298` is not an OS and matches no hint.
//!
//! Ambiguity: the capture decoder (`tcplab-pcap`) keeps which options a segment carries,
//! not their order on the wire, so p0f's option-order signature cannot be read; the layout
//! column lists the options present in RFC 9293 order instead.

use tcplab_tcp::{Segment, TcpFlags};

/// The usual initial TTLs (p0f: "ittl"), ascending.
pub const INITIAL_TTLS: [u8; 4] = [32, 64, 128, 255];
/// p0f's Windows initial TTL.
pub const WINDOWS_INITIAL_TTL: u8 = tcplab_tcp::profile::WINDOWS_INITIAL_TTL;
/// p0f's Unix (Linux, BSD, Solaris 10) initial TTL.
pub const UNIX_INITIAL_TTL: u8 = tcplab_tcp::profile::UNIX_INITIAL_TTL;
/// The candidates of each family.
pub const WINDOWS_FAMILY: &[&str] = &["windows-xp"];
pub const UNIX_FAMILY: &[&str] = &["linux", "linux-2.4", "freebsd-5", "solaris-10", "bsd-lite"];

/// What the sender's SYN (or SYN-ACK) showed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PassiveHints {
    pub ttl: u8,
    pub initial_ttl: u8,
    pub window: u16,
    pub mss: Option<u16>,
    pub wscale: Option<u8>,
    /// Options present, in RFC 9293 order (`mss,ws,sok,ts`).
    pub layout: String,
}

/// The initial TTL a packet seen with `ttl` most likely left with.
pub fn initial_ttl(ttl: u8) -> u8 {
    INITIAL_TTLS.into_iter().find(|&i| ttl <= i).unwrap_or(255)
}

impl PassiveHints {
    /// From a SYN or SYN-ACK (`None` for other segments).
    pub fn from_syn(ttl: u8, s: &Segment) -> Option<PassiveHints> {
        if !s.flags.contains(TcpFlags::SYN) {
            return None;
        }
        let o = &s.options;
        let mut parts: Vec<&str> = Vec::new();
        if o.mss.is_some() {
            parts.push("mss");
        }
        if o.window_scale.is_some() {
            parts.push("ws");
        }
        if o.sack_permitted {
            parts.push("sok");
        }
        if o.timestamps.is_some() {
            parts.push("ts");
        }
        Some(PassiveHints { ttl, initial_ttl: initial_ttl(ttl), window: s.window, mss: o.mss, wscale: o.window_scale, layout: parts.join(",") })
    }

    /// The OS family the initial TTL points to.
    pub fn family(&self) -> &'static [&'static str] {
        match self.initial_ttl {
            WINDOWS_INITIAL_TTL => WINDOWS_FAMILY,
            UNIX_INITIAL_TTL => UNIX_FAMILY,
            _ => &[],
        }
    }

    /// The family's name for the tables.
    pub fn family_name(&self) -> &'static str {
        match self.initial_ttl {
            WINDOWS_INITIAL_TTL => "windows",
            UNIX_INITIAL_TTL => "unix",
            _ => "unknown",
        }
    }

    /// The candidate `name` belongs to the other OS family than the one the initial TTL
    /// points to (a Windows TTL and a Unix stack, or the reverse). `rfc6298` belongs to no
    /// family and an initial TTL of 32 or 255 points to none: never excluded. This is the
    /// one way a hint enters the decision (`decide::decide_with_hint`).
    pub fn excludes(&self, name: &str) -> bool {
        let fam = self.family();
        let other: &[&str] = match self.initial_ttl {
            WINDOWS_INITIAL_TTL => UNIX_FAMILY,
            UNIX_INITIAL_TTL => WINDOWS_FAMILY,
            _ => &[],
        };
        !fam.contains(&name) && other.contains(&name)
    }

    /// The one tied candidate in the hint's family, if exactly one is.
    pub fn tie_break<'a>(&self, tied: &'a [String]) -> Option<&'a str> {
        let fam = self.family();
        let mut it = tied.iter().filter(|c| fam.contains(&c.as_str()));
        match (it.next(), it.next()) {
            (Some(one), None) if tied.len() > 1 => Some(one.as_str()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_tcp::{SeqNum, TcpOptions};

    fn syn(window: u16) -> Segment {
        Segment {
            seq: SeqNum(1),
            flags: TcpFlags::SYN,
            window,
            options: TcpOptions { mss: Some(1460), window_scale: Some(7), sack_permitted: true, timestamps: Some((1, 0)), ..Default::default() },
            ..Default::default()
        }
    }

    /// p0f: the observed TTL rounds up to the nearest usual initial TTL.
    #[test]
    fn initial_ttl_rounds_up() {
        assert_eq!(initial_ttl(1), 32);
        assert_eq!(initial_ttl(50), 64);
        assert_eq!(initial_ttl(64), 64);
        assert_eq!(initial_ttl(117), 128);
        assert_eq!(initial_ttl(200), 255);
    }

    #[test]
    fn a_syn_gives_hints_and_a_data_segment_none() {
        let h = PassiveHints::from_syn(57, &syn(64240)).unwrap();
        assert_eq!((h.initial_ttl, h.window, h.layout.as_str(), h.family_name()), (64, 64240, "mss,ws,sok,ts", "unix"));
        let mut d = syn(100);
        d.flags = TcpFlags::ACK;
        assert!(PassiveHints::from_syn(57, &d).is_none());
    }

    /// The hint picks among tied candidates only when exactly one is in its family.
    #[test]
    fn the_hint_breaks_a_tie_only_with_one_match() {
        let win = PassiveHints::from_syn(120, &syn(65535)).unwrap();
        let tied = vec!["linux-2.4".to_string(), "windows-xp".to_string()];
        assert_eq!(win.tie_break(&tied), Some("windows-xp"));
        let unix = PassiveHints::from_syn(60, &syn(65535)).unwrap();
        assert_eq!(unix.tie_break(&tied), Some("linux-2.4"));
        let two_unix = vec!["linux".to_string(), "linux-2.4".to_string()];
        assert_eq!(unix.tie_break(&two_unix), None);
        // No tie: nothing to break.
        assert_eq!(win.tie_break(&tied[1..]), None);
    }

    /// A Unix TTL excludes only Windows; a Windows TTL every Unix stack; `rfc6298` and an
    /// unusual initial TTL exclude nothing.
    #[test]
    fn the_initial_ttl_excludes_the_other_family_only() {
        let unix = PassiveHints::from_syn(60, &syn(65535)).unwrap();
        assert!(unix.excludes("windows-xp"));
        assert!(!unix.excludes("linux-2.4") && !unix.excludes("rfc6298"));
        let win = PassiveHints::from_syn(120, &syn(65535)).unwrap();
        assert!(win.excludes("linux") && win.excludes("bsd-lite"));
        assert!(!win.excludes("windows-xp") && !win.excludes("rfc6298"));
        let odd = PassiveHints::from_syn(250, &syn(65535)).unwrap();
        assert!(!odd.excludes("windows-xp") && !odd.excludes("linux"));
    }
}
