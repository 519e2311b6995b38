//! tcplab-netsim: the packet-level discrete-event simulator.
//!
//! | where | what |
//! |---|---|
//! | [`spec`] | `SimSpec`, the validated description of a run |
//! | [`scenario`] | TOML scenario files → `SimSpec` |
//! | [`sim`] | the simulator: [`run`] (`SimSpec` + [`RunOptions`] → [`RunOutput`]) |
//! | [`pcap`] | pcap writer for captured links |
//! | [`bench`](mod@bench) | benchmark scenarios and the [`bench::dumbbell`] builder |

#![cfg_attr(test, allow(clippy::unwrap_used))]
#![recursion_limit = "256"]

pub mod bench;
pub mod pcap;
pub mod scenario;
pub mod sim;
pub mod spec;

pub use sim::{run, run_with, Control, FlowSummary, LinkSummary, NoHooks, RunHooks, RunOptions, RunOutput, SimError, Summary, TraceChunk};
