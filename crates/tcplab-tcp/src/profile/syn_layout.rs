//! The order and NOP padding of the options on a stack's SYN and SYN-ACK: a profile fact the
//! simulator's capture writes (`tcplab-netsim` `pcap.rs`) and a passive fingerprint (p0f's
//! `olayout`) reads back (`tcplab-analyze` `infer::hints`).
//!
//! Each stack writes its handshake options as 4-byte-aligned blocks in a fixed order; a block
//! is written only when its option is sent (which options are sent is the engine's business:
//! `TcpConfig::{sack, timestamps, window_scale}` and, on a SYN-ACK, what the peer offered).
//! Sources, block by block:
//!
//! - **Linux** (`linux`, `linux-2.4`): `tcp_options_write` in net/ipv4/tcp_output.c (and
//!   Linux 2.4's `tcp_syn_build_options`, the same words): `MSS`; with timestamps
//!   `SACK_PERM TS` when SACK is offered, else `NOP NOP TS`; without timestamps
//!   `NOP NOP SACK_PERM`; then `NOP WS`. p0f v3 `p0f.fp` lists it for Linux 2.2 to 3.x:
//!   `mss,sok,ts,nop,ws`, `mss,nop,nop,sok,nop,ws` (no timestamps).
//! - **BSD** (`freebsd-5`, `bsd-lite` and the research profiles built on it): 4.4BSD-Lite
//!   `tcp_output` (tcp_output.c 8.4, as in TCP/IP Illustrated Vol. 2): `MSS`, then
//!   `TCPOPT_NOP<<24 | TCPOPT_WINDOW<<16 | ...` (`NOP WS`), then `TCPOPT_TSTAMP_HDR`
//!   (`NOP NOP TS`); FreeBSD 5.3's tcp_output.c (RELENG_5, `opt_tcp_sack.h`) puts
//!   `TCPOPT_SACK_PERMIT_HDR` (`NOP NOP SACK_PERM`) right after the MSS: `mss,nop,nop,sok,
//!   nop,ws,nop,nop,ts`, the layout p0f v3 lists for OpenBSD 3.x, which shares that code.
//!   4.4BSD-Lite has no SACK: a `bsd-lite` host configured with SACK puts it where its
//!   descendant FreeBSD 5 does (tcplab choice).
//! - **Windows XP** (`windows-xp`): p0f v3 `p0f.fp`, `s:win:Windows:XP`: SYN
//!   `mss,nop,ws,nop,nop,sok` and `mss,nop,nop,sok`; the SYN+ACK signatures give where the
//!   timestamps go: `mss,nop,ws,nop,nop,ts,nop,nop,sok`. Blocks: `MSS`, `NOP WS`,
//!   `NOP NOP TS`, `NOP NOP SACK_PERM`.
//! - **Solaris 10** (`solaris-10`): p0f v3 `s:unix:Solaris:10`: SYN `mss,nop,ws,nop,nop,sok`;
//!   SYN+ACK `nop,nop,ts,mss,nop,ws,nop,nop,sok` (timestamps first). Blocks: `NOP NOP TS`,
//!   `MSS`, `NOP WS`, `NOP NOP SACK_PERM`.
//! - `rfc6298` is no OS: it keeps the engine's (Linux) layout, as before (no source says
//!   otherwise).
//!
//! Ambiguity resolved: the engine's `TcpOptions::encoded_len` (Linux's length) stays the
//! length the simulator's links count; a BSD, Windows or Solaris SYN with SACK and timestamps
//! is 4 bytes longer in a capture (24 option bytes instead of 20) than on the simulated wire.
//! The capture is what the analyzer reads; the 4 bytes' serialization time is not modelled,
//! so every simulated output except the capture's handshake records is unchanged.

use crate::config::{RtoEstimatorKind, TcpConfig};
use crate::segment::TcpOptions;

/// One element of a handshake's option list, in wire order.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SynOption {
    /// Kind 1 (RFC 9293 §3.1).
    Nop,
    /// Kind 2.
    Mss(u16),
    /// Kind 3 (RFC 7323 §2.2).
    WindowScale(u8),
    /// Kind 4 (RFC 2018 §2).
    SackPermitted,
    /// Kind 8 (RFC 7323 §3.2): (TSval, TSecr).
    Timestamps(u32, u32),
}

impl SynOption {
    /// The option's kind byte (RFC 9293 §3.1, RFC 7323, RFC 2018).
    pub const fn kind(&self) -> u8 {
        match self {
            SynOption::Nop => 1,
            SynOption::Mss(_) => 2,
            SynOption::WindowScale(_) => 3,
            SynOption::SackPermitted => 4,
            SynOption::Timestamps(..) => 8,
        }
    }
}

/// p0f's name of an option kind in `olayout` (p0f v3 README: eol, nop, mss, ws, sok, sack,
/// ts, ?n): the one naming the simulator's layouts and the analyzer's hints share.
pub fn p0f_option_name(kind: u8) -> std::borrow::Cow<'static, str> {
    match kind {
        0 => "eol".into(),
        1 => "nop".into(),
        2 => "mss".into(),
        3 => "ws".into(),
        4 => "sok".into(),
        5 => "sack".into(),
        8 => "ts".into(),
        k => format!("?{k}").into(),
    }
}

/// Most elements any layout writes (Solaris 10 and BSD with all four options: 9).
pub const MAX_SYN_OPTIONS: usize = 9;

/// A stack's handshake option layout (module docs for each one's source).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum SynOptionLayout {
    /// Linux `tcp_options_write`; also the engine's default.
    #[default]
    Linux,
    /// 4.4BSD-Lite / FreeBSD 5 `tcp_output`.
    Bsd,
    /// Windows XP (p0f v3).
    WindowsXp,
    /// Solaris 10 (p0f v3).
    Solaris10,
}

/// A fixed-capacity list of [`SynOption`]s (no allocation per packet).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SynOptionList {
    items: [SynOption; MAX_SYN_OPTIONS],
    len: usize,
}

impl SynOptionList {
    fn push(&mut self, els: &[SynOption]) {
        for &e in els {
            if let Some(slot) = self.items.get_mut(self.len) {
                *slot = e;
                self.len += 1;
            }
        }
    }
    pub fn as_slice(&self) -> &[SynOption] {
        &self.items[..self.len]
    }
    /// Encoded length in bytes (every block is 4-byte aligned).
    pub fn encoded_len(&self) -> usize {
        self.as_slice()
            .iter()
            .map(|o| match o {
                SynOption::Nop => 1,
                SynOption::Mss(_) => 4,
                SynOption::WindowScale(_) => 3,
                SynOption::SackPermitted => 2,
                SynOption::Timestamps(..) => 10,
            })
            .sum()
    }
}

impl SynOptionLayout {
    /// Every layout.
    pub const ALL: [SynOptionLayout; 4] = [SynOptionLayout::Linux, SynOptionLayout::Bsd, SynOptionLayout::WindowsXp, SynOptionLayout::Solaris10];

    /// The layout of the stack a configuration's profile models. As for the initial TTL
    /// (`profile::initial_ttl`), the RTO estimator stands for the OS: Linux's for `linux` and
    /// `linux-2.4`, the BSD ones (`BsdLite`, `BrakmoPeterson`, `Decoupled`, `FreeBsd`) for the
    /// BSD stacks, Windows' and Solaris' for theirs; the RFC's keeps the engine's layout.
    pub const fn of(cfg: &TcpConfig) -> SynOptionLayout {
        match cfg.rto_estimator {
            RtoEstimatorKind::Linux | RtoEstimatorKind::Rfc6298 => SynOptionLayout::Linux,
            RtoEstimatorKind::BsdLite | RtoEstimatorKind::BrakmoPeterson | RtoEstimatorKind::Decoupled | RtoEstimatorKind::FreeBsd => SynOptionLayout::Bsd,
            RtoEstimatorKind::Windows => SynOptionLayout::WindowsXp,
            RtoEstimatorKind::Solaris => SynOptionLayout::Solaris10,
        }
    }

    /// The handshake options `o` carries (MSS, window scale, SACK-permitted, timestamps), in
    /// this stack's order with its NOP padding (module docs). SACK blocks and Quick-Start are
    /// not handshake options of these stacks and are left to the caller.
    pub fn write(self, o: &TcpOptions) -> SynOptionList {
        use SynOption::*;
        let mut v = SynOptionList { items: [Nop; MAX_SYN_OPTIONS], len: 0 };
        let mss = o.mss.map(Mss);
        let ws = o.window_scale.map(WindowScale);
        let ts = o.timestamps.map(|(val, ecr)| Timestamps(val, ecr));
        let sok = o.sack_permitted;
        match self {
            // tcp_options_write: MSS; SACK_PERM+TS or NOP NOP TS or NOP NOP SACK_PERM; NOP WS.
            SynOptionLayout::Linux => {
                v.push(mss.as_slice());
                match (sok, ts) {
                    (true, Some(t)) => v.push(&[SackPermitted, t]),
                    (false, Some(t)) => v.push(&[Nop, Nop, t]),
                    (true, None) => v.push(&[Nop, Nop, SackPermitted]),
                    (false, None) => {}
                }
                if let Some(w) = ws {
                    v.push(&[Nop, w]);
                }
            }
            // MSS; NOP NOP SACK_PERM (FreeBSD 5.3); NOP WS; NOP NOP TS (TCPOPT_TSTAMP_HDR).
            SynOptionLayout::Bsd => {
                v.push(mss.as_slice());
                if sok {
                    v.push(&[Nop, Nop, SackPermitted]);
                }
                if let Some(w) = ws {
                    v.push(&[Nop, w]);
                }
                if let Some(t) = ts {
                    v.push(&[Nop, Nop, t]);
                }
            }
            // p0f: mss,nop,ws,nop,nop,ts,nop,nop,sok.
            SynOptionLayout::WindowsXp => {
                v.push(mss.as_slice());
                if let Some(w) = ws {
                    v.push(&[Nop, w]);
                }
                if let Some(t) = ts {
                    v.push(&[Nop, Nop, t]);
                }
                if sok {
                    v.push(&[Nop, Nop, SackPermitted]);
                }
            }
            // p0f: nop,nop,ts,mss,nop,ws,nop,nop,sok.
            SynOptionLayout::Solaris10 => {
                if let Some(t) = ts {
                    v.push(&[Nop, Nop, t]);
                }
                v.push(mss.as_slice());
                if let Some(w) = ws {
                    v.push(&[Nop, w]);
                }
                if sok {
                    v.push(&[Nop, Nop, SackPermitted]);
                }
            }
        }
        v
    }

    /// p0f's `olayout` of this layout for `o` (e.g. `mss,sok,ts,nop,ws`).
    pub fn olayout(self, o: &TcpOptions) -> String {
        self.write(o).as_slice().iter().map(|e| p0f_option_name(e.kind())).collect::<Vec<_>>().join(",")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Profile;

    fn opts(sok: bool, ts: bool, ws: bool) -> TcpOptions {
        TcpOptions { mss: Some(1460), window_scale: ws.then_some(7), sack_permitted: sok, timestamps: ts.then_some((1, 0)), ..TcpOptions::default() }
    }

    /// Each layout with every option, and the sources' shorter forms (module docs): Linux's
    /// from `tcp_options_write`, BSD's from tcp_output.c, Windows XP's and Solaris 10's
    /// from p0f v3's SYN and SYN+ACK signatures.
    #[test]
    fn layouts_match_their_sources() {
        use SynOptionLayout::*;
        let all = opts(true, true, true);
        assert_eq!(Linux.olayout(&all), "mss,sok,ts,nop,ws");
        assert_eq!(Linux.olayout(&opts(false, true, true)), "mss,nop,nop,ts,nop,ws");
        assert_eq!(Linux.olayout(&opts(true, false, true)), "mss,nop,nop,sok,nop,ws");
        assert_eq!(Bsd.olayout(&all), "mss,nop,nop,sok,nop,ws,nop,nop,ts");
        assert_eq!(Bsd.olayout(&opts(false, true, true)), "mss,nop,ws,nop,nop,ts");
        assert_eq!(WindowsXp.olayout(&opts(true, false, true)), "mss,nop,ws,nop,nop,sok");
        assert_eq!(WindowsXp.olayout(&opts(true, false, false)), "mss,nop,nop,sok");
        assert_eq!(WindowsXp.olayout(&all), "mss,nop,ws,nop,nop,ts,nop,nop,sok");
        assert_eq!(Solaris10.olayout(&opts(true, false, true)), "mss,nop,ws,nop,nop,sok");
        assert_eq!(Solaris10.olayout(&all), "nop,nop,ts,mss,nop,ws,nop,nop,sok");
        assert_eq!(Solaris10.olayout(&opts(false, true, false)), "nop,nop,ts,mss");
        for l in SynOptionLayout::ALL {
            assert_eq!(l.olayout(&opts(false, false, false)), "mss");
        }
    }

    /// The Linux layout is the engine's: its length is `TcpOptions::encoded_len` for every
    /// combination; the others are 4-byte aligned and at most 4 bytes longer.
    #[test]
    fn lengths_are_aligned_and_linux_s_is_the_engine_s() {
        for bits in 0..8u8 {
            let o = opts(bits & 1 != 0, bits & 2 != 0, bits & 4 != 0);
            assert_eq!(SynOptionLayout::Linux.write(&o).encoded_len(), o.encoded_len(), "{o:?}");
            for l in SynOptionLayout::ALL {
                let n = l.write(&o).encoded_len();
                assert_eq!(n % 4, 0, "{l:?} {o:?}");
                assert!(n <= o.encoded_len() + 4, "{l:?} {o:?}");
            }
        }
    }

    /// Which profile writes which layout.
    #[test]
    fn profiles_map_to_their_stack_s_layout() {
        let of = |n: &str| SynOptionLayout::of(&Profile::by_name(n).map(|p| p.config()).unwrap_or_default());
        assert_eq!(of("linux"), SynOptionLayout::Linux);
        assert_eq!(of("linux-2.4"), SynOptionLayout::Linux);
        assert_eq!(of("rfc6298"), SynOptionLayout::Linux);
        assert_eq!(of("freebsd-5"), SynOptionLayout::Bsd);
        assert_eq!(of("bsd-lite"), SynOptionLayout::Bsd);
        assert_eq!(of("windows-xp"), SynOptionLayout::WindowsXp);
        assert_eq!(of("solaris-10"), SynOptionLayout::Solaris10);
        assert_eq!(SynOptionLayout::of(&TcpConfig::default()), SynOptionLayout::Linux);
    }
}
