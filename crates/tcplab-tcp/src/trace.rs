//! Event recording: pushes [`TcpEvent`]s only when tracing is on (the buffer keeps its
//! capacity between drains, so steady-state tracing does not allocate).

use crate::event::TcpEvent;

/// The connection's event buffer.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub enabled: bool,
    pub events: Vec<TcpEvent>,
}

impl Trace {
    #[inline]
    pub fn push(&mut self, ev: TcpEvent) {
        if self.enabled {
            self.events.push(ev);
        }
    }
}
