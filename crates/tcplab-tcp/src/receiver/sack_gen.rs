//! SACK option generation (RFC 2018 §4) with D-SACK (RFC 2883 §4).
//!
//! - The first block reports the block containing the most recently received segment; the
//!   others repeat the most recently reported blocks (RFC 2018 §4), up to 3 blocks when
//!   timestamps are in use and 4 otherwise.
//! - A duplicate segment puts a D-SACK block first (RFC 2883 §4 (1)); when the duplicate lies
//!   inside an out-of-order block, that block follows as the second block (§4 (3)).
//!
//! The generator remembers one sequence number inside each recently touched block (a tiny
//! fixed array, no allocation) and resolves them against the reassembly queue when an ACK is
//! built, so merged and delivered blocks disappear automatically.

use super::reassembly::Reassembly;
use crate::segment::{SackBlock, SackBlocks, MAX_SACK_BLOCKS};
use crate::seq::SeqNum;

/// RFC 2018 §3: with the 10-byte timestamp option only three SACK blocks fit in 40 bytes.
pub const MAX_SACK_BLOCKS_WITH_TIMESTAMPS: usize = 3;

/// SACK/D-SACK generator state.
#[derive(Copy, Clone, Debug, Default)]
pub struct SackGen {
    /// One sequence number inside each recently updated block, most recent first.
    recent: [SeqNum; MAX_SACK_BLOCKS],
    n: usize,
    /// Pending D-SACK range for the next ACK.
    dsack: Option<(SeqNum, SeqNum)>,
}

impl SackGen {
    /// An out-of-order segment starting at `s` was queued (after insertion into `q`).
    pub fn on_ooo_segment(&mut self, q: &Reassembly, rcv_nxt: SeqNum, s: SeqNum) {
        let block = q.find(rcv_nxt, s).map(|r| r.left);
        // Drop remembered entries that now fall in the same block as `s` (or are gone).
        let mut kept = [SeqNum(0); MAX_SACK_BLOCKS];
        let mut k = 1;
        kept[0] = s;
        for &e in &self.recent[..self.n] {
            let eb = q.find(rcv_nxt, e).map(|r| r.left);
            if eb.is_some() && eb != block && k < MAX_SACK_BLOCKS {
                kept[k] = e;
                k += 1;
            }
        }
        self.recent = kept;
        self.n = k;
    }

    /// A duplicate range arrived: the next ACK carries it as a D-SACK block.
    pub fn on_duplicate(&mut self, left: SeqNum, right: SeqNum) {
        if self.dsack.is_none() {
            self.dsack = Some((left, right));
        }
    }

    /// Builds the SACK blocks for an ACK and consumes the pending D-SACK.
    pub fn build(&mut self, q: &Reassembly, rcv_nxt: SeqNum, timestamps: bool) -> SackBlocks {
        let max = if timestamps { MAX_SACK_BLOCKS_WITH_TIMESTAMPS } else { MAX_SACK_BLOCKS };
        let mut out = SackBlocks::new();
        let mut dsack_container = None;
        if let Some((l, r)) = self.dsack.take() {
            // RFC 2883 §4 (1): the first block reports the duplicate.
            out.push(SackBlock { left: l, right: r });
            if l.ge(rcv_nxt) {
                // RFC 2883 §4 (3): followed by the block that contains it.
                if let Some(c) = q.find(rcv_nxt, l) {
                    out.push(SackBlock { left: c.left, right: c.right });
                    dsack_container = Some(c.left);
                }
            }
        }
        for &e in &self.recent[..self.n] {
            if out.len() >= max {
                break;
            }
            if e.lt(rcv_nxt) {
                continue;
            }
            if let Some(r) = q.find(rcv_nxt, e) {
                if Some(r.left) == dsack_container {
                    continue;
                }
                out.push(SackBlock { left: r.left, right: r.right });
            }
        }
        out.truncate(max);
        out
    }

    /// Forget blocks that fell below RCV.NXT (keeps the array short).
    pub fn prune(&mut self, rcv_nxt: SeqNum) {
        let mut k = 0;
        for i in 0..self.n {
            if self.recent[i].ge(rcv_nxt) {
                self.recent[k] = self.recent[i];
                k += 1;
            }
        }
        self.n = k;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_block_contains_the_most_recent_segment_then_older_blocks_follow() {
        let base = SeqNum(0);
        let mut q = Reassembly::default();
        let mut g = SackGen::default();
        for s in [100u32, 300, 500, 700, 900] {
            q.insert(base, SeqNum(s), SeqNum(s + 100));
            g.on_ooo_segment(&q, base, SeqNum(s));
        }
        let b = g.build(&q, base, true);
        let lefts: Vec<u32> = b.as_slice().iter().map(|b| b.left.0).collect();
        assert_eq!(lefts, vec![900, 700, 500]);
        let b = g.build(&q, base, false);
        assert_eq!(b.len(), 4);
        // 250..300 joins the 300 block: it becomes the most recent.
        q.insert(base, SeqNum(250), SeqNum(300));
        g.on_ooo_segment(&q, base, SeqNum(250));
        let b = g.build(&q, base, true);
        assert_eq!(b.as_slice()[0], SackBlock { left: SeqNum(250), right: SeqNum(400) });
        assert_eq!(b.as_slice()[1].left, SeqNum(900));
    }

    #[test]
    fn a_duplicate_below_rcv_nxt_is_reported_first_as_dsack() {
        let base = SeqNum(1000);
        let mut q = Reassembly::default();
        let mut g = SackGen::default();
        q.insert(base, SeqNum(2000), SeqNum(3000));
        g.on_ooo_segment(&q, base, SeqNum(2000));
        g.on_duplicate(SeqNum(500), SeqNum(1000));
        let b = g.build(&q, base, true);
        assert_eq!(b.as_slice()[0], SackBlock { left: SeqNum(500), right: SeqNum(1000) });
        assert_eq!(b.as_slice()[1], SackBlock { left: SeqNum(2000), right: SeqNum(3000) });
        // consumed
        assert_eq!(g.build(&q, base, true).len(), 1);
    }
}
