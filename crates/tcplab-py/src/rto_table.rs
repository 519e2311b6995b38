//! `_core.fig6_rto_table(rtt_c, rtt_f)`: Aron & Druschel's Fig. 6 RTO columns computed by the
//! engine's own estimators from the sample columns (000 §4.1, Fig. 6).
//!
//! "RTT_c gives the RTT measurement made by a 500ms clock. RTT_f gives the RTT measurement
//! made by a 1ms clock. RTO_O gives the RTO estimate as computed by TCP Lite. RTO_B gives the
//! RTO estimate after applying the fixes suggested by Brakmo and Peterson [5] ... RTO_Nf gives
//! the RTO estimate as computed using RTT measurements by the 1ms clock. RTO_Nc gives the RTO
//! estimate as computed by equation 2 by using f_rtt = 1000Hz and f_ev = 2Hz."
//!
//! Each sample is fed as BSD's `t_rtt` would count it (ticks + 1, `T_RTT_START`), the estimators
//! start from 4.4BSD-Lite's initial state (RTO 6 s, bounds 1 s .. 64 s).

use pyo3::prelude::*;
use pyo3::types::PyDict;
use tcplab_tcp::clock::{MeasurementClock, BSD_SLOW_TICK};
use tcplab_tcp::profile::{ARON98_F_RTT_TICK, BSD_INITIAL_RTO, BSD_MAX_RTO, BSD_MIN_RTO};
use tcplab_tcp::rtt::bsd_lite::T_RTT_START;
use tcplab_tcp::rtt::{BrakmoPeterson, BsdLite, Decoupled};
use tcplab_tcp::RtoConfig;

/// The four computed columns (`rto_o`, `rto_b`, `rto_nf`, `rto_nc`) for the sample columns
/// `rtt_c` (500 ms ticks) and `rtt_f` (1 ms ticks), row by row.
#[pyfunction]
pub fn fig6_rto_table(py: Python<'_>, rtt_c: Vec<i64>, rtt_f: Vec<i64>) -> PyResult<Bound<'_, PyDict>> {
    if rtt_c.len() != rtt_f.len() {
        return Err(pyo3::exceptions::PyValueError::new_err("rtt_c and rtt_f must have the same length"));
    }
    let cfg = RtoConfig { initial: BSD_INITIAL_RTO, min: BSD_MIN_RTO, max: BSD_MAX_RTO, ..RtoConfig::default() };
    let mut o = BsdLite::new(&cfg, MeasurementClock::every(BSD_SLOW_TICK));
    let mut b = BrakmoPeterson::new(&cfg, MeasurementClock::every(BSD_SLOW_TICK));
    let mut n = Decoupled::new(&cfg, MeasurementClock::every(ARON98_F_RTT_TICK), BSD_SLOW_TICK);
    let (mut ro, mut rb, mut rnf, mut rnc) = (vec![], vec![], vec![], vec![]);
    for (&c, &f) in rtt_c.iter().zip(&rtt_f) {
        o.tcp_xmit_timer(c + T_RTT_START);
        b.tcp_xmit_timer(c + T_RTT_START);
        n.update(f + T_RTT_START);
        ro.push(o.t_rxtcur());
        rb.push(b.t_rxtcur());
        rnf.push(n.rto_fine() as i64);
        rnc.push(n.rto_ev() as i64);
    }
    let d = PyDict::new(py);
    d.set_item("rto_o", ro)?;
    d.set_item("rto_b", rb)?;
    d.set_item("rto_nf", rnf)?;
    d.set_item("rto_nc", rnc)?;
    Ok(d)
}
