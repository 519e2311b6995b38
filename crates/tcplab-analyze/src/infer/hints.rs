//! Passive OS hints, p0f-style (Zalewski's p0f, the fingerprinting 003 §IV-A validated its
//! OS identification with): what a sender's SYN or SYN-ACK says about its stack without any
//! retransmission — the initial TTL (the observed TTL rounded up to the usual initial
//! values 32, 64, 128, 255), the advertised window, the MSS, the window scale and which
//! options it carries.
//!
//! They are reported apart from the replay evidence. They enter the decision only to break
//! a tie the replay left (`decide::decide_with_hint`, `model_basis` `replay+hint`), through
//! [`PassiveHints::excludes`], in two ways:
//! - **OS signature** ([`PassiveHints::os_match`]): the initial TTL, the option layout and the
//!   window scale together match one line of [`OS_SIGNATURES`] (p0f-style; each line's source
//!   is in its doc), i.e. they point to one OS. Every candidate that models another OS is
//!   excluded. `rfc6298` models no OS and is never excluded: a sender configured by the RFCs
//!   alone writes some stack's layout (the simulator's writes Linux's, the engine's), so a
//!   layout cannot tell it from that stack. (Measured: excluding it too, as an earlier draft
//!   did, called 8 simulated `rfc6298` connections `linux` in the inference corpus, 20 flows
//!   × 4 seeds: 7 at the sender, 1 at the bottleneck, none with a timeout.) A layout listed
//!   under two OSes points to none (nothing is excluded by it).
//! - **Initial TTL family** (when no OS signature matches): 128 excludes every Unix stack, 64
//!   Windows, as p0f separates Windows from Linux 2.4 by it; `rfc6298` is never excluded.
//!
//! The replay's rule then decides among the candidates left, and may only name one the replay
//! itself left tied. Where candidates remain tied, the one tied candidate the hint points to
//! (if exactly one) is reported as `os_hint_model`. The simulator sends each profile's initial
//! TTL (`tcplab_tcp::profile::initial_ttl`) and handshake option layout
//! (`tcplab_tcp::profile::SynOptionLayout`), so the corpus exercises both.
//!
//! Ambiguities resolved for the OS signatures:
//! - p0f's signatures also fix the window (`mss*4`, `65535`, ...); the window is left out here,
//!   since it follows the socket buffer a host was configured with (the simulator's follows the
//!   scenario's `recv_buffer`, not the OS), as is p0f's `quirks` field.
//! - Linux 2.4 against today's Linux: every p0f v3 `s:unix:Linux:2.4.x` signature has window
//!   scale 0-2; the 2.6.x ones 6-8, the 3.x ones 4-7, Android's 1 and 3 (today's kernels all).
//!   A Linux layout with a scale of at least [`LINUX_2_6_MIN_WSCALE`] points to `linux` alone;
//!   a lower scale (or none) to both Linux profiles. (`tcp_select_initial_window`: 2.6 and
//!   later "Set window scaling on max possible window", `max(sysctl_tcp_rmem[2],
//!   sysctl_rmem_max)`; 2.4 sized it from the socket's own receive space, 87380 bytes by
//!   default. A Linux 2.4 host given a receive buffer for a window above 256 KiB, scale 3 or
//!   more, would be named wrongly; the inference corpus gives its `linux-2.4` hosts Linux
//!   2.4's default.)
//! - The lines are the p0f v3 SYN (`[tcp:request]`) and SYN+ACK (`[tcp:response]`) layouts of
//!   the candidates' OSes only (Linux, Windows XP, Solaris 10), plus the BSD layouts read from
//!   FreeBSD 5.3's and 4.4BSD-Lite's tcp_output.c (p0f v3 has no FreeBSD 5 line; its OpenBSD
//!   3.x line, same code, is `mss,nop,nop,sok,nop,ws,nop,nop,ts`). A layout only another OS
//!   writes (Mac OS X's trailing `sok,eol`, say) matches no line and excludes nothing.
//! - Layouts every candidate OS writes (`mss`, `mss,nop,ws`, `mss,nop,nop,sok` at TTL 64) are
//!   listed under several OSes and so point to none.
//!
//! Families (p0f v3 signature database, `p0f.fp`: `ittl` 64 for Linux, FreeBSD/MacOS and
//! Solaris 10, 128 for Windows):
//! - initial TTL 128: `windows-xp`;
//! - initial TTL 64: `linux`, `linux-2.4`, `freebsd-5`, `solaris-10`, `bsd-lite` (4.4BSD
//!   `IPDEFTTL` = 64).
//! `rfc6298` is not an OS and matches no hint.
//!
//! The layout column is p0f's `olayout`: the SYN's option kinds in wire order, NOPs
//! included (`tcplab_pcap::OptionLayout`, kept by the reader for SYN segments only), named
//! as p0f names them (`mss`, `nop`, `ws`, `sok`, `sack`, `ts`, `eol`, `?K` for another kind
//! K). Ambiguity resolved: p0f writes `eol+N` with the padding count after an EOL; here
//! `eol` alone (the padding is not kept). A SYN given without its wire layout (an empty
//! one: a hand-built segment) lists the options present in RFC 9293 order instead.

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

/// p0f v3: the lowest window scale of its Linux 2.6.x / 3.x / Android signatures that no
/// `s:unix:Linux:2.4.x` signature has (2.4.x: 0-2; Android: 1 and 3; 3.x: 4-7; 2.6.x: 6-8).
pub const LINUX_2_6_MIN_WSCALE: u8 = 3;

/// One OS's handshake option layouts, p0f-style (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OsSignature {
    /// The OS, as the tables name it.
    pub os: &'static str,
    /// p0f's `ittl`.
    pub ittl: u8,
    /// p0f `olayout`s that OS writes on a SYN or SYN+ACK.
    pub layouts: &'static [&'static str],
    /// The candidate profiles that model it.
    pub profiles: &'static [&'static str],
}

/// Linux's layouts: p0f v3 `p0f.fp` `[tcp:request]` `s:unix:Linux:*` and the
/// `g:unix:Linux:2.2.x-3.x (no timestamps)` line, and `[tcp:response]` `s:unix:Linux:3.x`
/// (the layouts Linux writes when the peer offered only some options). `tcp_options_write`
/// writes exactly these. The ambiguous `mss`, `mss,nop,ws`, `mss,nop,nop,sok` and
/// `mss,nop,nop,sok,nop,ws` are left to [`AMBIGUOUS_LAYOUTS`].
const LINUX_LAYOUTS: &[&str] = &["mss,sok,ts,nop,ws", "mss,nop,nop,ts,nop,ws", "mss,sok,ts", "mss,nop,nop,ts"];

/// The OS signatures (module docs). Each line's source is in its comment.
pub const OS_SIGNATURES: [OsSignature; 5] = [
    // p0f v3 `s:unix:Linux:2.6.x`, `3.x`, `(Android)` with window scale >= 3 (module docs).
    OsSignature { os: "linux-2.6+", ittl: UNIX_INITIAL_TTL, layouts: LINUX_LAYOUTS, profiles: &["linux"] },
    // p0f v3 `s:unix:Linux:2.4.x` (and the others with scale 0-2): either Linux profile.
    OsSignature { os: "linux", ittl: UNIX_INITIAL_TTL, layouts: LINUX_LAYOUTS, profiles: &["linux", "linux-2.4"] },
    // p0f v3 `s:win:Windows:XP`, [tcp:request] and [tcp:response] (ittl 128).
    OsSignature {
        os: "windows-xp",
        ittl: WINDOWS_INITIAL_TTL,
        layouts: &["mss,nop,nop,sok", "mss,nop,ws,nop,nop,sok", "mss,nop,ws", "mss,nop,nop,ts", "mss,nop,ws,nop,nop,ts", "mss,nop,nop,ts,nop,nop,sok", "mss,nop,ws,nop,nop,ts,nop,nop,sok"],
        profiles: &["windows-xp"],
    },
    // FreeBSD 5.3 tcp_output.c: MSS; NOP NOP SACK_PERM; NOP WS; NOP NOP TS (4.4BSD-Lite's
    // without the SACK block). p0f v3 `s:unix:OpenBSD:3.x` has the full one.
    OsSignature {
        os: "bsd",
        ittl: UNIX_INITIAL_TTL,
        layouts: &["mss,nop,nop,sok,nop,ws,nop,nop,ts", "mss,nop,ws,nop,nop,ts", "mss,nop,nop,sok,nop,nop,ts"],
        profiles: &["freebsd-5", "bsd-lite"],
    },
    // p0f v3 `s:unix:Solaris:10`: [tcp:request] `mss,nop,ws,nop,nop,sok`; [tcp:response]
    // with timestamps first.
    OsSignature {
        os: "solaris-10",
        ittl: UNIX_INITIAL_TTL,
        layouts: &["mss,nop,ws,nop,nop,sok", "nop,nop,ts,mss", "nop,nop,ts,mss,nop,ws", "nop,nop,ts,mss,nop,nop,sok", "nop,nop,ts,mss,nop,ws,nop,nop,sok"],
        profiles: &["solaris-10"],
    },
];

/// Layouts listed under several of the OSes at the same initial TTL (p0f v3: `mss`,
/// `mss,nop,ws` and `mss,nop,nop,sok` are Linux, Solaris 10 and FreeBSD/OpenBSD SYN+ACK
/// layouts alike; `mss,nop,nop,sok,nop,ws` is Linux's without timestamps and OpenBSD 5.x's
/// SYN+ACK): they point to no OS.
pub const AMBIGUOUS_LAYOUTS: [&str; 4] = ["mss", "mss,nop,ws", "mss,nop,nop,sok", "mss,nop,nop,sok,nop,ws"];

/// What the sender's SYN (or SYN-ACK) showed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PassiveHints {
    pub ttl: u8,
    pub initial_ttl: u8,
    pub window: u16,
    pub mss: Option<u16>,
    pub wscale: Option<u8>,
    /// p0f's olayout: the option kinds in wire order (module docs).
    pub layout: String,
}

/// p0f's name of an option kind in `olayout`: the engine's one naming, shared with the
/// simulator's layouts (`tcplab_tcp::profile::SynOptionLayout::olayout`).
pub use tcplab_tcp::profile::p0f_option_name;

/// The initial TTL a packet seen with `ttl` most likely left with.
pub fn initial_ttl(ttl: u8) -> u8 {
    INITIAL_TTLS.into_iter().find(|&i| ttl <= i).unwrap_or(255)
}

impl PassiveHints {
    /// From a SYN or SYN-ACK (`None` for other segments); `kinds`: its option kinds in wire
    /// order (`tcplab_pcap::OptionLayout::kinds`), empty when not known.
    pub fn from_syn(ttl: u8, s: &Segment, kinds: &[u8]) -> Option<PassiveHints> {
        if !s.flags.contains(TcpFlags::SYN) {
            return None;
        }
        let o = &s.options;
        if !kinds.is_empty() {
            let layout = kinds.iter().map(|&k| p0f_option_name(k)).collect::<Vec<_>>().join(",");
            return Some(PassiveHints { ttl, initial_ttl: initial_ttl(ttl), window: s.window, mss: o.mss, wscale: o.window_scale, layout });
        }
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

    /// The OS the initial TTL, option layout and window scale point to (module docs): the
    /// first line of [`OS_SIGNATURES`] with this TTL and layout (and, for the Linux 2.6+
    /// line, a window scale of at least [`LINUX_2_6_MIN_WSCALE`]); `None` for a layout of
    /// [`AMBIGUOUS_LAYOUTS`] or one no line lists.
    pub fn os_match(&self) -> Option<&'static OsSignature> {
        if AMBIGUOUS_LAYOUTS.contains(&self.layout.as_str()) {
            return None;
        }
        OS_SIGNATURES.iter().find(|sig| {
            sig.ittl == self.initial_ttl
                && sig.layouts.contains(&self.layout.as_str())
                && (sig.os != "linux-2.6+" || self.wscale.is_some_and(|w| w >= LINUX_2_6_MIN_WSCALE))
        })
    }

    /// The candidates the hint points to: the matched OS's profiles, else the initial TTL's
    /// family.
    pub fn points_to(&self) -> &'static [&'static str] {
        self.os_match().map_or_else(|| self.family(), |sig| sig.profiles)
    }

    /// The hint excludes candidate `name` (module docs): with an OS match, every OS profile
    /// (of [`UNIX_FAMILY`] or [`WINDOWS_FAMILY`]) not among that OS's profiles; else a
    /// candidate of the other OS family than the initial TTL's (a Windows TTL and a Unix
    /// stack, or the reverse; an initial TTL of 32 or 255 points to none). `rfc6298` models
    /// no OS and is never excluded. This is the one way a hint enters the decision
    /// (`decide::decide_with_hint`).
    pub fn excludes(&self, name: &str) -> bool {
        if let Some(sig) = self.os_match() {
            let os_profile = UNIX_FAMILY.contains(&name) || WINDOWS_FAMILY.contains(&name);
            return os_profile && !sig.profiles.contains(&name);
        }
        let fam = self.family();
        let other: &[&str] = match self.initial_ttl {
            WINDOWS_INITIAL_TTL => UNIX_FAMILY,
            UNIX_INITIAL_TTL => WINDOWS_FAMILY,
            _ => &[],
        };
        !fam.contains(&name) && other.contains(&name)
    }

    /// The one tied candidate the hint points to ([`PassiveHints::points_to`]), if exactly
    /// one is.
    pub fn tie_break<'a>(&self, tied: &'a [String]) -> Option<&'a str> {
        let fam = self.points_to();
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
        let h = PassiveHints::from_syn(57, &syn(64240), &[]).unwrap();
        assert_eq!((h.initial_ttl, h.window, h.layout.as_str(), h.family_name()), (64, 64240, "mss,ws,sok,ts", "unix"));
        let mut d = syn(100);
        d.flags = TcpFlags::ACK;
        assert!(PassiveHints::from_syn(57, &d, &[]).is_none());
    }

    /// The hint picks among tied candidates only when exactly one is in its family.
    #[test]
    fn the_hint_breaks_a_tie_only_with_one_match() {
        let win = PassiveHints::from_syn(120, &syn(65535), &[]).unwrap();
        let tied = vec!["linux-2.4".to_string(), "windows-xp".to_string()];
        assert_eq!(win.tie_break(&tied), Some("windows-xp"));
        let unix = PassiveHints::from_syn(60, &syn(65535), &[]).unwrap();
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
        let unix = PassiveHints::from_syn(60, &syn(65535), &[]).unwrap();
        assert!(unix.excludes("windows-xp"));
        assert!(!unix.excludes("linux-2.4") && !unix.excludes("rfc6298"));
        let win = PassiveHints::from_syn(120, &syn(65535), &[]).unwrap();
        assert!(win.excludes("linux") && win.excludes("bsd-lite"));
        assert!(!win.excludes("windows-xp") && !win.excludes("rfc6298"));
        let odd = PassiveHints::from_syn(250, &syn(65535), &[]).unwrap();
        assert!(!odd.excludes("windows-xp") && !odd.excludes("linux"));
    }

    fn hint(ttl: u8, kinds: &[u8], ws: Option<u8>) -> PassiveHints {
        let mut s = syn(64240);
        s.options.window_scale = ws;
        PassiveHints::from_syn(ttl, &s, kinds).unwrap()
    }

    /// The kinds of a p0f olayout (`mss` 2, `nop` 1, `ws` 3, `sok` 4, `ts` 8).
    fn kinds(olayout: &str) -> Vec<u8> {
        olayout.split(',').map(|k| match k { "mss" => 2, "nop" => 1, "ws" => 3, "sok" => 4, "ts" => 8, _ => 0 }).collect()
    }

    /// Each profile's simulated SYN layout (`SynOptionLayout`) points to its own OS, with or
    /// without SACK and timestamps; the Linux layout names `linux` alone from window scale 3
    /// up (p0f: 2.4.x 0-2), both Linux profiles below.
    #[test]
    fn each_stack_s_layout_points_to_its_os() {
        use tcplab_tcp::profile::SynOptionLayout as L;
        use tcplab_tcp::TcpOptions;
        let o = |sok: bool, ts: bool| TcpOptions { mss: Some(1460), window_scale: Some(7), sack_permitted: sok, timestamps: ts.then_some((1, 0)), ..Default::default() };
        for (layout, ttl, want) in [(L::Linux, 64, "linux-2.6+"), (L::Bsd, 64, "bsd"), (L::WindowsXp, 128, "windows-xp"), (L::Solaris10, 64, "solaris-10")] {
            for (sok, ts) in [(true, true), (false, true), (true, false)] {
                let h = hint(ttl, &kinds(&layout.olayout(&o(sok, ts))), Some(7));
                // SACK without timestamps: Linux and BSD write the same `mss,nop,nop,sok,nop,ws`.
                let want = if sok && !ts && matches!(layout, L::Linux | L::Bsd) { None } else { Some(want) };
                assert_eq!(h.os_match().map(|s| s.os), want, "{layout:?} sok {sok} ts {ts}: {}", h.layout);
            }
        }
        // The real Linux fixtures' SYN (ws 10) and its sack-off form: linux alone.
        let real = hint(64, &[2, 4, 8, 1, 3], Some(10));
        assert_eq!(real.points_to(), &["linux"]);
        assert!(real.excludes("linux-2.4") && real.excludes("solaris-10") && real.excludes("windows-xp"));
        assert!(!real.excludes("linux") && !real.excludes("rfc6298"), "rfc6298 is no OS");
        assert_eq!(hint(64, &kinds("mss,nop,nop,ts,nop,ws"), Some(10)).points_to(), &["linux"]);
        // p0f's 2.4.x scales: both Linux profiles, still not rfc6298 or another OS.
        let old = hint(64, &[2, 4, 8, 1, 3], Some(2));
        assert_eq!(old.points_to(), &["linux", "linux-2.4"]);
        assert!(old.excludes("freebsd-5") && !old.excludes("linux-2.4") && !old.excludes("rfc6298"));
    }

    /// A layout several OSes write, or one no line lists, points to no OS: only the TTL
    /// family rule applies (rfc6298 never excluded). A Linux layout with a Windows TTL
    /// matches no line either.
    #[test]
    fn an_ambiguous_or_unknown_layout_points_to_no_os() {
        for l in ["mss", "mss,nop,ws", "mss,nop,nop,sok", "mss,nop,ws,nop,nop,ts,sok,eol"] {
            let h = hint(64, &kinds(l), Some(3));
            assert_eq!(h.os_match(), None, "{l}");
            assert!(!h.excludes("rfc6298") && !h.excludes("solaris-10") && h.excludes("windows-xp"), "{l}");
        }
        assert_eq!(hint(128, &[2, 4, 8, 1, 3], Some(7)).os_match(), None);
        // Solaris 10 and Windows XP share `mss,nop,ws,nop,nop,sok`: the TTL separates them.
        assert_eq!(hint(64, &kinds("mss,nop,ws,nop,nop,sok"), Some(0)).os_match().map(|s| s.os), Some("solaris-10"));
        assert_eq!(hint(128, &kinds("mss,nop,ws,nop,nop,sok"), Some(0)).os_match().map(|s| s.os), Some("windows-xp"));
    }

    /// The tie-break pick follows the OS match when there is one.
    #[test]
    fn the_tie_break_follows_the_os_match() {
        let real = hint(64, &[2, 4, 8, 1, 3], Some(10));
        let tied = vec!["linux".to_string(), "solaris-10".to_string(), "rfc6298".to_string()];
        assert_eq!(real.tie_break(&tied), Some("linux"));
        let two = vec!["linux".to_string(), "linux-2.4".to_string()];
        assert_eq!(real.tie_break(&two), Some("linux"));
        assert_eq!(hint(64, &[2, 4, 8, 1, 3], Some(1)).tie_break(&two), None);
    }

    /// With the wire layout, the column is p0f's olayout (a Linux SYN: mss,sok,ts,nop,ws).
    #[test]
    fn the_layout_is_in_wire_order_when_known() {
        let h = PassiveHints::from_syn(64, &syn(64240), &[2, 4, 8, 1, 3]).unwrap();
        assert_eq!(h.layout, "mss,sok,ts,nop,ws");
        let odd = PassiveHints::from_syn(64, &syn(64240), &[2, 1, 1, 4, 30, 0]).unwrap();
        assert_eq!(odd.layout, "mss,nop,nop,sok,?30,eol");
    }
}
