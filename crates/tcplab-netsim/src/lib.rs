//! tcplab-netsim: the packet-level discrete-event simulator.
//!
//! | where | what |
//! |---|---|
//! | [`spec`] | `SimSpec`, the validated description of a run |

pub mod spec;
