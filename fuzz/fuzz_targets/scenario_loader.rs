//! Any text (and any override) through the scenario loader: no panic; an accepted scenario
//! satisfies the invariants the simulator relies on (something to send: flows or workloads,
//! which may stand alone); a refused one gets one non-empty line.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tcplab_netsim::scenario::load_str;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    // The last line, if it looks like `path=value`, is also tried as an override.
    let overrides: Vec<String> = text
        .lines()
        .last()
        .filter(|l| l.contains('=') && !l.trim_start().starts_with('['))
        .map(|l| vec![l.trim().to_string()])
        .unwrap_or_default();
    for ov in [&[][..], &overrides[..]] {
        let spec = match load_str(text, "fuzz", ov) {
            Ok(spec) => spec,
            Err(e) => {
                let line = e.to_string();
                assert!(!line.is_empty() && !line.contains('\n'), "{line:?}");
                continue;
            }
        };
        {
            assert!(!spec.flows.is_empty() || !spec.workloads.is_empty());
            for f in &spec.flows {
                assert!(f.src < spec.nodes.len() && f.dst < spec.nodes.len() && f.src != f.dst);
                assert!(f.tcp.mss > 0);
            }
            for l in &spec.links {
                assert!(l.a < spec.nodes.len() && l.b < spec.nodes.len());
                assert!(l.bandwidth.as_bps() > 0);
            }
            assert!(spec.duration.as_nanos() > 0);
        }
    }
});
