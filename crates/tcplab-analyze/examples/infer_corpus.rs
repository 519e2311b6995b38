//! OS inference on a simulated corpus (docs/validation.md, "Sender OS inference").
//!
//! `cargo run --release -p tcplab-analyze --example infer_corpus [-- --flows N] [-- --seeds S] [-- --verbose] [-- --only NAME]`
//! (or `-- --captures FILE...`: each connection's inference in given captures; or
//! `-- --flows N --dump CASE SEED FLOW`: one case's simulated retransmissions of one flow, its
//! sender capture kept in $TMPDIR/tcplab-infer-dump, and that flow's inference)
//! simulates every candidate profile (`infer::DEFAULT_CANDIDATES`) × {SACK+timestamps,
//! neither} × {short transfers through 5 % loss, longer ones through bursty loss}, captures
//! at the first sender's access link and at the bottleneck, runs `--model auto` and prints
//! the confusion matrix (truth × answer) of the connections with at least one timeout, of
//! those with retransmissions but no timeout, and the share attributed right.
#![allow(clippy::unwrap_used)]

#[path = "../tests/common/corpus.rs"]
mod corpus;
#[path = "../tests/common/infer_corpus.rs"]
mod infer_corpus;

use infer_corpus::{Confusion, Outcome};

fn arg(args: &[String], name: &str, default: u64) -> u64 {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    // `-- --captures FILE...`: the inference of each connection of given captures instead.
    if let Some(i) = args.iter().position(|a| a == "--captures") {
        for f in &args[i + 1..] {
            let a = tcplab_analyze::analyze_paths(&[f], &tcplab_analyze::AnalyzeConfig::auto()).unwrap();
            for c in &a.connections {
                let retx = c.counters[0].retransmissions + c.counters[1].retransmissions;
                let inf = tcplab_analyze::infer::infer_connection(c);
                println!(
                    "{f} conn {} retx {retx}: model {} basis {} confidence {:.3} min_rto_ms {} (candidates {}; runner-up {}; scores {:?})",
                    c.record.conn_id,
                    inf.map_or("unknown", |i| i.model_name()),
                    inf.map_or("none", |i| i.basis.name()),
                    inf.and_then(|i| i.confidence).unwrap_or(f64::NAN),
                    inf.and_then(|i| i.params.min_rto_ns).map_or("unknown".to_string(), |n| (n as f64 / 1e6).to_string()),
                    inf.map_or(String::new(), |i| i.candidates.join("|")),
                    inf.and_then(|i| i.runner_up.clone()).unwrap_or_default(),
                    inf.map(|i| i.scores.iter().map(|(n, s)| (n.clone(), s.cost, s.unexplained, s.timers_fit)).collect::<Vec<_>>()).unwrap_or_default()
                );
            }
        }
        return;
    }
    let flows = arg(&args, "--flows", 10) as usize;
    if let Some(i) = args.iter().position(|a| a == "--dump") {
        let (name, seed, flow) = (&args[i + 1], args[i + 2].parse::<u64>().unwrap(), args[i + 3].parse::<u32>().unwrap());
        let dir = std::env::temp_dir().join("tcplab-infer-dump");
        std::fs::create_dir_all(&dir).unwrap();
        for (profile, case) in infer_corpus::cases(flows).into_iter().filter(|(_, c)| c.name == name.as_str()) {
            let n = case.spec.flows.len();
            let mut pcap: Vec<(String, std::path::PathBuf)> = (0..n).map(|i| (format!("s{i}-left"), dir.join(format!("sender-{i}.pcap")))).collect();
            pcap.push(("bottleneck".to_string(), dir.join("middle.pcap")));
            let truth = corpus::simulate_with(&case, pcap, seed);
            for t in truth.iter().filter(|t| t.flow == flow) {
                println!("TRUTH {profile} t={} seq={} cause={} spurious={:?}", t.t_ns, t.seq, t.cause, t.spurious);
            }
            let f = dir.join(format!("sender-{flow}.pcap"));
            println!("capture {}", f.display());
            let a = tcplab_analyze::analyze_paths(&[&f], &tcplab_analyze::AnalyzeConfig::auto()).unwrap();
            for c in &a.connections {
                let inf = tcplab_analyze::infer::infer_connection(c);
                println!("model {} scores {:?}", inf.map_or("unknown", |i| i.model_name()), inf.map(|i| i.scores.iter().map(|(n, s)| (n.clone(), s.cost, s.unexplained, s.timers_fit)).collect::<Vec<_>>()).unwrap_or_default());
            }
        }
        return;
    }
    let seeds = arg(&args, "--seeds", 2);
    let verbose = args.iter().any(|a| a == "--verbose");
    let dir = std::env::temp_dir().join(format!("tcplab-infer-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut all: Vec<Outcome> = Vec::new();
    let only = args.iter().position(|a| a == "--only").and_then(|i| args.get(i + 1)).cloned();
    for (profile, case) in infer_corpus::cases(flows) {
        if only.as_deref().is_some_and(|o| !case.name.contains(o)) {
            continue;
        }
        for seed in 1..=seeds {
            let o = infer_corpus::run_case(&profile, &case, &dir, seed);
            for x in o.iter().filter(|x| x.model != "unknown" && x.model != x.truth) {
                eprintln!("  WRONG {} seed {seed} {} flow {}: truth {} got {} basis {} (candidates {}) timeouts {} retx {} scores {:?}", x.case, x.vantage, x.flow, x.truth, x.model, x.basis, x.candidates, x.timeouts, x.retransmissions, x.scores);
            }
            if verbose {
                for x in o.iter().filter(|x| x.timeouts > 0 && x.model == "unknown") {
                    eprintln!("  UNKNOWN {} seed {seed} {} flow {}: truth {} basis {} (candidates {}) timeouts {} retx {} scores (cost, unexplained, timers fitted) {:?}", x.case, x.vantage, x.flow, x.truth, x.basis, x.candidates, x.timeouts, x.retransmissions, x.scores);
                }
                for x in o.iter().filter(|x| x.retransmissions > 0 && x.model != "unknown") {
                    eprintln!("  {} seed {seed} {} flow {}: truth {} got {} (candidates {}) timeouts {} retx {}", x.case, x.vantage, x.flow, x.truth, x.model, x.candidates, x.timeouts, x.retransmissions);
                }
            }
            all.extend(o);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    for v in infer_corpus::INFER_VANTAGES {
        breakdown(v, &all);
    }
    margin_sweep(&all);
    by_basis(&all);
    for v in infer_corpus::INFER_VANTAGES {
        let mut with_rto = Confusion::default();
        let mut retx_only = Confusion::default();
        let mut clean = Confusion::default();
        for o in all.iter().filter(|o| o.vantage == v) {
            let m = if o.timeouts > 0 { &mut with_rto } else if o.retransmissions > 0 { &mut retx_only } else { &mut clean };
            m.add(&o.truth, &o.model);
        }
        for (title, m) in [("at least one timeout", &with_rto), ("retransmissions, no timeout", &retx_only), ("no retransmission", &clean)] {
            println!("\n### {v} capture: connections with {title} ({} connections)\n", m.total());
            print!("{}", m.markdown());
            let t = m.total().max(1) as f64;
            println!("\nright {} ({:.3}), unknown {} ({:.3}), wrong {} ({:.3})", m.right(), m.right() as f64 / t, m.unknown(), m.unknown() as f64 / t, m.wrong(), m.wrong() as f64 / t);
        }
    }
}

/// Per vantage and true profile, the connections with at least one timeout and those with
/// retransmissions but no timeout: named right by the replay alone, right with the passive
/// hint (`replay+hint`), unknown, wrong.
fn by_basis(all: &[Outcome]) {
    use std::collections::BTreeMap;
    println!("\n### answers by basis (right by replay / right by replay+hint / right by hint / unknown / WRONG)\n");
    println!("| vantage | truth | timeout: replay | timeout: replay+hint | timeout: hint | timeout: unknown | timeout: WRONG | no timeout: replay | no timeout: replay+hint | no timeout: hint | no timeout: unknown | no timeout: WRONG |\n|---|---|---|---|---|---|---|---|---|---|---|---|");
    for v in infer_corpus::INFER_VANTAGES {
        let mut rows: BTreeMap<&str, [usize; 10]> = BTreeMap::new();
        for o in all.iter().filter(|o| o.vantage == v && o.retransmissions > 0) {
            let r = rows.entry(o.truth.as_str()).or_default();
            let base = if o.timeouts > 0 { 0 } else { 5 };
            let col = if o.model == "unknown" { 3 } else if o.model != o.truth { 4 } else if o.basis == "replay+hint" { 1 } else if o.basis == "hint" { 2 } else { 0 };
            r[base + col] += 1;
        }
        let mut tot = [0usize; 10];
        for (t, r) in &rows {
            println!("| {v} | {t} | {} |", r.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(" | "));
            for (a, b) in tot.iter_mut().zip(r) {
                *a += b;
            }
        }
        println!("| {v} | all | {} |", tot.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(" | "));
    }
}

/// One true profile's row: timeout connections, named right, truth unexplained, ties
/// (candidates → (count, min and max |cost difference|)), alone without a fitted timer.
type BreakdownRow = (usize, usize, usize, std::collections::BTreeMap<String, (usize, u64, u64)>, usize);

/// Why the timeout connections at vantage `v` that were not named right stayed unnamed:
/// (a) the true profile's replay leaves a retransmission unexplained; else (b) the
/// candidates within the decision margin of the truth (cost difference to the truth), or
/// (c) the truth is alone but the decision's other conditions failed (no fitted timer event).
fn breakdown(v: &str, all: &[Outcome]) {
    use std::collections::BTreeMap;
    let mut rows: BTreeMap<String, BreakdownRow> = BTreeMap::new();
    for o in all.iter().filter(|o| o.vantage == v && o.timeouts > 0) {
        let r = rows.entry(o.truth.clone()).or_default();
        r.0 += 1;
        if o.model == o.truth {
            r.1 += 1;
            continue;
        }
        let Some(t) = o.scores.iter().find(|s| s.0 == o.truth) else { continue };
        if t.2 > 0 {
            r.2 += 1;
            continue;
        }
        let margin = tcplab_analyze::infer::DECISION_MARGIN;
        let mut tied: Vec<(&str, i64)> = o.scores.iter().filter(|s| s.0 != o.truth && s.1 < t.1 + margin).map(|s| (s.0.as_str(), s.1 as i64 - t.1 as i64)).collect();
        tied.sort();
        if tied.is_empty() {
            r.4 += 1;
            continue;
        }
        let key = tied.iter().map(|x| x.0).collect::<Vec<_>>().join("+");
        let e = r.3.entry(key).or_insert((0, u64::MAX, 0));
        e.0 += 1;
        let d = tied.iter().map(|x| x.1.unsigned_abs()).max().unwrap_or(0);
        e.1 = e.1.min(d);
        e.2 = e.2.max(d);
    }
    println!("\n### {v}: why timeout connections stay unnamed\n");
    println!("| truth | timeouts | named right | (a) truth unexplained | (b) tied with (n, |cost diff| min..max) | (c) alone, no timer fit |\n|---|---|---|---|---|---|");
    for (t, r) in &rows {
        let ties = r.3.iter().map(|(k, (n, lo, hi))| format!("{k}: {n} ({lo}..{hi})")).collect::<Vec<_>>().join("; ");
        println!("| {t} | {} | {} | {} | {ties} | {} |", r.0, r.1, r.2, r.4);
    }
}

/// The decision re-run from the recorded scores under other margins (`decide::decide`'s rule
/// without pruning, which only drops candidates beyond `bank::PRUNE_MARGIN`): right / wrong /
/// unknown for the timeout connections and wrong answers among all the others, per vantage.
fn margin_sweep(all: &[Outcome]) {
    println!("\n### decision margin sweep (from the recorded scores)\n");
    println!("| vantage | margin | timer fits | timeout right | timeout wrong | other wrong |\n|---|---|---|---|---|---|");
    for v in infer_corpus::INFER_VANTAGES {
        for margin in [500u64, 700, 900, 1000, 1400, 1900] {
            for fits in [1u32, 2] {
                let (mut right, mut wrong, mut other_wrong) = (0, 0, 0);
                for o in all.iter().filter(|o| o.vantage == v) {
                    let Some(best) = o.scores.iter().min_by_key(|s| s.1) else { continue };
                    let plausible: Vec<_> = o.scores.iter().filter(|s| s.1 < best.1 + margin).collect();
                    let worst = o.scores.iter().map(|s| s.1).max().unwrap_or(0);
                    let named = (plausible.len() == 1 && best.2 == 0 && best.3 >= fits && worst - best.1 >= margin).then_some(best.0.as_str());
                    match (named, o.timeouts > 0) {
                        (Some(n), true) if n == o.truth => right += 1,
                        (Some(_), true) => wrong += 1,
                        (Some(n), false) if n != o.truth => other_wrong += 1,
                        _ => {}
                    }
                }
                println!("| {v} | {margin} | {fits} | {right} | {wrong} | {other_wrong} |");
                if margin == 900 && fits == 1 {
                    let mut why: std::collections::BTreeMap<String, usize> = Default::default();
                    for o in all.iter().filter(|o| o.vantage == v && o.timeouts > 0) {
                        let Some(best) = o.scores.iter().min_by_key(|s| s.1) else { continue };
                        let plausible: Vec<_> = o.scores.iter().filter(|s| s.1 < best.1 + margin).map(|s| s.0.as_str()).collect();
                        let k = if plausible.len() > 1 { format!("tied {}", plausible.join("+")) } else if best.2 > 0 { "best unexplained".into() } else if best.3 < 1 { format!("no timer fit ({})", best.0) } else { continue };
                        *why.entry(format!("{} {k}", o.truth)).or_default() += 1;
                    }
                    for (k, n) in why {
                        eprintln!("  {v} m900: {n} {k}");
                    }
                }
            }
        }
    }
}
