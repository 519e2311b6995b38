//! Startup seam: what the sender starts with once the connection is established.
//!
//! Today: the initial window (RFC 3390 / RFC 6928 / fixed) and the configured initial
//! ssthresh. Later issues add ssthresh estimation, pacing and shared-state initialisation
//! behind the same trait.

pub mod initial_window;

pub use initial_window::InitialWindowPolicy;

/// Facts known when the sender starts.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct StartupEvent {
    /// Sender MSS after negotiation.
    pub smss: u64,
    /// The SYN or SYN-ACK was retransmitted (RFC 5681 §3.1 / RFC 6928 §2: IW is then one
    /// segment).
    pub handshake_retransmitted: bool,
}

/// Chooses the initial congestion state.
pub trait StartupPolicy: std::fmt::Debug + Send {
    /// Called once when the connection is established.
    fn initial_cwnd(&self, ev: &StartupEvent) -> u64;
    /// Called once when the connection is established.
    fn initial_ssthresh(&self, ev: &StartupEvent) -> u64;
    fn clone_box(&self) -> Box<dyn StartupPolicy>;
}
