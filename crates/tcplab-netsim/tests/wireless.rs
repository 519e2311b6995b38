//! The shipped wireless scenarios run and show what they are for.

use tcplab_netsim::scenario::load_path;
use tcplab_netsim::{run, RunOptions, RunOutput};
use tcplab_record::ColumnData;

fn scenario(name: &str) -> tcplab_netsim::spec::SimSpec {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(name);
    load_path(&path, &[]).unwrap_or_else(|e| panic!("{e}"))
}

fn traced(spec: &tcplab_netsim::spec::SimSpec, seed: u64) -> RunOutput {
    run(spec, &RunOptions { seed, trace: true, pcap: vec![] }).expect("run")
}

/// (t_ns, kind, cause, spurious) of every events row.
fn rows(out: &RunOutput) -> Vec<(u64, String, String, Option<bool>)> {
    let col = |n: &str| out.events.column(n).expect(n);
    let dict = |n: &str, i: usize| {
        let c = col(n);
        let ColumnData::Dict { codes, values } = &c.data else { panic!() };
        if c.valid.as_ref().is_none_or(|v| v[i]) { values[codes[i] as usize].clone() } else { String::new() }
    };
    let ColumnData::U64(t) = &col("t_ns").data else { panic!() };
    let sp = col("spurious");
    let ColumnData::Bool(s) = &sp.data else { panic!() };
    (0..t.len())
        .map(|i| (t[i], dict("kind", i), dict("cause", i), sp.valid.as_ref().is_none_or(|v| v[i]).then_some(s[i])))
        .collect()
}

#[test]
fn the_frto_delay_spike_scenario_has_an_rto_during_the_spike_and_spurious_retransmissions() {
    let out = traced(&scenario("frto-delay-spike.toml"), 1);
    let f = &out.summary.flows[0];
    assert_eq!(f.bytes_delivered, 100 * 1024, "{f:?}");
    let r = rows(&out);
    let (t0, t1) = (20_000_000_000, 26_000_000_000);
    assert!(r.iter().any(|x| x.1 == "rto_fired" && (t0..t1).contains(&x.0)), "no RTO in the spike");
    let in_spike: Vec<_> = r.iter().filter(|x| x.1 == "segment_retransmitted" && (t0..t1).contains(&x.0)).collect();
    assert!(!in_spike.is_empty());
    assert!(in_spike.iter().all(|x| x.3 == Some(true)), "{in_spike:?}");
    assert!(f.spurious_retransmissions >= in_spike.len() as u64);
    println!(
        "frto-delay-spike: fct {:?} s, timeouts {}, retransmissions {} ({} in the spike), spurious {}, drops {}",
        f.fct_s,
        f.timeouts,
        f.retransmissions,
        in_spike.len(),
        f.spurious_retransmissions,
        out.summary.links[1].drops_ab
    );
}

#[test]
fn the_gprs_scenario_has_random_spikes_that_differ_by_seed() {
    let spec = scenario("gprs.toml");
    let stalls = |seed| {
        let out = traced(&spec, seed);
        let f = &out.summary.flows[0];
        println!(
            "gprs seed {seed}: fct {:?} s, timeouts {}, retransmissions {}, spurious {}, drops {}",
            f.fct_s, f.timeouts, f.retransmissions, f.spurious_retransmissions, out.summary.links[1].drops_ab
        );
        assert_eq!(f.bytes_delivered, 100 * 1024, "{f:?}");
        rows(&out).into_iter().filter(|x| x.1 == "link_stall_start").map(|x| x.0).collect::<Vec<_>>()
    };
    let a = stalls(1);
    assert!(!a.is_empty());
    let (x, y) = (traced(&spec, 3), traced(&spec, 3));
    assert_eq!(x.events, y.events, "a run is a pure function of (scenario, seed)");
    assert_eq!(x.flows, y.flows);
    assert_eq!(a, stalls(1));
    assert_ne!(a, stalls(2));
}

#[test]
fn every_chapter_5_and_7_scenario_completes_its_transfers() {
    for name in ["frto-ch5-128k.toml", "frto-ch5-384k.toml", "frto-ch5-type2.toml", "egprs.toml", "wlan.toml"] {
        let spec = scenario(name);
        let out = traced(&spec, 1);
        for f in &out.summary.flows {
            assert_eq!(Some(f.bytes_delivered), f.bytes_requested, "{name}: {f:?}");
        }
        let r = rows(&out);
        let count = |k: &str| r.iter().filter(|x| x.1 == k).count();
        println!(
            "{name}: fct {:?}, rexmits {:?}, spurious {:?}, drops {}, stalls {}, bandwidth changes {}",
            out.summary.flows.iter().map(|f| f.fct_s.unwrap_or(f64::NAN)).collect::<Vec<_>>(),
            out.summary.flows.iter().map(|f| f.retransmissions).collect::<Vec<_>>(),
            out.summary.flows.iter().map(|f| f.spurious_retransmissions).collect::<Vec<_>>(),
            out.summary.links.iter().map(|l| l.drops_ab + l.drops_ba).sum::<u64>(),
            count("link_stall_start"),
            count("bandwidth_change"),
        );
        if name == "frto-ch5-type2.toml" {
            assert!(count("bandwidth_change") > 0);
        }
    }
}

/// The shipped reordering scenario (1 % of data packets 5 ms late on the bottleneck) gives
/// spurious fast retransmissions, which the same run without reordering does not have.
#[test]
fn the_reordering_scenario_has_spurious_fast_retransmissions_that_reordering_causes() {
    let spec = scenario("reordering.toml");
    let out = traced(&spec, 1);
    let spurious_fast = |out: &RunOutput| {
        rows(out).iter().filter(|x| x.1 == "segment_retransmitted" && x.2 == "fast_retransmit" && x.3 == Some(true)).count()
    };
    let n = spurious_fast(&out);
    let mut plain = spec.clone();
    plain.links[0].dynamics.reorder_ab = None;
    let m = spurious_fast(&traced(&plain, 1));
    println!("spurious fast retransmissions: {n} with reordering, {m} without");
    assert!(n >= 3 && n > 2 * m, "{n} with reordering, {m} without");
    assert!(out.summary.flows.iter().all(|f| f.bytes_delivered > 0));
}
