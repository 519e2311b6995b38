use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
#[test]
fn zz_fingerprint() {
    for f in ["dumbbell.toml"] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(f);
        let mut overrides = vec![];
        if f == "aron98-fig1.toml" { overrides.push("simulation.duration=3s".to_string()); }
        let spec = tcplab_netsim::scenario::load_path(&path, &overrides).unwrap();
        let out = tcplab_netsim::sim::run(&spec, &tcplab_netsim::sim::RunOptions { seed: 1, trace: true, pcap: vec![] }).unwrap();
        let text = format!("{:?}{:?}{:?}{:?}", out.summary, out.flows, out.events, out.timeseries);
        let mut h = DefaultHasher::new();
        text.hash(&mut h);
        eprintln!("FP {f} len {} hash {:x}", text.len(), h.finish());
    }
}
