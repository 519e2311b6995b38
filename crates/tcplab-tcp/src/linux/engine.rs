//! The Linux 2.4 engine behind the sender-engine seam (`sender/recovery.rs`), a sibling of
//! the RFC engine: its state is [`LinuxCa`], its rules are in `glue.rs` and the files of
//! this module.

use super::{LinuxCa, TCP_FASTRETRANS_THRESH};
use crate::config::{DupAckThreshold, TcpConfig};
use crate::conn::ConnStats;
use crate::sender::recovery::{AckInput, SenderRecovery};
use crate::sender::rules;
use crate::sender::{DataOut, Sender};
use crate::timer::Timers;
use crate::trace::Trace;
use tcplab_time::SimTime;

/// The Linux 2.4 sender (002 §2): `TcpConfig::sender = SenderModel::Linux`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Linux24 {
    pub ca: LinuxCa,
}

impl Linux24 {
    pub fn new(cfg: &TcpConfig) -> Linux24 {
        let reordering = match cfg.dupack_threshold {
            DupAckThreshold::Fixed(d) => d,
            DupAckThreshold::Adaptive => TCP_FASTRETRANS_THRESH,
        };
        let mut ca = LinuxCa::new(SimTime::ZERO, reordering);
        ca.rate_halving = cfg.linux_rate_halving;
        ca.fack = cfg.linux_fack;
        Linux24 { ca }
    }
}

impl SenderRecovery for Linux24 {
    fn name(&self) -> &'static str {
        "linux-2.4"
    }
    fn on_established(&mut self, s: &mut Sender) {
        s.linux_established(&mut self.ca);
    }
    fn on_ack(&mut self, s: &mut Sender, a: &AckInput<'_>, timers: &mut Timers, trace: &mut Trace) {
        s.linux_on_ack(&mut self.ca, a, trace);
        // RFC 6298 (5.2)/(5.3) (Linux resets the timer on every ACK of new data, 002
        // L1633–1635).
        rules::rto_timer_on_ack(timers, a.now, s.rtt.rto(), s.snd_una == s.snd_nxt, a.bytes_acked);
    }
    fn can_send_new(&self, s: &Sender, _len: u32) -> bool {
        s.linux_can_send_new(&self.ca)
    }
    fn next_segment(&mut self, s: &mut Sender, now: SimTime, timers: &mut Timers, stats: &mut ConnStats) -> Option<DataOut> {
        s.linux_next_segment(&mut self.ca, now, timers, stats)
    }
    fn on_rto(&mut self, s: &mut Sender, now: SimTime, timers: &mut Timers, stats: &mut ConnStats, trace: &mut Trace) {
        s.linux_on_rto(&mut self.ca, now, timers, stats, trace);
    }
    fn bytes_in_flight(&self, s: &Sender) -> u64 {
        // 002 L1359–1361 in bytes (the same tags; `linux_counters` has the packets).
        s.pipe()
    }
    fn linux24(&self) -> Option<&LinuxCa> {
        Some(&self.ca)
    }
    fn linux24_mut(&mut self) -> Option<&mut LinuxCa> {
        Some(&mut self.ca)
    }
    fn clone_box(&self) -> Box<dyn SenderRecovery> {
        Box::new(self.clone())
    }
}
