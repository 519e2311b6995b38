//! Linux 2.4's undo of a congestion-window reduction after a spurious timeout (dissertation
//! §3.3.2, L1669-1678; Linux `tcp_undo_cwnd_reduction`), as a response to any detector:
//! "the lost mark is removed from all segments ... cwnd <- max(cwnd, 2*ssthresh); ssthresh
//! <- prior_ssthresh" — the sender "continues in congestion avoidance at a similar rate as
//! when the Loss state was entered". The same undo follows D-SACK detection (L1688-1695).
//!
//! `ssthresh` here is the value the RTO set (half the flight), so 2*ssthresh is about the
//! flight at the timeout; Linux restores `prior_ssthresh` only if it is larger
//! (`if (prior_ssthresh > snd_ssthresh)`).

use super::{ResponseDecision, ResponseInput, SpuriousResponder};
use crate::cc::CcState;

/// Linux `snd_ssthresh << 1`.
pub const UNDO_SSTHRESH_FACTOR: u64 = 2;

#[derive(Copy, Clone, Debug, Default)]
pub struct LinuxUndo;

impl SpuriousResponder for LinuxUndo {
    fn respond(&self, inp: &ResponseInput) -> ResponseDecision {
        let cwnd = inp.now.cwnd.max(UNDO_SSTHRESH_FACTOR.saturating_mul(inp.now.ssthresh));
        let ssthresh = inp.now.ssthresh.max(inp.prior.ssthresh);
        ResponseDecision { cc: CcState { cwnd, ssthresh }, resume_new_data: true, hold_until: None }
    }
    fn clone_box(&self) -> Box<dyn SpuriousResponder> {
        Box::new(*self)
    }
}
