//! Packet-counted in-flight accounting over the shared retransmission queue.
//!
//! 002 L1349–1410 (spec §2.2): every outstanding segment carries the tags
//! {SACKed, lost, retransmitted} (Linux TCPCB_SACKED_ACKED, TCPCB_LOST, TCPCB_SACKED_RETRANS;
//! here `scoreboard::{SACKED, LOST, RETRANS}` of the shared [`Scoreboard`], whose entries are
//! exactly one transmitted segment each), and
//!
//! ```text
//! 002 L1359–1361:  left_out  <- sacked_out + lost_out
//!                  in_flight <- packets_out - left_out + retrans_out
//! ```
//!
//! The counters are recounted from the tags (a scan of the outstanding window, no
//! allocation), so they are consistent with the markings by construction (002 L1394–1395).
//! A SACKed segment counts only in `sacked_out` (Linux clears LOST/RETRANS when it SACK-tags).
//! Without SACK, 002 L1373–1379: `sacked_out += 1` per duplicate ACK; those "reno sacks" are
//! kept by the caller and added here.

use crate::sender::scoreboard::{Scoreboard, LOST, RETRANS, SACKED};

/// Linux's packet counters (`struct tcp_opt` of 2.4): all in segments.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Originally transmitted segments above SND.UNA.
    pub packets_out: u32,
    /// Segments acknowledged by SACK blocks (or duplicate ACKs without SACK).
    pub sacked_out: u32,
    /// Segments estimated lost (not SACKed).
    pub lost_out: u32,
    /// Retransmissions still outstanding (not SACKed).
    pub retrans_out: u32,
    /// Segments from SND.UNA up to and including the forward-most SACKed one (FACK).
    pub fackets_out: u32,
}

impl Counters {
    /// Recount from the scoreboard tags; `reno_sacked` are the duplicate ACKs counted as
    /// SACKs when the connection has no SACK (002 L1373–1379).
    pub fn count(sb: &Scoreboard, reno_sacked: u32) -> Self {
        let mut c = Counters::default();
        let mut i = 0;
        while let Some(g) = sb.get(i) {
            i += 1;
            if g.seq_len() == 0 {
                continue;
            }
            c.packets_out += 1;
            if g.has(SACKED) {
                c.sacked_out += 1;
                c.fackets_out = c.packets_out;
            } else {
                c.lost_out += u32::from(g.has(LOST));
                c.retrans_out += u32::from(g.has(RETRANS));
            }
        }
        // A duplicate ACK cannot stand for more segments than are outstanding and not lost.
        let room = c.packets_out.saturating_sub(c.sacked_out + c.lost_out);
        c.sacked_out += reno_sacked.min(room);
        c
    }

    /// 002 L1359: left_out = sacked_out + lost_out.
    #[inline]
    pub fn left_out(&self) -> u32 {
        self.sacked_out + self.lost_out
    }

    /// 002 L1360–1361: in_flight = packets_out - left_out + retrans_out.
    #[inline]
    pub fn in_flight(&self) -> u32 {
        (self.packets_out + self.retrans_out).saturating_sub(self.left_out())
    }
}
