//! Whole-scenario snapshots, in integers: any change of behaviour in the engine or the
//! simulator shows up as a text diff of these files (crates/tcplab-netsim/tests/snapshots/).
//!
//! To accept an intended change: `INSTA_UPDATE=always cargo test -p tcplab-netsim --test
//! snapshot`, then review the diff of the `.snap` files before committing.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::PathBuf;
use tcplab_netsim::{run, scenario, RunOptions, RunOutput};
use tcplab_record::ColumnData;

fn scenario_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(name)
}

fn event_kinds(out: &RunOutput) -> BTreeMap<String, u64> {
    let mut m = BTreeMap::new();
    if let Some(c) = out.events.column("kind") {
        if let ColumnData::Dict { codes, values } = &c.data {
            for &code in codes {
                *m.entry(values[code as usize].clone()).or_insert(0) += 1;
            }
        }
    }
    m
}

fn render(out: &RunOutput) -> String {
    let s = &out.summary;
    let mut r = String::new();
    let sim_ns = (s.sim_time_s * 1e9).round() as u64;
    writeln!(r, "scenario {} seed {} sim_ns {} events {}", s.scenario, s.seed, sim_ns, s.events).unwrap();
    writeln!(r, "flow bytes_delivered fct_ns data_segs rto fast_rtx sack_rec probe spurious timeouts").unwrap();
    for f in &s.flows {
        let fct = f.fct_s.map_or("-".to_string(), |x| format!("{}", (x * 1e9).round() as u64));
        let c = &f.retransmissions_by_cause;
        writeln!(
            r,
            "{} {} {} {} {} {} {} {} {} {}",
            f.id,
            f.bytes_delivered,
            fct,
            f.data_segments_sent,
            c["rto"],
            c["fast_retransmit"],
            c["sack_recovery"],
            c["probe"],
            f.spurious_retransmissions,
            f.timeouts
        )
        .unwrap();
    }
    writeln!(r, "link packets_ab packets_ba drops_ab drops_ba max_queue_ab max_queue_ba").unwrap();
    for l in &s.links {
        writeln!(
            r,
            "{} {} {} {} {} {} {}",
            l.name, l.packets_ab, l.packets_ba, l.drops_ab, l.drops_ba, l.max_queue_ab, l.max_queue_ba
        )
        .unwrap();
    }
    writeln!(r, "events by kind").unwrap();
    for (k, n) in event_kinds(out) {
        writeln!(r, "  {k} {n}").unwrap();
    }
    writeln!(
        r,
        "rows events {} timeseries {}",
        out.events.num_rows(),
        out.timeseries.num_rows()
    )
    .unwrap();
    writeln!(r, "fingerprint events {:016x}", out.events.fingerprint(false)).unwrap();
    writeln!(r, "fingerprint timeseries {:016x}", out.timeseries.fingerprint(false)).unwrap();
    r
}

fn snapshot_of(file: &str, seed: u64, overrides: &[&str]) -> String {
    let ov: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let spec = scenario::load_path(&scenario_path(file), &ov).expect("shipped scenario loads");
    let out = run(&spec, &RunOptions { seed, trace: true, pcap: vec![] }).expect("run");
    render(&out)
}

#[test]
fn the_dumbbell_scenario_is_unchanged() {
    insta::assert_snapshot!("dumbbell_seed1", snapshot_of("dumbbell.toml", 1, &[]));
}

#[test]
fn the_dumbbell_scenario_with_random_loss_and_newreno_is_unchanged() {
    insta::assert_snapshot!(
        "dumbbell_lossy_newreno_seed7",
        snapshot_of(
            "dumbbell.toml",
            7,
            &[
                "links.bottleneck.loss.model=bernoulli",
                "links.bottleneck.loss.p=0.01",
                "tcp.sack=false",
                "tcp.recovery=newreno",
            ],
        )
    );
}

#[test]
fn the_aron98_fig2_scenario_is_unchanged() {
    insta::assert_snapshot!("aron98_fig2_seed1", snapshot_of("aron98-fig2.toml", 1, &[]));
}
