//! tcplab-netsim: the packet-level discrete-event simulator.
//!
//! | where | what |
//! |---|---|
//! | [`spec`] | `SimSpec`, the validated description of a run |
//! | [`sim`] | the simulator: [`run`] (`SimSpec` + [`RunOptions`] → [`RunOutput`]) |
//! | [`bench`](mod@bench) | benchmark scenarios and the [`bench::dumbbell`] builder |
//! | [`pcap`] | pcap writer (a stand-in until the scenario branch is merged) |

#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod bench;
// STAND-IN: the real pcap writer (src/pcap.rs) comes from branch `scenario`; at merge remove
// this `#[path]` attribute and delete src/pcap_stub.rs.
#[path = "pcap_stub.rs"]
pub mod pcap;
pub mod sim;
pub mod spec;

pub use sim::{run, FlowSummary, LinkSummary, RunOptions, RunOutput, SimError, Summary};
