//! tcplab-netsim: the packet-level discrete-event simulator.
//!
//! | where | what |
//! |---|---|
//! | [`spec`] | `SimSpec`, the validated description of a run |
//! | [`scenario`] | TOML scenario files → `SimSpec` |
//! | [`pcap`] | pcap writer for captured links |

pub mod pcap;
pub mod scenario;
pub mod spec;
